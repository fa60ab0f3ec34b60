"""PRESETS.md rulings 17-24 and the options ``cover_match`` and ``multi_play_any_suit``.

Written from the rulings' text: each case has a legal game and its illegal twin, with the
exact violation code and event index (header = 0). Legal cases replay with
:func:`engine_after` (which raises on any violation) and check the state the ruling gives.
"""

from __future__ import annotations

from typing import Any

from gamebuilder import (
    Ev,
    call,
    deal,
    draw,
    engine_after,
    game,
    pass_,
    penalty,
    play,
    replay,
    replay_games,
    report,
    round_end,
    suit,
    view_after,
)

RANKS52 = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def first(events: list[Ev]) -> tuple[str, int | None, str, str]:
    """The first violation as (code, event_index, message, rule)."""
    rep = report(events)
    assert rep.violation is not None, "expected a violation"
    v = rep.violation
    return v.code, v.event_index, v.message, v.rule


# -- ruling 17: a wild draw starter (the Pesten Joker) keeps its draw --------------------

PESTEN_A = ["2H", "4H", "5H", "6H", "9C", "10C", "JH"]
PESTEN_B = ["3D", "4D", "5D", "6D", "9D", "10D", "QD"]
FIVE = ["3C", "4C", "5C", "6C", "9S"]


def pesten(options: dict[str, Any] | None = None) -> list[Ev]:
    return [
        game("pesten", options=options),
        deal({"a": PESTEN_A, "b": PESTEN_B}, "X", FIVE, preset="pesten"),
    ]


def test_17_joker_starter_first_player_owes_five() -> None:
    eng = engine_after([*pesten(), draw("a", *FIVE, reason="effect")])
    v = eng.view()
    assert v["pending_draw"] == 0 and v["turn"] == "a"  # draw_ends_turn = false in pesten
    assert len(v["hands"]["a"]) == 12
    assert view_after(pesten())["pending_draw"] == 5


def test_17_joker_starter_playing_instead_of_drawing_is_missed_penalty() -> None:
    assert replay([*pesten(), play("a", "5H")]) == ("missed_penalty", 2)


def test_17_joker_starter_may_be_answered_as_draw_answer_allows() -> None:
    # pesten draw_answer = "any_draw_card": a 2 passes the 5 on and adds 2
    v = view_after([*pesten(), play("a", "2H")])
    assert v["pending_draw"] == 7 and v["turn"] == "b"


def test_17_24_first_player_names_the_suit_then_serves_the_draw() -> None:
    opts = {"wild_starter": "first_player_names"}
    ev = [*pesten(opts), suit("a", "H"), draw("a", *FIVE, reason="effect"), play("a", "5H")]
    v = view_after(ev)
    assert v["top"] == "5H" and v["turn"] == "b" and v["suit"] is None
    # ruling 24: the suit comes first, then the draw
    code, idx, message, rule = first([*pesten(opts), draw("a", *FIVE, reason="effect")])
    assert (code, idx) == ("missing_suit_choice", 2)
    assert message == "a names the suit for the wild starter X first; a draws instead"
    assert rule == "option wild_starter = 'first_player_names'; PRESETS.md ruling 24"


def test_17_any_wild_starter_allows_any_card_once_the_draw_is_served() -> None:
    ev = [*pesten({"wild_starter": "any"}), draw("a", *FIVE, reason="effect"), play("a", "9C")]
    assert view_after(ev)["top"] == "9C"


# -- ruling 18: a joker with no suit named: only a joker or a wild card goes on it -------


def test_18_plain_joker_starter_after_the_draw_takes_only_wild_cards() -> None:
    served = [*pesten(), draw("a", *FIVE, reason="effect")]
    code, idx, message, rule = first([*served, play("a", "5H")])
    assert (code, idx) == ("card_does_not_match", 3)
    assert rule == "PRESETS.md ruling 18"
    assert "X lies with no suit named" in message
    v = view_after([*served, play("a", "JH"), suit("a", "D")])
    assert v["top"] == "JH" and v["suit"] == "D"


NEUNER_A = ["7H", "9H", "10C", "KC", "QC"]
NEUNER_B = ["10D", "9D", "KD", "QD", "8S"]


def test_18_neuner_plain_joker_starter() -> None:
    start = [game("neuner"), deal({"a": NEUNER_A, "b": NEUNER_B}, "X", preset="neuner")]
    assert replay([*start, play("a", "7H")])[0:2] == ("card_does_not_match", 2)
    assert view_after([*start, play("a", "9H"), suit("a", "C")])["suit"] == "C"


def test_18_joker_played_where_it_names_no_suit() -> None:
    opts = {"wild_names_suit": False}
    hands = {"a": ["X", "7C", "8C", "KC", "QC"], "b": NEUNER_B}
    start = [game("neuner", options=opts), deal(hands, "10H", preset="neuner", options=opts)]
    assert replay([*start, play("a", "X"), play("b", "10D")]) == ("card_does_not_match", 3)
    assert view_after([*start, play("a", "X"), play("b", "9D")])["top"] == "9D"


# -- ruling 19: emptying the hand while a cover is owed is not going out ------------------

STD_A = ["10D", "KC", "QS", "AD", "AH"]
STD_B = ["10C", "KS", "QD", "9S", "9C"]


def std_to_two(
    a: list[str], b: list[str], top: list[str], options: dict[str, Any] | None = None
) -> list[Ev]:
    """standard, starter 9D: six plays leave a with its last two cards."""
    return [
        game("standard", options=options),
        deal({"a": a, "b": b}, "9D", top),
        play("a", "10D"),
        play("b", "10C"),
        play("a", "KC"),
        play("b", "KS"),
        play("a", "QS"),
        play("b", "QD"),
    ]


def test_19_cover_drawn_into_an_empty_hand_makes_no_call_due() -> None:
    # a: AD (one card left, no call) then AH covers it in the same turn and empties the
    # hand: the window closes with no fault; the card drawn to cover makes no call due
    ev = [
        *std_to_two(STD_A, STD_B, ["10S", "7C"]),
        play("a", "AD"),
        play("a", "AH"),
        draw("a", "10S", reason="cover"),
        pass_("a"),
    ]
    assert view_after(ev)["calls_due"] == {}
    code, idx, message, _ = first([*ev, penalty("a", "b", "7C")])
    assert (code, idx) == ("wrong_penalty", 12)
    assert "a made no call fault that can be caught now" in message


def test_19_drawn_card_that_covers_and_empties_the_hand_ends_the_round() -> None:
    ev = [
        *std_to_two(STD_A, STD_B, ["10H"]),
        play("a", "AD"),
        play("a", "AH"),
        draw("a", "10H", reason="cover"),
        play("a", "10H"),
        round_end("a"),
    ]
    assert replay(ev) is None
    # the drawn card must cover: passing instead is illegal (ruling 5)
    assert replay([*ev[:11], pass_("a")]) == ("illegal_pass", 11)


def test_19_no_finish_card_that_is_not_a_cover_card_may_not_be_the_last() -> None:
    def last_ace(options: dict[str, Any] | None) -> list[Ev]:
        return [
            *std_to_two(STD_A, STD_B, ["10S", "7C"], options),
            play("a", "AD"),  # 8
            *([play("a", "AH")] if options is None else []),  # standard: AD is covered
        ]

    # standard: AH covers AD and may be the last card; the cover is then owed
    assert view_after(last_ace(None))["cover_owed"] == "AH"
    # twin: with cover = [] the A is only a no_finish_on card
    no_cover = {"cover": []}
    ev = [*last_ace(no_cover), call("a", "mau"), draw("b", "10S"), pass_("b"), play("a", "AH")]
    code, idx, _, rule = first(ev)
    assert (code, idx) == ("card_does_not_match", 12)
    assert rule == "option no_finish_on = ['A']; PRESETS.md ruling 19"


def test_19_call_fault_lapses_when_the_hand_empties_on_a_cover() -> None:
    a = ["10D", "KC", "QS", "QH", "AH"]
    start = [
        *std_to_two(a, STD_B, ["10S", "7C", "8C"]),
        play("a", "QH"),  # 8: a keeps AH and says nothing
        draw("b", "10S"),  # 9: the window closes: a's missed call
        pass_("b"),
    ]
    assert view_after(start)["calls_due"] == {"a": "missed_call"}
    # legal: caught before a's next turn action
    assert view_after([*start, penalty("a", "b", "7C")])["hands"]["a"] == ["AH", "7C"]
    # illegal twin: a's play of AH empties the hand with a cover owed; the fault lapses
    assert replay([*start, play("a", "AH"), penalty("a", "b", "7C")]) == ("wrong_penalty", 12)


# -- ruling 20: cover_match and cover_draw = "until_suit" ---------------------------------

SERB_B = ["3C", "4C", "5C", "6C", "9S", "4D"]


def serbian(
    a: list[str], top: tuple[str, ...] | list[str] = (), options: dict[str, Any] | None = None
) -> list[Ev]:
    return [
        game("serbian", options=options),
        deal({"a": a, "b": SERB_B}, "3H", list(top), preset="serbian", options=options),
    ]


def test_20_suit_cover_legal_and_same_rank_illegal() -> None:
    assert (
        view_after(
            [*serbian(["AH", "5H", "9C", "9D", "4S", "6S"]), play("a", "AH"), play("a", "5H")]
        )["turn"]
        == "b"
    )
    code, idx, message, rule = first(
        [*serbian(["AH", "AD", "9C", "9D", "4S", "6S"]), play("a", "AH"), play("a", "AD")]
    )
    assert (code, idx) == ("card_does_not_match", 3)
    assert rule == "option cover_match = 'suit'; PRESETS.md ruling 20"
    assert message == "a plays AD: AD does not cover AH: only a card of the suit H covers"


def test_20_wild_card_does_not_cover_under_suit() -> None:
    ev = [*serbian(["AH", "JD", "9C", "9D", "4S", "6S"]), play("a", "AH"), play("a", "JD")]
    assert replay(ev) == ("card_does_not_match", 3)


def test_20_same_rank_covers_under_legal() -> None:
    opts = {"cover_match": "legal"}
    ev = [
        *serbian(["AH", "AD", "9C", "9D", "4S", "6S"], options=opts),
        play("a", "AH"),
        play("a", "AD"),
    ]
    assert view_after(ev)["cover_owed"] == "AD"  # AD is a cover card itself


NO_HEART = ["AH", "9C", "9D", "4S", "6S", "3S"]


def test_20_until_suit_draws_past_wild_and_same_rank() -> None:
    start = [*serbian(NO_HEART, ["JC", "AD", "6H"]), play("a", "AH")]
    one = [*start, draw("a", "JC", "AD", "6H", reason="cover"), play("a", "6H")]
    v = view_after(one)
    assert v["top"] == "6H" and v["turn"] == "b" and "JC" in v["hands"]["a"]
    several = [
        *start,
        draw("a", "JC", reason="cover"),
        draw("a", "AD", reason="cover"),
        draw("a", "6H", reason="cover"),
        play("a", "6H"),
    ]
    assert view_after(several)["top"] == "6H"
    # stopping at the wild card and passing is not allowed: the draw goes on
    assert replay([*start, draw("a", "JC", reason="cover"), pass_("a")]) == ("illegal_pass", 4)


def test_20_drawn_card_played_before_the_suit_came_says_so() -> None:
    start = [*serbian(NO_HEART, ["JC", "AD", "6H"]), play("a", "AH")]
    code, idx, message, rule = first([*start, draw("a", "JC", reason="cover"), play("a", "JC")])
    assert (code, idx) == ("card_does_not_match", 4)
    assert message == (
        "a plays JC while drawing to cover AH: the draw goes on until a card of the suit H "
        "comes, and only that card covers"
    )
    assert rule == "option cover_draw = 'until_suit'; PRESETS.md ruling 20"
    assert "wild card" not in message


def test_20_card_drawn_before_the_suit_stays_unplayable_after_a_re_cover() -> None:
    opts = {"cover_match": "legal"}  # so the JC would be legal on the new AH
    start = [
        *serbian(NO_HEART, ["JC", "AH", "6H"], options=opts),
        play("a", "AH"),
        draw("a", "JC", "AH", reason="cover"),
        play("a", "AH"),  # the second AH covers and owes a cover itself
    ]
    code, idx, message, _ = first([*start, play("a", "JC")])
    assert (code, idx) == ("card_does_not_match", 5)
    assert "drew JC for a cover before a card of the cover suit came" in message
    # legal twin: the JC does not count as a cover in hand, so a draws on and covers
    v = view_after([*start, draw("a", "6H", reason="cover"), play("a", "6H")])
    assert v["top"] == "6H" and v["turn"] == "b" and "JC" in v["hands"]["a"]


# -- ruling 21: multi_play_any_suit -------------------------------------------------------


def test_21_serbian_aces_of_any_suits_go_down_together_cover_follows_the_last() -> None:
    start = [*serbian(["AH", "AD", "AS", "9C", "9D", "4S"]), play("a", "AH", "AD", "AS")]
    v = view_after(start)
    assert v["cover_owed"] == "AS" and v["turn"] == "a"
    assert view_after([*start, play("a", "4S")])["turn"] == "b"
    assert replay([*start, play("a", "9D")]) == ("card_does_not_match", 3)


def test_21_mixing_ranks_is_still_judged_by_multi_play() -> None:
    ev = [*serbian(["AH", "AD", "9D", "9C", "4S", "6S"]), play("a", "AH", "AD", "9D")]
    code, idx, _, rule = first(ev)
    assert (code, idx, rule) == ("card_does_not_match", 2, "option multi_play = 'identical'")


def test_21_other_presets_keep_one_card_per_play() -> None:
    ev = [
        game("standard"),
        deal({"a": ["AH", "AD", "9C", "10C", "KC"], "b": R22_B}, "9H"),
        play("a", "AH", "AD"),
    ]
    assert replay(ev) == ("card_does_not_match", 2)


# -- ruling 22: missed_penalty for anything but answering or serving a pending draw -------

R22_B = ["9D", "KH", "JD", "KD", "10S"]


def std_seven() -> list[Ev]:
    return [
        game("standard"),
        deal({"a": ["7H", "10C", "KC", "QC", "9C"], "b": R22_B}, "9H", ["8D", "8S"]),
        play("a", "7H"),
    ]


def test_22_serving_the_draw_is_legal() -> None:
    ev = [*std_seven(), draw("b", "8D", "8S", reason="effect"), play("b", "KH")]
    assert view_after(ev)["top"] == "KH"


def test_22_every_other_action_is_missed_penalty() -> None:
    assert replay([*std_seven(), play("b", "KH")]) == ("missed_penalty", 3)
    assert replay([*std_seven(), play("b", "JD")]) == ("missed_penalty", 3)  # wild, not allowed
    assert replay([*std_seven(), pass_("b")]) == ("missed_penalty", 3)
    assert replay([*std_seven(), draw("b", "8D", reason="no_play")]) == ("missed_penalty", 3)
    assert replay([*std_seven(), draw("b", "8D", reason="voluntary")]) == ("missed_penalty", 3)


def test_22_presence_in_the_hand_is_checked_first() -> None:
    assert replay([*std_seven(), play("b", "7S")]) == ("card_not_in_hand", 3)


# -- ruling 23: the wrong first player of a match round is wrong_starter ------------------


def std_round(first_player: str | None = None, match: bool = True) -> list[Ev]:
    opts = {"first_player": first_player} if first_player else None
    extra: dict[str, Any] = {"match_id": "m", "round": 1} if match else {}
    return [
        game("standard", options=opts, **extra),
        deal({"a": ["10H", "KC", "QC", "9C", "10C"], "b": ["9D", "KH", "10D", "KD", "10S"]}, "9H"),
    ]


def test_23_wrong_first_player_of_a_match_round_is_wrong_starter() -> None:
    code, idx, message, rule = first([*std_round(), play("b", "KH")])
    assert (code, idx) == ("wrong_starter", 2)
    assert rule == "option first_player = 'left_of_dealer'; PRESETS.md ruling 23"
    assert "a makes the first turn action of round 1 of match m" in message
    assert replay([*std_round(), draw("b", "7C")]) == ("wrong_starter", 2)
    assert view_after([*std_round(), play("a", "10H")])["turn"] == "b"


def test_23_under_every_first_player_value() -> None:
    # dealer b: "dealer" makes b start; "previous_winner" in round 1 is left of the dealer
    assert replay([*std_round("dealer"), play("a", "10H")]) == ("wrong_starter", 2)
    assert view_after([*std_round("dealer"), play("b", "KH")])["turn"] == "a"
    assert replay([*std_round("previous_winner"), play("b", "KH")]) == ("wrong_starter", 2)


def test_23_later_turns_and_games_without_match_keep_wrong_player() -> None:
    assert replay([*std_round(match=False), play("b", "KH")]) == ("wrong_player", 2)
    ev = [*std_round(), play("a", "10H"), play("a", "10C")]
    assert replay(ev) == ("wrong_player", 3)


def _finished_round(dealer: str) -> list[Ev]:
    """A round of match m dealt by ``dealer``, ended with no winner by ``max_plays = 1``."""
    opts = {"max_plays": 1}
    first_player = "a" if dealer == "b" else "b"
    hands = {
        "a": ["10H", "KC", "QC", "9C", "10C"],
        "b": ["9D", "KH", "10D", "KD", "10S"],
    }
    card = "10H" if first_player == "a" else "KH"
    return [
        game("standard", options=opts, match_id="m", round=1, dealer=dealer),
        deal(hands, "9H"),
        play(first_player, card),
        round_end(None),
    ]


def test_23_round_two_dealt_by_the_wrong_seat() -> None:
    r1 = _finished_round("b")
    opts = {"max_plays": 1}
    hands = {"a": ["10H", "KC", "QC", "9C", "10C"], "b": ["9D", "KH", "10D", "KD", "10S"]}
    good = [game("standard", options=opts, match_id="m", round=2, dealer="a"), deal(hands, "9H")]
    bad = [game("standard", options=opts, match_id="m", round=2, dealer="b"), deal(hands, "9H")]
    assert replay_games([*r1, *bad])[1] == ("wrong_starter", 0)
    # the right dealer a: b starts; a starting is wrong_starter at its first action
    assert replay_games([*r1, *good, play("a", "10H")])[1] == ("wrong_starter", 2)
    assert replay_games([*r1, *good, play("b", "KH"), round_end(None)])[1] is None


# -- ruling 24 -----------------------------------------------------------------------------

# standard with 13 cards each, no reshuffle, and 7H also hitting the previous player for the
# whole stock (5 cards): b serves that first, and the 7H's draw of 2 then lapses unserved.
R24_OPTS = {"hand_size": 13, "empty_stock": "pass", "draw_previous": {"7H": 5}}
R24_A = ["7H", "7C", "8C", "10C", "QC", "KC", "AC", "7D", "8D", "10D", "QD", "KD", "AD"]
R24_B_HEART = ["KH", "7S", "8S", "10S", "QS", "KS", "AS", "9C", "9D", "9S", "JC", "JD", "JS"]


def r24(b: list[str]) -> list[Ev]:
    return [
        game("standard", options=R24_OPTS),
        deal({"a": R24_A, "b": b}, "9H", ["8H", "10H", "QH", "AH", "JH"]),
        play("a", "7H"),
        draw("b", "8H", "10H", "QH", "AH", "JH", reason="effect"),
    ]


def test_24_pending_draw_lapses_when_nothing_is_left_even_unserved() -> None:
    assert view_after(r24(R24_B_HEART))["stock_size"] == 0
    v = view_after([*r24(R24_B_HEART), play("b", "KH")])  # no missed_penalty: it lapsed
    assert v["top"] == "KH" and v["pending_draw"] == 0 and v["turn"] == "a"
    # b plays on as on an empty stock (ruling 11): a pass while b can play is illegal
    assert replay([*r24(R24_B_HEART), pass_("b")]) == ("illegal_pass", 4)


FARAON_HANDS = {
    "a": ["AH", "AD", "10C", "KC", "8C"],
    "b": ["AS", "10S", "KS", "8S", "9S"],
    "c": ["AC", "10D", "KD", "8D", "9D"],
    "d": ["10H", "KH", "8H", "9C", "JC"],
}


def test_24_only_the_next_player_answers_a_skip_whatever_its_count() -> None:
    start = [
        game("faraon", players=("a", "b", "c", "d")),
        deal(FARAON_HANDS, "9H"),
        play("a", "AH", "AD"),  # two skips: b and c
    ]
    v = view_after([*start, play("b", "AS")])  # b answers: the skip passes on to c
    assert v["turn"] == "c" and v["pending_skip"] == 1
    assert replay([*start, play("c", "AC")]) == ("wrong_player", 3)
