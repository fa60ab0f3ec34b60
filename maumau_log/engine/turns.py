"""Whose event this is: the turn check every turn action passes, pending skips and their
answers, lapsing draws (FORMAT.md Conventions "Seats and turns"; PRESETS.md rulings 6, 8,
10 and 12; ruling 23: the first turn action of a match round; ruling 24: a wild starter's
suit is named first; ruling 25: the order of the checks).

The decisions are the pure questions of :mod:`.legality` (:func:`~.legality.blocked`,
:func:`~.legality.turn_refusal`, :func:`~.legality.owed_refusal`); this module applies
what they imply (a skip taken, a draw lapsed) and raises their refusals.
"""

from __future__ import annotations

from typing import NoReturn

from ..cards import Card
from .actions import describe_legal
from .errors import Refusal, fail, quoted
from .legality import answers_skip, blocked, owed_refusal, turn_refusal
from .state import PLAY, State, begin_turn, next_seat, nothing_to_draw


def resolve_skip(s: State, player: str, answer: Card | None = None) -> None:
    """Take a pending skip that the skipped player does not answer (ruling 6): an event by
    another player, or, where the skips come round to the skipped player again (several
    skip cards at a small table), one that is no answer."""
    if not s.pending_skip:
        return
    comes_back = next_seat(s, s.current, s.pending_skip) == s.current
    if player != s.players[s.current] or (
        comes_back and (answer is None or not answers_skip(s, answer))
    ):
        s.turn_count[s.current] = s.turn_count[s.current] - 1
        for k in range(s.pending_skip):
            s.skipped[s.players[next_seat(s, s.current, k)]] += 1
        steps = s.pending_skip
        s.pending_skip = 0
        s.skip_rank = None
        begin_turn(s, next_seat(s, s.current, steps))


def settle(s: State) -> None:
    """A pending draw or an owed previous-player draw with no card left anywhere
    (:func:`.state.nothing_to_draw`) lapses before its player draws anything; the player
    plays on, as after a draw card played on an empty stock (PRESETS.md rulings 12 and 24;
    OpenSpiel's crazy_eights agrees). The queries see the same through
    :func:`.legality.pending_draw` and :func:`.legality.owed_previous` without settling."""
    if s.prev_owed and nothing_to_draw(s):
        s.prev_owed.clear()
    if s.pending_draw and s.phase == PLAY and nothing_to_draw(s):
        s.pending_draw = 0
        s.pending_rank = None
        s.serving = False


def refuse(s: State, refusal: Refusal) -> NoReturn:
    """Raise the refusal of :mod:`.legality` with what was legal (its own words, or
    :func:`.actions.describe_legal` where it leaves them to the state)."""
    code, message, rule, expected = refusal
    fail(code, message, rule, describe_legal(s) if expected is None else expected or None)


def block_check(s: State, player: str, verb: str, cards: list[Card] | None = None) -> None:
    """Lapse what nothing is left to draw for (:func:`settle`), then fail when nobody may
    take a turn action now (:func:`.legality.blocked`: ruling 25 (1)-(2)).

    Raises:
        RuleViolation: ``play_after_round_end``, ``missing_header``, ``missing_suit_choice``.
    """
    if s.pending_draw or s.prev_owed:
        settle(s)
    if s.phase != PLAY or s.awaiting_suit is not None:
        refusal = blocked(s, player, verb, cards)
        if refusal is not None:
            refuse(s, refusal)


def turn_check(
    s: State, player: str, verb: str, cards: list[Card] | None = None, note: str | None = None
) -> None:
    """``player`` may take a turn action now (ruling 25 up to (3)): :func:`block_check`,
    then a pending skip another player's event takes first (:func:`resolve_skip`), then
    :func:`.legality.turn_refusal` (the rest of a split penalty; the turn). What the
    player owes first is :func:`owed_check`, after the cards' presence for a play.
    ``note``: why a flagged play is no jump-in, for the message.

    Raises:
        RuleViolation: ``play_after_round_end``, ``missing_header``, ``missing_suit_choice``,
            ``missed_penalty``, ``wrong_starter`` or ``wrong_player``.
    """
    block_check(s, player, verb, cards)
    if s.pending_skip:
        resolve_skip(s, player)
    refusal = turn_refusal(s, player, verb, cards, note)
    if refusal is not None:
        refuse(s, refusal)
    s.first_action_done = True


def owed_check(s: State, player: str, verb: str, cards: list[Card] | None = None) -> None:
    """``player`` owes no previous-player draw first (ruling 25 (5); ruling 8).

    Raises:
        RuleViolation: ``missed_penalty``.
    """
    if s.prev_owed:
        refusal = owed_refusal(s, player, verb, cards)
        if refusal is not None:
            refuse(s, refusal)


def known_player(s: State, player: str | None, where: str) -> str:
    """``player`` if a player of this game.

    Raises:
        RuleViolation: ``wrong_player``.
    """
    if player is None or player not in s.seat:
        fail(
            "wrong_player",
            f"{where}: {quoted(player)} is not a player of this game",
            "FORMAT.md Events (game.players)",
            f"one of {', '.join(s.players)}",
        )
    return player
