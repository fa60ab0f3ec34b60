"""Session 9's speed changes keep the behaviour: the fair shuffle's one-search
fast path (``shuffle._permute``) against the algorithm word by word; a play's seat and hand
in ``plays.lay_down`` against the look-ups by name."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import struct

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shuffle import _reference_shuffle

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, shuffle
from maumau_log.events import Game, Play, RoundEnd
from maumau_log.replay.report import GameReport
from maumau_log.rules import PRESET_NAMES, UNSUPPORTED_PRESETS, resolve

_TWO64 = 2**64


def _fisher_yates(cards: list[str], words: list[int]) -> list[str] | None:
    """Steps 3-4 over ``words`` as written, or None when a word is rejected (the stream
    would go on past these words)."""
    out = list(cards)
    for pos, i in enumerate(range(len(out) - 1, 0, -1)):
        n = i + 1
        if words[pos] >= _TWO64 - (_TWO64 % n):
            return None
        j = words[pos] % n
        out[i], out[j] = out[j], out[i]
    return out


# words of every kind: anywhere, at the top of the range (rejected for some n), just
# below the lowest rejection limit of n <= 1024, and with 0xFF bytes that do not start it
_WORD = st.one_of(
    st.integers(0, _TWO64 - 1),
    st.integers(_TWO64 - 1100, _TWO64 - 1),
    st.integers(_TWO64 - 2**16, _TWO64 - 1025),
    st.integers(0, 2**16).map(lambda k: (0xFFFFFFFFFFFF << 8) | (k & 0xFF)),
    st.integers(0, 2**40 - 1).map(lambda k: (k << 24) | 0xFFFFFF),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, min_size=4, max_size=16), st.integers(2, 64))
def test_permute_is_the_algorithm_or_declines(words: list[int], size: int) -> None:
    blocks = len(words) // 4
    words = words[: 4 * blocks]
    data = struct.pack(f">{len(words)}Q", *words)
    cards = [f"c{i}" for i in range(size)]
    out = list(cards)
    done = shuffle._permute(out, data)
    if not done:
        # declined: the hand is untouched, and only for a stream too short or one that
        # holds six 0xFF bytes in a row (a word from 2**64 - 1024 up begins so)
        assert out == cards
        assert len(words) < size - 1 or b"\xff" * 6 in data
        return
    assert len(words) >= size - 1
    assert out == _fisher_yates(cards, words)


def test_permute_declines_every_word_that_a_limit_may_reject() -> None:
    # the words a rejection limit of some n <= 1024 can reject are 2**64 - 1023 and up
    for word in (_TWO64 - 1024, _TWO64 - 1023, _TWO64 - 2, _TWO64 - 1):
        data = struct.pack(">4Q", 5, word, 7, 9)
        out = ["a", "b", "c", "d", "e"]
        assert not shuffle._permute(out, data)
        assert out == ["a", "b", "c", "d", "e"]
    # a word with five 0xFF bytes first is accepted and used as it is
    data = struct.pack(">4Q", 0xFFFFFFFFFF000000, 1, 2, 3)
    out = ["a", "b", "c", "d", "e"]
    assert shuffle._permute(out, data)
    assert out == _fisher_yates(["a", "b", "c", "d", "e"], [0xFFFFFFFFFF000000, 1, 2, 3])


def test_permute_declines_more_than_1024_cards_and_short_streams() -> None:
    cards = [f"c{i}" for i in range(1025)]
    data = bytes(32 * 257)
    assert not shuffle._permute(list(cards), data)
    assert not shuffle._permute(["a", "b", "c", "d", "e", "f"], bytes(32))  # 5 words due


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.integers(2, 120))
def test_shuffled_is_the_reference_for_any_seed(seed: str, size: int) -> None:
    cards = [f"c{i}" for i in range(size)]
    assert shuffle.shuffled(cards, seed) == _reference_shuffle(cards, seed)


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


def test_turn_counters_start_at_zero_and_apart() -> None:
    """``turns`` (by player, from ``turn_count`` by seat) and ``skipped`` start at 0 for
    every player; ``turns`` is a new dict each time."""
    header = Game(format="maumau-log/1", game_id="g", ruleset="standard", players=["a", "b", "c"])
    e = Engine(resolve("standard"), header)
    assert e.turns == {"a": 0, "b": 0, "c": 0} == e.skipped
    assert e.turn_count == [0, 0, 0]
    assert list(e.turns) == ["a", "b", "c"]
    e.turns["a"] += 1  # a copy: the engine's count is unchanged
    assert e.turns["a"] == 0 and e.skipped["a"] == 0
    e.turn_count[1] += 2
    assert e.turns == {"a": 0, "b": 2, "c": 0}


@pytest.mark.parametrize("preset", _PRESETS)
def test_turns_by_seat_count_every_turn_begun(preset: str) -> None:
    """``turn_count`` (by seat) counts what the dict by player counted: the turns begun,
    less a winning card's phantom turn, plus a jump-in's turn (rulings 6-10). Counted here
    from the outside: each turn begins when the player to move changes or the same player
    starts anew, so the sum of turns is at least the turn changes seen."""
    for game in simulate(preset, 3, 4, 21):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        changes = 0
        before = None
        for ev in game[1:]:
            engine.apply(ev)
            now = engine.current if engine.phase == "play" else None
            if now is not None and now != before:
                changes += 1
            before = now
            assert engine.turns == dict(zip(engine.players, engine.turn_count, strict=True))
            assert all(k >= 0 for k in engine.turn_count)
        assert sum(engine.turn_count) >= changes - 1
        twin = copy.deepcopy(engine)
        assert twin.turn_count == engine.turn_count and twin.turn_count is not engine.turn_count
        assert pickle.loads(pickle.dumps(engine)).turns == engine.turns


@pytest.mark.parametrize("order", ["as replayed", "reversed"])
def test_round_end_hands_in_the_replayed_order_or_another(order: str) -> None:
    """``round_end.hands`` equal to the replayed hands (no sort) or in another order are
    accepted alike; the round's outcome is the same."""
    for game in simulate("classic", 3, 3, 5):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        for ev in game[1:-1]:
            engine.apply(ev)
        end = game[-1]
        assert isinstance(end, RoundEnd)
        hands = {p: list(h) for p, h in engine.hands.items()}
        if order == "reversed":
            hands = {p: h[::-1] for p, h in hands.items()}
        engine.apply(msgspec.structs.replace(end, hands=hands))
        assert engine.phase == "finished"
