"""The lax input checks: a started_at that is no date is a schema_error and the game is still
replayed, an absurd hand_size is bad_option, a 400-digit seq is echoed shortened, and one
game id used by different games makes validate exit 1."""

from __future__ import annotations

import json
from pathlib import Path

from gamebuilder import simulated_lines
from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.cli import app

runner = CliRunner()


def _validate(path: Path) -> tuple[int, dict]:
    res = runner.invoke(app, ["validate", str(path), "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_started_at_that_is_no_date_is_schema_error_and_the_game_is_replayed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.jsonl"
    lines = simulated_lines(started_at="2024-13-45T99:99")
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, doc = _validate(path)
    assert code == 1
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"], v["line"]) == ("schema_error", 0, 1)
    assert "game.started_at '2024-13-45T99:99' is not an ISO 8601 date and time" in v["message"]
    ds = tmp_path / "ds"
    runner.invoke(app, ["ingest", str(path), "--out", str(ds)])
    rows = json.loads(
        runner.invoke(
            app,
            ["query", str(ds), "select date, valid, events from games", "--format", "json"],
        ).stdout
    )
    # the whole game was replayed and stored (all its events), under date unknown
    assert rows == [{"date": "unknown", "valid": False, "events": len(lines)}]
    stored = runner.invoke(
        app, ["query", str(ds), "select count(*) as n from events", "--format", "json"]
    )
    assert json.loads(stored.stdout) == [{"n": len(lines)}]
    since = runner.invoke(app, ["stats", str(ds), "--since", "2024-13-45"])
    assert since.exit_code == 2 and "--since must be a date" in since.output


def test_a_later_fault_after_a_bad_date_keeps_the_first_violation(tmp_path: Path) -> None:
    lines = simulated_lines(started_at="yesterday")
    lines[4] = lines[3]  # a repeated event: a rule violation at event 4
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _, doc = _validate(path)
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"]) == ("schema_error", 0)


def test_good_iso_dates_pass(tmp_path: Path) -> None:
    for when in ("2024-05-01", "2024-05-01T18:30:00Z", "2024-05-01T18:30:00.123+02:00"):
        path = tmp_path / "ok.jsonl"
        path.write_bytes(b"\n".join(simulated_lines(started_at=when)) + b"\n")
        code, doc = _validate(path)
        assert code == 0, (when, doc["violations"])


def test_absurd_hand_size_is_bad_option(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join(simulated_lines(options={"hand_size": 10**30})) + b"\n")
    code, doc = _validate(path)
    assert code == 1
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"]) == ("bad_option", 0)
    assert "game.options.hand_size: 100000000000...(31 digits) is out of range" in v["message"]
    assert "at most 2,147,483,647" in v["message"]


def test_a_400_digit_seq_is_echoed_shortened(tmp_path: Path) -> None:
    lines = simulated_lines()
    ev = json.loads(lines[2])
    ev["seq"] = int("7" * 400)
    lines[2] = json.dumps(ev).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _, doc = _validate(path)
    (v,) = doc["violations"]
    assert v["code"] == "bad_seq"
    assert v["message"] == "seq is 777777777777...7777 (400 digits) but this is event 2 of the game"


def test_validate_exits_1_for_one_id_used_by_different_games(tmp_path: Path) -> None:
    a = simulated_lines(5)
    b = simulated_lines(6)  # another game, given a's id
    head = json.loads(b[0])
    head["game_id"] = json.loads(a[0])["game_id"]
    b[0] = json.dumps(head).encode()
    path = tmp_path / "two.jsonl"
    path.write_bytes(b"\n".join([*a, *b]) + b"\n")
    code, doc = _validate(path)
    gid = json.loads(a[0])["game_id"]
    assert doc["violations"] == [] and doc["valid"] == 2
    assert code == 1
    assert doc["conflicting_game_ids"] == {gid: [f"{path}:1", f"{path}:{len(a) + 1}"]}
    same = tmp_path / "same.jsonl"
    same.write_bytes(b"\n".join([*a, *a]) + b"\n")
    code, doc = _validate(same)
    assert code == 0 and doc["duplicate_game_ids"] == [gid] and doc["conflicting_game_ids"] == {}
