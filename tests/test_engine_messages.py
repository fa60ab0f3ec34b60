"""The engine's violation messages and the rules they cite, pinned word for word.

A message speaks the game's words (players, cards, counts), never Python's reprs, and cites
the rule that applies to the case at hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gamebuilder import deal, draw, game, pack, pass_, penalty, play, report, round_end

from maumau_log.replay.driver import Replayer


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


# ---------------------------------------------------------------------------------------
# the game's words: players, cards and totals, never a Python repr

ONE = game("classic", ("a", "b"), options={"hand_size": 1})
ONE_DEAL = deal({"a": ["QH"], "b": ["10D"]}, "QC")  # a goes out with QH on QC
SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs" / "violations"


def sample_violation(name: str) -> tuple[str, str, str | None]:
    """``(code, message, expected)`` of the first violation of a sample log."""
    [found] = [r.violation for r in Replayer().replay_file(SAMPLES / name) if r.violation]
    return found.code, found.message, found.expected


def test_wrong_winner_names_the_player_not_a_repr() -> None:
    assert violation([ONE, ONE_DEAL, play("a", "QH"), round_end("b")])[:2] == (
        "wrong_winner",
        "round_end names player b as the winner, but a emptied the hand",
    )
    assert violation([ONE, ONE_DEAL, play("a", "QH"), round_end("b")])[3] == "winner a"


def test_wrong_winner_of_no_one_says_no_winner() -> None:
    code, message, _rule, expected = violation([ONE, ONE_DEAL, play("a", "QH"), round_end(None)])
    assert (code, message, expected) == (
        "wrong_winner",
        "round_end names no winner, but a emptied the hand",
        "winner a",
    )


def test_wrong_final_hand_lists_the_cards() -> None:
    end = round_end("a", hands={"a": [], "b": ["10D", "7C"]})
    code, message, _rule, expected = violation([ONE, ONE_DEAL, play("a", "QH"), end])
    assert (code, message, expected) == (
        "wrong_score",
        "round_end.hands gives b 10D, 7C, but b holds 10D",
        "b: 10D",
    )


def test_an_unknown_player_card_or_catcher_is_quoted_not_repr() -> None:
    assert violation([ONE, ONE_DEAL, play("zed", "QH")]) == (
        "wrong_player",
        'play: "zed" is not a player of this game',
        "FORMAT.md Events (game.players)",
        "one of a, b",
    )
    assert violation([ONE, ONE_DEAL, play("a", "Q-H")])[::3] == (
        "unknown_card",
        "codes like 10H, JC, X",
    )
    assert violation([ONE, ONE_DEAL, play("a", "Q-H")])[1] == (
        '"Q-H" in play.cards is not a card code'
    )
    assert violation([ONE, ONE_DEAL, penalty("b", "", "7C")])[:2] == (
        "wrong_penalty",
        'a call penalty must name the catcher, another player, in `by` (got "")',
    )


def test_scores_and_totals_are_listed_per_player() -> None:
    assert sample_violation("wrong_score.jsonl") == (
        "wrong_score",
        "round_end.scores gives p1 100, the replay counts 110 (winner_collects)",
        "p1 110, p2 0",
    )
    assert sample_violation("wrong_total.jsonl") == (
        "wrong_total",
        "match_end.totals gives p1 175, the replay counts 165",
        "p1 165, p2 0",
    )
    assert sample_violation("match_over_too_early.jsonl")[1] == (
        "match_end after round 1, but no end condition is met (totals p1 57, p2 0)"
    )
    assert sample_violation("match_not_over.jsonl")[1] == (
        "match sample-match_not_over is decided after round 2 (totals p1 165, p2 0) but no "
        "match_end follows"
    )
