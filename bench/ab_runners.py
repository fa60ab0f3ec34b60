"""A/B of the runners: two checkouts, the same commands, interleaved in one run.

Each command runs as a whole process (``python -m maumau_log``-like, in the checkout given)
and reports its wall time and the CPU seconds (user + sys) of the parent process and of
its children (``getrusage`` RUSAGE_SELF / RUSAGE_CHILDREN at exit: the pool's workers; a
local Ray's processes only partly, as far as they are reaped), so a noisy shared machine
still compares CPU work. ``tree_cpu_s`` and the peak RSS columns come from polling
``/proc`` every 0.2 s for every process of the command's tree (a local Ray's raylet, GCS,
agents and workers included): the CPU of the whole tree, the parent's peak RSS and the
largest peak RSS of any other process of the tree (a worker), in MiB (a sampled peak: a
spike shorter than 0.2 s can be missed). Datasets go to a temporary folder, deleted after
each run.

    python bench/ab_runners.py /tmp/r11/base . --logs /work/bench1e5/logs \\
        --steps validate2,validate1,ingest2,ingest1,ray --rounds 2
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_RUN = """
import atexit, resource, sys, time
t0 = time.perf_counter()
def rep():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"RU {time.perf_counter() - t0:.1f} {s.ru_utime + s.ru_stime:.1f} "
          f"{c.ru_utime + c.ru_stime:.1f}", file=sys.stderr)
atexit.register(rep)
sys.argv = ["maumau-log"] + sys.argv[1:]
import maumau_log.cli.replay_cmds, maumau_log.cli.data_cmds
from maumau_log.cli import main
main()
"""

STEPS = {
    "validate1": ["validate", "--jobs", "1", "{logs}"],
    "validate2": ["validate", "--jobs", "2", "{logs}"],
    "ingest1": ["ingest", "--jobs", "1", "{logs}", "--out", "{ds}"],
    "ingest2": ["ingest", "--jobs", "2", "{logs}", "--out", "{ds}"],
    "ray": ["ingest", "--engine", "ray", "--jobs", "2", "{logs}", "--out", "{ds}"],
}


_TICK = os.sysconf("SC_CLK_TCK")


def _procs() -> dict[int, tuple[int, float, int]]:
    """pid to (parent pid, CPU s, RSS bytes) of every process now."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        f = stat[stat.rfind(")") + 2 :].split()
        out[int(name)] = (int(f[1]), (int(f[11]) + int(f[12])) / _TICK, int(f[21]) * 4096)
    return out


def run(root: Path, args: list[str]) -> tuple[float, float, float, float, float, float]:
    """(wall s, parent CPU s, children CPU s, tree CPU s, parent peak RSS MiB, largest
    other peak RSS MiB) of one command run in checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _RUN, *args],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            text=True,
        )
        seen: dict[int, tuple[float, int]] = {}  # pid -> (CPU s, peak RSS)
        while proc.poll() is None:
            now = _procs()
            tree = {proc.pid}
            grew = True
            while grew:
                grew = False
                for pid, (ppid, _, _) in now.items():
                    if ppid in tree and pid not in tree:
                        tree.add(pid)
                        grew = True
            for pid in tree & now.keys():
                _, cpu, rss = now[pid]
                old = seen.get(pid, (0.0, 0))
                seen[pid] = (max(old[0], cpu), max(old[1], rss))
            time.sleep(0.2)
        err.seek(0)
        stderr = err.read()
    found = re.findall(r"^RU (\S+) (\S+) (\S+)$", stderr, re.M)
    if not found:
        raise SystemExit(f"{' '.join(args)} in {root}: no figures\n{stderr[-2000:]}")
    wall, parent, children = map(float, found[-1])
    tree_cpu = max(parent + children, sum(c for c, _ in seen.values()))
    parent_rss = seen.get(proc.pid, (0.0, 0))[1] / 2**20
    other = max((r for p, (_, r) in seen.items() if p != proc.pid), default=0) / 2**20
    return wall, parent, children, tree_cpu, parent_rss, other


def main() -> None:
    """Run the steps for A and B, alternately, ``--rounds`` times; print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="checkout A (e.g. a clone of main)")
    ap.add_argument("b", type=Path, help="checkout B")
    ap.add_argument("--logs", default="/work/bench1e5/logs")
    ap.add_argument("--steps", default="validate2,validate1,ingest2,ingest1,ray")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    print(
        "round step checkout wall_s parent_cpu_s children_cpu_s tree_cpu_s "
        "parent_peak_mib worker_peak_mib",
        flush=True,
    )
    for r in range(1, args.rounds + 1):
        for step in args.steps.split(","):
            for label, root in (("A", args.a.resolve()), ("B", args.b.resolve())):
                tmp = Path(tempfile.mkdtemp(prefix="ab_runners_"))
                try:
                    cmd = [x.format(logs=args.logs, ds=tmp / "ds") for x in STEPS[step]]
                    wall, parent, children, tree, prss, wrss = run(root, cmd)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                print(
                    f"{r} {step} {label} {wall:.1f} {parent:.1f} {children:.1f} {tree:.1f} "
                    f"{prss:.0f} {wrss:.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
