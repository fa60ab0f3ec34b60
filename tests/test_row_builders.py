"""The ingest's bulk row builders against the plain per-value way of building the same rows.

The events table is kept as one Python list per column and converted once per table
(:meth:`maumau_log.store.rows._EventColumns.table`); the audit's decision facts are added
to their columns in bulk (:meth:`maumau_log.store.facts.GameFactsRecorder.rows`). Each is
checked here against rows built one value at a time with ``pa.Table.from_pylist``, for
arbitrary values (nulls, empty and null card lists, codes past 32,767, long lines).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau_log.store import SCHEMAS
from maumau_log.store.facts import GameFactsRecorder
from maumau_log.store.rows import RUN_COLUMNS, _EventColumns, _Intern, typed

ROOT = Path(__file__).resolve().parent.parent
names = st.text(min_size=1, max_size=6)
maybe = st.none() | names

event_rows = st.fixed_dictionaries(
    {
        "line": st.integers(1, 2**62),
        "type": names,
        "player": maybe,
        "cards": st.none() | st.lists(names, max_size=4),
        "suit": maybe,
        "reason": maybe,
        "top": maybe,
        "suit_to_follow": maybe,
        "pending_draw": st.integers(0, 2**62),
        "pending_skip": st.integers(0, 2**31 - 1),
        "direction": st.sampled_from([1, -1]),
        "hand_sizes": st.lists(st.integers(0, 2**31 - 1), max_size=5),
        "turn": maybe,
        "raw": st.text(max_size=40),
    }
)
games = st.lists(st.lists(event_rows, min_size=1, max_size=6), max_size=5)


def _fill(
    cols: _EventColumns,
    game_rows: list[list[dict[str, Any]]],
    first: int = 0,
    commit: bool = True,
) -> list[dict[str, Any]]:
    """Append the games' rows as the collector does (codes, flattened lists, counts; each
    game committed); the rows as ``from_pylist`` takes them."""
    intern = cols.intern
    expected = []
    for g, rows in enumerate(game_rows, first):
        gid = f"g{g}"
        for i, row in enumerate(rows):
            cols.index.append(i)
            cols.line.append(row["line"])
            cols.type.append(intern[row["type"]])
            cols.player.append(intern[row["player"]])
            if row["cards"] is None:
                cols.n_cards.append(-1)
            else:
                cols.n_cards.append(len(row["cards"]))
                cols.cards.extend(intern[c] for c in row["cards"])
            for name in ("suit", "reason", "top", "turn"):
                getattr(cols, name).append(intern[row[name]])
            # run-length columns: a value where it changes (and on the game's first row)
            for name in RUN_COLUMNS:
                value = row[name] if name != "suit_to_follow" else intern[row[name]]
                values = getattr(cols, name)
                if i == 0 or values[-1] != value:
                    getattr(cols, f"{name}_at").append(cols.rows + i)
                    values.append(value)
            cols.hand_sizes.extend(row["hand_sizes"])
            cols.n_hands.append(len(row["hand_sizes"]))
            cols.raw.append(row["raw"].encode())
            expected.append({**row, "game_id": gid, "event_index": i})
        if commit:
            cols.commit(gid)
    return expected


@settings(max_examples=150, deadline=None)
@given(games)
def test_event_columns_table_equals_rows_built_value_by_value(game_rows):
    cols = _EventColumns(_Intern())
    expected = _fill(cols, game_rows)
    schema = SCHEMAS["events"]
    assert cols.table().equals(pa.Table.from_pylist(expected, schema=schema))


@settings(max_examples=60, deadline=None)
@given(games.filter(bool), st.integers(0, 30))
def test_event_columns_truncate_drops_the_staged_rows_from_there_on(game_rows, at):
    cols = _EventColumns(_Intern())
    expected = _fill(cols, game_rows[:-1])
    last = len(game_rows) - 1
    staged = _fill(cols, [game_rows[-1]], first=last, commit=False)
    at = min(at, len(staged))
    cols.truncate(at)
    cols.commit(f"g{last}")
    schema = SCHEMAS["events"]
    assert cols.table().equals(pa.Table.from_pylist(expected + staged[:at], schema=schema))


def test_typed_refuses_a_value_too_large_for_its_type():
    assert list(typed("i", [0, -1, 2**31 - 1])) == [0, -1, 2**31 - 1]
    with pytest.raises(OverflowError):
        typed("i", [2**31])


facts = st.fixed_dictionaries(
    {
        "faults": st.lists(st.tuples(names, st.integers(0, 99))),
        "catches": st.lists(st.tuples(names, names, st.integers(0, 99))),
        "draws": st.lists(
            st.tuples(
                names, st.sampled_from(["no_play", "voluntary"]), st.booleans(), st.integers(0, 99)
            )
        ),
        "decisions": st.lists(
            st.tuples(names, st.floats(allow_nan=False, width=64), st.integers(0, 99))
        ),
        "abandons": st.lists(st.tuples(names, st.booleans(), st.integers(0, 99))),
    }
)


@settings(max_examples=150, deadline=None)
@given(facts)
def test_audit_event_rows_equal_one_fact_at_a_time(recorded):
    rec = GameFactsRecorder()
    for name, values in recorded.items():
        setattr(rec, name, list(values))
    cols: dict[str, dict[str, list[Any]]] = {
        name: {n: [] for n in SCHEMAS[name].names}
        for name in ("audit_games", "audit_seats", "audit_events")
    }
    rec.rows("g1", "client", None, cols["audit_games"], cols["audit_seats"],
             cols["audit_events"])  # fmt: skip
    # an invalid game (dealer None) stores its audit_games row only: its facts are added
    # by the caller's valid branch, which rows() runs when there is a dealer and a ruleset
    assert cols["audit_events"]["game_id"] == []
    expected: list[dict[str, Any]] = []

    def fact(i: int, kind: str, p: str, by: Any, reason: Any, flag: Any, ms: Any) -> None:
        expected.append({"game_id": "g1", "event_index": i, "kind": kind, "player": p,
                         "by": by, "reason": reason, "flag": flag, "ms": ms})  # fmt: skip

    for p, i in recorded["faults"]:
        fact(i, "fault", p, None, None, None, None)
    for p, by, i in recorded["catches"]:
        fact(i, "catch", p, by, None, None, None)
    for p, reason, ok, i in recorded["draws"]:
        fact(i, "draw", p, None, reason, ok, None)
    for p, ms, i in recorded["decisions"]:
        fact(i, "decision", p, None, None, None, ms)
    for p, behind, i in recorded["abandons"]:
        fact(i, "abandon", p, None, None, behind, None)
    from maumau_log.rules import resolve

    rec.rules = resolve("classic", None, None)
    rec.rows("g1", "client", 0, cols["audit_games"], cols["audit_seats"], cols["audit_events"])
    schema = SCHEMAS["audit_events"]
    got = pa.Table.from_pydict(cols["audit_events"], schema=schema)
    assert got.equals(pa.Table.from_pylist(expected, schema=schema))


def test_pyarrow_without_pandas_converts_the_same_and_skips_the_import():
    pytest.importorskip("pandas")
    code = (
        "import sys, pyarrow as pa\n"
        "from maumau_log.store.rows import pyarrow_without_pandas\n"
        "pyarrow_without_pandas()\n"
        "a = pa.array(['x', None, 'y'], pa.string())\n"
        "b = pa.array([1, None, 2**40], pa.int64())\n"
        "import pyarrow.compute as pc\n"
        "c = pc.if_else(pc.less(b, 2), b, None)\n"
        "print('pandas' in sys.modules, a.to_pylist(), b.to_pylist(), c.to_pylist())\n"
        "import pandas\n"  # still importable by anyone else
        "print(pandas.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split("\n")  # fmt: skip
    assert out[0] == "False ['x', None, 'y'] [1, None, 1099511627776] [1, None, None]"
    assert out[1] == "pandas"
