"""The strength ladder: bots against each other.

For every ordered pair (``bot``, ``opponent``) of different bots, :func:`ladder` plays
``games`` rounds at a table of ``players``: one seat is ``bot``, every other seat an
``opponent``. The bot's seat rotates (game g puts it in seat ``g mod players``) and the
dealer is always the last seat, so seat 1 plays first (under ``first_player = "left"``) and
every seat holds the bot equally often: the *seat effect* (wins by seat) is measured free of
the bots' strength. A pairing's ``win_rate`` is the share of its games the bot won (a round
without a winner counts as not won), with a 95% Wilson score interval (scipy's
``binomtest(...).proportion_ci(method="wilson")``); a fair share is ``1 / players``.

Seeds: game g of a pairing is played from ``random.Random("ladder:{seed}:{ruleset}:{bot}:
{opponent}:{g}")`` (Python seeds a string through SHA-512: the same everywhere), which also
seeds the header's fair shuffle and each Monte Carlo bot; so every figure is reproducible
from ``(ruleset, players, games, seed, rollouts)``, whatever ``jobs`` says.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy import stats as sps

from ..rules import resolve
from . import BOTS, make_policy
from .mc import DEFAULT_ROLLOUTS
from .sim import fair_shuffle
from .table import BotTable, make_header


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of ``k`` successes in ``n`` trials (``(0, 1)`` for 0)."""
    if n <= 0:
        return (0.0, 1.0)
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (float(ci.low), float(ci.high))


@dataclass
class SeatRow:
    """Wins by seat (1 = first to play): ``games`` played there, ``wins`` by whoever sat
    there, the win rate and its 95% Wilson interval."""

    seat: int
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float


@dataclass
class Pairing:
    """One pairing of the ladder (the ``--json`` list holds these).

    Attributes:
        bot, opponent: the bots' names (``random``, ``greedy``, ``mc``).
        games: rounds played; wins: rounds the bot won; no_winner: rounds nobody won.
        win_rate, ci_low, ci_high: the bot's share of wins and its 95% Wilson interval.
        fair_share: ``1 / players``.
        by_seat: the bot's wins by its seat (:class:`SeatRow`).
        seats: the winner's seat over the pairing's games, whoever won (the seat effect).
        ruleset, players, seed, rollouts: what reproduces the figures.
    """

    bot: str
    opponent: str
    games: int
    wins: int
    no_winner: int
    win_rate: float
    ci_low: float
    ci_high: float
    fair_share: float
    ruleset: str
    players: int
    seed: int
    rollouts: int
    by_seat: list[SeatRow] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def play_game(
    ruleset: str, players: int, bot: str, opponent: str, g: int, seed: int, rollouts: int
) -> tuple[int, int | None]:
    """Play game ``g`` of a pairing.

    Returns:
        ``(bot_seat, winner_seat)``: seats counted from 0, the winner's None without one.
    """
    rules = resolve(ruleset)
    key = f"ladder:{seed}:{ruleset}:{bot}:{opponent}:{g}"
    rng = random.Random(key)
    names = [f"p{i + 1}" for i in range(players)]
    bot_seat = g % players
    policies = {
        p: make_policy(
            bot if i == bot_seat else opponent, seed=hash_seed(key, i), rollouts=rollouts
        )
        for i, p in enumerate(names)
    }
    header = make_header(
        rules, f"ladder-{seed}-{bot}-{opponent}-{g:05d}", names, names[-1], fair_shuffle(rng),
        {"engine": "maumau-log bots ladder", "seed": seed},
    )  # fmt: skip
    table = BotTable.new_round(rules, header, policies, rng)
    result = table.play_round()
    return bot_seat, (names.index(result.winner) if result.winner is not None else None)


def hash_seed(key: str, i: int) -> int:
    """A repeatable integer seed from a text key and a seat (SHA-512 through ``random``)."""
    return int(random.Random(f"{key}/{i}").random() * (1 << 53))


def _play_chunk(
    args: tuple[str, int, str, str, list[int], int, int],
) -> list[tuple[int, int | None]]:
    ruleset, players, bot, opponent, gs, seed, rollouts = args
    return [play_game(ruleset, players, bot, opponent, g, seed, rollouts) for g in gs]


def _rows(counts: Sequence[tuple[int, int]]) -> list[SeatRow]:
    out = []
    for seat, (n, k) in enumerate(counts, start=1):
        lo, hi = wilson(k, n)
        out.append(SeatRow(seat, n, k, k / n if n else 0.0, lo, hi))
    return out


def ladder(
    ruleset: str,
    players: int,
    games: int,
    seed: int = 0,
    bots: Sequence[str] = BOTS,
    rollouts: int = DEFAULT_ROLLOUTS,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[Pairing]:
    """Play the ladder.

    Args:
        ruleset: a preset name.
        players: seats at the table (2 or more).
        games: rounds per pairing.
        seed: the ladder's seed.
        bots: the bots to pair (default all three).
        rollouts: the Monte Carlo bot's rollouts per alternative.
        jobs: worker processes (the figures do not depend on it).
        progress: called with the number of games just finished.
    Returns:
        One :class:`Pairing` per ordered pair of different bots.
    Raises:
        RulesetError: unknown preset; ValueError: bad counts or an unknown bot.
    """
    if players < 2 or games < 1:
        raise ValueError("players must be at least 2 and games at least 1")
    for b in bots:
        make_policy(b)
    resolve(ruleset)
    pairs = [(b, o) for b in bots for o in bots if b != o]
    chunk = max(1, min(25, games // max(1, jobs)))
    tasks = [
        (ruleset, players, b, o, list(range(s, min(games, s + chunk))), seed, rollouts)
        for b, o in pairs
        for s in range(0, games, chunk)
    ]
    results: dict[tuple[str, str], list[tuple[int, int | None]]] = {p: [] for p in pairs}
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for task, res in zip(tasks, pool.map(_play_chunk, tasks), strict=True):
                results[(task[2], task[3])].extend(res)
                if progress:
                    progress(len(res))
    else:
        for task in tasks:
            res = _play_chunk(task)
            results[(task[2], task[3])].extend(res)
            if progress:
                progress(len(res))
    out = []
    for (b, o), res in results.items():
        wins = sum(1 for bs, ws in res if ws == bs)
        lo, hi = wilson(wins, len(res))
        by_seat = [(0, 0)] * players
        seats = [(0, 0)] * players
        for bs, ws in res:
            n, k = by_seat[bs]
            by_seat[bs] = (n + 1, k + (ws == bs))
            for s in range(players):
                n, k = seats[s]
                seats[s] = (n + 1, k + (ws == s))
        out.append(
            Pairing(
                b, o, len(res), wins, sum(1 for _, ws in res if ws is None),
                wins / len(res), lo, hi, 1 / players, ruleset, players, seed, rollouts,
                _rows(by_seat), _rows(seats),
            )
        )  # fmt: skip
    return out


def seat_effect(pairings: Sequence[Pairing]) -> tuple[list[SeatRow], float | None]:
    """The winner's seat over every game of the ladder, and the chi-square p-value of
    "every seat wins equally often" (df = seats - 1; rounds without a winner left out).

    Returns:
        ``(rows, p)``; p is None with fewer than 5 expected wins per seat.
    """
    if not pairings:
        return [], None
    n = pairings[0].players
    games = [0] * n
    wins = [0] * n
    for p in pairings:
        for i, row in enumerate(p.seats):
            games[i] += row.games
            wins[i] += row.wins
    rows = _rows(list(zip(games, wins, strict=True)))
    total = sum(wins)
    if total < 5 * n:
        return rows, None
    stat = sps.chisquare(wins)
    return rows, float(stat.pvalue)
