"""The audit at archive scale: peak RSS, CPU and wall time at ``--jobs 1`` and ``--jobs 2``
for growing prefixes of one log (same players, same ruleset), and whether the JSON reports
of the two are the same bytes.

The audit is map-reduce (``maumau_log.audit.parts``): a worker holds one part (about 10,000
games), the driver holds counts per player, pair and ruleset; so the peak RSS must not grow
with the games. Targets: RSS at 2x10^5 games at most 1.3 times that at 5x10^4 and under
1 GiB, the same at 10^6; ``--jobs 2`` at least 1.6 times the speed of ``--jobs 1`` at 10^6.

Make the log once (classic, 4 players: about 380 bytes per game compressed)::

    maumau-log simulate --ruleset classic --players 4 --games 1000000 --jobs 2 \\
        --seed 7 --out /work/bench1m/classic-1m.jsonl.zst
    maumau-log ingest /work/bench1m/classic-1m.jsonl.zst --out /work/bench1m/ds --jobs 2

then::

    python bench/bench_audit_scale.py --log /work/bench1m/classic-1m.jsonl.zst \\
        --work /work/bench1m --full-dataset /work/bench1m/ds --sizes 50000,200000,1000000

Smaller sizes are cut from the front of the log (whole games) and ingested with
``--jobs 2`` into ``WORK/ds-N`` (kept for the next run). Each command runs as a whole
process; its CPU seconds and peak RSS come from ``os.wait4`` (the process and the workers
it waited for; the RSS of the largest one). Run on a quiet machine and repeat (``--repeat``).
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from bench_scale import run_cpu  # the scripts run from bench/, beside each other

ROOT = Path(__file__).resolve().parent.parent


def cut_games(log: Path, games: int, out: Path) -> None:
    """Write the first ``games`` games of ``log`` (.jsonl.zst) to ``out`` (.jsonl.zst)."""
    import zstandard

    seen = 0
    with open(log, "rb") as raw, open(out, "wb") as dst:
        reader = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw))
        with zstandard.ZstdCompressor(level=3).stream_writer(dst) as writer:
            for line in reader:
                if line.startswith(b'{"type":"game"'):
                    seen += 1
                    if seen > games:
                        break
                writer.write(line)


def run(cmd: list[str]) -> tuple[float, float, float, int]:
    """Run ``maumau-log CMD``; (wall s, CPU s, peak RSS MiB, exit code)."""
    return run_cpu(cmd)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log", type=Path, required=True, help="the whole log (.jsonl.zst)")
    ap.add_argument("--work", type=Path, required=True, help="folder for cut logs, datasets")
    ap.add_argument("--sizes", default="50000,200000,1000000")
    ap.add_argument("--full-dataset", type=Path, help="the dataset of the whole log")
    ap.add_argument("--full-games", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", default="1,2")
    args = ap.parse_args()
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        if n == args.full_games and args.full_dataset is not None:
            ds = args.full_dataset
        else:
            ds = args.work / f"ds-{n}"
            if not ds.exists():
                cut = args.work / f"classic-{n}.jsonl.zst"
                if not cut.exists():
                    cut_games(args.log, n, cut)
                run(["ingest", str(cut), "--out", str(ds), "--jobs", "2", "--no-progress"])
        reports: dict[str, bytes] = {}
        for jobs in args.jobs.split(","):
            best: tuple[float, float, float, int] | None = None
            for _ in range(args.repeat):
                out = args.work / f"audit-{n}-j{jobs}.json"
                r = run(["audit", str(ds), "--format", "json", "--out", str(out), "-j", jobs])
                best = r if best is None or r[1] < best[1] else best
                reports[jobs] = out.read_bytes()
            assert best is not None
            wall, cpu, rss, code = best
            rows.append((n, jobs, wall, cpu, rss, code))
            print(f"audit {n:>9,} games --jobs {jobs}: {wall:7.1f} s wall {cpu:7.1f} s CPU "
                  f"peak RSS {rss:6.0f} MiB exit {code}", flush=True)  # fmt: skip
        same = len(set(reports.values())) == 1
        print(f"  JSON reports of --jobs {args.jobs}: {'identical' if same else 'DIFFER'}")
    print("\n| games | --jobs | wall s | CPU s | peak RSS MiB |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for n, jobs, wall, cpu, rss, _ in rows:
        print(f"| {n:,} | {jobs} | {wall:.1f} | {cpu:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
