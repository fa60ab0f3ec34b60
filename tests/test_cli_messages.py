"""What the command line says: help text at 80 columns, exact messages and exit codes."""

from __future__ import annotations

import itertools
import json
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


# ---------------------------------------------------------------------------------------
# GAME_ID left out: the source's only game

SAMPLES = ROOT / "sample_logs"


def test_game_without_game_id_shows_the_files_only_game() -> None:
    one = SAMPLES / "disputes" / "standard_seven_on_seven.mm"
    named = run_cli("game", str(one), "club-2024-031", "--json")
    alone = run_cli("game", str(one), "--json")
    assert (alone.returncode, alone.stderr) == (0, "")
    shown, wanted = json.loads(alone.stdout), json.loads(named.stdout)
    for doc in (shown, wanted):  # the file is replayed into a dataset at each run
        doc["game"].pop("ingested_at")
    assert shown == wanted
    assert shown["game"]["game_id"] == "club-2024-031"


def test_game_without_game_id_lists_the_ids_of_several_games_escaped(tmp_path: Path) -> None:
    # ids with rich markup and a line break: shown as written, never styled, one a line
    header = {"type": "game", "format": "maumau-log/1", "ruleset": "standard"}
    header |= {"players": ["a", "b"], "dealer": "b"}
    log = tmp_path / "two.jsonl"
    log.write_text(
        json.dumps({**header, "game_id": "[bold]m1[/]"})
        + "\n"
        + json.dumps({**header, "game_id": "t\nx"})
        + "\n",
        "utf-8",
    )
    result = run_cli("game", str(log), columns=200)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {log}: holds 2 games: name one with GAME_ID:\n  [bold]m1[/]\n  t\\u000ax\n"
    )


def test_view_without_game_id_writes_the_files_only_game(tmp_path: Path) -> None:
    one = SAMPLES / "valid" / "classic_2p_reshuffle.jsonl"
    result = run_cli("view", str(one), "--out", str(tmp_path / "p.html"), columns=200)
    assert result.returncode == 0
    assert result.stderr == (
        f"wrote {tmp_path / 'p.html'}: game sim-8-000000, events 0 to 60, valid\n"
    )


def test_game_without_game_id_on_an_empty_file_says_it_holds_no_game(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", "utf-8")
    result = run_cli("game", str(empty), columns=200)
    assert (result.returncode, result.stderr) == (2, f"error: {empty}: holds no game\n")
