"""The collector's per-event fast paths against values read one by one from the logged lines.

The collector looks codes up in a plain ``dict`` (:class:`maumau_log.store.rows._Intern`),
each seat's counters and code once per game, and the audit's facts take the smallest hand
by a loop and a ``t`` by two type checks (:mod:`maumau_log.store.facts`). Each is checked
here against the plain reading: codes in first-seen order, the events' players, cards,
suits and calls as each stored line says them, the results' counts summed from those lines,
and the facts' ``moments`` and ``behind`` recounted from the stored hand sizes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import encode_event
from maumau_log.replay.driver import Replayer
from maumau_log.rules import PRESET_NAMES
from maumau_log.store.collector import RecordCollector
from maumau_log.store.facts import time_ms
from maumau_log.store.rows import _Intern

AT = datetime(2026, 1, 1, tzinfo=UTC)
PRESETS = sorted(PRESET_NAMES)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | st.text(max_size=4), max_size=40))
def test_intern_codes_are_given_in_first_seen_order(keys):
    intern = _Intern()
    expected: dict[str | None, int] = {None: -1}
    for key in keys:
        if key not in expected:
            expected[key] = len(expected) - 1
        assert intern[key] == expected[key]
    assert intern.codes == expected
    assert intern.strings == [k for k in expected if k is not None]
    assert intern.get("\x00never") is None and "\x00never" not in intern.codes


def _time_ms_reference(value: Any) -> float | None:
    """``time_ms`` read as FORMAT.md's common fields say: epoch milliseconds as given, ISO
    text converted, anything else (booleans too) None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000.0
        except ValueError:
            return None
    return None


@settings(max_examples=300, deadline=None)
@given(
    st.none()
    | st.booleans()
    | st.integers(-(2**62), 2**62)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.datetimes().map(lambda d: d.isoformat() + "Z")
    | st.lists(st.integers(), max_size=2)
)
def test_time_ms_equals_the_plain_reading(value):
    assert time_ms(value) == _time_ms_reference(value)


_SIMULATED = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_LOGS = given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**16),
    drop=st.one_of(st.none(), st.integers(1, 60)),  # the event at this index left out
)
"""Simulated logs of every preset, 2-5 players, with or without one line dropped."""


def _tables(preset: str, players: int, seed: int, drop: int | None) -> dict[str, pa.Table]:
    """Every table of two simulated games (``drop``: each game's event of that index left
    out), built by the collector; one partition."""
    lines = []
    for events in simulate(preset, players, 2, seed):
        lines += [encode_event(ev) for i, ev in enumerate(events) if i != drop]
    collector = RecordCollector(ingested_at=AT)
    for _ in Replayer(visitors=[collector]).replay_lines(
        "<sim>", ((i + 1, raw) for i, raw in enumerate(lines))
    ):
        pass
    (tables,) = collector.tables().values()
    return tables


@_SIMULATED
@_LOGS
def test_event_columns_and_counts_equal_the_logged_lines(preset, players, seed, drop):
    tables = _tables(preset, players, seed, drop)
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for row in tables["events"].to_pylist():
        line = json.loads(row["raw"])
        kind = line["type"]
        assert row["type"] == kind
        assert row["player"] == line.get("player")
        if kind == "play":
            assert row["cards"] == line["cards"]
        elif kind == "suit":
            assert row["suit"] == line["suit"]
        elif kind == "mau":  # a call (its word in ``call``)
            assert row["reason"] == line["call"]
        elif kind in ("draw", "penalty") and "cards" in line:
            assert row["cards"] == line["cards"]
        if kind == "game":
            continue
        c = counts.setdefault((row["game_id"], line.get("player")), {})
        if kind == "play":
            c["cards_played"] = c.get("cards_played", 0) + len(line["cards"])
        elif kind in ("suit", "mau", "penalty"):
            name = {"suit": "suits_named", "mau": "calls_made", "penalty": "penalties"}[kind]
            c[name] = c.get(name, 0) + 1
    for row in tables["results"].to_pylist():
        if row["cards_played"] is None:
            continue  # a count too large for its column: none of these games
        c = counts.get((row["game_id"], row["player"]), {})
        for name in ("cards_played", "suits_named", "calls_made", "penalties"):
            assert row[name] == c.get(name, 0), (row["player"], name)


@_SIMULATED
@_LOGS
def test_moments_and_behind_equal_the_stored_hand_sizes(preset, players, seed, drop):
    tables = _tables(preset, players, seed, drop)
    moments: dict[str, int] = {}
    behind: dict[tuple[str, int], int] = {}
    for row in tables["events"].to_pylist():
        sizes = row["hand_sizes"]
        if row["type"] == "game" or not sizes or min(sizes) == 0:
            continue
        moments[row["game_id"]] = moments.get(row["game_id"], 0) + 1
        for seat, size in enumerate(sizes):
            if size > min(sizes):
                behind[row["game_id"], seat] = behind.get((row["game_id"], seat), 0) + 1
    valid = {r["game_id"] for r in tables["games"].to_pylist() if r["valid"]}
    for row in tables["audit_games"].to_pylist():
        if row["moments"] is not None:
            assert row["moments"] == moments.get(row["game_id"], 0)
    for row in tables["audit_seats"].to_pylist():
        if row["game_id"] in valid:
            assert row["behind"] == behind.get((row["game_id"], row["seat"]), 0)
