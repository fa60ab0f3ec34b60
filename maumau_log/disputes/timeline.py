"""One game of a log file, a notation file or a dataset, replayed step by step.

The dispute tools (the HTML viewer, ``game --try``) need one game's lines as read and the
engine's state after every event. This module finds the game in its source and replays it
with the ordinary :class:`~maumau_log.replay.driver.Replayer` (so the states are exactly the
ones ``validate`` computes), recording after each accepted event :meth:`Engine.view`, the
legal next actions and what else a person at the table could see, as the page's compact
frames (:mod:`maumau_log.disputes.viewer_data`). No rule is decided here: every state and every
legal action comes from the engine.

Earlier rounds of the same match in the same file are replayed first, so a match round
gets its running totals, dealer and checks as in ``validate``. A dataset's game is the
one the dataset stores: its source file is read only while it still holds that game (the
content hash the ingest stored, recomputed by the ingest's own collector), else the
stored events are replayed (:mod:`maumau_log.disputes.stored`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from .. import __version__
from ..engine import Engine
from ..events import Event
from ..logs.notation import BadLine
from ..replay.driver import GameReport, Replayer
from ..violations import Violation
from .gamelines import GameLines, SourceError, find_in_file
from .viewer_data import StateCodec, decode_frames, dumps, utf8_size

__all__ = [
    "GameLines", "PageTooLarge", "SourceError", "Step", "Timeline", "build", "engine_after",
    "extra_state", "find_game", "find_in_file", "game_sha256", "iter_steps", "last_replayed",
    "snapshot",
]  # fmt: skip

HIDDEN = "?"


@dataclass
class Step:
    """One event of the game and the state it left.

    Attributes:
        index: the event index (0 = the header), as reports give it.
        line: its line in the source file (None when not known).
        raw: the line as read (JSON text; for a ``.mm`` file the converted JSON).
        text: the ``.mm`` line it came from, or None for a JSON log.
        frame: the state after the event as the page embeds it (JSON text of a
            :mod:`maumau_log.disputes.viewer_data` frame: the changes since the previous event, or
            the whole state), or None for the violating event and the events after it
            (the replay stops at a violation). :meth:`Timeline.states` rebuilds the states.
    """

    index: int
    line: int | None
    raw: str
    text: str | None = None
    frame: str | None = None


class PageTooLarge(SourceError):
    """The events asked for do not fit one page
    (:data:`~maumau_log.disputes.viewer_data.PAGE_LIMIT`).

    Attributes:
        total: the game's events; first: the first event asked for; fits: at most how many
        events from ``first`` fit (0: not even the first one); limit: the limit in bytes.
    """

    def __init__(self, game_id: str, total: int, first: int, fits: int, limit: int) -> None:
        self.game_id, self.total, self.first, self.fits, self.limit = (
            game_id, total, first, fits, limit,
        )  # fmt: skip
        super().__init__(f"game {game_id!r}: too large for one page")


@dataclass
class Timeline:
    """A game replayed step by step.

    Attributes:
        source: the source as given (file or dataset); file: the log file the lines are from.
        game_id: the game's id; header: the header as a JSON object.
        ruleset: the resolved preset name and options (None when they did not resolve).
        steps: one :class:`Step` per event held, from event ``first`` on (the header first
            when ``first`` is 0).
        violation: the game's first violation, or None for a valid game.
        sha256: hex SHA-256 of the game's lines: each line as read (JSON text, UTF-8),
            followed by one ``\\n``, header to last event.
        tool: ``"maumau-log X.Y.Z"``.
        unchecked: the checks a partial log did not allow.
        players: the seats in order (the names frames refer to by number).
        actions: the distinct legal actions the frames refer to by number.
        first: the index of ``steps[0]``; total: the game's events (``steps`` holds them
            all when ``first`` is 0 and ``len(steps) == total``).
        note: why a dataset's game is shown from its stored events, or None.
        cut: the page limit ended ``steps`` before the game's last event.
        unchecked_from: for a dataset's game read from its source file, the first event
            the dataset does not store (after the violation; the violating line itself
            when the dataset did not keep it), so the file's line is not checked against
            the dataset; None when every line is checked or there is no dataset.
    """

    source: str
    file: str
    game_id: str
    header: dict[str, Any]
    ruleset: dict[str, Any] | None
    steps: list[Step]
    violation: Violation | None
    sha256: str
    tool: str = f"maumau-log {__version__}"
    unchecked: list[str] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    actions: list[list[Any]] = field(default_factory=list)
    first: int = 0
    total: int = 0
    note: str | None = None
    cut: bool = False
    unchecked_from: int | None = None

    def states(self) -> list[dict[str, Any] | None]:
        """The state after each step held (None where not replayed), rebuilt from the
        frames as the page does (:func:`maumau_log.disputes.viewer_data.decode_frames`)."""
        frames = [None if s.frame is None else json.loads(s.frame) for s in self.steps]
        return decode_frames(self.players, self.actions, frames)


# ---------------------------------------------------------------------------------------
# Finding the game's lines


def find_game(source: str | os.PathLike[str], game_id: str) -> GameLines:
    """The lines of game ``game_id`` in ``source``: a log file, a ``.mm`` file or a dataset.

    For a dataset the game is the one the dataset stores: read from its source file when
    that file still holds a game with the stored content hash (the violating line and
    the lines after it included; :func:`build` checks the hash as it replays), else from
    the stored events (:func:`maumau_log.disputes.stored.from_dataset`).

    Raises:
        SourceError: no such source or game, it cannot be read, or a dataset's stored
            events do not match its content hash.
    """
    p = Path(source)
    if not p.exists():
        raise SourceError(f"{source}: no such file or dataset")
    if p.is_dir():
        from .stored import from_dataset

        return from_dataset(p, game_id)
    return find_in_file(p, game_id)


# ---------------------------------------------------------------------------------------
# Replaying it


def extra_state(engine: Engine, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a person could see beyond :meth:`Engine.view`: the stock's top card where the
    log shows it, each hand's size, and the match's running totals (None outside a match).

    Reads the engine's public attributes only (``stock``, ``stock_ordered``, ``match``,
    ``match_totals``), each with a default, so a reorganised engine degrades to "not
    known" rather than failing.
    """
    view = view if view is not None else engine.view()
    hands: dict[str, list[str]] = view["hands"]
    stock = getattr(engine, "stock", None) or ()
    top = stock[-1] if stock and getattr(engine, "stock_ordered", False) else None
    match = getattr(engine, "match", None)
    totals = getattr(engine, "match_totals", None)
    if totals is None and match is not None:
        totals = dict(match.totals) or dict.fromkeys(hands, 0)
    return {
        "stock_top": None if top == HIDDEN else top,
        "hand_sizes": {p: len(h) for p, h in hands.items()},
        "match_totals": dict(totals) if totals is not None else None,
        "round": getattr(match, "round", None),
    }


def snapshot(engine: Engine) -> dict[str, Any]:
    """:meth:`Engine.view` plus :func:`extra_state`."""
    view = engine.view()
    return {**view, **extra_state(engine, view)}


class _Capture:
    """A replay visitor that hands the target game's engine to ``record`` after every
    accepted event (or keeps a copy of it after event ``stop_after``)."""

    def __init__(
        self,
        header_line: int,
        stop_after: int | None = None,
        record: Callable[[int, Engine], None] | None = None,
    ) -> None:
        self.header_line = header_line
        self.on = False
        self.report: GameReport | None = None
        self.stop_after = stop_after
        self.engine_at: Engine | None = None
        self.record = record

    def _at(self, report: GameReport, index: int) -> None:
        eng = report.engine
        if eng is None:
            return
        if self.stop_after is not None:
            if index == self.stop_after:
                # the replay goes on with its engine: the state after this event is kept
                self.engine_at = eng.copy()
            return
        if self.record is not None:
            self.record(index, eng)

    def begin_game(self, report: GameReport) -> None:
        self.on = report.line == self.header_line
        if self.on:
            self.report = report
            self._at(report, 0)

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        if self.on:
            self._at(report, index)

    def end_game(self, report: GameReport) -> None:
        self.on = False


def _replay(
    gl: GameLines, cap: _Capture, rules_file: dict[str, Any] | None
) -> tuple[GameReport, bool]:
    """Replay ``gl`` with ``cap``; returns the game's report and whether its lines are
    the game ``gl.check`` describes (True when there is nothing to check): the content
    hash computed by the ingest's own :class:`~maumau_log.store.collector.RecordCollector`
    riding along, and the violating line as the dataset keeps it."""
    visitors: list[Any] = [cap]
    if gl.check is not None:
        from ..store.collector import RecordCollector

        visitors.append(RecordCollector())
    replayer = Replayer(rules_file if rules_file is not None else gl.options, visitors=visitors)
    report = None
    for rep in replayer.replay_lines(gl.file, [*gl.prior, *gl.lines]):
        if rep.line == cap.header_line:
            report = rep
    if report is None:  # pragma: no cover - the header is always replayed
        raise SourceError(f"{gl.file}: the game {gl.game_id!r} did not replay")
    check = gl.check
    if check is None:
        return report, True
    from ..store.rows import logged_line

    same = report.extra.get("content_hash") == check.content_hash
    if same and report.violation is not None and check.violation_raw is not None:
        same = logged_line(report.violation_raw) == check.violation_raw
    return report, same


def _changed(gl: GameLines) -> GameLines:
    """The stored game, for a source file whose game is not the stored one."""
    assert gl.check is not None
    why = (
        f"{gl.file} no longer holds the game as it was ingested (its lines differ from the "
        "stored ones): shown from the dataset's stored events"
    )
    return replace(gl.check.load(), note=why)


def _block(texts: dict[int, str], start: int, end: int) -> str:
    """The notation lines of one event: from its line to the next event's, without the
    blank and comment-only lines that end the block (a deal spans several lines)."""
    lines = [texts.get(k, "") for k in range(start, max(end, start + 1))]
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return "\n".join(lines)


def game_sha256(lines: Iterable[bytes]) -> str:
    """Hex SHA-256 of a game's lines: each line's bytes as read, then ``\\n``."""
    h = hashlib.sha256()
    for raw in lines:
        h.update(bytes(raw))
        h.update(b"\n")
    return h.hexdigest()


class _Pages:
    """The steps a page holds: from event ``first`` on, as many as ``limit`` bytes of
    page data allow (:data:`~maumau_log.disputes.viewer_data.PAGE_LIMIT`; None: no limit).

    Raises PageTooLarge (from :meth:`record`, so the replay stops there) when an event
    does not fit and ``partial`` is false, or when not even event ``first`` fits.
    """

    def __init__(
        self, gl: GameLines, header: dict[str, Any], first: int, limit: int | None, partial: bool
    ) -> None:
        self.gl, self.first, self.limit, self.partial = gl, first, limit, partial
        self.total = max(gl.total or 0, len(gl.lines))
        self.steps: list[Step] = []
        self.codec: StateCodec | None = None
        self.used = utf8_size(dumps(header)) + 4096  # the header object and the page's fields
        self.full = False
        self.replayed = -1
        self.actions_counted = 0
        if limit is not None and not partial:
            self._floor()

    def _floor(self) -> None:
        """Refuse before replaying when the lines alone pass the limit: each event takes at
        least its line's bytes and two quotes, its line number, an empty frame and commas."""
        assert self.limit is not None
        floor = self.used
        for i in range(self.first, len(self.gl.lines)):
            n, raw = self.gl.lines[i]
            floor += (0 if type(raw) is BadLine else len(raw)) + len(str(n)) + 7
            if floor > self.limit:
                raise PageTooLarge(
                    self.gl.game_id, self.total, self.first, i - self.first, self.limit
                )

    def step(self, i: int) -> Step:
        gl = self.gl
        n, raw = gl.lines[i]
        end = gl.lines[i + 1][0] if i + 1 < len(gl.lines) else n + 1
        text = raw.decode("utf-8", "replace") if type(raw) is not BadLine else gl.texts.get(n, "")
        block = _block(gl.texts, n, end) if gl.texts else None
        return Step(index=i, line=n or None, raw=text, text=block)

    def add(self, st: Step) -> bool:
        """Hold ``st`` when it fits; False (and nothing more is held) when it does not."""
        if self.full:
            return False
        cost = utf8_size(dumps(st.raw)) + len(str(st.line)) + 4
        if st.text is not None:
            cost += utf8_size(dumps(st.text)) + 1
        if st.frame is not None:
            cost += utf8_size(st.frame) + 1
        if self.codec is not None:
            cost += self.codec.actions_size - self.actions_counted
        if self.limit is not None and self.used + cost > self.limit:
            self.full = True
            if not self.partial or not self.steps:
                fits = len(self.steps)
                raise PageTooLarge(self.gl.game_id, self.total, self.first, fits, self.limit)
            return False
        self.used += cost
        if self.codec is not None:
            self.actions_counted = self.codec.actions_size
        self.steps.append(st)
        return True

    def record(self, index: int, engine: Engine) -> None:
        """The replay's callback: the state after event ``index``."""
        self.replayed = index
        if index < self.first or self.full or index >= len(self.gl.lines):
            return
        if self.codec is None:
            self.codec = StateCodec(list(engine.players))
            self.used += utf8_size(dumps(self.codec.players))
        snap = snapshot(engine)
        # Engine.legal_actions is a pure query (engine/core.py), asked of the replay's own
        # engine: a deep copy per event took 70% of a page's time (13.7 of 19.4 s for
        # 11,321 events); the viewer's tests compare every state with a replay that never
        # asks, so a query that changed the state would show
        legal = [(a.player, str(a)) for a in engine.legal_actions()]
        st = self.step(index)
        st.frame = dumps(self.codec.frame(snap, legal))
        self.add(st)

    def rest(self) -> None:
        """After the replay: the events it did not replay (the violating one and after)."""
        start = max(self.first, self.replayed + 1, self.steps[-1].index + 1 if self.steps else 0)
        for i in range(start, len(self.gl.lines)):
            if not self.add(self.step(i)):
                return


def build(
    gl: GameLines,
    source: str,
    rules_file: dict[str, Any] | None = None,
    *,
    first: int = 0,
    limit: int | None = None,
    partial: bool = False,
) -> Timeline:
    """Replay the game of ``gl`` and record every step from event ``first`` on.

    Args:
        gl: the game's lines (:func:`find_game`); source: the source as the user gave it.
        rules_file: options of a ``--rules`` file, as ``validate`` takes them.
        first: the first event to hold (the page of a long game: a window of it).
        limit: bytes of page data the steps may take (None: no limit).
        partial: when the steps reach ``limit``, hold those that fit (True) or raise.
    Returns:
        The :class:`Timeline`.
    Raises:
        PageTooLarge: the steps from ``first`` do not fit ``limit`` (and ``partial`` is
            false), or not even event ``first`` fits.
        SourceError: ``first`` is not an event the lines (or the dataset) hold.
    """
    last = len(gl.lines) - 1
    if gl.from_store and gl.stored_violation is not None:  # the stored violating line
        last = max(last, int(gl.stored_violation.get("event_index") or 0))
    if not 0 <= first <= last:
        raise SourceError(f"game {gl.game_id!r}: no event {first} to show (events 0 to {last})")
    try:
        tl = _build(gl, source, rules_file, first, limit, partial)
    except PageTooLarge:
        if gl.check is None or _replay(gl, _Capture(-1), rules_file)[1]:
            raise
        tl = None
    if tl is None:  # the source file's game is not the stored one
        return build(_changed(gl), source, rules_file, first=first, limit=limit, partial=partial)
    return tl


def _build(
    gl: GameLines,
    source: str,
    rules_file: dict[str, Any] | None,
    first: int,
    limit: int | None,
    partial: bool,
) -> Timeline | None:
    n0, raw0 = gl.lines[0]
    header = (_json(raw0) if type(raw0) is not BadLine else None) or {"game_id": gl.game_id}
    pages = _Pages(gl, header, first, limit, partial)
    report, same = _replay(gl, _Capture(n0, record=pages.record), rules_file)
    if not same:
        return None
    violation = report.violation
    if gl.from_store:  # the replay of the stored events cannot see the violating line
        violation = None
        if gl.stored_violation is not None:
            fields = {k: gl.stored_violation.get(k) for k in Violation.__struct_fields__}
            violation = Violation(**fields)  # type: ignore[arg-type]
    pages.rest()
    held = pages.steps[-1].index + 1 if pages.steps else first
    stored_at = gl.from_store and violation is not None and violation.event_index == len(gl.lines)
    if stored_at and held == len(gl.lines) and not pages.full:
        assert violation is not None
        logged = gl.stored_violation.get("raw") if gl.stored_violation else None
        if not isinstance(logged, str):
            logged = "(this line is not stored in the dataset (written before it kept it) and "
            logged += "the source file does not hold it; the violation is the stored one)"
        pages.add(Step(index=len(gl.lines), line=violation.line, raw=logged))
    ruleset = None
    if report.rules is not None:
        ruleset = {"preset": report.rules.preset, "options": report.rules.options()}
    unchecked = None
    if gl.check is not None and violation is not None and violation.event_index is not None:
        unchecked = violation.event_index + (gl.check.violation_raw is not None)
        unchecked = unchecked if unchecked < len(gl.lines) else None
    codec = pages.codec
    named = header.get("players")  # a header the replay refused may hold anything here
    if not (isinstance(named, list) and all(isinstance(p, str) for p in named)):
        named = []
    return Timeline(
        source=source,
        file=gl.file,
        game_id=gl.game_id,
        header=header,
        ruleset=ruleset,
        steps=pages.steps,
        violation=violation,
        sha256=game_sha256(raw for _, raw in gl.lines),
        unchecked=report.unchecked,
        players=codec.players if codec is not None else named,
        actions=codec.actions if codec is not None else [],
        first=first,
        total=pages.total,
        note=gl.note,
        cut=pages.full,
        unchecked_from=unchecked,
    )


def _json(raw: bytes) -> dict[str, Any] | None:
    """The line as a JSON object, read as the replay reads it (msgspec: a lone surrogate
    or deep nesting is no object), or None."""
    try:
        obj = msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def last_replayed(gl: GameLines, rules_file: dict[str, Any] | None = None) -> int:
    """The last event the replay accepted (``game --try``'s default ``--at``); 0 when
    not even the header was."""
    last = [0]

    def note(index: int, engine: Engine) -> None:
        last[0] = index

    _, same = _replay(gl, _Capture(gl.lines[0][0], record=note), rules_file)
    if not same:
        return last_replayed(_changed(gl), rules_file)
    return last[0]


def engine_after(
    gl: GameLines, at: int, rules_file: dict[str, Any] | None = None
) -> tuple[Engine, int | None]:
    """The engine right after event ``at`` of the game (0 = the header); at the game's
    violating event, the engine right before it (as ``game --at`` shows it: the state in
    which the violating event was played).

    Returns:
        ``(engine, violating)``: the engine (a copy) and the game's violating event index
        (None for a valid game; a dataset's stored game gives its stored violation).
    Raises:
        SourceError: ``at`` outside 0..the violating event (0..the last event for a valid
            game); the message states that range (the one ``--at`` takes).
    """
    cap = _Capture(gl.lines[0][0], stop_after=at)
    report, same = _replay(gl, cap, rules_file)
    if not same:
        return engine_after(_changed(gl), at, rules_file)
    v = report.violation
    if gl.from_store and gl.stored_violation is not None:
        code, bad = gl.stored_violation.get("code"), gl.stored_violation.get("event_index")
    else:
        code, bad = (v.code, v.event_index) if v is not None else (None, None)
    if cap.engine_at is None and bad is not None and at == bad and at >= 1:
        cap = _Capture(gl.lines[0][0], stop_after=at - 1)
        _replay(gl, cap, rules_file)
    if cap.engine_at is None:
        last = len(gl.lines) - 1
        if bad is not None:
            if bad == 0:
                raise SourceError(
                    f"game {gl.game_id!r}: the replay stopped at its header ({code}): "
                    "there is no state to try"
                )
            raise SourceError(
                f"game {gl.game_id!r}: --at takes 0..{bad}, not {at} (the replay stopped "
                f"at event {bad} ({code}): --at {bad} is the state right before it)"
            )
        if at < 0 or at > last:
            raise SourceError(f"game {gl.game_id!r}: --at takes 0..{last}, not {at}")
        raise SourceError(f"game {gl.game_id!r}: no replayed state after event {at}")
    return cap.engine_at, bad


def iter_steps(tl: Timeline) -> Iterator[Step]:
    """The steps that were replayed (with a state)."""
    return (s for s in tl.steps if s.frame is not None)
