"""Benchmark: validation against the decode-only floor, pure Python and compiled.

Run by hand (not in the tests):

    python bench/bench_validate.py --games 20000 [--baseline DIR]

It simulates one log (cached under bench/out/; 20,000 classic games for four players, dealt by
the provably fair shuffle, so validation also recomputes every deal from its seed) and then
times, in one run on that one file, each as a whole process (``python -c``, imports
included, as a user runs ``validate``):

1. the decode-only floor: ``msgspec.json.decode`` of every line, each result discarded at
   once (keeping a million parsed lines alive would measure the garbage collector);
2. ``Replayer().replay_file`` with the engine in pure Python (``MAUMAU_LOG_PURE_PYTHON=1``);
3. the same with the compiled engine (when ``maumau_log.engine.COMPILED``);
4. the replay driver alone (reading, decoding, per-game bookkeeping; ``Engine.apply`` a
   no-op), the floor any engine speed-up meets (and the baseline's driver with
   ``--baseline``);
5. the command a user runs, ``maumau-log validate --jobs 1 FILE`` (one core; the
   build there is: compiled when present), as a whole process: start-up (typer, rich),
   the shard plan, ``run_shard`` with its per-line content digest, and the summary;
6. optionally a baseline source tree (``--baseline DIR``, e.g. the commit before the engine package
   unpacked with ``git archive``), for a before/after in the same run.

Per core means CPU time (user + system of the child process): on a shared machine the wall
time also counts other processes. Each measurement is the best of ``--repeat`` runs. Peak
RSS of validate is measured at a quarter of the games and at all of them (flat in games).

Targets: compiled validate >= 600,000 events/s on one core, within 5x of the
floor; pure Python >= 1.5x the single-module engine (d203945).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
core.Engine.apply = lambda self, event: None  # the replay driver alone (pure build only)
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
    imported that checkout's code whatever ``env`` said (in earlier versions every "before"
    replay row run from the project's folder timed this checkout's code, not the
    baseline's)."""
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
    """True when the checkout of ``env`` has ``validate --jobs`` (a baseline from before
    the parallel runners, such as d203945, the single-module engine, has not: it runs on
    one core)."""
    res = subprocess.run(
        [sys.executable, "-m", "maumau_log", "validate", "--help"],
        capture_output=True, text=True, env=env, cwd=OUT,
    )  # fmt: skip
    return "--jobs" in res.stdout


def run_cli(path: Path, env: dict[str, str]) -> dict[str, float]:
    """``maumau-log validate --jobs 1 FILE`` (without ``--jobs`` where the checkout has no
    such option) as a whole process: its CPU seconds, wall seconds and peak RSS, from its
    own rusage (``os.wait4``: the children's rusage would give the largest child so far,
    which earlier versions reported the baseline's peak on this row); exit 0 or 1
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="a source tree to compare with (before)")
    args = ap.parse_args()
    path = make_log(args.games, args.preset, args.players, args.seed)
    small = make_log(max(args.games // 4, 1), args.preset, args.players, args.seed + 1)
    size_mb = path.stat().st_size / 2**20

    rows: list[tuple[str, dict[str, float], dict[str, float] | None]] = []
    floor = best(FLOOR, path, env_for(ROOT, True), args.repeat)
    rows.append(("decode only (msgspec)", floor, None))
    if args.baseline is not None:
        env = env_for(args.baseline.resolve(), True)
        rows.append(("validate, before", best(VALIDATE, path, env, args.repeat), None))
    pure_env = env_for(ROOT, True)
    driver = best(DRIVER, path, pure_env, args.repeat)
    driver_before = None
    # the driver row needs the engine package (an older baseline has a single engine.py)
    if args.baseline is not None and (args.baseline / "maumau_log/engine/core.py").exists():
        driver_before = best(DRIVER, path, env_for(args.baseline.resolve(), True), args.repeat)
    rows.append(("validate, pure Python", best(VALIDATE, path, pure_env, args.repeat), None))
    compiled_env = env_for(ROOT, False)
    compiled = best(VALIDATE, path, compiled_env, args.repeat)
    if compiled.get("compiled"):
        rows.append(("validate, compiled", compiled, None))
    else:
        print("(no compiled build here: python hatch_build.py builds it)")
    # peak memory at a quarter of the games, same builds
    with_small: list[tuple[str, dict[str, float], dict[str, float] | None]] = []
    for name, doc, _ in rows[1:]:
        env = pure_env if "compiled" not in name else compiled_env
        if "before" in name and args.baseline is not None:
            env = env_for(args.baseline.resolve(), True)
        with_small.append((name, doc, run(VALIDATE, small, env)))
    rows = rows[:1] + with_small

    rows.insert(1, ("replay driver, engine a no-op", driver, None))
    if driver_before is not None:
        rows.insert(1, ("replay driver, engine a no-op, before", driver_before, None))
    if args.baseline is not None:
        base_cli = best("CLI", path, env_for(args.baseline.resolve(), False), args.repeat)
        rows.append(("maumau-log validate --jobs 1, before", base_cli, None))
    cli = best("CLI", path, compiled_env, args.repeat)
    rows.append(("maumau-log validate --jobs 1", cli, None))
    n = int(floor["events"])
    print(f"file: {path.name}: {n:,} events, {size_mb:.1f} MiB; best of {args.repeat}")
    print(
        f"| run | CPU s | wall s | events/s (CPU) | x floor time | peak RSS {args.games // 4:,}"
        f" / {args.games:,} games |"
    )
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for name, doc, small_doc in rows:
        rate = n / doc["cpu"]
        ratio = doc["cpu"] / floor["cpu"]
        rss = (f"{small_doc['rss_mib']:.0f} / {doc['rss_mib']:.0f} MiB" if small_doc
               else f"{doc['rss_mib']:.0f} MiB")  # fmt: skip
        print(
            f"| {name} | {doc['cpu']:.2f} | {doc['wall']:.2f} | {rate:,.0f} | {ratio:.2f} | {rss} |"
        )
        if "games" in doc and doc["valid"] != doc["games"]:
            print(f"  ({int(doc['valid'])}/{int(doc['games'])} valid: the builds disagree?)")
    names = [r[0] for r in rows]
    if "validate, pure Python" in names and "validate, before" in names:
        before = rows[names.index("validate, before")][1]["cpu"]
        pure = rows[names.index("validate, pure Python")][1]["cpu"]
        print(f"pure Python vs before: {before / pure:.2f}x (target >= 1.5x)")
        if "validate, compiled" in names:
            comp = rows[names.index("validate, compiled")][1]["cpu"]
            print(f"compiled vs before: {before / comp:.2f}x; compiled vs pure: {pure / comp:.2f}x")
    cli_name = "maumau-log validate --jobs 1"
    if cli_name in names and cli_name + ", before" in names:
        cli_before = rows[names.index(cli_name + ", before")][1]["cpu"]
        cli_now = rows[names.index(cli_name)][1]["cpu"]
        print(f"validate command, now vs before: {cli_before / cli_now:.2f}x (target about 4x)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
