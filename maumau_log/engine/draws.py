"""Draws and passes: the ``draw`` and ``pass`` events (RULES.md "What every system shares":
a player who cannot play draws; FORMAT.md Conventions (effect draws); PRESETS.md rulings 8,
11, 12 and 16; options ``draw``, ``draw_ends_turn``, ``voluntary_draw``, ``max_draws``,
``play_after_draw``, ``blocked_passes``).

Serving a pending draw, an out-of-turn previous-player draw (ruling 8), a cover draw
(:mod:`.covers`) and an ordinary draw each have their checks; whether an ordinary draw or a
pass is allowed is decided once, in :mod:`.legality`.
"""

from __future__ import annotations

from ..events import Draw, Pass
from .actions import describe_legal
from .covers import cover_draw
from .errors import fail, number_text
from .legality import blocked, draw_problem, pass_problem, quiet_turn
from .state import (
    ENDED,
    PLAY,
    State,
    drawable,
    end_turn,
    note_turn_action,
    nothing_to_draw,
    set_cover,
)
from .stock import size, take
from .turns import block_check, known_player, owed_check, refuse, turn_check


def on_draw(
    s: State,
    ev: Draw,
    player: str,
    count: int | None,
    cards: list[str] | None,
    reason: str | None,
) -> None:
    """Check and apply a ``draw`` event.

    Args:
        s: the state.
        ev: the event.
        player, count, cards, reason: ``ev``'s fields, read once by the dispatch (each
            read of an event's field is a generic attribute look-up in the compiled build).
    Raises:
        RuleViolation: ``wrong_draw_count`` (a draw the rules do not allow, a wrong size),
            ``missed_penalty`` (not serving a pending draw), ``wrong_player``, stock errors.
    """
    if quiet_draw_read(s, player, count, cards, reason):
        return
    if s.pending_draw and quiet_serve_read(s, player, count, cards, reason):
        return
    checked_draw(s, ev)


def _quiet_turn_taken(s: State, me: str) -> None:
    """What the checked path's turn bookkeeping does for a draw of the player to move that
    a quiet path has cleared: the turn's first action done (as :func:`.turns.turn_check`),
    the skips of the last turn over, no jump-in open, and the last two actors
    (:func:`.state.note_turn_action`, ruling 8)."""
    s.first_action_done = True
    if s.just_skipped:
        s.just_skipped = set()
    s.jump_open = False
    if me != s.last_turn_actor:
        s.prev_turn_actor = s.last_turn_actor
        s.last_turn_actor = me


def quiet_draw(s: State, ev: Draw, player: str, count: int | None) -> bool:
    """:func:`quiet_draw_read` of the event's fields (``player`` and ``count`` are ``ev``'s)."""
    return quiet_draw_read(s, player, count, ev.cards, ev.reason)


def quiet_draw_read(
    s: State, player: str, count: int | None, cards: list[str] | None, reason: str | None
) -> bool:
    """The fast path of :func:`checked_draw`: one card drawn by the player to move, who
    owes nothing (:func:`.legality.quiet_turn`) and no cover, for no effect, where
    :func:`.legality.draw_problem` allows it; such a draw is applied and True returned.
    Anything else returns False with the state untouched but for the notes of
    ``unchecked`` (a hidden hand), for :func:`checked_draw` to judge. Pinned against it
    by tests/test_fast_paths.py. ``player``, ``count``, ``cards``, ``reason``: the draw
    event's fields."""
    # the seat's own name (equal to ``player``) from here on: the look-ups of the hand
    # by name find it by identity and its hash is kept (the decoded name's is not)
    me = s.players[s.current]
    if not (
        player == me
        and s.phase == PLAY
        and s.cover_owed is None
        and reason != "effect"
        and (cards is None or len(cards) == 1)
        and (count is None or count == 1)
        and quiet_turn(s)
    ):
        return False
    allowed, _ = draw_problem(s, me, s.unchecked)
    if not allowed:
        return False
    _quiet_turn_taken(s, me)
    _ordinary_draw(s, me, cards, count)
    return True


def quiet_serve(s: State, ev: Draw, player: str, count: int | None) -> bool:
    """:func:`quiet_serve_read` of the event's fields (``player`` and ``count`` are ``ev``'s)."""
    return quiet_serve_read(s, player, count, ev.cards, ev.reason)


def quiet_serve_read(
    s: State, player: str, count: int | None, cards: list[str] | None, reason: str | None
) -> bool:
    """The fast path of :func:`checked_draw` for serving a pending draw (option ``draw``;
    rulings 3 and 12): the player to move, who owes no previous-player draw, penalty,
    suit or cover and is not skipped, draws for an effect (or names no reason) while cards
    are left to draw, at most the pending count and all of it unless the stock holds less.
    Then every check of ruling 25 before the stock's passes, and the draw is applied as
    :func:`checked_draw` applies it (the stock's checks in :func:`.stock.take` included),
    and True returned. Anything else returns False with the state untouched, for
    :func:`checked_draw` to judge. Pinned against it by
    tests/test_quiet_paths_match_checked_paths.py and tests/test_quiet_serve.py.
    ``player``, ``count``, ``cards``, ``reason``: the draw event's fields."""
    me = s.players[s.current]
    if not (
        player == me
        and s.phase == PLAY
        and not s.pending_skip
        and not s.prev_owed
        and s.awaiting_suit is None
        and s.penalty_owed is None
        and s.cover_owed is None
        and not nothing_to_draw(s)  # then nothing lapses (turns.settle)
    ):
        return False
    if reason is not None and reason != "effect":
        return False
    n = len(cards) if cards is not None else count if count is not None else 1  # stock.size
    if n < 1 or n > s.pending_draw or (n < s.pending_draw and n != len(s.stock)):
        return False
    _quiet_turn_taken(s, me)
    _serve_pending(s, me, reason, cards, count, n)
    return True


def checked_draw(s: State, ev: Draw) -> None:
    """Check a ``draw`` event in the order of ruling 25, then apply it.

    Raises:
        RuleViolation: ``wrong_draw_count`` (a draw the rules do not allow, a wrong size),
            ``missed_penalty`` (not serving a pending draw), ``wrong_player``, stock errors.
    """
    player = known_player(s, ev.player, "draw")
    n = size(ev, 1)  # (once: each read of an event's field is a generic look-up, compiled)
    if n == 0:  # "cards": [] or "count": 0: no draw at all (every handler
        # below takes at least one card: a cover draw looks at the last card drawn)
        fail("wrong_draw_count", f"{player} draws no cards", "FORMAT.md Events (draw)")
    if s.prev_owed.get(player):
        # the debtor of a previous-player draw may draw out of turn (ruling 25 (3)); a
        # draw for another reason is missed_penalty (5) unless the debt lapsed
        if ev.reason in (None, "effect"):
            serve_previous(s, player, ev)
            return
        block_check(s, player, "draws")
        owed_check(s, player, "draws")
    turn_check(s, player, "draws")
    if s.just_skipped:
        s.just_skipped = set()
    s.jump_open = False
    note_turn_action(s, player)
    if s.pending_skip:
        fail(
            "wrong_player",
            f"{player} is skipped and may not draw",
            "option skip; PRESETS.md ruling 6",
            describe_legal(s),
        )
    rules = s.rules
    if s.pending_draw:
        _serve_pending(s, player, ev.reason, ev.cards, ev.count, n)
        return
    if ev.reason == "effect":
        fail(
            "wrong_draw_count",
            f"{player} draws for an effect but no draw is pending",
            "FORMAT.md Conventions (effect draws); PRESETS.md ruling 16",
            describe_legal(s),
        )
    reason, why = draw_problem(s, player, s.unchecked)
    if not reason:
        fail(
            "wrong_draw_count",
            f"{player} may not draw here: " + why,
            "PRESETS.md rulings 11-12"
            if not drawable(s)
            else f"option cover_draw = {rules.cover_draw!r}; PRESETS.md ruling 5"
            if s.must_play is not None or s.turn_over_after_draw
            else f"options voluntary_draw = {str(rules.voluntary_draw).lower()}, "
            f"max_draws = {rules.max_draws}; PRESETS.md ruling 16",
            describe_legal(s),
        )
    if s.cover_owed is not None:
        cover_draw(s, player, ev, n)
        return
    if n != 1:
        fail(
            "wrong_draw_count",
            f"{player} draws {number_text(n)} cards; a draw takes one card",
            "RULES.md (a player who cannot play draws one card)",
            "draw 1",
        )
    _ordinary_draw(s, player, ev.cards, ev.count)


def _ordinary_draw(s: State, player: str, cards: list[str] | None, count: int | None) -> None:
    """Take the card of an ordinary (non-effect, non-cover) draw that is allowed
    (``cards`` and ``count`` as the draw event logs them)."""
    drawn = take(s, player, cards, count, "{}'s draw")
    if s.faults:
        s.faults.pop(player, None)
    s.draws_this_turn += 1
    s.drawn_card = drawn[0]
    if s.after_draw == "none":
        end_turn(s)


def _serve_pending(
    s: State, player: str, reason: str | None, cards: list[str] | None, count: int | None, n: int
) -> None:
    """Serve (part of) the pending draw (option ``draw``; rulings 3 and 12): ``reason``,
    ``cards`` and ``count`` as the draw event logs them, ``n`` the cards it takes."""
    rules = s.rules
    if reason is not None and reason != "effect":
        fail(
            "missed_penalty",
            f"{player} must serve the pending draw of {s.pending_draw}, not draw for {reason}",
            "option draw; FORMAT.md Conventions (effect draws); PRESETS.md ruling 22",
            describe_legal(s),
        )
    if n > s.pending_draw:
        fail(
            "wrong_draw_count",
            f"{player} draws {number_text(n)} but owes {s.pending_draw}",
            f"option draw = {dict(rules.draw)}",
            f"draw {s.pending_draw}",
        )
    if n < s.pending_draw and n != len(s.stock):
        fail(
            "wrong_draw_count",
            f"{player} draws {number_text(n)} but owes {s.pending_draw} and the stock holds "
            f"{len(s.stock)}"
            + (
                ": a reshuffle must be logged before the draw"
                if not s.stock and drawable(s)
                else ""
            ),
            # ruling 12 (a draw split by a reshuffle) only where the stock is short of the
            # draw; a stock that holds it all serves it in one event (FORMAT.md Conventions)
            f"option draw = {dict(rules.draw)}; PRESETS.md ruling 12"
            if len(s.stock) < s.pending_draw
            else f"option draw = {dict(rules.draw)}; FORMAT.md Conventions (effect draws)",
            f"draw {min(s.pending_draw, len(s.stock))}",
        )
    take(s, player, cards, count, "{}'s draw")
    s.faults.pop(player, None)
    if rules.emptying_draw_counts_as_pass and n == s.pending_draw and nothing_to_draw(s):
        s.blocked_passes += 1  # OpenSpiel counts it toward the blocked passes
    s.pending_draw -= n
    s.serving = True
    if s.pending_draw and nothing_to_draw(s):
        s.pending_draw = 0  # the rest lapses (ruling 12)
    if not s.pending_draw:
        s.pending_rank = None
        if s.pending_ends_turn:
            end_turn(s)
        else:
            s.serving = False


def serve_previous(s: State, player: str, ev: Draw) -> None:
    """An out-of-turn effect draw for a ``draw_previous`` card (PRESETS.md ruling 8);
    a player who owes both this and a pending draw serves this one first.

    Raises:
        RuleViolation: ``play_after_round_end``, ``missing_suit_choice``,
            ``wrong_draw_count``.
    """
    refusal = blocked(s, player, "draws")
    if refusal is not None:
        refuse(s, refusal)
    owed = s.prev_owed[player]
    n = size(ev, owed)
    if n > owed or (n < owed and n != len(s.stock)):
        fail(
            "wrong_draw_count",
            f"{player} draws {number_text(n)} but owes {owed} for the previous-player draw",
            f"option draw_previous = {dict(s.rules.draw_previous)}; PRESETS.md ruling 8",
            f"draw {min(owed, len(s.stock)) or owed}",
        )
    take(s, player, ev.cards, None if ev.cards is not None else n, "{}'s draw")
    s.jump_open = False
    left = owed - n
    if left and not nothing_to_draw(s):
        s.prev_owed[player] = left
    else:
        del s.prev_owed[player]


def on_pass(s: State, ev: Pass) -> None:
    """Check and apply a ``pass`` event (ruling 11; ``blocked_passes``).

    Raises:
        RuleViolation: ``illegal_pass`` (a skipped player, a pass the rules do not
            allow), ``missed_penalty`` (a pending draw not served), turn errors.
    """
    player = known_player(s, ev.player, "pass")
    if player in s.just_skipped and player != s.players[s.current]:
        fail(
            "illegal_pass",
            f"{player} is skipped: a skipped player logs nothing",
            "option skip; PRESETS.md ruling 6",
            describe_legal(s),
        )
    turn_check(s, player, "passes")
    owed_check(s, player, "passes")
    if s.just_skipped:
        s.just_skipped = set()
    if s.pending_skip:
        fail(
            "illegal_pass",
            f"{player} is skipped: a skipped player logs nothing",
            "option skip; PRESETS.md ruling 6",
            describe_legal(s),
        )
    if s.pending_draw:  # also the rest of a draw split by an empty stock (ruling 22)
        fail(
            "missed_penalty",
            f"{player} passes instead of drawing the pending {s.pending_draw}",
            "option draw; PRESETS.md ruling 22",
            describe_legal(s),
        )
    s.jump_open = False
    note_turn_action(s, player)
    rules = s.rules
    why = pass_problem(s, player, notes=s.unchecked)
    if why is not None:
        fail(
            "illegal_pass",
            f"{player} may not pass: {why}",
            "FORMAT.md Conventions (reshuffle); PRESETS.md ruling 11"
            if not s.stock and drawable(s) and not s.draws_this_turn
            else f"options play_after_draw = {rules.play_after_draw!r}, max_draws = "
            f"{rules.max_draws}; PRESETS.md ruling 11",
            describe_legal(s),
        )
    if not s.stock and nothing_to_draw(s):
        s.blocked_passes += 1
        limit = s.n + (1 if rules.blocked_passes == "players+1" else 0)
        if s.blocked_passes >= limit:
            s.phase = ENDED
            s.ended_reason = f"{limit} passes in a row on an empty stock"
            return
    if s.faults:
        s.faults.pop(player, None)
    if s.cover_owed is not None:  # (with none owed the pile's cards stay as they are)
        set_cover(s, None)
    s.cover_drawing = False
    end_turn(s)
