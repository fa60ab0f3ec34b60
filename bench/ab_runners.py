"""A/B of the runners (issue 11): two checkouts, the same commands, interleaved in one run.

Each command runs as a whole process (``python -m maumau_log``-like, in the checkout given)
and reports its wall time and the CPU seconds (user + sys) of the parent process and of
its children (``getrusage`` RUSAGE_SELF / RUSAGE_CHILDREN at exit: the pool's workers; a
local Ray's processes only partly, as far as they are reaped), so a noisy shared machine
still compares CPU work. Datasets go to a temporary folder, deleted after each run.

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


def run(root: Path, args: list[str]) -> tuple[float, float, float]:
    """(wall s, parent CPU s, children CPU s) of one command run in checkout ``root``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, *args], cwd=root, env=env, capture_output=True, text=True
    )
    found = re.findall(r"^RU (\S+) (\S+) (\S+)$", proc.stderr, re.M)
    if not found:
        raise SystemExit(f"{' '.join(args)} in {root}: no figures\n{proc.stderr[-2000:]}")
    wall, parent, children = map(float, found[-1])
    return wall, parent, children


def main() -> None:
    """Run the steps for A and B, alternately, ``--rounds`` times; print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="checkout A (e.g. a clone of main)")
    ap.add_argument("b", type=Path, help="checkout B")
    ap.add_argument("--logs", default="/work/bench1e5/logs")
    ap.add_argument("--steps", default="validate2,validate1,ingest2,ingest1,ray")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    print("round step checkout wall_s parent_cpu_s children_cpu_s", flush=True)
    for r in range(1, args.rounds + 1):
        for step in args.steps.split(","):
            for label, root in (("A", args.a.resolve()), ("B", args.b.resolve())):
                tmp = Path(tempfile.mkdtemp(prefix="ab_runners_"))
                try:
                    cmd = [x.format(logs=args.logs, ds=tmp / "ds") for x in STEPS[step]]
                    wall, parent, children = run(root, cmd)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                print(f"{r} {step} {label} {wall:.1f} {parent:.1f} {children:.1f}", flush=True)


if __name__ == "__main__":
    main()
