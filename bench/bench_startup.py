"""Benchmark: the start-up of short command-line processes, both builds.

Run by hand (not in the tests):

    python bench/bench_startup.py [--runs 10] [--pure | --compiled] [--baseline DIR]

Each row is a whole process, as a user starts it; its CPU time (user + system of that
process alone, from ``os.wait4``: on the shared machine the wall time also counts other
processes) over ``--runs`` runs, the least (the figure to compare: other processes can only
add to it) and the median:

1. ``python -c pass``: the interpreter's own start-up, the floor;
   ``python -c "import typer"`` and ``python -c "import typer, msgspec"``: the floor of any
   command of this command line (typer and the event decoder are imported by every one);
2. ``maumau-log --version``;
3. ``maumau-log validate --jobs 1`` of a two-game log (``sample_logs/valid/standard_2p.jsonl``);
4. ``maumau-log import openspiel --validate`` of three OpenSpiel histories
   (``sample_logs/openspiel/histories.openspiel.txt``) into a temporary file.

The commands run as ``python -m maumau_log`` with ``PYTHONPATH`` the checkout (this one, or
``--baseline DIR``: e.g. a commit unpacked with ``git archive`` and compiled there with
``python hatch_build.py``), from a temporary folder (``python -m`` puts its working folder
first on ``sys.path``), in the compiled build (where the checkout has one) and the pure one
(``MAUMAU_LOG_PURE_PYTHON=1``). A run whose exit code is not the expected one stops the
benchmark with its stderr. Target: ``validate`` at most 60 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "sample_logs" / "valid" / "standard_2p.jsonl"
HISTORIES = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"


def cpu_ms(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """Run ``argv`` once; its CPU milliseconds (user + system of the process itself)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=cwd)
        _, status, ru = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            sys.exit(f"{' '.join(argv)}: exit {code}\n{err.read()[-800:].decode()}")
    return (ru.ru_utime + ru.ru_stime) * 1000


def rows(tmp: str) -> list[tuple[str, list[str]]]:
    """The commands timed: (label, argv after the interpreter)."""
    out = os.path.join(tmp, "imported.jsonl")
    cli = ["-m", "maumau_log"]
    return [
        ("python -c pass", ["-c", "pass"]),
        ("python -c 'import typer'", ["-c", "import typer"]),
        ("python -c 'import typer, msgspec'", ["-c", "import typer, msgspec"]),
        ("maumau-log --version", [*cli, "--version"]),
        ("validate (2 games)", [*cli, "validate", "--jobs", "1", str(LOG)]),
        (
            "import openspiel --validate (3 games)",
            [*cli, "import", "openspiel", str(HISTORIES), "--out", out, "--validate"],
        ),
    ]


def env_for(checkout: Path, pure: bool) -> dict[str, str]:
    """The environment of a run of ``checkout`` in one build."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("MAUMAU_LOG_PURE_PYTHON", None)
    if pure:
        env["MAUMAU_LOG_PURE_PYTHON"] = "1"
    return env


def has_compiled(checkout: Path) -> bool:
    """True when ``checkout`` holds a compiled engine (``python hatch_build.py``)."""
    return any((checkout / "maumau_log" / "engine").glob("*.so"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per row (default 10)")
    parser.add_argument("--baseline", type=Path, help="a second checkout to time beside")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--pure", action="store_true", help="the pure build only")
    which.add_argument("--compiled", action="store_true", help="the compiled build only")
    args = parser.parse_args()
    checkouts = [("this", ROOT)] + (
        [("baseline", args.baseline.resolve())] if args.baseline else []
    )
    builds = [b for b in ("compiled", "pure") if not (args.pure and b == "compiled")]
    builds = [b for b in builds if not (args.compiled and b == "pure")]
    print(f"CPU ms (user + system) of whole processes, {args.runs} runs: min / median")
    print(f"{'command':40} {'checkout':9} {'build':9} {'min':>7} {'median':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, argv in rows(tmp):
            if label.startswith("python -c"):  # no checkout's code: one row
                runs = [(("-", "-"), env_for(ROOT, True))]
            else:
                runs = [
                    ((name, build), env_for(checkout, build == "pure"))
                    for name, checkout in checkouts
                    for build in builds
                    if build == "pure" or has_compiled(checkout)
                ]
            for (name, build), env in runs:
                times = [cpu_ms([sys.executable, *argv], env, tmp) for _ in range(args.runs)]
                print(
                    f"{label:40} {name:9} {build:9} "
                    f"{min(times):7.1f} {statistics.median(times):7.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
