"""The runners' pipeline: shards planned lazily (the pool's workers start while the parent
plans the rest), the progress bar before the plan is complete, the one Parquet write of a
whole file, and the Ray tasks' ``ShardFailure`` guards."""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from maumau_log.run import plan as plan_mod
from maumau_log.run import shard as shard_mod
from maumau_log.run.runners import ShardTask, pool_results, serial_results
from maumau_log.run.shard import Shard, ShardFailure, plan_shards
from maumau_log.store import SCHEMAS

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs" / "valid"


def _game(gid: str) -> bytes:
    """One game of exactly 200 bytes: a header, a pass, padding, a blank line."""
    h = (
        f'{{"type":"game","format":"maumau-log/1","game_id":"{gid}","ruleset":"classic",'
        f'"players":["a","b"]}}'
    ).encode()
    body = b'{"type":"pass","player":"a"}'
    return h + b"\n" + body + b" " * (200 - len(h) - len(body) - 3) + b"\n\n"


def _three_logs(tmp_path: Path) -> list[Path]:
    """a: 3 games (600 bytes), b: 1 game (200 bytes, never cut), c: 3 games."""
    out = []
    for name, ids in (("a", "123"), ("b", "4"), ("c", "567")):
        p = tmp_path / f"{name}.jsonl"
        p.write_bytes(b"".join(_game(f"g{i}") for i in ids))
        out.append(p)
    return out


def test_the_plan_scans_a_file_only_when_its_shards_are_wanted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _three_logs(tmp_path)
    scanned: list[str] = []
    real = plan_mod._cuts

    def spy(path: Path, target: int) -> list[tuple[int, int]]:
        scanned.append(path.name)
        return real(path, target)

    monkeypatch.setattr(plan_mod, "_cuts", spy)
    totals: list[int] = []
    plan = plan_shards(files, shard_bytes=80, on_planned=totals.append)
    assert scanned == [] and totals == []  # nothing scanned before the first shard is asked
    it = iter(plan)
    first = next(it)
    # a (600 bytes > 2 x 80) is cut before every header at or after 80 bytes: 200, 400
    assert (first.path, first.start, first.end, first.first_line) == (str(files[0]), 0, 200, 1)
    assert scanned == ["a.jsonl"]
    assert [(s.start, s.end, s.first_line) for s in (next(it), next(it))] == [
        (200, 400, 4),
        (400, None, 7),
    ]
    # the fourth shard is b (200 bytes > 2 x 80: scanned, but one game: no cut); c is
    # planned only when more is asked for
    assert plan[3].path == str(files[1]) and (plan[3].start, plan[3].end) == (0, None)
    assert scanned == ["a.jsonl", "b.jsonl"] and totals == []
    assert len(plan) == 7 and totals == [7]  # len plans everything; the total told once
    assert scanned == ["a.jsonl", "b.jsonl", "c.jsonl"]
    assert [s.index for s in plan] == list(range(7))
    assert [(s.path[-7:], s.start, s.first_line) for s in plan[4:]] == [
        ("c.jsonl", 0, 1),
        ("c.jsonl", 200, 4),
        ("c.jsonl", 400, 7),
    ]
    list(plan)
    assert totals == [7]


def test_a_plan_without_scans_is_complete_at_once(tmp_path: Path) -> None:
    files = _three_logs(tmp_path)
    totals: list[int] = []
    plan = plan_shards(files, on_planned=totals.append)  # 32 MiB target: all whole files
    assert totals == [3]
    assert [(s.index, s.path, s.start, s.end) for s in plan] == [
        (i, str(f), 0, None) for i, f in enumerate(files)
    ]


class _Feed:
    """An iterable of shards that counts how many were taken."""

    def __init__(self, shards: list[Shard]) -> None:
        self.shards = shards
        self.taken = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for s in self.shards:
            self.taken += 1
            yield s


def test_the_pool_takes_shards_as_its_window_has_room(tmp_path: Path) -> None:
    log = tmp_path / "many.jsonl"
    log.write_bytes(b"".join(_game(f"g{i:02d}") for i in range(20)))
    shards = list(plan_shards([log], shard_bytes=80))
    assert len(shards) == 20  # a cut before every header but the first
    feed = _Feed(shards)
    task = ShardTask()
    results = pool_results(feed, task, 2)
    first = next(results)
    # the window is 4 x 2 shards submitted and not yet yielded: at most 8 taken so far
    # (with the one just yielded, the next refill takes a 9th only on the next step)
    assert 2 <= feed.taken <= 8
    rest = list(results)
    assert feed.taken == 20
    got = [g.game_id for r in [first, *rest] for g in r.games]  # type: ignore[union-attr]
    want = [g.game_id for r in serial_results(shards, task) for g in r.games]  # type: ignore[union-attr]
    assert got == want == [f"g{i:02d}" for i in range(20)]


def test_the_bar_shows_no_total_until_the_plan_is_complete(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.console import Console

    from maumau_log.cli import run_opts

    console = Console(file=io.StringIO(), force_terminal=True, width=120, record=True)
    monkeypatch.setattr(run_opts, "err", console)
    with run_opts.shard_progress(None, True) as tick:
        assert tick.bar is not None
        prog, _task = tick.bar
        assert prog.tasks[0].fields["of"] == ""  # "3 shards", never "3/None shards"
        tick.planned(7)
        assert prog.tasks[0].fields["of"] == "/7" and prog.tasks[0].total == 7
    with run_opts.shard_progress(4, True) as tick:
        assert tick.bar is not None
        assert tick.bar[0].tasks[0].fields["of"] == "/4"
    assert "None" not in console.export_text()


def test_write_file_writes_the_table_schema_whole(tmp_path: Path) -> None:
    from maumau_log.store.writer import write_file

    schema = SCHEMAS["violations"]
    row = {f.name: None for f in schema}
    data = pa.Table.from_pylist([row, row], schema=schema).replace_schema_metadata(None)
    path = tmp_path / "violations" / "ruleset=classic" / "part-x.parquet"
    write_file("violations", data, path, atomic=True)
    back = pq.read_table(path)
    assert back.num_rows == 2
    assert back.schema.metadata == schema.metadata  # the table's metadata, put back
    assert sorted(os.listdir(path.parent)) == ["part-x.parquet"]  # no .tmp left
    with pytest.raises(OSError):
        write_file("violations", data, tmp_path / "violations", atomic=True)  # a folder
    assert sorted(os.listdir(path.parent)) == ["part-x.parquet"]


def test_ray_tasks_turn_a_raising_task_into_its_shards_failure() -> None:
    """The Ray tasks' guards are not dead: ShardTask catches its own errors, but a task
    whose ``__call__`` raises before that (tests/test_ray.py's failing shard) must still
    come back as that shard's failure, with the task's error (checked without Ray)."""
    from maumau_log.run import ray_runner

    class Boom(ShardTask):
        def __call__(self, shard, matches=None):  # type: ignore[no-untyped-def]
            raise MemoryError("simulated")

    s = Shard(3, str(SAMPLES / "standard_4p.jsonl"))
    res = ray_runner._run_one(Boom(), s)
    assert isinstance(res, ShardFailure) and str(res) == f"{s.path}: MemoryError: simulated"
    rows: dict[str, list[object]] = {n: [] for n in ray_runner._OUT_SCHEMA.names}
    ray_runner._replay(Boom(), s, rows, 7)
    assert rows["file"] == [7] and rows["shard"] == [3]
    meta = rows["meta"][0]
    assert isinstance(meta, bytes)
    back = pickle.loads(meta)
    assert isinstance(back, ShardFailure) and back.error == "MemoryError: simulated"
    assert list(rows) == ["file", "shard", "meta"]  # no tables: the tasks stage them


class _BreaksOnce:
    """A stand-in pool whose third ``submit`` raises BrokenProcessPool (a worker died
    just then); otherwise it runs the task at once."""

    submits = 0

    def __init__(self, *_a: object, **_k: object) -> None:
        pass

    def submit(self, fn, *args):  # type: ignore[no-untyped-def]
        from concurrent.futures import Future
        from concurrent.futures.process import BrokenProcessPool

        _BreaksOnce.submits += 1
        if _BreaksOnce.submits == 3:
            raise BrokenProcessPool("a worker died")
        f: Future[object] = Future()
        f.set_result(fn(*args))
        return f

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def test_a_shard_whose_submit_broke_is_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shard taken from the plan when the pool broke in ``submit`` was dropped (the
    next shard took its place): its games were missing from the results and the
    dataset (tests/test_scale.py's killed worker, now and then). Each shard once, in
    order."""
    from maumau_log.run import runners

    log = tmp_path / "many.jsonl"
    log.write_bytes(b"".join(_game(f"g{i:02d}") for i in range(6)))
    shards = list(plan_shards([log], shard_bytes=80))
    assert len(shards) == 6
    monkeypatch.setattr(runners, "_pool", _BreaksOnce)
    _BreaksOnce.submits = 0
    got = [g.game_id for r in pool_results(iter(shards), ShardTask(), 2) for g in r.games]  # type: ignore[union-attr]
    assert got == ["g00", "g01", "g02", "g03", "g04", "g05"]
    assert _BreaksOnce.submits == 7  # six shards, the third submitted twice


def test_a_file_gone_before_its_scan_is_one_shard_reported_unreadable(tmp_path: Path) -> None:
    # the plan scans a file only when its shards are wanted, so a file
    # deleted meanwhile must not end the batch with a traceback
    files = _three_logs(tmp_path)
    plan = plan_shards(files, shard_bytes=80)
    assert next(iter(plan)).path == str(files[0])  # a is scanned: 3 shards
    files[2].unlink()  # c is gone before its scan
    assert [(s.path[-7:], s.start, s.end) for s in plan] == [
        ("a.jsonl", 0, 200), ("a.jsonl", 200, 400), ("a.jsonl", 400, None),
        ("b.jsonl", 0, None), ("c.jsonl", 0, None),
    ]  # fmt: skip
    gone = shard_mod.run_shard(plan[4])
    assert gone.games == [] and gone.unreadable is not None
    assert "c.jsonl" in str(gone.unreadable)
    assert [o.game_id for o in shard_mod.run_shard(plan[3]).games] == ["g4"]
