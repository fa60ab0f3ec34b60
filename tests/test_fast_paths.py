"""Fast paths and one-source shortcuts give what the general path gives: the match
arithmetic named by ``scoring.matches`` is the compiled ``scoring.rounds``'s, a played card
leaves the hand at its first place, a plain play moves the turn from the player's own seat,
and ``GameReport``'s written-out ``__init__`` equals the dataclass one."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, legality
from maumau_log.events import Game, Play
from maumau_log.replay.report import GameReport
from maumau_log.rules import PRESET_NAMES, UNSUPPORTED_PRESETS, resolve
from maumau_log.scoring import matches
from maumau_log.scoring import rounds as scoring


def test_matches_names_the_scoring_functions() -> None:
    # one source: the match arithmetic is scoring's, named by matches as before
    assert matches.add_scores is scoring.add_scores
    assert matches.is_over is scoring.is_over
    assert matches.match_winner is scoring.match_winner
    assert matches.HIGH_WINS == ("winner_collects", "hand_penalty")


@pytest.mark.parametrize("options", [None, {"packs": 2}])
def test_a_played_card_leaves_the_hand_at_its_first_place(options: dict | None) -> None:
    """The usual play finds the card once and removes it there: after
    every one-card play the hand is the hand before without the card's first copy (two
    packs: hands with two copies), as ``list.remove`` gives."""
    plays = 0
    for game in simulate("classic", 3, 6, 31, options=options):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        for ev in game[1:]:
            if isinstance(ev, Play) and len(ev.cards) == 1 and ev.player in engine.hands:
                want = list(engine.hands[ev.player])
                want.remove(ev.cards[0])
                engine.apply(ev)
                assert engine.hands[ev.player] == want
                plays += 1
            else:
                engine.apply(ev)
    assert plays > 50


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["7H", "8H", "JC", "QS", "AD", "10D", "??"]), max_size=8),
    st.frozensets(st.sampled_from(["7H", "8H", "JC", "QS", "AD", "10D", "9S"])),
)
def test_any_in_is_not_disjoint(hand: list[str], cards: frozenset[str]) -> None:
    """The draw check's typed loop answers as ``not cards.isdisjoint(hand)``."""
    assert legality._any_in(hand, cards) == (not cards.isdisjoint(hand))


_PRESETS = [p for p in PRESET_NAMES if p not in UNSUPPORTED_PRESETS]


@pytest.mark.parametrize("preset", _PRESETS)
@pytest.mark.parametrize("players", [2, 4])
def test_a_plain_play_moves_the_turn_from_the_players_own_seat(preset: str, players: int) -> None:
    """``lay_down`` takes the seat of the player to move without a look-up by name, and
    the hand the fast path found: after every one-card play of a
    plain card (jump-ins included) the turn moved from ``seat[player]`` by the card's
    steps, and the hand lost the card's first copy, as ``list.remove`` gives."""
    checked = 0
    jumps = 0
    for game in simulate(preset, players, 4, 9):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        for ev in game[1:]:
            plain = (
                isinstance(ev, Play)
                and len(ev.cards) == 1
                and ev.player in engine.seat
                and ev.cards[0] in engine.info
                and engine.info[ev.cards[0]].plain
                and engine.phase == "play"
            )
            if not plain:
                engine.apply(ev)
                continue
            assert isinstance(ev, Play)
            jumps += engine.players[engine.current] != ev.player
            want = list(engine.hands[ev.player])
            want.remove(ev.cards[0])
            engine.apply(ev)
            assert engine.hands[ev.player] == want
            if engine.phase != "play" or engine.pending_skip or engine.cover_owed is not None:
                continue
            info = engine.info[ev.cards[0]]
            steps = 2 if engine.just_skipped else 1
            if info.reverse and engine.reverse_skips:
                steps = 0
            seat = engine.seat[ev.player]
            assert engine.current == (seat + steps * engine.direction) % engine.n
            checked += 1
    assert checked > 20
    if players == 4 and preset in ("prsi", "russian", "serbian"):
        assert jumps > 0  # plays by a player not to move (jump-ins) are among them


def test_game_report_init_is_the_dataclass_one() -> None:
    """``GameReport``'s written-out ``__init__`` (compiled: a C function) takes the fields
    in their order with the dataclass's defaults, and new containers per report."""
    names = [f.name for f in dataclasses.fields(GameReport)]
    assert names == [
        "file", "line", "game_id", "header", "rules", "events", "last_line", "violation",
        "engine", "extra", "violation_raw", "lines",
    ]  # fmt: skip
    a = GameReport("f.jsonl", 3, "g1")
    b = GameReport(file="f.jsonl", line=3, game_id="g1")
    assert a == b and a.extra == {} and a.lines == []
    assert a.extra is not b.extra and a.lines is not b.lines
    assert (a.header, a.rules, a.events, a.last_line, a.violation, a.engine) == (
        None, None, 0, 0, None, None,
    )  # fmt: skip
    assert a.violation_raw is None and a.valid
    full = GameReport("f", 1, None, None, None, 5, 9, None, None, {"k": 1}, b"x", [b"l"])
    assert (full.events, full.last_line, full.extra, full.violation_raw, full.lines) == (
        5, 9, {"k": 1}, b"x", [b"l"],
    )  # fmt: skip
    assert "game_id='g1'" in repr(a)
