"""Hostile and odd inputs: each is refused with one located message and exit 2, or read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_cli_messages import run_cli

from maumau_log.logs.notation import NotationError, from_notation, to_notation
from maumau_log.openspiel import OpenSpielImportError, parse_game_string
from maumau_log.rules import MAX_RULES_FILE_BYTES, RulesetError, read_ruleset_file

ROOT = Path(__file__).resolve().parents[1]
ONE_GAME = ROOT / "sample_logs" / "valid" / "classic_3p.jsonl"


# ---------------------------------------------------------------------------------------
# --rules files


def test_an_endless_rules_file_is_refused_after_one_mib() -> None:
    result = run_cli("validate", "--rules", "/dev/zero", str(ONE_GAME), columns=200)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: /dev/zero: larger than 1 MiB, the limit of a ruleset file (it holds one "
        "[options] table)\n"
    )


def test_a_rules_file_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"[options]\n" + b"#" * (MAX_RULES_FILE_BYTES - 10) + b"\n")
    with pytest.raises(RulesetError, match=r"larger than 1 MiB, the limit of a ruleset file"):
        read_ruleset_file(big)
    big.write_bytes(b"[options]\n" + b"#" * (MAX_RULES_FILE_BYTES - 11) + b"\n")
    assert read_ruleset_file(big) == {}


def test_a_byte_order_mark_before_the_rules_is_skipped(tmp_path: Path) -> None:
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf[options]\ndraw_ends_turn = true\n")
    assert read_ruleset_file(bom) == {"draw_ends_turn": True}
    bom.write_bytes(b"\xef\xbb\xbf[options]\ndraw_ends_turn = 3\n")
    with pytest.raises(RulesetError) as caught:
        read_ruleset_file(bom)
    assert str(caught.value) == f"{bom}: options.draw_ends_turn: 3 is not of type 'boolean'"


# ---------------------------------------------------------------------------------------
# dataset folders


def test_a_dataset_folder_name_that_is_not_utf8_is_refused_up_front(tmp_path: Path) -> None:
    # Arrow writes under UTF-8 paths only: every shard failed, one message each
    name = os.fsdecode(b"ds\xff")
    result = run_cli("ingest", str(ONE_GAME), "--out", name, "--no-progress", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: ds\\udcff: the dataset folder's path is not valid UTF-8 (the byte 0xff), "
        "which Parquet files cannot be written under; choose another folder name\n"
    )
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------
# OpenSpiel game strings


def test_a_repeated_openspiel_parameter_is_refused() -> None:
    with pytest.raises(OpenSpielImportError) as caught:
        parse_game_string("crazy_eights(players=3,players=2)")
    assert str(caught.value) == (
        "<input>: parameter players is given twice in the game string; give it once"
    )


def test_a_repeated_openspiel_parameter_rejects_its_history_with_its_place(tmp_path: Path) -> None:
    source = tmp_path / "rep.jsonl"
    source.write_text('{"game": "crazy_eights(players=3,players=2)", "history": [1, 2]}\n')
    result = run_cli("import", "openspiel", "rep.jsonl", "--out", "out.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "rejected: rep.jsonl:1, game 1: parameter players is given twice in the game string; "
        "give it once"
    )


# ---------------------------------------------------------------------------------------
# the .mm notation's times


def test_an_impossible_notation_time_is_a_located_error() -> None:
    with pytest.raises(NotationError) as caught:
        from_notation("game g\nruleset: standard\nplayers: a b\n\na plays 9H @9999-99-99\n")
    err = caught.value
    assert (err.line, err.column, err.message) == (
        5,
        12,
        "'@9999-99-99' is not a possible date and time (ISO 8601, e.g. @2024-03-14T20:06:10Z, "
        "or milliseconds)",
    )


def test_possible_notation_times_are_read() -> None:
    text = "game g\nruleset: standard\nplayers: a b\n\na plays 9H @2024-03-14T20:06:10Z\n"
    assert json.loads(from_notation(text)[-1][1])["t"] == "2024-03-14T20:06:10Z"
    millis = text.replace("@2024-03-14T20:06:10Z", "@1710446770000")
    assert json.loads(from_notation(millis)[-1][1])["t"] == 1710446770000


def test_an_impossible_log_time_is_written_in_the_json_object_and_read_back() -> None:
    # log -> notation -> log keeps it (notation.md: nothing is lost), never as '@'
    events = [
        {"type": "game", "format": "maumau-log/1", "game_id": "g", "ruleset": "standard"},
        {"type": "play", "player": "a", "cards": ["9H"], "t": "9999-99-99"},
    ]
    text = to_notation(json.dumps(e) for e in events)
    assert text.splitlines()[-1] == 'a plays 9H {"t":"9999-99-99"}'
    assert [json.loads(raw) for _line, raw in from_notation(text)] == events
