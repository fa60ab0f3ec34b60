"""Hand-checked rule tests for every preset but ``standard``/``classic`` (issue 5, "Done when").

Every expected value is derived from the contract (/work/shared: RULES.md sections 3-11,
RULESETS.md, PRESETS.md option values and rulings 1-16, FORMAT.md "Conventions a replay
relies on"), not from the engine. Each test is a tiny full-information game whose deal holds
the preset's whole pack (``gamebuilder.deal(..., preset=...)``: 52 cards for the French
presets, jokers ``"X"`` for pesten and neuner, each code twice for serbian). Event indexes
count the header as 0 and the deal as 1.

Conventions: players ``a``, ``b`` (, ``c``, ``d``) in seat order; the dealer is the last
seat, so ``a`` starts. Headers set a small ``hand_size`` (an option override) so the deals
stay readable; every other option is the preset's own unless the test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest
from gamebuilder import (
    call,
    deal,
    draw,
    game,
    pass_,
    penalty,
    play,
    replay,
    round_end,
    suit,
    view_after,
)

Ev = dict[str, Any]
AB = ("a", "b")
ABC = ("a", "b", "c")
ABCD = ("a", "b", "c", "d")


def hdr(preset: str, players: tuple[str, ...] = AB, /, **options: Any) -> Ev:
    """A header for ``preset`` with hand_size 3 unless the test sets another."""
    return game(preset, players, options={"hand_size": 3, **options})


def dl(
    preset: str,
    hands: dict[str, list[str]],
    starter: str,
    top: tuple[str, ...] | list[str] = (),
    **options: Any,
) -> Ev:
    """A deal holding the whole pack of ``preset`` (with pack options such as ``ranks``)."""
    return deal(hands, starter, top, preset=preset, options=options or None)


def valid(events: list[Ev]) -> None:
    """The whole game replays with no violation."""
    assert replay(events) is None


def prefix_ok(events: list[Ev]) -> None:
    """Every event is accepted; the only complaint is the missing round_end at the end."""
    assert replay(events) == ("round_not_finished", len(events))


def jump(player: str, *cards: str) -> Ev:
    """A jump-in: a play out of turn flagged ``jump_in`` (FORMAT.md play)."""
    return {**play(player, *cards), "jump_in": True}


def match_end(totals: dict[str, int], winner: str | None) -> Ev:
    return {"type": "match_end", "totals": totals, "winner": winner}


# =========================================================================== online (RULES 3)

ON3 = {"a": ["8H", "9D", "KC"], "b": ["8D", "QD", "KS"], "c": ["10S", "QH", "10D"]}


def test_online_seven_next_draws_two_then_still_plays() -> None:
    # PRESETS online: draw {"7" = 2}, draw_ends_turn false -> b draws 2 and still plays.
    d = dl("online", {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}, "9H", ["QC", "8S"])
    ev = [hdr("online"), d, play("a", "7H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 2)
    ev += [draw("b", "QC", "8S", reason="effect"), play("b", "10H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 0)
    assert v["hands"]["b"] == ["QD", "KS", "QC", "8S"]
    prefix_ok(ev)


def test_online_seven_is_not_answered_with_a_seven() -> None:
    # PRESETS online: draw_answer is the default "none": 7D instead of drawing.
    d = dl("online", {"a": ["7H", "9C", "KC"], "b": ["7D", "QD", "KS"]}, "9H")
    assert replay([hdr("online"), d, play("a", "7H"), play("b", "7D")]) == ("missed_penalty", 3)


def test_online_jack_on_pending_seven_refused() -> None:
    # PRESETS defaults wild_on_pending = false (online does not set it).
    d = dl("online", {"a": ["7H", "9C", "KC"], "b": ["JC", "QD", "KS"]}, "9H")
    assert replay([hdr("online"), d, play("a", "7H"), play("b", "JC")]) == ("missed_penalty", 3)


def test_online_eight_skips_next_player() -> None:
    # PRESETS online: skip ["8"]: with three players b misses the turn, c plays.
    ev = [hdr("online", ABC), dl("online", ON3, "10H"), play("a", "8H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok([*ev, play("c", "QH")])
    assert replay([*ev, play("b", "8D")]) == ("wrong_player", 3)


def test_online_jack_wild_names_suit() -> None:
    # PRESETS online: wild ["J"], wild_names_suit true: the next card follows the named suit.
    d = dl("online", {"a": ["JC", "9C", "KC"], "b": ["10H", "10C", "KS"]}, "QD")
    ev = [hdr("online"), d, play("a", "JC"), suit("a", "H")]
    assert (view_after(ev)["turn"], view_after(ev)["suit"]) == ("b", "H")
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("b", "10C")]) == ("card_does_not_match", 4)


def test_online_low_ranks_are_plain_cards() -> None:
    # RULES.md 3: default pack 52 cards (2 to A); a 2 has no power: b is next.
    d = dl("online", {"a": ["2H", "9C", "KC"], "b": ["3H", "QD", "KS"]}, "5H")
    ev = [hdr("online"), d, play("a", "2H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["pending_skip"]) == ("b", 0, 0)
    prefix_ok([*ev, play("b", "3H")])


def test_online_32_card_pack_option_has_no_two() -> None:
    # RULES.md 3 table option "32-card pack" (preset notes: ranks 7..A): 2H is no card here.
    r32 = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    d = dl("online", {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}, "9H", ranks=r32)
    assert replay([hdr("online", ranks=r32), d, play("a", "2H")]) == ("unknown_card", 2)
    prefix_ok([hdr("online", ranks=r32), d, play("a", "9C")])


def test_online_nine_does_not_reverse_by_default() -> None:
    # PRESETS online sets no reverse: after a's 9, b is next, clockwise.
    hands = {"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["10H", "QC", "AS"]}
    v = view_after([hdr("online", ABC), dl("online", hands, "QH"), play("a", "9H")])
    assert (v["turn"], v["direction"]) == ("b", 1)


def test_online_nine_reverses_option_three_players() -> None:
    # RULES.md 3 table option "nine reverses" (preset notes: reverse = ["9"]).
    hands = {"a": ["9H", "10C", "KC"], "b": ["10D", "QD", "KS"], "c": ["10H", "QC", "AS"]}
    ev = [hdr("online", ABC, reverse=["9"]), dl("online", hands, "QH"), play("a", "9H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", -1)
    prefix_ok([*ev, play("c", "10H")])
    assert replay([*ev, play("b", "10D")]) == ("wrong_player", 3)


def test_online_nine_reverses_two_players_other_player_next() -> None:
    # RULESETS.md reverse_two_players default "noop": with two players the other one is next.
    d = dl("online", {"a": ["9H", "KH", "KC"], "b": ["10H", "QD", "KS"]}, "QH")
    ev = [hdr("online", reverse=["9"]), d, play("a", "9H")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("a", "KH")]) == ("wrong_player", 3)


def test_online_ace_has_no_power_by_default() -> None:
    # PRESETS online: A is in no list (no cover, no skip): b plays next.
    hands = {"a": ["AH", "9D", "KC"], "b": ["10H", "QD", "KS"], "c": ["10S", "QH", "10D"]}
    ev = [hdr("online", ABC), dl("online", hands, "9H"), play("a", "AH")]
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"]) == ("b", None)
    prefix_ok([*ev, play("b", "10H")])


def test_online_ace_holds_option_skips_next_player() -> None:
    # RULES.md 3 "ace holds" (an Ace makes the next player wait a turn): skip = ["8", "A"].
    hands = {"a": ["AH", "9D", "KC"], "b": ["10H", "QD", "KS"], "c": ["10S", "QH", "10D"]}
    ev = [hdr("online", ABC, skip=["8", "A"]), dl("online", hands, "9H"), play("a", "AH")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok([*ev, play("c", "QH")])
    assert replay([*ev, play("b", "10H")]) == ("wrong_player", 3)


OCALL = {"a": ["9H", "KH"], "b": ["9S", "QD"]}


def test_online_missed_mau_caught_one_card() -> None:
    # PRESETS online: call_last_card "mau", call_penalty 1 (ruling 10: from the stock top).
    d = dl("online", OCALL, "10H", ["7C", "8C"])
    ev = [hdr("online", hand_size=2), d, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C"))
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("a", ["KH", "7C"])
    prefix_ok(ev)


def test_online_missed_mau_penalty_of_two_is_wrong_penalty() -> None:
    # Ruling 10: exactly call_penalty (1) cards.
    d = dl("online", OCALL, "10H", ["7C", "8C"])
    ev = [hdr("online", hand_size=2), d, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    assert replay([*ev, penalty("a", "b", "7C", "8C")]) == ("wrong_penalty", 5)


def test_online_no_mau_penalty_option_any_penalty_is_wrong() -> None:
    # RULES.md 3 "no Mau penalty" (preset notes: call_penalty = 0, "0 for none").
    d = dl("online", OCALL, "10H", ["7C", "8C"])
    h = hdr("online", hand_size=2, call_penalty=0)
    ev = [h, d, play("a", "9H"), play("b", "9S"), call("b", "mau")]
    assert replay([*ev, penalty("a", "b", "7C")]) == ("wrong_penalty", 5)


def test_online_no_mau_penalty_option_missed_calls_go_unpunished() -> None:
    # RULES.md 3 "no Mau penalty": a forgets both calls and still wins.
    d = dl("online", {"a": ["9H", "9D"], "b": ["9S", "KD"]}, "10H")
    h = hdr("online", hand_size=2, call_penalty=0)
    ev = [h, d, play("a", "9H"), play("b", "9S"), play("a", "9D")]
    valid([*ev, round_end("a", hands={"a": [], "b": ["KD"]})])


OUT = {"a": ["9H", "9D"], "b": ["9S", "KD"]}
OUT_EV = [
    hdr("online", hand_size=2),
    dl("online", OUT, "10H", ["7C"]),
    play("a", "9H"),
    call("a", "mau"),
    play("b", "9S"),
    call("b", "mau"),
    play("a", "9D"),
]


@pytest.mark.parametrize("word", ["mau-mau", "Mau Mau", "MAUMAU"])
def test_online_going_out_call_mau_mau(word: str) -> None:
    # RULES.md 3 "the first player out who says Mau Mau wins"; ruling 9 ignores case/spaces.
    valid([*OUT_EV, call("a", word), round_end("a", hands={"a": [], "b": ["KD"]})])


def test_online_going_out_with_mau_mau_penalty_is_wrong_penalty() -> None:
    # Ruling 10: no fault behind the penalty.
    ev = [*OUT_EV, call("a", "mau-mau"), penalty("a", "b", "7C", reason="wrong_call")]
    assert replay(ev) == ("wrong_penalty", 8)


def test_online_going_out_with_only_mau_caught_round_goes_on() -> None:
    # PRESETS online call_going_out "mau-mau"; FORMAT.md: the catch is a penalty right after
    # the play and the round goes on (1 card).
    ev = [*OUT_EV, call("a", "mau"), penalty("a", "b", "7C", reason="wrong_call")]
    v = view_after(ev)
    assert (v["phase"], v["turn"], v["hands"]["a"]) == ("play", "b", ["7C"])
    prefix_ok(ev)


def test_online_going_out_without_call_caught_round_goes_on() -> None:
    ev = [*OUT_EV, penalty("a", "b", "7C", reason="missed_call")]
    v = view_after(ev)
    assert (v["phase"], v["turn"], v["hands"]["a"]) == ("play", "b", ["7C"])
    prefix_ok(ev)


ON7OUT = [
    hdr("online", hand_size=2),
    dl("online", {"a": ["9H", "7H"], "b": ["QH", "KD"]}, "10H", ["7C", "8C"]),
    play("a", "9H"),
    call("a", "mau"),
    play("b", "QH"),
    call("b", "mau"),
    play("a", "7H"),
    call("a", "mau-mau"),
]


def test_online_going_out_on_a_seven_ends_the_round() -> None:
    # RULES.md family: the first player to empty the hand ends the round; b never draws.
    valid([*ON7OUT, round_end("a", hands={"a": [], "b": ["KD"]})])


def test_online_draw_for_a_seven_after_going_out_is_after_round_end() -> None:
    # RULES.md family + ruling 7 ("not once the round is over"): the 7's draw is void once
    # a went out; violations: play_after_round_end "an event after the round was over".
    ev = [*ON7OUT, draw("b", "7C", "8C", reason="effect")]
    assert replay(ev) == ("play_after_round_end", 8)


# ==================================================================== online-penalty (RULES 3)

OP = {"a": ["8H", "9H"], "b": ["AC", "JD"]}
OP_EV = [
    hdr("online-penalty", hand_size=2),
    dl("online-penalty", OP, "10H"),
    play("a", "8H"),
    call("a", "mau"),
    play("a", "9H"),
    call("a", "mau-mau"),
]


def test_online_penalty_loser_adds_own_hand_ace_11_jack_20() -> None:
    # RULES.md 3: A 11, J 20; the player out adds nothing (8 skipped b, a played again).
    end = round_end("a", scores={"a": 0, "b": 31}, hands={"a": [], "b": ["AC", "JD"]})
    valid([*OP_EV, end])


def test_online_penalty_wrong_score_claim() -> None:
    # AC 11 + JD 20 = 31, not 30 (ace counted 10).
    end = round_end("a", scores={"a": 0, "b": 30}, hands={"a": [], "b": ["AC", "JD"]})
    assert replay([*OP_EV, end]) == ("wrong_score", 6)


def test_online_penalty_low_cards_face_value() -> None:
    # RULES.md 3: 2 to 10 face value: 2C + 3D = 5.
    d = dl("online-penalty", {"a": ["8H", "9H"], "b": ["2C", "3D"]}, "10H")
    ev = [hdr("online-penalty", hand_size=2), d, play("a", "8H"), play("a", "9H")]
    valid([*ev, round_end("a", scores={"a": 0, "b": 5}, hands={"a": [], "b": ["2C", "3D"]})])


def test_online_penalty_32_card_pack_every_card_at_least_seven() -> None:
    # RULES.md 3: "with the 32-card pack every card left is worth at least 7": 7C + 7D = 14.
    r32 = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    d = dl("online-penalty", {"a": ["8H", "9H"], "b": ["7C", "7D"]}, "10H", ranks=r32)
    ev = [hdr("online-penalty", hand_size=2, ranks=r32), d, play("a", "8H"), play("a", "9H")]
    hands = {"a": [], "b": ["7C", "7D"]}
    valid([*ev, round_end("a", scores={"a": 0, "b": 14}, hands=hands)])
    assert replay([*ev, round_end("a", scores={"a": 0, "b": 13}, hands=hands)]) == (
        "wrong_score",
        4,
    )


def test_online_penalty_jack_finish_not_doubled() -> None:
    # PRESETS online-penalty: wild_finish_multiplier default 1: KC + QD = 20, not 40.
    d = dl("online-penalty", {"a": ["8H", "JC"], "b": ["KC", "QD"]}, "10H")
    ev = [hdr("online-penalty", hand_size=2), d, play("a", "8H"), play("a", "JC")]
    hands = {"a": [], "b": ["KC", "QD"]}
    valid([*ev, round_end("a", scores={"a": 0, "b": 20}, hands=hands)])


def test_online_penalty_match_end_before_limit_is_too_early() -> None:
    # PRESETS online-penalty match_target 100; ruling 14: a match_end with b at 31.
    end = round_end("a", scores={"a": 0, "b": 31}, hands={"a": [], "b": ["AC", "JD"]})
    ev = [*OP_EV, end, match_end({"a": 0, "b": 31}, "a")]
    assert replay(ev) == ("match_over_too_early", 7)


def test_online_penalty_match_ends_at_the_limit_lowest_total_wins() -> None:
    # RULES.md 3: the match ends after the round in which a total reaches the limit (set to
    # 30 here); the lowest total (a, 0) wins.
    ev = [*OP_EV]
    ev[0] = hdr("online-penalty", hand_size=2, match_target=30)
    end = round_end("a", scores={"a": 0, "b": 31}, hands={"a": [], "b": ["AC", "JD"]})
    valid([*ev, end, match_end({"a": 0, "b": 31}, "a")])
    assert replay([*ev, end, match_end({"a": 0, "b": 31}, "b")]) == ("wrong_winner", 7)


# ============================================================================ prsi (RULES 4)

PR7 = {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}


def test_prsi_seven_draws_two_and_loses_the_turn() -> None:
    # RULES.md 4: "A player who draws for a 7 may not play in the same turn".
    ev = [hdr("prsi"), dl("prsi", PR7, "9H", ["QC", "8S"]), play("a", "7H")]
    assert view_after(ev)["pending_draw"] == 2
    ev.append(draw("b", "QC", "8S", reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 0)
    prefix_ok(ev)
    assert replay([*ev, play("b", "10H")]) == ("wrong_player", 4)


def test_prsi_seven_on_seven_draws_four() -> None:
    # RULES.md 4: "unless they answer with a 7 (next draws 4, then 6, ...)".
    hands = {"a": ["7H", "9C", "KC"], "b": ["7D", "QD", "KS"]}
    ev = [hdr("prsi"), dl("prsi", hands, "9H", ["QC", "8S", "9S", "10S"]), play("a", "7H")]
    ev.append(play("b", "7D"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 4)
    ev.append(draw("a", "QC", "8S", "9S", "10S", reason="effect"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_prsi_seven_answered_with_another_rank_is_missed_penalty() -> None:
    # PRESETS prsi draw_answer "same_rank": KH matches the suit but the 7 is pending.
    hands = {"a": ["7H", "9C", "KC"], "b": ["KH", "QD", "KS"]}
    ev = [hdr("prsi"), dl("prsi", hands, "9H"), play("a", "7H"), play("b", "KH")]
    assert replay(ev) == ("missed_penalty", 3)


def test_prsi_queen_on_active_seven_refused() -> None:
    # RULES.md 4: Q "wild on any card except an active 7 or Ace" (wild_on_pending false).
    ev = [hdr("prsi"), dl("prsi", PR7, "9H"), play("a", "7H"), play("b", "QD")]
    assert replay(ev) == ("missed_penalty", 3)


PRA = {"a": ["AH", "9D", "KC"], "b": ["QD", "AD", "KS"], "c": ["10H", "10D", "10S"]}


def test_prsi_queen_on_active_ace_refused() -> None:
    # RULES.md 4 (no Q on an active Ace) + ruling 6: the skipped b may only answer with an
    # Ace; another card is card_does_not_match (as tests/test_engine_rules.py reads it).
    ev = [hdr("prsi", ABC), dl("prsi", PRA, "9H"), play("a", "AH"), play("b", "QD")]
    assert replay(ev) == ("card_does_not_match", 3)


def test_prsi_ace_skips_next_player() -> None:
    # RULES.md 4: "A: the next player misses the turn"; a skipped player logs nothing.
    ev = [hdr("prsi", ABC), dl("prsi", PRA, "9H"), play("a", "AH"), play("c", "10H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_prsi_ace_answered_with_ace_passes_the_skip_on() -> None:
    # RULES.md 4 + ruling 6: b answers with AD; c misses the turn (10D is no Ace: as
    # tests/test_engine_rules.py reads ruling 6, card_does_not_match); a plays next.
    ev = [hdr("prsi", ABC), dl("prsi", PRA, "9H"), play("a", "AH"), play("b", "AD")]
    ev.append(play("a", "9D"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)
    assert replay([*ev[:-1], play("c", "10D")]) == ("card_does_not_match", 4)


def test_prsi_queen_wild_names_suit() -> None:
    # RULES.md 4: "Q (Ober): wild on any card ...; names the suit".
    hands = {"a": ["QC", "9C", "KC"], "b": ["10H", "10C", "KS"]}
    ev = [hdr("prsi"), dl("prsi", hands, "8D"), play("a", "QC"), suit("a", "H")]
    assert view_after(ev)["suit"] == "H"
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("b", "10C")]) == ("card_does_not_match", 4)


def test_prsi_jack_has_no_power() -> None:
    # RULES.md 4: "J has no power": JC on 10H matches neither rank nor suit.
    hands = {"a": ["JC", "JH", "KC"], "b": ["10D", "QD", "KS"]}
    assert replay([hdr("prsi"), dl("prsi", hands, "10H"), play("a", "JC")]) == (
        "card_does_not_match",
        2,
    )
    ev = [hdr("prsi"), dl("prsi", hands, "10H"), play("a", "JH")]
    assert (view_after(ev)["turn"], view_after(ev)["awaiting_suit"]) == ("b", None)


def test_prsi_no_call_word_so_no_penalty() -> None:
    # RULES.md 4: "No word is said on the last card" (call_penalty 0).
    hands = {"a": ["9H", "KH"], "b": ["9S", "QD"]}
    ev = [hdr("prsi", hand_size=2), dl("prsi", hands, "10H", ["7C"]), play("a", "9H")]
    ev += [play("b", "9S"), penalty("a", "b", "7C")]
    assert replay(ev) == ("wrong_penalty", 4)


def test_prsi_seven_on_seven_then_out_on_a_seven() -> None:
    # RULES.md 4: b answers a's 7 (a draws 4, loses the turn), then b goes out on its last 7:
    # the round ends at once (a never draws for b's last 7).
    hands = {"a": ["7H", "9C"], "b": ["7D", "7C"]}
    top = ["QC", "8S", "9S", "10S"]
    ev = [hdr("prsi", hand_size=2), dl("prsi", hands, "10H", top), play("a", "7H")]
    ev += [play("b", "7D"), draw("a", *top, reason="effect"), play("b", "7C")]
    valid([*ev, round_end("b", hands={"a": ["9C", *top], "b": []})])


def test_prsi_out_on_an_ace_is_allowed() -> None:
    # PRESETS prsi: no cover, no no_finish_on: a round may end on an Ace.
    hands = {"a": ["9H", "AH"], "b": ["QH", "KD"]}
    ev = [hdr("prsi", hand_size=2), dl("prsi", hands, "10H"), play("a", "9H")]
    ev += [play("b", "QH"), suit("b", "H"), play("a", "AH")]
    valid([*ev, round_end("a", hands={"a": [], "b": ["KD"]})])


def test_prsi_default_hand_size_four() -> None:
    # PRESETS prsi hand_size 4; ruling 16: a wrong hand size at the deal is wrong_draw_count.
    three = {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}
    assert replay([game("prsi", AB), dl("prsi", three, "9H")]) == ("wrong_draw_count", 1)
    four = {"a": ["7H", "9C", "KC", "8D"], "b": ["10H", "QD", "KS", "8C"]}
    prefix_ok([game("prsi", AB), dl("prsi", four, "9H")])


def test_prsi_green_king_option_adds_up_with_seven_of_spades() -> None:
    # RULES.md 4 option (preset notes): KS draws 4, answered by 7S: 4 + 2 = 6.
    opts: dict[str, Any] = {"draw": {"7": 2, "KS": 4}, "draw_answer": "any_draw_card"}
    hands = {"a": ["KS", "9C", "KC"], "b": ["7S", "QD", "10D"]}
    ev = [hdr("prsi", **opts), dl("prsi", hands, "9S"), play("a", "KS"), play("b", "7S")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 6)
    prefix_ok(ev)
