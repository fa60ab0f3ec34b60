"""Unusual input gives a located message, never a traceback: JSON nested too deeply (a log
line or an OpenSpiel line), absurd round numbers, empty or numeric ids, negative counts,
a table the pack cannot deal, control characters, a FIFO in a folder, and match rounds in
the audit."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate, simulate_matches
from maumau_log.cli import app
from maumau_log.events import encode_event

runner = CliRunner()


def game_lines(seed: int, players: int = 2) -> list[bytes]:
    return [encode_event(ev) for ev in next(simulate("classic", players, 1, seed))]


def validate_json(path: Path) -> tuple[int, dict]:
    res = runner.invoke(app, ["validate", str(path), "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_deeply_nested_json_is_bad_json_and_the_other_games_stay(tmp_path: Path) -> None:
    bad = game_lines(2)
    deep = b"[" * 1000 + b"]" * 1000
    bad[3] = bad[3][:-1] + b',"x":' + deep + b"}"
    path = tmp_path / "nest.jsonl"
    path.write_bytes(b"\n".join([*game_lines(1), *bad, *game_lines(3)]) + b"\n")
    code, doc = validate_json(path)
    assert code == 1
    assert (doc["games"], doc["valid"]) == (3, 2)
    (v,) = doc["violations"]
    assert (v["code"], v["event_index"]) == ("bad_json", 3)


def _with_header(tmp_path: Path, **changes: object) -> dict:
    lines = game_lines(5)
    header = json.loads(lines[0])
    header.update(changes)
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join([json.dumps(header).encode(), *lines[1:]]) + b"\n")
    code, doc = validate_json(path)
    assert code == 1
    (v,) = doc["violations"]
    return v


def test_absurd_round_number_and_empty_ids_are_schema_errors(tmp_path: Path) -> None:
    v = _with_header(tmp_path, match_id="m", round=10**30)
    assert (v["code"], v["event_index"]) == ("schema_error", 0)
    v = _with_header(tmp_path, match_id="m", round=0)
    assert (v["code"], v["event_index"]) == ("schema_error", 0)
    v = _with_header(tmp_path, game_id="")
    assert (v["code"], v["event_index"]) == ("schema_error", 0)


def test_a_numeric_game_id_is_reported_under_that_id(tmp_path: Path) -> None:
    v = _with_header(tmp_path, game_id=12345)
    assert (v["code"], v["game_id"], v["event_index"]) == ("schema_error", "12345", 0)


def test_negative_counts_are_schema_errors(tmp_path: Path) -> None:
    lines = game_lines(6)
    i = next(k for k, raw in enumerate(lines) if b'"type":"draw"' in raw)
    draw = json.loads(lines[i])
    draw.pop("cards")
    draw["count"] = -3
    lines[i] = json.dumps(draw).encode()
    path = tmp_path / "neg.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, doc = validate_json(path)
    (v,) = doc["violations"]
    assert (code, v["code"], v["event_index"]) == (1, "schema_error", i)


def test_simulate_refuses_a_table_the_pack_cannot_deal(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--ruleset", "classic", "--players", "7",
                              "--out", str(tmp_path / "s.jsonl")])  # fmt: skip
    assert res.exit_code == 2
    assert "7 players need 36 cards" in res.output  # 7 x 5 + the starter; 32 in the pack
    assert not (tmp_path / "s.jsonl").exists()


def test_control_characters_from_logs_are_shown_escaped(tmp_path: Path) -> None:
    header = {"type": "game", "format": "maumau-log/1", "game_id": "\x1b[31mEVIL",
              "ruleset": "standard", "players": ["a\u202eb", "c"]}  # fmt: skip
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(header) + "\n")
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == 1
    assert "\x1b" not in res.output
    assert "\\u001b[31mEVIL" in res.output


def test_a_fifo_in_a_folder_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "game.jsonl").write_bytes(b"\n".join(game_lines(7)) + b"\n")
    os.mkfifo(tmp_path / "pipe.jsonl")
    code, doc = validate_json(tmp_path)  # would block for ever reading the FIFO
    assert (code, doc["games"], doc["valid"]) == (0, 1, 1)


def test_audit_replays_match_rounds(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    with open(log, "wb") as fh:
        for events in simulate_matches("faraon", 3, 4, 8):
            fh.writelines(encode_event(ev) + b"\n" for ev in events)
    res = runner.invoke(app, ["ingest", str(log), "--out", str(tmp_path / "ds")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["audit", str(tmp_path / "ds"), "--format", "json"])
    doc = json.loads(res.stdout)
    assert doc["valid"] == doc["replayed"] == doc["games"]


def test_an_openspiel_line_nested_too_deeply_is_a_located_rejection(tmp_path: Path) -> None:
    """msgspec raised RecursionError (not DecodeError) on 200,000 open brackets: the import
    exited 3 with "internal error". Now that line is rejected at its place, the good game
    beside it imported, exit 1 as for any rejected game."""
    import json

    from typer.testing import CliRunner

    import maumau_log.cli.import_cmds  # noqa: F401
    from maumau_log.cli import app

    samples = Path(__file__).resolve().parent.parent / "sample_logs" / "openspiel"
    good = (samples / "histories.openspiel.txt").read_text().splitlines()[0]
    src = tmp_path / "deep.ndjson"
    src.write_text('{"game":"crazy_eights()","history":' + "[" * 200_000 + "\n" + good + "\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["import", "openspiel", str(src), "--out", str(out)])
    assert res.exit_code == 1, res.output
    text = " ".join(res.output.split())
    assert f"{src}:1, game 1: not valid JSON: nested too deeply" in text
    assert "imported 1 game(s)" in text and "internal error" not in text
    assert json.loads(out.read_text().splitlines()[0])["type"] == "game"
