"""Simulated seasons: a pool of players meeting at random tables.

A season tests the audit's bot-likeness test: every player of the pool plays one policy
(by default the "club player" :class:`~maumau_log.bots.policies.MixedPolicy`, greedy half
the time and random otherwise), and a *planted* player may play the Monte Carlo bot instead.
Each round seats ``table`` players drawn from the pool; logs are full-information with fair
shuffle headers, like :func:`maumau_log.bots.sim.simulate`'s.

Seeds: round g is played from ``random.Random("season:{seed}:{g}")`` and the planted Monte
Carlo bot from its own seed per round, so a season is repeatable round by round.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping

from ..events import Event
from ..rules import resolve
from .ladder import hash_seed
from .mc import MonteCarloPolicy
from .policies import MixedPolicy
from .sim import fair_shuffle
from .table import BotTable, Policy, make_header

PolicyFactory = Callable[[int], Policy]
"""Makes a player's policy for one round, from a seed."""


def season(
    ruleset: str,
    pool: Mapping[str, PolicyFactory],
    games: int,
    seed: int,
    table: int = 2,
    weights: Mapping[str, float] | None = None,
) -> Iterator[list[Event]]:
    """Play ``games`` rounds among the players of ``pool``.

    Args:
        ruleset: a preset name.
        pool: player name to a factory of its policy (called once per round with a seed).
        games: rounds.
        seed: the season's seed.
        table: players per round (at most the pool's size).
        weights: how often each player sits down (default 1 each): seats are drawn one by
            one with chances proportional to the weights of those not yet seated.
    Yields:
        One round's events per game (header first, ``round_end`` last).
    Raises:
        ValueError: a table larger than the pool or smaller than 2.
    """
    names = sorted(pool)
    if not 2 <= table <= len(names):
        raise ValueError(f"a table of {table} from a pool of {len(names)}")
    rules = resolve(ruleset)
    for g in range(games):
        key = f"season:{seed}:{g}"
        rng = random.Random(key)
        left = list(names)
        seats: list[str] = []
        while len(seats) < table:
            w = [weights.get(p, 1.0) if weights else 1.0 for p in left]
            x = rng.random() * sum(w)
            i = 0
            while i < len(left) - 1 and x >= w[i]:
                x -= w[i]
                i += 1
            seats.append(left.pop(i))
        policies = {p: pool[p](hash_seed(key, i)) for i, p in enumerate(seats)}
        header = make_header(
            rules, f"season-{seed}-{g:06d}", seats, seats[-1], fair_shuffle(rng),
            {"engine": "maumau-log season", "seed": seed},
        )  # fmt: skip
        t = BotTable.new_round(rules, header, policies, rng)
        t.play_round()
        yield t.events


def club_pool(
    players: int, planted: str | None = None, rollouts: int = 8, greedy: float = 0.5
) -> dict[str, PolicyFactory]:
    """A pool of ``players`` club players ``c01``, ``c02``, ...; ``planted`` (if given, one
    more name) plays the Monte Carlo bot with ``rollouts`` per alternative."""
    pool: dict[str, PolicyFactory] = {
        f"c{i + 1:02d}": (lambda _s: MixedPolicy(greedy)) for i in range(players)
    }
    if planted is not None:
        pool[planted] = lambda s: MonteCarloPolicy(rollouts=rollouts, seed=s)
    return pool
