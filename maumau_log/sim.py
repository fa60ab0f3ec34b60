"""Seeded bots that play any ruleset the engine replays and write full-information logs.

The bots choose among :meth:`Engine.legal_actions` (random legal moves, occasional
voluntary draws, sometimes forgetting or miscalling a call, sometimes catching a missed
call), and every event they write is applied to an engine first: a simulated game is legal
by construction under our reading of the rules. That proves consistency, not correctness
(see the README). There is no hidden randomness: one ``random.Random(seed)`` drives
everything through ``Random.random()`` only (CPython promises repeatable ``random()``
across versions, not ``shuffle``), and deals and reshuffles use the provably fair shuffle
(:mod:`maumau_log.shuffle`) with a seed drawn from it, so a seed gives the same file byte
for byte, and every simulated header carries a seed and its commitment.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from .cards import SUITS, Card
from .engine import ENDED, OUT, PLAY, Action, Engine
from .events import (
    FORMAT_VERSION,
    Call,
    Deal,
    Draw,
    Event,
    Game,
    HandCount,
    MatchEnd,
    Pass,
    Penalty,
    Play,
    Reshuffle,
    RoundEnd,
    SuitChoice,
    encode_event,
)
from .matches import MatchState, RoundContext
from .rules import Ruleset, resolve
from .shuffle import ALGORITHM, commitment, reshuffle_seed, shuffled
from .shuffle import deal as fair_deal

MAX_EVENTS = 20_000
"""A simulated round longer than this is abandoned (it never happened in testing)."""


def fair_shuffle(rng: random.Random) -> dict[str, str]:
    """A header ``shuffle`` object: a 256-bit seed drawn from ``rng`` (repeatably, through
    ``random()`` only) and its commitment (``shuffle.py``)."""
    words = [int(rng.random() * (1 << 52)) for _ in range(5)]
    seed = "".join(f"{w:013x}" for w in words)[:64]
    return {"algorithm": ALGORITHM, "seed": seed, "commitment": commitment(seed)}


class Bot:
    """Tunable habits of the simulated players (probabilities in 0..1).

    Attributes:
        voluntary_draw: chance to draw although a card could be played (where allowed).
        forget_call: chance to forget a call that is due.
        wrong_call: chance to say a wrong word instead.
        catch: chance that another player catches a call fault when it can.
    """

    def __init__(
        self,
        voluntary_draw: float = 0.08,
        forget_call: float = 0.15,
        wrong_call: float = 0.05,
        catch: float = 0.6,
    ) -> None:
        self.voluntary_draw = voluntary_draw
        self.forget_call = forget_call
        self.wrong_call = wrong_call
        self.catch = catch


class _Table:
    """One simulated round: the engine, the event list and the seeded choices."""

    def __init__(
        self,
        rules: Ruleset,
        header: Game,
        rng: random.Random,
        bot: Bot,
        match: RoundContext | None = None,
    ) -> None:
        self.rules = rules
        self.engine = Engine(rules, header, match)
        self.rng = rng
        self.bot = bot
        self.events: list[Event] = [header]

    def emit(self, event: Event) -> None:
        self.engine.apply(event)  # raises RuleViolation on a simulator bug
        self.events.append(event)

    def stock_top(self, n: int) -> list[Card]:
        stock = self.engine.stock
        return [stock[-1 - i] for i in range(n)]

    def ensure_stock(self) -> None:
        e = self.engine
        if not e.stock and e.rules.empty_stock == "reshuffle" and len(e.discard) > 1:
            assert e.fair_seed is not None
            new = shuffled(e.discard[:-1], reshuffle_seed(e.fair_seed, e.reshuffles + 1))
            self.emit(Reshuffle(stock=new))

    def deal(self) -> None:
        """Deal by the provably fair shuffle of the header's seed (``shuffle.py``)."""
        rules, e = self.rules, self.engine
        seed = e.fair_seed
        assert seed is not None
        size = rules.hand_size_for(e.n)
        sizes = dict(e.match.hand_sizes) if e.match is not None and e.match.hand_sizes else {}
        sizes = {p: sizes.get(p, size) for p in e.players}
        redeal = {c for c, info in rules.cards.items() if info.redeal}
        dealt, starter, stock = fair_deal(
            shuffled(rules.pack, seed), e.players, e.dealer, sizes, redeal
        )
        hands: dict[str, list[Card] | HandCount] = {}
        hands.update(dealt)
        self.emit(Deal(hands=hands, starter=starter, stock=stock))

    def calls_after_play(self, player: str) -> None:
        e, rules, rng = self.engine, self.rules, self.rng
        hand = e.hands[player]
        if e.phase == OUT and rules.call_going_out:
            if rng.random() >= self.bot.forget_call:
                self.emit(Call(player=player, call=rules.call_going_out))
            return
        if len(hand) != 1 or e.phase != PLAY:
            return
        word = e.last_card_word(hand[0])
        if word is None:
            return
        roll = rng.random()
        if roll < self.bot.forget_call:
            return
        if roll < self.bot.forget_call + self.bot.wrong_call:
            self.emit(Call(player=player, call="mau" if word != "mau" else "last card"))
            return
        self.emit(Call(player=player, call=word))

    def catchers(self, player: str) -> list[str]:
        """Who may catch ``player``'s call fault: every other player (bias tables narrow it)."""
        return [p for p in self.engine.players if p != player]

    def catches(self) -> None:
        """Other players catch open call faults, each with probability ``bot.catch``."""
        e, rng = self.engine, self.rng
        for player in sorted(e.faults):
            if e.awaiting_suit is not None:
                return  # a catch reopened the round: the wild card's suit comes first
            if rng.random() >= self.bot.catch or player not in e.faults:
                continue
            others = self.catchers(player)
            if not others:
                continue
            by = others[int(rng.random() * len(others))]
            reason = e.faults[player]
            need = self.rules.call_penalty
            while need > 0:
                self.ensure_stock()
                n = min(need, len(e.stock))
                if n == 0:
                    break
                self.emit(Penalty(player=player, reason=reason, by=by, cards=self.stock_top(n)))
                need -= n
                if e.penalty_owed is None:
                    break

    def choose(self, acts: list[Action]) -> Action:
        rng = self.rng
        plays = [a for a in acts if a.kind == "play"]
        draws = [a for a in acts if a.kind == "draw"]
        passes = [a for a in acts if a.kind == "pass"]
        if plays and (not draws or rng.random() >= self.bot.voluntary_draw):
            return plays[int(rng.random() * len(plays))]
        if draws:
            return draws[0]
        if passes:
            return passes[0]
        return acts[int(rng.random() * len(acts))]

    def choose_suit(self, player: str) -> str:
        hand = self.engine.hands[player]
        counts = {s: sum(1 for c in hand if c.endswith(s)) for s in SUITS}
        best = max(counts.values())
        options = [s for s in SUITS if counts[s] == best]
        return options[int(self.rng.random() * len(options))]

    def play_round(self) -> None:
        e = self.engine
        self.deal()
        while e.phase == PLAY and len(self.events) < MAX_EVENTS:
            self.catches()
            if e.phase != PLAY:
                break
            acts = e.legal_actions()
            if not acts:
                raise RuntimeError(f"simulator: no legal action in state {e.view()}")
            act = self.choose(acts)
            if act.kind == "suit":
                assert act.player is not None
                self.emit(SuitChoice(player=act.player, suit=self.choose_suit(act.player)))  # type: ignore[arg-type]
                self.calls_after_play(act.player)
            elif act.kind == "play":
                assert act.player is not None and act.card is not None
                self.emit(Play(player=act.player, cards=act.play_cards, jump_in=act.jump))
                if e.awaiting_suit is None:
                    self.calls_after_play(act.player)
            elif act.kind == "draw":
                assert act.player is not None
                self.ensure_stock()
                n = min(act.count, len(e.stock))
                self.emit(Draw(player=act.player, cards=self.stock_top(n), reason=act.reason))  # type: ignore[arg-type]
            elif act.kind == "pass":
                assert act.player is not None
                self.emit(Pass(player=act.player))
            if e.phase == OUT:
                self.catches()
        if e.phase == PLAY:
            from .events import Abandon

            self.emit(Abandon(reason="simulator event limit"))
        assert e.phase in (OUT, ENDED)
        winner = e.out_player if e.phase == OUT else None
        from .scoring import round_scores

        scores = round_scores(self.rules, e.players, e.hands, winner, e.last_play)
        hands: dict[str, Any] = {p: list(h) for p, h in e.hands.items()}
        end = RoundEnd(
            winner=winner,
            scores=dict(scores) if self.rules.scoring != "none" else None,
            hands=hands,
        )
        self.emit(end)


def run_prefix(preset: str, players: int, options: Mapping[str, Any] | None) -> str:
    """The start of simulated ids: ``sim-<preset>-<players>p`` and, with header options, the
    first 8 hex digits of the SHA-256 of their canonical JSON (issue 15, item 5).

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
    rng = random.Random(seed)
    bot = bot or Bot()
    names = [f"p{i + 1}" for i in range(players)]
    if id_prefix is None:
        id_prefix = run_prefix(rules.preset, players, options)
    for g in range(games):
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
) -> Iterator[list[Event]]:
    rng = random.Random(seed)
    bot = bot or Bot()
    names = [f"p{i + 1}" for i in range(players)]
    for m in range(matches):
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
