"""Seeded bots that play any ruleset the engine replays and write full-information logs.

The bots choose among :meth:`Engine.legal_actions` (random legal moves, occasional
voluntary draws, sometimes forgetting or miscalling a call, sometimes catching a missed
call), and every event they write is applied to an engine first: a simulated game is legal
by construction under our reading of the rules. The bot is the random bot of
:mod:`maumau_log.bots.policies` (:class:`~maumau_log.bots.policies.SimulatorBot`) and the
events are built by the bots' table (:class:`~maumau_log.bots.table.BotTable`): one source
for the simulator, the ladder and the planted-bias simulations. That proves consistency,
not correctness (docs/contributing/tests-and-benchmarks.md). There is no hidden randomness:
one ``random.Random(seed)`` drives
everything through ``Random.random()`` only (CPython promises repeatable ``random()``
across versions, not ``shuffle``), and deals and reshuffles use the provably fair shuffle
(:mod:`maumau_log.engine.shuffle`) with a seed drawn from it, so a seed gives the same file byte
for byte, and every simulated header carries a seed and its commitment.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from ..engine import OUT, PLAY, Action, Engine
from ..engine.shuffle import ALGORITHM, commitment
from ..events import FORMAT_VERSION, Event, Game, MatchEnd, encode_event
from ..rules import Ruleset, resolve
from ..scoring.matches import MatchState, RoundContext
from .policies import SimulatorBot
from .table import BotTable


def fair_shuffle(rng: random.Random) -> dict[str, str]:
    """A header ``shuffle`` object: a 256-bit seed drawn from ``rng`` (repeatably, through
    ``random()`` only) and its commitment (``shuffle.py``)."""
    words = [int(rng.random() * (1 << 52)) for _ in range(5)]
    seed = "".join(f"{w:013x}" for w in words)[:64]
    return {"algorithm": ALGORITHM, "seed": seed, "commitment": commitment(seed)}


Bot = SimulatorBot
"""The simulated players' habits (:class:`~maumau_log.bots.policies.SimulatorBot`: the
random bot, one source for the simulator and the ladder)."""


class SimTable(BotTable):
    """One simulated round: a :class:`~maumau_log.bots.table.BotTable` (the one event
    builder) where one :class:`Bot` decides for every seat from the engine's whole list of
    legal actions.

    Subclasses (the planted biases of :mod:`maumau_log.bots.sim_bias`) override :meth:`choose`
    (the flat choice), :meth:`catchers` (who may catch whom) or :meth:`deal`.

    Args:
        rules: the ruleset; header: the round's header (its ``shuffle`` seed deals).
        rng: the simulation's generator; bot: the players' habits.
        match: the match context of a match round (hand sizes, totals), else None.
    """

    def __init__(
        self,
        rules: Ruleset,
        header: Game,
        rng: random.Random,
        bot: Bot,
        match: RoundContext | None = None,
    ) -> None:
        super().__init__(Engine(rules, header, match), dict.fromkeys(header.players, bot), rng)
        self.bot = bot
        self.events.append(header)

    def choose(self, acts: list[Action]) -> Action:
        """The bot's flat choice (:meth:`SimulatorBot.pick`) among every legal action."""
        return self.bot.pick(self.rng, acts)

    def decide(self, acts: list[Action]) -> Action:
        """:meth:`choose`; a suit choice names the bot's suit (:meth:`SimulatorBot.suit_for`)."""
        act = self.choose(acts)
        if act.kind == "suit":
            assert act.player is not None
            return Action("suit", act.player, self.bot.suit_for(self, act.player))
        return act

    def catches(self) -> None:
        """As the bot table, but only while the round is played or just won (an abandoned
        round takes no penalty)."""
        if self.engine.phase in (PLAY, OUT):
            super().catches()

    def catchers(self, player: str) -> list[str]:
        """Who may catch ``player``'s call fault: every other player (bias tables narrow it)."""
        return [p for p in self.engine.players if p != player]

    def catcher(self, player: str) -> str | None:
        """With chance ``bot.catch``, one of :meth:`catchers` at random (one roll first,
        whether or not the fault is still open)."""
        if self.rng.random() >= self.bot.catch or player not in self.engine.faults:
            return None
        others = self.catchers(player)
        if not others:
            return None
        return others[int(self.rng.random() * len(others))]


_Table = SimTable
"""The old name of :class:`SimTable` (tests and benches import it)."""


def run_prefix(preset: str, players: int, options: Mapping[str, Any] | None) -> str:
    """The start of simulated ids: ``sim-<preset>-<players>p`` and, with header options, the
    first 8 hex digits of the SHA-256 of their canonical JSON.

    With the seed after it, ids differ whenever the ruleset, the players, the options or the
    seed differ, and the same arguments give the same ids (two default simulations of two
    presets no longer collide in one dataset).

    Args:
        preset: the canonical preset name.
        players: players per game.
        options: the header options, or None.
    Returns:
        E.g. ``"sim-classic-4p"`` or ``"sim-classic-4p-1a2b3c4d"``.
    """
    base = f"sim-{preset}-{players}p"
    if options:
        canon = json.dumps(options, sort_keys=True, separators=(",", ":"))
        base += "-" + hashlib.sha256(canon.encode()).hexdigest()[:8]
    return base


def simulate(
    ruleset: str,
    players: int,
    games: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    bot: Bot | None = None,
    id_prefix: str | None = None,
) -> Iterator[list[Event]]:
    """Play ``games`` seeded rounds and yield each as its list of events (header first).

    Args:
        ruleset: a preset name.
        players: 2 or more.
        games: how many rounds.
        seed: the seed; equal arguments give equal games.
        options: header options overriding the preset (written into every header).
        bot: the players' habits (defaults: :class:`Bot`).
        id_prefix: the start of every ``game_id`` (``<prefix>-<seed>-<n>``); None for
            :func:`run_prefix` (ruleset, players and options in the id).
    Yields:
        One list of events per game.
    Raises:
        RulesetError: unknown preset or bad options.
        RuleViolation: only on a simulator bug (a game the engine rejects).
    """
    rules = resolve(ruleset, dict(options) if options else None)
    if id_prefix is None:
        id_prefix = run_prefix(rules.preset, players, options)
    return _games(rules, players, seed, options, bot or Bot(), id_prefix, 0, games)


SIM_BLOCK = 10_000
"""Games (or, for :func:`simulate_matches`, matches divided by :data:`MATCH_BLOCK_DIV`)
per independently seeded block. Block 0 is driven by ``random.Random(seed)`` (so up to this
many games are what one generator always gave), block b by :func:`block_rng`: blocks can be
played by several processes and written in order, the same bytes whatever the number
(``simulate --jobs``)."""

MATCH_BLOCK_DIV = 100
"""Matches per block: :data:`SIM_BLOCK` divided by this (a match is many rounds)."""


def block_rng(seed: int, block: int) -> random.Random:
    """The generator of one block of games: ``random.Random(seed)`` for block 0, else one
    seeded by the text ``maumau-sim/<seed>/<block>`` (CPython seeds a text through its
    SHA-512: the same on every platform and run)."""
    return random.Random(seed) if block == 0 else random.Random(f"maumau-sim/{seed}/{block}")


def _games(
    rules: Ruleset,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None,
    bot: Bot,
    id_prefix: str,
    start: int,
    stop: int,
) -> Iterator[list[Event]]:
    """Games ``start`` to ``stop`` of a simulation (``start`` at a block's first game)."""
    names = [f"p{i + 1}" for i in range(players)]
    rng = block_rng(seed, start // SIM_BLOCK)
    for g in range(start, stop):
        if g % SIM_BLOCK == 0 and g != start:
            rng = block_rng(seed, g // SIM_BLOCK)
        header = Game(
            format=FORMAT_VERSION,
            game_id=f"{id_prefix}-{seed}-{g:06d}",
            ruleset=rules.preset,
            options=dict(options) if options else None,
            players=names,
            dealer=names[int(rng.random() * players)],
            shuffle=fair_shuffle(rng),
            meta={"engine": "maumau-log simulate", "seed": seed},
        )
        table = _Table(rules, header, rng, bot)
        table.play_round()
        yield table.events


def simulate_matches(
    ruleset: str,
    players: int,
    matches: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    bot: Bot | None = None,
    id_prefix: str | None = None,
    max_rounds: int = 500,
) -> Iterator[list[Event]]:
    """Play ``matches`` seeded matches, round by round, and yield each round's events.

    Rounds share a ``match_id`` and count ``round`` from 1; the next seat deals; the last
    round ends with a ``match_end`` holding the totals and the winner (PRESETS.md ruling 14).

    Args:
        ruleset: a preset whose matches end (``match_target``, ``match_rounds`` or
            ``loser_hand_shrink``).
        players, seed, options, bot, id_prefix: as for :func:`simulate`.
        matches: how many matches.
        max_rounds: a match still running after this many rounds is cut off there (its
            last round then has no ``match_end`` and does not validate).
    Yields:
        One list of events per round.
    Raises:
        ValueError: the ruleset's matches never end.
    """
    rules = resolve(ruleset, dict(options) if options else None)
    if rules.match_target is None and rules.match_rounds is None and not rules.loser_hand_shrink:
        raise ValueError(
            f"preset {rules.preset!r} sets no match end (match_target, match_rounds or "
            "loser_hand_shrink): set one with options"
        )
    if id_prefix is None:
        id_prefix = run_prefix(rules.preset, players, options)
    return _matches(rules, players, matches, seed, options, bot, id_prefix, max_rounds)


def _matches(
    rules: Ruleset,
    players: int,
    matches: int,
    seed: int,
    options: Mapping[str, Any] | None,
    bot: Bot | None,
    id_prefix: str,
    max_rounds: int,
    start: int = 0,
) -> Iterator[list[Event]]:
    bot = bot or Bot()
    names = [f"p{i + 1}" for i in range(players)]
    per = SIM_BLOCK // MATCH_BLOCK_DIV
    rng = block_rng(seed, start // per)
    for m in range(start, matches):
        if m % per == 0 and m != start:
            rng = block_rng(seed, m // per)
        match_id = f"{id_prefix}-{seed}-m{m:05d}"
        state = MatchState(match_id, tuple(names), rules.key)
        round_no = 0
        while not state.over and round_no < max_rounds:
            round_no += 1
            ctx = state.next_context(rules, round_no) if round_no > 1 else None
            seats = state.players_left(rules)
            dealer = (
                ctx.dealer if ctx is not None and ctx.dealer else names[int(rng.random() * players)]
            )
            if ctx is None:
                ctx = RoundContext(match_id, 1)
            header = Game(
                format=FORMAT_VERSION,
                game_id=f"{match_id}-r{round_no:03d}",
                ruleset=rules.preset,
                options=dict(options) if options else None,
                players=seats,
                dealer=dealer,
                match_id=match_id,
                round=round_no,
                shuffle=fair_shuffle(rng),
                meta={"engine": "maumau-log simulate", "seed": seed},
            )
            table = _Table(rules, header, rng, bot, ctx)
            table.play_round()
            e = table.engine
            if e.match_over:
                table.emit(MatchEnd(totals=dict(e.match_totals or {}), winner=e.match_winner))
            state.record_round(
                e.players,
                e.players[e.dealer],
                e.winner,
                e.match_totals or {},
                e.match_rounds_won,
                e.match_over,
                e.match_end_seen,
            )
            yield table.events


def write_games(games: Iterator[list[Event]], out: BinaryIO) -> tuple[int, int]:
    """Write simulated games as JSON Lines.

    Returns:
        ``(games, events)`` written.
    """
    n_games = n_events = 0
    for events in games:
        n_games += 1
        for ev in events:
            out.write(encode_event(ev))
            out.write(b"\n")
            n_events += 1
    return n_games, n_events


def _block_bytes(task: tuple[Any, ...]) -> tuple[bytes, int, int]:
    """One block of a simulation as JSON Lines: (bytes, games, events)."""
    ruleset, players, seed, options, matches, start, stop = task
    rules = resolve(ruleset, dict(options) if options else None)
    prefix = run_prefix(rules.preset, players, options)
    if matches:
        gen = _matches(rules, players, stop, seed, options, None, prefix, 500, start)
    else:
        gen = _games(rules, players, seed, options, Bot(), prefix, start, stop)
    buf = io.BytesIO()
    n_games, n_events = write_games(gen, buf)
    return buf.getvalue(), n_games, n_events


def write_simulated(
    out: BinaryIO,
    ruleset: str,
    players: int,
    count: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    matches: bool = False,
    jobs: int = 1,
) -> tuple[int, int]:
    """Simulate and write ``count`` games (or matches) on ``jobs`` processes.

    Each block (:data:`SIM_BLOCK` games, or that over :data:`MATCH_BLOCK_DIV` matches) is
    played by one worker from its own generator (:func:`block_rng`) and the blocks are
    written in order: the same bytes as :func:`simulate` (or :func:`simulate_matches`)
    with :func:`write_games`, whatever ``jobs``.

    Args:
        out: the binary file to write.
        ruleset, players, seed, options: as for :func:`simulate`.
        count: games, or matches when ``matches``.
        matches: play whole matches (:func:`simulate_matches`).
        jobs: worker processes (1: this process).
    Returns:
        ``(games, events)`` written.
    Raises:
        RulesetError: unknown preset or bad options.
        ValueError: ``matches`` with a ruleset whose matches never end.
    """
    if matches:
        simulate_matches(ruleset, players, 1, seed, options)  # the checks, nothing played
    else:
        resolve(ruleset, dict(options) if options else None)
    per = SIM_BLOCK // MATCH_BLOCK_DIV if matches else SIM_BLOCK
    opts = dict(options) if options else None
    tasks = [
        (ruleset, players, seed, opts, matches, a, min(a + per, count))
        for a in range(0, count, per)
    ]
    n_games = n_events = 0
    if jobs <= 1 or len(tasks) <= 1:
        done: Iterator[tuple[bytes, int, int]] = map(_block_bytes, tasks)
        for data, g, e in done:
            out.write(data)
            n_games, n_events = n_games + g, n_events + e
        return n_games, n_events
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(min(jobs, len(tasks))) as pool:
        for data, g, e in pool.map(_block_bytes, tasks):
            out.write(data)
            n_games, n_events = n_games + g, n_events + e
    return n_games, n_events
