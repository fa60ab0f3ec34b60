"""Hand-checked rule tests for every preset but ``standard``/``classic``.

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
    prefix_ok,
    replay,
    replay_games,
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


# =========================================================================== pesten (RULES 5)


def test_pesten_two_draws_two_then_still_plays() -> None:
    # PRESETS pesten: draw {"2" = 2}, draw_ends_turn false.
    hands = {"a": ["2H", "9C", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H", ["QC", "8S"]), play("a", "2H")]
    assert view_after(ev)["pending_draw"] == 2
    ev += [draw("b", "QC", "8S", reason="effect"), play("b", "10H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["hands"]["b"]) == ("a", 0, ["QD", "KS", "QC", "8S"])
    prefix_ok(ev)


def test_pesten_two_on_two_draws_four() -> None:
    # RULES.md 5: 2s stack and add up.
    hands = {"a": ["2H", "9C", "KC"], "b": ["2D", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H"), play("a", "2H"), play("b", "2D")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 4)
    prefix_ok(ev)


SEVEN_CARDS = ["3C", "4C", "5C", "6C", "8C", "10C", "3S"]


def test_pesten_joker_then_two_is_seven_cards() -> None:
    # RULES.md 5: "Joker then 2 means 7 cards" (draw X = 5, 2 = 2, any_draw_card).
    hands = {"a": ["X", "9C", "KC"], "b": ["2H", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H", SEVEN_CARDS), play("a", "X"), suit("a", "H")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 5)
    ev.append(play("b", "2H"))
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 7)
    ev.append(draw("a", *SEVEN_CARDS, reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], len(v["hands"]["a"])) == ("a", 0, 9)
    prefix_ok(ev)


def test_pesten_two_then_joker_is_seven_cards() -> None:
    # RULES.md 5: 2s and Jokers stack either way round: 2 + 5 = 7.
    hands = {"a": ["2H", "9C", "KC"], "b": ["X", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H"), play("a", "2H"), play("b", "X")]
    ev.append(suit("b", "C"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["suit"]) == ("a", 7, "C")
    prefix_ok(ev)


def test_pesten_joker_then_two_served_with_five_is_wrong_count() -> None:
    # RULES.md 5: 7 cards are owed, not the Joker's 5.
    hands = {"a": ["X", "9C", "KC"], "b": ["2H", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H", SEVEN_CARDS), play("a", "X"), suit("a", "H")]
    ev += [play("b", "2H"), draw("a", *SEVEN_CARDS[:5], reason="effect")]
    assert replay(ev) == ("wrong_draw_count", 5)


def test_pesten_jack_on_pending_two_refused() -> None:
    # PRESETS pesten: J is wild but no draw card; wild_on_pending false (default).
    hands = {"a": ["2H", "9C", "KC"], "b": ["JH", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H"), play("a", "2H"), play("b", "JH")]
    assert replay(ev) == ("missed_penalty", 3)


PE_AGAIN = {"a": ["7H", "9H", "KC"], "b": ["10D", "QD", "KS"]}


def test_pesten_seven_plays_again() -> None:
    # RULES.md 5 "7: the player must play again"; ruling 4.
    ev = [hdr("pesten"), dl("pesten", PE_AGAIN, "10H"), play("a", "7H")]
    assert view_after(ev)["turn"] == "a"
    ev.append(play("a", "9H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_pesten_seven_next_player_may_not_play_yet() -> None:
    ev = [hdr("pesten"), dl("pesten", PE_AGAIN, "10H"), play("a", "7H"), play("b", "10D")]
    assert replay(ev) == ("wrong_player", 3)


def test_pesten_seven_play_again_may_not_pass_when_able() -> None:
    # Ruling 4: "must play a legal card if there is one" (a holds 9H); ruling 11.
    ev = [hdr("pesten"), dl("pesten", PE_AGAIN, "10H"), play("a", "7H"), pass_("a")]
    assert replay(ev) == ("illegal_pass", 3)


def test_pesten_king_plays_again() -> None:
    # RULES.md 5 "K: like 7, play again".
    hands = {"a": ["KH", "9H", "2C"], "b": ["10D", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "10H"), play("a", "KH")]
    assert view_after(ev)["turn"] == "a"
    ev.append(play("a", "9H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)
    bad = [hdr("pesten"), dl("pesten", hands, "10H"), play("a", "KH"), play("b", "10D")]
    assert replay(bad) == ("wrong_player", 3)


def test_pesten_play_again_without_a_legal_card_draws_then_passes() -> None:
    # Ruling 4 (a legal card "if there is one"): none, so the ordinary draw-one applies.
    hands = {"a": ["7H", "2C", "3C"], "b": ["10D", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "10H", ["4S"]), play("a", "7H")]
    ev += [draw("a", "4S", reason="no_play"), pass_("a")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("b", ["2C", "3C", "4S"])
    prefix_ok(ev)


def test_pesten_seven_as_last_card_ends_the_round() -> None:
    # Ambiguous (ruling 4 says nothing of an empty hand; ruling 5's "owed even with an empty
    # hand" is for cover only): read as RULES.md family "first player to empty the hand
    # ends the round".
    hands = {"a": ["9H", "7H"], "b": ["QH", "KD"]}
    ev = [hdr("pesten", hand_size=2), dl("pesten", hands, "10H"), play("a", "9H")]
    ev += [call("a", "last card"), play("b", "QH"), call("b", "last card"), play("a", "7H")]
    valid([*ev, round_end("a", hands={"a": [], "b": ["KD"]})])


PE_REV = {"a": ["AH", "9C", "KC"], "b": ["10D", "QD", "KS"], "c": ["10H", "QC", "2S"]}


def test_pesten_ace_reverses_three_players() -> None:
    # RULES.md 5 "A: reverses direction": after a, c plays, then b.
    ev = [hdr("pesten", ABC), dl("pesten", PE_REV, "9H"), play("a", "AH")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", -1)
    ev.append(play("c", "10H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)
    assert replay([*ev[:-1], play("b", "10D")]) == ("wrong_player", 3)


def test_pesten_ace_two_players_other_player_next() -> None:
    # RULESETS.md reverse_two_players default "noop".
    hands = {"a": ["AH", "9H", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "5H"), play("a", "AH")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("b", -1)
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("a", "9H")]) == ("wrong_player", 3)


def test_pesten_eight_skips() -> None:
    # RULES.md 5 "8: the next player is skipped".
    hands = {"a": ["8H", "9C", "KC"], "b": ["10D", "QD", "KS"], "c": ["10H", "QC", "2S"]}
    ev = [hdr("pesten", ABC), dl("pesten", hands, "9H"), play("a", "8H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok([*ev, play("c", "10H")])
    assert replay([*ev, play("b", "10D")]) == ("wrong_player", 3)


def test_pesten_joker_is_wild_and_names_a_suit() -> None:
    # RULES.md 5 "Joker: playable on anything"; ruling 15: X wild names a suit.
    hands = {"a": ["X", "9C", "KC"], "b": ["5S", "10D", "KH"]}
    ev = [hdr("pesten"), dl("pesten", hands, "10H", SEVEN_CARDS), play("a", "X"), suit("a", "S")]
    ev += [draw("b", *SEVEN_CARDS[:5], reason="effect"), play("b", "5S")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)
    bad = [*ev[:-1], play("b", "10D")]
    assert replay(bad) == ("card_does_not_match", 5)


def test_pesten_joker_without_suit_is_missing_suit_choice() -> None:
    hands = {"a": ["X", "9C", "KC"], "b": ["2S", "10D", "KH"]}
    ev = [hdr("pesten"), dl("pesten", hands, "10H"), play("a", "X"), play("b", "2S")]
    assert replay(ev) == ("missing_suit_choice", 3)


def test_pesten_jack_wild_names_suit() -> None:
    # RULES.md 5 "J: wild on any card, names the suit".
    hands = {"a": ["JC", "9C", "KC"], "b": ["5S", "10D", "KH"]}
    ev = [hdr("pesten"), dl("pesten", hands, "10H"), play("a", "JC"), suit("a", "S")]
    prefix_ok([*ev, play("b", "5S")])
    assert replay([*ev, play("b", "10D")]) == ("card_does_not_match", 4)


PE_CALL = {"a": ["9H", "KH"], "b": ["9S", "QD"]}


def test_pesten_last_card_call_said_no_fault() -> None:
    # PRESETS pesten call_last_card "last card"; ruling 9: case and spaces ignored.
    ev = [hdr("pesten", hand_size=2), dl("pesten", PE_CALL, "10H", ["7C"]), play("a", "9H")]
    ev += [call("a", "Last Card"), play("b", "9S"), call("b", "last card")]
    assert replay([*ev, penalty("a", "b", "7C")]) == ("wrong_penalty", 6)


def test_pesten_last_card_missed_caught_one_card() -> None:
    # PRESETS pesten call_penalty 1.
    ev = [hdr("pesten", hand_size=2), dl("pesten", PE_CALL, "10H", ["7C"]), play("a", "9H")]
    ev += [play("b", "9S"), call("b", "last card"), penalty("a", "b", "7C")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("a", ["KH", "7C"])
    prefix_ok(ev)


def test_pesten_mau_is_the_wrong_word() -> None:
    # Ruling 9: the word is call_last_card ("last card"); "mau" leaves a fault.
    ev = [hdr("pesten", hand_size=2), dl("pesten", PE_CALL, "10H", ["7C"]), play("a", "9H")]
    ev += [call("a", "mau"), play("b", "9S"), call("b", "last card")]
    ev.append(penalty("a", "b", "7C", reason="wrong_call"))
    assert view_after(ev)["hands"]["a"] == ["KH", "7C"]
    prefix_ok(ev)


# ============================================================================ puque (RULES 6)

PQ3 = {"a": ["2H", "8H", "KC"], "b": ["10H", "QD", "KS"], "c": ["10S", "QH", "10D"]}


def test_puque_two_skips() -> None:
    # RULES.md 6 / PRESETS puque skip ["2"].
    ev = [hdr("puque", ABC), dl("puque", PQ3, "9H"), play("a", "2H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok([*ev, play("c", "QH")])
    assert replay([*ev, play("b", "10H")]) == ("wrong_player", 3)


def test_puque_eight_does_not_skip() -> None:
    # RULES.md 6: "the 2 is the skip card instead of the 8".
    ev = [hdr("puque", ABC), dl("puque", PQ3, "9H"), play("a", "8H")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok([*ev, play("b", "10H")])


def test_puque_seven_draws_two_then_still_plays() -> None:
    # PRESETS puque: draw {"7" = 2}, draw_ends_turn false.
    hands = {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("puque"), dl("puque", hands, "9H", ["QC", "8S"]), play("a", "7H")]
    ev += [draw("b", "QC", "8S", reason="effect"), play("b", "10H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_puque_ace_must_be_covered() -> None:
    # PRESETS puque cover ["A"] (as standard): a covers before b plays.
    hands = {"a": ["AH", "9H", "KC"], "b": ["10D", "QD", "KS"]}
    ev = [hdr("puque"), dl("puque", hands, "10H"), play("a", "AH")]
    v = view_after(ev)
    assert (v["turn"], v["cover_owed"]) == ("a", "AH")
    assert replay([*ev, play("b", "10D")]) == ("wrong_player", 3)
    ev.append(play("a", "9H"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


PQ_ACE = [
    hdr("puque", hand_size=2),
    dl("puque", {"a": ["9H", "AH"], "b": ["QH", "QD"]}, "10H", ["KH"]),
    play("a", "9H"),
    call("a", "puque"),
    play("b", "QH"),
    call("b", "puque"),
    play("a", "AH"),
]


def test_puque_no_finish_on_an_ace() -> None:
    # PRESETS puque no_finish_on ["A"]; ruling 5: the cover is owed even with an empty hand.
    v = view_after(PQ_ACE)
    assert (v["phase"], v["turn"], v["cover_owed"], v["hands"]["a"]) == ("play", "a", "AH", [])
    assert replay([*PQ_ACE, round_end("a")]) == ("round_not_finished", 7)


def test_puque_ace_last_card_draws_and_covers_out() -> None:
    # Ruling 5 cover_draw "one": the drawn KH covers and empties the hand.
    ev = [*PQ_ACE, draw("a", "KH", reason="cover"), play("a", "KH")]
    valid([*ev, round_end("a", hands={"a": [], "b": ["QD"]})])


PQ_CALL = {"a": ["9H", "KH"], "b": ["9S", "QD"]}


def test_puque_missed_call_caught_one_card() -> None:
    # PRESETS puque call_last_card "puque", call_penalty 1.
    ev = [hdr("puque", hand_size=2), dl("puque", PQ_CALL, "10H", ["7C"]), play("a", "9H")]
    ev += [play("b", "9S"), call("b", "puque"), penalty("a", "b", "7C")]
    assert view_after(ev)["hands"]["a"] == ["KH", "7C"]
    prefix_ok(ev)


def test_puque_mau_is_the_wrong_word() -> None:
    # Ruling 9: the due word is "puque".
    ev = [hdr("puque", hand_size=2), dl("puque", PQ_CALL, "10H", ["7C"]), play("a", "9H")]
    ev += [call("a", "mau"), play("b", "9S"), call("b", "puque")]
    prefix_ok([*ev, penalty("a", "b", "7C", reason="wrong_call")])


def test_puque_jack_last_card_needs_only_puque() -> None:
    # RULES.md 6 "no special word for a J finish" (call_last_wild none -> call_last_card).
    hands = {"a": ["9H", "JC"], "b": ["9S", "QD"]}
    ev = [hdr("puque", hand_size=2), dl("puque", hands, "10H", ["7C"]), play("a", "9H")]
    ev += [call("a", "puque"), play("b", "9S"), call("b", "puque")]
    assert replay([*ev, penalty("a", "b", "7C", reason="wrong_call")]) == ("wrong_penalty", 6)


PQ_J = [
    dl("puque", {"a": ["2H", "JC"], "b": ["KD", "QD"]}, "10H"),
    play("a", "2H"),
    call("a", "puque"),
    play("a", "JC"),
]


def test_puque_jack_finish_doubles_points() -> None:
    # RULES.md 6 "a J finish ... still doubles points" (wild_finish_multiplier 2), scored
    # here with winner_collects (puque's own scoring is "none"): (10 + 10) x 2 = 40.
    h = hdr("puque", hand_size=2, scoring="winner_collects")
    hands = {"a": [], "b": ["KD", "QD"]}
    valid([h, *PQ_J, round_end("a", scores={"a": 40, "b": 0}, hands=hands)])
    bad = [h, *PQ_J, round_end("a", scores={"a": 20, "b": 0}, hands=hands)]
    assert replay(bad) == ("wrong_score", 5)


def test_puque_default_scoring_none_scores_zero() -> None:
    # PRESETS puque sets no scoring: "none" scores every player 0.
    h = hdr("puque", hand_size=2)
    hands = {"a": [], "b": ["KD", "QD"]}
    valid([h, *PQ_J, round_end("a", scores={"a": 0, "b": 0}, hands=hands)])


# ========================================================================== russian (RULES 7)


def test_russian_seven_draws_one_then_still_plays() -> None:
    # PRESETS russian: draw {"7" = 1}, draw_ends_turn false.
    hands = {"a": ["7H", "9C", "KC"], "b": ["10H", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "9H", ["QC"]), play("a", "7H")]
    assert view_after(ev)["pending_draw"] == 1
    ev += [draw("b", "QC", reason="effect"), play("b", "10H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_russian_seven_on_seven_draws_two() -> None:
    # PRESETS russian draw_answer "same_rank": 1 + 1.
    hands = {"a": ["7H", "9C", "KC"], "b": ["7D", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "9H"), play("a", "7H"), play("b", "7D")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 2)
    prefix_ok(ev)


RU6 = {"a": ["6H", "9C", "KC"], "b": ["10H", "8D", "KS"], "c": ["9H", "KD", "10D"]}


def test_russian_six_draws_one_and_ends_the_drawers_turn_only() -> None:
    # RULES.md 7 "6: next player draws 1 and skips"; ruling 3: the drawer's turn ends,
    # nobody else is skipped: c plays next.
    ev = [hdr("russian", ABC), dl("russian", RU6, "8H", ["QC"]), play("a", "6H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("b", 1)
    ev.append(draw("b", "QC", reason="effect"))
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["hands"]["b"]) == ("c", 0, ["10H", "8D", "KS", "QC"])
    ev.append(play("c", "9H"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_russian_six_drawer_may_not_play_after_drawing() -> None:
    # Ruling 3: the draw ends b's turn.
    ev = [hdr("russian", ABC), dl("russian", RU6, "8H", ["QC"]), play("a", "6H")]
    ev += [draw("b", "QC", reason="effect"), play("b", "10H")]
    assert replay(ev) == ("wrong_player", 4)


def test_russian_six_must_be_served() -> None:
    # Ruling 3: b draws; a play instead is missed_penalty.
    ev = [hdr("russian", ABC), dl("russian", RU6, "8H"), play("a", "6H"), play("b", "10H")]
    assert replay(ev) == ("missed_penalty", 3)


def test_russian_six_third_player_not_skipped_may_not_be_jumped() -> None:
    # Ruling 3 "nobody else is skipped": after b's draw it is c's turn, not a's.
    ev = [hdr("russian", ABC), dl("russian", RU6, "8H", ["QC"]), play("a", "6H")]
    ev += [draw("b", "QC", reason="effect"), play("a", "9C")]
    assert replay(ev) == ("wrong_player", 4)


def test_russian_six_two_players_back_to_the_player() -> None:
    # Ruling 3 with two players: b draws one, a plays next.
    hands = {"a": ["6H", "9H", "KC"], "b": ["10H", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "8H", ["QC"]), play("a", "6H")]
    ev.append(draw("b", "QC", reason="effect"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok([*ev, play("a", "9H")])


def test_russian_six_answered_with_six_next_draws_two() -> None:
    # draw_answer same_rank + skip_answer (ruling 6: the answered skip lapses): c draws 1+1
    # and (ruling 3) that ends c's turn; a plays next.
    hands = {"a": ["6H", "9C", "KC"], "b": ["6D", "8D", "KS"], "c": ["9H", "KD", "10D"]}
    ev = [hdr("russian", ABC), dl("russian", hands, "8H", ["QC", "8C"]), play("a", "6H")]
    ev.append(play("b", "6D"))
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("c", 2)
    ev.append(draw("c", "QC", "8C", reason="effect"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_russian_six_on_pending_seven_refused() -> None:
    # draw_answer "same_rank": a 6 does not answer a 7.
    hands = {"a": ["7H", "9C", "KC"], "b": ["6H", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "9H"), play("a", "7H"), play("b", "6H")]
    assert replay(ev) == ("missed_penalty", 3)


RUA = {"a": ["AH", "9D", "KC"], "b": ["AD", "8S", "KS"], "c": ["10H", "10D", "10S"]}


def test_russian_ace_skips() -> None:
    # RULES.md 7 "A: next player skips".
    ev = [hdr("russian", ABC), dl("russian", RUA, "9H"), play("a", "AH"), play("c", "10H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_russian_ace_answered_with_ace() -> None:
    # PRESETS russian skip_answer true: b passes the skip to c; a plays next.
    ev = [hdr("russian", ABC), dl("russian", RUA, "9H"), play("a", "AH"), play("b", "AD")]
    prefix_ok([*ev, play("a", "9D")])


def test_russian_queen_wild_names_suit() -> None:
    # RULES.md 7 "Q: changes suit".
    hands = {"a": ["QC", "9C", "KC"], "b": ["10H", "10C", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "8D"), play("a", "QC"), suit("a", "H")]
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("b", "10C")]) == ("card_does_not_match", 4)


def test_russian_queen_on_pending_seven_refused() -> None:
    # PRESETS defaults wild_on_pending false.
    hands = {"a": ["7H", "9C", "KC"], "b": ["QH", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "9H"), play("a", "7H"), play("b", "QH")]
    assert replay(ev) == ("missed_penalty", 3)


def test_russian_36_card_pack_has_no_five() -> None:
    # RULES.md 7 "36-card French pack (6 to A)".
    hands = {"a": ["7H", "9C", "KC"], "b": ["10H", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "9H"), play("a", "5H")]
    assert replay(ev) == ("unknown_card", 2)


def test_russian_jack_is_a_plain_card() -> None:
    # PRESETS russian wild ["Q"] only.
    hands = {"a": ["JC", "9C", "KC"], "b": ["10D", "8D", "KS"]}
    ev = [hdr("russian"), dl("russian", hands, "10H"), play("a", "JC")]
    assert replay(ev) == ("card_does_not_match", 2)


# =========================================================================== faraon (RULES 8)

FA7 = {"a": ["7H", "9C", "KC"], "b": ["10H", "QD", "KS"]}
SIX = ["8C", "8S", "9S", "10S", "10C", "JC"]


def test_faraon_first_round_left_of_dealer_starts() -> None:
    # PRESETS faraon first_player "previous_winner"; ruling 14 makes the last winner start
    # later rounds; a lone round has none, so the seat left of the dealer (a) starts.
    v = view_after([hdr("faraon"), dl("faraon", FA7, "9H")])
    assert v["turn"] == "a"


def test_faraon_seven_draws_three_and_loses_the_turn() -> None:
    # RULES.md 8 "7: the next player draws 3 per 7"; as Prší the drawer may not play.
    ev = [hdr("faraon"), dl("faraon", FA7, "9H", SIX), play("a", "7H")]
    assert view_after(ev)["pending_draw"] == 3
    ev.append(draw("b", *SIX[:3], reason="effect"))
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 0)
    prefix_ok(ev)
    assert replay([*ev, play("b", "10H")]) == ("wrong_player", 4)


def test_faraon_seven_served_with_two_is_wrong_count() -> None:
    ev = [hdr("faraon"), dl("faraon", FA7, "9H", SIX), play("a", "7H")]
    assert replay([*ev, draw("b", *SIX[:2], reason="effect")]) == ("wrong_draw_count", 3)


def test_faraon_two_sevens_together_draw_six() -> None:
    # RULES.md 8: several cards of one rank together; "3 per 7 played (3, 6, 9, 12)".
    hands = {"a": ["7H", "7D", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "9H", SIX), play("a", "7H", "7D")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 6)
    ev.append(draw("b", *SIX, reason="effect"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_faraon_three_sevens_together_draw_nine() -> None:
    hands = {"a": ["7H", "7D", "7C", "KC"], "b": ["10H", "QD", "KS", "8D"]}
    ev = [hdr("faraon", hand_size=4), dl("faraon", hands, "9H"), play("a", "7H", "7D", "7C")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 9)
    prefix_ok(ev)


def test_faraon_seven_answered_with_seven_draws_six() -> None:
    # RULES.md 8 "unless they pass it on with a 7".
    hands = {"a": ["7H", "9C", "KC"], "b": ["7D", "QD", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "9H"), play("a", "7H"), play("b", "7D")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 6)
    prefix_ok(ev)


def test_faraon_two_sevens_answered_with_one_seven_draw_nine() -> None:
    hands = {"a": ["7H", "7D", "KC"], "b": ["7C", "QD", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "9H"), play("a", "7H", "7D"), play("b", "7C")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 9)
    prefix_ok(ev)


def test_faraon_mixed_ranks_together_refused() -> None:
    # PRESETS faraon multi_play "same_rank": 7H with 8H is no same-rank play.
    hands = {"a": ["7H", "8H", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "9H"), play("a", "7H", "8H")]
    assert replay(ev) == ("card_does_not_match", 2)


FA4 = {
    "a": ["AH", "AD", "KC"],
    "b": ["10H", "8D", "KS"],
    "c": ["10D", "8C", "9S"],
    "d": ["KD", "10C", "8S"],
}


def test_faraon_two_aces_skip_two_players() -> None:
    # RULES.md 8 "two Aces: the next two players miss their turns"; ruling 6.
    ev = [hdr("faraon", ABCD), dl("faraon", FA4, "9H"), play("a", "AH", "AD")]
    ev.append(play("d", "KD"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_faraon_two_aces_second_skipped_player_may_not_play() -> None:
    # Ruling 6: c is the second skipped player; a skipped player logs nothing.
    ev = [hdr("faraon", ABCD), dl("faraon", FA4, "9H"), play("a", "AH", "AD")]
    assert replay([*ev, play("c", "10D")]) == ("wrong_player", 3)


def test_faraon_two_aces_three_players_back_to_the_player() -> None:
    # Ruling 6: b and c skipped, a plays again (a skip coming round is taken).
    hands = {"a": ["AH", "AD", "KD"], "b": ["10H", "8D", "KS"], "c": ["10D", "8C", "9S"]}
    ev = [hdr("faraon", ABC), dl("faraon", hands, "9H"), play("a", "AH", "AD"), play("a", "KD")]
    valid([*ev, round_end("a", hands={"a": [], "b": hands["b"], "c": hands["c"]})])


FAJ = {"a": ["7S", "9S", "KC"], "b": ["JS", "QD", "KH"]}


def test_faraon_green_unter_cancels_a_pending_seven() -> None:
    # RULES.md 8 "The leaves (green) Unter (J of spades) cancels a pending 7 draw; more
    # cards may follow on it" (draw_cancel ["JS"]): nobody draws, a plays on the JS.
    ev = [hdr("faraon"), dl("faraon", FAJ, "10S"), play("a", "7S"), play("b", "JS")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["top"]) == ("a", 0, "JS")
    ev.append(play("a", "9S"))
    assert view_after(ev)["turn"] == "b"
    prefix_ok(ev)


def test_faraon_green_unter_cancels_two_sevens() -> None:
    hands = {"a": ["7S", "7C", "9S"], "b": ["JS", "QD", "KH"]}
    ev = [hdr("faraon"), dl("faraon", hands, "10S"), play("a", "7S", "7C"), play("b", "JS")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 0)
    prefix_ok(ev)


def test_faraon_other_jack_does_not_cancel() -> None:
    # Only the green Unter cancels: JD on the pending 7 is missed_penalty.
    hands = {"a": ["7D", "9S", "KC"], "b": ["JD", "QD", "KH"]}
    ev = [hdr("faraon"), dl("faraon", hands, "10D"), play("a", "7D"), play("b", "JD")]
    assert replay(ev) == ("missed_penalty", 3)


def test_faraon_queen_on_pending_seven_refused() -> None:
    # As Prší (RULES.md 4/8): no Q on an active 7 (wild_on_pending false).
    hands = {"a": ["7H", "9C", "KC"], "b": ["QD", "10D", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "9H"), play("a", "7H"), play("b", "QD")]
    assert replay(ev) == ("missed_penalty", 3)


def test_faraon_queen_wild_names_suit() -> None:
    # RULES.md 8 "Q (Ober): wild, names the suit".
    hands = {"a": ["QC", "9C", "KC"], "b": ["10H", "10C", "KS"]}
    ev = [hdr("faraon"), dl("faraon", hands, "8D"), play("a", "QC"), suit("a", "H")]
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("b", "10C")]) == ("card_does_not_match", 4)


def test_faraon_default_hand_size_five() -> None:
    # RULES.md 8 "5 cards at the start"; ruling 16.
    assert replay([game("faraon", AB), dl("faraon", FA7, "9H")]) == ("wrong_draw_count", 1)


# =========================================================================== neuner (RULES 9)


def test_neuner_nine_is_wild_and_names_suit() -> None:
    # RULES.md 9 "the 9s and the Joker are wild".
    hands = {"a": ["9C", "10C", "KC"], "b": ["10S", "10D", "KS"]}
    ev = [hdr("neuner"), dl("neuner", hands, "KH"), play("a", "9C"), suit("a", "S")]
    assert (view_after(ev)["turn"], view_after(ev)["suit"]) == ("b", "S")
    prefix_ok([*ev, play("b", "10S")])
    assert replay([*ev, play("b", "10D")]) == ("card_does_not_match", 4)


def test_neuner_joker_is_wild_and_names_suit() -> None:
    # RULES.md 9 + ruling 15 (X listed in wild).
    hands = {"a": ["X", "10C", "KC"], "b": ["10S", "10D", "KS"]}
    ev = [hdr("neuner"), dl("neuner", hands, "KH"), play("a", "X"), suit("a", "D")]
    prefix_ok([*ev, play("b", "10D")])
    assert replay([*ev, play("b", "10S")]) == ("card_does_not_match", 4)


def test_neuner_joker_without_suit_is_missing_suit_choice() -> None:
    hands = {"a": ["X", "10C", "KC"], "b": ["10S", "10D", "KS"]}
    ev = [hdr("neuner"), dl("neuner", hands, "KH"), play("a", "X"), play("b", "10S")]
    assert replay(ev) == ("missing_suit_choice", 3)


def test_neuner_jack_is_not_wild() -> None:
    # PRESETS neuner wild ["9", "X"]: JC on 10H matches nothing.
    hands = {"a": ["JC", "10C", "KC"], "b": ["10S", "10D", "KS"]}
    assert replay([hdr("neuner"), dl("neuner", hands, "QH"), play("a", "JC")]) == (
        "card_does_not_match",
        2,
    )


def test_neuner_nine_on_pending_seven_refused() -> None:
    # PRESETS defaults wild_on_pending false.
    hands = {"a": ["7H", "10C", "KC"], "b": ["9S", "10D", "KS"]}
    ev = [hdr("neuner"), dl("neuner", hands, "KH"), play("a", "7H"), play("b", "9S")]
    assert replay(ev) == ("missed_penalty", 3)


NE_CALL = {"a": ["KH", "X"], "b": ["KS", "QD"]}


def test_neuner_joker_last_card_needs_mau_mau() -> None:
    # PRESETS neuner call_last_wild "mau-mau"; ruling 9: "mau" on a wild last card is a
    # fault, caught with 1 card.
    ev = [hdr("neuner", hand_size=2), dl("neuner", NE_CALL, "10H", ["7C"]), play("a", "KH")]
    ev += [call("a", "mau"), play("b", "KS"), call("b", "mau")]
    ev.append(penalty("a", "b", "7C", reason="wrong_call"))
    assert view_after(ev)["hands"]["a"] == ["X", "7C"]
    prefix_ok(ev)


def test_neuner_joker_last_card_mau_mau_said_no_fault() -> None:
    ev = [hdr("neuner", hand_size=2), dl("neuner", NE_CALL, "10H", ["7C"]), play("a", "KH")]
    ev += [call("a", "mau-mau"), play("b", "KS"), call("b", "mau")]
    assert replay([*ev, penalty("a", "b", "7C", reason="wrong_call")]) == ("wrong_penalty", 6)


def test_neuner_nine_finish_doubles_points() -> None:
    # PRESETS neuner wild_finish_multiplier 2 (scored with winner_collects here): 20 x 2.
    d = dl("neuner", {"a": ["8H", "9C"], "b": ["KD", "QD"]}, "10H")
    h = hdr("neuner", hand_size=2, scoring="winner_collects")
    ev = [h, d, play("a", "8H"), call("a", "mau-mau"), play("a", "9C")]
    valid([*ev, round_end("a", scores={"a": 40, "b": 0}, hands={"a": [], "b": ["KD", "QD"]})])


def test_neuner_no_finish_on_an_ace() -> None:
    # PRESETS neuner cover ["A"], no_finish_on ["A"]; ruling 5.
    hands = {"a": ["9H", "AH"], "b": ["QH", "QD"]}
    ev = [hdr("neuner", hand_size=2), dl("neuner", hands, "10H", ["KH"]), play("a", "9H")]
    ev += [suit("a", "H"), call("a", "mau"), play("b", "QH"), call("b", "mau"), play("a", "AH")]
    v = view_after(ev)
    assert (v["phase"], v["cover_owed"], v["hands"]["a"]) == ("play", "AH", [])
    assert replay([*ev, round_end("a")]) == ("round_not_finished", 8)
    ev += [draw("a", "KH", reason="cover"), play("a", "KH")]
    valid([*ev, round_end("a", hands={"a": [], "b": ["QD"]})])


def test_neuner_seven_draws_two_and_eight_skips() -> None:
    # PRESETS neuner draw {"7" = 2} (draw_ends_turn false), skip ["8"].
    hands = {"a": ["7H", "8H", "KC"], "b": ["10H", "QD", "KS"]}
    ev = [hdr("neuner"), dl("neuner", hands, "KH", ["QC", "8S"]), play("a", "7H")]
    ev += [draw("b", "QC", "8S", reason="effect"), play("b", "10H"), play("a", "8H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


# ========================================================================== serbian (RULES 11)


def sh(players: tuple[str, ...] = AB, /, **options: Any) -> Ev:
    return hdr("serbian", players, **options)


def sd(hands: dict[str, list[str]], starter: str, top: tuple[str, ...] | list[str] = ()) -> Ev:
    return dl("serbian", hands, starter, top)


def test_serbian_seven_draws_three_then_still_plays() -> None:
    # RULES.md 11 "7: next player draws 3"; PRESETS serbian draw_ends_turn false.
    hands = {"a": ["7H", "9C", "KC"], "b": ["6H", "4D", "KS"]}
    ev = [sh(), sd(hands, "9H", ["3C", "4S", "5S"]), play("a", "7H")]
    assert view_after(ev)["pending_draw"] == 3
    ev += [draw("b", "3C", "4S", "5S", reason="effect"), play("b", "6H")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_serbian_seven_on_seven_draws_six() -> None:
    # RULES.md 11 "unless they answer with a 7 (6, 9, ...)".
    hands = {"a": ["7H", "9C", "KC"], "b": ["7D", "4D", "KS"]}
    ev = [sh(), sd(hands, "9H"), play("a", "7H"), play("b", "7D")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 6)
    prefix_ok(ev)


def test_serbian_two_identical_sevens_draw_six() -> None:
    # RULES.md 11 "two identical 7s: 6" (multi_play identical).
    hands = {"a": ["7H", "7H", "KC"], "b": ["6H", "4D", "KS"]}
    ev = [sh(), sd(hands, "9H"), play("a", "7H", "7H")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 6)
    prefix_ok(ev)


def test_serbian_two_different_sevens_together_refused() -> None:
    # PRESETS serbian multi_play "identical": 7H with 7D is not identical.
    hands = {"a": ["7H", "7D", "KC"], "b": ["6H", "4D", "KS"]}
    assert replay([sh(), sd(hands, "9H"), play("a", "7H", "7D")]) == ("card_does_not_match", 2)


def test_serbian_going_out_on_two_identical_sevens_answering_a_seven() -> None:
    # RULES.md 11: b answers a's 7 with two identical 7s and goes out; "mau-mau" only
    # (two identical cards at once); a never draws; serbian scoring: b -30, a 9C = 9.
    hands = {"a": ["7H", "9C"], "b": ["7D", "7D"]}
    ev = [sh(hand_size=2), sd(hands, "10H"), play("a", "7H"), call("a", "last card")]
    ev += [play("b", "7D", "7D"), call("b", "mau-mau")]
    valid([*ev, round_end("b", scores={"a": 9, "b": -30}, hands={"a": ["9C"], "b": []})])


def test_serbian_missed_last_card_caught_while_a_stacked_seven_is_pending() -> None:
    # Ruling 9/10: a's window closes with b's play; b catches it (3 cards, call_penalty 3);
    # the 7 + 7 = 6 draw is still owed after the penalty.
    hands = {"a": ["7H", "9C"], "b": ["7D", "KD"]}
    top = ["3C", "4C", "5C", "3S", "4S", "5S", "6S", "3D", "4D"]
    ev = [sh(hand_size=2), sd(hands, "10H", top), play("a", "7H"), play("b", "7D")]
    ev += [call("b", "last card"), penalty("a", "b", *top[:3])]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"], v["hands"]["a"]) == ("a", 6, ["9C", *top[:3]])
    ev.append(draw("a", *top[3:], reason="effect"))
    assert len(view_after(ev)["hands"]["a"]) == 10
    prefix_ok(ev)


SQ = {"a": ["QH", "9C", "KC"], "b": ["6H", "4D", "KS"], "c": ["9H", "4C", "5S"]}


def test_serbian_queen_draws_two_and_does_not_play() -> None:
    # RULES.md 11 "Q: the next player draws 2 and does not play"; ruling 3: c is next.
    ev = [sh(ABC), sd(SQ, "6H", ["3D", "3S"]), play("a", "QH")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 2)
    ev.append(draw("b", "3D", "3S", reason="effect"))
    assert view_after(ev)["turn"] == "c"
    ev.append(play("c", "9H"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_serbian_queen_drawer_may_not_play() -> None:
    ev = [sh(ABC), sd(SQ, "6H", ["3D", "3S"]), play("a", "QH")]
    ev += [draw("b", "3D", "3S", reason="effect"), play("b", "6H")]
    assert replay(ev) == ("wrong_player", 4)


def test_serbian_queen_must_be_served() -> None:
    ev = [sh(ABC), sd(SQ, "6H"), play("a", "QH"), play("b", "6H")]
    assert replay(ev) == ("missed_penalty", 3)


def test_serbian_queen_answered_with_queen_next_draws_four() -> None:
    # RULES.md 11 "only a Q answers it (4, 6, ...)"; c draws 4 and does not play.
    hands = {"a": ["QH", "9C", "KC"], "b": ["QD", "4D", "KS"], "c": ["9H", "4C", "5S"]}
    top = ["3D", "3S", "3H", "5D"]
    ev = [sh(ABC), sd(hands, "6H", top), play("a", "QH"), play("b", "QD")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("c", 4)
    ev.append(draw("c", *top, reason="effect"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_serbian_two_identical_queens_draw_four() -> None:
    # RULES.md 11 "two identical Qs: 4".
    hands = {"a": ["QH", "QH", "KC"], "b": ["6H", "4D", "KS"]}
    ev = [sh(), sd(hands, "6H"), play("a", "QH", "QH")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("b", 4)
    prefix_ok(ev)


@pytest.mark.parametrize("card", ["JH", "7H", "KH"])
def test_serbian_only_a_queen_answers_a_queen(card: str) -> None:
    # RULES.md 11 "only a Q answers it ...; a J cannot be played on an active Q".
    hands = {"a": ["QH", "9C", "KC"], "b": [card, "4D", "KS"]}
    ev = [sh(), sd(hands, "6H"), play("a", "QH"), play("b", card)]
    assert replay(ev) == ("missed_penalty", 3)


def test_serbian_queen_does_not_answer_a_seven() -> None:
    # draw_answer "same_rank": a Q on a pending 7 is refused.
    hands = {"a": ["7H", "9C", "KC"], "b": ["QH", "4D", "KS"]}
    ev = [sh(), sd(hands, "6H"), play("a", "7H"), play("b", "QH")]
    assert replay(ev) == ("missed_penalty", 3)


S8 = {"a": ["8H", "9C", "KC"], "b": ["8D", "8H", "KS"], "c": ["9H", "5H", "5S"]}
S8_JUMP = {"a": ["8H", "9C", "KC"], "b": ["8D", "5D", "KS"], "c": ["9H", "8H", "5S"]}


def test_serbian_eight_skips() -> None:
    # RULES.md 11 "8: next player is skipped".
    ev = [sh(ABC), sd(S8, "6H"), play("a", "8H")]
    assert view_after(ev)["turn"] == "c"
    ev.append(play("c", "9H"))
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_serbian_skipped_player_may_not_answer_with_another_eight() -> None:
    # RULES.md 11: the skipped player "may only answer by jumping in with the identical 8".
    assert replay([sh(ABC), sd(S8, "6H"), play("a", "8H"), play("b", "8D")]) == (
        "wrong_player",
        3,
    )


def test_serbian_skipped_player_jumps_in_with_identical_eight() -> None:
    # RULES.md 11 + ruling 7: b jumps in with 8H; play continues from b: c is skipped, a next.
    ev = [sh(ABC), sd(S8, "6H"), play("a", "8H"), jump("b", "8H")]
    v = view_after(ev)
    assert (v["turn"], v["top"], v["hands"]["b"]) == ("a", "8H", ["8D", "KS"])
    prefix_ok(ev)
    assert replay([*ev, play("c", "9H")]) == ("wrong_player", 4)


def test_serbian_jump_in_by_third_player_replaces_the_skip() -> None:
    # Ruling 7: "a pending skip is replaced by the jumper's own. Play continues from the
    # jumper": c jumps in on a's 8H; a (after c) is skipped, b -- about to be skipped by
    # a's 8 -- plays.
    ev = [sh(ABC), sd(S8_JUMP, "6H"), play("a", "8H"), jump("c", "8H")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok([*ev, play("b", "8D")])


def test_serbian_two_identical_eights_skip_two() -> None:
    # RULES.md 11 "two identical 8s skip two players".
    hands = {
        "a": ["8H", "8H", "KC"],
        "b": ["9H", "4D", "KS"],
        "c": ["9H", "4C", "5S"],
        "d": ["6H", "4H", "5D"],
    }
    ev = [sh(ABCD), sd(hands, "6H"), play("a", "8H", "8H")]
    assert view_after(ev)["turn"] == "d"
    prefix_ok([*ev, play("d", "6H")])
    assert replay([*ev, play("b", "9H")]) == ("wrong_player", 3)


S10 = {"a": ["10H", "10H", "KC"], "b": ["6H", "4D", "KS"], "c": ["9H", "4C", "5S"]}


def test_serbian_ten_reverses() -> None:
    # RULES.md 11 "10: reverses direction".
    hands = {"a": ["10H", "9C", "KC"], "b": ["6H", "4D", "KS"], "c": ["9H", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "6H"), play("a", "10H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("c", -1)
    prefix_ok([*ev, play("c", "9H")])
    assert replay([*ev, play("b", "6H")]) == ("wrong_player", 3)


def test_serbian_two_identical_tens_keep_the_direction() -> None:
    # RULES.md 11 "two identical 10s keep the direction".
    ev = [sh(ABC), sd(S10, "6H"), play("a", "10H", "10H")]
    v = view_after(ev)
    assert (v["turn"], v["direction"]) == ("b", 1)
    prefix_ok([*ev, play("b", "6H")])


def test_serbian_ten_two_players_other_player_next() -> None:
    # RULESETS.md reverse_two_players "noop" (serbian does not set it).
    hands = {"a": ["10H", "9H", "KC"], "b": ["6H", "4D", "KS"]}
    ev = [sh(), sd(hands, "6H"), play("a", "10H")]
    assert view_after(ev)["turn"] == "b"
    prefix_ok([*ev, play("b", "6H")])


SA = {"a": ["AH", "QC", "KS"], "b": ["6D", "4D", "KD"]}


def test_serbian_ace_covered_until_a_card_of_its_suit_comes() -> None:
    # RULES.md 11 "a player who cannot cover draws until a card of that suit comes";
    # ruling 5 "until_suit": then covers with it.
    ev = [sh(), sd(SA, "10H", ["8S", "9C", "9H"]), play("a", "AH")]
    assert (view_after(ev)["turn"], view_after(ev)["cover_owed"]) == ("a", "AH")
    ev += [draw("a", "8S", "9C", "9H", reason="cover"), play("a", "9H")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("b", ["QC", "KS", "8S", "9C"])
    prefix_ok(ev)


def test_serbian_ace_cover_draw_stopping_short_then_pass_is_illegal() -> None:
    # Ruling 5 until_suit: a stops after 8S (no heart yet) and passes. (A draw logged card
    # by card is read as allowed: FORMAT.md does not say an until_suit draw is one event.)
    ev = [sh(), sd(SA, "10H", ["8S", "9C", "9H"]), play("a", "AH")]
    ev.append(draw("a", "8S", reason="cover"))
    assert replay([*ev, pass_("a")]) == ("illegal_pass", 4)


def test_serbian_ace_cover_draw_past_the_suit_is_wrong_count() -> None:
    # Ruling 5 until_suit: the draw stops at the first heart (9H); one more card is too many.
    d = sd(SA, "10H", ["8S", "9C", "9H"])
    ev = [sh(), d, play("a", "AH"), draw("a", *d["stock"][:4], reason="cover")]
    assert replay(ev) == ("wrong_draw_count", 3)


def test_serbian_ace_cover_must_be_of_the_aces_suit_or_wild() -> None:
    # Ruling 5: the covering card is a card legal on the Ace; 6D is not.
    hands = {"a": ["AH", "6D", "KS"], "b": ["6D", "4D", "KD"]}
    ev = [sh(), sd(hands, "10H"), play("a", "AH"), play("a", "6D")]
    assert replay(ev) == ("card_does_not_match", 3)


def test_serbian_two_aces_cover_matches_the_last_ace() -> None:
    # RULES.md 11 "several Aces may go together, the covering card matching the suit of the
    # last Ace" (identical Aces here: AH AH, then 9H).
    hands = {"a": ["AH", "AH", "9H"], "b": ["6D", "4D", "KD"]}
    ev = [sh(), sd(hands, "10H"), play("a", "AH", "AH"), play("a", "9H")]
    valid([*ev, call("a", "mau-mau"), round_end("a", hands={"a": [], "b": hands["b"]})])


SA_LAST = [
    sh(hand_size=2),
    sd({"a": ["9H", "AH"], "b": ["KH", "KD"]}, "10H", ["5H"]),
    play("a", "9H"),
    call("a", "last card"),
    play("b", "KH"),
    call("b", "last card"),
    play("a", "AH"),
]


def test_serbian_ace_as_last_card_cover_still_owed() -> None:
    # Ruling 5: "A round does not end on a cover card: the cover is owed even with an empty
    # hand".
    v = view_after(SA_LAST)
    assert (v["phase"], v["turn"], v["cover_owed"], v["hands"]["a"]) == ("play", "a", "AH", [])
    assert replay([*SA_LAST, round_end("a")]) == ("round_not_finished", 7)


def test_serbian_ace_as_last_card_draw_cover_and_out() -> None:
    # Ruling 5 until_suit: 5H comes at once, covers and empties the hand; -30 / KD 10.
    ev = [*SA_LAST, draw("a", "5H", reason="cover"), play("a", "5H"), call("a", "mau-mau")]
    valid([*ev, round_end("a", scores={"a": -30, "b": 10}, hands={"a": [], "b": ["KD"]})])


SJJ = [sh(hand_size=2), sd({"a": ["JC", "JC"], "b": ["KH", "5D"]}, "10H"), play("a", "JC", "JC")]


def test_serbian_two_identical_jacks_finish_minus_120_times_four() -> None:
    # RULES.md 11 "-120 when closing with two identical Js, and the opponents' points times
    # 4"; ruling 13: KH 10 + 5D 5 = 15, x4 = 60.
    ev = [*SJJ, call("a", "mau-mau")]
    valid([*ev, round_end("a", scores={"a": -120, "b": 60}, hands={"a": [], "b": ["KH", "5D"]})])


def test_serbian_two_identical_jacks_finish_scored_as_one_jack_is_wrong() -> None:
    ev = [*SJJ, call("a", "mau-mau")]
    bad = round_end("a", scores={"a": -60, "b": 30}, hands={"a": [], "b": ["KH", "5D"]})
    assert replay([*ev, bad]) == ("wrong_score", 4)


def test_serbian_two_different_jacks_together_refused() -> None:
    # RULES.md 11 "two Js together only if identical".
    d = sd({"a": ["JC", "JD"], "b": ["KH", "5D"]}, "10H")
    assert replay([sh(hand_size=2), d, play("a", "JC", "JD")]) == ("card_does_not_match", 2)


def test_serbian_one_jack_finish_minus_60_times_two() -> None:
    # RULES.md 11 "-60 when closing with a J, and the opponents' points are doubled".
    d = sd({"a": ["8H", "JC"], "b": ["KH", "5D"]}, "10H")
    ev = [sh(hand_size=2), d, play("a", "8H"), call("a", "last card"), play("a", "JC")]
    ev.append(call("a", "mau-mau"))
    valid([*ev, round_end("a", scores={"a": -60, "b": 30}, hands={"a": [], "b": ["KH", "5D"]})])


def test_serbian_plain_finish_minus_30_power_cards_ten() -> None:
    # RULES.md 11: winner -30; 2 of clubs is a power card (10), 5S face value: 15.
    d = sd({"a": ["8H", "9H"], "b": ["2C", "5S"]}, "10H")
    ev = [sh(hand_size=2), d, play("a", "8H"), call("a", "last card"), play("a", "9H")]
    ev.append(call("a", "mau-mau"))
    valid([*ev, round_end("a", scores={"a": -30, "b": 15}, hands={"a": [], "b": ["2C", "5S"]})])


def test_serbian_plain_two_is_face_value() -> None:
    # RULES.md 11: only the 2 of clubs is a power card; 2D counts 2, 10S counts 10: 12.
    d = sd({"a": ["8H", "9H"], "b": ["2D", "10S"]}, "10H")
    ev = [sh(hand_size=2), d, play("a", "8H"), play("a", "9H")]
    valid([*ev, round_end("a", scores={"a": -30, "b": 12}, hands={"a": [], "b": ["2D", "10S"]})])


S2_CLUBS = {"a": ["9C", "3D", "KH"], "b": ["2C", "4H", "6S"], "c": ["3C", "4D", "5S"]}
S2_CLUBS_TOP = ["7S", "8S", "3H", "4S"]


def test_serbian_two_of_clubs_hits_the_previous_player() -> None:
    # RULES.md 11 "2 of clubs: the PREVIOUS player ... draws 4"; ruling 8: a owes an effect
    # draw before his next turn action; c's turn is not touched.
    ev = [sh(ABC), sd(S2_CLUBS, "10C", S2_CLUBS_TOP), play("a", "9C"), play("b", "2C")]
    assert view_after(ev)["turn"] == "c"
    ev += [play("c", "3C"), draw("a", *S2_CLUBS_TOP, reason="effect"), play("a", "3D")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["a"]) == ("b", ["KH", *S2_CLUBS_TOP])
    prefix_ok(ev)


def test_serbian_two_of_clubs_owed_draw_may_come_at_once() -> None:
    # The reading of ruling 8 (docs/reference/rulings.md): the owed draw may be logged any
    # time before a's next action.
    ev = [sh(ABC), sd(S2_CLUBS, "10C", S2_CLUBS_TOP), play("a", "9C"), play("b", "2C")]
    ev += [draw("a", *S2_CLUBS_TOP, reason="effect"), play("c", "3C")]
    assert view_after(ev)["turn"] == "a"
    prefix_ok(ev)


def test_serbian_two_of_clubs_acting_before_drawing_is_missed_penalty() -> None:
    # Ruling 8: "acting first is missed_penalty".
    ev = [
        sh(ABC),
        sd(S2_CLUBS, "10C", S2_CLUBS_TOP),
        play("a", "9C"),
        play("b", "2C"),
        play("c", "3C"),
    ]
    assert replay([*ev, play("a", "3D")]) == ("missed_penalty", 5)


def test_serbian_two_of_clubs_draw_of_two_is_wrong_count() -> None:
    ev = [sh(ABC), sd(S2_CLUBS, "10C", S2_CLUBS_TOP), play("a", "9C"), play("b", "2C")]
    assert replay([*ev, draw("a", *S2_CLUBS_TOP[:2], reason="effect")]) == ("wrong_draw_count", 4)


def test_serbian_two_of_clubs_drawn_by_the_wrong_player() -> None:
    # Ruling 8: a (not c) owes it; c's effect draw has nothing pending (ruling 16).
    ev = [sh(ABC), sd(S2_CLUBS, "10C", S2_CLUBS_TOP), play("a", "9C"), play("b", "2C")]
    assert replay([*ev, draw("c", *S2_CLUBS_TOP, reason="effect")]) == ("wrong_draw_count", 4)


def test_serbian_two_of_clubs_first_play_hits_the_seat_before() -> None:
    # Ruling 8: "at the start of a round the seat before" (c, the dealer, before a).
    hands = {"a": ["2C", "3D", "KH"], "b": ["5C", "4H", "6S"], "c": ["3C", "4D", "5S"]}
    ev = [sh(ABC), sd(hands, "10C", S2_CLUBS_TOP), play("a", "2C"), play("b", "5C")]
    prefix_ok([*ev, draw("c", *S2_CLUBS_TOP, reason="effect"), play("c", "3C")])
    assert replay([*ev, play("c", "3C")]) == ("missed_penalty", 4)


def test_serbian_two_identical_twos_of_clubs_draw_eight() -> None:
    # RULES.md 11 "two of them together: 8".
    hands = {"a": ["9C", "3D", "KH"], "b": ["2C", "2C", "6S"], "c": ["3C", "4D", "5S"]}
    top = ["7S", "8S", "3H", "4S", "5H", "6H", "7D", "8D"]
    ev = [sh(ABC), sd(hands, "10C", top), play("a", "9C"), play("b", "2C", "2C")]
    assert replay([*ev, draw("a", *top[:4], reason="effect")]) == ("wrong_draw_count", 4)
    prefix_ok([*ev, draw("a", *top, reason="effect")])


def test_serbian_jump_in_on_the_starter_refused() -> None:
    # RULES.md 11 jump-in "Not on the starter card" (ruling 7).
    hands = {"a": ["9H", "3D", "KC"], "b": ["10H", "4D", "KS"]}
    assert replay([sh(), sd(hands, "10H"), jump("b", "10H")]) == ("wrong_player", 2)


def test_serbian_jump_in_after_a_draw_refused() -> None:
    # Ruling 7: "not after a draw or pass".
    hands = {"a": ["9H", "3D", "KC"], "b": ["4D", "5C", "KS"], "c": ["9H", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "10H", ["3S"]), play("a", "9H"), draw("b", "3S", reason="no_play")]
    assert replay([*ev, jump("c", "9H")]) == ("wrong_player", 4)


def test_serbian_jump_in_needs_an_identical_card() -> None:
    # RULES.md 11 "a card identical (same rank and suit)": 9D on 9H is no jump-in, so c
    # plays out of turn: wrong_player (PRESETS.md ruling 25: the flag is not judged)
    hands = {"a": ["9H", "3D", "KC"], "b": ["4D", "5C", "KS"], "c": ["9D", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "10H"), play("a", "9H"), jump("c", "9D")]
    assert replay(ev) == ("wrong_player", 3)


def test_serbian_jump_in_on_a_seven_adds_up() -> None:
    # Ruling 7: "A pending draw passes on and adds up ... Play continues from the jumper":
    # c jumps in on a's 7H; a (after c) owes 6.
    hands = {"a": ["7H", "3D", "KC"], "b": ["4D", "5C", "KS"], "c": ["7H", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "10H"), play("a", "7H"), jump("c", "7H")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 6)
    prefix_ok(ev)


SOUT = [
    sh(hand_size=2),
    sd({"a": ["8H", "9H"], "b": ["9H", "KD"]}, "10H", ["3C", "4C", "5C"]),
    play("a", "8H"),
    call("a", "last card"),
    play("a", "9H"),
]


def test_serbian_no_jump_in_after_mau_mau() -> None:
    # RULES.md 11 "No jump-in after mau-mau"; ruling 7 "not once the round is over".
    ev = [*SOUT, call("a", "mau-mau"), jump("b", "9H")]
    assert replay(ev) == ("play_after_round_end", 6)


def test_serbian_missing_mau_mau_caught_three_cards_round_goes_on() -> None:
    # RULES.md 11: missed call caught: 3 penalty cards; FORMAT.md: the round goes on.
    ev = [*SOUT, penalty("a", "b", "3C", "4C", "5C")]
    v = view_after(ev)
    assert (v["phase"], v["turn"], v["hands"]["a"]) == ("play", "b", ["3C", "4C", "5C"])
    prefix_ok(ev)


def test_serbian_missing_last_card_caught_three_cards() -> None:
    # RULES.md 11 "last card" when one card is left; 3 penalty cards.
    d = sd({"a": ["8H", "9H"], "b": ["9H", "KD"]}, "10H", ["3C", "4C", "5C"])
    ev = [sh(hand_size=2), d, play("a", "8H"), play("a", "9H")]
    # a went on and emptied the hand in the same turn: no last-card fault (ruling 9)
    assert replay([*ev, call("a", "mau-mau"), penalty("a", "b", "3C", "4C", "5C")]) == (
        "wrong_penalty",
        5,
    )
    hands = {"a": ["9S", "KH"], "b": ["9D", "KD"]}
    ev = [sh(hand_size=2), sd(hands, "10S", ["3C", "4C", "5C"]), play("a", "9S")]
    ev += [play("b", "9D"), call("b", "last card"), penalty("a", "b", "3C", "4C", "5C")]
    assert view_after(ev)["hands"]["a"] == ["KH", "3C", "4C", "5C"]
    prefix_ok(ev)
    bad = [*ev[:-1], penalty("a", "b", "3C")]
    assert replay(bad) == ("wrong_penalty", 5)


def test_serbian_starter_effect_false() -> None:
    # PRESETS serbian starter_effect false: a 7 starter makes nobody draw.
    hands = {"a": ["9H", "3D", "KC"], "b": ["10H", "4D", "KS"]}
    ev = [sh(), sd(hands, "7H")]
    assert (view_after(ev)["turn"], view_after(ev)["pending_draw"]) == ("a", 0)
    prefix_ok([*ev, play("a", "9H")])


def test_serbian_jack_wild_may_keep_the_suit() -> None:
    # RULES.md 11 "J: wild, names a suit (may keep the current one)".
    hands = {"a": ["JC", "3D", "KC"], "b": ["10H", "4D", "KS"]}
    ev = [sh(), sd(hands, "9H"), play("a", "JC"), suit("a", "H")]
    prefix_ok([*ev, play("b", "10H")])
    assert replay([*ev, play("b", "4D")]) == ("card_does_not_match", 4)


def test_serbian_default_hand_size_six() -> None:
    # PRESETS serbian hand_size 6.
    hands = {"a": ["9H", "3D", "KC"], "b": ["10H", "4D", "KS"]}
    assert replay([game("serbian", AB), sd(hands, "7H")]) == ("wrong_draw_count", 1)


def test_serbian_two_of_clubs_previous_is_the_last_actor_not_a_skipped_player() -> None:
    # Ruling 8: "the last other player who took a turn action": a's 8C skipped b, so c's
    # 2C hits a, not b (b took no action).
    hands = {"a": ["8C", "3D", "KH"], "b": ["4D", "5H", "6S"], "c": ["2C", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "10C", S2_CLUBS_TOP), play("a", "8C"), play("c", "2C")]
    # b owes nothing and it is a's turn: an out-of-turn draw (wrong_player; ruling 16's
    # wrong_draw_count is read as the code for the player whose turn it is, as below)
    assert replay([*ev, draw("b", *S2_CLUBS_TOP, reason="effect")]) == ("wrong_player", 4)
    ev.append(draw("a", *S2_CLUBS_TOP, reason="effect"))
    assert view_after(ev)["hands"]["a"] == ["3D", "KH", *S2_CLUBS_TOP]
    prefix_ok(ev)


def test_serbian_two_of_clubs_hits_a_player_who_drew_and_passed() -> None:
    # Ruling 8: a draw and a pass are turn actions: b drew and passed, c's 2C hits b.
    hands = {"a": ["9C", "3D", "KH"], "b": ["4D", "5H", "6S"], "c": ["2C", "4C", "5S"]}
    top = ["7S", "8S", "3H", "4S", "5D"]
    ev = [sh(ABC), sd(hands, "10C", top), play("a", "9C"), draw("b", "7S"), pass_("b")]
    ev += [play("c", "2C"), draw("b", *top[1:], reason="effect")]
    v = view_after(ev)
    assert (v["turn"], v["hands"]["b"]) == ("a", ["4D", "5H", "6S", *top])
    prefix_ok(ev)


def test_serbian_two_of_clubs_as_last_card_voids_the_draw() -> None:
    # Ruling 8: b goes out on 2C, which hits a (who drew and passed); "The end of the round
    # voids it". Scores: b -30; a 3D 3 + 7S 10 (a 7 is a power card) = 13.
    top = ["7S", "8S", "3H", "4S", "5D"]
    ev = [
        sh(hand_size=2),
        sd({"a": ["9C", "3D"], "b": ["4C", "2C"]}, "10C", top),
        play("a", "9C"),
        call("a", "last card"),
        play("b", "4C"),
        call("b", "last card"),
        draw("a", "7S"),
        pass_("a"),
        play("b", "2C"),
        call("b", "mau-mau"),
    ]
    hands = {"a": ["3D", "7S"], "b": []}
    valid([*ev, round_end("b", scores={"a": 13, "b": -30}, hands=hands)])
    assert replay([*ev, draw("a", *top[1:], reason="effect")]) == ("play_after_round_end", 10)


def test_serbian_queen_two_players_back_to_the_queen_player() -> None:
    # Ruling 3 with two players: b draws 2, loses the turn; a plays next.
    hands = {"a": ["QH", "9H", "KC"], "b": ["6H", "4D", "KS"]}
    ev = [
        sh(),
        sd(hands, "6H", ["3D", "3S"]),
        play("a", "QH"),
        draw("b", "3D", "3S", reason="effect"),
    ]
    assert view_after(ev)["turn"] == "a"
    prefix_ok([*ev, play("a", "9H")])


def test_serbian_identical_queen_jumped_in_adds_up() -> None:
    # Ruling 7: a pending draw passes on and adds up: c jumps in on a's QH; a owes 4.
    hands = {"a": ["QH", "9H", "KC"], "b": ["6H", "4D", "KS"], "c": ["QH", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "6H"), play("a", "QH"), jump("c", "QH")]
    v = view_after(ev)
    assert (v["turn"], v["pending_draw"]) == ("a", 4)
    prefix_ok(ev)


def test_online_jack_last_card_the_word_is_mau() -> None:
    # PRESETS online: call_last_wild unset, so ruling 9's word is call_last_card ("mau").
    d = dl("online", {"a": ["9H", "JC"], "b": ["9S", "QD"]}, "10H", ["7C"])
    ev = [hdr("online", hand_size=2), d, play("a", "9H"), call("a", "mau"), play("b", "9S")]
    ev.append(call("b", "mau"))
    assert replay([*ev, penalty("a", "b", "7C", reason="wrong_call")]) == ("wrong_penalty", 6)


def test_prsi_queen_on_an_ace_whose_skip_was_taken() -> None:
    # RULES.md 4: the Q is barred only on an *active* Ace; once b missed the turn the Ace
    # is spent and c may play the Q on it.
    hands = {"a": ["AH", "9D", "KC"], "b": ["10D", "8D", "KS"], "c": ["QC", "10C", "10S"]}
    ev = [hdr("prsi", ABC), dl("prsi", hands, "9H"), play("a", "AH"), play("c", "QC")]
    ev.append(suit("c", "D"))
    assert (view_after(ev)["turn"], view_after(ev)["suit"]) == ("a", "D")
    prefix_ok([*ev, play("a", "9D")])


def test_pesten_eight_on_pending_two_refused() -> None:
    # draw_answer any_draw_card: only 2s and Jokers answer; an 8 does not.
    hands = {"a": ["2H", "9C", "KC"], "b": ["8H", "QD", "KS"]}
    ev = [hdr("pesten"), dl("pesten", hands, "9H"), play("a", "2H"), play("b", "8H")]
    assert replay(ev) == ("missed_penalty", 3)


# ====================================================================== faraon match (RULES 8)


def fgame(rnd: int, dealer: str) -> Ev:
    return game("faraon", AB, dealer=dealer, options={"hand_size": 2}, match_id="m", round=rnd)


FR1 = [
    fgame(1, "b"),
    dl("faraon", {"a": ["AH", "9H"], "b": ["KD", "QD"]}, "10H"),
    play("a", "AH"),
    play("a", "9H"),
    round_end("a", hands={"a": [], "b": ["KD", "QD"]}),
]


def fr2(first: str = "a", b_hand: tuple[str, ...] = ("KC",)) -> list[Ev]:
    # Round 2: the next seat (a) deals; a won round 1 and starts (previous_winner).
    ev = [fgame(2, "a"), dl("faraon", {"a": ["AD", "9D"], "b": list(b_hand)}, "10D")]
    if first == "a":
        ev += [play("a", "AD"), play("a", "9D")]
        ev.append(round_end("a", hands={"a": [], "b": list(b_hand)}))
    else:
        ev.append(play("b", b_hand[0]))
    return ev


def test_faraon_loser_shrinks_and_is_out_after_losing_with_one_card() -> None:
    # RULES.md 8: the loser starts later rounds with one card fewer; after losing with one
    # card the player is out (match over, one player left); the winner plays first.
    ev = [*FR1, *fr2(), match_end({"a": 0, "b": 0}, "a")]
    assert replay_games(ev) == [None, None]


def test_faraon_loser_dealt_the_full_hand_again_is_wrong_count() -> None:
    # PRESETS faraon loser_hand_shrink: b is due 1 card in round 2, not 2.
    ev = [*FR1, *fr2(b_hand=("KC", "8C")), match_end({"a": 0, "b": 0}, "a")]
    assert replay_games(ev) == [None, ("wrong_draw_count", 1)]


def test_faraon_previous_winner_starts_the_next_round() -> None:
    # RULES.md 8 "The winner of a round plays first in the next": b (left of dealer a) may
    # not start. PRESETS.md ruling 23: the wrong first player of a match round is
    # wrong_starter (was wrong_player before ruling 23).
    ev = [*FR1, *fr2(first="b", b_hand=("10C",))]
    assert replay_games(ev)[1] == ("wrong_starter", 2)


def test_serbian_no_jump_in_while_a_cover_is_owed() -> None:
    # Ruling 5: "No jump-in while a cover or a play-again is owed".
    hands = {"a": ["AH", "9H", "KC"], "b": ["AH", "4D", "KS"]}
    ev = [sh(), sd(hands, "10H"), play("a", "AH"), jump("b", "AH")]
    assert replay(ev) == ("wrong_player", 3)


def test_serbian_jump_in_on_the_cover_card_after_the_ace() -> None:
    # Ruling 7: once a covered the Ace, the covering 9H is the last play; b holds 9H too.
    hands = {"a": ["AH", "9H", "KC"], "b": ["9H", "4D", "KS"], "c": ["5C", "4C", "5S"]}
    ev = [sh(ABC), sd(hands, "10H"), play("a", "AH"), play("a", "9H"), jump("b", "9H")]
    assert view_after(ev)["turn"] == "c"
    prefix_ok(ev)
