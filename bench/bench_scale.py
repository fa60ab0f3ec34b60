"""Scale benchmark: --jobs 1 vs --jobs 2, Ray local, stats and audit at 10^5+ games.

Simulates the games in parallel (one seeded file per worker, several presets), then runs each
command as a whole process the way a user runs it (``python -m maumau_log ...``) and measures
its wall time and the peak RSS of its largest process (``os.wait4`` rusage: the command and
the workers it waited for), then the dataset's bytes per game.

    python bench/bench_scale.py                 # 10^5 games
    python bench/bench_scale.py --games 1000000 # 10^6 games
    python bench/bench_scale.py --games 5000 --no-ray   # a quick check
    python bench/bench_scale.py --audit-sizes 10000,100000  # audit (facts, replay) per size
    # 10^6 in about 20-25 minutes of a quiet 2-core machine: simulate on 2 workers, ingest
    # --jobs 2, stats, audit from the facts tables; logs and dataset kept for the next run
    python bench/bench_scale.py --games 1000000 --keep /work/bench1m \
        --skip validate1,ingest1,ray,replay
    python bench/bench_scale.py --games 1000000 --reuse /work/bench1m --skip validate1,ingest1,ray
    # the driver's own CPU of a local-Ray ingest against the one-process ingest's CPU, per
    # log (e.g. 4,000 and 40,000 games of ``maumau-log simulate``), 3 times each
    python bench/bench_scale.py --driver-cpu a.jsonl,b.jsonl --repeat 3 [--code CHECKOUT]

The audit runs at --jobs 1 and 2 (and on a local Ray) and its JSON reports are compared
byte for byte (``audit_json_identical``); the step times give the projected core-hours for
10^9 games (``core_hours_for_1e9_games``: linear in the events, every step streams).

Targets: validate and ingest --jobs 2 at least 1.8x the events/s of --jobs 1 on a
2-core machine; --engine ray local within 1.3x the time of --jobs 2 at 10^5 games; audit and
stats over 10^6 games under 2 GiB peak RSS, audit under 60 s, stats under 1 s. A machine
shared with other work makes every figure noisy: compare the ratios of one run.
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PRESETS = ("standard", "classic", "online", "prsi", "crazy-eights")


def _simulate(args: tuple[Path, int, int]) -> tuple[int, int]:
    from maumau_log.bots.sim import simulate, write_games

    path, games, seed = args
    with open(path, "wb") as fh:
        total = (0, 0)
        per = max(1, games // len(PRESETS))
        left = games
        for i, preset in enumerate(PRESETS):
            n = per if i < len(PRESETS) - 1 else left
            left -= n
            g, e = write_games(
                simulate(preset, 2 + (seed + i) % 3, n, seed=seed * 100 + i, id_prefix=preset), fh
            )
            total = (total[0] + g, total[1] + e)
    return total


def simulate_logs(folder: Path, games: int, files: int, jobs: int) -> tuple[int, int]:
    """Write ``games`` games into ``files`` logs, in parallel; (games, events) written."""
    folder.mkdir(parents=True, exist_ok=True)
    per = games // files
    tasks = [
        (folder / f"part-{k:03d}.jsonl", per if k < files - 1 else games - per * (files - 1), k + 1)
        for k in range(files)
    ]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_simulate, tasks))
    return sum(g for g, _ in done), sum(e for _, e in done)


def run_cpu(cmd: list[str]) -> tuple[float, float, float, int]:
    """Run the CLI; (wall s, CPU s, peak RSS in MiB of its largest process, exit code), the
    CPU and RSS from ``os.wait4`` (the process and the workers it waited for)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    # ``python -m maumau_log audit ...`` loads only the audit's command module, and a typer
    # app with a single command runs it without its name: load a second module first
    boot = "import maumau_log.cli.replay_cmds; from maumau_log.cli import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", boot, *cmd],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(err.decode(errors="replace")[-2000:], file=sys.stderr)
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def run(cmd: list[str]) -> tuple[float, float, int]:
    """Run the CLI; (seconds, peak RSS in MiB of its largest process, exit code)."""
    seconds, _, rss, code = run_cpu(cmd)
    return seconds, rss, code


DRIVER_USAGE = "maumau-bench-driver-usage "
"""The line ``--driver-cpu`` runs print on stderr at exit: the process's own CPU and peak
RSS (``RUSAGE_SELF``: the driver alone, not Ray's processes nor the pool's workers), and
its main thread's CPU (``RUSAGE_THREAD``: without the threads Ray runs in the driver,
whose CPU grows with the wall time, so with the machine's load: 1.41-2.32 s for the same
40,000-game ingest at 33-121 s of wall)."""


def run_self_usage(cmd: list[str], code: Path = ROOT) -> dict[str, float]:
    """Run the CLI with ``code`` first on the path; the process's own user+sys CPU seconds
    and peak RSS (MiB) as it reports them at exit, its children's (``os.wait4``: the pool's
    workers, Ray's raylet and workers when they are its children) and the wall time."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    boot = (
        "import atexit, resource, sys\n"
        "def _usage():\n"
        "    u = resource.getrusage(resource.RUSAGE_SELF)\n"
        "    t = resource.getrusage(resource.RUSAGE_THREAD)\n"
        f"    sys.stderr.write('{DRIVER_USAGE}%r %r %r\\n' % (u.ru_utime + u.ru_stime,"
        " u.ru_maxrss / 1024, t.ru_utime + t.ru_stime))\n"
        "atexit.register(_usage)\n"
        "import maumau_log.cli.replay_cmds\n"
        "from maumau_log.cli import main\n"
        "main()\n"
    )
    t0 = time.perf_counter()
    # -P: the current folder is not put first on the path (else it, not ``code``, runs)
    proc = subprocess.Popen([sys.executable, "-P", "-c", boot, *cmd], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    mine = [line for line in err.splitlines() if line.startswith(DRIVER_USAGE)]
    if os.waitstatus_to_exitcode(status) not in (0, 1) or not mine:
        print(err[-2000:], file=sys.stderr)
        raise SystemExit(f"{cmd}: failed")
    cpu, rss, main = (float(x) for x in mine[-1][len(DRIVER_USAGE) :].split())
    everything = usage.ru_utime + usage.ru_stime
    return {"cpu_s": round(cpu, 2), "rss_mib": round(rss), "wall_s": round(wall, 1),
            "main_thread_cpu_s": round(main, 2),
            "with_children_cpu_s": round(everything, 2)}  # fmt: skip


def driver_cpu(logs: list[Path], work: Path, repeat: int, code: Path, jobs: int) -> None:
    """``--driver-cpu``: per log, the one-process ingest (``--jobs 1``: its CPU is all
    the work) and a local-Ray ingest (``--engine ray --jobs N``: the driver's own CPU and
    peak RSS), ``repeat`` times each, into fresh datasets; then the growth of the driver's
    CPU over the growth of the one-process ingest's CPU from the first log to the last
    (the target: at most 0.01)."""
    rows = []
    for log in logs:
        for k in range(repeat):
            for how, extra in (("jobs1", ["--jobs", "1"]),
                               ("ray", ["--engine", "ray", "--jobs", str(jobs)])):  # fmt: skip
                ds = work / f"ds-{how}"
                shutil.rmtree(ds, ignore_errors=True)
                u = run_self_usage(["ingest", str(log), "-o", str(ds), "--no-progress", *extra],
                                   code)  # fmt: skip
                shutil.rmtree(ds, ignore_errors=True)
                rows.append({"log": log.name, "run": k, "how": how, **u})
                print(f"{log.name:<24} {how:<6} run {k}: own CPU {u['cpu_s']:7.2f} s "
                      f"(main thread {u['main_thread_cpu_s']:7.2f} s), "
                      f"peak RSS {u['rss_mib']:5d} MiB, wall {u['wall_s']:6.1f} s",
                      flush=True)  # fmt: skip

    def cpu(log: Path, how: str, key: str = "cpu_s") -> list[float]:
        return [r[key] for r in rows if r["log"] == log.name and r["how"] == how]

    if len(logs) >= 2:
        a, b = logs[0], logs[-1]
        one = min(cpu(b, "jobs1")) - min(cpu(a, "jobs1"))
        for what, key in (("driver CPU", "cpu_s"), ("driver main thread", "main_thread_cpu_s")):
            drv = min(cpu(b, "ray", key)) - min(cpu(a, "ray", key))
            print(f"{what} growth {drv:.2f} s over one-process growth {one:.2f} s: "
                  f"{drv / one:.4f} (least of each)", flush=True)  # fmt: skip
    print(json.dumps(rows, indent=1))


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*.parquet"))


STEPS = ("validate1", "validate2", "ingest1", "ingest2", "ray", "stats", "audit", "replay")
"""Steps of a full run; ``--skip`` leaves some out (``replay``: the audit by replay, the
path of datasets written before the facts tables, for the before/after comparison)."""


def audit_scale(sizes: list[int], work: Path, replay: bool = True) -> None:
    """The audit's wall time and peak RSS at each size (simulated, ingested with --jobs 2),
    from the facts tables and (``replay``) by replaying the stored events, same dataset,
    one after the other: flat RSS is the promise (memory grows with the cells, not the
    games)."""
    rows = []
    for n in sizes:
        logs, ds = work / f"logs-{n}", work / f"ds-{n}"
        if not ds.exists():
            if not logs.exists():
                simulate_logs(logs, n, 4, 2)
            run(["ingest", str(logs), "-o", str(ds), "--jobs", "2", "--no-progress"])
        for how in ("facts", "replay") if replay else ("facts",):
            extra = ["--replay"] if how == "replay" else []
            s, rss, code = run(["audit", str(ds), "--format", "json", "--out",
                                str(work / f"a-{how}.json"), *extra])  # fmt: skip
            rows.append({"games": n, "path": how, "audit_s": round(s, 1),
                         "rss_mib": round(rss), "exit": code})  # fmt: skip
            print(f"audit ({how:<6}) {n:>9,} games {s:8.1f} s  peak RSS {rss:6.0f} MiB  "
                  f"exit {code}", flush=True)  # fmt: skip
        s, rss, code = run(["stats", str(ds), "--format", "csv"])
        rows.append({"games": n, "path": "stats", "s": round(s, 2), "rss_mib": round(rss)})
        print(f"stats          {n:>9,} games {s:8.2f} s  peak RSS {rss:6.0f} MiB", flush=True)
    print(json.dumps(rows, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=8, help="log files (shards of the input)")
    ap.add_argument("--jobs", type=int, default=2, help="simulation workers")
    ap.add_argument("--no-ray", action="store_true", help="skip --engine ray (--skip ray)")
    ap.add_argument("--no-audit", action="store_true", help="skip the audit (--skip audit)")
    ap.add_argument(
        "--skip", default="", help=f"steps to leave out, comma-separated, of: {','.join(STEPS)}"
    )
    ap.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="work in this folder and keep it (logs found there are reused)",
    )
    ap.add_argument(
        "--reuse",
        type=Path,
        default=None,
        help="like --keep, and an ingested dataset found there (ds2) is reused: "
        "ingest --jobs 2 is not run again",
    )
    ap.add_argument("--audit-sizes", default=None,
                    help="only the audit (facts and replay) and stats at these sizes, "
                    "e.g. 10000,100000")  # fmt: skip
    ap.add_argument("--driver-cpu", default=None,
                    help="only the driver's own CPU of a local-Ray ingest and the CPU of "
                    "--jobs 1 for these logs, comma-separated (smallest first)")  # fmt: skip
    ap.add_argument("--repeat", type=int, default=2, help="runs of each --driver-cpu step")
    ap.add_argument("--code", type=Path, default=ROOT,
                    help="the maumau-log checkout to run (before/after comparisons)")  # fmt: skip
    args = ap.parse_args()
    if args.driver_cpu:
        work = Path(tempfile.mkdtemp(prefix="bench-driver-"))
        try:
            logs = [Path(x).resolve() for x in args.driver_cpu.split(",")]
            driver_cpu(logs, work, args.repeat, args.code.resolve(), args.jobs)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    skip = {x for x in args.skip.split(",") if x}
    if skip - set(STEPS):
        ap.error(f"--skip: unknown steps {sorted(skip - set(STEPS))}; the steps: {STEPS}")
    if args.no_ray:
        skip.add("ray")
    if args.no_audit:
        skip |= {"audit", "replay"}
    keep = args.reuse or args.keep
    work = keep or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.audit_sizes:
        try:
            audit_scale([int(x) for x in args.audit_sizes.split(",")], work,
                        replay="replay" not in skip)  # fmt: skip
        finally:
            if keep is None:
                shutil.rmtree(work, ignore_errors=True)
        return
    logs, ds1, ds2, dsr = work / "logs", work / "ds1", work / "ds2", work / "dsray"
    results: dict[str, object] = {"games": args.games, "cores": len(os.sched_getaffinity(0))}
    try:
        t0 = time.perf_counter()
        if not logs.exists():
            games, events = simulate_logs(logs, args.games, args.files, args.jobs)
        else:
            games, events = args.games, 0
        results["simulate_s"] = round(time.perf_counter() - t0, 1)
        if not events:  # logs kept from a previous run
            events = sum(f.read_bytes().count(b"\n") for f in logs.glob("*.jsonl"))
            games = sum(f.read_bytes().count(b'"type":"game"') for f in logs.glob("*.jsonl"))
        results["events"] = events
        results["log_bytes"] = sum(f.stat().st_size for f in logs.glob("*.jsonl"))
        print(f"{games:,} games, {events:,} events in {results['simulate_s']} s", flush=True)

        def measure(name: str, cmd: list[str]) -> float:
            s, rss, code = run(cmd)
            results[name] = {"s": round(s, 2), "rss_mib": round(rss), "exit": code,
                             "events_per_s": round(events / s)}  # fmt: skip
            print(f"{name:<22} {s:8.2f} s  {events / s:>12,.0f} events/s  peak RSS "
                  f"{rss:7.0f} MiB  exit {code}", flush=True)  # fmt: skip
            return s

        def ratio(key: str, a: str, b: str) -> None:
            ra, rb = results.get(a), results.get(b)
            if isinstance(ra, dict) and isinstance(rb, dict):
                results[key] = round(ra["s"] / rb["s"], 2)

        if "validate1" not in skip:
            measure("validate_jobs1", ["validate", str(logs), "--jobs", "1", "--no-progress"])
        if "validate2" not in skip:
            measure("validate_jobs2", ["validate", str(logs), "--jobs", "2", "--no-progress"])
        ratio("validate_speedup", "validate_jobs1", "validate_jobs2")
        if "ingest1" not in skip:
            shutil.rmtree(ds1, ignore_errors=True)
            measure("ingest_jobs1", ["ingest", str(logs), "-o", str(ds1), "--jobs", "1",
                                     "--no-progress"])  # fmt: skip
            shutil.rmtree(ds1, ignore_errors=True)  # only its time is wanted
        reuse = args.reuse is not None and (ds2 / "maumau-dataset.json").exists()
        if "ingest2" not in skip and not reuse:
            shutil.rmtree(ds2, ignore_errors=True)
            measure("ingest_jobs2", ["ingest", str(logs), "-o", str(ds2), "--jobs", "2",
                                     "--no-progress"])  # fmt: skip
        ratio("ingest_speedup", "ingest_jobs1", "ingest_jobs2")
        if "ray" not in skip:
            shutil.rmtree(dsr, ignore_errors=True)
            measure("ingest_ray_local", ["ingest", str(logs), "-o", str(dsr), "--engine",
                                         "ray", "--jobs", "2", "--no-progress"])  # fmt: skip
            shutil.rmtree(dsr, ignore_errors=True)
            ratio("ray_over_jobs2", "ingest_ray_local", "ingest_jobs2")
        if ds2.exists():
            results["bytes_per_game"] = round(dir_bytes(ds2) / games)
            if "stats" not in skip:
                measure("stats", ["stats", str(ds2), "--format", "csv"])
            if "audit" not in skip:
                outs = []
                for j in ("1", "2"):
                    out = work / f"audit-j{j}.json"
                    measure(f"audit_jobs{j}", ["audit", str(ds2), "--format", "json",
                                               "--jobs", j, "--out", str(out)])  # fmt: skip
                    outs.append(out.read_bytes())
                if "ray" not in skip:
                    out = work / "audit-ray.json"
                    measure("audit_ray_local", ["audit", str(ds2), "--format", "json",
                                                "--engine", "ray", "--jobs", "2",
                                                "--out", str(out)])  # fmt: skip
                    outs.append(out.read_bytes())
                results["audit_json_identical"] = all(o == outs[0] for o in outs)
                ratio("audit_speedup", "audit_jobs1", "audit_jobs2")
            if "replay" not in skip:
                measure("audit_replay", ["audit", str(ds2), "--format", "json", "--replay"])
        project(results, games, events)
        print(json.dumps(results, indent=1))
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def project(results: dict[str, object], games: int, events: int, target: int = 10**9) -> None:
    """Core-hours for ``target`` games from each measured step's events/s (linear in the
    events: every step streams, its memory flat), the step's processes counted as cores."""
    per_game = events / games
    cores = {
        "validate_jobs1": 1,
        "validate_jobs2": 2,
        "ingest_jobs1": 1,
        "ingest_jobs2": 2,
        "ingest_ray_local": 2,
        "audit_jobs1": 1,
        "audit_jobs2": 2,
        "audit_ray_local": 2,
    }
    out = {}
    for name, n in cores.items():
        r = results.get(name)
        if isinstance(r, dict) and r.get("events_per_s"):
            out[name] = round(target * per_game / r["events_per_s"] * n / 3600, 1)
    results["core_hours_for_1e9_games"] = out


if __name__ == "__main__":
    main()
