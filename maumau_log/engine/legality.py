"""Pure questions of legality: one source for every decision (check, ask, do; STYLE.md
habits 3 and 14).

Each decision is made once, by a function that returns the problem (or None, or the draw's
reason): :func:`play_problem` backs :func:`can_play`, :func:`legal_plays`, the legal actions
and the violation message; :func:`draw_problem` and :func:`pass_problem` do the same for
draws and passes. Nothing here changes the state, except that the apply path may pass
``notes`` (the state's ``unchecked`` set) to record what a hidden hand kept from being
checked.

Rules: what may go on the pile (RULES.md "What every system shares"; PRESETS.md rulings 1
and 18, ``wild_on_wild``), answers to a pending draw (RULES.md 2, rulings 2-3 and 22,
``draw_answer``) or skip (ruling 6, ``skip_answer``), ``no_finish_on`` (ruling 19), plays
after a draw (``play_after_draw``), covers (rulings 5 and 20, ``cover_match``), draws and
passes (rulings 11-12, 16).
"""

from __future__ import annotations

from ..cards import Card
from .errors import Problem, Refusal, what
from .partial import missing_cards
from .state import ENDED, HIDDEN, OUT, PLAY, SETUP, State, drawable, next_seat, nothing_to_draw


def playable(s: State, card: Card) -> bool:
    """True when ``card`` may go on the discard pile in an ordinary turn (no pending draw
    or skip): it matches the suit to follow, or the top card's suit or rank, or it is a
    wild card (not on a wild card played as one unless ``wild_on_wild``). RULES.md
    "What every system shares"; PRESETS.md ruling 1. A look-up in
    :attr:`~.state.State.pile_ok`.
    """
    return card in s.pile_ok  # tables.py; rebuilt by state.update_pile


def answers_draw(s: State, card: Card) -> bool:
    """``card`` answers the pending draw (``draw_answer``, ``draw_cancel``; rulings 2-3)."""
    info = s.cards[card]
    if info.cancel:
        return True
    if info.wild and s.rules.wild_on_pending:
        return True
    if info.draw <= 0:
        return False
    if s.rules.draw_answer == "same_rank":
        return info.rank == s.pending_rank
    return s.rules.draw_answer == "any_draw_card"


def answers_skip(s: State, card: Card) -> bool:
    """``card`` answers the pending skip (``skip_answer``, ``wild_on_pending``; ruling 6)."""
    info = s.cards[card]
    if info.wild and s.rules.wild_on_pending:
        return True
    return s.rules.skip_answer and info.skip and info.rank == s.skip_rank


def finish_allowed(s: State, player: str, card: Card, count: int = 1) -> bool:
    """``player`` may lay down ``count`` cards ending with ``card`` as the last ones
    (``no_finish_on``; a cover card may, ruling 5)."""
    info = s.cards[card]
    return not (len(s.hands[player]) == count and info.no_finish and not info.cover)


def pending_draw(s: State) -> int:
    """The pending draw as it stands: one with no card left anywhere has lapsed (rulings 12
    and 24, :func:`.state.nothing_to_draw`), whether or not an event has settled it yet."""
    if s.pending_draw and nothing_to_draw(s):
        return 0
    return s.pending_draw


def owed_previous(s: State) -> dict[str, int]:
    """Previous-player draws still owed (ruling 8); none with no card left anywhere
    (:func:`.state.nothing_to_draw`)."""
    if s.prev_owed and nothing_to_draw(s):
        return {}
    return s.prev_owed


# --- who may act, and what the player owes first (PRESETS.md ruling 25 (2), (3), (5)):
# one source for the checks of a turn (turns.turn_check), of a play (play_problem) and of
# a jump-in (jump_problem), and for legal_actions


def blocked(s: State, player: str, verb: str, cards: list[Card] | None = None) -> Refusal | None:
    """Why nobody may take a turn action now, or None: the round is not in play, or a suit
    is still to be named for a wild card (ruling 25 (2); ruling 24: a wild starter's suit
    is named first). ``player``, ``verb`` and ``cards`` word the message."""
    phase = s.phase
    if phase != PLAY:
        doing = what(verb, cards)
        if phase in (OUT, ENDED):
            why = (
                f"{s.out_player} went out"
                if phase == OUT
                else f"the round ended ({s.ended_reason})"
            )
            return (
                "play_after_round_end",
                f"{player} {doing} after the round was over: {why}",
                "RULES.md (first player to empty the hand ends the round)",
                "round_end" if phase == ENDED else "a call, a catch, or round_end",
            )
        if phase == SETUP:
            return ("missing_header", f"{player} {doing} before the deal", "FORMAT.md Events", "")
        return None
    return suit_refusal(s, f"{player} {what(verb, cards)}") if s.awaiting_suit is not None else None


def suit_refusal(s: State, doing: str) -> Refusal | None:
    """``missing_suit_choice`` while a suit is still to be named, for any other event by
    anyone (``doing``: that event in words), or None (ruling 25 (2); ruling 24)."""
    waits = s.awaiting_suit
    if waits is None:
        return None
    if not s.plays and len(s.discard) == 1:  # wild_starter names it first (ruling 24)
        return (
            "missing_suit_choice",
            f"{waits} names the suit for the wild starter {s.discard[-1]} first; {doing} instead",
            "option wild_starter = 'first_player_names'; PRESETS.md ruling 24",
            f"a suit event by {waits}",
        )
    return (
        "missing_suit_choice",
        f"{waits} played a wild card and named no suit; {doing} instead",
        "option wild_names_suit; FORMAT.md Conventions (suit right after the wild)",
        f"a suit event by {waits}",
    )


def to_move(s: State, player: str) -> str:
    """The player to move, as an event by ``player`` finds it: with a pending skip, an
    event by anyone but the skipped player takes the skip (ruling 6), so the player after
    the skipped ones moves; else the current player."""
    if s.pending_skip and player != s.players[s.current]:
        return s.players[next_seat(s, s.current, s.pending_skip)]
    return s.players[s.current]


def turn_refusal(
    s: State, player: str, verb: str, cards: list[Card] | None = None, note: str | None = None
) -> Refusal | None:
    """Why ``player`` may not take a turn action now, or None (ruling 25 (3)): another
    player still owes the rest of a split penalty (ruling 10), or it is not the player's
    turn (the first turn action of a match round names who starts it: ruling 23).
    ``note``: why the play is no jump-in, added to the message."""
    split = penalty_first(s, player) if s.penalty_owed is not None else None
    if split is not None:
        owed_by = split[0]
        return (
            "missed_penalty",
            f"{owed_by} still owes {split[1]} penalty card(s) (the stock ran out mid-penalty)",
            "PRESETS.md ruling 10",
            f"a reshuffle, then {owed_by}'s penalty draw",
        )
    mover = to_move(s, player)
    if player == mover:
        return None
    match = s.match
    starts = match is not None and not s.first_action_done
    return (
        "wrong_starter" if starts else "wrong_player",
        f"{player} {what(verb, cards)} but it is {mover}'s turn"
        + (
            f": {mover} makes the first turn action of round {match.round} of match "
            f"{match.match_id}"
            if starts and match is not None
            else ""
        )
        + (f" (no jump-in: {note})" if note else ""),
        f"option first_player = {s.rules.first_player!r}; PRESETS.md ruling 23"
        if starts
        else "turn order (FORMAT.md Conventions: Seats and turns)",
        None,
    )


def owed_refusal(
    s: State, player: str, verb: str, cards: list[Card] | None = None
) -> Refusal | None:
    """Why ``player`` may not take this turn action before an owed previous-player draw,
    or None (ruling 25 (5); ruling 8; a lapsed one is owed no more: ruling 12)."""
    owed = owed_previous(s).get(player) if s.prev_owed else None
    if not owed:
        return None
    return (
        "missed_penalty",
        f"{player} {what(verb, cards)} but first owes an effect draw of {owed}",
        "option draw_previous; PRESETS.md ruling 8",
        f"{player} draws {owed} (effect)",
    )


def penalty_first(s: State, player: str) -> tuple[str, int] | None:
    """The rest of a penalty split by an empty stock (``(who, cards)``) that another
    player must draw before ``player`` may take a turn action, or None (PRESETS.md ruling
    10)."""
    owed = s.penalty_owed
    if owed is not None and owed[0] != player:
        return owed
    return None


def turn_blocked(s: State, player: str) -> bool:
    """``player`` may take no turn action now: another player still owes the rest of a
    split penalty (ruling 10), or ``player`` owes a previous-player draw first (ruling 8):
    :func:`turn_refusal` and :func:`owed_refusal` for the player to move."""
    return penalty_first(s, player) is not None or bool(owed_previous(s).get(player))


def drawn_before_suit(s: State, card: Card) -> bool:
    """True when every ``card`` the current player holds was drawn for an until_suit cover
    before the suit came: such cards may not be played in that turn (ruling 20)."""
    return s.cover_drawn[card] >= s.hands[s.players[s.current]].count(card)


def quiet_turn(s: State) -> bool:
    """True when the player to move owes nothing: no pending skip, draw, previous-player
    draw or penalty, no suit to name, no cover draw under way. Then :func:`play_problem`
    for that player and a card of a hand of more than one card is None exactly when the
    card is in :attr:`~.state.State.pile_ok` and, after a draw this turn,
    :func:`after_draw_problem` is None (its other checks all pass): the apply path's
    fast path tests just these."""
    return not (
        s.pending_skip
        or s.pending_draw
        or s.prev_owed
        or s.awaiting_suit is not None
        or s.penalty_owed is not None
        or s.must_play is not None
        or s.cover_drawing
        or s.cover_drawn
        or s.turn_over_after_draw
    )


def after_draw_problem(s: State, player: str, card: Card) -> Problem | None:
    """Why ``player``, who drew this turn, may not play ``card`` after it, or None
    (option ``play_after_draw``)."""
    after = s.after_draw
    if after == "drawn" and card != s.drawn_card and s.drawn_card != HIDDEN:
        return (
            "card_does_not_match",
            f"after drawing, {player} may play only the drawn card ({s.drawn_card})",
            "option play_after_draw = 'drawn'",
        )
    if after == "none":
        return (
            "card_does_not_match",
            f"{player} may not play after drawing",
            "option play_after_draw = 'none'",
        )
    return None


def turn_play_problem(s: State, player: str, card: Card) -> Problem | None:
    """Why ``player``, whose turn it is (no skip pending), may not play ``card`` now, or
    None. The one source of a play's legality (see the module doc)."""
    if s.must_play is not None:
        if card == s.must_play:
            return None
        return (
            "card_does_not_match",
            f"{player} drew {s.must_play}, which covers the {s.discard[-1]}, and must play it",
            "option cover_draw; PRESETS.md ruling 5",
        )
    cover = s.cover_owed
    if s.cover_drawing and cover is not None:
        return (
            "card_does_not_match",
            f"{player} plays {card} while drawing to cover {cover}: the draw goes on "
            f"until a card of the suit {s.cards[cover].suit} comes, and only that card covers",
            "option cover_draw = 'until_suit'; PRESETS.md ruling 20",
        )
    if s.cover_drawn and drawn_before_suit(s, card):
        return (
            "card_does_not_match",
            f"{player} drew {card} for a cover before a card of the cover suit came; "
            "such a card may not be played in that turn",
            "option cover_draw = 'until_suit'; PRESETS.md ruling 20",
        )
    if s.turn_over_after_draw:
        return (
            "card_does_not_match",
            f"{player} drew for the cover and the card drawn does not cover: the turn "
            "is over (pass)",
            f"option cover_draw = {s.rules.cover_draw!r}; PRESETS.md ruling 5",
        )
    if s.cover_drawing:
        return _after_that_draw(player)
    pending = pending_draw(s) if s.pending_draw else 0
    if pending:
        if s.serving:  # the rest of a draw split by an empty stock is owed (ruling 22)
            return (
                "missed_penalty",
                f"{player} must draw the rest of the pending draw ({pending}) before "
                f"playing; {card} may not be played meanwhile",
                "option draw; PRESETS.md rulings 12 and 22",
            )
        if answers_draw(s, card):
            return None
        r = s.rules
        if r.draw_answer == "none" and not r.wild_on_pending and not r.draw_cancel:
            # nothing answers a pending draw under this ruleset: do not suggest it
            said = (
                f"{player} must draw {pending} (pending from a {s.pending_rank}); no card "
                f"answers it here, so {card} may not be played"
            )
        else:
            said = (
                f"{player} must draw {pending} (pending from a {s.pending_rank}) or answer "
                f"it; {card} does not answer it"
            )
        return (
            "missed_penalty",
            said,
            f"options draw, draw_answer = {r.draw_answer!r}; PRESETS.md ruling 22",
        )
    if s.draws_this_turn:
        problem = after_draw_problem(s, player, card)
        if problem is not None:
            return problem
    if len(s.hands[player]) == 1 and not finish_allowed(s, player, card):
        return (
            "card_does_not_match",
            f"{player} may not go out on {card}",
            f"option no_finish_on = {list(s.rules.no_finish_on)}; PRESETS.md ruling 19",
        )
    if card in s.pile_ok:  # playable(): a table look-up
        return None
    return ("card_does_not_match", *_no_match(s, player, card))


def _no_match(s: State, player: str, card: Card) -> tuple[str, str]:
    """Why ``card`` may not go on the pile: the message and the rule."""
    top = s.discard[-1]
    rules = s.rules
    cover = s.cover_owed
    if cover is not None and rules.cover_match == "suit":
        suit = s.cards[cover].suit
        why = f"{card} does not cover {cover}: only a card of the suit {suit} covers"
        rule = "option cover_match = 'suit'; PRESETS.md ruling 20"
    elif s.cards[card].wild:
        why = f"{card} is wild but may not go on the wild card {top}"
        rule = "option wild_on_wild = false"
    elif s.suit_to_follow is not None:
        why = f"{card} does not follow the suit {s.suit_to_follow} named for the wild card {top}"
        rule = (
            f"options wild = {list(rules.wild)}, wild_names_suit; "
            "RULES.md (a named suit must be followed)"
        )
    elif s.cards[top].suit is None:
        why = (
            f"{top} lies with no suit named, so it has no suit or rank to match: only a "
            "joker or a wild card may go on it"
        )
        rule = "PRESETS.md ruling 18"
    else:
        why = f"{card} matches neither the suit nor the rank of {top}"
        rule = "RULES.md (a card matches the rank or suit of the top discard)"
    return f"{player} plays {card}: {why}", rule


def _after_that_draw(player: str) -> Problem:
    return (
        "card_does_not_match",
        f"{player} may not play after that draw",
        "options draw_ends_turn / cover_draw",
    )


def play_problem(s: State, player: str, card: Card) -> Problem | None:
    """Why ``player`` may not play ``card`` (held) now, or None, in the order of ruling 25:
    :func:`blocked`, :func:`turn_refusal` (a pending skip: only its answer by the skipped
    player), :func:`owed_refusal`, then :func:`turn_play_problem`."""
    cards = [card]
    refusal = (
        blocked(s, player, "plays", cards)
        or turn_refusal(s, player, "plays", cards)
        or owed_refusal(s, player, "plays", cards)
    )
    if refusal is not None:
        return refusal[0], refusal[1], refusal[2]
    if s.pending_skip and player == s.players[s.current]:
        if answers_skip(s, card):
            return None
        return (
            "card_does_not_match",
            f"{player} is skipped by a {s.skip_rank} and may only answer with a "
            f"{s.skip_rank}; {card} does not answer it",
            "option skip_answer; PRESETS.md ruling 6",
        )
    return turn_play_problem(s, player, card)


def can_play(s: State, player: str, card: Card) -> bool:
    """True when ``player`` may play ``card`` (held) now (:func:`play_problem` is None)."""
    return play_problem(s, player, card) is None


def held(s: State, player: str) -> list[Card]:
    """The distinct shown cards of ``player``'s hand, sorted."""
    return sorted({c for c in s.hands[player] if c != HIDDEN})


def legal_plays(s: State, player: str) -> list[Card]:
    """The distinct cards ``player`` may play now, sorted (empty when it is not their move)."""
    return [c for c in held(s, player) if play_problem(s, player, c) is None]


def turn_plays(s: State, player: str) -> list[Card]:
    """The distinct cards ``player`` may play as the player to move with no skip pending
    (a pending skip taken: the next player's plays)."""
    return [c for c in held(s, player) if turn_play_problem(s, player, c) is None]


def draw_problem(s: State, player: str, notes: set[str] | None = None) -> tuple[str, str]:
    """Whether ``player``, to move, may make a non-effect draw now (rulings 5, 11, 16).

    Args:
        notes: where to record what a hidden hand kept from being checked (the apply path
            passes ``unchecked``; queries pass None and change nothing).
    Returns:
        ``(reason, "")`` for a legal draw (``"no_play"``, ``"voluntary"`` or ``"cover"``),
        else ``("", why)``.
    """
    if s.pending_draw and pending_draw(s):
        return "", f"a draw of {s.pending_draw} is pending"
    if s.must_play is not None:
        return "", f"the drawn {s.must_play} covers and must be played"
    if s.turn_over_after_draw:
        return "", "the turn is over after that draw; pass"
    if not s.stock and nothing_to_draw(s):
        return "", (
            "nothing is left to draw (the stock is empty and the discard pile cannot be "
            "reshuffled); a player with no card to play passes"
        )
    hand = s.hands[player]
    if s.cover_owed is not None:
        if s.cover_drawing:
            return "cover", ""
        can_cover = [
            c
            for c in hand
            if c != HIDDEN and playable(s, c) and not (s.cover_drawn and drawn_before_suit(s, c))
        ]
        if notes is not None and not can_cover and HIDDEN in hand:
            notes.add("whether a hidden hand could cover before drawing")
        if not can_cover or s.rules.voluntary_draw:
            return "cover", ""
        return "", _can_play_text(s, player)
    if s.draws_this_turn >= s.max_draws:
        return "", f"already drew {s.draws_this_turn} time(s) this turn"
    if s.draws_this_turn and s.after_draw == "none":
        return "", "the rules do not allow a draw now"
    if (
        len(hand) > 1
        and s.must_play is None
        and not s.cover_drawing
        and not s.cover_drawn
        and (not s.draws_this_turn or s.after_draw == "any")
    ):  # here turn_play_problem is "in pile_ok" alone (the same decision, as one set test)
        has_play = _any_in(hand, s.pile_ok)
    else:
        # turn_play_problem is None only for a card in pile_ok here (no drawn card must be
        # played and no draw is pending: both returned above), so no other card is asked
        # (its refusal would build a message; HIDDEN is in no pile table)
        pile = s.pile_ok
        has_play = any(turn_play_problem(s, player, c) is None for c in hand if c in pile)
    # (a hand holds HIDDEN only in a partial log, whose deal set ``unseen``: no scan else)
    if notes is not None and not has_play and s.unseen is not None and HIDDEN in hand:
        notes.add("whether a hidden hand could play before drawing or passing")
    if not has_play:
        return "no_play", ""
    if s.rules.voluntary_draw:
        return "voluntary", ""
    return "", _can_play_text(s, player)


def _any_in(hand: list[Card], cards: frozenset[Card]) -> bool:
    """True when a card of ``hand`` is in ``cards`` (``not cards.isdisjoint(hand)``, as a
    typed loop: the compiled build tests each card in C, no method call)."""
    return any(c in cards for c in hand)  # a loop in the compiled build


def _can_play_text(s: State, player: str) -> str:
    plays = turn_plays(s, player)
    if plays:
        return f"{player} can play ({' '.join(plays)}) and voluntary draws are not allowed"
    return "the rules do not allow a draw now"


def pass_problem(
    s: State, player: str, skip: int | None = None, notes: set[str] | None = None
) -> str | None:
    """Why ``player``, to move, may not pass now, or None (PRESETS.md ruling 11): a pass
    comes after ``max_draws`` draws (or a draw that emptied the stock) where a drawn card
    may be played, or with nothing to draw. ``skip``: the pending skip to assume (None: the
    state's); ``notes`` as :func:`draw_problem`.
    """
    if skip is None:
        skip = s.pending_skip
    ok = False
    if pending_draw(s) or skip or s.must_play is not None:
        ok = False
    elif s.turn_over_after_draw or (
        s.after_draw != "none"
        and s.draws_this_turn
        and (s.draws_this_turn >= s.max_draws or not s.stock)
    ):
        ok = True  # after the draws a turn allows (ruling 11)
    elif nothing_to_draw(s):
        plays = turn_plays(s, player)
        if notes is not None and HIDDEN in s.hands[player] and not plays:
            notes.add("whether a hidden hand could play before drawing or passing")
        ok = s.rules.voluntary_draw or not plays
    if ok:
        return None
    if s.after_draw == "none" and s.draws_this_turn:
        return "the draw already ended the turn"
    if s.must_play is not None:
        return f"the drawn {s.must_play} covers and must be played"
    if not s.stock and drawable(s):
        return (
            "the stock is empty but the discard pile can be reshuffled: a reshuffle "
            "must be logged before the draw"
        )
    if not s.draws_this_turn:
        return "a player passes only after drawing, or when there is nothing to draw"
    return f"drew {s.draws_this_turn} of {s.rules.max_draws} allowed draws"


def jump_problem(s: State, player: str, cards: list[Card]) -> Problem | None:
    """Why ``player``'s play of ``cards`` out of turn is no jump-in that may be made, or
    None (PRESETS.md ruling 7), in the order of ruling 25: the round in play and no suit
    owed (:func:`blocked`); a jump-in at all (``wrong_player``: the moment allows none, or
    the cards are not all identical to the top card); the cards in the hand
    (``card_not_in_hand``); an owed previous-player draw (``missed_penalty``)."""
    refusal = blocked(s, player, "plays", cards)
    if refusal is not None:
        return refusal[0], refusal[1], refusal[2]
    rule = "option jump_in; PRESETS.md ruling 7"
    why = no_jump(s, player, cards)
    if why is not None:
        return ("wrong_player", why, rule)
    short = missing_cards(s, player, cards)
    if short:
        return (
            "card_not_in_hand",
            f"{player} does not hold {' '.join(sorted(short.elements()))}",
            "FORMAT.md Conventions (card conservation)",
        )
    if s.prev_owed.get(player):
        return (
            "missed_penalty",
            f"{player} owes {s.prev_owed[player]} card(s) to draw first",
            "option draw_previous; PRESETS.md ruling 8",
        )
    return None


def no_jump(s: State, player: str, cards: list[Card]) -> str | None:
    """Why a play of ``cards`` by ``player`` out of turn is no jump-in, or None: only
    right after a play (not on the starter, not after a draw, a pass or a penalty), not on
    the own play, not while a cover or a play-again is owed, and only with cards all
    identical to the top card (ruling 7)."""
    if not s.jump_open:
        return (
            "a jump-in comes only right after a play (not on the starter, not after a "
            "draw, a pass or a penalty)"
        )
    if player == s.last_player:
        return "nobody jumps in on the own play"
    if s.cover_owed is not None or s.play_again_owed:
        return "a cover or a play-again is owed"
    top = s.discard[-1]
    if any(c != top for c in cards):
        return f"{' '.join(cards)} is not identical to the top card {top}"
    return None
