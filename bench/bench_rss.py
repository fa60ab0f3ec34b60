"""Peak memory of a whole command, the parent process apart from its workers.

``/usr/bin/time -v`` reports the largest process of a run, which for ``--jobs 2`` is often a
worker; what grows with the number of games is the parent. This runs a command, polls
``/proc/PID/status`` (``VmHWM``: the peak resident set) of the command and of every
descendant every 0.1 s, and prints wall time, CPU time of all processes, the parent's peak
and the largest worker's peak.

    python bench/bench_rss.py -- maumau-log validate --jobs 2 /work/bench1e5/logs
    python bench/bench_rss.py --runs 3 -- maumau-log stats /work/bench1m/ds2

Linux only. Interleave A/B runs yourself (e.g. PYTHONPATH=old vs new) on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def _hwm_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        for task in tasks:
            text = (task / "children").read_text().split()
            out.extend(int(c) for c in text)
    except OSError:
        pass
    return out


def measure(cmd: list[str]) -> dict[str, float]:
    """Run ``cmd``; return wall s, cpu s (user+sys of it and its reaped children), the
    parent's peak RSS and the largest descendant's peak RSS (MiB), and the exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    parent = 0
    workers: dict[int, int] = {}
    while proc.poll() is None:
        parent = max(parent, _hwm_kib(proc.pid))
        stack = _children(proc.pid)
        while stack:
            c = stack.pop()
            workers[c] = max(workers.get(c, 0), _hwm_kib(c))
            stack.extend(_children(c))
        time.sleep(0.1)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "parent_mib": parent / 1024,
        "worker_mib": max(workers.values(), default=0) / 1024,
        "max_rss_mib": (after.ru_maxrss if after.ru_maxrss else 0) / 1024,
        "rc": float(proc.returncode),
    }


def main() -> None:
    """Command line: ``bench_rss.py [--runs N] -- COMMAND...``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--label", default="")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        ap.error("give a command after --")
    for _ in range(args.runs):
        r = measure(cmd)
        print(
            f"{args.label} wall {r['wall_s']:.2f} s  cpu {r['cpu_s']:.2f} s  parent peak "
            f"{r['parent_mib']:.0f} MiB  worker peak {r['worker_mib']:.0f} MiB  rc "
            f"{int(r['rc'])}  (pid {os.getpid()})",
            flush=True,
        )
    sys.exit(0)


if __name__ == "__main__":
    main()
