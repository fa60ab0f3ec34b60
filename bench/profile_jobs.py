"""Where ``validate --jobs N`` spends its time beside the replay: one instrumented run.

Runs ``maumau-log validate --jobs N PATHS`` in this process with the checkout on
``PYTHONPATH``, and records, per shard, the worker's CPU seconds for the shard function
and for pickling its result (``time.process_time``), its wall start and end; for the
parent, the CPU of the whole process and of its main thread, its children's CPU
(``getrusage``), and when the plan was made and the first shard started. Prints the
timeline: time to the first shard, each worker's busy time and the gaps between its
shards, the tail (the last worker's end against the first's), and the CPU beside the
replay (scan, pickling, the parent). Compare ``--jobs 1`` and ``--jobs 2`` of the same
checkout, and two checkouts, back to back (CPU seconds compare on a loaded machine;
wall only on a quiet one)::

    PYTHONPATH=. python bench/profile_jobs.py 2 /work/bench1e5/logs
    PYTHONPATH=. python bench/profile_jobs.py 1 /work/bench1e5/logs
"""

from __future__ import annotations

import os
import pickle
import resource
import sys
import tempfile
import time

OUT = tempfile.mkdtemp(prefix="profile_jobs_")


def _cpu(ru: resource.struct_rusage) -> float:
    return ru.ru_utime + ru.ru_stime


def main() -> None:
    """Patch the shard task and the planner, run the command, print the figures."""
    jobs, paths = sys.argv[1], sys.argv[2:]
    import maumau_log.cli.replay_cmds as cmds
    import maumau_log.run.runners as runners

    call = runners.ShardTask.__call__

    def timed(self: runners.ShardTask, shard: object, matches: object = None) -> object:
        w0, c0 = time.time(), time.process_time()
        res = call(self, shard, matches)  # type: ignore[arg-type]
        c1 = time.process_time()
        size = len(pickle.dumps(res, protocol=pickle.HIGHEST_PROTOCOL))
        c2 = time.process_time()
        with open(f"{OUT}/shards", "a") as fh:
            fh.write(
                f"{os.getpid()} {c1 - c0:.4f} {c2 - c1:.4f} {size} {w0:.4f} {time.time():.4f}\n"
            )
        return res

    runners.ShardTask.__call__ = timed  # type: ignore[method-assign]
    plan = cmds.plan_shards
    planned: list[float] = []

    def timed_plan(*a: object, **k: object) -> object:
        out = plan(*a, **k)  # type: ignore[arg-type]
        planned.append(time.time())  # a lazy plan: its first files only
        return out

    cmds.plan_shards = timed_plan  # type: ignore[assignment]
    from typer.testing import CliRunner

    from maumau_log.cli import app

    t0 = time.time()
    result = CliRunner().invoke(app, ["validate", "--jobs", jobs, "--no-progress", *paths])
    t1 = time.time()
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    with open(f"{OUT}/shards") as fh:
        rows = [line.split() for line in fh]
    by: dict[str, list[tuple[float, float, float, float]]] = {}
    for pid, cpu, pick, _, w0, w1 in rows:
        by.setdefault(pid, []).append((float(w0), float(w1), float(cpu), float(pick)))
    replay = sum(float(r[1]) for r in rows)
    pickling = sum(float(r[2]) for r in rows)  # ours: taken off the totals below
    total = _cpu(me) + _cpu(kids) - pickling
    print(f"exit {result.exit_code}; wall {t1 - t0:.2f} s; {len(rows)} shards; results "
          f"{sum(int(r[3]) for r in rows) / 2**20:.1f} MiB pickled")  # fmt: skip
    first = min(float(r[4]) for r in rows)
    print(f"plan_shards returned at {planned[0] - t0:.2f} s; first shard at {first - t0:.2f} s")
    ends = []
    for pid, iv in sorted(by.items()):
        iv.sort()
        gaps = sum(iv[i + 1][0] - iv[i][1] for i in range(len(iv) - 1))
        ends.append(iv[-1][1])
        print(f"  process {pid}: {len(iv)} shards, busy {sum(b - a for a, b, _, _ in iv):.2f} s, "
              f"CPU {sum(c for *_, c, _ in iv):.2f} s, gaps {gaps:.2f} s, last end "
              f"{iv[-1][1] - t0:.2f} s")  # fmt: skip
    print(f"tail (last end - first last end): {max(ends) - min(ends):.2f} s; after the last "
          f"shard: {t1 - max(ends):.2f} s")  # fmt: skip
    sent = f", pickling the results (as the pool does) {pickling:.2f}" if jobs != "1" else ""
    print(f"CPU s: replay {replay:.2f}{sent}; the whole tree {total:.2f} (this process "
          f"{_cpu(me):.2f}, main thread {time.thread_time():.2f}; children {_cpu(kids):.2f}; "
          f"our own pickling taken off); beside the replay {total - replay:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
