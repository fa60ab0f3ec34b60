"""The replay keeps short repeated lines decoded: the same reports as
decoding every line, events nobody changes, and a bounded look-up."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

import maumau_log.replay.driver as replay
from maumau_log.bots.sim import simulate
from maumau_log.events import EVENT_DECODER, Draw, Play, encode_event
from maumau_log.replay.driver import (
    DECODED_LINE_BYTES,
    DECODED_LINES,
    DECODED_TYPES,
    Replayer,
)
from maumau_log.rules import PRESET_NAMES, UNSUPPORTED_PRESETS
from maumau_log.run.shard import ContentHasher, Shard, outcome, run_shard

AT = datetime(2026, 12, 1, tzinfo=UTC)
SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def _lines(games: list[list[object]]) -> list[bytes]:
    return [encode_event(ev) for g in games for ev in g]  # type: ignore[arg-type]


def _outcomes(lines: list[bytes], cached: bool, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    monkeypatch.setattr(replay, "DECODED_LINES", DECODED_LINES if cached else 0)
    r = Replayer(visitors=[ContentHasher()])
    reports = [outcome(rep) for rep in r.replay_lines("<memory>", enumerate(lines, 1))]
    assert (len(r._decoded) > 0) == cached
    # nothing changed an event kept decoded: each still equals its line's decoding
    for raw, ev in r._decoded.items():
        assert EVENT_DECODER.decode(raw) == ev
    return reports


@pytest.mark.parametrize("preset", [p for p in PRESET_NAMES if p not in UNSUPPORTED_PRESETS])
def test_same_reports_as_decoding_every_line(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulated games of every preset, then the same games with lines moved so that a
    line accepted before (a kept event) now breaks a rule: the outcomes (violations with
    their lines, event counts, content digests) are those of decoding every line."""
    games = list(simulate(preset, 3, 6, 612))
    lines = _lines(games)
    good = _outcomes(lines, True, monkeypatch)
    assert good == _outcomes(lines, False, monkeypatch)
    assert all(o.valid for o in good)  # type: ignore[attr-defined]
    # the first game's third line again right after it: the same bytes, now a violation
    bad = [*lines[:3], lines[2], *lines[3:]]
    got = _outcomes(bad, True, monkeypatch)
    assert got == _outcomes(bad, False, monkeypatch)
    v = got[0].violation  # type: ignore[attr-defined]
    assert v is not None and v.line == 4 and v.event_index == 3


def test_sample_logs_same_outcomes_and_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sample log (valid and violations), through ``run_shard`` as validate and as
    ingest run it: the same outcomes and the same dataset tables with and without the
    kept lines; the kept events are unchanged after the collector saw them."""
    # every log under sample_logs/, sub-folders too (presets, other engines, disputes,
    # OpenSpiel, the .mm notation with its BadLine path)
    files = sorted(
        p for p in SAMPLES.rglob("*")
        if p.is_file() and (".jsonl" in p.name or p.suffix == ".mm")
    )  # fmt: skip
    assert len(files) == 57
    seen = 0
    for f in files:
        for collect in (False, True):
            res = []
            for cap in (DECODED_LINES, 0):
                monkeypatch.setattr(replay, "DECODED_LINES", cap)
                res.append(run_shard(Shard(0, str(f)), collect=collect, ingested_at=AT))
            a, b = res
            assert a.games == b.games, f
            assert (a.unreadable is None) == (b.unreadable is None), f
            assert a.tables.keys() == b.tables.keys(), f
            for key, tables in a.tables.items():
                for name, table in tables.items():
                    assert table.equals(b.tables[key][name]), (f, key, name)
            seen += len(a.games)
    assert seen > 40


def test_kept_lines_bounded_and_only_turn_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most DECODED_LINES lines are kept, each at most DECODED_LINE_BYTES long and of a
    turn event type; a play line met twice is one event object, and equal to its decoding."""
    games = list(simulate("standard", 4, 40, 3))
    lines = _lines(games)
    monkeypatch.setattr(replay, "DECODED_LINES", 50)
    r = Replayer()
    reports = list(r.replay_lines("<memory>", enumerate(lines, 1)))
    assert all(rep.valid for rep in reports)
    assert len(r._decoded) == 50
    assert all(len(raw) <= DECODED_LINE_BYTES for raw in r._decoded)
    assert {type(ev) for ev in r._decoded.values()} <= DECODED_TYPES
    play = b'{"type":"play","player":"p1","cards":["7H"]}'
    r2 = Replayer()
    r2._decoded.clear()
    monkeypatch.setattr(replay, "DECODED_LINES", DECODED_LINES)
    list(r2.replay_lines("<memory>", enumerate([*lines[:2], play, play], 1)))
    ev = r2._decoded[play]
    assert type(ev) is Play and ev.cards == ["7H"] and ev.player == "p1"
    assert msgspec.json.decode(play, type=Play) == ev
    draw = b'{"type":"draw","player":"p1","cards":["7H"],"reason":"no_play"}'
    assert type(EVENT_DECODER.decode(draw)) is Draw and len(draw) <= DECODED_LINE_BYTES


def test_a_log_with_unique_lines_stops_the_look_ups_and_a_plain_log_after_it_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``t`` on every line makes every line unique. After DECODED_JUDGE
    decoded lines with under one in five found, the Replayer drops its kept lines and looks
    no more for DECODED_PAUSE windows; then plain lines are kept again. Same reports."""
    monkeypatch.setattr(replay, "DECODED_JUDGE", 200)
    monkeypatch.setattr(replay, "DECODED_PAUSE", 2)
    games = simulate("classic", 2, 40, seed=61)
    plain = _lines(games)
    stamped = []
    for n, raw in enumerate(plain):
        d = msgspec.json.decode(raw)
        if d["type"] != "game":
            d["t"] = 1_700_000_000_000 + n  # an integer time (FORMAT.md), unique per line
        stamped.append(msgspec.json.encode(d))
    assert len(stamped) > 600
    # the same reports with and without the kept lines
    got = [outcome(rep) for rep in Replayer(visitors=[ContentHasher()]).replay_lines(
        "<memory>", enumerate(stamped, 1))]  # fmt: skip
    monkeypatch.setattr(replay, "DECODED_LINES", 0)
    want = [outcome(rep) for rep in Replayer(visitors=[ContentHasher()]).replay_lines(
        "<memory>", enumerate(stamped, 1))]  # fmt: skip
    assert got == want and len(got) == 40
    monkeypatch.setattr(replay, "DECODED_LINES", DECODED_LINES)
    # 250 stamped lines: judged at the 200th decoded line (0 found): dropped, no look-ups
    r = Replayer()
    list(r.replay_lines("<stamped>", enumerate(stamped[:250], 1)))
    assert (r._caching, len(r._decoded), r._misses, r._judge_at) == (False, 0, 50, 400)
    # then a plain log: after 350 more decoded lines the pause is over and lines are kept
    list(r.replay_lines("<plain>", enumerate(plain, 1)))
    assert r._caching is True and len(r._decoded) > 50


def _with_seq(games: list[list[object]], shift: int = 0) -> list[bytes]:
    """The games' lines, every event after the header with its ``seq`` (plus ``shift``)."""
    out = []
    for g in games:
        for i, ev in enumerate(g):
            raw = encode_event(ev)  # type: ignore[arg-type]
            if i:
                d = msgspec.json.decode(raw)
                d["seq"] = i + shift
                raw = msgspec.json.encode(d)
            out.append(raw)
    return out


def _run(lines: list[bytes], kept: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list, Replayer]:
    monkeypatch.setattr(replay, "DECODED_LINES", kept)
    r = Replayer(visitors=[ContentHasher()])
    return [outcome(rep) for rep in r.replay_lines("<memory>", enumerate(lines, 1))], r


@pytest.mark.parametrize("preset", ["standard", "classic", "crazy-eights"])
def test_lines_with_seq_are_never_kept_and_report_as_decoded(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games with a ``seq`` on every event (their lines repeat from game to game), good
    and with a line repeated (its ``seq`` then wrong: ``bad_seq`` at that line) or
    shifted: the same outcomes with and without kept lines, and no kept event has a seq."""
    games = list(simulate(preset, 3, 8, 77))
    lines = _with_seq(games)
    good, r = _run(lines, DECODED_LINES, monkeypatch)
    assert good == _run(lines, 0, monkeypatch)[0]
    assert all(o.valid for o in good)
    assert all(ev.seq is None for ev in r._decoded.values())
    bad = [*lines[:3], lines[2], *lines[3:]]
    got, r = _run(bad, DECODED_LINES, monkeypatch)
    assert got == _run(bad, 0, monkeypatch)[0]
    v = got[0].violation
    assert v is not None and (v.code, v.line, v.event_index) == ("bad_seq", 4, 3)
    shifted = _with_seq(games, 1)
    got, r = _run(shifted, DECODED_LINES, monkeypatch)
    assert got == _run(shifted, 0, monkeypatch)[0]
    assert all(o.violation is not None and o.violation.code == "bad_seq" for o in got)


def test_plain_lines_are_kept_and_a_kept_line_at_the_wrong_place_still_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without ``seq`` the turn's lines are kept as before (each equal to its decoding);
    a kept line repeated where it breaks a rule is reported as when decoded."""
    games = list(simulate("classic", 4, 10, 5))
    lines = [encode_event(ev) for g in games for ev in g]  # type: ignore[arg-type]
    got, r = _run(lines, DECODED_LINES, monkeypatch)
    assert all(o.valid for o in got) and len(r._decoded) > 0
    assert all(EVENT_DECODER.decode(raw) == ev for raw, ev in r._decoded.items())
    bad = [*lines[:4], lines[3], *lines[4:]]
    assert _run(bad, DECODED_LINES, monkeypatch)[0] == _run(bad, 0, monkeypatch)[0]
