"""The dispute view takes the event number the report gave."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.cli import app

runner = CliRunner()
SAMPLE = (
    Path(__file__).resolve().parent.parent / "sample_logs" / "violations" / "wrong_player.jsonl"
)


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    deep = tmp_path / ("a-very-long-folder-name-for-the-club-archive" * 2) / "season-2024"
    deep.mkdir(parents=True)
    log = deep / "wrong_player.jsonl"
    shutil.copy(SAMPLE, log)
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 1
    return log, ds


def _flat(text: str) -> str:
    """The screen text without box drawing and line breaks (a folded line joined)."""
    return re.sub(r"[\s│╭╮╰╯─]+", "", text)


def test_game_at_the_event_validate_reports(tmp_path: Path) -> None:
    log, ds = _setup(tmp_path)
    report = runner.invoke(app, ["validate", str(log), "--json"])
    (v,) = json.loads(report.stdout)["violations"]
    assert (v["code"], v["event_index"]) == ("wrong_player", 12)
    res = runner.invoke(
        app, ["game", str(ds), "sample-wrong_player", "--at", "12"], env={"COLUMNS": "80"}
    )
    assert res.exit_code == 0, res.output
    text = res.stdout
    assert "State before event 12 (after event 11), where the replay stopped" in text
    # the state before it, by hand from the log: p1 holds only JD and is to play on 7D
    assert re.search(r"▶ p1\s+│ 1\s+│ JD ", text)
    assert re.search(r"top card\s+7D", text)
    # the event as logged, with its place, and the violation
    assert '{"type":"play","player":"p2","cards":["AD"]}' in text
    assert "wrong_player at event 12" in text and "p2 plays AD but it is p1's turn" in text
    # the long source path is never cut: the header's and the event's, whole
    assert f"{log}:1" in _flat(text).replace("source", "", 1) or f"{log}:1" in _flat(text)
    assert f"{log}:13" in _flat(text)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_game_after_the_violation_says_where_the_replay_stopped(tmp_path: Path) -> None:
    _, ds = _setup(tmp_path)
    res = runner.invoke(app, ["game", str(ds), "sample-wrong_player", "--at", "13"])
    assert res.exit_code == 2
    assert (
        "--at takes 0..12, not 13 (events 0..11 replayed; event 12 is where the replay stopped "
        "(wrong_player): --at 12 shows the state before it and the event as logged; event 13 "
        "not replayed)"
    ) in " ".join(res.output.split())


def test_game_json_options_are_an_object(tmp_path: Path) -> None:
    _, ds = _setup(tmp_path)
    res = runner.invoke(app, ["game", str(ds), "sample-wrong_player", "--at", "12", "--json"])
    doc = json.loads(res.stdout)
    assert isinstance(doc["game"]["options"], dict)
    assert doc["game"]["options"]["hand_size"] == 5  # classic deals five (PRESETS.md)
    assert doc["state_is"] == "before" and doc["at"] == 12
    assert json.loads(doc["logged_event"]) == {"type": "play", "player": "p2", "cards": ["AD"]}
    assert doc["state"]["hands"]["p1"] == ["JD"]
    after = json.loads(
        runner.invoke(app, ["game", str(ds), "sample-wrong_player", "--at", "11", "--json"]).stdout
    )
    assert after["state_is"] == "after" and after["state"] == doc["state"]
