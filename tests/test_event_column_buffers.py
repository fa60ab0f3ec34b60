"""The events table's typed buffers against rows built one value at a time.

A game's event values are staged in Python lists and, when the game is stored, moved into
one typed array per column (:meth:`maumau_log.store.rows._EventColumns.commit`); the table
wraps the arrays' memory, the ``raw`` column wraps the lines joined once, and the cards' and
hand sizes' list offsets are summed from per-event counts. Checked here against
``pa.Table.from_pylist`` of the same rows: tables taken between commits (the arrays lent to
Arrow are copied before they grow), ``raw`` cut into arrays at any size, and the
collector's per-type reading of ``player`` and ``reason`` against ``getattr`` with a default.
"""

from __future__ import annotations

import json
from array import array
from datetime import UTC, datetime

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import decode_event, encode_event
from maumau_log.replay.driver import Replayer
from maumau_log.rules import PRESET_NAMES
from maumau_log.store import SCHEMAS
from maumau_log.store.collector import RecordCollector
from maumau_log.store.rows import _EventColumns, _Intern, joined_raw_column, raw_column
from tests.test_row_builders import _fill, games

AT = datetime(2026, 1, 1, tzinfo=UTC)
SCHEMA = SCHEMAS["events"]


@settings(max_examples=100, deadline=None)
@given(games, games)
def test_a_table_taken_between_commits_keeps_its_rows(before, after):
    cols = _EventColumns(_Intern())
    first = _fill(cols, before)
    early = cols.table()
    second = _fill(cols, after, first=len(before))
    late = cols.table()
    assert early.equals(pa.Table.from_pylist(first, schema=SCHEMA))
    assert late.equals(pa.Table.from_pylist(first + second, schema=SCHEMA))
    assert late.num_rows == len(cols) == len(first) + len(second)


def test_a_game_committed_without_events_adds_no_game():
    cols = _EventColumns(_Intern())
    cols.commit("empty")
    assert cols.game_ids == [] and cols.table().num_rows == 0


lines = st.lists(st.text(max_size=12).map(str.encode), max_size=12)


@settings(max_examples=200, deadline=None)
@given(lines, st.integers(0, 40))
def test_joined_lines_cut_anywhere_equal_the_lines(raws, extra):
    lengths = array("i", map(len, raws))
    chunk = max([1, *lengths]) + extra
    col = joined_raw_column(b"".join(raws), lengths, chunk)
    assert col.to_pylist() == [r.decode() for r in raws]
    assert all(len(b"".join(s.encode() for s in c.to_pylist())) <= chunk for c in col.chunks)
    assert col.equals(raw_column(raws, lengths, chunk))


def test_lines_are_cut_before_the_line_that_would_pass_the_chunk():
    raws = [b"ab", b"cde", b"", b"fghi", b"j"]
    col = joined_raw_column(b"".join(raws), array("i", map(len, raws)), chunk=5)
    assert [c.to_pylist() for c in col.chunks] == [["ab", "cde", ""], ["fghi", "j"]]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**16),
)
def test_player_and_reason_equal_getattr_with_a_default(preset, players, seed):
    lines = [encode_event(ev) for events in simulate(preset, players, 2, seed) for ev in events]
    collector = RecordCollector(ingested_at=AT)
    for _ in Replayer(visitors=[collector]).replay_lines(
        "<sim>", ((i + 1, raw) for i, raw in enumerate(lines))
    ):
        pass
    (tables,) = collector.tables().values()
    kinds = set()
    for row in tables["events"].to_pylist():
        if row["type"] == "game":
            assert row["player"] is None and row["reason"] is None
            continue
        event = decode_event(row["raw"].encode())
        kinds.add(row["type"])
        assert row["player"] == getattr(event, "player", None)
        if row["type"] not in ("draw", "penalty", "mau"):  # set from their own fields
            assert row["reason"] == getattr(event, "reason", None), json.loads(row["raw"])
    assert {"deal", "play", "round_end"} <= kinds


def test_a_value_too_wide_for_its_column_commits_nothing_of_its_game():
    row = {
        "line": 7, "type": "play", "player": "ann", "cards": ["H7"], "suit": None,
        "reason": None, "top": "H7", "suit_to_follow": None, "pending_draw": 0,
        "pending_skip": 0, "direction": 1, "hand_sizes": [4, 5], "turn": "ben", "raw": "{}",
    }  # fmt: skip
    cols = _EventColumns(_Intern())
    first = _fill(cols, [[row]])
    # pending_skip is 32-bit: 2**31 does not fit, after a dozen columns were filled
    _fill(cols, [[{**row, "pending_skip": 2**31}]], first=1, commit=False)
    with pytest.raises(OverflowError):
        cols.commit("g1")
    assert [len(arr) for arr in cols.typed.values()] == [1] * 4 + [1, 1] + [1] * 7 + [2, 1, 1]
    cols.truncate(0)
    third = _fill(cols, [[{**row, "line": 9}]], first=2)
    assert cols.table().equals(pa.Table.from_pylist(first + third, schema=SCHEMA))
