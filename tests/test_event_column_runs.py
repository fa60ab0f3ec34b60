"""The run-length event columns against their values read on every event.

The suit to follow, the pending draw, the pending skip and the direction change on few
events, so the collector stages them as runs (a value where it changes, and on a game's
first row) and the commit expands them into one value per row
(:data:`maumau_log.store.rows.RUN_COLUMNS`). Checked here: the expansion against the rows
written out one by one, and the collector's columns against the engine's state read after
every event by a plain visitor, over simulated games of every preset (the reverse and skip
cards of some presets change the direction and the pending skip), with a duplicate game
and a flush between games.
"""

from __future__ import annotations

from array import array
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import encode_event
from maumau_log.replay.driver import GameReport, Replayer
from maumau_log.rules import PRESET_NAMES
from maumau_log.store.collector import RecordCollector
from maumau_log.store.rows import RUN_COLUMNS, _decode_runs, _EventColumns, _Intern

AT = datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def runs(draw: Any) -> tuple[list[int], list[int], int]:
    lengths = draw(st.lists(st.integers(1, 5), max_size=8))
    values = draw(st.lists(st.integers(-(2**31), 2**31 - 1), min_size=len(lengths),
                           max_size=len(lengths)))  # fmt: skip
    starts = [sum(lengths[:i]) for i in range(len(lengths))]
    return starts, values, sum(lengths)


@settings(max_examples=200, deadline=None)
@given(runs())
def test_runs_expand_to_one_value_per_row(drawn):
    starts, values, n = drawn
    expected = []
    for i, value in enumerate(values):
        end = starts[i + 1] if i + 1 < len(starts) else n
        expected += [value] * (end - starts[i])
    got = _decode_runs(array("q", starts), array("i", values), n, pa.int32())
    assert got.type == pa.int32()
    assert got.to_pylist() == expected and len(got) == n


def _staged_game(cols: _EventColumns, rows: int, runs: dict[str, list[tuple[int, int]]]) -> None:
    for i in range(rows):
        cols.index.append(i)
        cols.line.append(i + 1)
        for name in ("type", "player", "suit", "reason", "top", "turn"):
            getattr(cols, name).append(-1)
        cols.n_cards.append(-1)
        cols.n_hands.append(0)
        cols.raw.append(b"{}")
    for name in RUN_COLUMNS:
        for at, value in runs.get(name, [(0, -1 if name == "suit_to_follow" else 0)]):
            getattr(cols, f"{name}_at").append(cols.rows + at)
            getattr(cols, name).append(value)


def test_a_game_without_a_run_on_its_first_row_is_refused():
    cols = _EventColumns(_Intern())
    _staged_game(cols, 2, {"direction": [(1, 1)]})
    with pytest.raises(ValueError, match="first row"):
        cols.commit("g0")
    cols.truncate(0)
    _staged_game(cols, 2, {"direction": [(0, 1), (1, -1)]})
    cols.commit("g0")
    assert cols.table().column("direction").to_pylist() == [1, -1]


def test_a_run_too_wide_for_its_column_commits_nothing_of_its_game():
    cols = _EventColumns(_Intern())
    _staged_game(cols, 1, {})
    cols.commit("g0")
    _staged_game(cols, 3, {"direction": [(0, 1), (2, 128)]})  # 8-bit
    with pytest.raises(OverflowError):
        cols.commit("g1")
    assert [len(arr) for arr in cols.run_starts.values()] == [1, 1, 1, 1]
    cols.truncate(1)  # the runs from the game's row 1 on are dropped
    cols.commit("g1")
    table = cols.table()
    assert table.column("direction").to_pylist() == [0, 1]
    assert table.column("game_id").to_pylist() == ["g0", "g1"]


class StateReader:
    """The plain path: the engine's state after every accepted event, one row each."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []

    def begin_game(self, report: GameReport) -> None:
        if report.header is not None:
            self.rows.append((None, 0, 0, 1))

    def event(self, report: GameReport, index: int, line: int, event: Any, raw: bytes) -> None:
        e = report.engine
        assert e is not None
        self.rows.append((e.suit_to_follow, e.pending_draw, e.pending_skip, e.direction))

    def end_game(self, report: GameReport) -> None:
        pass


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**16),
    games=st.integers(1, 4),
)
def test_run_length_columns_equal_the_engine_state_after_every_event(preset, players, seed, games):
    played = list(simulate(preset, players, games, seed))
    lines = [encode_event(ev) for events in played for ev in events]
    # the first game again: a duplicate, whose staged runs are dropped
    lines += [encode_event(ev) for ev in played[0]]
    collector = RecordCollector(ingested_at=AT)
    reader = StateReader()
    for _ in Replayer(visitors=[collector, reader]).replay_lines(
        "<sim>", ((i + 1, raw) for i, raw in enumerate(lines))
    ):
        pass
    assert collector.duplicates == 1
    (tables,) = collector.tables().values()
    events = tables["events"]
    got = list(
        zip(
            *(events.column(name).to_pylist()
              for name in ("suit_to_follow", "pending_draw", "pending_skip", "direction")),
            strict=True,
        )
    )  # fmt: skip
    stored = len(got)
    assert got == reader.rows[:stored]
    assert stored == len(reader.rows) - (len(lines) - sum(len(g) for g in played))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(sorted(PRESET_NAMES)), seed=st.integers(0, 2**16))
def test_run_length_columns_are_the_same_with_a_flush_between_games(preset, seed):
    lines = [encode_event(ev) for events in simulate(preset, 3, 3, seed) for ev in events]

    class Keep:
        def __init__(self) -> None:
            self.parts: list[Any] = []

        def write(self, ruleset: str, date: str, tables: Any) -> None:
            self.parts.append(tables["events"])

    def columns(batch_events: int) -> list[Any]:
        writer = Keep()
        collector = RecordCollector(writer, ingested_at=AT, batch_events=batch_events)  # type: ignore[arg-type]
        for _ in Replayer(visitors=[collector]).replay_lines(
            "<sim>", ((i + 1, raw) for i, raw in enumerate(lines))
        ):
            pass
        collector.flush()
        rows: list[Any] = []
        for part in writer.parts:
            rows += part.select(["suit_to_follow", "pending_draw", "pending_skip",
                                 "direction"]).to_pylist()  # fmt: skip
        return rows

    assert columns(1) == columns(10**9)
