"""The Ray driver's main-thread CPU from its first shard result to the end of the ingest.

``bench_scale.py --driver-cpu`` measures the driver's whole process, Ray's start-up and
threads included: on a loaded machine that moves by more than the per-game work it is
meant to show (0.2-0.3 s between runs of the same log). This measures, in one process
per run, only what the driver's main thread spends while the shards stream in (receiving
the results, the game-id rule or the keeper's replies, adopting the staged files, the
commit), and counts the ``GameOutcome`` objects the driver built or unpickled.

    python bench/driver_stream_cpu.py g4k.jsonl g40k.jsonl --repeat 2 [--code CHECKOUT]

Each log is ingested by a local Ray with ``--cpus`` CPUs into a fresh dataset; the growth
from the first log to the last (least of each) is printed. The runs start with ``-P`` (the
current folder is not put first on the path), so ``--code`` is what runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

ONE_RUN = r"""
import shutil, sys, time
import maumau_log.run.ray_runner as rr
import maumau_log.run.shard as sh
from maumau_log.run.ingest import ingest

log, ds, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
made = [0]
real_outcome = sh.GameOutcome

def counted(*a, **k):  # pickle finds the class by its module's name: unpickling counts
    made[0] += 1
    return real_outcome(*a, **k)

sh.GameOutcome = counted
first = []
real_results = rr.ray_range_results

def results(*a, **kw):
    for res in real_results(*a, **kw):
        if not first:
            first.append(time.thread_time())
        yield res

rr.ray_range_results = results
t0 = time.thread_time()
s = ingest([log], ds, runner=rr.ray_runner(num_cpus=cpus), keep_game_ids=False)
t1 = time.thread_time()
shutil.rmtree(ds, ignore_errors=True)
print(s.games, t1 - t0, t1 - first[0], made[0])
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cpus", type=int, default=2, help="the local Ray's CPUs")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.code)}
    env.pop("RAY_ADDRESS", None)
    stream: dict[Path, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-stream-") as work:
        for k in range(args.repeat):
            for log in args.logs:
                proc = subprocess.run(
                    [sys.executable, "-P", "-c", ONE_RUN, str(log), str(Path(work) / "ds"),
                     str(args.cpus)],
                    env=env, capture_output=True, text=True,
                )  # fmt: skip
                if proc.returncode != 0:  # e.g. Ray refused to start: say why, go on
                    print(f"{log.name:<20} run {k}: failed: {proc.stderr.strip()[-500:]}")
                    continue
                out = proc.stdout.split()
                games, total, after_first, made = int(out[0]), *map(float, out[1:3]), out[3]
                stream.setdefault(log, []).append(after_first)
                print(f"{log.name:<20} run {k}: {games:>9,} games, main thread {total:.3f} s, "
                      f"first result to end {after_first:.3f} s, GameOutcome here {made}",
                      flush=True)  # fmt: skip
    a, b = args.logs[0], args.logs[-1]
    if not (stream.get(a) and stream.get(b)):
        return
    print(f"growth first result to end: {min(stream[b]) - min(stream[a]):.3f} s (least of each)")


if __name__ == "__main__":
    main()
