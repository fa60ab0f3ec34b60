"""Replay records: a visitor that turns a replay into dataset rows.

:class:`RecordCollector` is a :class:`~maumau_log.replay.ReplayVisitor`. For every event
the engine accepts it appends one value per column to plain Python lists (no dict per row:
the visitor runs for every event, so its work is kept to a few appends); at the end of each
game it adds the game's ``games``, ``results`` and ``violations`` rows, or drops the game
when the dataset already holds it. Every ``batch_events`` events the buffers become pyarrow
tables and go to the :class:`~maumau_log.store.DatasetWriter` (or stay in memory for
:func:`maumau_log.shard.run_shard`).
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from .engine import PLAY as PHASE_PLAY
from .events import (
    Call,
    Cut,
    Draw,
    Event,
    Game,
    Penalty,
    Play,
    SuitChoice,
)
from .matches import add_scores
from .replay import GameReport, is_iso_datetime
from .rules import Ruleset
from .shard import orphan_key
from .store import (
    RAW_LIMIT,
    SCHEMAS,
    UNKNOWN,
    DatasetWriter,
    partition_value,
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
        gid = report.game_id if report.game_id is not None else orphan_key(report)
        h = content_hash(buf.ev.raw[start:], report.violation, report.events)
        report.extra["content_hash"] = h
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
                # a card hidden in a partial log has no known points: null, not a crash
                known = "?" not in hand
                r["points_left"].append(sum(points[x] for x in hand) if known else None)
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
