"""The fast path for a draw of several shown cards (:func:`stock._from_top` inside
:func:`stock.take`; FORMAT.md Conventions: draws come from the stock top) gives what
:func:`stock.checked_take` gives: at every draw and penalty of simulated games, the logged
cards and wrong ones beside them (reversed, one short, one too many, a card not on the top,
a count that disagrees, an unknown code) leave the same stock and hands and return the same
cards, or fail with the same violation."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, RuleViolation, stock
from maumau_log.events import Draw, Game, Penalty
from maumau_log.rules import PRESET_NAMES, resolve

PRESETS = [p for p in PRESET_NAMES if not resolve(p).unsupported()]


def _outcome(
    engine: Engine, player: str, cards: list[str], count: int | None, checked: bool
) -> tuple[object, ...]:
    twin = engine.copy()
    before = list(cards)
    try:
        if checked:
            got = stock.checked_take(twin, player, cards, count, "{}'s draw")
        else:
            got = stock.take(twin, player, cards, count, "{}'s draw")
    except RuleViolation as rv:
        return ("violation", rv.code, rv.message, rv.expected)
    assert cards == before  # the event's list is never changed
    return (list(got), list(twin.stock), {p: list(h) for p, h in twin.hands.items()})


def _variants(engine: Engine, cards: list[str]) -> list[tuple[list[str], int | None]]:
    top = engine.stock[::-1][: len(cards) + 1]
    out: list[tuple[list[str], int | None]] = [
        (cards, None),
        (cards, len(cards)),
        (cards, len(cards) + 1),
        (cards[::-1], None),
        (cards[:-1], None),
        (top, None),
        (top[:2], None),
        (top[:2], 2),
        (top[:3][::-1], None),
        (["7X", *top[1:3]], None),
    ]
    if len(engine.stock) > 2:
        out.append(([top[0], engine.stock[0]], None))  # the second card from the bottom
    return [(c, k) for c, k in out if c]


def _compare(preset: str, players: int, seed: int) -> int:
    """Both paths at every draw and penalty; returns how many draws took several cards."""
    try:
        events = next(simulate(preset, players, 1, seed))
    except ValueError:  # the pack does not hold that many players' hands
        return 0
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    several = 0
    for ev in events[1:]:
        if isinstance(ev, Draw | Penalty) and engine.phase in ("play", "out"):
            cards = list(ev.cards or engine.stock[::-1][:2])
            several += len(cards) > 1
            for variant, count in _variants(engine, cards):
                fast = _outcome(engine, ev.player, variant, count, False)
                assert fast == _outcome(engine, ev.player, variant, count, True), (
                    preset, seed, variant, count,
                )  # fmt: skip
        engine.apply(ev)
    return several


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_several_cards_from_the_top_agree_with_the_checked_take(
    preset: str, players: int, seed: int
) -> None:
    _compare(preset, players, seed)


def test_the_usual_effect_draws_of_classic_take_several_cards() -> None:
    # classic: a 7 makes the next player draw two (RULESETS.md presets), logged as one
    # draw of two cards; over 10 games of three players many such draws are compared
    assert sum(_compare("classic", 3, seed) for seed in range(10)) > 20


def test_the_fast_path_takes_two_cards_from_the_top_in_order() -> None:
    header = Game(
        format="maumau-log/1", game_id="g", ruleset="classic", players=["ana", "ben"], dealer="ben"
    )
    engine = Engine(resolve("classic"), header)
    engine.stock = ["8C", "9D", "KH"]  # top last
    engine.hands = {"ana": [], "ben": ["7S"]}
    assert stock.take(engine, "ben", ["KH", "9D"], None, "{}'s draw") == ["KH", "9D"]
    assert engine.stock == ["8C"] and engine.hands["ben"] == ["7S", "KH", "9D"]
    engine.stock = ["8C", "9D", "KH"]
    try:
        stock.take(engine, "ben", ["9D", "KH"], None, "{}'s draw")
    except RuleViolation as rv:
        assert rv.code == "draw_not_from_stock_top"
        assert rv.message == "ben's draw: drew 9D KH but the top of the stock is KH 9D"
    else:
        raise AssertionError("a draw out of order must fail")
    assert engine.stock == ["8C", "9D", "KH"]
