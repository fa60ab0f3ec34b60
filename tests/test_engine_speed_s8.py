"""Session 8's speed changes keep the behaviour (issue 12): the replay keeps only lines
without a ``seq`` decoded (a kept line's ``seq`` is never read), the dispatch hands the
event's player and count to ``on_play`` and ``on_draw``, and the fair shuffle starts its
blocks from the SHA-256 state of the seed the commitment check just hashed."""

from __future__ import annotations

import hashlib
import struct

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maumau_log.replay as replay
from maumau_log import shuffle
from maumau_log.events import EVENT_DECODER, encode_event
from maumau_log.replay import DECODED_LINES, Replayer
from maumau_log.shard import ContentHasher, outcome
from maumau_log.sim import simulate


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


def _reference_words(seed: bytes, blocks: int) -> tuple[int, ...]:
    data = b"".join(hashlib.sha256(seed + k.to_bytes(8, "big")).digest() for k in range(blocks))
    return struct.unpack(f">{4 * blocks}Q", data)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80), st.integers(0, 70))
def test_words_after_any_commitment_are_the_seeds(a: str, b: str, blocks: int) -> None:
    """The words of seed ``a`` are SHA-256(S || u64be(k)) whichever seed the commitment
    check hashed last (``a`` itself, another, none), and the commitment is the plain
    SHA-256 hex of the seed."""
    base = a.encode("utf-8")
    want = _reference_words(base, blocks)
    assert shuffle.commitment(a) == hashlib.sha256(base).hexdigest()
    assert shuffle._words(base, 0, blocks) == want
    assert shuffle._words(base, 0, blocks) == want  # the kept state is not changed
    assert shuffle.commitment(b) == hashlib.sha256(b.encode("utf-8")).hexdigest()
    assert shuffle._words(base, 0, blocks) == want
    assert shuffle._words(b.encode("utf-8"), 0, blocks) == _reference_words(b.encode(), blocks)
    cards = [f"c{i}" for i in range(33)]
    shuffle.commitment(a)
    after = shuffle.shuffled(cards, a)
    shuffle.commitment(b + "x")
    assert shuffle.shuffled(cards, a) == after
