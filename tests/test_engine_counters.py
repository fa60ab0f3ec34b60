"""The engine's counters: turns begun and turns skipped by player from the deal on, the
counters State starts empty, and the counts of rarer events (a reshuffle's, a penalty's),
which must not be negative."""

from __future__ import annotations

import copy
import json
import pickle
from collections import Counter

import pytest
from gamebuilder import deal, engine_after, game, play

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, RuleViolation
from maumau_log.events import (
    Game,
    Penalty,
    Reshuffle,
    decode_event,
)
from maumau_log.replay.driver import replay_events
from maumau_log.rules import PRESET_NAMES, UNSUPPORTED_PRESETS, resolve


def _dealt() -> Engine:
    hands = {"ana": ["9H", "KC", "7S", "8D", "QH"], "ben": ["9S", "10C", "AS", "JD", "8C"],
             "cy": ["7H", "7C", "KD", "QS", "10S"]}  # fmt: skip
    return engine_after([game("standard", ["ana", "ben", "cy"], "cy"), deal(hands, "10H")])


def test_turn_counters_hold_every_player_from_the_start() -> None:
    e = _dealt()
    # ana (left of the dealer cy) has begun the first turn; ben and cy none yet
    assert e.turns == {"ana": 1, "ben": 0, "cy": 0}
    assert e.skipped == {"ana": 0, "ben": 0, "cy": 0}
    e.apply(decode_event(json.dumps(play("ana", "9H"))))
    assert e.turns == {"ana": 1, "ben": 1, "cy": 0}


def test_negative_counts_of_rare_events_are_schema_errors() -> None:
    e = _dealt()
    for ev in (Reshuffle(count=-1), Penalty(player="ben", reason="missed_call", count=-2)):
        try:
            e.apply(ev)
        except RuleViolation as rv:
            assert rv.code == "schema_error"
            assert "must not be negative" in rv.message
        else:
            raise AssertionError(f"{ev} was accepted")


def test_empty_counter_is_an_empty_counter() -> None:
    # what State starts cover_drawn and call_faults with (Counter.__init__ not run)

    from maumau_log.engine.state import empty_counter

    c = empty_counter()
    assert type(c) is Counter and c == Counter() and not c
    assert c["x"] == 0 and "x" not in c
    c["p1"] += 1
    c.update(["p1", "p2"])
    assert c == Counter({"p1": 2, "p2": 1}) and c.most_common(1) == [("p1", 2)]
    assert empty_counter() is not empty_counter()
    events = next(simulate("classic", 3, 1, 3))
    engine = replay_events(events)[0].engine
    assert engine is not None and type(engine.call_faults) is Counter


_PRESETS = [p for p in PRESET_NAMES if p not in UNSUPPORTED_PRESETS]


def test_turn_counters_start_at_zero_and_apart() -> None:
    """``turns`` (by player, from ``turn_count`` by seat) and ``skipped`` start at 0 for
    every player; ``turns`` is a new dict each time."""
    header = Game(format="maumau-log/1", game_id="g", ruleset="standard", players=["a", "b", "c"])
    e = Engine(resolve("standard"), header)
    assert e.turns == {"a": 0, "b": 0, "c": 0} == e.skipped
    assert e.turn_count == [0, 0, 0]
    assert list(e.turns) == ["a", "b", "c"]
    e.turns["a"] += 1  # a copy: the engine's count is unchanged
    assert e.turns["a"] == 0 and e.skipped["a"] == 0
    e.turn_count[1] += 2
    assert e.turns == {"a": 0, "b": 2, "c": 0}


@pytest.mark.parametrize("preset", _PRESETS)
def test_turns_by_seat_count_every_turn_begun(preset: str) -> None:
    """``turn_count`` (by seat) counts what the dict by player counted: the turns begun,
    less a winning card's phantom turn, plus a jump-in's turn (rulings 6-10). Counted here
    from the outside: each turn begins when the player to move changes or the same player
    starts anew, so the sum of turns is at least the turn changes seen."""
    for events in simulate(preset, 3, 4, 21):
        header = events[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        changes = 0
        before = None
        for ev in events[1:]:
            engine.apply(ev)
            now = engine.current if engine.phase == "play" else None
            if now is not None and now != before:
                changes += 1
            before = now
            assert engine.turns == dict(zip(engine.players, engine.turn_count, strict=True))
            assert all(k >= 0 for k in engine.turn_count)
        assert sum(engine.turn_count) >= changes - 1
        twin = copy.deepcopy(engine)
        assert twin.turn_count == engine.turn_count and twin.turn_count is not engine.turn_count
        assert pickle.loads(pickle.dumps(engine)).turns == engine.turns
