"""The shipped sample logs (sample_logs/) say what their README says.

The expected codes, event indexes and lines below are written out by hand on purpose (they
are the README's table): regenerating the samples with ``sample_logs/make_samples.py``
after an engine change must not silently move them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
from maumau_log.cli import app
from maumau_log.replay.driver import Replayer
from maumau_log.violations import CODES

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
VALID = SAMPLES / "valid"
BROKEN = SAMPLES / "violations"
LOG_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst", ".mm")

# file -> (code, game_id, event index, line), as in sample_logs/README.md
EXPECTED: dict[str, tuple[str, str | None, int | None, int]] = {
    "bad_commitment.jsonl": ("bad_commitment", "sample-bad_commitment", 0, 1),
    "bad_json.jsonl": ("bad_json", "sample-bad_json", 12, 13),
    "bad_notation.mm": ("bad_notation", "sample-bad_notation", 3, 11),
    "bad_option.jsonl": ("bad_option", "sample-bad_option", 0, 1),
    "bad_reshuffle.jsonl": ("bad_reshuffle", "sample-bad_reshuffle", 49, 50),
    "bad_seq.jsonl": ("bad_seq", "sample-bad_seq", 13, 14),
    "card_does_not_match.jsonl": ("card_does_not_match", "sample-card_does_not_match", 12, 13),
    "card_not_in_hand.jsonl": ("card_not_in_hand", "sample-card_not_in_hand", 12, 13),
    "deal_not_from_seed.jsonl": ("deal_not_from_seed", "sample-deal_not_from_seed", 1, 2),
    "draw_not_from_stock_top.jsonl": (
        "draw_not_from_stock_top",
        "sample-draw_not_from_stock_top",
        8,
        9,
    ),
    "duplicate_card.jsonl": ("duplicate_card", "sample-duplicate_card", 1, 2),
    "illegal_pass.jsonl": ("illegal_pass", "sample-illegal_pass", 5, 6),
    "match_not_over.jsonl": ("match_not_over", "sample-match_not_over-r2", 36, 69),
    "match_over_too_early.jsonl": ("match_over_too_early", "sample-match_over_too_early", 33, 34),
    "missed_penalty.jsonl": ("missed_penalty", "sample-missed_penalty", 11, 12),
    "missing_header.jsonl": ("missing_header", None, 0, 1),
    "missing_suit_choice.jsonl": ("missing_suit_choice", "sample-missing_suit_choice", 7, 8),
    "play_after_round_end.jsonl": ("play_after_round_end", "sample-play_after_round_end", 14, 15),
    "round_not_finished.jsonl": ("round_not_finished", "sample-round_not_finished", 14, 14),
    "schema_error.jsonl": ("schema_error", "sample-schema_error", 12, 13),
    "truncated_file.jsonl.gz": ("truncated_file", "sample-truncated_file", 9, 10),
    "unknown_card.jsonl": ("unknown_card", "sample-unknown_card", 13, 14),
    "unknown_ruleset.jsonl": ("unknown_ruleset", "sample-unknown_ruleset", 0, 1),
    "unsupported_rule.jsonl": ("unsupported_rule", "sample-unsupported_rule", 11, 12),
    "wrong_draw_count.jsonl": ("wrong_draw_count", "sample-wrong_draw_count", 11, 12),
    "wrong_penalty.jsonl": ("wrong_penalty", "sample-wrong_penalty", 11, 12),
    "wrong_player.jsonl": ("wrong_player", "sample-wrong_player", 12, 13),
    "wrong_round.jsonl": ("wrong_round", "sample-wrong_round-r2", 0, 34),
    "wrong_score.jsonl": ("wrong_score", "sample-wrong_score", 13, 14),
    "wrong_starter.jsonl": ("wrong_starter", "sample-wrong_starter", 1, 2),
    "wrong_total.jsonl": ("wrong_total", "sample-wrong_total-r2", 36, 70),
    "wrong_winner.jsonl": ("wrong_winner", "sample-wrong_winner", 14, 15),
}

# only line_too_long (a line over 64 MiB) has no sample file
NOT_SHIPPED = {"line_too_long"}

VALID_FILES = {
    "classic_2p_handwritten.jsonl": 1,
    "classic_2p_match.jsonl": 2,
    "classic_2p_reshuffle.jsonl": 1,
    "classic_3p.jsonl": 1,
    "classic_5p.jsonl.gz": 1,
    "standard_2p.jsonl": 2,
    "standard_3p.jsonl.zst": 1,
    "standard_4p.jsonl": 1,
    "other_engines/classic_other_engine.jsonl": 2,
    "other_engines/standard_other_engine.jsonl": 2,
    # one game of every other preset
    **{
        f"presets/{preset}.jsonl": 1
        for preset in (
            "online",
            "online-penalty",
            "prsi",
            "pesten",
            "puque",
            "russian",
            "faraon",
            "neuner",
            "serbian",
            "crazy-eights",
        )
    },
}


def _logs(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.name.endswith(LOG_SUFFIXES)
    )


# ---------------------------------------------------------------------------------------
# The files present


def test_valid_files_are_the_documented_ones() -> None:
    assert _logs(VALID) == sorted(VALID_FILES)


UNREADABLE_SAMPLES = ["not_a_log.jsonl"]
"""Samples that are unreadable input, not a violation (a binary file)."""


def test_one_violation_file_per_code() -> None:
    assert _logs(BROKEN) == sorted([*EXPECTED, *UNREADABLE_SAMPLES])
    for name, (code, _, _, _) in EXPECTED.items():
        assert name.split(".")[0] == code
        assert code in CODES
    shipped = {code for code, _, _, _ in EXPECTED.values()}
    assert shipped | NOT_SHIPPED == set(CODES)


def test_readme_documents_every_file() -> None:
    readme = (SAMPLES / "README.md").read_text()
    for name in VALID_FILES:
        assert f"`{name}`" in readme
    for name, (code, game_id, index, line) in EXPECTED.items():
        ev = "-" if index is None else str(index)
        gid = "-" if game_id is None else f"`{game_id}`"
        assert f"| `{code}` | {gid} | {ev} | {line} |" in readme, name


def test_compressed_samples_are_compressed() -> None:
    assert (VALID / "classic_5p.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert (VALID / "standard_3p.jsonl.zst").read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    assert (BROKEN / "truncated_file.jsonl.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_other_engine_examples_are_copies() -> None:
    shared = Path("/work/shared/examples")
    if not shared.is_dir():
        pytest.skip("the shared examples are not on this machine")
    for src in shared.glob("*.jsonl"):
        assert (VALID / "other_engines" / src.name).read_bytes() == src.read_bytes()


# ---------------------------------------------------------------------------------------
# Replaying them


@pytest.mark.parametrize("name", sorted(VALID_FILES))
def test_valid_sample_replays_clean(name: str) -> None:
    reports = list(Replayer().replay_file(VALID / name))
    assert len(reports) == VALID_FILES[name]
    for rep in reports:
        assert rep.violation is None, rep.violation
        assert rep.valid
        assert rep.game_id is not None
        assert rep.engine is not None and rep.engine.winner is not None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_violation_sample(name: str) -> None:
    code, game_id, index, line = EXPECTED[name]
    path = BROKEN / name
    reports = list(Replayer().replay_file(path))
    invalid = [r for r in reports if not r.valid]
    assert len(invalid) == 1, [r.violation for r in invalid]
    # one game per file, but the match samples hold two rounds (the first one valid)
    assert len(reports) == (2 if game_id is not None and game_id.endswith("-r2") else 1)
    v = invalid[0].violation
    assert v is not None
    assert (v.code, v.game_id, v.event_index, v.line) == (code, game_id, index, line), v
    assert v.file == str(path)
    assert v.message


# ---------------------------------------------------------------------------------------
# The command line on them


runner = CliRunner()


def test_cli_validate_valid_dir_exits_0() -> None:
    result = runner.invoke(app, ["validate", str(VALID)])
    assert result.exit_code == 0, result.output
    games = sum(VALID_FILES.values())
    assert f"{games} games: {games} valid, 0 invalid" in result.output


def test_cli_validate_valid_dir_json() -> None:
    result = runner.invoke(app, ["validate", str(VALID), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    games = sum(VALID_FILES.values())
    assert (doc["games"], doc["valid"], doc["invalid"]) == (games, games, 0)
    assert doc["violations"] == [] and doc["unreadable"] == []


def test_cli_validate_violations_dir_json() -> None:
    result = runner.invoke(app, ["validate", str(BROKEN), "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    rounds = sum(1 for _, gid, _, _ in EXPECTED.values() if gid and gid.endswith("-r2"))
    assert doc["games"] == len(EXPECTED) + rounds
    assert doc["valid"] == rounds
    assert doc["invalid"] == len(EXPECTED)
    # the binary sample is unreadable input, not an invalid game
    (unreadable,) = doc["unreadable"]
    assert unreadable.startswith(str(BROKEN / "not_a_log.jsonl") + ": not a text log: binary")
    by_file: dict[str, list[dict[str, object]]] = {}
    for v in doc["violations"]:
        by_file.setdefault(Path(str(v["file"])).name, []).append(v)
    assert sorted(by_file) == sorted(EXPECTED)
    for name, found in by_file.items():
        code, game_id, index, line = EXPECTED[name]
        assert len(found) == 1, found
        v = found[0]
        assert (v["code"], v["game_id"], v["event_index"], v["line"]) == (
            code,
            game_id,
            index,
            line,
        )


def test_cli_validate_valid_and_violations_together() -> None:
    result = runner.invoke(app, ["validate", str(VALID), str(BROKEN), "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    rounds = sum(1 for _, gid, _, _ in EXPECTED.values() if gid and gid.endswith("-r2"))
    good = sum(VALID_FILES.values()) + rounds
    assert (doc["games"], doc["valid"]) == (good + len(EXPECTED), good)


def test_cli_validate_one_file_human_report() -> None:
    result = runner.invoke(app, ["validate", str(BROKEN / "wrong_score.jsonl")])
    assert result.exit_code == 1
    assert "wrong_score" in result.output
    assert "1 game: 0 valid, 1 invalid" in result.output  # not "1 games"
    assert "Traceback" not in result.output


def test_cli_validate_missing_path_exits_2() -> None:
    result = runner.invoke(app, ["validate", "/no/such/path"])
    assert result.exit_code == 2
    assert "/no/such/path" in result.output
    assert "Traceback" not in result.output
