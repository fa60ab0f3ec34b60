"""Messages and rule citations: each violation's ``rule`` names the option
or ruling really broken, and its ``message`` states the fact that decided it. The texts are
asserted whole, since they are what a player reads in a dispute."""

from __future__ import annotations

from typing import Any

from gamebuilder import (
    Ev,
    deal,
    draw,
    game,
    pass_,
    penalty,
    play,
    report,
    reshuffle,
    suit,
    view_after,
)

from maumau_log.violations import Violation


def violation(events: list[Ev]) -> Violation:
    rep = report(events)
    assert rep.violation is not None, "expected a violation"
    return rep.violation


def count_draw(player: str, n: int = 1, reason: str = "no_play") -> Ev:
    return {"type": "draw", "player": player, "count": n, "reason": reason}


# -- the ruleset's own wild cards are cited ------------------------------------------------

C8_A = ["8C", "3D", "4D", "5D", "6D", "9D", "10D"]
C8_B = ["5C", "3S", "4S", "5S", "6S", "9S", "10S"]


def test_named_suit_fault_cites_the_rulesets_wild_cards() -> None:
    ev = [
        game("crazy-eights"),
        deal({"a": C8_A, "b": C8_B}, "KC", preset="crazy-eights"),
        play("a", "8C"),
        suit("a", "H"),
        play("b", "5C"),
    ]
    v = violation(ev)
    assert (v.code, v.event_index) == ("card_does_not_match", 4)
    assert v.message == "b plays 5C: 5C does not follow the suit H named for the wild card 8C"
    assert (
        v.rule == "options wild = ['8'], wild_names_suit; RULES.md (a named suit must be followed)"
    )
    assert "J wild" not in v.rule


# -- empty stock: nothing left to draw, or a reshuffle first ------------------------------

# standard with 15 cards each: the stock is one card (10S). a holds no heart, no 9, no J.
EMPTY_A = [
    "7C",
    "8C",
    "10C",
    "QC",
    "KC",
    "AC",
    "7D",
    "8D",
    "10D",
    "QD",
    "KD",
    "AD",
    "QS",
    "KS",
    "AS",
]
EMPTY_B = [
    "7S",
    "8S",
    "7H",
    "8H",
    "10H",
    "JH",
    "QH",
    "KH",
    "AH",
    "9C",
    "9D",
    "9S",
    "JC",
    "JD",
    "JS",
]


def empty_stock(options: dict[str, Any]) -> list[Ev]:
    return [
        game("standard", options={"hand_size": 15, **options}),
        deal({"a": EMPTY_A, "b": EMPTY_B}, "9H", ["10S"]),
        draw("a", "10S"),
        pass_("a"),
        play("b", "JH"),
        suit("b", "H"),  # a holds no heart; the stock is empty
    ]


def test_draw_with_nothing_left_says_so_and_cites_ruling_12() -> None:
    start = empty_stock({"empty_stock": "pass"})
    v = violation([*start, count_draw("a")])
    assert (v.code, v.event_index) == ("wrong_draw_count", 6)
    assert v.message == (
        "a may not draw here: nothing is left to draw (the stock is empty and the discard "
        "pile cannot be reshuffled); a player with no card to play passes"
    )
    assert v.rule == "PRESETS.md rulings 11-12"
    assert "voluntary_draw" not in v.rule
    assert view_after([*start, pass_("a")])["turn"] == "b"  # the legal twin: a passes


def test_pass_where_a_reshuffle_must_come_first() -> None:
    start = empty_stock({})
    v = violation([*start, pass_("a")])
    assert (v.code, v.event_index) == ("illegal_pass", 6)
    assert v.message == (
        "a may not pass: the stock is empty but the discard pile can be reshuffled: a "
        "reshuffle must be logged before the draw"
    )
    assert v.rule == "FORMAT.md Conventions (reshuffle); PRESETS.md ruling 11"
    v = violation([*start, count_draw("a")])
    assert (v.code, v.event_index) == ("draw_not_from_stock_top", 6)
    assert v.message == "a's draw: the stock is empty; a reshuffle must be logged before drawing"
    legal = [*start, reshuffle(["9H"]), draw("a", "9H"), play("a", "9H")]
    assert view_after(legal)["top"] == "9H"


SEVEN_A = [
    "7H",
    "7C",
    "8C",
    "10C",
    "QC",
    "KC",
    "AC",
    "7D",
    "8D",
    "10D",
    "QD",
    "KD",
    "AD",
    "QS",
    "KS",
]
SEVEN_B = [
    "7S",
    "8S",
    "AS",
    "8H",
    "10H",
    "JH",
    "QH",
    "KH",
    "AH",
    "9C",
    "9D",
    "9S",
    "JC",
    "JD",
    "JS",
]


def test_draw_beyond_a_short_stock_says_a_reshuffle_must_come() -> None:
    start = [
        game("standard", options={"hand_size": 15}),
        deal({"a": SEVEN_A, "b": SEVEN_B}, "9H", ["10S"]),
        play("a", "7H"),  # b owes 2; the stock holds 1
    ]
    v = violation([*start, count_draw("b", 2, "effect")])
    assert (v.code, v.event_index) == ("draw_not_from_stock_top", 3)
    assert v.message == (
        "b's draw: 2 cards drawn but the stock holds only 1; draw the 1 left, then a "
        "reshuffle must be logged before drawing more"
    )
    assert v.expected == "draw at most 1, then a reshuffle event"
    legal = [*start, draw("b", "10S", reason="effect"), reshuffle(["9H"])]
    legal.append(draw("b", "9H", reason="effect"))
    v2 = view_after(legal)
    assert v2["pending_draw"] == 0 and len(v2["hands"]["b"]) == 17


# -- a second catch of one call fault says where the first was ---------------------------


def test_second_penalty_for_one_fault_names_the_first_catch() -> None:
    ev = [
        game("standard"),
        deal(
            {"a": ["10D", "KC", "QS", "QH", "AH"], "b": ["10C", "KS", "QD", "9S", "9C"]},
            "9D",
            ["10S", "7C", "8C"],
        ),
        play("a", "10D"),
        play("b", "10C"),
        play("a", "KC"),
        play("b", "KS"),
        play("a", "QS"),
        play("b", "QD"),
        play("a", "QH"),  # 8: one card left, no call
        draw("b", "10S"),
        pass_("b"),
        penalty("a", "b", "7C"),  # 11: caught
    ]
    assert view_after(ev)["calls_due"] == {}
    v = violation([*ev, penalty("a", "b", "8C")])
    assert (v.code, v.event_index) == ("wrong_penalty", 12)
    assert v.message == (
        "a made no call fault that can be caught now (the last call fault of a was already "
        "caught at event 11)"
    )


# -- a duplicated card at the deal says where both copies are -----------------------------


def test_duplicate_at_the_deal_names_both_places() -> None:
    good = deal(
        {"a": ["10H", "KC", "QC", "9C", "10C"], "b": ["9D", "KH", "10D", "KD", "10S"]}, "9H"
    )
    bad = {**good, "hands": {**good["hands"], "a": ["9H", "KC", "QC", "9C", "10C"]}}
    assert view_after([game("standard"), good, play("a", "10H")])["top"] == "10H"
    v = violation([game("standard"), bad])
    assert (v.code, v.event_index) == ("duplicate_card", 1)
    assert v.message == (
        "the deal holds 9H 2 times (in a's hand and as the starter); the pack holds it once"
    )
    two = {**good, "stock": ["9D", *good["stock"]]}
    v = violation([game("standard"), two])
    assert v.message == (
        "the deal holds 9D 2 times (in b's hand and in the stock); the pack holds it once"
    )


# -- a partial log: the face-up starter played from a hidden hand --------------------------


def test_hidden_hand_playing_the_starter_says_so() -> None:
    partial = {
        "type": "deal",
        "hands": {"a": {"count": 5}, "b": ["9D", "KH", "10D", "KD", "10S"]},
        "starter": "9H",
    }
    start = [game("standard"), partial]
    v = violation([*start, play("a", "9H")])
    assert (v.code, v.event_index) == ("card_not_in_hand", 2)
    assert v.message == (
        "a plays 9H from a hidden hand, but no such card is left unseen: 9H is on the "
        "discard pile (the face-up starter)"
    )
    assert v.expected is not None and "draws 1 (no_play)" not in v.expected
    assert "which of them a holds is hidden" in v.expected
    v = violation([*start, play("a", "KH")])
    assert v.message.endswith("KH is in b's hand")
    assert view_after([*start, play("a", "10H")])["top"] == "10H"  # still unseen: allowed


# -- a cover draw that does not cover ends the turn: the messages say so ------------------


def test_after_a_cover_draw_that_does_not_cover_the_turn_is_over() -> None:
    start = [
        game("standard"),
        deal(
            {"a": ["10D", "KC", "QS", "AD", "AH"], "b": ["10C", "KS", "QD", "9S", "9C"]},
            "9D",
            ["10S", "7C"],
        ),
        play("a", "10D"),
        play("b", "10C"),
        play("a", "KC"),
        play("b", "KS"),
        play("a", "QS"),
        play("b", "QD"),
        play("a", "AD"),
        play("a", "AH"),
        draw("a", "10S", reason="cover"),  # 10: 10S does not cover AH
    ]
    v = violation([*start, play("a", "10S")])
    assert (v.code, v.event_index) == ("card_does_not_match", 11)
    assert v.message == (
        "a drew for the cover and the card drawn does not cover: the turn is over (pass)"
    )
    assert v.rule == "option cover_draw = 'one'; PRESETS.md ruling 5"
    v = violation([*start, draw("a", "7C", reason="cover")])
    assert (v.code, v.event_index) == ("wrong_draw_count", 11)
    assert v.message == "a may not draw here: the turn is over after that draw; pass"
    assert v.rule == "option cover_draw = 'one'; PRESETS.md ruling 5"
    assert view_after([*start, pass_("a")])["turn"] == "b"


def test_missed_penalty_cites_ruling_22() -> None:
    start = [
        game("standard"),
        deal({"a": ["7H", "10C", "KC", "QC", "9C"], "b": ["9D", "KH", "JD", "KD", "10S"]}, "9H"),
        play("a", "7H"),
    ]
    v = violation([*start, play("b", "KH")])
    assert (
        v.message
        == "b must draw 2 (pending from a 7); no card answers it here, so KH may not be played"
    )
    assert v.rule == "options draw, draw_answer = 'none'; PRESETS.md ruling 22"
    assert violation([*start, pass_("b")]).rule == "option draw; PRESETS.md ruling 22"


def test_missed_penalty_offers_an_answer_only_where_a_card_can_answer() -> None:
    """Under ``draw_answer = "same_rank"`` (classic) a 7 answers a 7, so the message says
    the draw may be answered; under standard's ``"none"`` nothing can (ruling 22)."""
    start = [
        game("classic"),
        deal({"a": ["7H", "10C", "KC", "QC", "9C"], "b": ["9D", "KH", "JD", "KD", "10S"]}, "9H"),
        play("a", "7H"),
    ]
    v = violation([*start, play("b", "KH")])
    assert v.message == "b must draw 2 (pending from a 7) or answer it; KH does not answer it"
    assert v.rule == "options draw, draw_answer = 'same_rank'; PRESETS.md ruling 22"


def test_legal_text_does_not_guess_what_a_hidden_hand_may_do() -> None:
    partial = {
        "type": "deal",
        "hands": {"a": {"count": 5}, "b": ["9D", "KH", "10D", "KD", "10S"]},
        "starter": "9H",
    }
    v = violation([game("standard"), partial, play("b", "9D")])
    assert (v.code, v.event_index) == ("wrong_player", 2)
    assert v.expected == (
        "a draws 1 (no_play) (if the hidden hand cannot play) | a plays a card of the hidden "
        "hand legal here"
    )
