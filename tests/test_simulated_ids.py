"""Simulated ids that never collide and the lax input checks."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event

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


def _game(seed: int = 5, **header: object) -> list[bytes]:
    lines = [encode_event(ev) for ev in next(simulate("classic", 2, 1, seed))]
    head = json.loads(lines[0])
    head.update(header)
    return [json.dumps(head).encode(), *lines[1:]]


def _validate(path: Path) -> tuple[int, dict]:
    res = runner.invoke(app, ["validate", str(path), "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_started_at_that_is_no_date_is_schema_error_and_the_game_is_replayed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "d.jsonl"
    lines = _game(started_at="2024-13-45T99:99")
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
    lines = _game(started_at="yesterday")
    lines[4] = lines[3]  # a repeated event: a rule violation at event 4
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _, doc = _validate(path)
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"]) == ("schema_error", 0)


def test_good_iso_dates_pass(tmp_path: Path) -> None:
    for when in ("2024-05-01", "2024-05-01T18:30:00Z", "2024-05-01T18:30:00.123+02:00"):
        path = tmp_path / "ok.jsonl"
        path.write_bytes(b"\n".join(_game(started_at=when)) + b"\n")
        code, doc = _validate(path)
        assert code == 0, (when, doc["violations"])


def test_absurd_hand_size_is_bad_option(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join(_game(options={"hand_size": 10**30})) + b"\n")
    code, doc = _validate(path)
    assert code == 1
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"]) == ("bad_option", 0)
    assert "game.options.hand_size: 100000000000...(31 digits) is out of range" in v["message"]
    assert "at most 2,147,483,647" in v["message"]


def test_a_400_digit_seq_is_echoed_shortened(tmp_path: Path) -> None:
    lines = _game()
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
    a = _game(5)
    b = _game(6)  # another game, given a's id
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
