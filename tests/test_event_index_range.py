"""One range for --at: game, game --try and view take the event numbers the report gives
(header = 0) up to the game's last event, and refuse others with a located message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app

runner = CliRunner()
SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "violations"


# 5. --at: one range, stated the same by every message


def _wrong_player(tmp_path: Path) -> tuple[Path, Path]:
    log = SAMPLE / "wrong_player.jsonl"  # 14 lines: events 0..13, p2 plays out of turn at 12
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 1
    return log, ds


def _said(res: object) -> str:
    return " ".join(res.output.split())  # type: ignore[attr-defined]


@pytest.mark.parametrize("at, ok", [(-1, False), (0, True), (12, True), (13, False)])
def test_game_at_range(tmp_path: Path, at: int, ok: bool) -> None:
    _, ds = _wrong_player(tmp_path)
    res = runner.invoke(app, ["game", str(ds), "sample-wrong_player", "--at", str(at)])
    if ok:
        assert res.exit_code == 0, res.output
    else:
        assert res.exit_code == 2
        assert f"--at takes 0..12, not {at} (events 0..11 replayed; event 12 is where" in _said(res)


@pytest.mark.parametrize("at, code", [(-1, 2), (0, 0), (12, 0), (13, 2)])
def test_try_at_range(tmp_path: Path, at: int, code: int) -> None:
    log, ds = _wrong_player(tmp_path)
    for source in (log, ds):
        res = runner.invoke(
            app, ["game", str(source), "sample-wrong_player", "--at", str(at), "--try", "p2 draws"]
        )
        said = _said(res)
        if code == 2:
            assert res.exit_code == 2
            assert f"--at takes 0..12, not {at}" in said
        else:
            assert res.exit_code in (0, 1), res.output
            assert ("instead of event 12:" if at == 12 else f"after event {at}:") in said


@pytest.mark.parametrize("at, ok", [(-1, False), (0, True), (13, True), (14, False)])
def test_view_at_range(tmp_path: Path, at: int, ok: bool) -> None:
    res = runner.invoke(
        app,
        ["view", str(SAMPLE / "wrong_player.jsonl"), "sample-wrong_player", "--at", str(at),
         "--out", str(tmp_path / "v.html")],
    )  # fmt: skip
    if ok:
        assert res.exit_code == 0, res.output
    else:
        assert res.exit_code == 2
        assert f"--at takes 0..13, not {at}" in _said(res)


def test_valid_game_at_range(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 2, 1, seed=5), fh)
    last = len(log.read_bytes().splitlines()) - 1
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 0
    gid = json.loads(log.read_bytes().splitlines()[0])["game_id"]
    for source in (ds, log):
        for at, code in ((last, (0, 1)), (last + 1, (2,)), (-1, (2,))):
            args = ["game", str(source), gid, "--at", str(at), "--try", "p1 draws"]
            res = runner.invoke(app, args)
            assert res.exit_code in code, res.output
            if code == (2,):
                assert f"--at takes 0..{last}, not {at}" in _said(res)
    for at, code in ((last, 0), (last + 1, 2), (-1, 2)):
        res = runner.invoke(app, ["game", str(ds), gid, "--at", str(at)])
        assert res.exit_code == code, res.output
        if code == 2:
            assert f"--at takes 0..{last}, not {at}" in _said(res)
