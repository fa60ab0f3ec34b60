"""Profile: the top entries of a validation, before and after.

Run by hand (not in the tests):

    python bench/profile_validate.py FILE [--tree LABEL=DIR ...] [--top 15] [--perf]

For each source tree (default: this checkout) it replays ``FILE`` with
``Replayer().replay_file`` (the loop of ``bench/bench_validate.py``'s replay rows) in a
child process started in ``bench/out`` (so ``PYTHONPATH`` decides which tree runs) and
prints the top entries:

- always, a cProfile of the pure-Python build (``MAUMAU_LOG_PURE_PYTHON=1``): the
  functions with the most own time (``tottime``), their calls and their share of the
  profiled time. cProfile's own overhead per call inflates the small functions, so the
  shares compare one tree with another, not with a run without the profiler; the calls are
  exact;
- with ``--perf``, ``perf record`` of the build the tree has (compiled when its extension
  modules are there) and ``perf report``'s top symbols by own samples: mypyc's functions are
  ``CPyDef_<module>___<function>``, the interpreter's are ``_PyEval_EvalFrameDefault`` and
  its helpers.

A tree is a checkout or a ``git archive`` of one (e.g. d203945, the single-module engine).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"

CPROFILE = """
import cProfile, pstats, sys
from maumau_log.replay.driver import Replayer
def work():
    n = 0
    for report in Replayer().replay_file(sys.argv[1]):
        n += report.events
    return n
prof = cProfile.Profile()
n = prof.runcall(work)
st = pstats.Stats(prof)
total = sum(v[2] for v in st.stats.values())
calls = sum(v[1] for v in st.stats.values())
rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[: int(sys.argv[2])]
print(f"events {n}; profiled {total:.2f} s own time, {calls:,} calls")
print("| own s | share | calls | function |")
print("| ---: | ---: | ---: | --- |")
for (fn, line, name), (cc, nc, tt, ct, callers) in rows:
    where = fn if fn == "~" else fn.rsplit("maumau_log/", 1)[-1]
    label = name if fn == "~" else f"{where}:{line} {name}"
    print(f"| {tt:.2f} | {100 * tt / total:.1f}% | {nc:,} | `{label}` |")
"""

PERF_RUN = """
import sys
from maumau_log.replay.driver import Replayer
n = 0
for report in Replayer().replay_file(sys.argv[1]):
    n += report.events
"""


def env_for(tree: Path, pure: bool) -> dict[str, str]:
    """The child's environment: ``PYTHONPATH`` = ``tree``, the pure build when ``pure``."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    env.pop("MAUMAU_LOG_PURE_PYTHON", None)
    if pure:
        env["MAUMAU_LOG_PURE_PYTHON"] = "1"
    return env


def cprofile(tree: Path, log: Path, top: int) -> str:
    """The cProfile table (markdown) of the pure build of ``tree`` replaying ``log``."""
    res = subprocess.run(
        [sys.executable, "-c", CPROFILE, str(log), str(top)],
        capture_output=True, text=True, env=env_for(tree, True), cwd=OUT, check=True,
    )  # fmt: skip
    return res.stdout


def perf(tree: Path, log: Path, top: int) -> str:
    """``perf report``'s top ``top`` symbols (own samples) of ``tree``'s build replaying
    ``log``; raises ``SystemExit`` when perf is missing."""
    if shutil.which("perf") is None:
        sys.exit("perf is not installed (Debian: linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        subprocess.run(
            ["perf", "record", "-q", "-F", "999", "-o", str(data), "--",
             sys.executable, "-c", PERF_RUN, str(log)],
            capture_output=True, env=env_for(tree, False), cwd=OUT, check=True,
        )  # fmt: skip
        res = subprocess.run(
            ["perf", "report", "-i", str(data), "--stdio", "--no-children",
             "--sort", "dso,symbol", "--percent-limit", "0.5"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    lines = [ln for ln in res.stdout.splitlines() if ln.strip() and not ln.startswith("#")]
    rows = ["| share | object | symbol |", "| ---: | --- | --- |"]
    for ln in lines[:top]:
        parts = ln.split(None, 3)
        if len(parts) == 4:
            share, dso, _, sym = parts
            sym = sym.split("  ")[0].strip()  # perf pads the symbol and adds "-" columns
            rows.append(f"| {share} | {dso} | `{sym}` |")
    return "\n".join(rows) + "\n"


def main() -> None:
    """Parse the arguments and print one table per tree (and per build with ``--perf``)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("log", type=Path, help="a log file (e.g. bench/out/classic_4p_5000g_s2.jsonl)")
    ap.add_argument("--tree", action="append", default=[], help="LABEL=DIR, a source tree")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--perf", action="store_true", help="also perf's top symbols")
    args = ap.parse_args()
    trees = [t.split("=", 1) for t in args.tree] or [["this checkout", str(ROOT)]]
    OUT.mkdir(parents=True, exist_ok=True)
    log = args.log.resolve()
    for label, tree in trees:
        print(f"## {label} ({tree}), pure Python, cProfile\n")
        print(cprofile(Path(tree), log, args.top))
        if args.perf:
            print(f"## {label} ({tree}), its build, perf\n")
            print(perf(Path(tree), log, args.top))


if __name__ == "__main__":
    main()
