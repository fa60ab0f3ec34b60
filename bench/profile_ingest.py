"""Where ``ingest --jobs N`` spends its CPU, per phase: one instrumented run.

Runs :func:`maumau_log.run.ingest.ingest` in this process with the checkout on ``PYTHONPATH``
and records the CPU seconds (``time.process_time`` in a worker, which runs one shard at a
time; ``time.thread_time`` in the parent's main thread) of each phase, summed per process:

- workers: the shard function as the pool calls it (``ShardTask.__call__``), and inside it
  ``run_shard`` (the replay and the collector's appends), the collector's ``tables()``
  (the buffers to Arrow), ``stage_tables`` (the staged ``events`` files, zstd Parquet);
  pickling the result (measured apart, as the pool does it, and taken off the totals);
- the parent: ``DatasetWriter.write`` (the tables that travel back, or every table with one
  process), ``adopt``, ``commit``, ``update_matches``, the game-id look-ups.

``MODE`` is ``1`` or ``2`` (``--jobs``), or ``serial2``: the plan and the staging of
``--jobs 2`` run one shard after the other in this process (no pool, no second core
busy), so its extra work shows without the host's slow-down when both cores run::

    PYTHONPATH=. python bench/profile_ingest.py 2 /work/bench1e5/logs
    PYTHONPATH=. python bench/profile_ingest.py serial2 /work/bench1e5/logs
    PYTHONPATH=. python bench/profile_ingest.py 1 /work/bench1e5/logs
"""

from __future__ import annotations

import functools
import os
import pickle
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

OUT = tempfile.mkdtemp(prefix="profile_ingest_")
PARENT = os.getpid()


def _cpu(ru: resource.struct_rusage) -> float:
    return ru.ru_utime + ru.ru_stime


def _clock() -> float:
    return time.thread_time() if os.getpid() == PARENT else time.process_time()


def _faults() -> int:
    """Minor page faults of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _log(name: str, cpu: float) -> None:
    with open(f"{OUT}/phases", "a") as fh:
        fh.write(f"{os.getpid()} {name} {cpu:.5f}\n")


def _timed(owner: Any, attr: str, name: str) -> None:
    """Wrap ``owner.attr`` so that every call logs its CPU under ``name``."""
    fn = getattr(owner, attr)

    @functools.wraps(fn)
    def wrapper(*a: Any, **k: Any) -> Any:
        c0, f0 = _clock(), _faults()
        try:
            return fn(*a, **k)
        finally:
            _log(name, _clock() - c0)
            _log(f"{name}.faults", _faults() - f0)

    setattr(owner, attr, wrapper)


def main() -> None:
    """Patch the phases, run the ingest, print the CPU per phase."""
    mode, paths = sys.argv[1], sys.argv[2:]
    import gc

    import maumau_log.run.ingest as records
    import maumau_log.run.runners as runners
    import maumau_log.run.shard as shard_mod
    import maumau_log.store.collector as collector
    import maumau_log.store.known as game_ids
    import maumau_log.store.writer as store_writer

    gc_at: list[float] = []

    def gc_clock(phase: str, info: dict[str, int]) -> None:  # the collector's own CPU
        if phase == "start":
            gc_at[:] = [_clock()]
        elif gc_at:
            _log(f"gc{info['generation']}", _clock() - gc_at[0])
            _log(f"gc{info['generation']}_n", 1)

    gc.callbacks.append(gc_clock)
    call = runners.ShardTask.__call__

    def task_call(self: runners.ShardTask, shard: Any, matches: Any = None) -> Any:
        w0, c0, f0 = time.time(), _clock(), _faults()
        res = call(self, shard, matches)
        c1 = _clock()
        _log("shard_call.faults", _faults() - f0)
        size = len(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL)) if mode != "1" else 0
        c2 = _clock()
        _log("shard_call", c1 - c0)
        _log("pickle", c2 - c1)
        _log("pickled_bytes", size)
        _log("shards", 1)
        _log("wall_start", w0)
        _log("wall_end", time.time())
        return res

    runners.ShardTask.__call__ = task_call  # type: ignore[method-assign]
    _timed(shard_mod, "run_shard", "run_shard")
    runners.run_shard = shard_mod.run_shard  # the name runners calls
    _timed(collector.RecordCollector, "tables", "collector.tables")
    _timed(runners, "stage_tables", "stage_tables")
    _timed(store_writer, "write_file", "write_file")
    _timed(store_writer.DatasetWriter, "write", "parent.write")
    _timed(store_writer.DatasetWriter, "adopt", "parent.adopt")
    _timed(store_writer.DatasetWriter, "commit", "parent.commit")
    _timed(records, "update_matches", "parent.update_matches")
    _timed(game_ids.KnownGames, "lookup", "parent.known.lookup")
    _timed(game_ids.KnownGames, "add", "parent.known.add")
    _timed(game_ids.KnownGames, "load", "parent.known.load")

    runner: Callable[..., Any] | None = None
    jobs = 1
    if mode == "serial2":

        def serial(shards: Any, task: Any) -> Any:
            return runners.merge_order(runners.serial_results(shards, task), task, shards)

        serial.workers = 2  # type: ignore[attr-defined]
        serial.stages = True  # type: ignore[attr-defined]
        runner = serial
    else:
        jobs = int(mode)
    ds = os.path.join(OUT, "ds")
    t0 = time.time()
    s = records.ingest(paths, ds, jobs=jobs, runner=runner, keep_game_ids=False)
    t1 = time.time()
    gc.callbacks.remove(gc_clock)
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    per: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    starts: list[float] = []
    ends: list[float] = []
    last: dict[str, float] = {}  # each worker's last shard end
    with open(f"{OUT}/phases") as fh:
        for line in fh:
            pid, name, v = line.split()
            if name == "wall_start":
                starts.append(float(v))
            elif name == "wall_end":
                ends.append(float(v))
                last[pid] = max(last.get(pid, 0.0), float(v))
            else:
                per[pid][name] += float(v)
    print(f"mode {mode}: exit {s.exit_code}; {s.games:,} games, {s.events:,} events; wall "
          f"{t1 - t0:.2f} s; first shard at {min(starts) - t0:.2f} s; after the last shard "
          f"{t1 - max(ends):.2f} s")  # fmt: skip
    print(f"  each process's last shard ended at (s): "
          f"{', '.join(f'{v - t0:.2f}' for v in sorted(last.values()))}")  # fmt: skip
    total: dict[str, float] = defaultdict(float)
    for pid, phases in sorted(per.items()):
        who = "parent" if int(pid) == PARENT else f"worker {pid}"
        print(f"  {who}: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(phases.items())))
        for k, v in phases.items():
            total[k] += v
    print("  all: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(total.items())))
    ours = total["pickle"]  # our own pickling (the pool pickles again for itself)
    tree = _cpu(me) + _cpu(kids) - ours
    print(f"CPU s: the whole tree {tree:.2f} (this process {_cpu(me):.2f}, main thread "
          f"{time.thread_time():.2f}; children {_cpu(kids):.2f}; our pickling "
          f"{ours:.2f} taken off)")  # fmt: skip
    print(f"  user/sys CPU s, minor faults: this process {me.ru_utime:.2f}/{me.ru_stime:.2f}, "
          f"{me.ru_minflt:,}; children {kids.ru_utime:.2f}/{kids.ru_stime:.2f}, "
          f"{kids.ru_minflt:,}")  # fmt: skip
    shutil.rmtree(OUT, ignore_errors=True)


if __name__ == "__main__":
    main()
