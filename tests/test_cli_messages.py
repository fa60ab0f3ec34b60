"""What the command line says: help text at 80 columns, exact messages and exit codes."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maumau_log.cli import reflow

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, columns: int = 80, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``maumau-log ARGS`` as a user runs it (this checkout's package), ``columns`` wide."""
    env = {
        "PYTHONPATH": str(ROOT),
        "COLUMNS": str(columns),
        "NO_COLOR": "1",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    for name in ("MAUMAU_LOG_PURE_PYTHON",):
        if name in os.environ:
            env[name] = os.environ[name]
    return subprocess.run(
        [sys.executable, "-m", "maumau_log", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_reflow_joins_prose_lines_and_keeps_paragraphs() -> None:
    text = "First line\nof the first.\n\nSecond\nparagraph, --flag\n--other words."
    assert reflow(text) == "First line of the first.\n\nSecond paragraph, --flag --other words."


def test_reflow_keeps_list_items_examples_and_marked_paragraphs() -> None:
    text = "Items:\n- one\n  more of one\n- two\n\n\bkeep\nas is\n\nRun:\n  maumau-log x"
    assert reflow(text) == text


def test_validate_help_paragraphs_fill_80_columns() -> None:
    result = run_cli("validate", "--help")
    assert result.returncode == 0, result.stderr
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    first = " Exit 0 when every game is valid, 1 when any violation is found, 2 for usage"
    start = lines.index(first)
    assert lines[start : start + 3] == [
        first,
        " errors or unreadable input, 4 when a shard failed (a worker died).",
        "",
    ]


@pytest.mark.parametrize(
    "command",
    [
        "analyze", "audit", "bots ladder", "compact", "compare", "convert", "game",
        "import openspiel", "ingest", "match", "query", "ratings", "review", "rules",
        "simulate", "stats", "validate", "verify", "view",
    ],
)  # fmt: skip
def test_help_has_no_ragged_lines_at_80_columns(command: str) -> None:
    # a ragged line: a description line far shorter than the width, followed by a line
    # of the same paragraph (rich wrapping a docstring's hard line break)
    result = run_cli(*command.split(), "--help")
    assert result.returncode == 0, result.stderr
    body = [line.rstrip() for line in result.stdout.split("╭", 1)[0].splitlines()]
    ragged = [
        (line, nxt)
        for line, nxt in itertools.pairwise(body)
        if line.strip() and nxt.strip() and len(line) + 1 + len(nxt.split()[0]) < 80
    ]
    assert ragged == []
