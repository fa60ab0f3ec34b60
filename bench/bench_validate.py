"""Benchmark: validation cost against plain JSON parsing (issue 2 "Done when").

Run by hand (not in the tests):

    python bench/bench_validate.py --games 20000

It simulates a large log (cached under bench/out/), then times, on the same file:
1. reading the lines and parsing each with ``json.loads`` (the floor a user would pay);
2. ``maumau_log.replay.Replayer`` over the file (decode + schema shape + full rules replay);
and measures peak memory of the replay at two sizes to show it is flat in the number of
games (the replay keeps one game's state at a time).

Target: validation at most 3 times the cost of parsing the JSON alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"


def make_log(games: int, preset: str, players: int, seed: int) -> Path:
    from maumau_log.sim import simulate, write_games

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{preset}_{players}p_{games}g_s{seed}.jsonl"
    if not path.exists():
        t = time.perf_counter()
        with open(path, "wb") as fh:
            write_games(simulate(preset, players, games, seed), fh)
        print(f"simulated {games} games in {time.perf_counter() - t:.1f}s -> {path}")
    return path


def time_json(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    n = 0
    with open(path, "rb") as fh:
        for line in fh:
            if line.strip():
                json.loads(line)
                n += 1
    return time.perf_counter() - t, n


def time_validate(path: Path) -> tuple[float, int, int]:
    from maumau_log.replay import Replayer

    t = time.perf_counter()
    games = valid = 0
    for report in Replayer().replay_file(path):
        games += 1
        valid += report.valid
    return time.perf_counter() - t, games, valid


def peak_rss_mb(path: Path) -> float:
    """Peak RSS of a fresh process that validates ``path`` (MiB)."""
    code = (
        "import resource,sys\n"
        "from maumau_log.replay import Replayer\n"
        "for r in Replayer().replay_file(sys.argv[1]): pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    return int(res.stdout.strip()) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--preset", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    path = make_log(args.games, args.preset, args.players, args.seed)
    small = make_log(max(args.games // 4, 1), args.preset, args.players, args.seed + 1)
    size_mb = path.stat().st_size / 2**20
    t_json = min(time_json(path)[0] for _ in range(args.repeat))
    _, n_events = time_json(path)
    runs = [time_validate(path) for _ in range(args.repeat)]
    t_val = min(r[0] for r in runs)
    games, valid = runs[0][1], runs[0][2]
    rss_small, rss_big = peak_rss_mb(small), peak_rss_mb(path)
    print(f"file: {path.name}: {games} games, {n_events} events, {size_mb:.1f} MiB")
    print(f"json.loads only : {t_json:6.2f}s  {n_events / t_json:10,.0f} events/s")
    print(
        f"validate        : {t_val:6.2f}s  {n_events / t_val:10,.0f} events/s  "
        f"({valid}/{games} valid)"
    )
    print(f"ratio validate / parse: {t_val / t_json:.2f} (target <= 3)")
    print(
        f"peak RSS: {rss_small:.0f} MiB for {args.games // 4} games, "
        f"{rss_big:.0f} MiB for {args.games} games"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
