"""Session 7's speed changes keep the behaviour: the fair shuffle's one-test
fast path and its hashing, the match arithmetic moved to the compiled scoring module, and
the round end's final hands."""

from __future__ import annotations

import pytest
from test_shuffle import _reference_shuffle

from maumau_log.bots.sim import simulate
from maumau_log.engine.shuffle import shuffled
from maumau_log.events import RoundEnd
from maumau_log.replay.driver import replay_events
from maumau_log.scoring import matches
from maumau_log.scoring import rounds as scoring


@pytest.mark.parametrize("size", [2, 3, 4, 5, 31, 32, 33, 64, 1023, 1024, 1025, 1026])
def test_shuffle_on_both_sides_of_the_one_test_limit(size: int) -> None:
    # up to 1,024 cards one max() of the words decides that none is rejected; past it the
    # word-by-word loop runs: both give the algorithm's order
    cards = [f"c{i}" for i in range(size)]
    for seed in ("", "a", "maumau", "é/reshuffle/3", "0" * 64):
        assert shuffled(cards, seed) == _reference_shuffle(cards, seed)


def test_the_one_test_limit_is_below_every_rejection_limit() -> None:
    # a word below 2**64 - 1024 is accepted for every n <= 1024 (the fast path's premise)
    safe = 2**64 - 1024
    assert all(safe <= 2**64 - (2**64 % n) for n in range(2, 1025))


def test_matches_names_the_scoring_functions() -> None:
    # one source: the match arithmetic is scoring's, named by matches as before
    assert matches.add_scores is scoring.add_scores
    assert matches.is_over is scoring.is_over
    assert matches.match_winner is scoring.match_winner
    assert matches.HIGH_WINS == ("winner_collects", "hand_penalty")


def test_round_end_hands_in_another_order_and_a_wrong_hand() -> None:
    # final hands listed in any order are the replayed hands; a wrong one is wrong_score
    events = next(simulate("classic", 3, 1, 7))
    end = events[-1]
    assert isinstance(end, RoundEnd) and end.hands is not None
    hands = {p: list(reversed(h)) if isinstance(h, list) else h for p, h in end.hands.items()}
    shuffled_order = [*events[:-1], RoundEnd(winner=end.winner, hands=hands, scores=end.scores)]
    assert replay_events(shuffled_order)[0].violation is None
    loser = next(p for p, h in hands.items() if isinstance(h, list) and h)
    wrong = dict(hands, **{loser: hands[loser][1:]})
    bad = [*events[:-1], RoundEnd(winner=end.winner, hands=wrong, scores=end.scores)]
    v = replay_events(bad)[0].violation
    assert v is not None and v.code == "wrong_score" and v.event_index == len(events) - 1


def test_empty_counter_is_an_empty_counter() -> None:
    # what State starts cover_drawn and call_faults with (Counter.__init__ not run)
    from collections import Counter

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
