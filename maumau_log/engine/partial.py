"""Partial information: hidden hands and unseen cards (FORMAT.md "Information levels").

A partial log shows some hands as counts. The cards not shown anywhere are ``unseen``; a
hidden card in a hand is :data:`~.state.HIDDEN`. A shown card may come from the hidden part
of a hand if it is still unseen (:func:`missing_cards`, the one hidden-hand check); draws
from the hidden stock cannot be checked against its order (:func:`take_partial`).
"""

from __future__ import annotations

from collections import Counter

from ..cards import Card
from .errors import fail
from .state import HIDDEN, State


def missing_cards(s: State, player: str, cards: list[Card]) -> Counter[Card]:
    """The cards of ``cards`` that ``player`` cannot hold: not in the shown hand, and (in a
    partial log) not coverable by the hand's hidden cards from the unseen ones.

    Returns:
        An empty counter when the player may hold them all.
    """
    hand = s.hands[player]
    short = Counter(cards) - Counter(hand)
    if short and s.unseen is not None:
        hidden = hand.count(HIDDEN)
        if sum(short.values()) <= hidden and not short - s.unseen:
            return Counter()
    return short


def seen_at(s: State, card: Card) -> str:
    """Where every copy of ``card`` is seen in a partial log, for a message."""
    places = []
    k = s.discard.count(card)
    if k:
        face_up = " (the face-up starter)" if s.discard == [card] else ""
        places.append(f"on the discard pile{face_up}")
    for p, h in s.hands.items():
        if card in h:
            places.append(f"in {p}'s hand")
    if not places:
        places.append("already played and not back in the stock")
    return f"{card} is " + " and ".join(places)


def take_partial(s: State, player: str, drawn: list[Card] | None, n: int, what: str) -> list[Card]:
    """A draw in a partial log: shown cards must be among the unseen ones; the stock's
    order cannot be checked.

    Returns:
        The cards added to the hand (HIDDEN where the draw shows none).
    Raises:
        RuleViolation: ``draw_not_from_stock_top`` for a shown card that is not unseen.
    """
    assert s.unseen is not None
    s.unchecked.add("draws come from the stock top (the stock is not shown)")
    if drawn is None:
        drawn = [HIDDEN] * n
    else:
        need = Counter(drawn)
        short = need - s.unseen
        if short:
            fail(
                "draw_not_from_stock_top",
                f"{what}: drew {' '.join(sorted(short.elements()))}, which is not among "
                "the cards still unseen",
                "FORMAT.md Information levels (conservation against the unseen cards)",
            )
        s.unseen -= need
    del s.stock[len(s.stock) - n :]
    s.hands[player].extend(drawn)
    return drawn


def deal_partial(s: State, seen: Counter[Card], pack: Counter[Card], starter: Card) -> None:
    """Check a deal some hands of which are counts: the unseen cards are the pack but what
    is shown; the stock is hidden. The caller turns up the starter.

    Raises:
        RuleViolation: ``duplicate_card`` (more copies shown than the pack holds, or more
            cards dealt than it has), ``wrong_starter`` (a starter to redeal).
    """
    over = sorted(c for c in seen if seen[c] > pack[c])
    if over:
        fail(
            "duplicate_card",
            f"the deal shows {', '.join(over)} more often than the pack holds",
            "FORMAT.md Cards (card conservation)",
        )
    dealt = sum(len(h) for h in s.hands.values()) + 1
    if dealt > len(s.rules.pack):
        fail(
            "duplicate_card",
            f"the deal gives out {dealt} cards; the pack holds {len(s.rules.pack)}",
            "FORMAT.md Cards (card conservation)",
        )
    s.unseen = pack - seen
    s.stock = [HIDDEN] * (len(s.rules.pack) - dealt)
    s.stock_ordered = False
    s.unchecked.add("the other players' hands and draws (shown as counts)")
    if s.fair_seed is not None:
        s.unchecked.add("the deal against the shuffle seed (hands are hidden)")
    if s.cards[starter].redeal:
        fail(
            "wrong_starter",
            f"the starter {starter} should have gone back into the stock",
            f"option starter_redeal = {list(s.rules.starter_redeal)}",
        )
