"""Calls and catches: the ``mau`` and ``penalty`` events (PRESETS.md rulings 9-10; options
``call_last_card``, ``call_last_wild``, ``call_going_out``, ``call_penalty``,
``call_penalty_ends_turn``; FORMAT.md Conventions "Calls").

A call window opens with the play that leaves one card (or empties the hand) and closes at
another player's event (:func:`close_window`); a player who closes it without the right
word has a call fault, which another player may catch with a penalty (a second catch of
the same fault is ``wrong_penalty``, naming the first; a hand emptied on a cover card owes
no call, ruling 19).
"""

from __future__ import annotations

from ..cards import Card
from ..events import Call, Penalty
from .errors import fail, number_text, quoted
from .legality import suit_refusal
from .state import (
    CALL_REASONS,
    ENDED,
    HIDDEN,
    OUT,
    PLAY,
    SETUP,
    State,
    drawable,
    end_turn,
    set_cover,
)
from .stock import size, take
from .turns import known_player


def normalize_call(word: str) -> str:
    """Fold a call word for comparison: case, hyphens and spaces ignored (PRESETS.md ruling 9)."""
    folded = word.lower()
    if " " in folded or "-" in folded or "_" in folded:  # (translate is a slow path)
        folded = folded.translate(_FOLD)
    return folded


_FOLD = str.maketrans("", "", " -_")


def last_card_word(s: State, card: Card) -> str | None:
    """The word due for one card left: ``call_last_wild`` for a wild card, else
    ``call_last_card`` (ruling 9); None when no call is due."""
    if s.cards[card].wild and s.rules.call_last_wild is not None:
        return s.rules.call_last_wild
    return s.rules.call_last_card


def call_due(s: State, player: str) -> str | None:
    """The word ``player`` must say now (ruling 9), a pure query: the going-out call right
    after emptying the hand, the last-card word (:func:`last_card_word`) with one shown card
    left in play, else None."""
    if s.phase == OUT and s.out_player == player:
        return s.rules.call_going_out
    if s.phase != PLAY or s.awaiting_suit is not None:
        return None
    hand = s.hands[player]
    if len(hand) != 1 or hand[0] not in s.cards:
        return None
    return last_card_word(s, hand[0])


def close_window(s: State) -> None:
    """Another player acted: settle the open call window (PRESETS.md ruling 9)."""
    if s.window is None:
        return
    player, kind = s.window
    s.window = None
    if kind == "last":
        hand = s.hands[player]
        if len(hand) != 1:
            return
        if hand[0] == HIDDEN:  # either word may be right: the card is not shown
            s.unchecked.add("which call word a hidden last card needs")
            words = {w for w in (s.rules.call_last_card, s.rules.call_last_wild) if w is not None}
            said = [w for w in words if w and normalize_call(w) in s.words]
            if not words:
                return
            if said and len(words) > 1:
                # one of the words was said; whether it was the right one is hidden, so a
                # catch is accepted but no fault is counted
                s.faults[player] = "unverifiable"
                return
            if said:
                return
            s.faults[player] = "wrong_call" if s.words else "missed_call"
            s.call_faults[player] += 1
            return
        due = last_card_word(s, hand[0])
    else:
        due = s.rules.call_going_out
    if due is None or normalize_call(due) in s.words:
        return
    s.faults[player] = "wrong_call" if s.words else "missed_call"
    s.call_faults[player] += 1


def on_call(s: State, ev: Call) -> None:
    """A call word said (it counts until another player's event; ruling 9).

    Raises:
        RuleViolation: ``missing_header`` (before the deal), ``play_after_round_end``.
    """
    player = known_player(s, ev.player, "mau")
    if s.phase == SETUP:
        fail("missing_header", f"{player} calls before the deal", "FORMAT.md Events")
    if s.phase == ENDED:
        fail(
            "play_after_round_end",
            f"{player} calls after the round ended ({s.ended_reason})",
            "FORMAT.md Events (round_end)",
            "round_end",
        )
    s.words.add(normalize_call(ev.call))


def on_penalty(s: State, ev: Penalty) -> None:
    """A catch: the caught player draws the call penalty from the stock (ruling 10).

    Raises:
        RuleViolation: ``wrong_penalty`` (no fault to catch, no catcher, wrong size ...),
            ``missing_suit_choice``, stock errors.
    """
    player = known_player(s, ev.player, "penalty")
    rules = s.rules
    if s.phase in (SETUP, ENDED):
        fail("wrong_penalty", f"a penalty for {player} outside play", "PRESETS.md ruling 10")
    waits = suit_refusal(s, "a penalty came")
    if waits is not None:
        fail(*waits)
    owed = s.penalty_owed
    if owed is not None and owed[0] == player:
        need = owed[1]
    else:
        if ev.reason not in CALL_REASONS:
            fail(
                "wrong_penalty",
                f"penalty reason {quoted(ev.reason)}: the only penalties this ruleset knows are "
                "for a missed or wrong call",
                "PRESETS.md ruling 10",
            )
        if rules.call_penalty == 0:
            fail(
                "wrong_penalty",
                f"{player} is penalized but this ruleset has no call penalty",
                "option call_penalty = 0",
            )
        if ev.by is None or ev.by == player or ev.by not in s.seat:
            fail(
                "wrong_penalty",
                "a call penalty must name the catcher, another player, in `by` (got "
                f"{quoted(ev.by)})",
                "FORMAT.md Conventions (Calls); PRESETS.md ruling 10",
            )
        if player not in s.faults:
            caught = s.caught.get(player)
            fail(
                "wrong_penalty",
                f"{player} made no call fault that can be caught now"
                + (
                    f" (the last call fault of {player} was already caught at event {caught})"
                    if caught is not None
                    else ""
                ),
                "PRESETS.md rulings 9-10 (calls and catches)",
            )
        need = rules.call_penalty
    n = size(ev, need)
    if n > need or (n < need and n != len(s.stock)):
        fail(
            "wrong_penalty",
            f"{player} draws {number_text(n)} penalty cards; the penalty is {need}",
            f"option call_penalty = {rules.call_penalty}",
            f"{need} cards",
        )
    take(s, player, ev.cards, None if ev.cards is not None else n, "the penalty")
    s.jump_open = False
    if s.faults.pop(player, None) is not None:
        s.caught[player] = s.event_index
    rest = need - n
    s.penalty_owed = (player, rest) if rest and drawable(s) else None
    if s.penalty_owed is None and s.suit_after_penalty is not None:
        s.awaiting_suit, s.suit_after_penalty = s.suit_after_penalty, None
    if s.phase == OUT and player == s.out_player:
        _reopen(s, player)
        return
    if (
        rules.call_penalty_ends_turn
        and player == s.players[s.current]
        and not s.pending_draw
        and not s.pending_skip
        and s.phase == PLAY
    ):
        set_cover(s, None)
        s.play_again_owed = False
        end_turn(s)


def _reopen(s: State, player: str) -> None:
    """Caught right after going out: the round goes on (ruling 10); the turn and skips the
    winning card began happen after all."""
    if s.phantom is not None:
        turn_of, skipped = s.phantom
        seat = s.seat[turn_of]
        s.turn_count[seat] = s.turn_count[seat] + 1  # (typed; compiled, `+=` is generic)
        for p in skipped:
            s.skipped[p] += 1
        s.phantom = None
    s.phase = PLAY
    s.out_player = None
    s.window = None
    last = s.last_play[-1] if s.last_play else None
    if last is not None and s.cards[last].wild and s.rules.wild_names_suit:
        # the finishing wild card names its suit once the whole penalty is drawn
        if s.penalty_owed is None:
            s.awaiting_suit = player
        else:
            s.suit_after_penalty = player
