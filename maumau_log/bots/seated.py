"""Simulated rounds with a named bot in every seat: datasets of known strengths.

``simulate --bots mc,random`` plays the named bots (:data:`maumau_log.bots.BOTS`) against
each other, one bot per seat, so a rating (``maumau-log ratings``) can be checked against
strengths known beforehand (the Monte Carlo bot beats the greedy bot, which beats the
random bot: ``bots ladder`` measures it).

- Players are named after their bot: ``mc``, ``random``; a bot seated twice or more is
  numbered in the order ``--bots`` names it: ``mc-1``, ``mc-2``.
- Seats rotate from round to round: round g seats the named players shifted by g places
  (round 0 in the order given, round 1 with the last first, ...), so every player holds
  every seat equally often; the last seat deals, so seat 1 plays first.
- One ``random.Random(seed)`` drives the file through ``random()`` only: the header's fair
  shuffle seed, then one seed per Monte Carlo seat; the same arguments give the same file,
  byte for byte.
- With ``start``, round g's header says ``started_at`` = start + g minutes, so files
  simulated apart and ingested together interleave in time (the ratings order rounds by
  ``started_at``, then ``game_id``).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Sequence

from ..events import FORMAT_VERSION, Event, Game
from ..rules import resolve
from . import BOTS, DEFAULT_ROLLOUTS, make_policy
from .sim import fair_shuffle, run_prefix
from .table import BotTable


def seat_names(bots: Sequence[str]) -> list[str]:
    """The players' names for the bots in ``bots``, in the order given.

    Args:
        bots: bot names, one per seat (``["mc", "random"]``).
    Returns:
        The bot's name where it sits once, else the name and its count so far:
        ``["mc-1", "random", "mc-2"]`` for ``["mc", "random", "mc"]``.
    """
    seen: dict[str, int] = {}
    names = []
    for b in bots:
        seen[b] = seen.get(b, 0) + 1
        twice = bots.count(b) > 1
        names.append(f"{b}-{seen[b]}" if twice else b)
    return names


def parse_bots(text: str, players: int) -> list[str]:
    """The ``--bots`` list: comma-separated bot names, one per seat.

    Args:
        text: e.g. ``"mc,random"``.
        players: the seats at the table (``--players``).
    Returns:
        The bot names, in seat order of the first round.
    Raises:
        ValueError: an unknown bot, or not one bot per seat (the message says which).
    """
    names = [b.strip() for b in text.split(",") if b.strip()]
    for b in names:
        if b not in BOTS:
            raise ValueError(f"unknown bot {b!r}: one of {', '.join(BOTS)}")
    if len(names) != players:
        raise ValueError(f"--bots names {len(names)} bots for {players} seats: name one per seat")
    return names


def parse_start(text: str) -> dt.datetime:
    """``--start``: an ISO 8601 date-time with a UTC offset (``2026-01-01T00:00:00Z``).

    Raises:
        ValueError: not such a date-time.
    """
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--start must be an ISO 8601 date-time, not {text!r}") from None
    if when.tzinfo is None:
        raise ValueError(f"--start needs a UTC offset (Z or +HH:MM), not {text!r}")
    return when.astimezone(dt.UTC)


def simulate_seated(
    ruleset: str,
    bots: Sequence[str],
    games: int,
    seed: int,
    start: dt.datetime | None = None,
    rollouts: int = DEFAULT_ROLLOUTS,
) -> Iterator[list[Event]]:
    """Play ``games`` seeded rounds, one named bot per seat, seats rotating.

    Args:
        ruleset: a preset name.
        bots: one bot name per seat (:func:`parse_bots`).
        games: how many rounds.
        seed: the seed; equal arguments give equal rounds.
        start: the first round's ``started_at`` (the next ones a minute apart), or None
            for no ``started_at``.
        rollouts: the Monte Carlo bot's rollouts per alternative.
    Yields:
        One list of events per round (header first, ``round_end`` last).
    Raises:
        RulesetError: an unknown preset; ValueError: an unknown bot.
    """
    rules = resolve(ruleset)
    names = seat_names(bots)
    bot_of = dict(zip(names, bots, strict=True))
    n = len(names)
    prefix = f"{run_prefix(rules.preset, n, None)}-{'-'.join(bots)}"
    rng = random.Random(seed)
    for g in range(games):
        shift = g % n
        seats = names[n - shift :] + names[: n - shift]
        shuffle = fair_shuffle(rng)
        policies = {
            p: make_policy(bot_of[p], seed=int(rng.random() * (1 << 53)), rollouts=rollouts)
            if bot_of[p] == "mc"
            else make_policy(bot_of[p])
            for p in seats
        }
        when = None
        if start is not None:
            when = (start + dt.timedelta(minutes=g)).strftime("%Y-%m-%dT%H:%M:%SZ")
        header = Game(
            format=FORMAT_VERSION,
            game_id=f"{prefix}-{seed}-{g:06d}",
            ruleset=rules.preset,
            players=seats,
            dealer=seats[-1],
            started_at=when,
            shuffle=shuffle,
            meta={"engine": "maumau-log simulate", "seed": seed, "bots": list(bots)},
        )
        table = BotTable.new_round(rules, header, policies, rng)
        table.play_round()
        yield table.events
