"""Benchmark: the engine alone, on events decoded in memory (issue 12, session 5).

Run by hand (not in the tests):

    python bench/bench_engine_only.py bench/out/classic_4p_20000g_s1.jsonl [ROUNDS]

It replays the file once with a recorder in place of the engine (keeping each game's
ruleset, header, match context and decoded events), then times, ``ROUNDS`` times (default
3), ``Engine(...)`` plus ``apply`` of every event of every game, and prints the best CPU
time (``time.process_time``). The garbage collector's view of the kept events is frozen
first (``gc.freeze``), so the time is the engine's. For an A/B run it with
``PYTHONPATH`` set to each tree, interleaved; ``MAUMAU_LOG_PURE_PYTHON=1`` for the pure build.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any, ClassVar

import maumau_log.replay as replay_module
from maumau_log.engine import COMPILED, Engine, RuleViolation
from maumau_log.events import Event


class _Recorder:
    """Stands in for the engine while the file is read: keeps the game's events."""

    games: ClassVar[list[_Recorder]] = []

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.events: list[Event] = []
        self.phase = "finished"
        self.unchecked: set[str] = set()
        self.winner = None
        self.match = None
        _Recorder.games.append(self)

    def apply(self, event: Event) -> None:
        self.events.append(event)

    def __getattr__(self, name: str) -> None:
        return None


def main() -> None:
    path = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    replay_module.Engine = _Recorder  # type: ignore[misc,assignment]
    for _ in replay_module.Replayer().replay_file(path):
        pass
    replay_module.Engine = Engine  # type: ignore[misc]
    games = _Recorder.games
    events = sum(len(g.events) for g in games)
    gc.collect()
    gc.freeze()
    best = float("inf")
    invalid = 0
    for _ in range(rounds):
        start = time.process_time()
        invalid = 0
        for g in games:
            engine = Engine(*g.args)
            try:
                for ev in g.events:
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
