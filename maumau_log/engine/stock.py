"""Card codes, drawing from the stock, reshuffles (FORMAT.md "Cards" and "Conventions":
draws come from the stock top, card conservation, reshuffle; option ``empty_stock``).

:func:`check_card` turns a logged code into this pack's canonical code; :func:`take` moves
cards from the stock top into a hand, checking they are the top (or, with the stock order
not logged, that they are in the stock); :func:`on_reshuffle` turns the discard pile but
its top card into the new stock.
"""

from __future__ import annotations

from collections import Counter

from ..cards import Card, canonical, is_card_code, suggest_code
from ..events import Draw, Penalty, Reshuffle
from .errors import fail, number_text, quoted
from .fair import check_fair_reshuffle, reshuffle_due
from .partial import take_partial
from .state import HIDDEN, OUT, PLAY, State


def all_known(s: State, codes: list[str]) -> bool:
    """True when every code is a canonical code of this pack (then :func:`check_card` has
    nothing to do; a loop of dict look-ups, where ``set(codes).issubset(s.cards)`` would
    first copy the pack's keys into a set)."""
    table = s.cards
    return all(c in table for c in codes)  # a loop in the compiled build


def check_card(s: State, card: str, where: str) -> Card:
    """``card`` as this pack's canonical code.

    Raises:
        RuleViolation: ``unknown_card`` (not a card code, or not in this ruleset's pack).
    """
    if card in s.cards:  # the fast path: a canonical code of this pack
        return card
    if not is_card_code(card):
        hint = suggest_code(card)
        fail(
            "unknown_card",
            f"{quoted(card)} in {where} is not a card code"
            + (f" (did you mean {hint}?)" if hint else ""),
            "FORMAT.md Cards",
            "codes like 10H, JC, X",
        )
    code = canonical(card)
    if code not in s.cards:
        fail(
            "unknown_card",
            f"{card} in {where} is not in this ruleset's pack "
            f"(ranks {', '.join(s.rules.ranks)}"
            + (f", {s.rules.jokers} joker(s)" if s.rules.jokers else "")
            + ")",
            "option ranks/jokers",
        )
    return code


def size(ev: Draw | Penalty, default: int) -> int:
    """Cards a draw or penalty takes: its ``cards``, else its ``count``, else ``default``."""
    if ev.cards is not None:
        return len(ev.cards)
    return ev.count if ev.count is not None else default


def take(
    s: State, player: str, cards: list[str] | None, count: int | None, what: str
) -> list[Card]:
    """Move cards from the stock top to ``player``'s hand, checking they are the top.

    Args:
        cards: the drawn cards as logged, or None (a draw of ``count`` cards not shown).
        count: the logged count, or None.
        what: the draw, for messages: a template whose ``{}`` is the player, e.g.
            ``"{}'s draw"`` (formatted only when a check fails).
    Returns:
        The cards drawn (HIDDEN for cards a partial log does not show).
    Raises:
        RuleViolation: ``wrong_draw_count``, ``draw_not_from_stock_top``,
            ``unsupported_rule`` (a count-only draw from an unlogged stock order).
    """
    stock = s.stock
    if (
        cards is not None
        and len(cards) == 1
        and (count is None or count == 1)
        and stock
        and stock[-1] == cards[0]
        and s.stock_ordered
        and s.unseen is None
    ):  # the usual draw: the one card on top of a known stock
        stock.pop()
        s.hands[player].append(cards[0])
        return cards
    if cards is not None and _from_top(s, cards, count):  # several cards, the stock's top
        s.hands[player].extend(cards)
        return cards
    return checked_take(s, player, cards, count, what)


def checked_take(
    s: State, player: str, cards: list[str] | None, count: int | None, what: str
) -> list[Card]:
    """:func:`take` without its fast paths: every check, in order (the tests pin the fast
    paths against it).

    Raises:
        RuleViolation: as :func:`take`.
    """
    stock = s.stock
    if cards is not None:
        table = s.cards
        if len(cards) == 1 and cards[0] in table:
            drawn = cards
        else:
            drawn = [c if c in table else check_card(s, c, what.format(player)) for c in cards]
        if count is not None and count != len(drawn):
            fail(
                "wrong_draw_count",
                f"{what.format(player)} lists {len(drawn)} cards but says count "
                f"{number_text(count)}",
                "FORMAT.md Events (draw)",
            )
        n = len(drawn)
    else:
        drawn = []
        n = count if count is not None else 1
    if n > len(stock):
        if not stock and s.rules.empty_stock == "reshuffle" and len(s.discard) > 1:
            fail(
                "draw_not_from_stock_top",
                f"{what.format(player)}: the stock is empty; a reshuffle must be logged "
                "before drawing",
                "FORMAT.md Conventions (reshuffle)",
                "a reshuffle event",
            )
        refill = s.rules.empty_stock == "reshuffle" and len(s.discard) > 1
        fail(
            "draw_not_from_stock_top",
            f"{what.format(player)}: {number_text(n)} cards drawn but the stock holds only "
            f"{len(stock)}"
            + (
                f"; draw the {len(stock)} left, then a reshuffle must be logged before drawing more"
                if refill
                else ""
            ),
            "FORMAT.md Conventions (draws)",
            f"draw at most {len(stock)}" + (", then a reshuffle event" if refill else ""),
        )
    if s.unseen is not None:
        return take_partial(s, player, drawn if cards is not None else None, n, what.format(player))
    if cards is None:
        if not s.stock_ordered:
            fail(
                "unsupported_rule",
                f"{what.format(player)} gives only a count, and the stock order is not logged: "
                "the drawn cards cannot be known (partial logs are not replayed yet)",
                "FORMAT.md Information levels",
            )
        drawn = stock[len(stock) - n :][::-1]
        del stock[len(stock) - n :]
    elif s.stock_ordered:
        if n == 1:
            if stock[-1] != drawn[0]:
                _not_the_top(what.format(player), drawn, stock[-1:])
            stock.pop()
        else:
            top = stock[len(stock) - n :][::-1]
            if top != drawn:
                _not_the_top(what.format(player), drawn, top)
            del stock[len(stock) - n :]
    else:
        pool = Counter(stock)
        for c in drawn:
            if pool[c] <= 0:
                fail(
                    "draw_not_from_stock_top",
                    f"{what.format(player)}: drew {c}, which is not in the stock",
                    "FORMAT.md Conventions (card conservation)",
                )
            pool[c] -= 1
        for c in drawn:
            stock.remove(c)
    s.hands[player].extend(drawn)
    return drawn


def _from_top(s: State, cards: list[str], count: int | None) -> bool:
    """The fast path of :func:`take` for a draw of several shown cards: when they are the
    top of a known stock, in order (top first), with no count that says otherwise and no
    hidden cards, they leave the stock and True is returned (each equals a stock card, so
    each is a canonical code of the pack: :func:`check_card` has nothing to do); else the
    stock is untouched and False returned, for :func:`checked_take` to check and word the
    problem. Pinned against it by tests/test_stock_top_draws.py."""
    stock = s.stock
    n = len(cards)
    m = len(stock)
    if not (1 < n <= m and (count is None or count == n) and s.stock_ordered and s.unseen is None):
        return False
    for k in range(n):
        if stock[m - 1 - k] != cards[k]:
            return False
    for _ in range(n):
        stock.pop()
    return True


def _not_the_top(what: str, drawn: list[Card], top: list[Card]) -> None:
    fail(
        "draw_not_from_stock_top",
        f"{what}: drew {' '.join(drawn)} but the top of the stock is {' '.join(top)}",
        "FORMAT.md Conventions (draws come from the stock top)",
        f"draw {' '.join(top)}",
    )


def on_reshuffle(s: State, ev: Reshuffle) -> None:
    """The discard pile but its top card becomes the stock, only on an empty stock
    (FORMAT.md Conventions (reshuffle); option ``empty_stock = "reshuffle"``).

    Raises:
        RuleViolation: ``bad_reshuffle`` (outside play, never reshuffling, stock not empty,
            nothing to reshuffle, a new stock that is not the pile), ``deal_not_from_seed``.
    """
    if s.phase not in (PLAY, OUT):
        fail("bad_reshuffle", "a reshuffle outside play", "FORMAT.md Conventions (reshuffle)")
    if s.rules.empty_stock != "reshuffle":
        fail(
            "bad_reshuffle",
            "this ruleset never reshuffles: with an empty stock players pass",
            "option empty_stock = 'pass'",
        )
    if s.stock:
        fail(
            "bad_reshuffle",
            f"a reshuffle while the stock still holds {len(s.stock)} card(s)",
            "FORMAT.md Conventions (a reshuffle happens only when the stock is empty)",
        )
    under = s.discard[:-1]
    if not under:
        fail(
            "bad_reshuffle",
            "nothing to reshuffle: the discard pile holds only its top card",
            "FORMAT.md Conventions (reshuffle)",
        )
    if s.unseen is not None:  # a partial log: the new stock is hidden again
        _check_count(ev, under)
        s.unseen.update(under)
        s.stock = [HIDDEN] * len(under)
        s.discard = s.discard[-1:]
        return
    if ev.stock is not None:
        new = (
            list(ev.stock)
            if all_known(s, ev.stock)
            else [check_card(s, c, "reshuffle.stock") for c in ev.stock]
        )
        # with a revealed seed the stock due is a permutation of the pile: a logged stock
        # equal to it is one too (no sorting); else the multisets are compared first
        due = reshuffle_due(s, under) if s.fair_seed is not None else None
        if new != due and sorted(new) != sorted(under):
            extra = sorted((Counter(new) - Counter(under)).elements())
            missing = sorted((Counter(under) - Counter(new)).elements())
            fail(
                "bad_reshuffle",
                "the new stock is not the discard pile but its top card"
                + (f"; not in the pile: {' '.join(extra)}" if extra else "")
                + (f"; left out: {' '.join(missing)}" if missing else ""),
                "FORMAT.md Conventions (reshuffle)",
                f"a permutation of {len(under)} cards",
            )
        s.stock = new[::-1]
        s.stock_ordered = True
        if s.fair_seed is not None:
            check_fair_reshuffle(s, under, new, due)
    else:
        _check_count(ev, under)
        s.stock = sorted(under)
        s.stock_ordered = False
        if s.fair_seed is not None:
            check_fair_reshuffle(s, under, None)
    s.discard = s.discard[-1:]


def _check_count(ev: Reshuffle, under: list[Card]) -> None:
    if ev.count is not None and ev.count != len(under):
        fail(
            "bad_reshuffle",
            f"reshuffle.count is {number_text(ev.count)} but the discard pile but its top holds "
            f"{len(under)}",
            "FORMAT.md Conventions (reshuffle)",
        )
