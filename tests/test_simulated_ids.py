"""Simulated game ids never collide: they carry the ruleset, the players and the seed, depend
on the options, stay repeatable, and a conflict message says how to tell the games apart."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.cli import app

runner = CliRunner()


def _sim(tmp_path: Path, name: str, *args: str) -> Path:
    out = tmp_path / name
    res = runner.invoke(
        app, ["simulate", "--games", "3", "--players", "2", "--out", str(out), *args]
    )
    assert res.exit_code == 0, res.output
    return out


def _ids(path: Path) -> list[str]:
    return [
        json.loads(line)["game_id"] for line in path.read_text().splitlines() if '"game"' in line
    ]


def test_default_simulations_of_two_presets_both_store(tmp_path: Path) -> None:
    a = _sim(tmp_path, "a.jsonl", "--ruleset", "classic")
    b = _sim(tmp_path, "b.jsonl", "--ruleset", "standard")
    assert _ids(a) == [f"sim-classic-2p-1-{k:06d}" for k in range(3)]
    assert _ids(b) == [f"sim-standard-2p-1-{k:06d}" for k in range(3)]
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(a), "--out", str(ds)]).exit_code == 0
    second = runner.invoke(app, ["ingest", str(b), "--out", str(ds)])
    assert second.exit_code == 0, second.output  # used to be 3 conflicts, nothing stored
    assert "3 added, 0 already stored, 0 conflicts" in second.output


def test_simulated_ids_depend_on_options_and_stay_repeatable(tmp_path: Path) -> None:
    plain = _ids(_sim(tmp_path, "p.jsonl", "--ruleset", "classic"))
    six = _ids(_sim(tmp_path, "o.jsonl", "--ruleset", "classic", "--options", '{"hand_size": 6}'))
    again = _ids(
        _sim(tmp_path, "o2.jsonl", "--ruleset", "classic", "--options", '{"hand_size": 6}')
    )
    # sha256('{"hand_size":6}')[:8], by hand with hashlib
    assert six == again == [f"sim-classic-2p-9d1dc064-1-{k:06d}" for k in range(3)]
    assert not set(plain) & set(six)
    three = _ids(_sim(tmp_path, "t.jsonl", "--ruleset", "classic", "--players", "3"))
    assert three[0] == "sim-classic-3p-1-000000"


def test_conflict_message_says_how_to_tell_the_games_apart(tmp_path: Path) -> None:
    a = _sim(tmp_path, "a.jsonl", "--ruleset", "classic")
    b = _sim(tmp_path, "b.jsonl", "--ruleset", "classic", "--seed", "2")
    # the second file reuses the first's ids (as older simulations did)
    b.write_text(b.read_text().replace("sim-classic-2p-2-", "sim-classic-2p-1-"))
    ds = tmp_path / "ds"
    runner.invoke(app, ["ingest", str(a), "--out", str(ds)])
    res = runner.invoke(app, ["ingest", str(b), "--out", str(ds)])
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert "game 'sim-classic-2p-1-000000' differs from the copy already stored" in text
    assert f"compare the stored one (maumau-log game {ds} 'sim-classic-2p-1-000000')" in text
    assert f"with the new one (maumau-log validate {b} --json)" in text
    assert "give the new game another game_id, or ingest it into another dataset" in text
