"""The fast path that serves a pending draw (:func:`draws.quiet_serve`; option ``draw``,
PRESETS.md rulings 3 and 12) gives what :func:`draws.checked_draw` gives: the same state
after every effect draw of simulated games, and, for effect draws made wrong (a card too
many or too few, another reason, another player, a card not on the stock's top), the same
violation, code and message, or the same acceptance."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, RuleViolation, draws, state
from maumau_log.events import Deal, Draw, Game, Play
from maumau_log.rules import PRESET_NAMES, resolve

DRAW_PRESETS = [p for p in PRESET_NAMES if not resolve(p).unsupported() and resolve(p).draw]


def _fields(engine: Engine) -> dict[str, object]:
    return {name: getattr(engine, name) for name in state._COPIED}


def _outcome(engine: Engine, ev: Draw, checked: bool) -> tuple[str, str] | dict[str, object]:
    """The violation (code, message) of ``ev`` on a copy of ``engine``, or the copy's
    fields when it is accepted: through ``apply`` or through the checked handler."""
    twin = engine.copy()
    try:
        if checked:
            twin.event_index += 1
            if ev.player != twin.last_actor:
                twin._new_actor(ev.player)
            draws.checked_draw(twin, ev)
        else:
            twin.apply(ev)
    except RuleViolation as rv:
        return rv.code, rv.message
    return _fields(twin)


def _variants(engine: Engine, ev: Draw) -> list[Draw]:
    """The logged effect draw and wrong ones beside it."""
    other = next(p for p in engine.players if p != ev.player)
    cards = list(ev.cards or [])
    stock_top = engine.stock[-1:] if engine.stock else []
    out = [
        ev,
        Draw(player=other, cards=ev.cards, count=ev.count, reason=ev.reason),
        Draw(player=ev.player, cards=ev.cards, count=ev.count, reason="no_play"),
        Draw(player=ev.player, cards=ev.cards, count=ev.count),
        Draw(player=ev.player, count=len(cards) + 1, reason="effect"),
        Draw(player=ev.player, count=len(cards), reason="effect"),
    ]
    if len(cards) > 1:
        out.append(Draw(player=ev.player, cards=cards[:-1], reason="effect"))
        out.append(Draw(player=ev.player, cards=cards[::-1], reason="effect"))
    if stock_top:
        out.append(Draw(player=ev.player, cards=cards + stock_top, reason="effect"))
    out.append(Draw(player=ev.player, cards=["XX"], reason="effect"))
    return out


def _compare(preset: str, players: int, seed: int) -> int:
    """Compare both paths at every effect draw served; returns the fast path's takes."""
    try:
        events = next(simulate(preset, players, 1, seed))
    except ValueError:  # the pack does not hold that many players' hands
        return 0
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    taken = 0
    for ev in events[1:]:
        if isinstance(ev, Draw) and engine.pending_draw and engine.phase == "play":
            taken += draws.quiet_serve(engine.copy(), ev, ev.player, ev.count)
            for variant in _variants(engine, ev):
                assert _outcome(engine, variant, False) == _outcome(engine, variant, True), (
                    preset, players, seed, variant,
                )  # fmt: skip
        engine.apply(ev)
    return taken


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(DRAW_PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_serving_a_pending_draw_quietly_agrees_with_the_checked_path(
    preset: str, players: int, seed: int
) -> None:
    _compare(preset, players, seed)


def test_the_quiet_serve_is_taken_for_the_usual_effect_draw() -> None:
    # classic: a 7 makes the next player draw two (RULESETS.md presets); over 20 games of
    # three players the fast path serves most of those draws
    taken = sum(_compare("classic", 3, seed) for seed in range(20))
    assert taken > 10


def _dealt() -> Engine:
    """ana and ben, classic (32 cards, a 7 makes the next player draw two); the stock
    after the deal, top first: AH, KH, then the rest of the pack."""
    header = Game(
        format="maumau-log/1", game_id="g", ruleset="classic", players=["ana", "ben"],
        dealer="ben",
    )  # fmt: skip
    rules = resolve("classic")
    hands = {"ana": ["7H", "KC", "9S", "8D", "QH"], "ben": ["9D", "10C", "AS", "JD", "8C"]}
    held = {c for h in hands.values() for c in h} | {"10H", "AH", "KH"}
    stock = ["AH", "KH"] + [c for c in rules.pack if c not in held]
    e = Engine(rules, header)
    e.apply(Deal(hands=hands, starter="10H", stock=stock))
    e.apply(Play(player="ana", cards=["7H"]))
    assert e.pending_draw == 2
    return e


def test_a_draw_for_another_reason_while_a_draw_is_pending_is_missed_penalty() -> None:
    e = _dealt()
    probe = e.copy()
    assert not draws.quiet_serve(probe, Draw(player="ben", count=1, reason="no_play"), "ben", 1)
    assert _fields(probe) == _fields(e)  # untouched when declined
    with pytest.raises(RuleViolation) as caught:
        e.apply(Draw(player="ben", cards=["AH"], reason="no_play"))
    assert caught.value.code == "missed_penalty"
    assert caught.value.message == "ben must serve the pending draw of 2, not draw for no_play"


def test_the_two_top_cards_serve_a_draw_of_two_in_one_event() -> None:
    e = _dealt()
    assert draws.quiet_serve(
        e, Draw(player="ben", cards=["AH", "KH"], reason="effect"), "ben", None
    )
    assert e.pending_draw == 0
    assert e.hands["ben"][-2:] == ["AH", "KH"]
    assert e.current_player == "ana"  # classic: serving the draw ends ben's turn
