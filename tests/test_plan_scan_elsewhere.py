"""The planner's cut scans run elsewhere (``ShardPlan.scan_with``: on Ray, a task per large
file, so the driver reads no log) give exactly the shards of :func:`plan_shards` scanning
in this process: the same cuts before headers that continue no match, the same fallbacks
to later match rounds, never before an over-long line (the readers' limit is the planning
process's), whatever the scan's order of completion, and a scan that fails elsewhere is
done here with the same result."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maumau_log.run.plan as plan_mod
from maumau_log.logs.lines import MAX_LINE_ENV
from maumau_log.run.plan import Cuts, ShardPlan, plan_shards, scan_cuts

PLAY = b'{"type":"pass","player":"a"}'


def _header(n: int, match: str | None, rnd: int | None, pad: int) -> bytes:
    extra = b""
    if match is not None:
        extra += b',"match_id":"%s"' % match.encode()
    if rnd is not None:
        extra += b',"round":%d' % rnd
    return (
        b'{"type":"game","format":"maumau-log/1","game_id":"g%d","ruleset":"classic",'
        b'"players":["a","b"]%s,"meta":{"pad":"%s"}}' % (n, extra, b"x" * pad)
    )


# one piece of a log: a game (its header: no match, a match's round 1, or a later round;
# header padding that may pass the line limit), its plays, and what may follow it
# (a blank line, a line naming "game" that is no header, a long line of other text)
piece = st.tuples(
    st.sampled_from([None, 1, 2, 3]),  # None: no match; else the round
    st.integers(0, 300),  # header padding
    st.integers(0, 30),  # plays
    st.sampled_from([b"", b"\n", b'{"type":"say","player":"a","text":"game"}\n', b"y" * 900]),
    st.booleans(),  # \r\n line ends
)


def _log(pieces: list[tuple[int | None, int, int, bytes, bool]]) -> bytes:
    out = []
    for n, (rnd, pad, plays, tail, crlf) in enumerate(pieces):
        end = b"\r\n" if crlf else b"\n"
        match = None if rnd is None else f"m{n // 3}"
        out.append(_header(n, match, rnd, pad) + end)
        out.append((PLAY + end) * plays)
        out.append(tail)
    return b"".join(out)


@contextmanager
def _limit(value: int) -> Iterator[None]:
    before = os.environ.get(MAX_LINE_ENV)
    os.environ[MAX_LINE_ENV] = str(value)
    try:
        yield
    finally:
        if before is None:
            del os.environ[MAX_LINE_ENV]
        else:
            os.environ[MAX_LINE_ENV] = before


def _threaded(pool: ThreadPoolExecutor, fail: set[int]) -> Callable[..., Callable[[], Cuts]]:
    """Scans on other threads, finishing in any order; the scans numbered in ``fail``
    raise there (as a lost Ray node does)."""
    started: list[str] = []

    def start(path: str, target: int, limit: int) -> Callable[[], Cuts]:
        started.append(path)
        if len(started) - 1 in fail:
            future = pool.submit(lambda: (_ for _ in ()).throw(RuntimeError("node lost")))
        else:
            future = pool.submit(scan_cuts, path, target, limit)
        return future.result

    start.started = started  # type: ignore[attr-defined]
    return start


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    logs=st.lists(st.lists(piece, min_size=0, max_size=40), min_size=1, max_size=4),
    shard_bytes=st.integers(256, 4096),
    workers=st.integers(1, 3),
    limit=st.sampled_from([200, 400, 2_000, 1 << 20]),
    fail=st.sets(st.integers(0, 3), max_size=2),
    seed=st.integers(0, 1000),
)
def test_scans_elsewhere_give_exactly_the_shards_of_plan_shards(
    tmp_path_factory: pytest.TempPathFactory,
    logs: list[list[tuple[int | None, int, int, bytes, bool]]],
    shard_bytes: int,
    workers: int,
    limit: int,
    fail: set[int],
    seed: int,
) -> None:
    folder = tmp_path_factory.mktemp("logs")
    files: list[str] = []
    for k, pieces in enumerate(logs):
        path = folder / f"f{k}.jsonl"
        path.write_bytes(_log(pieces))
        files.append(str(path))
    random.Random(seed).shuffle(files)  # the input order is the caller's
    with _limit(limit):
        here = list(plan_shards(files, shard_bytes, workers))
        with ThreadPoolExecutor(4) as pool:
            plan = ShardPlan(files, shard_bytes, workers)
            start = _threaded(pool, fail)
            plan.scan_with(start)
            elsewhere = list(plan)
    assert elsewhere == here
    assert [s.index for s in elsewhere] == list(range(len(here)))
    # every file whose shards were cut was scanned elsewhere, started in input order
    cut = list(dict.fromkeys(s.path for s in here if s.start or s.end is not None))
    assert [p for p in start.started if p in cut] == cut  # type: ignore[attr-defined]


def test_a_plan_scanned_elsewhere_reads_no_log_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The planning process only sizes and sniffs the files; their scans run where
    ``start`` sends them: here 3 files of 40 games (each 4 shards at 8 KiB) and one small
    file (one shard), and not one call of the scan in this process."""
    files = []
    for k in range(3):
        path = tmp_path / f"big{k}.jsonl"
        path.write_bytes(_log([(None, 0, 30, b"", False)] * 40))  # 40 games, 40,000+ bytes
        files.append(str(path))
    small = tmp_path / "small.jsonl"
    small.write_bytes(_log([(None, 0, 2, b"", False)]))
    files.insert(1, str(small))
    expected = list(plan_shards(files, 8192))
    assert [len([s for s in expected if s.path == f]) for f in files] == [5, 1, 5, 5]
    here: list[str] = []
    real = plan_mod._cuts

    def counted(path: Path, target: int, limit: int | None = None) -> Cuts:
        here.append(str(path))
        return real(path, target, limit)

    scanned = {f: real(Path(f), 8192, None) for f in files}
    monkeypatch.setattr(plan_mod, "_cuts", counted)
    plan = ShardPlan(files, 8192)
    plan.scan_with(lambda path, target, limit: lambda: scanned[path])
    assert list(plan) == expected
    assert here == []


def test_a_file_unreadable_everywhere_is_one_shard_as_here(tmp_path: Path) -> None:
    """A file gone after it was sized fails its scan elsewhere and here: one whole shard,
    which its replay reports as unreadable (as the local planner does)."""
    gone = tmp_path / "gone.jsonl"
    gone.write_bytes(_log([(None, 0, 30, b"", False)] * 40))
    plan = ShardPlan([str(gone)], 8192)
    gone.unlink()

    def start(path: str, target: int, limit: int) -> Callable[[], Cuts]:
        def wait() -> Cuts:
            return scan_cuts(path, target, limit)  # raises FileNotFoundError

        return wait

    plan.scan_with(start)
    assert [(s.index, s.start, s.end, s.first_line) for s in plan] == [(0, 0, None, 1)]
