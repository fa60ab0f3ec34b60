"""Replay records: a visitor that turns a replay into dataset rows.

:class:`RecordCollector` is a :class:`~maumau_log.replay.driver.ReplayVisitor`. For every event
the engine accepts it appends one value per column to typed arrays (no dict per row: the
visitor runs for every event, so its work is kept to a few appends); at the end of each
game it adds the game's ``games``, ``results`` and ``violations`` rows, or drops the game
when the dataset already holds it. Every ``batch_events`` events the buffers become pyarrow
tables and go to the :class:`~maumau_log.store.DatasetWriter` (or stay in memory for
:func:`maumau_log.run.shard.run_shard`).

This module and :mod:`.facts` are compiled with the engine when the build can
(``hatch_build.EXTRA``): the per-event visitor then reads the engine's fields as C struct
members and calls the column appends without the interpreter (in pure Python it was 60% of
an ``ingest --jobs 1``, six times the CPU of ``validate``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Final

import pyarrow as pa

from ..engine import PLAY as PHASE_PLAY
from ..events import (
    Call,
    Cut,
    Draw,
    Event,
    Penalty,
    Play,
    SuitChoice,
)
from ..replay.checks import number_text
from ..replay.driver import GameReport
from ..replay.game_ids import orphan_key
from ..scoring.matches import add_scores
from ..violations import Violation
from . import (
    UNKNOWN,
    DatasetWriter,
    partition_value,
)
from .counters import (
    CALLS,
    DRAW_SLOT,
    N_SLOTS,
    PEN,
    PEN_OTHER,
    PEN_SLOT,
    PLAYED,
    RESULT_COUNTERS,
    SUITS,
    RulesInfo,
)
from .facts import GameFactsRecorder, header_client
from .layout import INT_MAX
from .rows import (
    _TAG,
    Conflict,
    _Buffers,
    _encode,
    _EventColumns,
    _Intern,
    _tag,
    content_hash,
    game_date,
    logged_line,
    options_json,  # noqa: F401  (re-exported: run.ingest imports it from here)
)

_I32 = INT_MAX["i32"]
_I64 = INT_MAX["i64"]

_PLAY: Final = Play
_DRAW: Final = Draw
_SUIT_CHOICE: Final = SuitChoice
_CALL: Final = Call
_PENALTY: Final = Penalty
_CUT: Final = Cut
"""The event types as final names (compiled: C statics, not a dict look-up per event)."""

_UNSEEN: Final = "\x00unseen"
"""Stands for "no code looked up yet" in the top-card and suit caches of the per-event path
(a string no engine holds, compared by identity)."""

BATCH_EVENTS = 400_000
"""Buffered events that trigger writing a row group (bounds the memory of an ingest)."""


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
        self._rules: dict[str, RulesInfo] = {}
        self.added = 0
        self.duplicates = 0
        self.conflicts: list[Conflict] = []
        self.intern = _Intern()
        self._buf = _Buffers(self.intern)
        self._type_codes: dict[type, int] = {}
        self._top: str | None = _UNSEEN
        self._stf: str | None = _UNSEEN
        self._bind(self._buf.ev)
        self._seat_codes: list[int] = []
        self._fields: dict[type, tuple[bool, bool]] = {}
        self._ctr: dict[str, list[int]] = {}
        self._seats: dict[str, tuple[list[int], int]] = {}
        self._info: RulesInfo | None = None
        self._pending = 0
        self._part = (UNKNOWN, UNKNOWN)
        self.touched: set[str] = set()
        self._runs: dict[str, tuple[int, dict[str, int] | None]] = {}
        self._facts = GameFactsRecorder()

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
        if ev is not self._ev:
            self._bind(ev)
        self._row0 = ev.rows  # the game's first row among the buffer's rows
        self._pending = 0
        self._info = None
        if rules is not None:
            info = self._rules.get(rules.key)
            if info is None:
                info = self._rules[rules.key] = RulesInfo(rules)
            self._info = info
        players = list(header.players) if header is not None else []
        self._ctr = {p: [0] * N_SLOTS for p in players}
        self._facts.begin(header, rules)
        self._seat_codes = [self._code(p) for p in players]
        # per seat, its counters and its code: one look-up of the player per event
        self._seats = {p: (self._ctr[p], self._code(p)) for p in players}
        if header is None:
            return
        self._c_index.append(0)
        self._c_line.append(report.line)
        self._c_type.append(self._code("game"))
        self._c_player.append(-1)
        self._c_ncards.append(-1)
        self._c_suit.append(-1)
        self._c_reason.append(-1)
        self._c_top.append(-1)
        # the game's first row starts a run of each run-length column (rows.RUN_COLUMNS)
        row0 = self._row0
        self._stf_run = -1
        self._c_stf_at.append(row0)
        self._c_stf.append(-1)
        self._pd_run = 0
        self._c_pd_at.append(row0)
        self._c_pd.append(0)
        self._ps_run = 0
        self._c_ps_at.append(row0)
        self._c_ps.append(0)
        self._dir_run = 1
        self._c_dir_at.append(row0)
        self._c_dir.append(1)
        self._c_hs.extend([0] * len(players))
        self._c_nhands.append(len(players))
        self._c_turn.append(-1)
        self._c_raw.append(_encode(header))

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        """Append one accepted event and the state it left; count it for ``results``.
        ``raw`` (the line as read) is stored as the event's JSON."""
        e = report.engine
        assert e is not None
        t = type(event)
        # a field the event's type lacks is not looked up: getattr's default costs an
        # AttributeError raised and caught (deal, pass, reshuffle, round_end, match_end)
        fields = self._fields.get(t)
        if fields is None:
            names = getattr(t, "__struct_fields__", ())
            fields = self._fields[t] = ("player" in names, "reason" in names)
        player: str | None = getattr(event, "player") if fields[0] else None  # noqa: B009
        # the player's counters and code, looked up once (a seat of the game, else None)
        seat = self._seats.get(player) if player is not None else None
        cards: list[str] | None = None
        suit: str | None = None
        reason: str | None = None
        if t is _PLAY:
            cards = event.cards  # type: ignore[union-attr]
            c = seat[0] if seat is not None else self._ctr[player]  # type: ignore[index]
            c[PLAYED] += len(cards)  # type: ignore[arg-type]
            info = self._info
            assert info is not None
            kinds = info.kinds
            for card in cards:  # type: ignore[union-attr]
                for slot in kinds[card]:
                    c[slot] += 1
        elif t is _DRAW:
            cards = event.cards  # type: ignore[union-attr]
            if cards is None:
                count: int | None = event.count  # type: ignore[union-attr]
                n = count if count is not None else 1
                hand = e.hands[player]  # type: ignore[index]
                cards = hand[len(hand) - n :]
            reason = event.reason or ("effect" if self._pending else "no_play")  # type: ignore[union-attr]
            c = seat[0] if seat is not None else self._ctr[player]  # type: ignore[index]
            c[DRAW_SLOT[reason]] += len(cards)
        elif t is _SUIT_CHOICE:
            suit = event.suit  # type: ignore[union-attr]
            c = seat[0] if seat is not None else self._ctr[player]  # type: ignore[index]
            c[SUITS] += 1
        elif t is _CALL:
            reason = event.call  # type: ignore[union-attr]
            c = seat[0] if seat is not None else self._ctr[player]  # type: ignore[index]
            c[CALLS] += 1
        elif t is _PENALTY:
            reason = event.reason  # type: ignore[union-attr]
            cards = event.cards  # type: ignore[union-attr]
            if cards is None:
                hand = e.hands[player]  # type: ignore[index]
                count = event.count  # type: ignore[union-attr]
                n = count if count is not None else 0
                cards = hand[len(hand) - n :] if n else []
            c = seat[0] if seat is not None else self._ctr[player]  # type: ignore[index]
            c[PEN] += 1
            c[PEN_SLOT.get(reason or "", PEN_OTHER)] += len(cards)
        elif t is _CUT:
            cards = event.taken  # type: ignore[union-attr]
        else:
            reason = getattr(event, "reason") if fields[1] else None  # noqa: B009
        local = len(self._c_index)  # this event's row in the game (a new run on row 0)
        row = self._row0 + local
        self._c_index.append(index)
        self._c_line.append(line)
        code = self._type_codes.get(t)
        if code is None:
            code = self._type_codes[t] = self._code(_TAG.get(t) or _tag(t))
        self._c_type.append(code)
        self._c_player.append(seat[1] if seat is not None else self._code(player))
        card_codes = self._c_cards
        if cards is None:
            self._c_ncards.append(-1)
        else:
            self._c_ncards.append(len(cards))
            codes = self._codes
            for x in cards:
                k = codes.get(x)
                card_codes.append(k if k is not None else self._code(x))
        self._c_suit.append(self._code(suit) if suit is not None else -1)
        self._c_reason.append(self._code(reason) if reason is not None else -1)
        # the top card and the suit to follow change on few events: their codes are
        # looked up again only when the engine holds another string (identity)
        discard = e.discard
        top: str | None = discard[-1] if discard else None
        if top is not self._top:
            self._top = top
            self._top_code = self._code(top) if top is not None else -1
        self._c_top.append(self._top_code)
        stf = e.suit_to_follow
        if stf is not self._stf:
            self._stf = stf
            self._stf_code = self._code(stf) if stf is not None else -1
        # the run-length columns get a value only where it changes (rows.RUN_COLUMNS)
        stf_code = self._stf_code
        if stf_code != self._stf_run or local == 0:
            self._stf_run = stf_code
            self._c_stf_at.append(row)
            self._c_stf.append(stf_code)
        pending = e.pending_draw
        self._pending = pending
        if pending != self._pd_run or local == 0:
            self._pd_run = pending
            self._c_pd_at.append(row)
            self._c_pd.append(pending)
        skip = e.pending_skip
        if skip != self._ps_run or local == 0:
            self._ps_run = skip
            self._c_ps_at.append(row)
            self._c_ps.append(skip)
        direction = e.direction
        if direction != self._dir_run or local == 0:
            self._dir_run = direction
            self._c_dir_at.append(row)
            self._c_dir.append(direction)
        sizes = [len(h) for h in e.hands.values()]
        hand_sizes = self._c_hs
        hand_sizes.extend(sizes)
        self._c_nhands.append(len(sizes))
        self._c_turn.append(self._seat_codes[e.current] if e.phase == PHASE_PLAY else -1)
        self._c_raw.append(raw)
        self._facts.event(e, index, event, t, player, sizes)

    def _code(self, s: str | None) -> int:
        """The code of ``s`` in the current intern table (added when new; None is -1):
        a look-up in a plain ``dict``, one C call compiled."""
        code = self._codes.get(s)
        return code if code is not None else self._ev.intern.add(s)

    def _bind(self, ev: _EventColumns) -> None:
        """Hold ``ev``'s column lists as typed attributes (the per-event path appends to
        them: compiled, a C call each) and forget the codes of the top card and the suit
        to follow (a new intern table after a flush gives other codes)."""
        self._ev = ev
        self._codes = ev.intern.codes
        self._c_index = ev.index
        self._c_line = ev.line
        self._c_type = ev.type
        self._c_player = ev.player
        self._c_cards = ev.cards
        self._c_ncards = ev.n_cards
        self._c_suit = ev.suit
        self._c_reason = ev.reason
        self._c_top = ev.top
        self._c_stf = ev.suit_to_follow
        self._c_stf_at = ev.suit_to_follow_at
        self._c_pd = ev.pending_draw
        self._c_pd_at = ev.pending_draw_at
        self._c_ps = ev.pending_skip
        self._c_ps_at = ev.pending_skip_at
        self._c_dir = ev.direction
        self._c_dir_at = ev.direction_at
        self._c_hs = ev.hand_sizes
        self._c_nhands = ev.n_hands
        self._c_turn = ev.turn
        self._c_raw = ev.raw
        self._top = _UNSEEN
        self._top_code = -1
        self._stf = _UNSEEN
        self._stf_code = -1
        self._stf_run = self._pd_run = self._ps_run = self._dir_run = self._row0 = 0

    def end_game(self, report: GameReport) -> None:
        """Add the game's rows, or drop its events when it is a duplicate or a conflict.

        A value too large for its column (:meth:`_too_large`) makes the game invalid from
        the event that produced it (a ``schema_error``, set on ``report``): its events
        from there on are not stored and the counts that do not fit are null; the other
        games are stored as usual.
        """
        buf = self._buf
        gid = report.game_id if report.game_id is not None else orphan_key(report)
        big = self._too_large(report)
        if big is not None:
            self._reject(report, gid, *big)
        h = content_hash(buf.ev.raw, report.violation, report.events)
        report.extra["content_hash"] = h
        seen = self.known.get(gid)
        if seen is not None:
            if seen[0] == h:
                self.duplicates += 1
            else:
                self.conflicts.append(Conflict(gid, report.file, report.line, seen[1], seen[2]))
            buf.ev.truncate(0)
            return
        self.known[gid] = (h, report.file, report.line)
        self.added += 1
        buf.ev.commit(gid)
        header = report.header
        v = report.violation
        info = self._info
        g = buf.games
        g["game_id"].append(gid)
        g["match_id"].append(header.match_id if header else None)
        rnd = header.round if header else None
        if rnd is not None and not 1 <= rnd <= _I32:
            rnd = None  # the header's schema_error (replay_checks.header_problem)
        g["round"].append(rnd)
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
            turns = e.turns  # (a new dict, by player)
            skipped = dict(e.skipped)
            r = buf.results
            winner = report.winner
            scores = e.scores if info.scored and v is None else None
            points = info.points
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
                for col, slot in RESULT_COUNTERS:
                    r[col].append(c[slot] if big is None else None)
                r["calls_missed"].append(e.call_faults[p])
                r["turns"].append(turns.get(p, 0))
                r["skipped"].append(skipped.get(p, 0))
                r["match_id"].append(mid)
                r["round"].append(rnd if mid is not None else None)
                r["total_after"].append(after.get(p) if after is not None else None)
        if header is not None:
            audit = buf.audit
            self._facts.rows(
                gid,
                header_client(header),
                e.dealer if e is not None and v is None else None,
                audit["audit_games"],
                audit["audit_seats"],
                audit["audit_events"],
            )
        if v is not None:
            row = v.to_dict()
            row["game_id"] = gid
            row["raw"] = logged_line(report.violation_raw)
            for k, val in row.items():
                buf.violations[k].append(val)
        if self.writer is not None and self.pending_events() >= self.batch_events:
            self.flush()

    def _too_large(self, report: GameReport) -> tuple[int, str] | None:
        """The first value of this game that does not fit its column, as (event index,
        what), or None (:data:`maumau_log.store.layout.COLUMNS`: the widths).

        Checked: the round's scores (64-bit; ``wild_finish_multiplier`` and card points,
        each up to 2,147,483,647, multiply beyond), located at the ``round_end``; the
        per-player card and event counts (32-bit), located at the last stored event.
        """
        e = report.engine
        if e is None:
            return None
        stored = self._ev.staged
        scores = e.scores
        if scores and report.violation is None:
            for p, x in scores.items():
                if not -_I64 - 1 <= x <= _I64:
                    at = self._last_of("round_end", stored)
                    return at, (
                        f"{p}'s round score {number_text(x)} does not fit the dataset's 64-bit "
                        "column"
                    )
        for p, c in self._ctr.items():
            if max(c) > _I32:
                return stored - 1, (
                    f"{p}'s counts of cards or events reach {number_text(max(c))}, beyond the "
                    "dataset's 32-bit columns"
                )
        return None

    def _last_of(self, kind: str, stored: int) -> int:
        """The index of this game's last stored event of type ``kind`` (else the last)."""
        ev = self._ev
        code = self.intern.get(kind)
        for i in range(stored - 1, 0, -1):
            if ev.type[i] == code:
                return i
        return stored - 1

    def _reject(self, report: GameReport, gid: str, at: int, what: str) -> None:
        """Make the game invalid at stored event ``at`` (a ``schema_error``: a value too
        large for its column) unless it already is at or before it; drop its events from
        there on."""
        v = report.violation
        if v is not None and v.event_index is not None and v.event_index <= at:
            return
        ev = self._ev
        report.violation = Violation(
            file=report.file,
            line=ev.line[at],
            game_id=gid,
            event_index=at,
            player=None,
            code="schema_error",
            rule="docs/reference/dataset.md#integer-columns",
            message=f"{what}; the game is stored as invalid from this event",
        )
        report.violation_raw = ev.raw[at]
        ev.truncate(at)

    def _running_totals(
        self, mid: str | None, rnd: int | None, scores: Mapping[str, int] | None, over: bool
    ) -> dict[str, int] | None:
        """Running totals after this round, where the rounds before it were all seen in
        this ingest, valid and scored; else None (:func:`update_matches` then fills them
        from the stored rounds, by the same rule; a total beyond 64 bits is None too)."""
        if mid is None:
            return None
        expected, totals = self._runs.get(mid, (1, {}))
        if rnd == 1 and mid in self._runs:
            totals = None  # round 1 twice
        if totals is None or rnd != expected or scores is None:
            self._runs[mid] = (expected + 1, None)
            return None
        after = add_scores(totals, scores)
        if not all(-_I64 - 1 <= x <= _I64 for x in after.values()):
            self._runs[mid] = (expected + 1, None)
            return None
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
        self._type_codes = {}
        self._buf = _Buffers(self.intern)
        self._bind(self._buf.ev)

    def tables(self) -> dict[tuple[str, str], dict[str, pa.Table]]:
        """The buffered rows as pyarrow tables: (ruleset, date) to table name to table."""
        return {part: buf.tables() for part, buf in self.buffers.items()}

    def take(self) -> dict[tuple[str, str], dict[str, pa.Table]]:
        """:meth:`tables`, then the buffers and :attr:`known` emptied (between games): a
        game met again later is dropped by the merger instead, as across shards."""
        out = self.tables()
        self.buffers, self.known, self.intern, self._type_codes = {}, {}, _Intern(), {}
        self._buf = _Buffers(self.intern)
        self._bind(self._buf.ev)
        return out
