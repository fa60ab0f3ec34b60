"""What the audit says: counts with their nouns in the right number, lines that fit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli_messages import run_cli

import maumau_log as m
from maumau_log.audit.findings import counted

ROOT = Path(__file__).resolve().parents[1]
ONE_GAME = ROOT / "sample_logs" / "valid" / "classic_2p_reshuffle.jsonl"


@pytest.fixture
def one_game(tmp_path: Path) -> Path:
    """A dataset of one valid game."""
    out = tmp_path / "one"
    assert m.ingest([str(ONE_GAME)], str(out), jobs=1).added == 1
    return out


def test_counted_says_one_game_and_two_games() -> None:
    assert [counted(n, "game") for n in (0, 1, 2, 1234)] == [
        "0 games",
        "1 game",
        "2 games",
        "1,234 games",
    ]
    assert counted(1, "departure") == "1 departure"


def test_a_one_game_dataset_is_skipped_as_one_game(one_game: Path) -> None:
    result = run_cli("audit", str(one_game), "--format", "json", "--bot-likeness", columns=200)
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    assert len(findings) > 10
    assert {f["skipped"] for f in findings} == {"1 game, fewer than the minimum 50"}
