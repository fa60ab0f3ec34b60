"""Scores, rounds and matches (RULESETS.md "Scoring systems"; PRESETS.md rulings
13-14): hand-computed score sheets for every scoring system, and whole matches whose
claimed scores, totals or winner are wrong reported at the right round."""

from __future__ import annotations

import msgspec
import pytest

from maumau_log.bots.sim import simulate_matches
from maumau_log.events import Event, Game, MatchEnd, RoundEnd
from maumau_log.replay.driver import replay_events
from maumau_log.rules import resolve
from maumau_log.scoring.matches import is_over, match_winner
from maumau_log.scoring.rounds import hand_points, round_scores

# ---------------------------------------------------------------- one round (ruling 13)


def test_classic_winner_collects_the_points_left() -> None:
    rules = resolve("classic")
    hands = {"a": [], "b": ["7H", "QD", "JC"], "c": ["10S", "AS"]}
    # b: 7 + 10 + 20 = 37; c: 10 + 10 = 20; the winner collects 57, the others score 0
    assert round_scores(rules, ["a", "b", "c"], hands, "a", ["9H"]) == {"a": 57, "b": 0, "c": 0}
    # a round with no winner scores nothing under winner_collects
    assert round_scores(rules, ["a", "b", "c"], hands, None, []) == {"a": 0, "b": 0, "c": 0}


def test_standard_scored_round_doubles_on_a_jack_finish() -> None:
    rules = resolve("standard", {"scoring": "winner_collects"})
    hands = {"a": [], "b": ["8C", "KD"]}  # 8 + 10 = 18
    assert round_scores(rules, ["a", "b"], hands, "a", ["JS"]) == {"a": 36, "b": 0}
    assert round_scores(rules, ["a", "b"], hands, "a", ["9S"]) == {"a": 18, "b": 0}


def test_penalty_points_with_the_32_card_pack_every_card_is_at_least_7() -> None:
    rules = resolve("online-penalty", {"ranks": ["7", "8", "9", "10", "J", "Q", "K", "A"]})
    assert min(hand_points(rules, [c]) for c in rules.pack) == 7
    hands = {"a": [], "b": ["7C", "AD"], "c": ["JH", "QS", "10D"]}
    # b: 7 + 11 = 18; c: 20 + 10 + 10 = 40; the player out adds nothing
    assert round_scores(rules, ["a", "b", "c"], hands, "a", ["8C"]) == {"a": 0, "b": 18, "c": 40}
    # no winner: every player adds the own hand
    assert round_scores(rules, ["a", "b", "c"], hands, None, []) == {"a": 0, "b": 18, "c": 40}


@pytest.mark.parametrize(
    ("last_play", "expected"),
    [
        (["9H"], {"a": -30, "b": 23, "c": 30}),  # plain finish
        (["JH"], {"a": -60, "b": 46, "c": 60}),  # one J: x2 and -60
        (["JH", "JH"], {"a": -120, "b": 92, "c": 120}),  # two identical Js: x4 and -120
    ],
)
def test_serbian_scores(last_play: list[str], expected: dict[str, int]) -> None:
    rules = resolve("serbian")
    # b: 2C 10 + 3H 3 + K 10 = 23; c: 7D 10 + JS 20 = 30 (power cards 10, J 20, K 10)
    hands = {"a": [], "b": ["2C", "3H", "KS"], "c": ["7D", "JS"]}
    assert round_scores(rules, ["a", "b", "c"], hands, "a", last_play) == expected


def test_hand_penalty_loses_the_own_points() -> None:
    rules = resolve("crazy-eights")
    hands = {"a": [], "b": ["8H", "KS", "3D"], "c": ["AC"]}
    # b: -(50 + 10 + 3) = -63; c: -10; the player out loses nothing
    assert round_scores(rules, ["a", "b", "c"], hands, "a", ["4C"]) == {"a": 0, "b": -63, "c": -10}


# ---------------------------------------------------------------- match end (ruling 14)


def test_winner_collects_first_to_150() -> None:
    rules = resolve("classic")
    assert not is_over(rules, {"a": 149, "b": 40}, 5, 2)
    assert is_over(rules, {"a": 150, "b": 40}, 5, 2)
    assert match_winner(rules, ["a", "b"], {"a": 150, "b": 40}, {"a": 3, "b": 2}) == "a"


def test_penalty_points_lowest_total_wins_and_ties_go_to_rounds_won() -> None:
    rules = resolve("online-penalty")  # limit 100
    # the limit reached by two players in the same round: over, and the lowest wins
    totals = {"a": 105, "b": 101, "c": 50}
    assert is_over(rules, totals, 4, 3)
    assert match_winner(rules, ["a", "b", "c"], totals, {"c": 1, "a": 2}) == "c"
    # a tie on the lowest total goes to the tied player with most rounds won
    tie = {"a": 30, "b": 30, "c": 110}
    assert match_winner(rules, ["a", "b", "c"], tie, {"a": 2, "b": 1, "c": 1}) == "a"
    # tied on rounds won too: a draw
    assert match_winner(rules, ["a", "b", "c"], tie, {"a": 1, "b": 1, "c": 2}) is None
    # limit 150 as the other table setting
    assert not is_over(resolve("online-penalty", {"match_target": 150}), totals, 4, 3)


def test_serbian_six_rounds_lowest_total() -> None:
    rules = resolve("serbian")
    totals = {"a": -90, "b": 40, "c": 12}
    assert not is_over(rules, totals, 5, 3)
    assert is_over(rules, totals, 6, 3)
    assert match_winner(rules, ["a", "b", "c"], totals, {"a": 3}) == "a"


def test_hand_penalty_falls_to_minus_the_target() -> None:
    rules = resolve("crazy-eights", {"match_target": 100})
    assert not is_over(rules, {"a": -99, "b": 0}, 3, 2)
    assert is_over(rules, {"a": -100, "b": -20}, 3, 2)
    assert match_winner(rules, ["a", "b"], {"a": -100, "b": -20}, {}) == "b"


def test_faraon_last_player_left_wins() -> None:
    rules = resolve("faraon")
    assert is_over(rules, {}, 9, 1)
    assert not is_over(rules, {}, 9, 2)
    assert match_winner(rules, ["a", "b", "c"], {}, {"a": 4}, players_left=["b"]) == "b"


# ---------------------------------------------------------------- whole matches in logs

SCORED = [
    ("classic", 3, None),
    ("online-penalty", 4, None),
    ("serbian", 6, None),
    ("faraon", 3, None),
    ("crazy-eights", 3, {"match_target": 60}),
]


def rounds_of(preset: str, players: int, options: dict[str, int] | None) -> list[list[Event]]:
    """One simulated match, as a list of rounds (each a list of events)."""
    return list(simulate_matches(preset, players, 1, 11, options=options))


def flat(rounds: list[list[Event]]) -> list[Event]:
    return [ev for r in rounds for ev in r]


@pytest.mark.parametrize(("preset", "players", "options"), SCORED)
def test_a_correct_match_passes(preset: str, players: int, options: dict[str, int] | None) -> None:
    rounds = rounds_of(preset, players, options)
    reports = replay_events(flat(rounds))
    assert [r.violation for r in reports] == [None] * len(rounds)
    assert len(rounds) >= 2
    last = rounds[-1][-1]
    assert isinstance(last, MatchEnd)
    engine = reports[-1].engine
    assert engine is not None
    assert engine.match_totals == last.totals and engine.match_winner == last.winner


def _index_of(events: list[Event], kind: type) -> int:
    return next(i for i, ev in enumerate(events) if isinstance(ev, kind))


@pytest.mark.parametrize(("preset", "players", "options"), SCORED)
def test_wrong_totals_winner_and_ends_are_located(
    preset: str, players: int, options: dict[str, int] | None
) -> None:
    rounds = rounds_of(preset, players, options)
    last = len(rounds) - 1
    end = rounds[last][-1]
    assert isinstance(end, MatchEnd) and end.totals

    def check(rounds_: list[list[Event]], round_index: int, event_index: int, code: str) -> None:
        reports = replay_events(flat(rounds_))
        bad = [(i, r.violation) for i, r in enumerate(reports) if r.violation is not None]
        assert bad, f"{code} not found"
        i, v = bad[0]
        assert (i, v.event_index, v.code) == (round_index, event_index, code), v

    # a total one point off
    p = next(iter(end.totals))
    wrong = dict(end.totals)
    wrong[p] += 1
    check([*rounds[:last], [*rounds[last][:-1], msgspec.structs.replace(end, totals=wrong)]],
          last, len(rounds[last]) - 1, "wrong_total")  # fmt: skip
    # the wrong winner
    header = rounds[last][0]
    assert isinstance(header, Game)
    other = next(q for q in header.players if q != end.winner)
    check([*rounds[:last], [*rounds[last][:-1], msgspec.structs.replace(end, winner=other)]],
          last, len(rounds[last]) - 1, "wrong_winner")  # fmt: skip
    # no match_end after the deciding round: reported where it was due
    check([*rounds[:last], rounds[last][:-1]], last, len(rounds[last]) - 1, "match_not_over")
    # a match_end after round 1: too early
    first = [*rounds[0], MatchEnd(totals={}, winner=None)]
    check([first, *rounds[1:]], 0, len(rounds[0]), "match_over_too_early")
    # a round after the match ended
    extra = [msgspec.structs.replace(ev, game_id="extra", round=len(rounds) + 1)
             if isinstance(ev, Game) else ev for ev in rounds[0]]  # fmt: skip
    check([*rounds, extra], len(rounds), 0, "match_not_over")


def test_wrong_round_number_dealer_and_round_score_in_round_two() -> None:
    rounds = rounds_of("classic", 3, None)
    h2 = rounds[1][0]
    assert isinstance(h2, Game) and h2.dealer is not None
    # round numbers must follow on
    bad = [[msgspec.structs.replace(h2, round=3), *rounds[1][1:]]]
    (r1, r2) = replay_events(flat([rounds[0], *bad]))
    assert r1.valid and r2.violation is not None
    assert (r2.violation.code, r2.violation.event_index) == ("wrong_round", 0)
    # the next seat deals round 2
    h1 = rounds[0][0]
    assert isinstance(h1, Game) and h1.dealer is not None
    seat = h1.players.index(h1.dealer)
    assert h2.dealer == h1.players[(seat + 1) % 3]
    not_next = next(p for p in h1.players if p != h2.dealer)
    bad = [[msgspec.structs.replace(h2, dealer=not_next), *rounds[1][1:]]]
    (r1, r2) = replay_events(flat([rounds[0], *bad]))
    assert r2.violation is not None
    assert (r2.violation.code, r2.violation.event_index) == ("wrong_starter", 0)
    # a claimed round score off by one in round 2
    i = _index_of(rounds[1], RoundEnd)
    end = rounds[1][i]
    assert isinstance(end, RoundEnd) and end.scores
    scores = dict(end.scores)
    q = next(iter(scores))
    scores[q] += 1
    bad = [[*rounds[1][:i], msgspec.structs.replace(end, scores=scores), *rounds[1][i + 1 :]]]
    reports = replay_events(flat([rounds[0], *bad, *rounds[2:]]))
    assert reports[0].valid
    assert reports[1].violation is not None
    assert (reports[1].violation.code, reports[1].violation.event_index) == ("wrong_score", i)
