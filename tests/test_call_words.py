"""What the session-5 speed pass of the engine changed in representation stays the same
behaviour: call words fold as before, the turn counters hold every player, and
the rarer events' counts and actors are read by type."""

from __future__ import annotations

import json

from gamebuilder import deal, engine_after, game, play
from hypothesis import given
from hypothesis import strategies as st

from maumau_log.engine import Engine, RuleViolation
from maumau_log.engine.calls import normalize_call
from maumau_log.events import Penalty, Reshuffle, decode_event

_FOLD = str.maketrans("", "", " -_")


@given(st.text(alphabet=st.sampled_from("MauMAU -_ßİ\u0130ǅ1"), max_size=12))
def test_call_words_fold_as_lower_then_without_spaces_hyphens_underscores(word: str) -> None:
    assert normalize_call(word) == word.lower().translate(_FOLD)


def test_call_words_by_hand() -> None:
    assert [normalize_call(w) for w in ("Mau", "MAU-MAU", "mau mau", "Mau_Mau", "Makao")] == [
        "mau", "maumau", "maumau", "maumau", "makao",
    ]  # fmt: skip


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
