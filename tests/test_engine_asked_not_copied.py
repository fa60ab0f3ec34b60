"""Callers ask the engine instead of copying its logic or the engine itself.

``Engine.call_due`` is the one answer to "which word must this player say now" (PRESETS.md
ruling 9), which the bots use; ``Engine.copy`` is the one way to apply an event without
touching an engine (the questions need no copy: they never write).
"""

from __future__ import annotations

import json

from gamebuilder import deal, engine_after, game, play

from maumau_log.bots.table import due_call
from maumau_log.disputes.hypothetical import try_action
from maumau_log.events import decode_event

HANDS = {"a": ["9H", "JD"], "b": ["9S", "KD", "8C"]}


def test_call_due_names_the_last_card_word_and_the_wild_one() -> None:
    # standard: call_last_card "mau", call_last_wild "mau-mau" (ruling 9)
    ev = [game("standard", options={"hand_size": 2}), deal({**HANDS, "b": ["9S", "KD"]}, "10H")]
    engine = engine_after([*ev, play("a", "9H")])  # a keeps JD, a wild jack
    assert engine.call_due("a") == "mau-mau" == due_call(engine, "a")
    assert engine.call_due("b") is None
    engine = engine_after([*ev, play("a", "JD"), {"type": "suit", "player": "a", "suit": "H"}])
    assert engine.call_due("a") == "mau"  # 9H left, not wild


def test_call_due_after_going_out_is_the_going_out_word() -> None:
    ev = [
        game("serbian", options={"hand_size": 1}),
        deal({"a": ["9H"], "b": ["9S"]}, "10H", preset="serbian"),
        play("a", "9H"),
    ]
    assert engine_after(ev).call_due("a") == "mau-mau"


def test_copy_is_independent_and_try_action_leaves_the_engine_alone() -> None:
    ev = [game("standard", options={"hand_size": 2}), deal({**HANDS, "b": ["9S", "KD"]}, "10H")]
    engine = engine_after(ev)
    before = (engine.view(), engine.event_index, engine.turns)
    twin = engine.copy()
    assert twin.rules is engine.rules and twin.hands is not engine.hands
    twin.apply(decode_event(json.dumps(play("a", "9H"))))
    assert (engine.view(), engine.event_index, engine.turns) == before
    assert twin.hands["a"] == ["JD"]
    got = try_action(engine, "a plays 9H")
    assert got["legal"] and got["legal_actions"] == ["a plays 9H", "a plays JD"]
    assert (engine.view(), engine.event_index, engine.turns) == before
