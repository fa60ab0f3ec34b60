"""CLI tests for validate, simulate and rules (typer's CliRunner), with exact values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
from maumau_log.cli import app

# the other engines' example logs (shared/examples), as the project keeps a copy of them
EXAMPLES = Path(__file__).resolve().parents[1] / "sample_logs" / "valid" / "other_engines"
if not EXAMPLES.is_dir():
    EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "examples"

runner = CliRunner()


def test_other_engines_examples_validate_clean() -> None:
    res = runner.invoke(app, ["validate", str(EXAMPLES), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"], doc["invalid"], doc["violations"]) == (4, 4, 0, [])


def test_rules_file_overrides_the_header(tmp_path: Path) -> None:
    # the standard example's player serves a 7 and still plays (draw_ends_turn = false in
    # its header); a ruleset file saying a served draw ends the turn makes event 25 of its
    # first game (p2 plays QS right after drawing for the 7S) a play out of turn
    rules = tmp_path / "strict.toml"
    rules.write_text("[options]\ndraw_ends_turn = true\n")
    res = runner.invoke(
        app,
        [
            "validate",
            str(EXAMPLES / "standard_other_engine.jsonl"),
            "--rules",
            str(rules),
            "--json",
        ],
    )
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    first = doc["violations"][0]
    assert (first["game_id"], first["event_index"], first["line"], first["code"]) == (
        "om-2p-002",
        25,
        26,
        "wrong_player",
    )
    assert first["player"] == "p2"


def test_bad_rules_file_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[options]\ndraw_answer = 'sometimes'\n")
    res = runner.invoke(app, ["validate", str(EXAMPLES), "--rules", str(bad)])
    assert res.exit_code == 2
    assert "draw_answer" in res.output and "sometimes" in res.output
    res = runner.invoke(app, ["validate", str(EXAMPLES), "--rules", str(tmp_path / "none.toml")])
    assert res.exit_code == 2
    assert "cannot read the ruleset file" in res.output


def test_simulate_is_byte_for_byte_repeatable(tmp_path: Path) -> None:
    for name in ("a.jsonl", "b.jsonl", "c.jsonl.gz", "d.jsonl.gz", "e.jsonl.zst"):
        res = runner.invoke(
            app,
            ["simulate", "--ruleset", "classic", "--players", "3", "--games", "4", "--seed",
             "42", "--out", str(tmp_path / name)],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "c.jsonl.gz").read_bytes() == (tmp_path / "d.jsonl.gz").read_bytes()
    lines = (tmp_path / "a.jsonl").read_bytes().splitlines()
    assert sum(1 for line in lines if b'"type":"game"' in line) == 4
    res = runner.invoke(app, ["validate", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"]) == (20, 20)  # five files of four games


def test_simulate_refuses_an_unknown_preset(tmp_path: Path) -> None:
    res = runner.invoke(app, ["simulate", "--ruleset", "skat", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert "unknown preset 'skat'" in res.output


def test_rules_lists_every_preset_and_prints_exact_values() -> None:
    res = runner.invoke(app, ["rules"])
    assert res.exit_code == 0
    for name in ("standard", "classic", "crazy-eights", "serbian", "tschau-sepp"):
        assert name in res.stdout
    res = runner.invoke(app, ["rules", "classic", "--json"])
    doc = json.loads(res.stdout)
    opts = doc["options"]
    # PRESETS.md, classic: the values that make it classic
    assert opts["draw"] == {"7": 2} and opts["draw_answer"] == "same_rank"
    assert opts["reverse"] == ["9"] and opts["skip"] == ["8"] and opts["wild"] == ["J"]
    assert (opts["call_penalty"], opts["call_penalty_ends_turn"]) == (2, True)
    assert (opts["scoring"], opts["match_target"]) == ("winner_collects", 150)
    assert opts["call_last_card"] == "mau" and opts["call_going_out"] is None
    res = runner.invoke(app, ["rules", "no-such"])
    assert res.exit_code == 2
    assert "unknown preset 'no-such'; the presets are: standard, classic," in res.output
    assert "Traceback" not in res.output


def test_python_dash_m_runs_the_same_app() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "maumau_log", "--help"], capture_output=True, text=True
    )
    assert res.returncode == 0
    assert "validate" in res.stdout and "simulate" in res.stdout


def test_validate_notes_a_game_id_used_twice(tmp_path: Path) -> None:
    log = (EXAMPLES / "classic_other_engine.jsonl").read_bytes()
    (tmp_path / "twice.jsonl").write_bytes(log + log)
    res = runner.invoke(app, ["validate", str(tmp_path / "twice.jsonl"), "--json"])
    assert res.exit_code == 0  # each copy is a valid game; the note is not a violation
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"]) == (4, 4)
    assert doc["duplicate_game_ids"] == ["jm-2p-004", "jm-3p-001"]
