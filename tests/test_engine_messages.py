"""The engine's violation messages and the rules they cite, pinned word for word.

A message speaks the game's words (players, cards, counts), never Python's reprs, and cites
the rule that applies to the case at hand.
"""

from __future__ import annotations

from typing import Any

from gamebuilder import deal, draw, game, pack, pass_, play, report


def classic(**options: Any) -> dict[str, Any]:
    """A ``classic`` header (7: the next player draws two) with hand size 3 unless given."""
    return game("classic", ("a", "b"), options={"hand_size": 3, **options})


def violation(events: list[dict[str, Any]]) -> tuple[str, str, str, str | None]:
    """``(code, message, rule, expected)`` of the game's first violation."""
    found = report(events).violation
    assert found is not None
    return found.code, found.message, found.rule, found.expected


# a: 7H to play; 3 + 3 dealt and the starter: the stock holds 25
SEVEN = deal({"a": ["7H", "10C", "KC"], "b": ["10D", "QD", "KS"]}, "QH", top=["QC", "8S"])

# 15 + 15 dealt and the starter: the stock holds one card (AS)
A15 = ["9H", "QH", "7S", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D"]
B15 = [c for c in pack() if c not in A15 and c not in ("10H", "AS")]
SHORT = {"type": "deal", "hands": {"a": A15, "b": B15}, "starter": "10H", "stock": ["AS"]}


def test_short_draw_on_a_full_stock_cites_the_draw_option_not_the_short_stock_ruling() -> None:
    # the stock holds 25: the whole draw of two is one effect draw (FORMAT.md Conventions);
    # ruling 12 (a draw split by a reshuffle) does not apply
    events = [classic(), SEVEN, play("a", "7H"), draw("b", "QC", reason="effect")]
    assert violation(events) == (
        "wrong_draw_count",
        "b draws 1 but owes 2 and the stock holds 25",
        "option draw = {'7': 2}; FORMAT.md Conventions (effect draws)",
        "draw 2",
    )


def test_short_draw_on_an_empty_stock_cites_the_short_stock_ruling() -> None:
    # b empties the stock (AS), a plays 9H, b a 7: a owes two with the stock empty, so the
    # draw is split by a reshuffle (PRESETS.md ruling 12), which must come first
    events = [classic(hand_size=15), SHORT, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    events += [pass_("b"), play("a", "9H"), play("b", "7H"), draw("a", "10H", reason="effect")]
    code, message, rule, _expected = violation(events)
    assert (code, message, rule) == (
        "wrong_draw_count",
        "a draws 1 but owes 2 and the stock holds 0: a reshuffle must be logged before the draw",
        "option draw = {'7': 2}; PRESETS.md ruling 12",
    )
