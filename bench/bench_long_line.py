"""Benchmark: one very long line in a large plain log (the shard planner's scan, the reader).

Run by hand (not in the tests):

    python bench/bench_long_line.py --mb 500 [--baseline DIR] [--kind header|plain]

It writes a log under bench/out/: 300 simulated games, then one line of ``--mb`` MB (a
``game`` header whose ``meta`` holds the bulk with ``--kind header``, the default, or a
line of ``x`` with ``--kind plain``), then 300 more games. A plain log above twice the
shard size (64 MiB) is scanned for its cut points before it is replayed, so the command
times the planner's scan and the reader on the long line. It runs ``maumau-log validate
--jobs 1 --json FILE`` as a whole process on this source tree (and on ``--baseline DIR``,
e.g. ``/work/main`` or a commit unpacked with ``git archive``, for a before/after), and
the same on the file gzipped (one shard: no scan), and prints for each the wall time, the
peak RSS of the process (``os.wait4``), the exit code and the games reported.

Expected: linear in the line's length. Before the planner kept only what can still make a
line a cut, the scan grew its buffer by every 1 MiB read (quadratic: 109 s and 1.05 GB
for a 500 MB line, against 0.85 s gzipped).

Measured on the 2-core machine shared with other jobs (pure Python, ``--kind header``):

| line | before (baseline) | after | gzipped, after |
| --- | --- | --- | --- |
| 100 MB | 24.5 s, 220 MiB | 3.7 s, 94 MiB | 3.5 s, 96 MiB |
| 500 MB | 194.6 s, 982 MiB | 3.5 s, 94 MiB | 1.8 s, 96 MiB |
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"


def make_log(mb: int, kind: str) -> Path:
    """The log (cached by size and kind)."""
    path = OUT / f"long_line_{kind}_{mb}mb.jsonl"
    if path.exists():
        return path
    sys.path.insert(0, str(ROOT))
    from maumau_log.bots.sim import simulate
    from maumau_log.events import encode_event

    games = [b"".join(encode_event(e) + b"\n" for e in g) for g in simulate("standard", 3, 600, 7)]
    OUT.mkdir(parents=True, exist_ok=True)
    size = mb * 1_000_000
    with open(path.with_suffix(".tmp"), "wb") as fh:
        fh.writelines(games[:300])
        if kind == "header":
            head = (
                b'{"type":"game","format":"maumau-log/1","game_id":"long-line","ruleset":'
                b'"standard","players":["p1","p2","p3"],"meta":{"pad":"'
            )
            fh.write(head)
            left = size - len(head) - 3
        else:
            left = size
        block = b"x" * (1 << 20)
        while left > 0:
            fh.write(block[: min(left, len(block))])
            left -= len(block)
        fh.write(b'"}}\n' if kind == "header" else b"\n")
        fh.writelines(games[300:])
    os.replace(path.with_suffix(".tmp"), path)
    return path


def run(tree: Path, log: Path) -> tuple[float, float, int, int | None]:
    """``validate --jobs 1 --json`` on ``tree``'s code: (seconds, peak RSS MiB, exit code,
    games reported)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "MAUMAU_LOG_PURE_PYTHON": "1"}
    cmd = [sys.executable, "-m", "maumau_log", "validate", "--jobs", "1", "--json", str(log)]
    t0 = time.perf_counter()
    # run in the tree: ``python -m`` puts the working folder first on the path
    proc = subprocess.Popen(
        cmd, env=env, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    try:
        games = json.loads(out)["games"]
    except (ValueError, KeyError):
        games = None
    return seconds, usage.ru_maxrss / 1024, code, games


def main() -> None:
    """Parse the arguments, make the logs, time the command on each tree."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=500, help="the long line's size in MB")
    ap.add_argument("--kind", choices=("header", "plain"), default="header")
    ap.add_argument("--baseline", type=Path, help="another source tree to time")
    args = ap.parse_args()
    log = make_log(args.mb, args.kind).resolve()
    gz = log.with_suffix(".jsonl.gz")
    if not gz.exists():
        with open(log, "rb") as src, gzip.open(gz, "wb", compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    trees = [("this tree", ROOT)] + ([("baseline", args.baseline)] if args.baseline else [])
    print(f"{log.name}: {log.stat().st_size / 1e6:,.0f} MB")
    for label, tree in trees:
        for f in (log, gz):
            seconds, rss, code, games = run(tree, f)
            print(
                f"{label:10} {f.suffix:4} {seconds:7.2f} s  peak RSS {rss:7.0f} MiB  "
                f"exit {code}  games {games}"
            )


if __name__ == "__main__":
    main()
