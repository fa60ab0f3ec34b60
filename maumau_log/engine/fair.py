"""Provably fair deals and reshuffles (README "Provably fair shuffles";
``maumau_log/engine/shuffle.py``, algorithm ``maumau-sha256-fy/1``).

When the header reveals the shuffle seed, the deal must be what the seed deals and the k-th
reshuffle what the k-th derived seed gives; both then fix the stock's order.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..cards import Card
from ..events import Deal
from .errors import fail
from .shuffle import deal as fair_deal
from .shuffle import reshuffle_seed, shuffled
from .state import State


def check_fair_deal(s: State, ev: Deal, starter: Card, sizes: Mapping[str, int]) -> None:
    """The deal must be what the revealed seed gives; sets the stock in the seed's order.

    Raises:
        RuleViolation: ``deal_not_from_seed`` naming the first difference.
    """
    assert s.fair_seed is not None
    order = shuffled(s.rules.pack, s.fair_seed)
    try:
        hands, due_starter, stock = fair_deal(
            order, s.players, s.dealer, sizes, s.rules.redeal_cards
        )
    except ValueError as exc:
        fail("deal_not_from_seed", str(exc), "shuffle maumau-sha256-fy/1")
    rule = "shuffle maumau-sha256-fy/1 (docs/reference/shuffle.md)"
    for p in s.players:
        # a hand logged in the order dealt is the same hand at once; else as multisets
        if hands[p] != s.hands[p] and sorted(hands[p]) != sorted(s.hands[p]):
            fail(
                "deal_not_from_seed",
                f"{p}'s hand {' '.join(s.hands[p])} is not what the seed deals",
                rule,
                f"{p}: {' '.join(hands[p])}",
            )
    if starter != due_starter:
        fail(
            "deal_not_from_seed",
            f"the starter {starter} is not what the seed turns up",
            rule,
            f"starter {due_starter}",
        )
    if ev.stock is not None and list(ev.stock) != stock:
        logged = list(ev.stock)
        at = next(
            (i for i, (a, b) in enumerate(zip(logged, stock, strict=False)) if a != b),
            min(len(logged), len(stock)),
        )
        fail(
            "deal_not_from_seed",
            f"the stock differs from the seed's order at position {at + 1} from the top",
            rule,
            f"stock top first: {' '.join(stock[:8])} ...",
        )
    s.stock = stock[::-1]
    s.stock_ordered = True


def reshuffle_due(s: State, under: list[Card]) -> list[Card]:
    """The stock, top first, that the next reshuffle of ``under`` (the discard pile but its
    top, bottom first) must give (``shuffle.py`` step 6); a query, the state is unchanged."""
    assert s.fair_seed is not None
    return shuffled(under, reshuffle_seed(s.fair_seed, s.reshuffles + 1))


def check_fair_reshuffle(
    s: State, under: list[Card], logged: list[Card] | None, due: list[Card] | None = None
) -> None:
    """The k-th reshuffle must be what the derived seed gives (``shuffle.py`` step 6);
    sets the new stock in that order.

    Args:
        s: the state (a revealed seed).
        under: the discard pile but its top card, bottom first.
        logged: the reshuffle's logged stock, top first, or None.
        due: :func:`reshuffle_due` of ``under`` when the caller has it already, else None.
    Raises:
        RuleViolation: ``deal_not_from_seed``.
    """
    assert s.fair_seed is not None
    if due is None:
        due = reshuffle_due(s, under)
    s.reshuffles += 1
    if logged is not None and logged != due:
        fail(
            "deal_not_from_seed",
            f"reshuffle {s.reshuffles}'s stock is not what the seed gives",
            "shuffle maumau-sha256-fy/1, step 6 (reshuffles)",
            f"stock top first: {' '.join(due[:8])} ...",
        )
    s.stock = due[::-1]
    s.stock_ordered = True
