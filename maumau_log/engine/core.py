"""The engine: :class:`Engine`, its ``apply`` dispatch and its questions. The top of the
engine's import graph.

One :class:`Engine` replays one game (one round) under one ruleset. It knows nothing of
files, Parquet or terminals, and has no randomness: the same events give the same states.
:meth:`Engine.apply` checks an event in the order of PRESETS.md ruling 25 (its shape, a
suit still owed, who may act, the cards' presence in the hand, what the player owes first,
whether a draw or pass is allowed, whether the cards may go on the discard pile) and
applies it, or raises :class:`~.errors.RuleViolation`. The mechanics live in their
modules (see the README's "Architecture" section for the map); this module dispatches to
them, most frequent event first. The rules it applies are RULES.md "What every system
shares (the family)" and the system the ruleset names (RULESETS.md presets, PRESETS.md
values and rulings), each through the module of its mechanic; the event shapes are
FORMAT.md "Events".
"""

from __future__ import annotations

import copy
from typing import Any, Final

from ..cards import Card
from ..events import (
    Abandon,
    Call,
    Cut,
    Deal,
    Draw,
    Event,
    Game,
    MatchEnd,
    Pass,
    Penalty,
    Play,
    Reshuffle,
    RoundEnd,
    SuitChoice,
)
from ..rules import Ruleset
from ..scoring.matches import RoundContext
from . import legality
from .actions import Action, describe_legal, legal_actions
from .calls import call_due, close_window, last_card_word, on_call, on_penalty
from .deal import on_cut, on_deal
from .draws import on_draw, on_pass
from .ending import on_abandon, on_match_end, on_round_end
from .errors import fail, number_text
from .plays import on_play, on_suit
from .state import FINISHED, PLAY, State
from .stock import on_reshuffle

# the event types as final names: compiled, each is a C static, where a name imported
# from the (interpreted) events module is a dict look-up at every use
_PLAY: Final = Play
_DRAW: Final = Draw
_CALL: Final = Call
_PASS: Final = Pass
_SUIT: Final = SuitChoice


class Engine(State):
    """Replays one round event by event and checks every event against the ruleset.

    Args:
        rules: the resolved ruleset.
        header: the game's ``game`` event (players in seat order, dealer).
        match: the round's place in its match (dealer, first player, hand sizes, totals
            before it), or None for a round on its own.

    Use :meth:`apply` for every event after the header; it raises
    :class:`~.errors.RuleViolation` on the first illegal one (the replay stops there, so a
    failed event may leave the state partly changed). :meth:`view` returns the state a
    dispute needs; ``copy.deepcopy(engine)`` gives an independent engine (bots look ahead
    with it).

    >>> from maumau_log.events import Game, Deal, Play
    >>> from maumau_log.rules import resolve
    >>> header = Game(format="maumau-log/1", game_id="g", ruleset="standard",
    ...               players=["ana", "ben"], dealer="ben")
    >>> e = Engine(resolve("standard"), header)
    >>> e.apply(Deal(hands={"ana": ["9H", "KC", "7S", "8D", "QH"],
    ...                     "ben": ["9S", "10C", "AS", "JD", "8C"]}, starter="10H"))
    >>> e.can_play("ana", "9H"), e.can_play("ana", "KC"), e.can_play("ben", "9S")
    (True, False, False)
    >>> e.apply(Play(player="ana", cards=["9H"]))
    >>> e.current_player, e.legal_plays("ben")
    ('ben', ['9S', 'JD'])
    """

    def __init__(self, rules: Ruleset, header: Game, match: RoundContext | None = None) -> None:
        super().__init__(rules, header, match)

    def apply(self, event: Event) -> None:
        """Check one event against the rules and the state, then apply it.

        Args:
            event: any event but the ``game`` header.
        Raises:
            RuleViolation: the event breaks a rule; the code names the first failed check.
        """
        # dispatch on the event's exact type (pointer compares, compiled or not); the two
        # events of nine lines in ten first, with their fields read once each
        if type(event) is _PLAY:
            self.apply_play(event, event.player, event.cards, event.jump_in)
            return
        if type(event) is _DRAW:
            self.apply_draw(event, event.player, event.cards, event.count, event.reason)
            return
        self.event_index += 1
        # then the other events of one player with no count, with the same checks (exact
        # types: a subclass of an event type is no event, and fails below as unknown)
        if type(event) is _CALL:
            if self.phase == FINISHED:
                self._after_round_end(event)
            who = event.player  # (read once: a generic look-up, compiled)
            if who != self.last_actor:
                self._new_actor(who)
            on_call(self, event)
            return
        if type(event) is _PASS:
            if self.phase == FINISHED:
                self._after_round_end(event)
            who = event.player  # (read once: a generic look-up, compiled)
            if who != self.last_actor:
                self._new_actor(who)
            on_pass(self, event)
            return
        if type(event) is _SUIT:
            if self.phase == FINISHED:
                self._after_round_end(event)
            who = event.player  # (read once: a generic look-up, compiled)
            if who != self.last_actor:
                self._new_actor(who)
            on_suit(self, event)
            return
        t = type(event)
        if t not in _KNOWN:  # a header inside a game is split off by the replay
            fail("schema_error", "unexpected event type", "FORMAT.md Events")
        if t is Game:  # split off by the replay driver
            if self.phase == FINISHED:
                self._after_round_end(event)
            fail("missing_header", "a header inside a game", "FORMAT.md Files")
        # the count and the actor by type (getattr with a default would raise and catch an
        # AttributeError for every event without the field)
        count = None
        actor: str | None = None
        if t is Penalty:
            assert isinstance(event, Penalty)
            count = event.count
            actor = event.by or event.player
        elif t is Reshuffle:
            assert isinstance(event, Reshuffle)
            count = event.count
        elif t is Cut or t is Abandon:
            assert isinstance(event, (Cut, Abandon))
            actor = event.player
        if count is not None and count < 0:
            _negative(count)
        if self.phase == FINISHED and t is not MatchEnd:
            self._after_round_end(event)
        if actor is not None and actor != self.last_actor:
            self._new_actor(actor)
        if t is Reshuffle:
            assert isinstance(event, Reshuffle)
            on_reshuffle(self, event)
        elif t is Deal:
            assert isinstance(event, Deal)
            on_deal(self, event)
        elif t is RoundEnd:
            assert isinstance(event, RoundEnd)
            on_round_end(self, event)
        elif t is Penalty:
            assert isinstance(event, Penalty)
            on_penalty(self, event)
        elif t is MatchEnd:
            assert isinstance(event, MatchEnd)
            on_match_end(self, event)
        elif t is Abandon:
            assert isinstance(event, Abandon)
            on_abandon(self, event)
        elif t is Cut:
            assert isinstance(event, Cut)
            on_cut(self, event)

    def apply_play(self, event: Play, player: str, cards: list[Card], jump_in: bool) -> None:
        """:meth:`apply` for a ``play`` event whose fields the caller has read (``player``,
        ``cards`` and ``jump_in`` are ``event``'s): the replay driver reads them with the
        line's ``seq`` in one call (``msgspec.structs.astuple``), where each read of a
        field is a generic attribute look-up in the compiled build.

        Raises:
            RuleViolation: as :meth:`apply`.
        """
        self.event_index += 1
        if self.phase == FINISHED:
            self._after_round_end(event)
        if player != self.last_actor:  # _new_actor, inlined for the usual events
            if self.window is not None:
                close_window(self)
            self.last_actor = player
            if self.words:
                self.words = set()
        on_play(self, event, player, cards, jump_in)

    def apply_draw(
        self,
        event: Draw,
        player: str,
        cards: list[Card] | None,
        count: int | None,
        reason: str | None,
    ) -> None:
        """:meth:`apply` for a ``draw`` event whose fields the caller has read (as
        :meth:`apply_play`); the checks in the same order.

        Raises:
            RuleViolation: as :meth:`apply`.
        """
        self.event_index += 1
        if count is not None and count < 0:
            _negative(count)
        if self.phase == FINISHED:
            self._after_round_end(event)
        if player != self.last_actor:  # _new_actor, inlined for the usual events
            if self.window is not None:
                close_window(self)
            self.last_actor = player
            if self.words:
                self.words = set()
        on_draw(self, event, player, count, cards, reason)

    def _new_actor(self, actor: str) -> None:
        """Another player's event: the open call window closes (ruling 9)."""
        if self.window is not None:
            close_window(self)
        self.last_actor = actor
        if self.words:
            self.words = set()

    def _after_round_end(self, event: Event) -> None:
        fail(
            "play_after_round_end",
            f"a {_type_name(event)} event after round_end",
            "FORMAT.md Events (round_end)",
            "nothing but match_end, or the next game's header",
        )

    # ------------------------------------------------------------------ questions (ask)

    def legal_actions(self) -> list[Action]:
        """Every legal next action (calls and penalties aside), for bots and messages; a
        pure query (:func:`.actions.legal_actions`)."""
        return legal_actions(self)

    def describe_legal(self, limit: int = 12) -> str:
        """The legal actions as one line, e.g. ``"ana plays 7H | ana draws 1 (no_play)"``."""
        return describe_legal(self, limit)

    def can_play(self, player: str, card: Card) -> bool:
        """True when ``player`` may play ``card`` (held) now (:func:`.legality.can_play`)."""
        return legality.play_problem(self, player, card) is None

    def legal_plays(self, player: str) -> list[Card]:
        """The distinct cards ``player`` may play now, sorted (empty when it is not their
        move)."""
        return legality.legal_plays(self, player)

    def playable(self, card: Card) -> bool:
        """True when ``card`` may go on the discard pile in an ordinary turn
        (:func:`.legality.playable`; RULES.md "What every system shares", ruling 1)."""
        return legality.playable(self, card)

    def last_card_word(self, card: Card) -> str | None:
        """The call due for ``card`` as the one card left (ruling 9), or None."""
        return last_card_word(self, card)

    def call_due(self, player: str) -> str | None:
        """The word ``player`` must say now (ruling 9): the going-out call right after
        emptying the hand, the last-card word with one card left, else None
        (:func:`.calls.call_due`)."""
        return call_due(self, player)

    def copy(self) -> Engine:
        """An independent engine in the same state, sharing only what never changes (the
        ruleset, its tables, the header, the match context): to apply an event without
        touching this one. The questions (``legal_actions``, ``describe_legal``,
        ``can_play`` ...) never change the state and need no copy."""
        return copy.deepcopy(self)  # State.__deepcopy__: the declared fields, rules shared

    # ------------------------------------------------------------------ views

    def view(self) -> dict[str, Any]:
        """The state a dispute needs, JSON-ready.

        Returns:
            ``phase``, ``turn`` (whose turn), ``direction`` (1 clockwise, -1 counter),
            ``top`` (top discard), ``suit`` (suit to follow, named by a wild card),
            ``pending_draw``, ``pending_skip``, ``awaiting_suit``, ``cover_owed``,
            ``stock_size``, ``discard_size``, ``hands`` (player to cards),
            ``calls_due`` (catchable call faults, player to reason).
        """
        return {
            "phase": self.phase,
            "turn": self.players[self.current] if self.phase == PLAY else None,
            "direction": self.direction,
            "top": self.discard[-1] if self.discard else None,
            "suit": self.suit_to_follow,
            "pending_draw": self.pending_draw,
            "pending_skip": self.pending_skip,
            "awaiting_suit": self.awaiting_suit,
            "cover_owed": self.cover_owed,
            "stock_size": len(self.stock),
            "discard_size": len(self.discard),
            "hands": {p: list(h) for p, h in self.hands.items()},
            "calls_due": dict(self.faults),
        }


_KNOWN: Final = frozenset(
    {Cut, Deal, Play, SuitChoice, Draw, Pass, Call, Penalty, Reshuffle, RoundEnd, MatchEnd,
     Abandon, Game}
)  # fmt: skip


def _negative(count: int) -> None:
    fail(
        "schema_error",
        f"count must not be negative (got {number_text(count)})",
        "schemas/ (FORMAT.md Events)",
    )


def _type_name(event: Event) -> str:
    return str(type(event).__struct_config__.tag)
