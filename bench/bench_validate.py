"""Benchmark: validate and ingest against the decode floor, plain and timed logs, both builds.

Run by hand (not in the tests):

    python bench/bench_validate.py --games 20000 [--baseline DIR] [--repeat 3]

It simulates one log (cached under bench/out/; classic games for four players, dealt by the
provably fair shuffle, so validation also recomputes every deal from its seed) and derives
the timed log from it: the same games with a ``t`` on every line (epoch milliseconds), as
logs of online play carry one, so no two lines are equal and the cache of decoded short
lines finds nothing. That is the main file; the plain one is timed beside it.

For each file it times, as whole processes (imports included, as a user runs them), CPU
seconds (user + system of the process itself: on the shared machine the wall time also
counts other processes), the least and the most of ``--repeat`` runs:

1. the floor: ``orjson.loads`` of every line, each result dropped at once (orjson is a
   bench-only dependency: ``pip install orjson``), and msgspec's decode beside it;
2. ``maumau-log validate --jobs 1 FILE``, compiled and pure Python
   (``MAUMAU_LOG_PURE_PYTHON=1``), and the compiled one with no line kept decoded
   (:data:`maumau_log.replay.driver.DECODED_LINES` 0: what the line cache is worth);
3. ``maumau-log ingest --jobs 1 FILE -o DATASET`` into a fresh dataset, both builds;
4. the same commands of a baseline source tree (``--baseline DIR``, e.g. a commit unpacked
   with ``git archive`` and compiled there with ``python hatch_build.py``).

Targets: validate within 2.0x of the orjson floor (both files); ingest within 1.5x of
validate (same file, same build, same run).

The functions :func:`run` (a ``python -c`` process with its rusage) and :func:`make_log` are
used by the other benchmarks too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "out"

FLOOR = """
import msgspec, resource, sys
decode = msgspec.json.decode
n = 0
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        if line.strip():
            decode(line)
            n += 1
"""

VALIDATE = """
import resource, sys
from maumau_log.replay.driver import Replayer
n = games = valid = 0
for report in Replayer().replay_file(sys.argv[1]):
    games += 1
    valid += report.valid
    n += report.events
try:
    from maumau_log.engine import COMPILED as compiled
except ImportError:
    compiled = None
"""

DRIVER = """
import resource, sys
import maumau_log.engine.core as core
# the replay driver alone (pure build only): the engine's entries do nothing (plays and
# draws come in through apply_play and apply_draw, with their fields read by the driver)
core.Engine.apply = lambda self, event: None
core.Engine.apply_play = lambda self, event, *fields: None
core.Engine.apply_draw = lambda self, event, *fields: None
from maumau_log.replay.driver import Replayer
n = 0
for report in Replayer().replay_file(sys.argv[1]):
    n += report.events
"""

_WHERE = """
import maumau_log
print("imported from", maumau_log.__file__, file=sys.stderr)
"""

REPORT = """
import json
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024,
                  "events": n, **({"games": games, "valid": valid, "compiled": compiled}
                                  if "games" in globals() else {})}))
"""


def make_log(games: int, preset: str, players: int, seed: int) -> Path:
    from maumau_log.bots.sim import simulate, write_games

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{preset}_{players}p_{games}g_s{seed}.jsonl"
    if not path.exists():
        t = time.perf_counter()
        with open(path, "wb") as fh:
            write_games(simulate(preset, players, games, seed), fh)
        print(f"simulated {games} games in {time.perf_counter() - t:.1f}s -> {path}")
    return path


def run(code: str, path: Path, env: dict[str, str]) -> dict[str, float]:
    """One whole process; its CPU seconds, wall seconds, peak RSS and counts.

    It runs in :data:`OUT`, which holds no ``maumau_log``: ``python -c`` puts its working
    folder first on ``sys.path``, before ``PYTHONPATH``, so a run started in a checkout
    imported that checkout's code whatever ``env`` said (a "before" row run from the
    project's folder would time this checkout's code, not the baseline's)."""
    t = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-c", code + REPORT + _WHERE, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=OUT,
    )
    where = res.stderr.rsplit("imported from ", 1)[-1].strip()
    if not where.startswith(env["PYTHONPATH"]):
        sys.exit(f"the run imported {where}, not the checkout {env['PYTHONPATH']}")
    doc: dict[str, float] = json.loads(res.stdout.strip().splitlines()[-1])
    doc["wall"] = time.perf_counter() - t
    return doc


def has_jobs(env: dict[str, str]) -> bool:
    """True when the checkout of ``env`` has ``validate --jobs`` (an older baseline, such
    as d203945, has not: it runs on one core)."""
    res = subprocess.run(
        [sys.executable, "-m", "maumau_log", "validate", "--help"],
        capture_output=True, text=True, env=env, cwd=OUT,
    )  # fmt: skip
    return "--jobs" in res.stdout


def run_cli(path: Path, env: dict[str, str]) -> dict[str, float]:
    """``maumau-log validate --jobs 1 FILE`` (without ``--jobs`` where the checkout has no
    such option) as a whole process: its CPU seconds, wall seconds and peak RSS, from its
    own rusage (``os.wait4``: the children's rusage would give the largest child so far,
    which may be an earlier row's process); exit 0 or 1
    (violations) are both a finished run."""
    jobs = ["--jobs", "1"] if has_jobs(env) else []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "maumau_log", "validate", *jobs, str(path)],
            stdout=out, stderr=err, env=env, cwd=OUT,
        )  # fmt: skip
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            err.seek(0)
            sys.exit(f"validate failed ({proc.returncode}): {err.read()[-800:].decode()}")
    cpu = ru.ru_utime + ru.ru_stime
    return {"cpu": cpu, "wall": wall, "rss_mib": ru.ru_maxrss / 1024}


def best(code: str, path: Path, env: dict[str, str], repeat: int) -> dict[str, float]:
    if code == "CLI":
        runs = [run_cli(path, env) for _ in range(repeat)]
        out = min(runs, key=lambda r: r["cpu"])
        out["wall"] = min(r["wall"] for r in runs)
        return out
    runs = [run(code, path, env) for _ in range(repeat)]
    out = min(runs, key=lambda r: r["cpu"])
    out["wall"] = min(r["wall"] for r in runs)
    return out


def env_for(pythonpath: Path, pure: bool) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(pythonpath))
    env.pop("MAUMAU_LOG_PURE_PYTHON", None)
    if pure:
        env["MAUMAU_LOG_PURE_PYTHON"] = "1"
    return env


def make_timed(plain: Path) -> Path:
    """The same games with a ``t`` (epoch milliseconds, 1.5 s apart) on every line, as logs
    of online play carry it: no two lines are equal, so the cache of decoded short lines
    (:data:`maumau_log.replay.driver.DECODED_LINE_BYTES`) finds nothing."""
    path = plain.with_name(plain.stem + "_timed.jsonl")
    if not path.exists():
        t = 1_767_225_600_000  # 2026-01-01T00:00:00Z
        with open(plain, "rb") as src, open(path, "wb") as dst:
            for line in src:
                if line.startswith(b"{"):
                    line = b'{"t":%d,' % t + line[1:]
                    t += 1500
                dst.write(line)
    return path


FLOOR_ORJSON = """
import orjson, resource, sys
decode = orjson.loads
n = 0
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        if line.strip():
            decode(line)
            n += 1
"""

NO_LINE_CACHE = """
import sys
import maumau_log.replay.driver as driver
driver.DECODED_LINES = 0  # no line is kept decoded
from maumau_log.launch import run
sys.argv = ["maumau-log", *sys.argv[1:]]
run()
"""


def run_command(args: list[str], env: dict[str, str], code: str | None = None) -> float:
    """CPU seconds (user + system, from the process's own rusage) of one whole
    ``python -m maumau_log ARGS`` process (or ``python -c CODE ARGS``); exit 0 or 1 are both
    a finished run."""
    head = ["-c", code] if code is not None else ["-m", "maumau_log"]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, *head, *args], stdout=out, stderr=err,
                                env=env, cwd=OUT)  # fmt: skip
        _, status, ru = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            err.seek(0)
            sys.exit(f"{args[0]} failed: {err.read()[-800:].decode()}")
    return ru.ru_utime + ru.ru_stime


def cpu_range(repeat: int, fn: Callable[..., float], *args: Any) -> tuple[float, float]:
    """(least, most) CPU seconds of ``repeat`` runs of ``fn(*args)``."""
    runs = [fn(*args) for _ in range(repeat)]
    return min(runs), max(runs)


def floor_cpu(code: str, path: Path, env: dict[str, str]) -> float:
    """CPU seconds of one decode-floor process."""
    return run(code, path, env)["cpu"]


def ingest_cpu(path: Path, ds: Path, env: dict[str, str]) -> float:
    """CPU seconds of one ``ingest --jobs 1`` into a fresh dataset ``ds``."""
    shutil.rmtree(ds, ignore_errors=True)
    return run_command(["ingest", "--jobs", "1", str(path), "-o", str(ds)], env)


def main() -> None:
    """The table of the targets: per file (plain, timed), the decode floors and the commands
    ``validate --jobs 1`` and ``ingest --jobs 1`` as whole processes, in both builds (and a
    baseline checkout's), CPU seconds as ranges over ``--repeat`` runs."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="a source tree to compare with (before)")
    ap.add_argument("--no-pure", action="store_true", help="skip the pure-Python rows")
    args = ap.parse_args()
    rep = args.repeat
    plain = make_log(args.games, args.preset, args.players, args.seed)
    timed = make_timed(plain)
    trees = [("", ROOT)]
    if args.baseline is not None:
        trees.insert(0, (", before", args.baseline.resolve()))
    builds = [("compiled", False)] + ([] if args.no_pure else [("pure", True)])
    ds = Path(tempfile.mkdtemp(prefix="bench_ingest_"))
    print(f"{args.games:,} games; CPU s, least-most of {rep} whole processes")
    print("| file | run | CPU s | x floor (orjson) | x validate |")
    print("| --- | --- | ---: | ---: | ---: |")
    for label, path in (("plain", plain), ("timed", timed)):
        env = env_for(ROOT, True)
        floor = cpu_range(rep, floor_cpu, FLOOR_ORJSON, path, env)
        msg = cpu_range(rep, floor_cpu, FLOOR, path, env)
        print(f"| {label} | orjson decode, dropped | {floor[0]:.2f}-{floor[1]:.2f} | 1.00 | |")
        print(f"| {label} | msgspec decode, dropped | {msg[0]:.2f}-{msg[1]:.2f} "
              f"| {msg[0] / floor[0]:.2f} | |")  # fmt: skip
        validate = ["validate", "--jobs", "1", str(path)]
        for tag, tree in trees:
            for build, pure in builds:
                env = env_for(tree, pure)
                val = cpu_range(rep, run_command, validate, env)
                print(f"| {label} | validate, {build}{tag} | {val[0]:.2f}-{val[1]:.2f} "
                      f"| {val[0] / floor[0]:.2f} | 1.00 |")  # fmt: skip
                if not tag and build == "compiled":
                    nc = cpu_range(rep, run_command, validate, env, NO_LINE_CACHE)
                    print(f"| {label} | validate, {build}, no line cache | {nc[0]:.2f}-{nc[1]:.2f}"
                          f" | {nc[0] / floor[0]:.2f} | {nc[0] / val[0]:.2f} |")  # fmt: skip
                ing = cpu_range(rep, ingest_cpu, path, ds, env)
                print(f"| {label} | ingest, {build}{tag} | {ing[0]:.2f}-{ing[1]:.2f} "
                      f"| {ing[0] / floor[0]:.2f} | {ing[0] / val[0]:.2f} |")  # fmt: skip
    shutil.rmtree(ds, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
