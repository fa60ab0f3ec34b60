"""Benchmark: the engine alone, on events decoded in memory.

Run by hand (not in the tests):

    python bench/bench_engine_only.py bench/out/classic_4p_20000g_s1.jsonl [ROUNDS]

It reads the file's games with :func:`maumau_log.replay.driver.read_games` (decoded events, no
replay), resolves each game's ruleset once, then times, ``ROUNDS`` times (default 3),
``Engine(...)`` plus ``apply`` of every event of every game, and prints the best CPU time
(``time.process_time``). The garbage collector's view of the kept events is frozen first
(``gc.freeze``), so the time is the engine's. For an A/B run it with ``PYTHONPATH`` set to
each tree, interleaved; ``MAUMAU_LOG_PURE_PYTHON=1`` for the pure build. Rounds of a match
are replayed as lone rounds (the benchmark file has none).

An earlier version read the games by swapping a recorder in for ``replay.Engine``; the
compiled driver calls the compiled engine directly, so that recorded nothing there
("games=0"): the reading now goes through no engine at all.
"""

from __future__ import annotations

import gc
import sys
import time

from maumau_log.engine import COMPILED, Engine, RuleViolation
from maumau_log.events import Event, Game
from maumau_log.replay.driver import read_games
from maumau_log.rules import Ruleset, resolve


def load(path: str) -> list[tuple[Ruleset, Game, list[Event]]]:
    """Every game of ``path`` as (ruleset, header, events after the header)."""
    rules: dict[tuple[str, str], Ruleset] = {}
    games = []
    for _, events in read_games(path):
        header = events[0]
        assert isinstance(header, Game)
        key = (header.ruleset, repr(header.options))
        if key not in rules:
            rules[key] = resolve(header.ruleset, header.options)
        games.append((rules[key], header, events[1:]))
    return games


def main() -> None:
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    games = load(path)
    events = sum(len(evs) for _, _, evs in games)
    gc.collect()
    gc.freeze()
    best = float("inf")
    invalid = 0
    for _ in range(rounds):
        start = time.process_time()
        invalid = 0
        for ruleset, header, evs in games:
            engine = Engine(ruleset, header)
            try:
                for ev in evs:
                    engine.apply(ev)
            except RuleViolation:
                invalid += 1
        best = min(best, time.process_time() - start)
    print(
        f"compiled={COMPILED} games={len(games):,} events={events:,} invalid={invalid} "
        f"engine CPU {best:.3f} s ({events / best:,.0f} events/s), best of {rounds}"
    )


if __name__ == "__main__":
    main()
