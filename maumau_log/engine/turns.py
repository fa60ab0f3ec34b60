"""Whose event this is: the turn check every turn action passes, pending skips and their
answers, lapsing draws (FORMAT.md Conventions "Seats and turns"; PRESETS.md rulings 6, 8,
10 and 12; ruling 23: the first turn action of a match round; ruling 24: a wild starter's
suit is named first).
"""

from __future__ import annotations

from ..cards import Card
from .actions import describe_legal
from .errors import fail, what
from .legality import answers_skip, penalty_first
from .state import ENDED, OUT, PLAY, SETUP, State, begin_turn, drawable, next_seat


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
    """A pending draw with no card left anywhere lapses before its player draws
    anything; the player plays on, as after a draw card played on an empty stock
    (PRESETS.md ruling 12; OpenSpiel's crazy_eights agrees). The queries see the same
    through :func:`.legality.pending_draw` without settling."""
    if s.prev_owed and drawable(s) == 0:
        s.prev_owed.clear()
    if s.pending_draw and s.phase == PLAY and drawable(s) == 0:
        s.pending_draw = 0
        s.pending_rank = None
        s.serving = False


def turn_check(s: State, player: str, verb: str, cards: list[Card] | None = None) -> None:
    """``player`` may take a turn action now: the round is in play, no suit waits, no
    penalty or previous-player draw is owed first, and it is the player's turn (a pending
    skip another player's event takes first).

    Raises:
        RuleViolation: ``play_after_round_end``, ``missing_header``, ``missing_suit_choice``,
            ``missed_penalty`` or ``wrong_player``.
    """
    if s.pending_draw or s.prev_owed:
        settle(s)
    if s.phase != PLAY:
        not_in_play(s, player, verb, cards)
    if s.awaiting_suit is not None:
        starter = not s.plays and len(s.discard) == 1  # wild_starter names it (ruling 24)
        if starter:
            fail(
                "missing_suit_choice",
                f"{s.awaiting_suit} names the suit for the wild starter "
                f"{s.discard[-1]} first; {player} {what(verb, cards)} instead",
                "option wild_starter = 'first_player_names'; PRESETS.md ruling 24",
                f"a suit event by {s.awaiting_suit}",
            )
        fail(
            "missing_suit_choice",
            f"{s.awaiting_suit} played a wild card and named no suit; "
            f"{player} {what(verb, cards)} instead",
            "option wild_names_suit; FORMAT.md Conventions (suit right after the wild)",
            f"a suit event by {s.awaiting_suit}",
        )
    split = penalty_first(s, player) if s.penalty_owed is not None else None
    if split is not None:
        owed_by = split[0]
        fail(
            "missed_penalty",
            f"{owed_by} still owes {split[1]} penalty card(s) (the stock ran out mid-penalty)",
            "PRESETS.md ruling 10",
            f"a reshuffle, then {owed_by}'s penalty draw",
        )
    owed = s.prev_owed.get(player) if s.prev_owed else None
    if owed:
        fail(
            "missed_penalty",
            f"{player} {what(verb, cards)} but first owes an effect draw of {owed}",
            "option draw_previous; PRESETS.md ruling 8",
            f"{player} draws {owed} (effect)",
        )
    if s.pending_skip:
        resolve_skip(s, player)
    if player != s.players[s.current]:
        _not_your_turn(s, player, verb, cards)
    s.first_action_done = True


def _not_your_turn(s: State, player: str, verb: str, cards: list[Card] | None) -> None:
    """Fail for a turn action out of turn; the first of a match round names the player who
    starts it (ruling 23)."""
    current = s.players[s.current]
    match = s.match
    starts = match is not None and not s.first_action_done
    fail(
        "wrong_starter" if starts else "wrong_player",
        f"{player} {what(verb, cards)} but it is {current}'s turn"
        + (
            f": {current} makes the first turn action of round "
            f"{match.round} of match {match.match_id}"
            if starts and match is not None
            else ""
        ),
        (f"option first_player = {s.rules.first_player!r}; PRESETS.md ruling 23")
        if starts
        else "turn order (FORMAT.md Conventions: Seats and turns)",
        describe_legal(s),
    )


def not_in_play(s: State, player: str, verb: str, cards: list[Card] | None) -> None:
    """Fail for a turn action outside play (before the deal, or after the round).

    Raises:
        RuleViolation: ``play_after_round_end`` or ``missing_header``.
    """
    if s.phase in (OUT, ENDED):
        why = (
            f"{s.out_player} went out" if s.phase == OUT else f"the round ended ({s.ended_reason})"
        )
        fail(
            "play_after_round_end",
            f"{player} {what(verb, cards)} after the round was over: {why}",
            "RULES.md (first player to empty the hand ends the round)",
            "round_end" if s.phase == ENDED else "a call, a catch, or round_end",
        )
    if s.phase == SETUP:
        fail("missing_header", f"{player} {what(verb, cards)} before the deal", "FORMAT.md Events")


def known_player(s: State, player: str | None, where: str) -> str:
    """``player`` if a player of this game.

    Raises:
        RuleViolation: ``wrong_player``.
    """
    if player is None or player not in s.seat:
        fail(
            "wrong_player",
            f"{where}: {player!r} is not a player of this game",
            "FORMAT.md Events (game.players)",
            f"one of {', '.join(s.players)}",
        )
    return player
