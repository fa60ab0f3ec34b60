"""Before the round: the cut, the deal and the starter card (RULES.md 1 and 11 (the cut);
FORMAT.md Cards (card conservation); options ``hand_size``, ``starter_redeal``,
``starter_effect``, ``wild_starter``, ``loser_hand_shrink``; PRESETS.md rulings 1, 14, 16,
17 (a wild draw starter keeps its draw) and 24).

The deal must give every player the due hand size and, with the stock logged, account for
the whole pack; a revealed shuffle seed must deal exactly it (:mod:`.fair`); a partial log's
counts go to :mod:`.partial`. The starter's power then applies as if the seat before the
first player had played it (ruling 1).
"""

from __future__ import annotations

from collections import Counter
from typing import NoReturn

from ..cards import Card, canonical, is_card_code
from ..events import Cut, Deal, HandCount
from .errors import RuleViolation, fail, number_text
from .fair import check_fair_deal
from .partial import deal_partial
from .plays import after_cards
from .state import HIDDEN, PLAY, SETUP, State, begin_turn, first_seat, update_pile
from .stock import all_known, check_card
from .turns import known_player


def on_cut(s: State, ev: Cut) -> None:
    """A cut before the deal; the cutter may keep up to 3 cards (RULES.md 1 and 11;
    ruling 16).

    Raises:
        RuleViolation: ``missing_header`` (after the deal), ``wrong_draw_count``.
    """
    player = known_player(s, ev.player, "cut")
    if s.phase != SETUP:
        fail("missing_header", "a cut after the deal", "RULES.md 1 (cut before the deal)")
    taken = [check_card(s, c, "cut.taken") for c in ev.taken or []]
    if len(taken) > 3:
        fail(
            "wrong_draw_count",
            f"{player} keeps {len(taken)} cards from the cut; at most 3 may be kept",
            "RULES.md 1 and 11 (cut); PRESETS.md ruling 16",
        )
    s.cut_taken[player] = taken


def on_deal(s: State, ev: Deal) -> None:
    """Check the deal, set the hands and the stock, turn up the starter.

    Raises:
        RuleViolation: ``missing_header`` (a second deal), ``wrong_draw_count`` (a wrong
            hand size), ``duplicate_card`` (card conservation), ``card_not_in_hand`` (cut
            cards not dealt), ``deal_not_from_seed``, ``wrong_starter``, ``unknown_card``.
    """
    if s.phase != SETUP:
        fail(
            "missing_header",
            "a second deal in one game; every round starts with its own game header",
            "FORMAT.md Files",
        )
    rules = s.rules
    size = rules.hand_size_for(s.n)
    sizes = s.match.hand_sizes if s.match is not None else None
    for p in ev.hands:
        known_player(s, p, "deal.hands")
    # card conservation: every card dealt (hands, starter, stock), counted only when a
    # card may be there too often (_counts)
    dealt: list[Card] = []
    for p in s.players:
        hand = ev.hands.get(p)
        if hand is None:
            fail(
                "wrong_draw_count",
                f"the deal gives {p} no hand",
                "option hand_size",
                f"{size} cards for every player",
            )
        due = sizes.get(p, size) if sizes else size
        # a decoded hand is a list or a HandCount; the type test first (compiled, an
        # isinstance of a msgspec class goes through its metaclass: 825 instructions)
        if type(hand) is not list and isinstance(hand, HandCount):
            if hand.count < 0:
                fail(
                    "schema_error",
                    f"{p}'s hand count must not be negative (got {number_text(hand.count)})",
                    "schemas/defs.schema.json (hand)",
                )
            if hand.count != due:  # before the hidden cards are made: a count may be huge
                _wrong_hand_size(s, p, number_text(hand.count), due)
            cards = [HIDDEN] * hand.count
            s.unseen = Counter()  # a partial log (FORMAT.md "Information levels")
        else:
            codes = hand or []
            if all_known(s, codes):  # canonical codes of this pack
                cards = list(codes)
            else:
                cards = [check_card(s, c, f"{p}'s dealt hand") for c in codes]
        if len(cards) != due:
            _wrong_hand_size(s, p, str(len(cards)), due)
        s.hands[p] = cards
        dealt.extend(cards)
    for p, taken in s.cut_taken.items():
        left = Counter(s.hands[p])
        for c in taken:
            if left[c] <= 0:
                fail(
                    "card_not_in_hand",
                    f"{p} kept {c} at the cut but it is not in {p}'s dealt hand",
                    "RULES.md 1 (cut); the kept cards are part of the hand",
                )
            left[c] -= 1
    starter = check_card(s, ev.starter, "deal.starter")
    dealt.append(starter)
    pack = rules.pack_counts
    if s.unseen is not None:
        deal_partial(s, Counter(_counts(dealt)), pack, starter)
        s.discard = [starter]
        s.phase = PLAY
        start(s, starter)
        return
    stock: list[Card] = []
    if ev.stock is not None:
        stock = (
            list(ev.stock)
            if all_known(s, ev.stock)
            else [check_card(s, c, "deal.stock") for c in ev.stock]
        )
        dealt.extend(stock)
    # every card here is a code of the pack (all_known, check_card); in a pack of one copy
    # of each card none is over the pack exactly when none is dealt twice: one set, no
    # count (a set, no Counter, for the usual deal); else (or a card twice) the copies are
    # counted
    seen: dict[Card, int] | None = None
    if len(rules.pack) != len(s.cards) or len(set(dealt)) != len(dealt):
        seen = _counts(dealt)
        over = [c for c, k in seen.items() if k > pack.get(c, 0)]
        over.sort()
        if over:
            fail(
                "duplicate_card",
                "the deal holds "
                + "; ".join(_copies(s, c, ev, seen[c], pack.get(c, 0)) for c in over[:5]),
                "FORMAT.md Cards (card conservation)",
            )
    if ev.stock is not None:
        # nothing is over the pack here: something is missing exactly when too few are seen
        missing = _undealt(pack, seen, dealt) if len(dealt) < len(rules.pack) else []
        if missing:
            fail(
                "duplicate_card",
                f"the deal does not account for the whole pack: missing "
                f"{', '.join(missing[:10])}" + (" ..." if len(missing) > 10 else ""),
                "FORMAT.md Cards (card conservation)",
            )
        s.stock = stock[::-1]
        s.stock_ordered = True
    elif s.fair_seed is None or s.cut_taken:
        s.stock = _undealt(pack, seen, dealt)
        s.stock_ordered = False
    if s.fair_seed is not None and not s.cut_taken:
        try:  # sets the stock in the seed's order
            check_fair_deal(s, ev, starter, sizes or {p: size for p in s.players})
        except RuleViolation:
            if ev.stock is None:  # the state at the violation: the stock as dealt, unordered
                s.stock = _undealt(pack, seen, dealt)
                s.stock_ordered = False
            raise
    if s.cards[starter].redeal:
        fail(
            "wrong_starter",
            f"the starter {starter} should have gone back into the stock",
            f"option starter_redeal = {list(rules.starter_redeal)}",
            "another starter card",
        )
    s.discard = [starter]
    s.phase = PLAY
    start(s, starter)


def _undealt(pack: Counter[Card], seen: dict[Card, int] | None, dealt: list[Card]) -> list[Card]:
    """The cards of ``pack`` (copies per card) that ``dealt`` does not hold, sorted by
    code, with one entry per copy; ``seen`` is ``dealt``'s copies when already counted
    (None: counted here). FORMAT.md Cards (card conservation)."""
    return sorted((pack - Counter(seen or _counts(dealt))).elements())


def _wrong_hand_size(s: State, player: str, dealt: str, due: int) -> NoReturn:
    """``wrong_draw_count`` for a hand of the wrong size (``dealt``: its size as text)."""
    shrinks = s.match is not None and bool(s.match.hand_sizes)
    fail(
        "wrong_draw_count",
        f"{player} is dealt {dealt} cards; {due} are due"
        + (" (a loser's hand shrinks by one a round)" if shrinks else ""),
        f"option hand_size = {s.rules.hand_size}"
        + ("; option loser_hand_shrink" if shrinks else ""),
        f"{due} cards",
    )


def _counts(cards: list[Card]) -> dict[Card, int]:
    """The copies of each card among ``cards`` (hidden cards left out), in a plain dict (a
    Counter's per-key ``__missing__`` is a Python call in the compiled build)."""
    seen: dict[Card, int] = {}
    for c in cards:
        if c != HIDDEN:
            seen[c] = seen.get(c, 0) + 1
    return seen


def _copies(s: State, card: Card, ev: Deal, held: int, allowed: int) -> str:
    """Where a card the deal holds too often is, e.g. ``"9H 2 times (in a's hand and as
    the starter); the pack holds it once"`` (for a ``duplicate_card`` message)."""
    places = []
    for p in s.players:
        k = s.hands[p].count(card)
        if k:
            places.append(f"{k} in {p}'s hand" if k > 1 else f"in {p}'s hand")
    if canonical(ev.starter) == card:
        places.append("as the starter")
    k = sum(1 for c in ev.stock or [] if is_card_code(c) and canonical(c) == card)
    if k:
        places.append(f"{k} in the stock" if k > 1 else "in the stock")
    times = {1: "once", 2: "twice"}.get(allowed, f"{allowed} times")
    where = ", ".join(places[:-1]) + " and " + places[-1] if len(places) > 1 else places[0]
    return f"{card} {held} times ({where}); the pack holds it {times}"


def start(s: State, starter: Card) -> None:
    """Turn up the starter: its power applies as if the seat before the first player had
    played it (PRESETS.md ruling 1; ``starter_effect``, ``wild_starter``); a wild starter
    that draws keeps its draw (ruling 17), and its suit is named first (ruling 24)."""
    first = first_seat(s)
    info = s.cards[starter]
    update_pile(s)
    before = (first - 1) % s.n
    s.last_turn_actor = s.players[before]  # ruling 8: the seat before
    if info.wild and not (info.draw and s.rules.starter_effect):
        mode = s.rules.wild_starter
        begin_turn(s, first)
        if mode == "any":
            s.any_card = True
            update_pile(s)
        elif mode == "first_player_names":
            s.awaiting_suit = s.players[first]
        return
    if not s.rules.starter_effect:
        begin_turn(s, first)
        return
    s.current = before
    after_cards(s, s.players[before], [starter], starter_card=True)
    if info.wild:  # ruling 17: a wild draw starter (Pesten Joker) keeps its draw
        if s.rules.wild_starter == "any":
            s.any_card = True
            update_pile(s)
        elif s.rules.wild_starter == "first_player_names":
            s.awaiting_suit = s.players[s.current]  # named first (ruling 24)
