"""Replay records: a visitor that turns a replay into dataset rows, ingest, and the way back.

:class:`RecordCollector` is a :class:`~maumau_log.replay.ReplayVisitor`. For every event
the engine accepts it appends one value per column to plain Python lists (no dict per row:
the visitor runs for every event, so its work is kept to a few appends); at the end of each
game it adds the game's ``games``, ``results`` and ``violations`` rows, or drops the game
when the dataset already holds it. Every ``batch_events`` events the buffers become pyarrow
tables and go to the :class:`~maumau_log.store.DatasetWriter`.

:func:`ingest` drives a whole ingest; :func:`load_game` reads one game back and rebuilds
the state at any event by replaying the stored events through the engine (the events table
keeps each event's canonical JSON in ``raw``, so the rebuilt state is exactly the replay's).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import repeat
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .engine import PLAY as PHASE_PLAY
from .engine import Engine, RuleViolation
from .events import (
    Call,
    Cut,
    Draw,
    Event,
    Game,
    Penalty,
    Play,
    SuitChoice,
    decode_event,
)
from .logfile import LogReadError, expand_paths
from .matches import MatchState, add_scores, is_over, match_winner
from .replay import GameReport, Replayer, is_iso_datetime
from .rules import Ruleset, RulesetError, resolve
from .store import (
    RAW_LIMIT,
    SCHEMAS,
    UNKNOWN,
    DatasetError,
    DatasetWriter,
    known_games,
    partition_value,
    polars_schema,
    scan_all,
    scan_paths,
)
from .violations import Violation

BATCH_EVENTS = 400_000
"""Buffered events that trigger writing a row group (bounds the memory of an ingest)."""

_encode = msgspec.json.Encoder().encode
_TAG: dict[type, str] = {}
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")

# per-player counter slots (results columns, in RESULTS_SCHEMA order after round_score)
(
    _PLAYED, _NO_PLAY, _VOLUNTARY, _EFFECT, _COVER, _PEN, _PEN_MC, _PEN_WC, _PEN_OTHER,
    _CALLS, _WILD, _SUITS, _DRAWP, _SKIPP, _REVP, _COVP,
) = range(16)  # fmt: skip
_N_SLOTS = 16
_DRAW_SLOT = {"no_play": _NO_PLAY, "voluntary": _VOLUNTARY, "effect": _EFFECT, "cover": _COVER}
_PEN_SLOT = {"missed_call": _PEN_MC, "wrong_call": _PEN_WC}
_RESULT_COUNTERS = (
    ("cards_played", _PLAYED),
    ("drawn_no_play", _NO_PLAY),
    ("drawn_voluntary", _VOLUNTARY),
    ("drawn_effect", _EFFECT),
    ("drawn_cover", _COVER),
    ("penalties", _PEN),
    ("penalty_cards_missed_call", _PEN_MC),
    ("penalty_cards_wrong_call", _PEN_WC),
    ("penalty_cards_other", _PEN_OTHER),
    ("calls_made", _CALLS),
    ("wild_played", _WILD),
    ("suits_named", _SUITS),
    ("draw_cards_played", _DRAWP),
    ("skip_cards_played", _SKIPP),
    ("reverse_cards_played", _REVP),
    ("cover_cards_played", _COVP),
)


def _tag(t: type) -> str:
    name = _TAG.get(t)
    if name is None:
        name = _TAG[t] = str(t.__struct_config__.tag)  # type: ignore[attr-defined]
    return name


def game_date(header: Game | None) -> str:
    """The partition date of a game: ``YYYY-MM-DD`` from ``started_at``, else from ``t``
    (ISO text or epoch milliseconds, taken in UTC), else :data:`~maumau_log.store.UNKNOWN`."""
    if header is None:
        return UNKNOWN
    if header.started_at is not None and not is_iso_datetime(header.started_at):
        return UNKNOWN  # issue 15: no date, rather than a made-up partition
    for value in (header.started_at, header.t):
        if isinstance(value, str):
            m = _DATE.match(value)
            if m and is_iso_datetime(value):
                return m.group(1)
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                return datetime.fromtimestamp(value / 1000, UTC).strftime("%Y-%m-%d")
            except (OverflowError, OSError, ValueError):
                continue
    return UNKNOWN


def logged_line(raw: bytes | None) -> str | None:
    """A violating line as ``violations.raw`` keeps it: text, cut to ``RAW_LIMIT`` characters
    with the number left out said."""
    if raw is None or not isinstance(raw, bytes):
        return None
    text = raw.decode("utf-8", errors="replace")
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + f" ... [{len(text) - RAW_LIMIT} more characters]"
    return text


def options_json(rules: Ruleset) -> str:
    """The effective options as canonical JSON (``json.dumps(rules.options(), sort_keys=True)``)."""
    return json.dumps(rules.options(), sort_keys=True)


def content_hash(raws: Iterable[bytes], violation: Violation | None, events: int) -> int:
    """The content hash of a game: 64-bit BLAKE2b, as a signed integer.

    Args:
        raws: the canonical JSON (``events.encode_event``) of every accepted event, header
            first.
        violation: the game's first violation (its code and event index are hashed, so a
            game that breaks differently hashes differently), or None.
        events: the number of events the game holds, the rejected and unreplayed ones too.
    Returns:
        A signed 64-bit integer.
    """
    h = hashlib.blake2b(b"\n".join(raws), digest_size=8)
    tail = f"\x00{events}"
    if violation is not None:
        tail += f"\x00{violation.code}\x00{violation.event_index}"
    h.update(tail.encode())
    return int.from_bytes(h.digest(), "little", signed=True)


@dataclass
class Conflict:
    """A game id met again with different content (not stored).

    Attributes:
        game_id: the id.
        file, line: where the new copy is.
        stored_file, stored_line: where the stored (or first seen) copy came from.
    """

    game_id: str
    file: str
    line: int
    stored_file: str
    stored_line: int

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: game {self.game_id!r} differs from the copy already "
            f"stored (from {self.stored_file}:{self.stored_line}); not stored"
        )

    def hint(self, dataset: str) -> str:
        """How to tell the two games apart (issue 15, item 5), in one line."""
        return (
            f"a game id names one game: compare the stored one (maumau-log game {dataset} "
            f"{self.game_id!r}) with the new one (maumau-log validate {self.file} --json); "
            "give the new game another game_id, or ingest it into another dataset"
        )


class _Intern(dict[str | None, int]):
    """Small strings (players, cards, suits, reasons, types) to codes; None is -1."""

    def __init__(self) -> None:
        super().__init__({None: -1})
        self.strings: list[str] = []

    def __missing__(self, key: str | None) -> int:
        code = len(self.strings)
        self.strings.append(str(key))
        self[key] = code
        return code

    def decode(self, codes: array) -> pa.Array:
        """Codes (``array('h')``, -1 for null) to a string array."""
        idx = pa.Array.from_buffers(pa.int16(), len(codes), [None, pa.py_buffer(codes)])
        idx = pc.if_else(pc.less(idx, 0), pa.scalar(None, pa.int16()), idx)
        return pa.DictionaryArray.from_arrays(idx, pa.array(self.strings, pa.string())).cast(
            pa.string()
        )


def _ints(values: array, typ: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(typ, len(values), [None, pa.py_buffer(values)])


def _offsets(lengths: array) -> pa.Array:
    """Offsets (int32, one more than ``lengths``) from lengths."""
    arr = _ints(lengths, pa.int32())
    return pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(arr)])


class _EventColumns:
    """The events table as typed arrays: a few appends per event, cheap to convert."""

    def __init__(self, intern: _Intern) -> None:
        self.intern = intern
        self.game_ids: list[str] = []  # one per game
        self.game_counts = array("i")  # events per game
        self.index = array("i")
        self.line = array("i")
        self.type = array("h")
        self.player = array("h")
        self.cards = array("h")  # card codes, flattened
        self.cards_end = array("i")  # end offset of each event's cards
        self.cards_null = array("b")  # 1 where the event has no cards
        self.suit = array("h")
        self.reason = array("h")
        self.top = array("h")
        self.suit_to_follow = array("h")
        self.pending_draw = array("h")
        self.pending_skip = array("b")
        self.direction = array("b")
        self.hand_sizes = array("h")  # flattened; n_players per event
        self.hands_end = array("i")
        self.turn = array("h")
        self.raw: list[bytes] = []
        self.raw_len = array("i")
        # bound appends for the per-event path (the arrays are never replaced)
        self.appends = (
            self.index.append, self.line.append, self.type.append, self.player.append,
            self.cards_null.append, self.cards.extend, self.cards_end.append, self.suit.append,
            self.reason.append, self.top.append, self.suit_to_follow.append,
            self.pending_draw.append, self.pending_skip.append, self.direction.append,
            self.hand_sizes.extend, self.hands_end.append, self.turn.append, self.raw.append,
            self.raw_len.append,
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self.index)

    def truncate(self, n: int) -> None:
        """Drop the events from row ``n`` on (a game that is not stored)."""
        cards_at = self.cards_end[n - 1] if n else 0
        hands_at = self.hands_end[n - 1] if n else 0
        for col in (
            self.index, self.line, self.type, self.player, self.cards_end, self.cards_null,
            self.suit, self.reason, self.top, self.suit_to_follow, self.pending_draw,
            self.pending_skip, self.direction, self.hands_end, self.turn, self.raw_len,
        ):  # fmt: skip
            del col[n:]
        del self.raw[n:]
        del self.cards[cards_at:]
        del self.hand_sizes[hands_at:]

    def table(self) -> pa.Table:
        n = len(self)
        intern = self.intern
        game_no = array("i")
        for g, count in enumerate(self.game_counts):
            game_no.extend(repeat(g, count))
        game_id = pa.DictionaryArray.from_arrays(
            _ints(game_no, pa.int32()), pa.array(self.game_ids, pa.string())
        ).cast(pa.string())
        cards = pa.ListArray.from_arrays(
            pa.concat_arrays([pa.array([0], pa.int32()), _ints(self.cards_end, pa.int32())]),
            intern.decode(self.cards),
            mask=pc.equal(_ints(self.cards_null, pa.int8()), 1),
        )
        hand_sizes = pa.ListArray.from_arrays(
            pa.concat_arrays([pa.array([0], pa.int32()), _ints(self.hands_end, pa.int32())]),
            _ints(self.hand_sizes, pa.int16()),
        )
        raw = pa.StringArray.from_buffers(
            n, _offsets(self.raw_len).buffers()[1], pa.py_buffer(b"".join(self.raw))
        )
        return pa.Table.from_arrays(
            [
                game_id,
                _ints(self.index, pa.int32()),
                _ints(self.line, pa.int32()),
                intern.decode(self.type),
                intern.decode(self.player),
                cards,
                intern.decode(self.suit),
                intern.decode(self.reason),
                intern.decode(self.top),
                intern.decode(self.suit_to_follow),
                _ints(self.pending_draw, pa.int16()),
                _ints(self.pending_skip, pa.int8()),
                _ints(self.direction, pa.int8()),
                hand_sizes,
                intern.decode(self.turn),
                raw,
            ],
            schema=SCHEMAS["events"],
        )


class _Buffers:
    """Column buffers of one partition."""

    def __init__(self, intern: _Intern) -> None:
        self.ev = _EventColumns(intern)
        self.games: dict[str, list[Any]] = {n: [] for n in SCHEMAS["games"].names}
        self.results: dict[str, list[Any]] = {n: [] for n in SCHEMAS["results"].names}
        self.violations: dict[str, list[Any]] = {n: [] for n in SCHEMAS["violations"].names}

    @property
    def n_events(self) -> int:
        return len(self.ev)

    def tables(self) -> dict[str, pa.Table]:
        out = {"events": self.ev.table()}
        for name, cols in (
            ("games", self.games),
            ("results", self.results),
            ("violations", self.violations),
        ):
            out[name] = pa.Table.from_pydict(cols, schema=SCHEMAS[name])
        return out


class _RulesInfo:
    """Per-ruleset tables the visitor needs, computed once per distinct ruleset."""

    __slots__ = ("kinds", "options", "options_hash", "points", "scored")

    def __init__(self, rules: Ruleset) -> None:
        self.options = options_json(rules)
        self.options_hash = hashlib.sha256(self.options.encode()).hexdigest()[:16]
        self.points = {c: r.points for c, r in rules.cards.items()}
        self.scored = rules.scoring != "none"
        kinds: dict[str, tuple[int, ...]] = {}
        for card, r in rules.cards.items():
            slots = []
            if r.wild:
                slots.append(_WILD)
            if r.draw:
                slots.append(_DRAWP)
            if r.skip:
                slots.append(_SKIPP)
            if r.reverse:
                slots.append(_REVP)
            if r.cover:
                slots.append(_COVP)
            kinds[card] = tuple(slots)
        self.kinds = kinds


class RecordCollector:
    """Replay visitor that builds the dataset's rows and hands them to a writer.

    Args:
        writer: where row groups go (``write(ruleset, date, tables)``); None to keep
            everything in memory (see :meth:`tables`).
        known: game_id to (content hash, source file, source line) of games already stored;
            updated as games are added.
        ingested_at: the ingest time stored in every ``games`` row.
        batch_events: buffered events that trigger a write.

    Attributes:
        added, duplicates: games stored, and games skipped as already stored (same content).
        conflicts: games skipped because their id is stored with other content.
    """

    def __init__(
        self,
        writer: DatasetWriter | None = None,
        known: dict[str, tuple[int, str, int]] | None = None,
        ingested_at: datetime | None = None,
        batch_events: int = BATCH_EVENTS,
    ) -> None:
        self.writer = writer
        self.known = known if known is not None else {}
        self.ingested_at = ingested_at or datetime.now(UTC)
        self.batch_events = batch_events
        self.buffers: dict[tuple[str, str], _Buffers] = {}
        self._rules: dict[str, _RulesInfo] = {}
        self.added = 0
        self.duplicates = 0
        self.conflicts: list[Conflict] = []
        self.intern = _Intern()
        self._buf = _Buffers(self.intern)
        self._ev = self._buf.ev
        self._seat_codes: list[int] = []
        self._start = 0
        self._ctr: dict[str, list[int]] = {}
        self._info: _RulesInfo | None = None
        self._pending = 0
        self._part = (UNKNOWN, UNKNOWN)
        self.touched: set[str] = set()
        self._runs: dict[str, tuple[int, dict[str, int] | None]] = {}

    # -- visitor protocol

    def begin_game(self, report: GameReport) -> None:
        """Start buffering a game; the header becomes event 0."""
        header = report.header
        rules = report.rules
        part = (
            partition_value(rules.preset) if rules is not None else UNKNOWN,
            game_date(header),
        )
        buf = self.buffers.get(part)
        if buf is None:
            buf = self.buffers[part] = _Buffers(self.intern)
        self._part = part
        self._buf = buf
        ev = buf.ev
        self._ev = ev
        self._start = len(ev)
        self._pending = 0
        self._info = None
        if rules is not None:
            info = self._rules.get(rules.key)
            if info is None:
                info = self._rules[rules.key] = _RulesInfo(rules)
            self._info = info
        players = list(header.players) if header is not None else []
        self._ctr = {p: [0] * _N_SLOTS for p in players}
        intern = self.intern
        self._seat_codes = [intern[p] for p in players]
        if header is None:
            return
        ev.index.append(0)
        ev.line.append(report.line)
        ev.type.append(intern["game"])
        ev.player.append(-1)
        ev.cards_end.append(len(ev.cards))
        ev.cards_null.append(1)
        ev.suit.append(-1)
        ev.reason.append(-1)
        ev.top.append(-1)
        ev.suit_to_follow.append(-1)
        ev.pending_draw.append(0)
        ev.pending_skip.append(0)
        ev.direction.append(1)
        ev.hand_sizes.extend([0] * len(players))
        ev.hands_end.append(len(ev.hand_sizes))
        ev.turn.append(-1)
        raw = _encode(header)
        ev.raw.append(raw)
        ev.raw_len.append(len(raw))

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        """Append one accepted event and the state it left; count it for ``results``.
        ``raw`` (the line as read) is stored as the event's JSON."""
        e = report.engine
        assert e is not None
        ev = self._ev
        intern = self.intern
        t = type(event)
        player: str | None = getattr(event, "player", None)
        cards: list[str] | None = None
        suit = reason = None
        if t is Play:
            cards = event.cards  # type: ignore[union-attr]
            c = self._ctr[player]  # type: ignore[index]
            c[_PLAYED] += len(cards)  # type: ignore[arg-type]
            kinds = self._info.kinds  # type: ignore[union-attr]
            for card in cards:  # type: ignore[union-attr]
                for slot in kinds[card]:
                    c[slot] += 1
        elif t is Draw:
            cards = event.cards  # type: ignore[union-attr]
            if cards is None:
                n = event.count if event.count is not None else 1  # type: ignore[union-attr]
                cards = e.hands[player][len(e.hands[player]) - n :]  # type: ignore[index]
            reason = event.reason or ("effect" if self._pending else "no_play")  # type: ignore[union-attr]
            self._ctr[player][_DRAW_SLOT[reason]] += len(cards)  # type: ignore[index]
        elif t is SuitChoice:
            suit = event.suit  # type: ignore[union-attr]
            self._ctr[player][_SUITS] += 1  # type: ignore[index]
        elif t is Call:
            reason = event.call  # type: ignore[union-attr]
            self._ctr[player][_CALLS] += 1  # type: ignore[index]
        elif t is Penalty:
            reason = event.reason  # type: ignore[union-attr]
            cards = event.cards  # type: ignore[union-attr]
            if cards is None:
                hand = e.hands[player]  # type: ignore[index]
                n = event.count if event.count is not None else 0  # type: ignore[union-attr]
                cards = hand[len(hand) - n :] if n else []
            c = self._ctr[player]  # type: ignore[index]
            c[_PEN] += 1
            c[_PEN_SLOT.get(reason or "", _PEN_OTHER)] += len(cards)
        elif t is Cut:
            cards = event.taken  # type: ignore[union-attr]
        else:
            reason = getattr(event, "reason", None)
        (
            a_index, a_line, a_type, a_player, a_cnull, x_cards, a_cend, a_suit, a_reason,
            a_top, a_stf, a_pd, a_ps, a_dir, x_hs, a_hend, a_turn, a_raw, a_rlen,
        ) = ev.appends  # fmt: skip
        a_index(index)
        a_line(line)
        a_type(intern[_TAG.get(t) or _tag(t)])
        a_player(intern[player])
        if cards is None:
            a_cnull(1)
        else:
            a_cnull(0)
            x_cards([intern[x] for x in cards])
        a_cend(len(ev.cards))
        a_suit(intern[suit] if suit is not None else -1)
        a_reason(intern[reason] if reason is not None else -1)
        discard = e.discard
        a_top(intern[discard[-1]] if discard else -1)
        stf = e.suit_to_follow
        a_stf(intern[stf] if stf is not None else -1)
        self._pending = pending = e.pending_draw
        a_pd(pending)
        a_ps(e.pending_skip)
        a_dir(e.direction)
        x_hs([len(h) for h in e.hands.values()])
        a_hend(len(ev.hand_sizes))
        a_turn(self._seat_codes[e.current] if e.phase == PHASE_PLAY else -1)
        a_raw(raw)
        a_rlen(len(raw))

    def end_game(self, report: GameReport) -> None:
        """Add the game's rows, or drop its events when it is a duplicate or a conflict."""
        buf = self._buf
        start = self._start
        gid = report.game_id if report.game_id is not None else _orphan_key(report)
        h = content_hash(buf.ev.raw[start:], report.violation, report.events)
        seen = self.known.get(gid)
        if seen is not None:
            if seen[0] == h:
                self.duplicates += 1
            else:
                self.conflicts.append(Conflict(gid, report.file, report.line, seen[1], seen[2]))
            buf.ev.truncate(start)
            return
        self.known[gid] = (h, report.file, report.line)
        self.added += 1
        stored = len(buf.ev) - start
        if stored:
            buf.ev.game_ids.append(gid)
            buf.ev.game_counts.append(stored)
        header = report.header
        v = report.violation
        info = self._info
        g = buf.games
        g["game_id"].append(gid)
        g["match_id"].append(header.match_id if header else None)
        g["round"].append(header.round if header else None)
        g["header_ruleset"].append(header.ruleset if header else None)
        g["options"].append(info.options if info else None)
        g["options_hash"].append(info.options_hash if info else None)
        g["players"].append(list(header.players) if header else None)
        g["n_players"].append(len(header.players) if header else None)
        g["dealer"].append(header.dealer if header else None)
        g["started_at"].append(header.started_at if header else None)
        g["events"].append(report.events)
        g["valid"].append(v is None)
        g["violation_code"].append(v.code if v else None)
        g["violation_index"].append(v.event_index if v else None)
        g["winner"].append(report.winner)
        g["source_file"].append(report.file)
        g["source_line"].append(report.line)
        g["content_hash"].append(h)
        g["ingested_at"].append(self.ingested_at)
        e = report.engine
        mid = header.match_id if header else None
        if mid is not None:
            self.touched.add(mid)
        if e is not None and info is not None:
            turns = dict(e.turns)
            skipped = dict(e.skipped)
            r = buf.results
            winner = report.winner
            scores = e.scores if info.scored and v is None else None
            points = info.points
            rnd = header.round if header else None
            if mid is not None and rnd is None and e.match is not None:
                rnd = e.match.round
            after = self._running_totals(mid, rnd, scores, e.match_over)
            for seat, p in enumerate(e.players):
                c = self._ctr[p]
                hand = e.hands[p]
                r["game_id"].append(gid)
                r["player"].append(p)
                r["seat"].append(seat)
                r["valid"].append(v is None)
                r["won"].append(winner == p)
                r["cards_left"].append(len(hand))
                r["points_left"].append(sum(points[x] for x in hand))
                r["round_score"].append(scores[p] if scores is not None else None)
                for col, slot in _RESULT_COUNTERS:
                    r[col].append(c[slot])
                r["calls_missed"].append(e.call_faults[p])
                r["turns"].append(turns.get(p, 0))
                r["skipped"].append(skipped.get(p, 0))
                r["match_id"].append(mid)
                r["round"].append(rnd if mid is not None else None)
                r["total_after"].append(after.get(p) if after is not None else None)
        if v is not None:
            row = v.to_dict()
            row["game_id"] = gid
            row["raw"] = logged_line(report.violation_raw)
            for k, val in row.items():
                buf.violations[k].append(val)
        if self.writer is not None and self.pending_events() >= self.batch_events:
            self.flush()

    def _running_totals(
        self, mid: str | None, rnd: int | None, scores: Mapping[str, int] | None, over: bool
    ) -> dict[str, int] | None:
        """Running totals after this round, where the rounds before it were all seen in
        this ingest, valid and scored; else None (:func:`update_matches` then fills them
        from the stored rounds, by the same rule)."""
        if mid is None:
            return None
        expected, totals = self._runs.get(mid, (1, {}))
        if rnd == 1 and mid in self._runs:
            totals = None  # round 1 twice
        if totals is None or rnd != expected or scores is None:
            self._runs[mid] = (expected + 1, None)
            return None
        after = add_scores(totals, scores)
        self._runs[mid] = (expected + 1, None if over else after)
        return after

    # -- output

    def pending_events(self) -> int:
        """Events buffered and not yet written."""
        return sum(b.n_events for b in self.buffers.values())

    def flush(self) -> None:
        """Write every buffered partition as one row group per table, then clear them."""
        if self.writer is None:
            raise RuntimeError("flush() needs a writer; use tables() instead")
        for (ruleset, date), buf in self.buffers.items():
            if buf.games["game_id"] or buf.n_events:
                self.writer.write(ruleset, date, buf.tables())
        self.buffers = {}
        self.intern = _Intern()
        self._buf = _Buffers(self.intern)
        self._ev = self._buf.ev

    def tables(self) -> dict[tuple[str, str], dict[str, pa.Table]]:
        """The buffered rows as pyarrow tables: (ruleset, date) to table name to table."""
        return {part: buf.tables() for part, buf in self.buffers.items()}


# ---------------------------------------------------------------------------------------
# Ingest


@dataclass
class IngestSummary:
    """What an ingest read and stored.

    Attributes:
        dataset: the dataset folder.
        files: log files read.
        games: games read (valid or not, duplicates and conflicts included).
        invalid: games read that have a violation.
        events: events read (every game's event count, the header included).
        added: games stored by this ingest.
        duplicates: games skipped because the dataset already held them unchanged.
        conflicts: games skipped because their id is stored with other content.
        violations: the first violation of every invalid game read, in order.
        rows: rows written per table.
        seconds: wall time of the ingest.
        game_ids: the id of every game read (``?file:line`` for a game without one).
        unreadable: files that could not be read (binary, no permission), as
            ``"path: why"``; the other files' games are stored.
    """

    dataset: str
    files: int = 0
    games: int = 0
    invalid: int = 0
    events: int = 0
    added: int = 0
    duplicates: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    game_ids: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @property
    def valid(self) -> int:
        """Games read with no violation."""
        return self.games - self.invalid

    @property
    def exit_code(self) -> int:
        """0 when every game read is valid and nothing conflicted; 2 when a file could not
        be read and no game was; else 1."""
        if self.unreadable and not self.games:
            return 2
        return 1 if self.invalid or self.conflicts or self.unreadable else 0


def _orphan_key(report: GameReport) -> str:
    """The key of events outside any game: the file's real path and line, so that another
    spelling of the same path names the same rows."""
    return f"?{os.path.realpath(report.file)}:{report.line}"


def _replay_readable(
    replayer: Replayer, files: Iterable[str | Path], unreadable: list[str]
) -> Iterator[GameReport]:
    """Replay every file; one that cannot be read at all is noted in ``unreadable`` and the
    others go on (one bad file never loses the good games around it)."""
    for f in files:
        try:
            yield from replayer.replay_file(f)
        except LogReadError as exc:
            if exc.line is not None:
                raise
            unreadable.append(str(exc))


def ingest(
    paths: Iterable[str | Path],
    dataset: str | Path,
    rules_file_options: Mapping[str, Any] | None = None,
    batch_events: int = BATCH_EVENTS,
    on_report: Callable[[GameReport], None] | None = None,
) -> IngestSummary:
    """Replay logs and add their games to a Parquet dataset (crash-safe, idempotent).

    Args:
        paths: log files and folders, as for ``validate`` (:func:`expand_paths`).
        dataset: the dataset folder (created when missing).
        rules_file_options: options of a ``--rules`` file, or None.
        batch_events: buffered events per row group.
        on_report: called with every game's report as it is replayed (progress, tallies).
    Returns:
        The :class:`IngestSummary`. Games already stored with the same content hash are
        skipped; a stored id with other content is a conflict (listed, not stored).
    Raises:
        LogReadError: a path given is missing (nothing is stored); a file found that
            cannot be read is listed in ``unreadable`` instead.
        DatasetError: the dataset folder cannot be used (see :class:`DatasetWriter`).
    """
    t0 = time.perf_counter()
    files = expand_paths([str(p) for p in paths])
    summary = IngestSummary(dataset=str(dataset), files=len(files))
    with DatasetWriter(dataset) as writer:
        known = known_games(dataset)
        collector = RecordCollector(writer, known, batch_events=batch_events)
        replayer = Replayer(rules_file_options, visitors=[collector])
        for report in _replay_readable(replayer, files, summary.unreadable):
            summary.games += 1
            summary.events += report.events
            if report.violation is not None:
                summary.invalid += 1
                summary.violations.append(report.violation)
            summary.game_ids.append(
                report.game_id if report.game_id is not None else _orphan_key(report)
            )
            if on_report is not None:
                on_report(report)
        collector.flush()
        update_matches(writer, collector.touched)
        summary.added = collector.added
        summary.duplicates = collector.duplicates
        summary.conflicts = collector.conflicts
        summary.rows = dict(writer.rows)
        writer.commit(
            {
                "at": collector.ingested_at.isoformat(timespec="seconds"),
                "games_added": collector.added,
                "rows": dict(writer.rows),
                "sources": [str(f) for f in files][:1000],
            }
        )
    summary.seconds = time.perf_counter() - t0
    return summary


# ---------------------------------------------------------------------------------------
# Matches: the matches table and the running totals (issue 6)


@dataclass
class MatchRound:
    """One stored round of a match, as :func:`match_rows` reads it.

    Attributes:
        game_id, round, valid, winner, dealer, players: from the ``games`` row (``round``
            as the replay numbered it where the header gave none).
        scores: player to round score (the ``results`` rows), None where the round is
            invalid or unscored.
        match_end: the round's accepted ``match_end`` (its raw JSON decoded), or None.
    """

    game_id: str
    round: int | None
    valid: bool
    winner: str | None
    dealer: str | None
    players: list[str]
    scores: dict[str, int] | None
    match_end: dict[str, Any] | None = None


def _match_rules(ruleset: str | None, options: str | None) -> Ruleset | None:
    if ruleset is None or options is None or ruleset == UNKNOWN:
        return None
    try:
        return resolve(ruleset, None, json.loads(options))
    except (RulesetError, ValueError):
        return None


def match_rows(
    match_id: str, rules: Ruleset | None, rounds: list[MatchRound]
) -> tuple[dict[str, Any], dict[str, dict[str, int] | None]]:
    """A match's ``matches`` row and every round's running totals, from its stored rounds.

    The rounds are taken in order of ``round`` (then game id). The running totals are
    known from round 1 on while each round is the next number, valid and scored, and the
    match was not over before it (PRESETS.md ruling 14, :func:`maumau_log.matches.is_over`);
    from the first round that breaks this on they are unknown (None). Under ``scoring =
    "none"`` (a match decided by ``loser_hand_shrink``) every round scores 0 for the match's
    end and winner, and the running totals are None.

    Returns:
        ``(row, totals)``: ``row`` has the ``matches`` columns (without the ingest times):

        - ``players``: the seats of the first stored round.
        - ``rounds``: rounds stored; ``valid_rounds``: of them valid.
        - ``totals``: per player of ``players``, the sum of the scores of the valid rounds
          stored (the final totals when the match is valid).
        - ``over``: the stored rounds reach the match's end (target or round count).
        - ``ended``: a ``match_end`` was accepted in a stored round.
        - ``valid``: rounds 1..n all stored and valid, the match over exactly after round
          n, whose ``match_end`` (the only one) claims those totals and that winner.
        - ``winner``: the match winner once over (highest or lowest total, then most
          rounds won), None for a draw or a match not over; ``draw``: True for a draw,
          False for a match won, None while not over.

        ``totals`` maps each round's game id to the running totals after it (None when
        not known).
    """
    order = sorted(rounds, key=lambda r: (r.round is None, r.round or 0, r.game_id))
    players = list(order[0].players) if order else []
    st = MatchState(match_id, tuple(players), rules.key if rules is not None else "")
    running: dict[str, int] = dict.fromkeys(players, 0)
    sums: dict[str, int] = dict.fromkeys(players, 0)
    known = rules is not None
    expected = 1
    over_at: int | None = None
    winner: str | None = None
    valid_rounds = 0
    after: dict[str, dict[str, int] | None] = {}
    scored = rules is not None and rules.scoring != "none"
    for r in order:
        scores = r.scores if scored else dict.fromkeys(r.players, 0)
        if r.valid:
            valid_rounds += 1
            if scores is not None:
                sums = add_scores(sums, scores)
        ok = known and r.round == expected and r.valid and scores is not None
        if ok and over_at is None and rules is not None and scores is not None:
            running = add_scores(running, scores)
            won = Counter(st.rounds_won)
            if r.winner is not None:
                won[r.winner] += 1
            st.record_round(r.players, r.dealer or "", r.winner, running, won, False, False)
            left = st.players_left(rules)
            if is_over(rules, running, expected, len(left)):
                over_at = expected
                winner = match_winner(rules, players, running, won, left)
            after[r.game_id] = dict(running) if scored else None
        else:
            known = False
            after[r.game_id] = None
        expected = (r.round if r.round is not None else expected) + 1
    ends = [r for r in order if r.match_end is not None]
    last = order[-1] if order else None
    proper = (
        known
        and last is not None
        and over_at == last.round
        and len(ends) == 1
        and ends[0] is last
        and _claims_hold(last.match_end, running, winner)
    )
    row = {
        "match_id": match_id,
        "players": players,
        "rounds": len(order),
        "valid_rounds": valid_rounds,
        "totals": [{"player": p, "total": sums.get(p, 0)} for p in players],
        "over": over_at is not None,
        "ended": bool(ends),
        "valid": bool(proper),
        "winner": winner,
        "draw": (winner is None) if over_at is not None else None,
    }
    return row, after


def _claims_hold(end: dict[str, Any] | None, totals: Mapping[str, int], winner: str | None) -> bool:
    """Whether a ``match_end`` claims these totals (where it gives any) and this winner."""
    if end is None:
        return False
    claimed = end.get("totals")
    if isinstance(claimed, dict) and any(
        claimed.get(p) != totals.get(p, 0) for p in set(claimed) | set(totals)
    ):
        return False
    return end.get("winner") == winner


_ROUND_GAME_COLUMNS = (
    "game_id", "match_id", "round", "players", "dealer", "valid", "winner", "options",
    "ingested_at", "ruleset", "date",
)  # fmt: skip
_ROUND_RESULT_COLUMNS = (
    "game_id", "player", "seat", "round_score", "match_id", "round", "total_after", "_file",
)  # fmt: skip


def _read_rounds(
    writer: DatasetWriter, match_ids: set[str]
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, dict[str, Any]]]:
    """The stored rounds of some matches: games rows, results rows (with ``_file``, the
    file each comes from) and each round's accepted ``match_end``."""
    ids = sorted(match_ids)
    games = (
        scan_paths("games", [p for _, p in writer.files("games")])
        .filter(pl.col("match_id").is_in(ids))
        .select(_ROUND_GAME_COLUMNS)
        .collect()
    )
    if games.height == 0:
        return games, pl.DataFrame(), {}
    gids = games["game_id"].to_list()
    parts = (
        pl.col("ruleset").is_in(games["ruleset"].unique().to_list())
        & pl.col("date").is_in(games["date"].unique().to_list())
        & pl.col("game_id").is_in(gids)
    )
    results = (
        scan_paths("results", [p for _, p in writer.files("results")], include_file_paths="_file")
        .filter(parts)
        .select(_ROUND_RESULT_COLUMNS)
        .collect()
    )
    ends = (
        scan_paths("events", [p for _, p in writer.files("events")])
        .filter(parts & (pl.col("type") == "match_end"))
        .select("game_id", "raw")
        .collect()
    )
    match_end = {gid: json.loads(raw) for gid, raw in ends.iter_rows()}
    return games, results, match_end


def update_matches(writer: DatasetWriter, match_ids: set[str]) -> None:
    """Recompute the ``matches`` rows and the ``results`` running totals of some matches.

    Called by :func:`ingest` with the matches it added rounds to, after its rows are
    written: every stored round of those matches (published or just written) is read
    back, :func:`match_rows` computes the match and the running totals, and every file
    whose rows differ is replaced through the writer (so the change is published with the
    ingest, atomically, or not at all). Rounds of one match may so arrive in any ingest and
    any order.

    Args:
        writer: the open ingest's writer (its files are closed here).
        match_ids: the matches to recompute.
    """
    if not match_ids:
        return
    writer.close_files()
    games, results, ends = _read_rounds(writer, match_ids)
    if games.height == 0:
        return
    scores: dict[str, dict[str, int] | None] = {}
    result_round: dict[str, int] = {}
    if results.height:
        for gid, player, score, rnd in results.select(
            "game_id", "player", "round_score", "round"
        ).iter_rows():
            cur = scores.setdefault(gid, {})
            if cur is not None:
                scores[gid] = None if score is None else {**cur, player: score}
            if rnd is not None:
                result_round[gid] = rnd
    rows: list[dict[str, Any]] = []
    fixes: dict[str, tuple[str, int | None, dict[str, int] | None]] = {}
    for (mid,), part in games.sort("round", "game_id", nulls_last=True).group_by(
        "match_id", maintain_order=True
    ):
        first = part.row(0, named=True)
        rounds = []
        for g in part.iter_rows(named=True):
            rnd = g["round"] if g["round"] is not None else result_round.get(g["game_id"])
            rounds.append(
                MatchRound(
                    game_id=g["game_id"],
                    round=rnd,
                    valid=bool(g["valid"]),
                    winner=g["winner"],
                    dealer=g["dealer"],
                    players=list(g["players"] or []),
                    scores=scores.get(g["game_id"]) if g["valid"] else None,
                    match_end=ends.get(g["game_id"]),
                )
            )
            fixes[g["game_id"]] = (str(mid), rnd, None)
        row, after = match_rows(str(mid), _match_rules(first["ruleset"], first["options"]), rounds)
        for gid, totals in after.items():
            fixes[gid] = (fixes[gid][0], fixes[gid][1], totals)
        times = part["ingested_at"]
        row["first_ingest"] = times.min()
        row["last_ingest"] = times.max()
        row["_part"] = (first["ruleset"], first["date"])
        rows.append(row)
    _fix_results(writer, results, fixes)
    _replace_matches(writer, {str(r["match_id"]) for r in rows}, rows)


def _fix_results(
    writer: DatasetWriter,
    results: pl.DataFrame,
    fixes: Mapping[str, tuple[str, int | None, dict[str, int] | None]],
) -> None:
    """Rewrite the ``results`` files whose match columns differ from ``fixes``."""
    if results.height == 0:
        return
    rows = []
    for gid, p in results.select("game_id", "player").iter_rows():
        fix = fixes.get(gid)
        if fix is not None:
            mid, rnd, totals = fix
            rows.append((gid, p, mid, rnd, totals.get(p) if totals is not None else None))
    want = pl.DataFrame(
        rows,
        schema={
            "game_id": pl.String,
            "player": pl.String,
            "_mid": pl.String,
            "_round": pl.Int32,
            "_total": pl.Int32,
        },
        orient="row",
    )
    cmp = results.join(want, on=["game_id", "player"], how="inner")
    differs = cmp.filter(
        pl.col("match_id").ne_missing(pl.col("_mid"))
        | pl.col("round").ne_missing(pl.col("_round"))
        | pl.col("total_after").ne_missing(pl.col("_total"))
    )
    if differs.height == 0:
        return
    where = {str(path): rel for rel, path in writer.files("results")}
    for file in differs["_file"].unique().sort().to_list():
        rel = where[file]
        df = pl.from_arrow(pq.ParquetFile(file).read())
        assert isinstance(df, pl.DataFrame)
        for name, dtype in polars_schema("results").items():
            if name not in df.columns:
                df = df.with_columns(pl.lit(None, dtype).alias(name))
        df = (
            df.join(want, on=["game_id", "player"], how="left", maintain_order="left")
            .with_columns(
                pl.when(pl.col("_mid").is_not_null()).then(pl.col(c)).otherwise(pl.col(o)).alias(o)
                for c, o in (("_mid", "match_id"), ("_round", "round"), ("_total", "total_after"))
            )
            .select(SCHEMAS["results"].names)
        )
        writer.replace("results", rel, df.to_arrow())


def _replace_matches(writer: DatasetWriter, ids: set[str], rows: list[dict[str, Any]]) -> None:
    """Drop the old ``matches`` rows of ``ids`` and write ``rows`` in their place."""
    files = writer.files("matches")
    if files:
        old = (
            scan_paths("matches", [p for _, p in files], include_file_paths="_file")
            .filter(pl.col("match_id").is_in(sorted(ids)))
            .select("_file")
            .unique()
            .collect()
        )
        where = {str(path): rel for rel, path in files}
        for file in sorted(old["_file"].to_list()):
            table = pq.ParquetFile(file).read()
            keep = pc.invert(pc.is_in(table.column("match_id"), pa.array(sorted(ids))))
            writer.replace("matches", where[file], table.filter(keep))
    by_part: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_part.setdefault(row.pop("_part"), []).append(row)
    for (ruleset, date), part_rows in sorted(by_part.items()):
        table = pa.Table.from_pylist(part_rows, schema=SCHEMAS["matches"])
        writer.write(ruleset, date, {"matches": table})


# ---------------------------------------------------------------------------------------
# Reading a game back


@dataclass
class StoredGame:
    """One game read back from a dataset (the dispute view's data).

    Attributes:
        game: the ``games`` row (plus ``ruleset`` and ``date``).
        results: the ``results`` rows, in seat order.
        violations: the ``violations`` rows.
        stored_events: how many events the dataset holds for the game (0..n-1).
        at: the event asked for (None when no event is stored).
        event: the ``events`` row of event ``at`` (without ``raw``), or None (also at the
            violating event, which is not stored: see ``logged``).
        state: ``Engine.view()`` after event ``at``; at the violating event, the state
            right before it (after event ``at - 1``); None when it cannot be rebuilt.
        at_violation: True when ``at`` is the game's violating event.
        logged: at the violating event, the line as logged (``violations.raw``; None for a
            dataset written before it was stored).
    """

    game: dict[str, Any]
    results: list[dict[str, Any]]
    violations: list[dict[str, Any]]
    stored_events: int
    at: int | None
    event: dict[str, Any] | None
    state: dict[str, Any] | None
    at_violation: bool = False
    logged: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (times as ISO text; ``game.options`` as a JSON object)."""
        game = dict(self.game)
        if isinstance(game.get("ingested_at"), datetime):
            game["ingested_at"] = game["ingested_at"].isoformat()
        if isinstance(game.get("options"), str):
            game["options"] = json.loads(game["options"])
        return {
            "game": game,
            "results": self.results,
            "violations": self.violations,
            "stored_events": self.stored_events,
            "at": self.at,
            "state_is": "before" if self.at_violation else "after",
            "event": self.event,
            "logged_event": self.logged,
            "state": self.state,
        }


def rebuild_state(ruleset: str, options: str, raws: list[str], at: int) -> dict[str, Any]:
    """Replay stored events through the engine and return the state after event ``at``.

    Args:
        ruleset: the canonical preset name (the ``ruleset`` partition).
        options: the game's effective options JSON (``games.options``).
        raws: the stored ``raw`` JSON of events 0..k, header first.
        at: the event to stop after (0 is the header).
    Returns:
        ``Engine.view()`` (hands, top, suit, pending draw and skip, direction, turn, calls due).
    Raises:
        DatasetError: the stored events do not replay (a damaged or foreign dataset).
    """
    try:
        rules = resolve(ruleset, None, json.loads(options))
        header = decode_event(raws[0])
        if not isinstance(header, Game):
            raise DatasetError("event 0 of the stored game is not its header")
        engine = Engine(rules, header)
        for raw in raws[1 : at + 1]:
            engine.apply(decode_event(raw))
    except (RuleViolation, RulesetError, msgspec.DecodeError, ValueError) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(f"the stored events do not replay: {exc}") from exc
    return engine.view()


def load_game(dataset: str | Path, game_id: str, at: int | None = None) -> StoredGame:
    """Read one game from a dataset and rebuild the state at event ``at``.

    ``at`` is the event index a report gives (header = 0, as ``validate`` counts): for a
    stored (accepted) event, the state after it; for an invalid game's violating event
    (``games.violation_index``), the state right before it, with the line as logged
    (issue 15, item 4).

    Args:
        dataset: the dataset folder.
        game_id: the game's id (``games.game_id``).
        at: the event index (0 = header); None for the last stored event.
    Returns:
        The :class:`StoredGame`.
    Raises:
        DatasetError: no such dataset or game, or ``at`` neither a stored event nor the
            violating one (the message says which events there are).
    """
    tables = scan_all(dataset)
    games = tables["games"].filter(pl.col("game_id") == game_id).collect()
    if games.height == 0:
        raise DatasetError(f"no game {game_id!r} in {dataset}")
    game = games.row(0, named=True)
    part = (pl.col("ruleset") == game["ruleset"]) & (pl.col("date") == game["date"])
    mine = part & (pl.col("game_id") == game_id)
    results = tables["results"].filter(mine).sort("seat").drop("ruleset", "date").collect()
    violations = tables["violations"].filter(mine).drop("ruleset", "date").collect()
    events = tables["events"].filter(mine).sort("event_index").drop("date").collect()
    n = events.height
    bad = game["violation_index"] if not game["valid"] else None
    at_violation = at is not None and bad is not None and at == bad
    if at is None:
        at = n - 1 if n else None
    elif not at_violation and not 0 <= at < n:
        where = f"events 0..{n - 1} are stored" if n else "no events are stored"
        if bad is not None:
            why = (
                f"; the replay stopped at event {bad} ({game['violation_code']}): use --at "
                f"{bad} for the state before it and the event as logged"
            )
            last = game["events"] - 1
            if bad < at <= last:
                after = f"event {last}" if last == bad + 1 else f"events {bad + 1}..{last}"
                why += f"; {after} not replayed"
        else:
            why = ""
        raise DatasetError(f"game {game_id!r}: no event {at} ({where}{why})")
    state = event = None
    logged = None
    replayable = game["options"] is not None and game["ruleset"] != UNKNOWN
    raws = events["raw"].to_list()
    if at_violation:
        assert at is not None
        rows = violations.filter(pl.col("event_index") == at)
        if rows.height and "raw" in rows.columns:
            logged = rows["raw"][0]
        if replayable and 1 <= at <= n:
            state = rebuild_state(game["ruleset"], game["options"], raws, at - 1)
    elif at is not None:
        row = events.row(at, named=True)
        event = {k: v for k, v in row.items() if k not in ("raw", "ruleset")}
        if replayable:
            state = rebuild_state(game["ruleset"], game["options"], raws, at)
    return StoredGame(
        game=game,
        results=results.to_dicts(),
        violations=violations.to_dicts(),
        stored_events=n,
        at=at,
        event=event,
        state=state,
        at_violation=at_violation,
        logged=logged,
    )


# ---------------------------------------------------------------------------------------
# Reading a match back


@dataclass
class StoredMatch:
    """One match read back from a dataset: its ``matches`` row and its score sheet.

    Attributes:
        match: the ``matches`` row (plus ``ruleset`` and ``date``), with ``totals`` as a
            dict player to total.
        rounds: one dict per stored round, in round order: ``round``, ``game_id``,
            ``dealer``, ``winner``, ``valid``, ``scores`` (player to round score, None
            where unknown) and ``totals`` (player to running total after the round, None
            where unknown: the ``results`` column ``total_after``).
    """

    match: dict[str, Any]
    rounds: list[dict[str, Any]]

    @property
    def players(self) -> list[str]:
        """The match's seats."""
        return list(self.match["players"] or [])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (times as ISO text)."""
        match = dict(self.match)
        for key in ("first_ingest", "last_ingest"):
            if isinstance(match.get(key), datetime):
                match[key] = match[key].isoformat()
        return {"match": match, "rounds": self.rounds}


def load_match(dataset: str | Path, match_id: str) -> StoredMatch:
    """Read one match from a dataset: its ``matches`` row and its rounds' score sheet.

    Args:
        dataset: the dataset folder.
        match_id: the match's id.
    Returns:
        The :class:`StoredMatch`.
    Raises:
        DatasetError: no such dataset; a dataset with no ``matches`` table (written before
            matches were stored, or holding no match round); no such match.
    """
    tables = scan_all(dataset)
    found = tables["matches"].filter(pl.col("match_id") == match_id).collect()
    if found.height == 0:
        if tables["matches"].select(pl.len()).collect().item() == 0:
            raise DatasetError(
                f"{dataset}: no matches table (no match rounds stored, or a dataset written "
                "before matches were stored: ingest its logs into a new dataset)"
            )
        raise DatasetError(f"no match {match_id!r} in {dataset}")
    match = found.row(0, named=True)
    match["totals"] = {t["player"]: t["total"] for t in match["totals"] or []}
    games = (
        tables["games"]
        .filter(pl.col("match_id") == match_id)
        .select("game_id", "round", "dealer", "winner", "valid", "ruleset", "date")
        .collect()
    )
    parts = (
        pl.col("ruleset").is_in(games["ruleset"].unique().to_list())
        & pl.col("date").is_in(games["date"].unique().to_list())
        & pl.col("game_id").is_in(games["game_id"].to_list())
    )
    results = (
        tables["results"]
        .filter(parts)
        .select("game_id", "player", "seat", "round_score", "round", "total_after")
        .sort("game_id", "seat")
        .collect()
    )
    by_game: dict[str, list[dict[str, Any]]] = {}
    for r in results.iter_rows(named=True):
        by_game.setdefault(r["game_id"], []).append(r)
    rounds = []
    for g in games.iter_rows(named=True):
        rows = by_game.get(g["game_id"], [])
        rnd = g["round"]
        if rnd is None and rows:
            rnd = rows[0]["round"]
        rounds.append(
            {
                "round": rnd,
                "game_id": g["game_id"],
                "dealer": g["dealer"],
                "winner": g["winner"],
                "valid": g["valid"],
                "scores": {r["player"]: r["round_score"] for r in rows},
                "totals": {r["player"]: r["total_after"] for r in rows},
            }
        )
    rounds.sort(key=lambda r: (r["round"] is None, r["round"] or 0, r["game_id"]))
    return StoredMatch(match=match, rounds=rounds)
