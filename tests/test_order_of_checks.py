"""Which code an event gets when it breaks several rules (PRESETS.md ruling 25), and the
cases of ruling 22 (a player who owes a draw and does something else).

Ruling 25's order: (1) the event's shape; (2) a suit still to be named; (3) who may act;
(4) for a play, the cards' presence in the hand; (5) what the player owes first (a
``draw_previous`` draw, a pending draw, a cover); (6) whether a draw or pass is allowed;
(7) whether the cards may go on the discard pile (``multi_play`` included). Labels are not
judged: the ``jump_in`` flag neither makes nor unmakes a jump-in. Every case is a small
hand-built game with the exact code and event index (header = 0).
"""

from __future__ import annotations

from typing import Any

from gamebuilder import Ev, deal, draw, engine_after, game, pass_, play, replay, report

# -- (4) before (7): a several-card play holding a card the player does not have ---------

TWO = {"a": ["9H", "KD", "8C", "10S", "QH"], "b": ["9S", "10C", "KS", "QD", "8D"]}


def _two(options: dict[str, Any] | None = None) -> list[Ev]:
    return [game("standard", options=options), deal(TWO, "10H")]


def test_a_card_not_held_in_a_multi_play_is_card_not_in_hand_before_multi_play() -> None:
    # multi_play = "none" (standard): two cards at once break it, but 9D is not a's card
    assert replay([*_two(), play("a", "9H", "9D")]) == ("card_not_in_hand", 2)
    # held cards that break multi_play keep their code
    assert replay([*_two(), play("a", "9H", "KD")]) == ("card_does_not_match", 2)


def test_a_card_not_held_among_cards_of_two_ranks_is_card_not_in_hand() -> None:
    opts = {"multi_play": "same_rank"}
    assert replay([*_two(opts), play("a", "9H", "JH")]) == ("card_not_in_hand", 2)
    assert replay([*_two(opts), play("a", "9H", "QH")]) == ("card_does_not_match", 2)


# -- rulings 22 and 25 with a draw_previous draw owed -------------------------------------

PREV = {
    "a": ["9C", "KD", "8S", "10S", "QH"],
    "b": ["9H", "10H", "KS", "QD", "8D"],
    "c": ["9D", "KC", "QS", "10D", "KH"],
}
PREV_OPTS = {"draw_previous": {"9C": 1}, "call_last_card": None}


def _prev() -> list[Ev]:
    # a plays 9C: c, the seat before the first player, owes one card (ruling 8); b to move
    return [
        game("standard", ("a", "b", "c"), options=PREV_OPTS),
        deal(PREV, "10C", ["7H", "7S"]),
        play("a", "9C"),
    ]


def test_the_owed_draw_is_set_up() -> None:
    engine = engine_after(_prev())
    assert engine.prev_owed == {"c": 1} and engine.current_player == "b"


def test_owing_a_draw_previous_draw_and_playing_out_of_turn_is_wrong_player() -> None:
    got = report([*_prev(), play("c", "9D")]).violation
    assert got is not None
    assert (got.code, got.event_index) == ("wrong_player", 3)
    assert got.message == "c plays 9D but it is b's turn"


def test_owing_a_draw_previous_draw_and_passing_out_of_turn_is_wrong_player() -> None:
    assert replay([*_prev(), pass_("c")]) == ("wrong_player", 3)


def test_owing_a_draw_previous_draw_and_drawing_for_another_reason_is_missed_penalty() -> None:
    # out of turn: the debtor may draw (ruling 25 (3)), and owes the effect draw (5)
    assert replay([*_prev(), draw("c", "7H")]) == ("missed_penalty", 3)
    # in turn (b played): the same
    assert replay([*_prev(), play("b", "9H"), draw("c", "7H")]) == ("missed_penalty", 4)


def test_owing_a_draw_previous_draw_the_own_turn_checks_presence_first() -> None:
    after_b = [*_prev(), play("b", "9H")]
    assert engine_after(after_b).current_player == "c"
    # a card c does not hold: card_not_in_hand (presence before what is owed)
    assert replay([*after_b, play("c", "9S")]) == ("card_not_in_hand", 4)
    # a held card: the owed draw comes first (ruling 22)
    got = report([*after_b, play("c", "9D")]).violation
    assert got is not None
    assert (got.code, got.event_index) == ("missed_penalty", 4)
    assert got.message == "c plays 9D but first owes an effect draw of 1"
    # a pass in turn: the same
    assert replay([*after_b, pass_("c")]) == ("missed_penalty", 4)
    # out of turn with a card not held: who may act comes first
    assert replay([*_prev(), play("c", "9S")]) == ("wrong_player", 3)


def test_the_owed_draw_then_the_turn_goes_on() -> None:
    engine = engine_after([*_prev(), draw("c", "7H", reason="effect"), play("b", "9H")])
    assert engine.prev_owed == {} and engine.current_player == "c"


# -- the jump_in flag is a label (ruling 25; ruling 7) ------------------------------------

SERB_A = ["9H", "5C", "6C", "KD", "4S", "3S"]
SERB_B = ["9S", "5D", "6D", "KS", "4D", "3D"]
SERB_C = ["9H", "5H", "6H", "KH", "4H", "3H"]


def _serbian() -> list[Ev]:
    hands = {"a": SERB_A, "b": SERB_B, "c": SERB_C}
    return [
        game("serbian", ("a", "b", "c"), options={"call_last_card": None}),
        deal(hands, "9D", preset="serbian"),
        play("a", "9H"),
    ]


def jump(player: str, *cards: str) -> Ev:
    return {**play(player, *cards), "jump_in": True}


def test_a_flagged_play_of_cards_not_identical_to_the_top_is_wrong_player() -> None:
    got = report([*_serbian(), jump("c", "5H")]).violation
    assert got is not None
    assert (got.code, got.event_index) == ("wrong_player", 3)
    assert got.message == (
        "c plays 5H but it is b's turn (no jump-in: 5H is not identical to the top card 9H)"
    )


def test_an_unflagged_play_of_identical_cards_out_of_turn_is_a_jump_in() -> None:
    engine = engine_after([*_serbian(), play("c", "9H")])
    assert engine.current_player == "a" and engine.discard[-1] == "9H"


def test_a_flagged_play_by_the_player_to_move_is_an_ordinary_play() -> None:
    # 9S on 9H: not identical, so no jump-in; as b's ordinary play it matches the rank
    engine = engine_after([*_serbian(), jump("b", "9S")])
    assert engine.current_player == "c" and engine.turns["b"] == 1
    # and a card that does not match is judged as an ordinary play
    assert replay([*_serbian(), jump("b", "5D")]) == ("card_does_not_match", 3)


def test_a_flagged_play_without_jump_in_in_the_ruleset_is_an_ordinary_play() -> None:
    engine = engine_after([*_two(), jump("a", "9H")])
    assert engine.current_player == "b" and engine.discard[-1] == "9H"
    got = report([*_two(), jump("b", "9S")]).violation
    assert got is not None
    assert (got.code, got.event_index) == ("wrong_player", 2)


# -- (5) a pending draw partly served: a pass is missed_penalty (ruling 22) ---------------

SMALL = ("7", "9", "K")
SPLIT = {"a": ["7C", "9D", "KD", "7S", "KH"], "b": ["9H", "9S", "KS", "7D", "KC"]}


def _split() -> list[Ev]:
    # 12 cards: 10 dealt, the starter, one in the stock; a's 7C owes b two, b draws the
    # one card the stock holds: one is still owed, after a reshuffle of the 7C's pile
    opts = {"ranks": list(SMALL), "call_last_card": None}
    return [
        game("standard", options=opts),
        deal(SPLIT, "9C", ["7H"], SMALL),
        play("a", "7C"),
        draw("b", "7H", reason="effect"),
    ]


def test_the_split_draw_is_set_up() -> None:
    engine = engine_after(_split())
    assert (engine.pending_draw, engine.stock, engine.current_player) == (1, [], "b")


def test_a_pass_owing_the_rest_of_a_split_pending_draw_is_missed_penalty() -> None:
    got = report([*_split(), pass_("b")]).violation
    assert got is not None
    assert (got.code, got.event_index) == ("missed_penalty", 4)
    assert got.message == "b passes instead of drawing the pending 1"


def test_a_play_owing_the_rest_of_a_split_pending_draw_is_missed_penalty() -> None:
    assert replay([*_split(), play("b", "9H")]) == ("missed_penalty", 4)
