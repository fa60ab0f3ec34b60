"""The pile tables (RULES.md "What every system shares": a card goes on a top card of its
suit or rank; wild cards apart, ruling 1), built from the pack grouped by suit and by rank,
are the cards a scan of the whole pack finds, for every preset and pack shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from maumau_log.engine.tables import Tables
from maumau_log.rules import resolve

PRESETS = sorted(
    p.stem
    for p in (Path(__file__).parent.parent / "maumau_log/rules/presets").glob("*.toml")
    if p.stem != "defaults"  # the defaults every preset starts from, no preset itself
)
SHAPES = [None, {"jokers": 2}, {"packs": 2, "jokers": 3}, {"wild_on_wild": True}]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("options", SHAPES)
def test_on_top_is_every_plain_card_of_the_top_cards_suit_or_rank(
    preset: str, options: dict[str, object] | None
) -> None:
    rules = resolve(preset, options)
    t = Tables(rules)
    cards = rules.cards
    wild = {c for c, i in cards.items() if i.wild}
    assert t.wild == wild
    for top, r in cards.items():
        scan = {
            c for c, i in cards.items() if not i.wild and (i.suit == r.suit or i.rank == r.rank)
        }
        assert t.on_top[top] == scan
        assert t.on_top_wild[top] == scan | wild
        after = t.on_top_wild[top] if rules.wild_on_wild or not r.wild else t.on_top[top]
        assert t.info[top].pile_after == after
    for suit in "CDHS":
        of_suit = {c for c, i in cards.items() if not i.wild and i.suit == suit}
        assert t.of_suit[suit] == of_suit
        assert t.of_suit_wild[suit] == of_suit | wild


def test_a_top_seven_of_hearts_takes_hearts_and_sevens_but_no_jack() -> None:
    # standard: 32 cards (7 to A), jacks wild (RULESETS.md presets)
    t = Tables(resolve("standard"))
    assert t.on_top["7H"] == {
        "7C", "7D", "7S", "8H", "9H", "10H", "QH", "KH", "AH", "7H",
    }  # fmt: skip
    assert t.on_top_wild["7H"] == t.on_top["7H"] | {"JC", "JD", "JH", "JS"}
