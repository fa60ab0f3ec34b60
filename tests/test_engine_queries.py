"""The engine's questions agree with each other and change nothing.

``can_play`` (the one-card question), ``legal_plays`` (the distinct cards) and the plays in
``legal_actions`` come from one legality decision; they must agree at every step of every
preset's simulated games. ``legal_actions`` and ``describe_legal`` are pure queries
(python-chess ``Board.is_legal``): asking them leaves the state as it was.
"""

from __future__ import annotations

import copy
from typing import Any

from gamebuilder import deal, engine_after, game, play, replay, round_end
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import HIDDEN, PLAY, Engine
from maumau_log.events import Draw, Event, Game
from maumau_log.rules import PRESET_NAMES, resolve

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# every field a query could disturb (the engine may be compiled: no vars())
FIELDS = (
    "phase", "current", "direction", "pending_draw", "pending_rank", "serving", "pending_skip",
    "skip_rank", "awaiting_suit", "cover_owed", "cover_drawing", "must_play", "draws_this_turn",
    "drawn_card", "turn_over_after_draw", "prev_owed", "unchecked", "turns", "skipped",
    "just_skipped", "faults", "window", "hands", "stock", "discard", "suit_to_follow",
)  # fmt: skip


def snapshot(engine: Engine) -> dict[str, Any]:
    return {f: copy.deepcopy(getattr(engine, f)) for f in FIELDS} | {"view": engine.view()}


def replay_asking(events: list[Event]) -> int:
    """Replay ``events``, asking every question before each event; returns steps checked."""
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    steps = 0
    for ev in events[1:]:
        before = snapshot(engine)
        acts = engine.legal_actions()
        text = engine.describe_legal()
        assert snapshot(engine) == before, f"a query changed the state before {ev}"
        assert engine.describe_legal() == text
        if engine.phase == PLAY and engine.awaiting_suit is None:
            for p in engine.players:
                held = sorted({c for c in engine.hands[p] if c != HIDDEN})
                asked = [c for c in held if engine.can_play(p, c)]
                assert engine.legal_plays(p) == asked, (p, ev)
            if not engine.pending_skip and not engine.prev_owed and not engine.pending_draw:
                me = engine.current_player
                singles = sorted(
                    {a.card for a in acts if a.kind == "play" and not a.jump and a.player == me}
                )
                assert singles == engine.legal_plays(me), ev
        engine.apply(ev)
        steps += 1
    return steps


@SETTINGS
@given(
    preset=st.sampled_from(list(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_can_play_legal_plays_and_legal_actions_agree(preset: str, players: int, seed: int) -> None:
    events = next(simulate(preset, players, 1, seed))
    assert replay_asking(events) == len(events) - 1


def test_every_preset_is_asked() -> None:
    # the property above samples presets; this pins each one at least once, seed 7
    for preset in PRESET_NAMES:
        events = next(simulate(preset, 3, 1, 7))
        assert replay_asking(events) == len(events) - 1, preset


def test_legal_actions_with_a_pending_skip_leaves_the_turn_alone() -> None:
    # skip_answer (ruling 6): the pending skip stays until another player acts; asking
    # what is legal looks at the skip taken on a copy, not by rebinding the turn
    hands = {"a": ["8H", "9C"], "b": ["8D", "KC"], "c": ["QH", "KS"]}
    ev = [
        game("standard", ("a", "b", "c"), options={"hand_size": 2, "skip": ["8"],
                                                   "skip_answer": True}),
        deal(hands, "10H", ["AC", "AD", "AH", "AS"]),
        play("a", "8H"),
    ]  # fmt: skip
    engine = engine_after(ev)
    assert (engine.current_player, engine.pending_skip) == ("b", 1)
    acts = [str(a) for a in engine.legal_actions()]
    # b may answer with 8D; else the skip is taken and c plays QH on the 8H
    assert acts == ["b plays 8D", "c plays QH"]  # c cannot draw: QH plays (no voluntary)
    assert (engine.current_player, engine.pending_skip, engine.turns["c"]) == ("b", 1, 0)


def test_legal_actions_on_a_lapsing_owed_draw_leaves_it_owed() -> None:
    # ruling 12/8: an owed previous-player draw with no card left anywhere lapses when the
    # owing player would act; asking what is legal must not lapse it. 16 cards, 3 x 5 dealt
    # + the starter: the stock is empty from the start (empty_stock = "pass").
    ranks = ("7", "9", "10", "K")
    hands = {
        "a": ["9C", "7D", "9D", "KD", "7H"],
        "b": ["10D", "KH", "9H", "7S", "9S"],
        "c": ["10S", "KS", "KC", "7C", "10H"],
    }
    opts = {"ranks": list(ranks), "hand_size": 5, "empty_stock": "pass",
            "draw_previous": {"9C": 1}}  # fmt: skip
    ev = [game("standard", ("a", "b", "c"), options=opts), deal(hands, "10C", [], ranks)]
    engine = engine_after([*ev, play("a", "9C")])
    assert engine.stock == [] and engine.prev_owed == {"c": 1}  # c: the seat before a
    assert [str(a) for a in engine.legal_actions()] == ["b plays 9H", "b plays 9S"]
    assert engine.prev_owed == {"c": 1}


def test_describe_legal_on_a_hidden_hand_adds_no_unchecked_note() -> None:
    # a partial log: b's hand is a count; asking what b may do must not note anything
    ev = [
        game("standard", options={"hand_size": 2}),
        {"type": "deal", "hands": {"a": ["9H", "9D"], "b": {"count": 2}}, "starter": "10H"},
        play("a", "9H"),
    ]
    engine = engine_after(ev)
    before = set(engine.unchecked)
    engine.describe_legal()
    engine.legal_actions()
    assert engine.unchecked == before
    engine.apply(Draw(player="b", count=1, reason="no_play"))  # the real draw notes it
    assert "whether a hidden hand could play before drawing or passing" in engine.unchecked


# ------------------------------------------------------ claimed scores under scoring "none"


def _none_round(scores: dict[str, int] | None) -> list[dict[str, Any]]:
    d = deal({"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H")
    ev = [game("standard", options={"hand_size": 2, "call_last_card": None}), d]
    ev += [play("a", "9H"), play("b", "9S"), play("a", "9D")]
    return [*ev, round_end("a", hands={"a": [], "b": ["KD"]}, scores=scores)]


def test_scoring_none_claimed_zero_scores_are_valid() -> None:
    assert replay(_none_round({"a": 0, "b": 0})) is None
    assert replay(_none_round(None)) is None


def test_scoring_none_claimed_points_are_wrong_score() -> None:
    # PRESETS.md ruling 13: under scoring = "none" every player scores 0 (ruling 13), so a
    # log claiming KD's 10 points for the winner claims what the rules do not give
    assert replay(_none_round({"a": 10, "b": 0})) == ("wrong_score", 5)
    assert replay(_none_round({"a": 0})) == ("wrong_score", 5)  # b not listed


def test_deepcopy_gives_an_independent_engine() -> None:
    # bots look ahead on copy.deepcopy(engine); the original must not move
    events = next(simulate("classic", 3, 1, 11))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve("classic"), header)
    for ev in events[1:6]:
        engine.apply(ev)
    twin = copy.deepcopy(engine)
    assert type(twin) is Engine and snapshot(twin) == snapshot(engine)
    assert twin.hands is not engine.hands and twin.rules is engine.rules
    before = snapshot(engine)
    for ev in events[6:]:
        twin.apply(ev)
    assert snapshot(engine) == before
    assert twin.phase == "finished" and twin.winner == events[-1].winner  # type: ignore[union-attr]


def test_pickle_round_trip() -> None:
    # process pools and Ray ship reports with their engines; both builds pickle
    import pickle

    events = next(simulate("classic", 3, 1, 11))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve("classic"), header)
    for ev in events[1:8]:
        engine.apply(ev)
    back = pickle.loads(pickle.dumps(engine))
    assert type(back) is Engine and snapshot(back) == snapshot(engine)
    for ev in events[8:]:
        back.apply(ev)
    assert back.winner == events[-1].winner  # type: ignore[union-attr]
