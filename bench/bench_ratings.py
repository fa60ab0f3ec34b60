"""Time the ratings over 10^6 rounds: the ranking (Polars) and the rating loop.

Builds ``games`` and ``results`` tables of N rounds in memory (the dataset's columns, a
pool of 2,000 players, 2 to 4 per round, one winner, random cards left), then times

1. :func:`maumau_log.stats.ratings.round_contests` (the ranking rule, time order);
2. :func:`maumau_log.stats.ratings.rate` with the Plackett-Luce fast path;
3. openskill's own ``PlackettLuce.rate`` on the first 20,000 rounds (per round, to
   compare), and ``--model thurstone-mosteller`` likewise.

Usage: ``python bench/bench_ratings.py [N]`` (default 1,000,000).
"""

from __future__ import annotations

import sys
import time

import numpy as np
import polars as pl

from maumau_log.stats.ratings import rate, ratings_frame, round_contests


def tables(n: int, seed: int = 1) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """``games`` and ``results`` of ``n`` valid classic rounds."""
    rng = np.random.default_rng(seed)
    seats = rng.integers(2, 5, n)
    game = np.repeat(np.arange(n), seats)
    first = np.concatenate(([0], np.cumsum(seats)[:-1]))
    seat = np.arange(len(game)) - np.repeat(first, seats)
    ids = pl.Series(game).cast(pl.String).str.zfill(8)
    minutes = pl.Series(np.arange(n) * 60_000_000, dtype=pl.Int64)
    started = pl.Series(np.full(n, 1_767_225_600_000_000), dtype=pl.Int64) + minutes
    games = pl.DataFrame(
        {
            "game_id": pl.Series(np.arange(n)).cast(pl.String).str.zfill(8),
            "valid": np.ones(n, dtype=bool),
            "ruleset": ["classic"] * n,
            "date": ["2026-01-01"] * n,
            "options": pl.Series([None] * n, dtype=pl.String),
            "started_at": started.cast(pl.Datetime("us", "UTC")).dt.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    )
    results = pl.DataFrame(
        {
            "game_id": ids,
            "player": pl.Series(rng.integers(0, 2000, len(game))).cast(pl.String),
            "valid": np.ones(len(game), dtype=bool),
            "won": seat == 0,
            "cards_left": np.where(seat == 0, 0, rng.integers(1, 8, len(game))).astype(np.int32),
            "points_left": np.where(seat == 0, 0, rng.integers(1, 60, len(game))),
        }
    )
    return games.lazy(), results.lazy()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    games, results = tables(n)
    t0, c0 = time.perf_counter(), time.process_time()
    contests = round_contests(games, results)
    t1, c1 = time.perf_counter(), time.process_time()
    rated = rate(contests)
    board = ratings_frame(rated)
    t2, c2 = time.perf_counter(), time.process_time()
    print(f"{n:,} rounds, {contests.height:,} player rows, {board.height:,} ratings")
    print("(wall clock, then CPU time of the process: on a shared machine the CPU time")
    print(" is what one free core would take; Polars may use several threads)")
    print(f"ranking and time order (Polars):  {t1 - t0:6.2f} s wall {c1 - c0:6.2f} s CPU")
    print(f"rating loop (fast Plackett-Luce): {t2 - t1:6.2f} s wall {c2 - c1:6.2f} s CPU")
    print(f"total:                            {t2 - t0:6.2f} s wall {c2 - c0:6.2f} s CPU")
    small = contests.filter(pl.col("contest") < f"{20_000:08d}")
    rounds = small.get_column("contest").n_unique()
    for model in ("plackett-luce", "thurstone-mosteller"):
        import maumau_log.stats.ratings as r

        saved = r.fast_path_agrees
        r.fast_path_agrees = lambda m: False  # openskill's own rate, every round
        t = time.process_time()
        rate(small, model)
        dt = time.process_time() - t
        r.fast_path_agrees = saved
        print(
            f"openskill {model} rate: {dt / rounds * 1e6:6.1f} µs per round (CPU) "
            f"({dt / rounds * n:5.0f} s for {n:,})"
        )
    t = time.process_time()
    rate(small)
    dt = time.process_time() - t
    print(f"fast Plackett-Luce:       {dt / rounds * 1e6:6.1f} µs per round (CPU)")


if __name__ == "__main__":
    main()
