"""The replay driver reads a play's and a draw's fields in one call, by position
(``msgspec.structs.astuple``), and hands them to the engine (``Engine.apply_play``,
``Engine.apply_draw``); it numbers the lines of each run itself (``Replayer.replay_runs``).
Both must replay as the checked path does: ``Engine.apply`` on each decoded event, with the
``seq`` rule of FORMAT.md Files and ``round_end`` closing every game. Simulated games of
every preset, broken at random (lines dropped, repeated or swapped, another player, a
``seq``, a negative count) and cut into random runs, give the same violation (index, code,
message, expected), the same event count and the same engine state."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import FINISHED, Engine, RuleViolation, state
from maumau_log.events import Draw, Event, Game, Play, decode_event, encode_event
from maumau_log.replay.driver import FIELD_ORDER, Replayer
from maumau_log.rules import PRESET_NAMES, resolve

PRESETS = [p for p in PRESET_NAMES if not resolve(p).unsupported()]


def test_the_field_order_read_by_position_is_the_structs() -> None:
    assert FIELD_ORDER[Play] == Play.__struct_fields__
    assert FIELD_ORDER[Draw] == Draw.__struct_fields__
    play = Play(player="ana", cards=["7H", "7C"], jump_in=True, t=5, seq=3)
    assert msgspec.structs.astuple(play) == ("ana", ["7H", "7C"], True, 5, 3)
    draw = Draw(player="ben", cards=["9D"], count=1, reason="no_play", t="x", seq=7)
    assert msgspec.structs.astuple(draw) == ("ben", ["9D"], 1, "no_play", "x", 7)


def _state(engine: Engine | None) -> dict[str, object] | None:
    if engine is None:
        return None
    return {name: getattr(engine, name) for name in state._COPIED}


def _checked(events: list[Event]) -> tuple[tuple[Any, ...] | None, Engine]:
    """The first violation (index, code, message, expected) of one game replayed by
    ``Engine.apply`` event by event, and the engine."""
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    for index, ev in enumerate(events[1:], 1):
        if ev.seq is not None and ev.seq != index:
            return (index, "bad_seq"), engine
        try:
            engine.apply(ev)
        except RuleViolation as rv:
            return (index, rv.code, rv.message, rv.expected), engine
    if engine.phase != FINISHED:
        return (len(events), "round_not_finished"), engine
    return None, engine


def _broken(events: list[Event], ops: list[tuple[str, int, int]]) -> list[Event]:
    """``events`` (one game, header first) with each operation applied to an event after
    the header: dropped, repeated, swapped with the next, played or drawn by another
    player, given a ``seq``, or a draw given a negative count."""
    out = list(events)
    for op, at, value in ops:
        if len(out) < 3:
            break
        i = 1 + at % (len(out) - 1)
        ev = out[i]
        if op == "drop":
            del out[i]
        elif op == "repeat":
            out.insert(i, ev)
        elif op == "swap" and i + 1 < len(out):
            out[i], out[i + 1] = out[i + 1], out[i]
        elif op == "player" and isinstance(ev, Play | Draw):
            header = out[0]
            assert isinstance(header, Game)
            who = header.players[value % len(header.players)]
            out[i] = msgspec.structs.replace(ev, player=who)
        elif op == "seq":
            out[i] = msgspec.structs.replace(ev, seq=i + value % 3 - 1)
        elif op == "count" and isinstance(ev, Draw):
            out[i] = msgspec.structs.replace(ev, count=-1 - value % 2, cards=None)
    return out


OPS = st.lists(
    st.tuples(
        st.sampled_from(["drop", "repeat", "swap", "player", "seq", "count"]),
        st.integers(0, 400),
        st.integers(0, 9),
    ),
    max_size=3,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10_000),
    ops=st.lists(OPS, min_size=1, max_size=2),
    cuts=st.lists(st.integers(1, 40), max_size=12),
)
def test_driver_replays_broken_games_as_engine_apply(
    preset: str, seed: int, ops: list[list[tuple[str, int, int]]], cuts: list[int]
) -> None:
    games = [_broken(g, o) for g, o in zip(simulate(preset, 3, len(ops), seed), ops, strict=False)]
    lines = [encode_event(ev) for g in games for ev in g]
    runs: list[tuple[int, list[bytes]]] = []
    pos = 0
    for size in [*cuts, len(lines)]:
        if pos < len(lines):
            runs.append((pos + 1, lines[pos : pos + size]))
            pos += size
    reports = list(Replayer().replay_runs("<memory>", runs))
    assert len(reports) == len(games)
    for report, game in zip(reports, games, strict=True):
        events = [decode_event(encode_event(ev)) for ev in game]
        want, engine = _checked(events)
        v = report.violation
        got = None if v is None else (v.event_index, v.code, v.message, v.expected)
        if want is not None and len(want) == 2:  # the driver's own checks: code and place
            assert got is not None and got[:2] == want
        else:
            assert got == want
        assert report.events == len(game)
        assert _state(report.engine) == _state(engine)


@pytest.mark.parametrize("preset", PRESETS[:3])
def test_lines_of_runs_are_numbered_from_each_runs_first_line(preset: str) -> None:
    """Two runs with three blank lines between them: the second run's lines count on from
    its own first number, as ``replay_lines`` numbers the same lines given one by one."""
    games = list(simulate(preset, 3, 2, 11))
    lines = [encode_event(ev) for g in games for ev in g]
    first = len(games[0]) + 2  # the first run ends two lines into the second game
    runs = [(1, lines[:first]), (first + 4, lines[first:])]
    number = {i: (i + 1 if i < first else i + 4) for i in range(len(lines))}
    many = list(Replayer().replay_runs("<memory>", runs))
    one = list(
        Replayer().replay_lines("<memory>", [(number[i], raw) for i, raw in enumerate(lines)])
    )
    second = len(games[0])
    assert [(r.line, r.last_line, r.events) for r in many] == [
        (1, second, len(games[0])),
        (second + 1 + (4 if second >= first else 0), len(lines) + 3, len(games[1])),
    ]
    assert [(r.line, r.last_line, r.events, r.valid) for r in many] == [
        (r.line, r.last_line, r.events, r.valid) for r in one
    ]
