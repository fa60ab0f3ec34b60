"""Long lines: every runner cuts and reads the same games whatever the line lengths, and
the shard planner's scan is linear in a line's length (docs/explanations/scale-and-ray.md).

A line longer than the readers' limit (64 MiB; ``MAUMAU_LOG_MAX_LINE_BYTES`` sets another)
is reported ``line_too_long`` at its line. If its first bytes look like a ``game`` header
it starts a new, invalid game (as a header-looking line of bad JSON does), else it fails
the game in progress; the planner never cuts a file before such a line. So ``--jobs 1``,
``--jobs N``, a gzipped copy and Ray give the same games, whatever the cut points.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
import maumau_log.run.plan as plan_mod
import maumau_log.run.shard as shard_mod
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event
from maumau_log.logs.lines import MAX_LINE_BYTES, MAX_LINE_ENV, line_limit
from maumau_log.run.runners import ShardTask, local_results
from maumau_log.run.shard import plan_shards

GAMES: list[list[bytes]] = [[encode_event(e) for e in g] for g in simulate("standard", 2, 6, 41)]
IDS = [f"sim-standard-2p-41-{k:06d}" for k in range(6)]


def long_header(size: int, game_id: str = "long-one") -> bytes:
    """A ``game`` header of ``size`` bytes (the bulk in ``meta``): its first bytes say
    ``"type":"game"`` and its id."""
    head = (
        b'{"type":"game","format":"maumau-log/1","game_id":"' + game_id.encode() + b'",'
        b'"ruleset":"standard","players":["p1","p2"],"meta":{"pad":"'
    )
    return head + b"x" * (size - len(head) - 3) + b'"}}'


def build(path: Path, middle: list[bytes], pad: int = 0) -> int:
    """Games 0-2, ``pad`` lines of 1 MiB of spaces (read as blank), ``middle`` (a long
    header and game 3's events after its own header), games 4-5; returns the byte offset
    of ``middle[0]``."""
    lines = [ln for g in GAMES[:3] for ln in g]
    lines += [b" " * 2**20] * pad
    at = sum(len(ln) + 1 for ln in lines)
    lines += middle + [ln for g in GAMES[4:] for ln in g]
    path.write_bytes(b"".join(ln + b"\n" for ln in lines))
    return at


def outcomes(files: list[Path], shard_bytes: int, jobs: int) -> list[tuple[Any, ...]]:
    """(game id, line, event count, first violation code and event) of every game, by
    the planned shards run on ``jobs`` processes."""
    got = []
    for res in local_results(plan_shards(files, shard_bytes, jobs), ShardTask(), jobs):
        assert not isinstance(res, shard_mod.ShardFailure), res
        for g in res.games:
            v = g.violation
            got.append((g.game_id, g.line, g.events, v and v.code, v and v.event_index))
    return got


def expected(long_line: int, long_id: str | None = "long-one") -> list[tuple[Any, ...]]:
    """Games 0-2 valid; the long header's game (its events: game 3's after its header) is
    ``line_too_long`` at event 0; games 4-5 valid."""
    rows: list[tuple[Any, ...]] = []
    line = 1
    for k in (0, 1, 2):
        rows.append((IDS[k], line, len(GAMES[k]), None, None))
        line += len(GAMES[k])
    rows.append((long_id, long_line, len(GAMES[3]), "line_too_long", 0))
    line = long_line + len(GAMES[3])
    for k in (4, 5):
        rows.append((IDS[k], line, len(GAMES[k]), None, None))
        line += len(GAMES[k])
    return rows


def test_line_limit_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert line_limit() == MAX_LINE_BYTES == 64 * 2**20
    monkeypatch.setenv(MAX_LINE_ENV, "4000")
    assert line_limit() == 4000
    for bad in ("0", "-5", "4k", ""):  # not a whole number of at least 1: the default
        monkeypatch.setenv(MAX_LINE_ENV, bad)
        assert line_limit() == MAX_LINE_BYTES


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_over_long_header_starts_the_same_game_whatever_the_cuts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    monkeypatch.setenv(MAX_LINE_ENV, "4000")
    log = tmp_path / "long.jsonl"
    at = build(log, [long_header(6000), *GAMES[3][1:]])
    long_line = 1 + sum(len(g) for g in GAMES[:3])
    want = expected(long_line)
    assert outcomes([log], 10**9, jobs) == want  # one shard
    # cut targets right at the long line, just before it, and every 1,500 bytes: the
    # planner cuts before the next header instead (an over-long line is never a cut)
    for target in (at, at - 50, 1500):
        plan = plan_shards([log], target, jobs)
        assert at not in [s.start for s in plan]
        assert len(plan) > 1
        assert outcomes([log], target, jobs) == want
    gz = tmp_path / "long.jsonl.gz"
    gz.write_bytes(gzip.compress(log.read_bytes(), mtime=0))
    assert outcomes([gz], 1500, jobs) == want  # a compressed file is one shard


def test_an_over_long_line_that_is_no_header_fails_the_game_it_is_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_LINE_ENV, "4000")
    log = tmp_path / "long.jsonl"
    g3 = GAMES[3]
    at = build(
        log, [*g3[:4], b'{"type":"pass","player":"p1","pad":"' + b"y" * 5000 + b'"}', *g3[4:]]
    )
    first = 1 + sum(len(g) for g in GAMES[:3])
    want = expected(first, IDS[3])
    want[3] = (IDS[3], first, len(g3) + 1, "line_too_long", 4)
    for k in (4, 5):
        gid, line, *rest = want[k]
        want[k] = (gid, line + 1, *rest)
    for target in (10**9, at, 1500):
        assert outcomes([log], target, 2) == want


def test_runners_agree_on_a_header_over_64_mib_after_32_mib(tmp_path: Path) -> None:
    # the default limit: a header line of 64 MiB + 10 bytes starting after 33 MiB of blank
    # lines (whitespace); --jobs 1 (cut at 32 MiB), --jobs 2 (cut at 4 MiB) and the gzipped
    # copy (one shard) used to disagree: a cut before the long line made it a headerless
    # game of its own, without a cut it failed the game before it
    log = tmp_path / "big.jsonl"
    build(log, [long_header(64 * 2**20 + 10), *GAMES[3][1:]], pad=33)
    gz = tmp_path / "big.jsonl.gz"
    with open(log, "rb") as src, gzip.open(gz, "wb", compresslevel=1) as dst:
        dst.write(src.read())
    docs = []
    for args in (["--jobs", "1", str(log)], ["--jobs", "2", str(log)], [str(gz)]):
        res = CliRunner().invoke(app, ["validate", "--json", *args])
        assert res.exit_code == 1, res.output[-500:]
        doc = json.loads(res.stdout)
        found = [(v["game_id"], v["line"], v["code"], v["event_index"]) for v in doc["violations"]]
        docs.append((doc["games"], doc["valid"], found))
    long_line = 1 + sum(len(g) for g in GAMES[:3]) + 33
    assert docs == [(6, 5, [("long-one", long_line, "line_too_long", 0)])] * 3


def test_the_planner_keeps_no_long_line_in_memory(tmp_path: Path) -> None:
    # the scan held every read of a line that did not end: a 500 MB line took 109 s and
    # 1.05 GB. Now only what can still make a line a cut is kept: nothing of a line that
    # starts before the due cut, that names no "game" in its first 300 bytes, or that is
    # longer than the readers' limit. The scan's peak memory on a file with an 8 MB line
    # is a few reads of 1 MiB (measured 3.8 MB; before: 16.7 MB, twice the line)
    log = tmp_path / "long.jsonl"
    games = b"".join(ln + b"\n" for g in GAMES for ln in g)
    pad = b"x" * 8_000_000
    cases = {
        "plain line at the start": pad + b"\n" + games * 20,
        "plain line after the due cut": games * 20 + pad + b"\n" + games,
        "header over the limit after the due cut": games * 20 + long_header(8_000_000) + b"\n"
        + games,
    }  # fmt: skip
    for name, data in cases.items():
        log.write_bytes(data)
        tracemalloc.start()
        try:
            plan_mod._cuts(log, 100_000, limit=1_000_000)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 5 * 2**20, (name, peak)
