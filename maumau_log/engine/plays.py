"""Plays and what the cards do: the ``play`` and ``suit`` events (RULES.md 1-11; PRESETS.md
rulings 1-8: wild cards and suits, draw cards, skips, reverses, play-again, covers,
jump-in, draws that hit the previous player; 19: a cover card as the last card; 21:
``multi_play_any_suit``; options ``multi_play``, ``max_plays``).

:func:`on_play` checks a play (turn, hand, legality from :mod:`.legality`), then
:func:`lay_down` moves the cards and :func:`after_cards` applies their powers and moves the
turn. :func:`go_out` ends the round for a player who emptied the hand.
"""

from __future__ import annotations

from collections import Counter

from ..cards import Card
from ..events import Play, SuitChoice
from .actions import describe_legal
from .errors import fail
from .legality import (
    after_draw_problem,
    finish_allowed,
    jump_problem,
    play_problem,
    quiet_turn,
    to_move,
)
from .partial import missing_cards, seen_at
from .state import (
    ENDED,
    HIDDEN,
    OUT,
    PLAY,
    State,
    begin_turn,
    begin_turn_same,
    next_seat,
    nothing_to_draw,
    set_cover,
    update_pile,
)
from .stock import check_card
from .tables import CardInfo
from .turns import block_check, known_player, owed_check, resolve_skip, turn_check


def on_play(s: State, ev: Play, player: str, cards: list[Card], jump_in: bool) -> None:
    """Check and apply a ``play`` event: the usual play through :func:`quiet_play`, any
    other through :func:`checked_play`.

    Args:
        s: the state.
        ev: the event.
        player, cards, jump_in: ``ev``'s fields, read once by the dispatch (each read of
            an event's field is a generic attribute look-up in the compiled build).
    Raises:
        RuleViolation: the first failed check in the order of ruling 25.
    """
    if len(cards) == 1 and not jump_in and quiet_play(s, player, cards):
        return
    checked_play(s, ev, player)


def quiet_play(s: State, player: str, cards: list[Card]) -> bool:
    """The fast path of :func:`checked_play`: one card by the player to move, who owes
    nothing (:func:`.legality.quiet_turn`), from a hand of more than one card, is legal
    exactly when the card is in ``pile_ok``, in the hand and allowed after this turn's
    draw, if any; such a play is applied and True returned. Anything else returns False
    with the state untouched, for :func:`checked_play` to name the problem. Pinned against
    it by tests/test_fast_paths.py."""
    me = s.players[s.current]
    if not (s.phase == PLAY and player == me and quiet_turn(s)):
        return False
    card = cards[0]
    # by the seat's own name (equal to ``player``): its hash is kept and the dict finds
    # the entry by identity, where the decoded name would be hashed afresh
    hand = s.hands[me]
    if card not in s.pile_ok or len(hand) <= 1:
        return False
    # where the card is in the hand (-1: not there): one scan, which lay_down removes
    # from, where ``in`` and then ``remove`` made two
    at = _index(hand, card)
    if at < 0 or (s.draws_this_turn and after_draw_problem(s, player, card) is not None):
        return False
    s.first_action_done = True  # as turn_check
    lay_down(s, me, cards, at=at, held=hand)
    return True


def checked_play(s: State, ev: Play, player: str, quick: bool = True) -> None:
    """Check a ``play`` event in the order of ruling 25 (the shape, a suit owed, who may
    act, the cards in the hand, what is owed first, the pile's rules), then apply it.
    ``quick``: False applies the cards' powers through :func:`after_cards` alone (the
    tests pin :func:`plain_powers` against it).

    Raises:
        RuleViolation: the first failed check.
    """
    cards = ev.cards
    if player not in s.seat:
        known_player(s, player, "play")
    if not cards:
        fail("schema_error", "play.cards is empty", "FORMAT.md Events (play)")
    table = s.cards
    if len(cards) == 1:
        if cards[0] not in table:
            cards = [check_card(s, cards[0], "play.cards")]
    elif not all(c in table for c in cards):
        cards = [check_card(s, c, "play.cards") for c in cards]
    # ruling 25, in order: (2) nobody acts while the round is not in play or a suit is owed
    block_check(s, player, "plays", cards)
    # (3) who may act: under jump_in, a player out of turn whose cards may jump in
    rules = s.rules
    note = None
    if rules.jump_in and player != s.players[s.current]:
        problem = jump_problem(s, player, cards)
        if problem is None:
            if len(cards) > 1:
                check_multi(s, player, cards)  # (7)
            lay_down(s, player, cards, jump=True, quick=quick)
            return
        code, why, rule = problem
        if code != "wrong_player":  # a jump-in, refused at (4) or (5)
            fail(code, f"{player} may not jump in: {why}", rule)
        note = why if ev.jump_in else None  # the flag is a label: it only words the message
    elif ev.jump_in and not rules.jump_in and to_move(s, player) != player:
        fail(
            "wrong_player",
            f"{player} jumps in with {' '.join(cards)}, but this ruleset has no jump-in",
            "option jump_in = false",
            describe_legal(s),
        )
    card = cards[0]
    # the skipped player may answer a pending skip (ruling 6)
    if s.pending_skip:
        resolve_skip(s, player, card)
    answering_skip = bool(s.pending_skip and player == s.players[s.current])
    turn_check(s, player, "plays", cards, note)
    check_in_hand(s, player, cards)  # (4)
    owed_check(s, player, "plays", cards)  # (5)
    illegal = play_problem(s, player, card)
    if illegal is not None and illegal[0] == "missed_penalty":  # a pending draw owed (5)
        fail(*illegal, describe_legal(s))
    if len(cards) > 1:  # (7): the pile's rules, multi_play first
        check_multi(s, player, cards)
    if illegal is not None:
        fail(*illegal, describe_legal(s))
    if len(cards) > 1 and not finish_allowed(s, player, cards[-1], len(cards)):
        fail(
            "card_does_not_match",
            f"{player} may not go out on {cards[-1]}",
            f"option no_finish_on = {list(rules.no_finish_on)}; PRESETS.md ruling 19",
            describe_legal(s),
        )
    lay_down(s, player, cards, answering_skip=answering_skip, quick=quick)


def check_in_hand(s: State, player: str, cards: list[Card]) -> None:
    """``player`` holds ``cards`` (a partial log: or may, from the hidden part).

    Raises:
        RuleViolation: ``card_not_in_hand``.
    """
    hand = s.hands[player]
    if len(cards) == 1:
        card = cards[0]
        if card in hand:
            return
        if s.unseen is not None and HIDDEN in hand and s.unseen[card] > 0:
            return  # from the hidden part of the hand
        missing = card
    else:
        short = missing_cards(s, player, cards)
        if not short:
            return
        missing = " ".join(sorted(short.elements()))
    if s.unseen is not None and HIDDEN in hand:
        # a hidden hand: say where the card is seen; what it could legally play is hidden
        need = Counter(missing.split())
        gone = [c for c in need if s.unseen[c] < need[c]]
        fail(
            "card_not_in_hand",
            f"{player} plays {missing} from a hidden hand, but "
            + (
                "no such card is left unseen: " + "; ".join(seen_at(s, c) for c in gone)
                if gone
                else f"only {hand.count(HIDDEN)} of {player}'s cards are hidden"
            ),
            "FORMAT.md Information levels (conservation against the unseen cards)",
            f"a card still unseen that the rules allow here (which of them {player} "
            "holds is hidden), or a draw or pass where the hidden hand allows one",
        )
    fail(
        "card_not_in_hand",
        f"{player} plays {missing} but holds {' '.join(hand) or 'no cards'}",
        "FORMAT.md Conventions (card conservation)",
        describe_legal(s),
    )


def check_multi(s: State, player: str, cards: list[Card]) -> None:
    """Several cards in one play (option ``multi_play``; RULES.md 8 and 11).

    Raises:
        RuleViolation: ``card_does_not_match`` (one card per play here, or cards that may
            not go down together).
    """
    mode = s.rules.multi_play
    rank = s.cards[cards[0]].rank
    if rank in s.rules.multi_play_any_suit and all(s.cards[c].rank == rank for c in cards):
        return  # cards of one such rank, whatever their suits (ruling 21)
    if mode == "none":
        fail(
            "card_does_not_match",
            f"{player} plays {len(cards)} cards at once; one card per play here",
            "option multi_play = 'none'",
            "one card",
        )
    first = cards[0]
    if mode == "identical":
        ok = all(c == first for c in cards)
        kind = "identical cards"
    else:
        ok = all(s.cards[c].rank == rank for c in cards)
        kind = "cards of one rank"
    if not ok:
        fail(
            "card_does_not_match",
            f"{player} plays {' '.join(cards)} together; only {kind} go down together",
            f"option multi_play = {mode!r}",
            "one card, or " + kind,
        )


def _index(hand: list[Card], card: Card) -> int:
    """Where ``card`` first is in ``hand``, or -1 (no exception raised and caught)."""
    for i, c in enumerate(hand):
        if c == card:
            return i
    return -1


def lay_down(
    s: State,
    player: str,
    cards: list[Card],
    answering_skip: bool = False,
    jump: bool = False,
    at: int = -1,
    held: list[Card] | None = None,
    quick: bool = True,
) -> None:
    """Move played cards to the discard pile and apply them (the checks are done).

    ``at``: for one card, where it first is in the hand when the caller has looked (the
    hand unchanged since), else -1. ``held``: ``s.hands[player]`` when the caller has it
    (one dict look-up by the player's name fewer), else None. ``quick``: one plain card's
    powers through :func:`plain_powers` (False: :func:`after_cards`, which it shortcuts).
    """
    if s.just_skipped:
        s.just_skipped = set()
    hand = held if held is not None else s.hands[player]
    if len(cards) == 1:
        card = cards[0]
        if at >= 0:
            hand.pop(at)  # (a list method in the compiled build; ``del`` is generic)
        else:
            try:  # one scan of the hand (``in`` and then ``remove`` made two)
                hand.remove(card)
            except ValueError:  # a card shown from a hidden hand (checked by check_in_hand)
                _from_hidden(s, hand, card)
        s.discard.append(card)
        info = last = s.info[card]
    else:
        for card in cards:
            if card in hand:
                hand.remove(card)
            else:
                _from_hidden(s, hand, card)
        s.discard.extend(cards)
        info = s.info[cards[0]]
        last = s.info[cards[-1]]
    if hand and s.faults:  # a fault is caught before the next turn action, or right after
        s.faults.pop(player, None)  # going out
    s.plays += 1
    s.blocked_passes = 0
    s.last_play = cards
    cancels = False
    if s.pending_draw and (info.cancel or (info.wild and s.wild_on_pending)):
        cancels = True
        s.pending_draw = 0
        s.pending_rank = None
    if answering_skip or jump:  # the answered skip lapses; a jumper's replaces it
        s.pending_skip = 0
        s.skip_rank = None
        if jump:
            jumper = s.seat[player]
            s.turn_count[jumper] = s.turn_count[jumper] + 1  # (typed; compiled, `+=` is generic)
    _clear_for_play(s, last)
    if s.calls_last and len(hand) == 1:
        s.window = (player, "last")
    if quick and last.plain and len(cards) == 1:
        plain_powers(s, player, last, cancels)
    else:
        after_cards(s, player, cards, cancels=cancels)
    if player != s.last_turn_actor:  # note_turn_action
        s.prev_turn_actor = s.last_turn_actor
        s.last_turn_actor = player
    s.jump_open = True
    s.last_player = player
    if not hand:
        if s.cover_owed is None:
            # a play-again card owes a further card only "if there is one" (ruling 4): an
            # empty hand ends the round; a cover is owed even then (ruling 5)
            s.play_again_owed = False
            go_out(s, player)
            return
        # emptying the hand while a cover is owed is not going out (ruling 19): the call
        # window closes with no fault and a call fault of the player lapses
        s.window = None
        s.faults.pop(player, None)
    if s.plays >= s.play_limit:
        s.phase = ENDED  # a wild card that ends the round names no suit
        s.awaiting_suit = None
        s.prev_owed.clear()
        s.ended_reason = f"max_plays = {s.rules.max_plays} reached"


def _from_hidden(s: State, hand: list[Card], card: Card) -> None:
    """A card shown from a hidden hand leaves it (checked by check_in_hand)."""
    assert s.unseen is not None
    hand.remove(HIDDEN)
    s.unseen[card] -= 1


def _clear_for_play(s: State, last: CardInfo) -> None:
    """A play ends the turn's obligations and any named suit; the pile's cards are the
    ones that go on ``last`` (:func:`.state.update_pile` in this state, looked up). (A
    function of its own: the compiled build must not assume ``cover_owed`` stays None in
    :func:`lay_down`.)"""
    s.cover_owed = None
    s.cover_drawing = False
    s.must_play = None
    s.play_again_owed = False
    s.any_card = False
    s.suit_to_follow = None
    s.top_played_wild = last.wild
    s.pile_ok = last.pile_after


def after_cards(
    s: State, player: str, cards: list[Card], starter_card: bool = False, cancels: bool = False
) -> None:
    """Apply the powers of the cards just played and move the turn (RULES.md 1-11;
    PRESETS.md rulings 1-8). Several cards in one play add up: draws sum, each skip
    card skips one more player, reverses flip the direction once each; the last card
    decides a wild's suit choice, a cover and a play-again."""
    rules = s.rules
    seat = s.seat[player]
    last = s.info[cards[-1]]
    infos = [s.info[c] for c in cards]
    if last.wild and rules.wild_names_suit and not starter_card and s.hands[player]:
        s.awaiting_suit = player
    if not starter_card and last.draw_previous:
        owe_previous(s, player, sum(i.draw_previous for i in infos))
    if not starter_card and last.cover:
        set_cover(s, cards[-1])
        begin_turn_same(s, seat)
        return
    if not starter_card and last.play_again:
        s.play_again_owed = True
        begin_turn_same(s, seat)
        return
    steps = 1
    if last.reverse and (len(infos) == 1 or sum(i.reverse for i in infos) % 2):
        s.direction = -s.direction
        if s.reverse_skips:
            steps = 0
    if len(infos) == 1:
        draw = last.draw
        skips = 1 if last.skip and not last.draw else 0
    else:
        draw = sum(i.draw for i in infos)
        skips = sum(1 for i in infos if i.skip and not i.draw)
    if draw and not cancels:
        if not nothing_to_draw(s):
            s.pending_draw += draw
            s.pending_rank = last.rank
            s.pending_ends_turn = rules.draw_ends_turn or any(i.skip for i in infos if i.draw)
        else:  # no card left anywhere: the draw card draws nothing (ruling 12)
            s.pending_draw = 0
            s.pending_rank = None
    elif skips:
        if rules.skip_answer or rules.wild_on_pending:
            # the skipped player may still answer (a skip card of the rank, or a wild
            # card that cancels it: ruling 2 and 6); the skip is taken when another
            # player acts
            s.pending_skip = skips
            s.skip_rank = last.rank
        else:
            for k in range(1, skips + 1):
                skipped = s.players[next_seat(s, seat, k)]
                s.skipped[skipped] += 1
                s.just_skipped.add(skipped)
            steps += skips
    begin_turn(s, next_seat(s, seat, steps))


def plain_powers(s: State, player: str, last: CardInfo, cancels: bool) -> None:
    """The fast path of :func:`after_cards` for the usual play: one card with no wild,
    previous-player, cover or play-again power (:attr:`.tables.CardInfo.plain`): its
    reverse, draw or skip, then the turn moves; the seat is the player to move's, as
    usual, without a look-up by name. Pinned against :func:`after_cards` by
    tests/test_fast_paths.py."""
    seat = s.current if s.players[s.current] == player else s.seat[player]
    steps = 1
    if last.reverse:
        s.direction = -s.direction
        if s.reverse_skips:
            steps = 0
    if last.draw:
        if not cancels:
            if not nothing_to_draw(s):
                s.pending_draw += last.draw
                s.pending_rank = last.rank
                s.pending_ends_turn = s.draw_ends_turn or last.skip
            else:  # no card left anywhere: the draw card draws nothing (ruling 12)
                s.pending_draw = 0
                s.pending_rank = None
    elif last.skip:
        if s.skip_answer or s.wild_on_pending:
            # the skipped player may still answer (a skip card of the rank, or a wild
            # card that cancels it: rulings 2 and 6)
            s.pending_skip = 1
            s.skip_rank = last.rank
        else:
            skipped = s.players[(seat + s.direction) % s.n]
            s.skipped[skipped] += 1
            s.just_skipped.add(skipped)
            steps = 2
    begin_turn(s, (seat + steps * s.direction) % s.n)


def owe_previous(s: State, player: str, count: int) -> None:
    """``draw_previous``: the last other player who took a turn action owes an effect
    draw before the own next turn action (PRESETS.md ruling 8)."""
    target = s.last_turn_actor if s.last_turn_actor != player else s.prev_turn_actor
    if target is not None and target != player:
        s.prev_owed[target] = s.prev_owed.get(target, 0) + count


def go_out(s: State, player: str) -> None:
    """``player`` emptied the hand: the round is out (a call, a catch or round_end may
    follow; rulings 8-10)."""
    s.phase = OUT
    s.out_player = player
    s.awaiting_suit = None
    # the next turn (and any skip) the winning card began never happens, unless a catch
    # right after going out lets the round go on (then the penalty gives them back)
    current = s.players[s.current]
    s.phantom = (current, set(s.just_skipped))
    s.turn_count[s.current] = s.turn_count[s.current] - 1
    for p in s.just_skipped:
        s.skipped[p] -= 1
    s.prev_owed.clear()  # the end of the round voids draws owed (ruling 8)
    if s.rules.call_going_out:
        s.window = (player, "out")


def on_suit(s: State, ev: SuitChoice) -> None:
    """The suit named for the wild card just played (option ``wild_names_suit``;
    FORMAT.md Conventions: the suit right after its wild card; ruling 16).

    Raises:
        RuleViolation: ``play_after_round_end``, ``wrong_player``.
    """
    player = known_player(s, ev.player, "suit")
    if s.phase in (OUT, ENDED):
        fail(
            "play_after_round_end",
            f"{player} names a suit after the round was over",
            "FORMAT.md Conventions (a wild card that empties the hand names no suit)",
            "round_end",
        )
    if s.awaiting_suit is None:
        fail(
            "wrong_player",
            f"{player} names a suit but no wild card waits for one",
            "FORMAT.md Conventions (suit right after its wild card); PRESETS.md ruling 16",
            describe_legal(s),
        )
    if player != s.awaiting_suit:
        fail(
            "wrong_player",
            f"{player} names a suit, but the wild card was {s.awaiting_suit}'s",
            "FORMAT.md Conventions (suit right after its wild card)",
            f"a suit event by {s.awaiting_suit}",
        )
    s.suit_to_follow = ev.suit
    s.awaiting_suit = None
    update_pile(s)
