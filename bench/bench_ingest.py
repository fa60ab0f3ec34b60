"""Ingest and stats benchmark; run by hand, not by the tests.

    python bench/bench_ingest.py --games 20000

Simulates ``--games`` classic games for four players (cached in ``bench/out/``), ingests them
into a fresh dataset, and reports:

- ingest speed in events per second (one process, one core);
- bytes on disk per game for ``games`` + ``results`` (and for ``events``);
- the time of the ``stats`` leaderboard over the dataset (Polars, lazy scan);
- the same leaderboard's core figures computed by DuckDB straight from the JSON lines, for
  comparison (DuckDB is a bench-only dependency: ``pip install duckdb``), and whether the
  two agree on games and wins per player.

Targets: ingest >= 100,000 events/s; stats over 200,000 games < 1 s; <= 150 bytes per game
for games + results.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.stats.players import filter_results, player_stats  # noqa: E402
from maumau_log.store import iter_files, scan  # noqa: E402


def make_log(games: int, seed: int) -> Path:
    """The simulated log for ``games`` games, generated once and cached."""
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    path = out / f"classic4-{games}-{seed}.jsonl"
    if not path.exists():
        t0 = time.perf_counter()
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            n_games, n_events = write_games(simulate("classic", 4, games, seed), fh)
        tmp.rename(path)
        dt = time.perf_counter() - t0
        print(f"simulated {n_games} games, {n_events} events in {dt:.1f} s", file=sys.stderr)
    return path


def duckdb_stats(log: Path) -> tuple[float, dict[str, tuple[int, int]]]:
    """A leaderboard's core figures by DuckDB over the raw JSON lines.

    Per player: games, wins, mean cards left (from round_end.hands), cards drawn per game
    and cards played per game. Returns (seconds, player -> (games, wins)).
    """
    import duckdb

    con = duckdb.connect()
    sql = f"""
    WITH raw AS (
        SELECT * FROM read_json('{log}', format='newline_delimited',
            columns={{type: 'VARCHAR', game_id: 'VARCHAR', player: 'VARCHAR',
                     players: 'VARCHAR[]', cards: 'VARCHAR[]', winner: 'VARCHAR',
                     hands: 'MAP(VARCHAR, VARCHAR[])'}})
    ),
    numbered AS (  -- carry the game id down to every event of the game
        SELECT *, sum(CASE WHEN type = 'game' THEN 1 ELSE 0 END)
               OVER (ROWS UNBOUNDED PRECEDING) AS g
        FROM raw
    ),
    seats AS (
        SELECT g, unnest(players) AS player FROM numbered WHERE type = 'game'
    ),
    ends AS (
        SELECT g, winner, hands FROM numbered WHERE type = 'round_end'
    ),
    acts AS (
        SELECT g, player,
               sum(CASE WHEN type = 'play' THEN len(cards) ELSE 0 END) AS played,
               sum(CASE WHEN type = 'draw' THEN len(cards) ELSE 0 END) AS drawn
        FROM numbered WHERE type IN ('play', 'draw') GROUP BY g, player
    )
    SELECT s.player,
           count(*) AS games,
           sum(CASE WHEN e.winner = s.player THEN 1 ELSE 0 END) AS wins,
           avg(len(e.hands[s.player])) AS avg_cards_left,
           avg(coalesce(a.drawn, 0)) AS draws_per_game,
           avg(coalesce(a.played, 0)) AS played_per_game
    FROM seats s JOIN ends e USING (g)
    LEFT JOIN acts a ON a.g = s.g AND a.player = s.player
    GROUP BY s.player ORDER BY wins DESC
    """
    t0 = time.perf_counter()
    rows = con.execute(sql).fetchall()
    dt = time.perf_counter() - t0
    return dt, {r[0]: (int(r[1]), int(r[2])) for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-duckdb", action="store_true")
    args = ap.parse_args()

    log = make_log(args.games, args.seed)
    dataset = HERE / "out" / f"ds-{args.games}"
    shutil.rmtree(dataset, ignore_errors=True)

    from maumau_log.replay.driver import Replayer

    t0 = time.perf_counter()
    replayed = sum(r.events for r in Replayer().replay_paths([log]))
    replay_rate = replayed / (time.perf_counter() - t0)

    summary = ingest([log], dataset)
    rate = summary.events / summary.seconds
    sizes: dict[str, int] = {}
    for table, path in iter_files(dataset):
        sizes[table] = sizes.get(table, 0) + os.path.getsize(path)
    per_game = (sizes.get("games", 0) + sizes.get("results", 0)) / summary.games

    t0 = time.perf_counter()
    board = player_stats(filter_results(scan(dataset, "results"))).collect()
    stats_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    board = player_stats(filter_results(scan(dataset, "results"))).collect()
    stats_warm = time.perf_counter() - t0
    ours = {r["player"]: (r["games"], r["wins"]) for r in board.to_dicts()}

    report: dict[str, object] = {
        "games": summary.games,
        "events": summary.events,
        "log_bytes": log.stat().st_size,
        "ingest_seconds": round(summary.seconds, 2),
        "ingest_events_per_s": round(rate),
        "replay_only_events_per_s": round(replay_rate),
        "bytes_per_game_games_results": round(per_game, 1),
        "bytes_per_game_games": round(sizes.get("games", 0) / summary.games, 1),
        "bytes_per_game_results": round(sizes.get("results", 0) / summary.games, 1),
        "bytes_per_game_events": round(sizes.get("events", 0) / summary.games, 1),
        "bytes_per_event_events": round(sizes.get("events", 0) / summary.events, 2),
        "stats_seconds_first": round(stats_s, 3),
        "stats_seconds_warm": round(stats_warm, 3),
    }
    if not args.no_duckdb:
        duck_s, duck = duckdb_stats(log)
        report["duckdb_stats_seconds_raw_jsonl"] = round(duck_s, 3)
        report["duckdb_agrees_games_wins"] = duck == ours
    print(json.dumps(report, indent=1))
    print(board)


if __name__ == "__main__":
    main()
