"""What the audit says: counts with their nouns in the right number, lines that fit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_messages import run_cli

import maumau_log as m
from maumau_log.audit import parts
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


@pytest.fixture(scope="module")
def valid_samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A dataset of the 24 valid sample games (13 parts: one per partition file set)."""
    out = tmp_path_factory.mktemp("audit") / "valid"
    assert m.ingest([str(ROOT / "sample_logs" / "valid")], str(out), jobs=1).added == 24
    return out


def test_the_audit_summary_fits_80_columns(valid_samples: Path) -> None:
    result = run_cli("audit", str(valid_samples), "--jobs", "1", columns=80)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "24 games: 24 valid, 24 with facts from the ingest",
        "0 tests run, 245 skipped; Holm-corrected at alpha 0.05, at least 50 games a test",
        "245 tests skipped: 245 fewer than 50 games (--min-games); see --format json",
    ]


def killed(root: object, part: object) -> None:
    """A part counter whose worker process dies as the out-of-memory killer ends one."""
    os.kill(os.getpid(), signal.SIGKILL)


DIED = (
    "a worker process died (killed, or out of memory) counting parts 1-2 of 13; nothing "
    "is reported: run the audit again, with fewer --jobs if memory is short"
)


def test_a_killed_audit_worker_is_a_located_error(
    valid_samples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parts, "count_part", killed)
    with pytest.raises(parts.WorkerDied) as caught:
        parts.collect_parts(valid_samples, jobs=2)
    assert str(caught.value) == f"{valid_samples}: {DIED}"


def test_a_killed_audit_worker_exits_4_without_a_traceback(valid_samples: Path) -> None:
    code = (
        "import sys, test_audit_messages as t, maumau_log.audit.parts as p, maumau_log.cli as c\n"
        "p.count_part = t.killed\n"
        f"sys.argv = ['maumau-log', 'audit', {str(valid_samples)!r}, '--jobs', '2']\n"
        "c.main()\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}", "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert (result.returncode, result.stdout) == (4, "")
    assert result.stderr == f"error: {valid_samples}: {DIED}\n"
