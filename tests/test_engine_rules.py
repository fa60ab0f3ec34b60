"""Hand-checked rule tests for the presets ``standard`` and ``classic``.

Every expected value below is derived from the contract (/work/shared: RULES.md sections 1
and 2, RULESETS.md, PRESETS.md option values and rulings, FORMAT.md "Conventions a replay
relies on"), not from the engine. Each test is a tiny full-information game: every deal
holds the whole 32-card pack (hands + starter + stock, see ``gamebuilder.deal``). Event
indexes count the header as 0, the deal as 1.

Conventions of these tests: players ``a``, ``b`` (, ``c``) in seat order; the dealer is the
last seat, so under ``first_player = left_of_dealer`` ``a`` starts.
"""

from __future__ import annotations

from typing import Any

import pytest
from gamebuilder import (
    call,
    deal,
    draw,
    game,
    pack,
    pass_,
    penalty,
    play,
    prefix_ok,
    replay,
    reshuffle,
    round_end,
    suit,
    view_after,
)

AB = ("a", "b")
ABC = ("a", "b", "c")


def std(players: tuple[str, ...] = AB, /, **options: Any) -> dict[str, Any]:
    """A ``standard`` header with hand_size 3 unless the test sets another."""
    return game("standard", players, options={"hand_size": 3, **options})


def cla(players: tuple[str, ...] = AB, /, **options: Any) -> dict[str, Any]:
    """A ``classic`` header with hand_size 3 unless the test sets another."""
    return game("classic", players, options={"hand_size": 3, **options})


def valid(events: list[dict[str, Any]]) -> None:
    """The whole game replays with no violation."""
    assert replay(events) is None


# --------------------------------------------------------------------------- 7: draw two


STD7 = deal({"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}, "9H", top=["QC", "8S"])


def test_standard_seven_next_player_draws_two_then_still_plays() -> None:
    # RULES.md 1: "7: the next player draws two cards but may then still play"
    # (standard draw_ends_turn = false).
    ev = [std(), STD7, play("a", "7H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 2)
    ev.append(draw("b", "QC", "8S", reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 0)
    assert v["hands"]["b"] == ["10H", "QD", "KS", "QC", "8S"]
    ev.append(play("b", "10H"))
    v = view_after(ev)
    assert v["turn"] == "a"
    assert v["hands"]["b"] == ["QD", "KS", "QC", "8S"]
    prefix_ok(ev)


def test_standard_seven_may_not_be_answered_with_a_seven() -> None:
    # PRESETS.md standard: draw_answer is the default "none"; a play instead of serving the
    # pending draw is missed_penalty (violations: "played or passed instead of serving it").
    d = deal({"a": ["7H", "9C", "KC"], "b": ["7D", "QD", "KS"]}, "9H")
    assert replay([std(), d, play("a", "7H"), play("b", "7D")]) == ("missed_penalty", 3)


def test_standard_seven_served_with_one_card_is_wrong_count() -> None:
    # RULES.md 1: the next player draws two; only a reshuffle may split it (ruling 12).
    assert replay([std(), STD7, play("a", "7H"), draw("b", "QC", reason="effect")]) == (
        "wrong_draw_count",
        3,
    )


def test_standard_seven_draw_must_come_from_stock_top() -> None:
    # FORMAT.md: stock order is top first; QC then 8S are the top two cards.
    ev = [std(), STD7, play("a", "7H"), draw("b", "8S", "QC", reason="effect")]
    assert replay(ev) == ("draw_not_from_stock_top", 3)


def test_standard_seven_drawer_without_a_card_draws_again_and_passes() -> None:
    # RULES.md 1 (may still play) + FORMAT.md: "Effect draws do not count against max_draws".
    d = deal({"a": ["7H", "9C", "KC"], "b": ["QD", "KS", "8C"]}, "9H", top=["QC", "8S", "9S"])
    ev = [
        std(),
        d,
        play("a", "7H"),
        draw("b", "QC", "8S", reason="effect"),
        draw("b", "9S", reason="no_play"),
        pass_("b"),
    ]
    v = view_after(ev)
    assert v["turn"] == "a"
    assert v["hands"]["b"] == ["QD", "KS", "8C", "QC", "8S", "9S"]
    prefix_ok(ev)


def test_standard_seven_drawer_able_to_play_may_not_draw_more() -> None:
    # PRESETS.md ruling 16: a draw while able to play (standard voluntary_draw false) is
    # wrong_draw_count; b holds 10H, which matches the 7H.
    ev = [std(), STD7, play("a", "7H"), draw("b", "QC", "8S", reason="effect")]
    ev.append(draw("b", "9S", reason="no_play"))
    assert replay(ev) == ("wrong_draw_count", 4)


def test_standard_seven_as_starter_first_player_draws_then_plays() -> None:
    # PRESETS.md ruling 1: the starter's power applies to the first player (a).
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "7H", top=["QC", "8S"])
    ev = [std(), d]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 2)
    ev += [draw("a", "QC", "8S", reason="effect"), play("a", "10H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 0)
    prefix_ok(ev)


def test_standard_seven_starter_must_be_served_first() -> None:
    # Ruling 1 + standard draw_answer none: a plays instead of drawing -> missed_penalty.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "7H")
    assert replay([std(), d, play("a", "10H")]) == ("missed_penalty", 2)


CLA7 = deal({"a": ["7H", "10C", "KC"], "b": ["10D", "QD", "KS"]}, "QH", top=["QC", "8S"])


def test_classic_seven_drawer_loses_the_turn() -> None:
    # RULES.md 2: "the next player draws 2 and loses the turn" (classic draw_ends_turn true).
    ev = [cla(), CLA7, play("a", "7H"), draw("b", "QC", "8S", reason="effect")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 0)
    assert v["hands"]["b"] == ["10D", "QD", "KS", "QC", "8S"]
    prefix_ok(ev)


def test_classic_seven_drawer_may_not_play_after_serving() -> None:
    # RULES.md 2: the drawer "may not play onto the pile"; it is a's turn again.
    ev = [cla(), CLA7, play("a", "7H"), draw("b", "QC", "8S", reason="effect"), play("b", "QC")]
    assert replay(ev) == ("wrong_player", 4)


def test_classic_seven_on_seven_next_draws_four() -> None:
    # RULES.md 2: "7s stack ... the next player then draws 4" (draw_answer same_rank).
    d = deal(
        {"a": ["7H", "10C", "KC"], "b": ["7D", "QD", "KS"]}, "QH", top=["QC", "8S", "9S", "10S"]
    )
    ev = [cla(), d, play("a", "7H"), play("b", "7D")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 4)
    ev.append(draw("a", "QC", "8S", "9S", "10S", reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 0)
    assert v["hands"]["a"] == ["10C", "KC", "QC", "8S", "9S", "10S"]
    prefix_ok(ev)


def test_classic_stacked_sevens_served_with_two_is_wrong_count() -> None:
    # RULES.md 2: after 7 on 7 the next player draws 4, not 2.
    d = deal({"a": ["7H", "10C", "KC"], "b": ["7D", "QD", "KS"]}, "QH", top=["QC", "8S"])
    ev = [cla(), d, play("a", "7H"), play("b", "7D"), draw("a", "QC", "8S", reason="effect")]
    assert replay(ev) == ("wrong_draw_count", 4)


def test_classic_seven_answered_with_a_non_seven_is_missed_penalty() -> None:
    # RULES.md 2: only a 7 answers a 7; KH matches the suit but the draw is pending.
    d = deal({"a": ["7H", "10C", "KC"], "b": ["KH", "QD", "KS"]}, "QH")
    assert replay([cla(), d, play("a", "7H"), play("b", "KH")]) == ("missed_penalty", 3)


def test_classic_seven_starter_first_player_draws_and_loses_turn() -> None:
    # Ruling 1 (as if the dealer had played it) + RULES.md 2 (drawer loses the turn).
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "7H", top=["QC", "8S"])
    ev = [cla(), d, draw("a", "QC", "8S", reason="effect")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 0)
    prefix_ok(ev)


def test_classic_starter_effect_false_seven_starter_is_plain() -> None:
    # RULESETS.md starter_effect: false -> the starter's power does not apply.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "7H")
    ev = [cla(starter_effect=False), d]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 0)
    ev.append(play("a", "10H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


# --------------------------------------------------------------------------- 8: skip

SKIP3 = deal({"a": ["8H", "9D", "KC"], "b": ["8D", "QD", "KS"], "c": ["10S", "QH", "10D"]}, "10H")


def test_standard_eight_two_players_same_player_again() -> None:
    # RULES.md 1: "8: the next player misses the turn"; with two players a plays again.
    d = deal({"a": ["8H", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "8H")]
    assert view_after(ev)["turn"] == "a"
    ev.append(play("a", "9H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_standard_eight_two_players_skipped_player_may_not_play() -> None:
    # RULES.md 1: b misses the turn.
    d = deal({"a": ["8H", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    assert replay([std(), d, play("a", "8H"), play("b", "10D")]) == ("wrong_player", 3)


def test_standard_eight_three_players_skips_to_third() -> None:
    # RULES.md 1: b misses the turn, c is next; then play goes on clockwise to a.
    ev = [std(ABC), SKIP3, play("a", "8H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", 1)
    ev.append(play("c", "QH"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_standard_eight_three_players_skipped_player_may_not_play() -> None:
    # RULES.md 1 + standard skip_answer false: an 8 may not answer the 8.
    assert replay([std(ABC), SKIP3, play("a", "8H"), play("b", "8D")]) == ("wrong_player", 3)


def test_classic_eight_three_players_skips() -> None:
    # RULES.md 2: "8: the next player is skipped".
    ev = [cla(ABC), SKIP3, play("a", "8H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok(ev)


def test_skip_answer_eight_on_eight_passes_the_skip_on() -> None:
    # Ruling 6: the skipped player answers with a skip card of the same rank, passing the
    # skip on (the answered skip lapses): c is skipped, a plays next (9D on 8D).
    ev = [std(ABC, skip_answer=True), SKIP3, play("a", "8H"), play("b", "8D"), play("a", "9D")]
    v = view_after(ev)
    assert (v["turn"], v["pending_skip"]) == ("b", 0)
    prefix_ok(ev)


def test_skip_answer_the_player_skipped_by_the_answer_may_not_play() -> None:
    # Ruling 6: after 8H (a) and 8D (b), c is skipped and may only answer with an 8; 10D
    # (fits 8D by suit) is refused. The code is card_does_not_match: ruling 6 treats the
    # skipped player as having a say (a pass there is illegal_pass, not wrong_player).
    ev = [std(ABC, skip_answer=True), SKIP3, play("a", "8H"), play("b", "8D"), play("c", "10D")]
    assert replay(ev) == ("card_does_not_match", 4)


def test_skip_answer_unanswered_skip_leaves_no_event() -> None:
    # Ruling 6: "A skipped player logs nothing"; c plays next.
    ev = [std(ABC, skip_answer=True), SKIP3, play("a", "8H"), play("c", "QH")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_skip_answer_pass_by_skipped_player_is_illegal_pass() -> None:
    # Ruling 6: "A skipped player logs nothing; a `pass` there is `illegal_pass`."
    ev = [std(ABC, skip_answer=True), SKIP3, play("a", "8H"), pass_("b")]
    assert replay(ev) == ("illegal_pass", 3)


def test_skipped_player_pass_is_illegal_pass_without_skip_answer() -> None:
    # Ruling 6 (read as general: "A skipped player logs nothing; a pass there is illegal_pass").
    assert replay([std(ABC), SKIP3, play("a", "8H"), pass_("b")]) == ("illegal_pass", 3)


def test_standard_eight_starter_skips_first_player() -> None:
    # Ruling 1: as if the dealer (c) had played the 8: a is skipped, b starts.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "8S"], "c": ["10S", "QH", "AS"]}, "8H")
    ev = [std(ABC), d]
    assert view_after(ev)["turn"] == "b"
    assert replay([*ev, play("a", "10H")]) == ("wrong_player", 2)
    prefix_ok([*ev, play("b", "8S")])


def test_standard_eight_starter_two_players_dealer_starts() -> None:
    # Ruling 1: dealer b "played" the 8: a is skipped, so b plays first.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "8H")
    assert view_after([std(), d])["turn"] == "b"


# --------------------------------------------------------------------------- 9: reverse

REV2 = deal({"a": ["9H", "KH", "KC"], "b": ["10H", "QD", "KS"]}, "QH")
REV3 = deal({"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["10H", "QC", "AS"]}, "QH")


def test_classic_nine_two_players_noop_other_player_next() -> None:
    # RULESETS.md reverse_two_players "noop" (the default): the other player is next.
    ev = [cla(), REV2, play("a", "9H")]
    assert view_after(ev)["turn"] == "b"
    ev.append(play("b", "10H"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_classic_nine_three_players_reverses_direction() -> None:
    # RULES.md 2: "9: the direction of play reverses at once": after a, c then b then a.
    ev = [cla(ABC), REV3, play("a", "9H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", -1)
    ev.append(play("c", "10H"))
    assert view_after(ev)["turn"] == "b"
    ev.append(play("b", "10D"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_classic_nine_three_players_old_next_player_may_not_play() -> None:
    # RULES.md 2: after the reverse it is c's turn, not b's.
    assert replay([cla(ABC), REV3, play("a", "9H"), play("b", "10D")]) == ("wrong_player", 3)


def test_standard_nine_does_not_reverse() -> None:
    # PRESETS.md standard sets no reverse: after a, b is next with direction 1.
    ev = [std(ABC), REV3, play("a", "9H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("b", 1)
    prefix_ok(ev)


def test_reverse_two_players_skip_same_player_again() -> None:
    # RULESETS.md reverse_two_players "skip": the same player again.
    ev = [cla(reverse_two_players="skip"), REV2, play("a", "9H")]
    assert view_after(ev)["turn"] == "a"
    ev.append(play("a", "KH"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_reverse_two_players_skip_other_player_may_not_play() -> None:
    ev = [cla(reverse_two_players="skip"), REV2, play("a", "9H"), play("b", "10H")]
    assert replay(ev) == ("wrong_player", 3)


def test_classic_nine_starter_three_players_as_if_dealer_played_it() -> None:
    # Ruling 1: dealer c "played" the 9: direction reverses, the seat before c (b) starts;
    # then the play goes on counter-clockwise to a.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KH"], "c": ["10S", "QC", "AS"]}, "9H")
    ev = [cla(ABC), d]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("b", -1)
    ev.append(play("b", "KH"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_classic_nine_starter_three_players_left_of_dealer_may_not_start() -> None:
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KH"], "c": ["10S", "QC", "AS"]}, "9H")
    assert replay([cla(ABC), d, play("a", "10H")]) == ("wrong_player", 2)


def test_classic_nine_starter_two_players_first_player_starts() -> None:
    # Ruling 1 + reverse_two_players noop: dealer b "played" it, the other player (a) is next.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "9H")
    ev = [cla(), d]
    assert view_after(ev)["turn"] == "a"
    prefix_ok([*ev, play("a", "10H")])


# --------------------------------------------------------------------------- J: wild

WILD = deal({"a": ["JC", "9C", "KC"], "b": ["10H", "10C", "JD"]}, "QD")


def test_jack_is_wild_and_names_the_suit() -> None:
    # RULES.md 1: "J: wild, playable on any card; the player names a suit".
    ev = [std(), WILD, play("a", "JC"), suit("a", "H")]
    v = view_after(ev)
    assert (v["turn"], v["suit"], v["top"]) == ("b", "H", "JC")
    ev.append(play("b", "10H"))
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("a", None)
    prefix_ok(ev)


def test_jack_next_card_must_follow_named_suit() -> None:
    # RULES.md 1: "the next player plays as if the J were of that suit" (10C is not a heart).
    ev = [std(), WILD, play("a", "JC"), suit("a", "H"), play("b", "10C")]
    assert replay(ev) == ("card_does_not_match", 4)


def test_classic_jack_named_suit() -> None:
    # RULES.md 2: "J: wild on any card, and chooses the suit to be played next".
    ev = [cla(), WILD, play("a", "JC"), suit("a", "H"), play("b", "10H")]
    prefix_ok(ev)
    ev[-1] = play("b", "10C")
    assert replay(ev) == ("card_does_not_match", 4)


def test_jack_without_suit_choice_is_missing_suit_choice() -> None:
    # FORMAT.md: "Every wild card that does not end the round is followed by a suit event".
    assert replay([std(), WILD, play("a", "JC"), play("b", "10C")]) == ("missing_suit_choice", 3)


def test_suit_choice_by_another_player_is_wrong_player() -> None:
    # FORMAT.md: the suit event comes "from its player".
    assert replay([std(), WILD, play("a", "JC"), suit("b", "H")]) == ("wrong_player", 3)


def test_jack_on_jack_allowed_by_default() -> None:
    # PRESETS.md defaults: wild_on_wild = true.
    ev = [std(), WILD, play("a", "JC"), suit("a", "H"), play("b", "JD"), suit("b", "S")]
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("a", "S")
    prefix_ok(ev)


def test_jack_on_jack_refused_with_wild_on_wild_false() -> None:
    # RULESETS.md wild_on_wild false: no wild card on a wild card played as one.
    ev = [std(wild_on_wild=False), WILD, play("a", "JC"), suit("a", "H"), play("b", "JD")]
    assert replay(ev) == ("card_does_not_match", 4)


def test_wild_names_suit_false_no_suit_event() -> None:
    # RULESETS.md wild_names_suit false: no suit is named; the J is then matched as a card.
    ev = [std(wild_names_suit=False), WILD, play("a", "JC")]
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("b", None)
    ev.append(play("b", "10C"))
    prefix_ok(ev)


def test_wild_names_suit_false_suit_event_is_wrong_player() -> None:
    # Ruling 16: "a suit event when no wild card waits for one is wrong_player".
    ev = [std(wild_names_suit=False), WILD, play("a", "JC"), suit("a", "H")]
    assert replay(ev) == ("wrong_player", 3)


def test_wild_names_suit_false_next_card_must_match_the_jack() -> None:
    # RULES.md family rule: match rank or suit of the top discard (JC); 10H matches neither.
    ev = [std(wild_names_suit=False), WILD, play("a", "JC"), play("b", "10H")]
    assert replay(ev) == ("card_does_not_match", 3)


WILD_START = deal({"a": ["10C", "10H", "JD"], "b": ["9D", "QD", "KS"]}, "JC")


def test_wild_starter_plain_matches_own_suit() -> None:
    # Ruling 1: a wild starter is plain: match its suit or rank, no suit named.
    ev = [std(), WILD_START, play("a", "10C")]
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("b", None)
    prefix_ok(ev)


def test_wild_starter_plain_other_suit_refused() -> None:
    assert replay([std(), WILD_START, play("a", "10H")]) == ("card_does_not_match", 2)


def test_wild_starter_plain_jack_on_it_even_without_wild_on_wild() -> None:
    # Ruling 1: "wild_on_wild only forbids a wild on a wild that was played as one".
    ev = [std(wild_on_wild=False), WILD_START, play("a", "JD"), suit("a", "S")]
    prefix_ok(ev)


def test_wild_starter_any_first_player_plays_any_card() -> None:
    # RULESETS.md wild_starter "any": the first player may play any card.
    ev = [std(wild_starter="any"), WILD_START, play("a", "10H")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_wild_starter_first_player_names() -> None:
    # RULESETS.md "first_player_names": a suit event before playing.
    ev = [std(wild_starter="first_player_names"), WILD_START, suit("a", "H")]
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("a", "H")
    ev.append(play("a", "10H"))
    prefix_ok(ev)


def test_wild_starter_first_player_names_card_must_follow() -> None:
    ev = [std(wild_starter="first_player_names"), WILD_START, suit("a", "H"), play("a", "10C")]
    assert replay(ev) == ("card_does_not_match", 3)


def test_wild_starter_first_player_names_suit_missing() -> None:
    # RULESETS.md: the first player names the suit "with a suit event before playing".
    ev = [std(wild_starter="first_player_names"), WILD_START, play("a", "10H")]
    assert replay(ev) == ("missing_suit_choice", 2)


def test_starter_redeal_rank_turned_is_wrong_starter() -> None:
    # RULESETS.md starter_redeal + ruling 16: such a starter is wrong_starter.
    assert replay([std(starter_redeal=["J"]), WILD_START]) == ("wrong_starter", 1)


def test_starter_redeal_other_starter_is_fine() -> None:
    d = deal({"a": ["10C", "10H", "JD"], "b": ["9D", "QD", "KS"]}, "QC")
    ev = [std(starter_redeal=["J"]), d, play("a", "10C")]
    prefix_ok(ev)


# --------------------------------------------------------------------------- pending + wild


def test_wild_on_pending_default_false_jack_on_seven_refused() -> None:
    # PRESETS.md defaults wild_on_pending = false: the draw must be served.
    d = deal({"a": ["7H", "9C", "KC"], "b": ["JC", "QD", "KS"]}, "9H")
    assert replay([std(), d, play("a", "7H"), play("b", "JC")]) == ("missed_penalty", 3)


def test_wild_on_pending_true_jack_cancels_the_draw() -> None:
    # Ruling 2: "A wild card allowed on a pending draw ... cancels it".
    d = deal({"a": ["7H", "9C", "KC"], "b": ["JC", "QD", "KS"]}, "9H")
    ev = [std(wild_on_pending=True), d, play("a", "7H"), play("b", "JC"), suit("b", "S")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["suit"]) == ("a", 0, "S")
    assert v["hands"]["a"] == ["9C", "KC"]
    prefix_ok(ev)


DRAWK: dict[str, Any] = {"draw": {"7": 2, "K": 3}}


def test_draw_answer_any_draw_card_adds_up() -> None:
    # RULESETS.md draw_answer any_draw_card: "passing it on adds up": K(3) + 7(2) = 5.
    d = deal({"a": ["KH", "9C", "QC"], "b": ["7H", "QD", "KS"]}, "10H")
    ev = [std(draw_answer="any_draw_card", **DRAWK), d, play("a", "KH"), play("b", "7H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 5)
    prefix_ok(ev)


def test_draw_answer_same_rank_other_draw_card_refused() -> None:
    d = deal({"a": ["KH", "9C", "QC"], "b": ["7H", "QD", "KS"]}, "10H")
    ev = [std(draw_answer="same_rank", **DRAWK), d, play("a", "KH"), play("b", "7H")]
    assert replay(ev) == ("missed_penalty", 3)


def test_draw_answer_same_rank_same_rank_adds_up() -> None:
    # K(3) + K(3) = 6.
    d = deal({"a": ["KH", "9C", "QC"], "b": ["KD", "QD", "8S"]}, "10H")
    ev = [std(draw_answer="same_rank", **DRAWK), d, play("a", "KH"), play("b", "KD")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 6)
    prefix_ok(ev)


# --------------------------------------------------------------------------- A: cover


def test_standard_ace_covered_by_same_player() -> None:
    # RULES.md 1: "A: the player must play a second card with it (matching the Ace)".
    d = deal({"a": ["AH", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "AH")]
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"]) == ("a", "AH")
    ev.append(play("a", "9H"))
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"]) == ("b", None)
    prefix_ok(ev)


def test_standard_ace_next_player_may_not_play_before_cover() -> None:
    d = deal({"a": ["AH", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    assert replay([std(), d, play("a", "AH"), play("b", "10D")]) == ("wrong_player", 3)


def test_standard_ace_cover_card_must_match_the_ace() -> None:
    # Ruling 5: the covering card is any card legal on the cover card; KC is not.
    d = deal({"a": ["AH", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    assert replay([std(), d, play("a", "AH"), play("a", "KC")]) == ("card_does_not_match", 3)


def test_standard_ace_cover_draw_while_able_to_cover_is_wrong_draw_count() -> None:
    # Ruling 5/16: only "a player with no card to follow it must draw"; a holds 9H.
    d = deal({"a": ["AH", "9H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "AH"), draw("a", "QC", reason="cover")]
    assert replay(ev) == ("wrong_draw_count", 3)


COVER = deal({"a": ["AH", "QC", "KS"], "b": ["10D", "QD", "KD"]}, "10H", top=["9H", "8S"])
COVER_MISS = deal({"a": ["AH", "QC", "KS"], "b": ["10D", "QD", "KD"]}, "10H", top=["8S", "9H"])


def test_standard_ace_no_cover_draws_one_and_drawn_card_covers() -> None:
    # RULES.md 1 + ruling 5: draw one card ("cover"); "a drawn card that can cover must cover".
    ev = [std(), COVER, play("a", "AH"), draw("a", "9H", reason="cover"), play("a", "9H")]
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"], v["top"]) == ("b", None, "9H")
    assert v["hands"]["a"] == ["QC", "KS"]
    prefix_ok(ev)


def test_standard_ace_drawn_card_that_covers_must_cover() -> None:
    # Ruling 5: a pass instead of covering with the drawn 9H is illegal.
    ev = [std(), COVER, play("a", "AH"), draw("a", "9H", reason="cover"), pass_("a")]
    assert replay(ev) == ("illegal_pass", 4)


def test_standard_ace_drawn_card_cannot_cover_then_pass() -> None:
    # Ruling 5: cover_draw "one", then play_after_draw "drawn" applies: 8S cannot cover,
    # FORMAT.md: a pass ends the turn "also when the drawn card cannot be played".
    ev = [std(), COVER_MISS, play("a", "AH"), draw("a", "8S", reason="cover"), pass_("a")]
    v = view_after(ev)
    assert (v["turn"], v["top"]) == ("b", "AH")
    assert v["hands"]["a"] == ["QC", "KS", "8S"]
    prefix_ok(ev)


def test_cover_draw_until_suit() -> None:
    # Ruling 5: "until_suit": draw until a card of the cover card's suit comes, then cover.
    d = deal({"a": ["AH", "QC", "KS"], "b": ["10D", "QD", "KD"]}, "10H", top=["8S", "9C", "9H"])
    ev = [
        std(cover_draw="until_suit"),
        d,
        play("a", "AH"),
        draw("a", "8S", "9C", "9H", reason="cover"),
        play("a", "9H"),
    ]
    v = view_after(ev)
    assert v["turn"] == "b"
    assert v["hands"]["a"] == ["QC", "KS", "8S", "9C"]
    prefix_ok(ev)


def test_cover_draw_one_refuses_several_cards() -> None:
    # PRESETS.md defaults cover_draw "one".
    d = deal({"a": ["AH", "QC", "KS"], "b": ["10D", "QD", "KD"]}, "10H", top=["8S", "9C", "9H"])
    ev = [std(), d, play("a", "AH"), draw("a", "8S", "9C", "9H", reason="cover")]
    assert replay(ev) == ("wrong_draw_count", 3)


def test_standard_ace_then_cover_wins_the_round() -> None:
    # RULES.md 1: the round is won on the covering card (hands checked at round_end).
    d = deal({"a": ["AH", "9H"], "b": ["10D", "QD"]}, "10H")
    ev = [
        std(hand_size=2),
        d,
        play("a", "AH"),
        play("a", "9H"),
        round_end("a", hands={"a": [], "b": ["10D", "QD"]}),
    ]
    valid(ev)


ACE_LAST = deal({"a": ["9H", "AH"], "b": ["QH", "QD"]}, "10H", top=["KH"])
ACE_LAST_EV = [
    std(hand_size=2),
    ACE_LAST,
    play("a", "9H"),
    call("a", "mau"),
    play("b", "QH"),
    call("b", "mau"),
    play("a", "AH"),
]


def test_standard_no_finish_on_an_ace() -> None:
    # RULES.md 1: "A round cannot be won on an Ace"; ruling 5: the cover is owed even with
    # an empty hand, so a round_end now is "round_end while the round goes on".
    v = view_after(ACE_LAST_EV)
    assert (v["phase"], v["turn"], v["cover_owed"]) == ("play", "a", "AH")
    assert v["hands"]["a"] == []
    assert replay([*ACE_LAST_EV, round_end("a")]) == ("round_not_finished", 7)


def test_standard_empty_hand_ace_cover_draw_then_out() -> None:
    # Ruling 5: draw one ("cover"); KH covers, must cover, and empties the hand.
    ev = [
        *ACE_LAST_EV,
        draw("a", "KH", reason="cover"),
        play("a", "KH"),
        round_end("a", hands={"a": [], "b": ["QD"]}),
    ]
    valid(ev)


# --------------------------------------------------------------------------- drawing

VOL = deal({"a": ["10C", "8D", "KH"], "b": ["10D", "QD", "KS"]}, "QC", top=["7D", "8S"])
VOL_FIT = deal({"a": ["10C", "8D", "KH"], "b": ["10D", "QD", "KS"]}, "QC", top=["KC", "8S"])


def test_classic_voluntary_draw_then_pass() -> None:
    # RULES.md 2: "A player may draw instead of playing even when able to play"; FORMAT.md:
    # after a draw under play_after_draw "drawn" the turn ends with a pass.
    ev = [cla(), VOL, draw("a", "7D", reason="voluntary"), pass_("a")]
    v = view_after(ev)
    assert v["turn"] == "b"
    assert v["hands"]["a"] == ["10C", "8D", "KH", "7D"]
    prefix_ok(ev)


@pytest.mark.parametrize("reason", ["voluntary", "no_play"])
def test_standard_draw_when_able_to_play_is_wrong_draw_count(reason: str) -> None:
    # PRESETS.md standard: voluntary_draw false; ruling 16: wrong_draw_count.
    assert replay([std(), VOL, draw("a", "7D", reason=reason)]) == ("wrong_draw_count", 2)


def test_standard_no_playable_card_draw_and_play_drawn() -> None:
    # RULES.md family: a player who cannot play draws one; if playable it may be played.
    d = deal({"a": ["10D", "8D", "KH"], "b": ["10H", "QD", "KS"]}, "QC", top=["9C"])
    ev = [std(), d, draw("a", "9C", reason="no_play"), play("a", "9C")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_classic_play_the_drawn_card() -> None:
    # RULES.md 2: "After drawing one card, that card may be played if it fits".
    ev = [cla(), VOL_FIT, draw("a", "KC", reason="voluntary"), play("a", "KC")]
    v = view_after(ev)
    assert (v["turn"], v["top"]) == ("b", "KC")
    prefix_ok(ev)


def test_classic_drawn_card_that_fits_may_be_kept() -> None:
    # RULES.md 2: "may be played" (not must); the turn ends with a pass.
    ev = [cla(), VOL_FIT, draw("a", "KC", reason="voluntary"), pass_("a")]
    v = view_after(ev)
    assert v["turn"] == "b"
    assert v["hands"]["a"] == ["10C", "8D", "KH", "KC"]
    prefix_ok(ev)


def test_classic_play_after_draw_drawn_only_the_drawn_card() -> None:
    # PRESETS.md defaults play_after_draw "drawn": only the drawn card (7D does not fit).
    ev = [cla(), VOL, draw("a", "7D", reason="voluntary"), play("a", "10C")]
    assert replay(ev) == ("card_does_not_match", 3)


def test_classic_after_draw_the_pass_must_be_logged() -> None:
    # FORMAT.md: "pass ends a turn ... after a draw when play_after_draw is drawn or any".
    ev = [cla(), VOL, draw("a", "7D", reason="voluntary"), play("b", "QD")]
    assert replay(ev) == ("wrong_player", 3)


def test_classic_pass_without_drawing_is_illegal_pass() -> None:
    # Ruling 11: a pass is legal only after drawing (or with nothing to draw).
    assert replay([cla(), VOL, pass_("a")]) == ("illegal_pass", 2)


def test_play_after_draw_any() -> None:
    # RULESETS.md play_after_draw "any": after drawing, any card may be played.
    ev = [cla(play_after_draw="any"), VOL, draw("a", "7D", reason="voluntary"), play("a", "10C")]
    v = view_after(ev)
    assert (v["turn"], v["top"]) == ("b", "10C")
    assert v["hands"]["a"] == ["8D", "KH", "7D"]
    prefix_ok(ev)


def test_play_after_draw_none_draw_ends_the_turn() -> None:
    # FORMAT.md: "With play_after_draw: none the draw ends the turn and no pass is logged".
    ev = [cla(play_after_draw="none"), VOL_FIT, draw("a", "KC", reason="voluntary")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok([*ev, play("b", "QD")])


def test_play_after_draw_none_pass_is_out_of_turn() -> None:
    # FORMAT.md: the draw ends the turn, so a's pass comes in b's turn: wrong_player
    # ("an event by a player whose turn it is not"; illegal_pass would fit too).
    ev = [cla(play_after_draw="none"), VOL_FIT, draw("a", "KC", reason="voluntary"), pass_("a")]
    assert replay(ev) == ("wrong_player", 3)


def test_play_after_draw_none_drawn_card_may_not_be_played() -> None:
    ev = [
        cla(play_after_draw="none"),
        VOL_FIT,
        draw("a", "KC", reason="voluntary"),
        play("a", "KC"),
    ]
    assert replay(ev) == ("wrong_player", 3)


def test_max_draws_default_one_second_draw_refused() -> None:
    # PRESETS.md defaults max_draws 1; ruling 16: past max_draws is wrong_draw_count.
    ev = [cla(), VOL, draw("a", "7D", reason="voluntary"), draw("a", "8S", reason="voluntary")]
    assert replay(ev) == ("wrong_draw_count", 3)


def test_max_draws_two() -> None:
    ev = [
        cla(max_draws=2),
        VOL,
        draw("a", "7D", reason="voluntary"),
        draw("a", "8S", reason="voluntary"),
        pass_("a"),
    ]
    v = view_after(ev)
    assert v["turn"] == "b"
    assert v["hands"]["a"] == ["10C", "8D", "KH", "7D", "8S"]
    prefix_ok(ev)


def test_max_draws_two_third_draw_refused() -> None:
    d = deal({"a": ["10C", "8D", "KH"], "b": ["10D", "QD", "KS"]}, "QC", top=["7D", "8S", "9S"])
    ev = [
        cla(max_draws=2),
        d,
        draw("a", "7D", reason="voluntary"),
        draw("a", "8S", reason="voluntary"),
        draw("a", "9S", reason="voluntary"),
    ]
    assert replay(ev) == ("wrong_draw_count", 4)


def test_max_draws_two_pass_after_one_draw_is_illegal() -> None:
    # Ruling 11: "Passing is legal after max_draws draws" (stock not empty here).
    ev = [cla(max_draws=2), VOL, draw("a", "7D", reason="voluntary"), pass_("a")]
    assert replay(ev) == ("illegal_pass", 3)


# --------------------------------------------------------------------------- calls

CALLS = deal({"a": ["9H", "KH"], "b": ["9S", "QD"]}, "10H", top=["7C", "8C"])
CALLS_J = deal({"a": ["9H", "JC"], "b": ["9S", "QD"]}, "10H", top=["7C", "8C"])


def test_mau_called_after_the_play_no_fault() -> None:
    # Ruling 9: a call counts "from right before the play ... until another player's event";
    # with no fault, a penalty is wrong_penalty (ruling 10).
    ev = [std(hand_size=2), CALLS, play("a", "9H"), call("a", "mau"), play("b", "9S")]
    ev += [call("b", "mau"), penalty("a", "b", "7C")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_mau_called_right_before_the_play_no_fault() -> None:
    ev = [std(hand_size=2), CALLS, call("a", "mau"), play("a", "9H"), play("b", "9S")]
    ev += [call("b", "mau"), penalty("a", "b", "7C")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_standard_missed_mau_caught_one_card_and_player_plays_on() -> None:
    # RULES.md 1: "Failure: one penalty card" (call_penalty 1, from the stock top, ruling 10);
    # call_penalty_ends_turn false: a keeps the turn.
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    assert view_after(ev)["calls_due"] == {"a": "missed_call"}
    ev.append(penalty("a", "b", "7C", reason="missed_call"))
    v = view_after(ev)
    assert v["turn"] == "a"
    assert v["hands"]["a"] == ["KH", "7C"]
    assert v["calls_due"] == {}
    prefix_ok(ev)


def test_standard_missed_mau_penalty_of_two_is_wrong_penalty() -> None:
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C", "8C"))
    assert replay(ev) == ("wrong_penalty", 5)


def test_missed_mau_caught_by_the_player_himself_is_wrong_penalty() -> None:
    # Ruling 10: `by` another player.
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev.append(penalty("a", "a", "7C"))
    assert replay(ev) == ("wrong_penalty", 5)


def test_missed_mau_penalty_with_another_reason_is_wrong_penalty() -> None:
    # Ruling 10: reason missed_call or wrong_call; "Any other penalty is wrong_penalty".
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C", reason="timeout"))
    assert replay(ev) == ("wrong_penalty", 5)


def test_mau_word_case_and_spaces_ignored() -> None:
    # Ruling 9: "case, hyphens and spaces are ignored": "MAU" is "mau".
    ev = [std(hand_size=2), CALLS, play("a", "9H"), call("a", "MAU"), play("b", "9S")]
    ev += [call("b", "Mau"), penalty("a", "b", "7C")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_jack_last_card_needs_mau_mau() -> None:
    # RULES.md 1: "if the last card is a J, say Mau-Mau"; ruling 9 (call_last_wild).
    ev = [std(hand_size=2), CALLS_J, play("a", "9H"), call("a", "mau"), play("b", "9S")]
    ev += [call("b", "mau"), penalty("a", "b", "7C", reason="wrong_call")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("a", ["JC", "7C"])
    prefix_ok(ev)


@pytest.mark.parametrize("word", ["mau-mau", "Mau Mau", "MAUMAU"])
def test_jack_last_card_mau_mau_said_no_fault(word: str) -> None:
    ev = [std(hand_size=2), CALLS_J, play("a", "9H"), call("a", word), play("b", "9S")]
    ev += [call("b", "mau"), penalty("a", "b", "7C", reason="wrong_call")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_two_cards_in_one_turn_ace_then_cover_needs_no_call() -> None:
    # Ruling 9: no fault "if the same turn went on and emptied the hand".
    d = deal({"a": ["AH", "9H"], "b": ["10D", "QD"]}, "10H")
    ev = [std(hand_size=2), d, play("a", "AH"), play("a", "9H"), penalty("b", "a", "7C")]
    assert replay(ev) == ("wrong_penalty", 4)


CLA_CALLS = deal({"a": ["QH", "KH"], "b": ["QS", "KD"]}, "10H", top=["7C", "8C"])


def test_classic_missed_mau_two_cards_and_turn_lost() -> None:
    # RULES.md 2: "draws 2 penalty cards and may not play after drawing"
    # (call_penalty 2, call_penalty_ends_turn true, ruling 10).
    ev = [cla(hand_size=2), CLA_CALLS, play("a", "QH"), play("b", "QS"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C", "8C"))
    v = view_after(ev)
    assert v["turn"] == "b"
    assert v["hands"]["a"] == ["KH", "7C", "8C"]
    prefix_ok(ev)


def test_classic_caught_player_may_not_play_on() -> None:
    ev = [cla(hand_size=2), CLA_CALLS, play("a", "QH"), play("b", "QS"), call("b", "mau")]
    ev += [penalty("a", "b", "7C", "8C"), play("a", "KH")]
    assert replay(ev) == ("wrong_player", 6)


def test_classic_missed_mau_one_card_is_wrong_penalty() -> None:
    ev = [cla(hand_size=2), CLA_CALLS, play("a", "QH"), play("b", "QS"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C"))
    assert replay(ev) == ("wrong_penalty", 5)


CLA_JOUT = deal({"a": ["KH", "JC"], "b": ["KS", "QD"]}, "10H", top=["7C", "8C"])
CLA_JOUT_EV = [
    cla(hand_size=2),
    CLA_JOUT,
    play("a", "KH"),
    call("a", "mau"),
    play("b", "KS"),
    call("b", "mau"),
    play("a", "JC"),
]


def test_classic_jack_finish_after_only_mau_caught_round_goes_on() -> None:
    # RULES.md 2: "winning with a J after only Mau, when an opponent catches it, costs 2
    # penalty cards and the round goes on"; ruling 10: the suit event after the penalty.
    ev = [*CLA_JOUT_EV, penalty("a", "b", "7C", "8C", reason="wrong_call"), suit("a", "D")]
    v = view_after(ev)
    assert (v["phase"], v["turn"], v["suit"]) == ("play", "b", "D")
    assert v["hands"]["a"] == ["7C", "8C"]
    prefix_ok([*ev, play("b", "QD")])


def test_classic_jack_finish_not_caught_wins() -> None:
    # An uncaught fault breaks no rule; winner_collects: QD = 10 (PRESETS.md points).
    ev = [*CLA_JOUT_EV, round_end("a", scores={"a": 10, "b": 0}, hands={"a": [], "b": ["QD"]})]
    valid(ev)


def test_call_going_out_said() -> None:
    # RULESETS.md call_going_out: the word is due when a player goes out (FORMAT.md: right
    # after the last play).
    d = deal({"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H", top=["7C"])
    ev = [std(hand_size=2, call_going_out="out"), d, play("a", "9H"), call("a", "mau")]
    ev += [play("b", "9S"), call("b", "mau"), play("a", "9D"), call("a", "out")]
    ev.append(round_end("a", hands={"a": [], "b": ["KD"]}))
    valid(ev)


def test_call_going_out_missed_caught_round_goes_on() -> None:
    # FORMAT.md: "the catch is a penalty right after that play and the round goes on".
    d = deal({"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H", top=["7C"])
    ev = [std(hand_size=2, call_going_out="out"), d, play("a", "9H"), call("a", "mau")]
    ev += [play("b", "9S"), call("b", "mau"), play("a", "9D")]
    ev.append(penalty("a", "b", "7C", reason="missed_call"))
    v = view_after(ev)
    assert (v["phase"], v["turn"]) == ("play", "b")
    assert v["hands"]["a"] == ["7C"]
    prefix_ok(ev)


# --------------------------------------------------------------------------- reshuffle

# Two players, 15 cards each: 30 + starter 10H + stock [AS] = 32.
RA = ["9H", "QH", "7S", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D"]
RB = [c for c in pack() if c not in RA and c not in ("10H", "AS")]
RESH = {"hands": {"a": RA, "b": RB}, "starter": "10H", "stock": ["AS"], "type": "deal"}


def test_reshuffle_when_stock_empty() -> None:
    # RULES.md family + FORMAT.md: "the discard pile except its top card ... becomes the
    # new stock"; logged while the stock is empty.
    assert len(RB) == 15
    ev = [cla(hand_size=15), RESH, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    ev += [pass_("b"), reshuffle(["10H"])]
    v = view_after(ev)
    assert (v["stock_size"], v["discard_size"], v["top"], v["turn"]) == (1, 1, "QH", "a")
    ev.append(draw("a", "10H", reason="voluntary"))
    prefix_ok(ev)


def test_reshuffle_right_after_the_emptying_draw() -> None:
    # FORMAT.md: "it may be logged at any point while the stock is empty (right after the
    # draw that emptied it ...)".
    ev = [cla(hand_size=15), RESH, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    ev += [reshuffle(["10H"]), pass_("b")]
    prefix_ok(ev)


def test_reshuffle_while_stock_holds_cards() -> None:
    # FORMAT.md: "A reshuffle happens only when the stock is empty".
    ev = [cla(hand_size=15), RESH, play("a", "QH"), reshuffle(["10H"])]
    assert replay(ev) == ("bad_reshuffle", 3)


def test_reshuffle_of_the_wrong_cards() -> None:
    # FORMAT.md: "its stock must be exactly the discard pile but its top card" (QH is top).
    ev = [cla(hand_size=15), RESH, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    ev += [pass_("b"), reshuffle(["QH"])]
    assert replay(ev) == ("bad_reshuffle", 5)


RESH3 = [
    cla(hand_size=15),
    RESH,
    play("a", "QH"),
    play("b", "QS"),
    draw("a", "AS", reason="voluntary"),
    pass_("a"),
]


@pytest.mark.parametrize("order", [["10H", "QH"], ["QH", "10H"]])
def test_reshuffle_order_is_free(order: list[str]) -> None:
    # RULES.md family: "that new order is random and a log must record it".
    ev = [*RESH3, reshuffle(order)]
    assert view_after(ev)["stock_size"] == 2
    prefix_ok([*ev, draw("b", order[0], reason="voluntary")])


@pytest.mark.parametrize("stock", [["10H"], ["10H", "QH", "QS"], ["10H", "QH", "AS"]])
def test_reshuffle_missing_or_extra_cards(stock: list[str]) -> None:
    assert replay([*RESH3, reshuffle(stock)]) == ("bad_reshuffle", 6)


def test_classic_seven_draw_split_by_reshuffle() -> None:
    # FORMAT.md: "A draw of several cards that the stock cannot cover is logged as two draw
    # events with the reshuffle between them" (ruling 12); classic: then a's turn.
    ev = [cla(hand_size=15), RESH, play("a", "QH"), play("b", "QS"), play("a", "7S")]
    ev += [draw("b", "AS", reason="effect")]
    assert view_after(ev)["pending_draw"] == 1
    ev += [reshuffle(["10H", "QH", "QS"]), draw("b", "10H", reason="effect")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["stock_size"]) == ("a", 0, 2)
    assert v["hands"]["b"][-2:] == ["AS", "10H"]
    prefix_ok(ev)


# --------------------------------------------------------------------------- empty stock

# ranks 10 Q K A: 16 cards; 3 players x 5 + starter = 16, the stock is empty at the deal.
R4 = ["10", "Q", "K", "A"]
EMPTY = deal(
    {
        "a": ["10C", "QC", "KC", "AC", "10D"],
        "b": ["QD", "KD", "AD", "10H", "QH"],
        "c": ["KH", "AH", "10S", "QS", "KS"],
    },
    "AS",
    ranks=R4,
)


def test_empty_stock_pass_blocked_round_ends_with_no_winner() -> None:
    # Ruling 11: pass with nothing to draw is legal where voluntary_draw is true (classic);
    # blocked_passes "players": 3 passes in a row end the round, winner null (FORMAT.md).
    ev = [
        game("classic", ABC, options={"ranks": R4, "empty_stock": "pass"}),
        EMPTY,
        pass_("a"),
        pass_("b"),
    ]
    assert view_after(ev)["turn"] == "c"
    ev.append(pass_("c"))
    v = view_after(ev)
    assert (v["phase"], v["turn"]) == ("ended", None)
    valid([*ev, round_end(None)])


def test_empty_stock_blocked_round_winner_collects_scores_nothing() -> None:
    # Ruling 13: "Scores list every player ... a round with no winner scores nothing".
    ev = [game("classic", ABC, options={"ranks": R4, "empty_stock": "pass"}), EMPTY]
    ev += [pass_("a"), pass_("b"), pass_("c"), round_end(None, scores={"a": 0, "b": 0, "c": 0})]
    valid(ev)


def test_empty_stock_no_reshuffle_possible_blocks_too() -> None:
    # RULESETS.md blocked_passes: "passes in a row on an empty stock that cannot be refilled"
    # (default empty_stock "reshuffle": the discard pile holds only the starter).
    ev = [game("classic", ABC, options={"ranks": R4}), EMPTY]
    ev += [pass_("a"), pass_("b"), pass_("c"), round_end(None)]
    valid(ev)


def test_blocked_passes_players_plus_one() -> None:
    # RULESETS.md blocked_passes "players+1": 4 passes with 3 players.
    opts = {"ranks": R4, "empty_stock": "pass", "blocked_passes": "players+1"}
    ev = [game("classic", ABC, options=opts), EMPTY, pass_("a"), pass_("b"), pass_("c")]
    assert replay([*ev, round_end(None)]) == ("round_not_finished", 5)
    valid([*ev, pass_("a"), round_end(None)])


def test_empty_stock_pass_while_able_to_play_without_voluntary_draw() -> None:
    # Ruling 11: pass with nothing to draw only "when no card can be played or
    # voluntary_draw is true"; standard: a holds KC on KS.
    d = deal(
        {
            "a": ["10C", "QC", "KC", "AC", "10D"],
            "b": ["QD", "KD", "AD", "10H", "QH"],
            "c": ["KH", "AH", "10S", "QS", "AS"],
        },
        "KS",
        ranks=R4,
    )
    ev = [game("standard", ABC, options={"ranks": R4, "empty_stock": "pass"}), d, pass_("a")]
    assert replay(ev) == ("illegal_pass", 2)


# --------------------------------------------------------------------------- max_plays

MP = deal({"a": ["10H", "KC", "8D"], "b": ["10D", "QD", "KS"]}, "QH")


def test_max_plays_ends_round_with_no_winner() -> None:
    # RULESETS.md max_plays: "the round ends after this many card plays in all".
    ev = [cla(max_plays=2), MP, play("a", "10H"), play("b", "10D")]
    assert view_after(ev)["phase"] == "ended"
    valid([*ev, round_end(None, scores={"a": 0, "b": 0})])


def test_max_plays_no_play_after_the_limit() -> None:
    ev = [cla(max_plays=2), MP, play("a", "10H"), play("b", "10D"), play("a", "KC")]
    assert replay(ev) == ("play_after_round_end", 4)


def test_max_plays_round_end_names_no_winner() -> None:
    ev = [cla(max_plays=2), MP, play("a", "10H"), play("b", "10D"), round_end("a")]
    assert replay(ev) == ("wrong_winner", 4)


# --------------------------------------------------------------------------- seats, deal

SEATS = deal({"a": ["9C", "KH", "8D"], "b": ["10H", "QD", "KS"], "c": ["10S", "QC", "AS"]}, "QH")


def test_first_player_dealer() -> None:
    # RULESETS.md first_player "dealer": the dealer (b) starts, then clockwise c.
    h = game("standard", ABC, dealer="b", options={"hand_size": 3, "first_player": "dealer"})
    assert view_after([h, SEATS])["turn"] == "b"
    ev = [h, SEATS, play("b", "10H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok(ev)
    assert replay([h, SEATS, play("a", "9C")]) == ("wrong_player", 2)


def test_first_player_left_of_dealer() -> None:
    # FORMAT.md: "dealer sits before the first player under first_player: left_of_dealer".
    h = game("standard", ABC, dealer="a", options={"hand_size": 3})
    assert view_after([h, SEATS])["turn"] == "b"
    assert replay([h, SEATS, play("a", "9C")]) == ("wrong_player", 2)


def test_three_player_turn_order_clockwise() -> None:
    # FORMAT.md: players is the order of play.
    ev = [std(ABC), SEATS, play("a", "KH"), play("b", "KS")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", 1)
    ev += [play("c", "10S")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_hand_size_table_two_players() -> None:
    # RULESETS.md hand_size table keyed by player count with default.
    ev = [game("standard", AB, options={"hand_size": {"2": 3, "default": 4}}), STD7]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_hand_size_table_default_entry() -> None:
    d = deal(
        {
            "a": ["9C", "KC", "8D", "7D"],
            "b": ["10H", "QD", "KS", "7S"],
            "c": ["10S", "QC", "AS", "7C"],
        },
        "QH",
    )
    valid_prefix = [game("standard", ABC, options={"hand_size": {"2": 3, "default": 4}}), d]
    prefix_ok(valid_prefix)


def test_hand_size_table_wrong_size() -> None:
    # Ruling 16: "a wrong hand size at the deal ... wrong_draw_count".
    h = game("standard", ABC, options={"hand_size": {"2": 3, "default": 4}})
    assert replay([h, SEATS]) == ("wrong_draw_count", 1)


def test_standard_default_hand_size_five() -> None:
    # PRESETS.md defaults hand_size 5 (standard does not set it).
    assert replay([game("standard", AB), STD7]) == ("wrong_draw_count", 1)


def test_deal_missing_a_card_is_duplicate_card() -> None:
    # Ruling 16: "a deal that does not account for the whole pack is duplicate_card".
    short = {**STD7, "stock": STD7["stock"][:-1]}
    assert replay([std(), short]) == ("duplicate_card", 1)


# --------------------------------------------------------------------------- scoring

SCORE = deal({"a": ["KH", "10H"], "b": ["JC", "7S"], "c": ["AD", "8D"]}, "QH", top=["9C", "8C"])
SCORE_EV = [
    cla(ABC, hand_size=2),
    SCORE,
    play("a", "KH"),
    call("a", "mau"),
    draw("b", "9C", reason="voluntary"),
    pass_("b"),
    draw("c", "8C", reason="no_play"),
    pass_("c"),
    play("a", "10H"),
]
SCORE_HANDS = {"a": [], "b": ["JC", "7S", "9C"], "c": ["AD", "8D", "8C"]}


def test_classic_winner_collects_scores() -> None:
    # RULES.md 2: "7 to 10 face value, Q, K and A 10 each, J 20": b 20+7+9 = 36,
    # c 10+8+8 = 26; a scores 62, the others 0 (ruling 13).
    valid([*SCORE_EV, round_end("a", scores={"a": 62, "b": 0, "c": 0}, hands=SCORE_HANDS)])


def test_classic_winner_collects_wrong_score() -> None:
    ev = [*SCORE_EV, round_end("a", scores={"a": 61, "b": 0, "c": 0}, hands=SCORE_HANDS)]
    assert replay(ev) == ("wrong_score", 9)


def test_classic_wrong_final_hands() -> None:
    # Ruling 16: "a wrong final hand in round_end is wrong_score".
    hands = {**SCORE_HANDS, "c": ["AD", "8D"]}
    ev = [*SCORE_EV, round_end("a", scores={"a": 62, "b": 0, "c": 0}, hands=hands)]
    assert replay(ev) == ("wrong_score", 9)


def test_classic_wrong_winner() -> None:
    ev = [*SCORE_EV, round_end("b", scores={"a": 62, "b": 0, "c": 0})]
    assert replay(ev) == ("wrong_winner", 9)


def test_standard_scoring_none_round_end() -> None:
    # PRESETS.md standard: scoring "none".
    d = deal({"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H")
    ev = [std(hand_size=2), d, play("a", "9H"), call("a"), play("b", "9S"), call("b")]
    ev += [play("a", "9D"), round_end("a", hands={"a": [], "b": ["KD"]})]
    valid(ev)


WC: dict[str, Any] = {"scoring": "winner_collects", "wild_finish_multiplier": 2}


def test_standard_jack_finish_doubles() -> None:
    # RULES.md 1: "a round won with a J doubles every point"; KD = 10, x2 = 20.
    ev = [std(hand_size=2, **WC), CALLS_J, play("a", "9H"), call("a", "mau-mau")]
    ev += [play("b", "9S"), call("b", "mau"), play("a", "JC")]
    valid([*ev, round_end("a", scores={"a": 20, "b": 0}, hands={"a": [], "b": ["QD"]})])


def test_standard_jack_finish_names_no_suit() -> None:
    # FORMAT.md: "a wild card that empties the hand names no suit"; ruling 16.
    ev = [std(hand_size=2, **WC), CALLS_J, play("a", "9H"), call("a", "mau-mau")]
    ev += [play("b", "9S"), call("b", "mau"), play("a", "JC"), suit("a", "H")]
    assert replay(ev) == ("play_after_round_end", 7)


def test_standard_plain_finish_not_doubled() -> None:
    d = deal({"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H")
    ev = [std(hand_size=2, **WC), d, play("a", "9H"), call("a"), play("b", "9S"), call("b")]
    ev.append(play("a", "9D"))
    valid([*ev, round_end("a", scores={"a": 10, "b": 0}, hands={"a": [], "b": ["KD"]})])
    bad = [*ev, round_end("a", scores={"a": 20, "b": 0}, hands={"a": [], "b": ["KD"]})]
    assert replay(bad) == ("wrong_score", 7)


# --------------------------------------------------------------------------- combinations


def test_standard_seven_served_then_seven_played_starts_a_new_draw() -> None:
    # RULES.md 1: the drawer "may then still play"; a 7 played then is a new 7: a draws 2
    # (not 4: the served draw is over).
    d = deal({"a": ["7H", "9C", "KC"], "b": ["7D", "QD", "KS"]}, "9H", top=["QC", "8S"])
    ev = [std(), d, play("a", "7H"), draw("b", "QC", "8S", reason="effect"), play("b", "7D")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 2)
    prefix_ok(ev)


def test_standard_ace_covered_by_a_seven_next_draws_two() -> None:
    # Ruling 5: the covering card is a play of its own; its power applies.
    d = deal({"a": ["AH", "7H", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "AH"), play("a", "7H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["cover_owed"]) == ("b", 2, None)
    prefix_ok(ev)


def test_standard_ace_covered_by_a_jack_names_suit() -> None:
    # Ruling 5: "any card legal on the cover card (suit, rank or a wild)".
    d = deal({"a": ["AH", "JC", "KC"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "AH"), play("a", "JC"), suit("a", "D")]
    v = view_after(ev)
    assert (v["turn"], v["suit"]) == ("b", "D")
    prefix_ok([*ev, play("b", "10D")])


def test_standard_ace_covered_by_an_ace_needs_another_cover() -> None:
    # Ruling 5: an Ace on the Ace is itself a cover card.
    d = deal({"a": ["AH", "AS", "9S"], "b": ["10D", "QD", "KD"]}, "10H")
    ev = [std(), d, play("a", "AH"), play("a", "AS")]
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"]) == ("a", "AS")
    ev.append(play("a", "9S"))
    assert view_after(ev)["phase"] == "out"
    valid([*ev, round_end("a", hands={"a": [], "b": ["10D", "QD", "KD"]})])


def test_standard_ace_covered_by_an_eight_two_players() -> None:
    # RULES.md 1: the 8 covering the Ace skips b: a plays again.
    d = deal({"a": ["AH", "8H", "KH"], "b": ["10D", "QD", "KS"]}, "10H")
    ev = [std(), d, play("a", "AH"), play("a", "8H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok([*ev, play("a", "KH")])


def test_classic_reverse_then_skip_three_players() -> None:
    # RULES.md 2: after a's 9 the order is a, c, b; c's 8 then skips b: a is next.
    d = deal({"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["8H", "QC", "AS"]}, "QH")
    ev = [cla(ABC), d, play("a", "9H"), play("c", "8H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("a", -1)
    prefix_ok(ev)


def test_classic_two_reverses_restore_direction() -> None:
    # RULES.md 2: a's 9 -> c; c's 9 reverses again -> a (clockwise from c).
    d = deal({"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["9C", "QC", "AS"]}, "QH")
    ev = [cla(ABC), d, play("a", "9H"), play("c", "9C")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("a", 1)
    prefix_ok(ev)


def test_wild_on_pending_skip_jack_cancels_the_skip() -> None:
    # RULESETS.md wild_on_pending: "a wild card may be played while a draw or skip is
    # pending"; ruling 2: it cancels it. b plays instead of being skipped; c is next.
    d = deal({"a": ["8H", "9D", "KC"], "b": ["JC", "QD", "KS"], "c": ["10S", "QH", "10D"]}, "10H")
    ev = [std(ABC, wild_on_pending=True), d, play("a", "8H"), play("b", "JC"), suit("b", "S")]
    v = view_after(ev)
    assert (v["turn"], v["pending_skip"], v["suit"]) == ("c", 0, "S")
    prefix_ok([*ev, play("c", "10S")])


def test_standard_no_playable_card_pass_without_drawing_is_illegal() -> None:
    # RULES.md family: a player who cannot play draws one card (stock not empty).
    d = deal({"a": ["10D", "8D", "KH"], "b": ["10H", "QD", "KS"]}, "QC")
    assert replay([std(), d, pass_("a")]) == ("illegal_pass", 2)


def test_call_when_none_is_due_breaks_no_rule() -> None:
    # FORMAT.md: "A call made when none is due breaks no rule".
    ev = [std(), STD7, call("a", "mau"), play("a", "7H")]
    prefix_ok(ev)


def test_late_mau_does_not_count() -> None:
    # Ruling 9: the call counts only "until another player's event"; a's call after b's
    # play is too late, so b's catch stands.
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev += [call("a", "mau"), penalty("a", "b", "7C")]
    prefix_ok(ev)


def test_early_mau_before_another_players_event_does_not_count() -> None:
    # Ruling 9: the call counts "from right before the play (no other player's event
    # between)": b's call comes before a's play, so b's 9S play later leaves a fault.
    ev = [std(hand_size=2), CALLS, call("b", "mau"), play("a", "9H"), call("a", "mau")]
    ev += [play("b", "9S"), draw("a", "7C", reason="no_play"), penalty("b", "a", "8C")]
    assert view_after(ev)["hands"]["b"] == ["QD", "8C"]
    prefix_ok(ev)


def test_mau_right_before_own_play_counts() -> None:
    ev = [std(hand_size=2), CALLS, play("a", "9H"), call("a", "mau"), call("b", "mau")]
    ev += [play("b", "9S"), draw("a", "7C", reason="no_play"), penalty("b", "a", "8C")]
    assert replay(ev) == ("wrong_penalty", 7)


def test_missed_mau_catch_after_the_next_turn_action_is_wrong_penalty() -> None:
    # Ruling 10: the catch comes "before the caught player's next turn action".
    ev = [std(hand_size=2), CALLS, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev += [draw("a", "7C", reason="no_play"), penalty("a", "b", "8C")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_missed_mau_on_an_ace_last_card_is_a_fault() -> None:
    # RULES.md 1: say "Mau" "(even when it is an Ace)".
    ev = [std(hand_size=2), ACE_LAST, play("a", "9H"), play("b", "QH"), call("b", "mau")]
    ev.append(penalty("a", "b", "KH"))
    assert view_after(ev)["hands"]["a"] == ["AH", "KH"]
    prefix_ok(ev)


def test_classic_catch_outside_own_turn_keeps_the_turn_order() -> None:
    # Ruling 10: call_penalty_ends_turn only costs "a player caught during the own turn";
    # a is caught during c's turn, so c still plays.
    d = deal({"a": ["QH", "KH"], "b": ["QS", "KD"], "c": ["10S", "AD"]}, "10H", top=["7C", "8C"])
    ev = [cla(ABC, hand_size=2), d, play("a", "QH"), play("b", "QS"), call("b", "mau")]
    ev.append(penalty("a", "c", "7C", "8C"))
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("c", ["KH", "7C", "8C"])
    prefix_ok([*ev, play("c", "10S")])


def test_pass_on_empty_stock_when_reshuffle_possible_is_illegal() -> None:
    # Ruling 11: a pass with nothing to draw needs "stock empty, no reshuffle possible".
    ev = [cla(hand_size=15), RESH, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    ev += [pass_("b"), pass_("a")]
    assert replay(ev) == ("illegal_pass", 5)


def test_empty_stock_pass_option_forbids_reshuffle() -> None:
    # RULESETS.md empty_stock "pass": players pass instead of a reshuffle.
    ev = [cla(hand_size=15, empty_stock="pass"), RESH, play("a", "QH")]
    ev += [draw("b", "AS", reason="voluntary"), pass_("b")]
    assert replay([*ev, reshuffle(["10H"])]) == ("bad_reshuffle", 5)
    prefix_ok([*ev, pass_("a")])


def test_blocked_passes_count_resets_after_a_play() -> None:
    # RULESETS.md blocked_passes: passes "in a row"; b's play breaks the row.
    ev = [game("classic", ABC, options={"ranks": R4, "empty_stock": "pass"}), EMPTY]
    ev += [pass_("a"), play("b", "AD"), pass_("c"), pass_("a")]
    assert view_after(ev)["phase"] == "play"
    ev.append(pass_("b"))
    assert view_after(ev)["phase"] == "ended"
    valid([*ev, round_end(None)])


R7 = ["7", "10", "Q", "K"]


def test_pending_draw_lapses_when_no_card_is_left() -> None:
    # Ruling 12: "when no card is left anywhere to draw, the rest of a pending draw lapses";
    # classic draw_ends_turn: then c's turn.
    d = deal(
        {
            "a": ["7C", "QC", "KC", "7D", "10D"],
            "b": ["QD", "KD", "7H", "10H", "QH"],
            "c": ["KH", "7S", "10S", "QS", "KS"],
        },
        "10C",
        ranks=R7,
    )
    ev = [game("classic", ABC, options={"ranks": R7}), d, play("a", "7C"), reshuffle(["10C"])]
    ev.append(draw("b", "10C", reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("c", 0)
    prefix_ok(ev)


def test_reshuffle_by_count_only() -> None:
    # FORMAT.md reshuffle: `count` when the new stock is not known: 1 card here.
    ev = [cla(hand_size=15), RESH, play("a", "QH"), draw("b", "AS", reason="voluntary")]
    ev.append(pass_("b"))
    prefix_ok([*ev, {"type": "reshuffle", "count": 1}])
    assert replay([*ev, {"type": "reshuffle", "count": 2}]) == ("bad_reshuffle", 5)


def test_round_end_scores_must_list_every_player() -> None:
    # Ruling 13: "Scores list every player".
    ev = [*SCORE_EV, round_end("a", scores={"a": 62}, hands=SCORE_HANDS)]
    assert replay(ev) == ("wrong_score", 9)


def test_wild_on_pending_skip_with_skip_answer_jack_cancels_the_skip() -> None:
    # Ruling 2 with skip_answer true (the engine's accepted case): c is next, no skip left.
    d = deal({"a": ["8H", "9D", "KC"], "b": ["JC", "QD", "KS"], "c": ["10S", "QH", "10D"]}, "10H")
    h = std(ABC, wild_on_pending=True, skip_answer=True)
    ev = [h, d, play("a", "8H"), play("b", "JC"), suit("b", "S")]
    v = view_after(ev)
    assert (v["turn"], v["pending_skip"], v["suit"]) == ("c", 0, "S")
    prefix_ok([*ev, play("c", "10S")])


def test_standard_jack_finish_after_only_mau_caught_round_goes_on() -> None:
    # RULES.md 1 ("if the last card is a J, say Mau-Mau. Failure: one penalty card") +
    # ruling 10: caught "right after the caught player goes out"; the suit event follows.
    ev = [std(hand_size=2), CALLS_J, play("a", "9H"), call("a", "mau"), play("b", "9S")]
    ev += [call("b", "mau"), play("a", "JC"), penalty("a", "b", "7C", reason="wrong_call")]
    ev.append(suit("a", "H"))
    v = view_after(ev)
    assert (v["phase"], v["turn"], v["suit"], v["hands"]["a"]) == ("play", "b", "H", ["7C"])
    prefix_ok(ev)


def test_classic_scores_ten_queen_king() -> None:
    # RULES.md 2: "7 to 10 face value, Q, K and A 10 each": 10S + QC + 9S = 29.
    d = deal({"a": ["KH", "KD"], "b": ["10S", "QC"]}, "10H", top=["9S"])
    ev = [cla(hand_size=2), d, play("a", "KH"), call("a", "mau")]
    ev += [draw("b", "9S", reason="no_play"), pass_("b"), play("a", "KD")]
    hands = {"a": [], "b": ["10S", "QC", "9S"]}
    valid([*ev, round_end("a", scores={"a": 29, "b": 0}, hands=hands)])


def test_effect_draw_with_nothing_pending_is_wrong_draw_count() -> None:
    # Ruling 16: "an effect draw with nothing pending" is wrong_draw_count.
    d = deal({"a": ["10D", "8D", "KH"], "b": ["10H", "QD", "KS"]}, "QC", top=["9C"])
    assert replay([std(), d, draw("a", "9C", reason="effect")]) == ("wrong_draw_count", 2)


def test_classic_seven_after_reverse_drawer_loses_turn_order_reversed() -> None:
    # RULES.md 2: a's 9 -> c; c's 7 -> b draws 2 and loses the turn -> a (counter-clockwise).
    d = deal(
        {"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["7H", "QC", "AS"]},
        "QH",
        top=["8C", "8S"],
    )
    ev = [cla(ABC), d, play("a", "9H"), play("c", "7H"), draw("b", "8C", "8S", reason="effect")]
    v = view_after(ev)
    assert (v["turn"], v["direction"], v["pending_draw"]) == ("a", -1, 0)
    prefix_ok(ev)


def test_max_plays_counts_play_events_not_suit_events() -> None:
    # Ruling 12: "max_plays counts play events" (the J's suit event is not a play).
    ev = [cla(max_plays=2), WILD, play("a", "JC"), suit("a", "H"), play("b", "10H")]
    assert view_after(ev)["phase"] == "ended"
    valid([*ev, round_end(None)])


def test_standard_pass_right_after_effect_draw_is_illegal() -> None:
    # FORMAT.md: "Effect draws do not count against max_draws"; ruling 11: a pass needs
    # max_draws draws (b holds the playable 10H and has drawn none of its own).
    ev = [std(), STD7, play("a", "7H"), draw("b", "QC", "8S", reason="effect"), pass_("b")]
    assert replay(ev) == ("illegal_pass", 4)


def test_classic_three_sevens_next_draws_six() -> None:
    # RULES.md 2: "draws 4 (then 6, ...)".
    top = ["QC", "8S", "9S", "10S", "JS", "QS"]
    d = deal({"a": ["7H", "7C", "KC"], "b": ["7D", "QD", "KS"]}, "QH", top=top)
    ev = [cla(), d, play("a", "7H"), play("b", "7D"), play("a", "7C")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 6)
    ev.append(draw("b", *top, reason="effect"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_wild_starter_plain_suit_event_is_wrong_player() -> None:
    # Ruling 1 (plain: "no suit named") + ruling 16 (suit when no wild waits: wrong_player).
    assert replay([std(), WILD_START, suit("a", "H")]) == ("wrong_player", 2)


def test_wild_starter_first_player_names_by_other_player() -> None:
    # RULESETS.md: "the first player names the suit".
    ev = [std(wild_starter="first_player_names"), WILD_START, suit("b", "H")]
    assert replay(ev) == ("wrong_player", 2)


def test_event_after_round_end() -> None:
    # violations: play_after_round_end "an event after the round was over".
    d = deal({"a": ["AH", "9H"], "b": ["10D", "QD"]}, "10H")
    ev = [std(hand_size=2), d, play("a", "AH"), play("a", "9H"), round_end("a")]
    assert replay([*ev, play("b", "10D")]) == ("play_after_round_end", 5)


def test_call_window_ending_with_two_cards_is_no_fault() -> None:
    # Ruling 9: a fault needs "one card" when the window ends; a drew for the cover and
    # holds 2 cards when b's event comes.
    d = deal({"a": ["AH", "9C"], "b": ["10D", "QD"]}, "10H", top=["8S", "7C"])
    ev = [std(hand_size=2), d, play("a", "AH"), draw("a", "8S", reason="cover"), pass_("a")]
    ev += [draw("b", "7C", reason="no_play"), penalty("a", "b", "7D")]
    assert replay(ev) == ("wrong_penalty", 6)


def test_classic_nine_starter_two_players_reverse_skip_dealer_starts() -> None:
    # Ruling 1 + reverse_two_players "skip": as if the dealer (b) had played the 9, the same
    # player (b) goes again.
    d = deal({"a": ["10H", "9C", "KC"], "b": ["10D", "QD", "KH"]}, "9H")
    assert view_after([cla(reverse_two_players="skip"), d])["turn"] == "b"


def test_eight_starter_answered_with_eight_under_skip_answer() -> None:
    # Ruling 1 + ruling 6: a (skipped by the starter) answers with 8D: b is skipped, a plays.
    d = deal({"a": ["8D", "9D", "KC"], "b": ["10S", "QS", "KS"]}, "8H")
    ev = [std(skip_answer=True), d, play("a", "8D"), play("a", "9D")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_classic_seven_starter_answered_with_seven() -> None:
    # Ruling 1 (as if the dealer had played it) + draw_answer same_rank: b draws 4.
    d = deal({"a": ["7D", "9C", "KC"], "b": ["10D", "QD", "KS"]}, "7H")
    ev = [cla(), d, play("a", "7D")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 4)
    prefix_ok(ev)


def test_caught_jack_finish_with_the_penalty_split_by_a_reshuffle() -> None:
    # Ruling 10: a catch right after a wild finish reopens the round and "a finishing wild
    # card needs its suit event after the penalty"; ruling 12 / FORMAT.md: a draw the stock
    # cannot cover is split by a reshuffle. The suit comes after the whole penalty (2 cards:
    # KS, then KH from the reshuffled pile). Found by the simulator (a 200,000-game run).
    ranks = ["10", "J", "Q", "K"]
    d = deal(
        {
            "a": ["QH", "QC", "QD", "QS", "KC", "KD", "JC"],
            "b": ["10C", "10D", "10H", "10S", "JD", "JH", "JS"],
        },
        "KH",
        ranks=ranks,
    )
    assert d["stock"] == ["KS"]
    ev = [game("classic", ("a", "b"), options={"ranks": ranks, "hand_size": 7}), d]
    ev += [play("a", "QH"), play("b", "JD"), suit("b", "C"), play("a", "QC")]
    ev += [play("b", "10C"), play("a", "KC"), play("b", "JH"), suit("b", "D")]
    ev += [play("a", "QD"), play("b", "10D"), play("a", "KD"), play("b", "JS"), suit("b", "S")]
    ev += [play("a", "QS"), call("a", "mau")]  # one card left, a Jack: "mau-mau" was due
    ev += [play("b", "10S"), call("b", "mau"), play("a", "JC")]  # a goes out on the Jack
    pile = ["KH", "QH", "JD", "QC", "10C", "KC", "JH", "QD", "10D", "KD", "JS", "QS", "10S"]
    ev += [penalty("a", "b", "KS", reason="wrong_call"), reshuffle(pile)]
    ev += [penalty("a", "b", "KH", reason="wrong_call")]
    # no suit yet between the two parts of the penalty (ruling 16: a suit nobody owes)
    assert replay([*ev[:-2], suit("a", "H"), *ev[-2:]]) == ("wrong_player", 21)
    ev += [suit("a", "H"), play("b", "10H")]
    # classic winner_collects: a holds KS KH = 10 + 10
    v = view_after(ev)
    assert (v["phase"], v["hands"]["a"]) == ("out", ["KS", "KH"])
    assert replay([*ev, round_end("b", scores={"a": 0, "b": 20})]) is None
