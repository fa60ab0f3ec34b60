"""One game of a log file, a notation file or a dataset, replayed step by step (issue 13).

The dispute tools (the HTML viewer, ``game --try``) need one game's lines as read and the
engine's state after every event. This module finds the game in its source and replays it
with the ordinary :class:`~maumau_log.replay.Replayer` (so the states are exactly the
ones ``validate`` computes), recording after each accepted event :meth:`Engine.view`, the
legal next actions and what else a person at the table could see. No rule is decided
here: every state and every legal action comes from the engine.

Earlier rounds of the same match in the same file are replayed first, so a match round
gets its running totals, dealer and checks as in ``validate``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .engine import Engine
from .events import Event
from .logfile import LogReadError, iter_lines
from .notation import BadLine, is_notation, located_lines, read_text
from .replay import GameReport, Replayer
from .violations import Violation

HIDDEN = "?"


class SourceError(ValueError):
    """The source or the game cannot be found or read (the CLI's exit code 2)."""


@dataclass
class Step:
    """One event of the game and the state it left.

    Attributes:
        index: the event index (0 = the header), as reports give it.
        line: its line in the source file (None when not known).
        raw: the line as read (JSON text; for a ``.mm`` file the converted JSON).
        text: the ``.mm`` line it came from, or None for a JSON log.
        event: the line as a JSON object (None when it is not one).
        state: :meth:`Engine.view` after the event, plus ``stock_top`` (the stock's top
            card where the log shows it, else None), ``hand_sizes`` (player to cards held)
            and ``match_totals`` (running totals in a match: before this round, or after
            it once its ``round_end`` is replayed; None outside a match). None for the
            violating event and the events after it (the replay stops at a violation).
        legal: the legal next actions (``str(Action)``, e.g. ``"ben plays 7C"``); empty
            when not replayed.
    """

    index: int
    line: int | None
    raw: str
    text: str | None = None
    event: dict[str, Any] | None = None
    state: dict[str, Any] | None = None
    legal: list[str] = field(default_factory=list)


@dataclass
class Timeline:
    """A game replayed step by step.

    Attributes:
        source: the source as given (file or dataset); file: the log file the lines are from.
        game_id: the game's id; header: the header as a JSON object.
        ruleset: the resolved preset name and options (None when they did not resolve).
        steps: one :class:`Step` per event, header first.
        violation: the game's first violation, or None for a valid game.
        sha256: hex SHA-256 of the game's lines: each line as read (JSON text, UTF-8),
            followed by one ``\\n``, header to last event.
        tool: ``"maumau-log X.Y.Z"``.
        unchecked: the checks a partial log did not allow.
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


# ---------------------------------------------------------------------------------------
# Finding the game's lines


@dataclass
class GameLines:
    """The located lines of one game, and of the earlier rounds of its match in its file."""

    file: str
    game_id: str
    lines: list[tuple[int, bytes]]
    prior: list[tuple[int, bytes]] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    from_store: bool = False
    """True when the lines are a dataset's stored events (its source file is gone): the
    violating line is then not among them and the violation is the stored one."""
    stored_violation: dict[str, Any] | None = None


def _header_of(raw: bytes) -> dict[str, Any] | None:
    if type(raw) is BadLine:
        return {"game_id": raw.game_id} if raw.header else None
    if b'"game"' not in raw[:400]:
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == "game" else None


def _located(path: Path) -> tuple[Iterable[tuple[int, bytes]], dict[int, str]]:
    if is_notation(path):
        text = read_text(path)
        texts = dict(enumerate(text.split("\n"), start=1))
        return located_lines(text), texts
    return iter_lines(path), {}


def find_in_file(
    path: str | os.PathLike[str], game_id: str, at_line: int | None = None
) -> GameLines:
    """The lines of game ``game_id`` in one log or notation file (the first game with
    that id, or the one whose header is at ``at_line``).

    Raises:
        SourceError: no such game; the file cannot be read.
    """
    p = Path(path)
    by_match: dict[str, list[tuple[int, bytes]]] = {}
    found: GameLines | None = None
    current: list[tuple[int, bytes]] | None = None
    current_match: str | None = None
    try:
        lines, texts = _located(p)
        for n, raw in lines:
            head = _header_of(raw)
            if head is not None:
                if found is not None:
                    break
                if current is not None and current_match is not None:
                    by_match.setdefault(current_match, []).extend(current)
                current = [(n, raw)]
                mid = head.get("match_id")
                current_match = mid if isinstance(mid, str) else None
                if head.get("game_id") == game_id and (at_line is None or at_line == n):
                    prior = by_match.get(current_match, []) if current_match else []
                    found = GameLines(str(path), game_id, current, prior, texts)
                continue
            if current is not None:
                current.append((n, raw))
    except LogReadError as exc:
        if found is None or exc.line is None:
            raise SourceError(str(exc)) from None
    if found is None:
        raise SourceError(f"{path}: no game {game_id!r}")
    return found


def find_game(source: str | os.PathLike[str], game_id: str) -> GameLines:
    """The lines of game ``game_id`` in ``source``: a log file, a ``.mm`` file or a dataset.

    For a dataset the game is read from its source file when that file still holds it
    (the violating line included), else from the stored events (the accepted ones; the
    violation then comes from the dataset's ``violations`` table).

    Raises:
        SourceError: no such source or game, or it cannot be read.
    """
    p = Path(source)
    if not p.exists():
        raise SourceError(f"{source}: no such file or dataset")
    if p.is_dir():
        return _from_dataset(p, game_id)
    return find_in_file(p, game_id)


def _from_dataset(root: Path, game_id: str) -> GameLines:
    import polars as pl

    from .store import DatasetError, scan_all

    try:
        tables = scan_all(root)
        games = tables["games"].filter(pl.col("game_id") == game_id).collect()
        if games.height == 0:
            raise SourceError(f"no game {game_id!r} in {root}")
        game = games.row(0, named=True)
        src, line = game.get("source_file"), game.get("source_line")
        if src and Path(src).is_file():
            try:
                return find_in_file(src, game_id, line)
            except SourceError:
                pass  # the file changed since the ingest: use the stored events
        mine = (
            (pl.col("ruleset") == game["ruleset"])
            & (pl.col("date") == game["date"])
            & (pl.col("game_id") == game_id)
        )
        events = tables["events"].filter(mine).sort("event_index").collect()
        viol = tables["violations"].filter(mine).collect()
    except DatasetError as exc:
        raise SourceError(str(exc)) from None
    except pl.exceptions.PolarsError as exc:
        raise SourceError(f"{root}: cannot read the dataset: {exc}") from None
    lines = [(int(r["line"] or 0), str(r["raw"]).encode()) for r in events.iter_rows(named=True)]
    stored = viol.row(0, named=True) if viol.height else None
    return GameLines(str(src or root), game_id, lines, from_store=True, stored_violation=stored)


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
    stock = list(getattr(engine, "stock", None) or [])
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


def _copy(engine: Engine) -> Engine:
    """A deep copy that shares the (read-only) ruleset."""
    rules = getattr(engine, "rules", None)
    return copy.deepcopy(engine, {id(rules): rules} if rules is not None else None)


def legal_now(engine: Engine) -> list[str]:
    """The legal next actions of ``engine`` as text, asked of a copy (so asking can never
    change the replay)."""
    return [str(a) for a in _copy(engine).legal_actions()]


def snapshot(engine: Engine) -> dict[str, Any]:
    """:meth:`Engine.view` plus :func:`extra_state`."""
    view = engine.view()
    return {**view, **extra_state(engine, view)}


class _Capture:
    """A replay visitor that records the target game's states."""

    def __init__(self, header_line: int, stop_after: int | None = None) -> None:
        self.header_line = header_line
        self.on = False
        self.states: dict[int, tuple[dict[str, Any], list[str]]] = {}
        self.report: GameReport | None = None
        self.stop_after = stop_after
        self.engine_at: Engine | None = None

    def _record(self, report: GameReport, index: int) -> None:
        eng = report.engine
        if eng is None:
            return
        if self.stop_after is not None:
            if index == self.stop_after:
                self.engine_at = _copy(eng)
            return
        self.states[index] = (snapshot(eng), legal_now(eng))

    def begin_game(self, report: GameReport) -> None:
        self.on = report.line == self.header_line
        if self.on:
            self.report = report
            self._record(report, 0)

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        if self.on:
            self._record(report, index)

    def end_game(self, report: GameReport) -> None:
        self.on = False


def _replay(gl: GameLines, cap: _Capture, rules_file: dict[str, Any] | None) -> GameReport:
    replayer = Replayer(rules_file, visitors=[cap])
    report = None
    for rep in replayer.replay_lines(gl.file, [*gl.prior, *gl.lines]):
        if rep.line == cap.header_line:
            report = rep
    if report is None:  # pragma: no cover - the header is always replayed
        raise SourceError(f"{gl.file}: the game {gl.game_id!r} did not replay")
    return report


def _json(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


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


def build(gl: GameLines, source: str, rules_file: dict[str, Any] | None = None) -> Timeline:
    """Replay the game of ``gl`` and record every step.

    Args:
        gl: the game's lines (:func:`find_game`); source: the source as the user gave it.
        rules_file: options of a ``--rules`` file, as ``validate`` takes them.
    Returns:
        The :class:`Timeline`.
    """
    header_line = gl.lines[0][0]
    cap = _Capture(header_line)
    report = _replay(gl, cap, rules_file)
    violation = report.violation
    if gl.from_store:  # the replay of the stored events cannot see the violating line
        violation = None
        if gl.stored_violation is not None:
            fields = {k: gl.stored_violation.get(k) for k in Violation.__struct_fields__}
            violation = Violation(**fields)  # type: ignore[arg-type]
    steps = []
    for i, (n, raw) in enumerate(gl.lines):
        end = gl.lines[i + 1][0] if i + 1 < len(gl.lines) else n + 1
        text = raw.decode("utf-8", "replace") if type(raw) is not BadLine else gl.texts.get(n, "")
        st = cap.states.get(i)
        steps.append(
            Step(
                index=i,
                line=n or None,
                raw=text,
                text=_block(gl.texts, n, end) if gl.texts else None,
                event=_json(raw) if type(raw) is not BadLine else None,
                state=st[0] if st else None,
                legal=st[1] if st else [],
            )
        )
    if gl.from_store and violation is not None and violation.event_index == len(steps):
        steps.append(
            Step(index=len(steps), line=violation.line, raw="(this line is not stored in the "
                 "dataset and its source file is gone; the violation is the stored one)")
        )  # fmt: skip
    header = steps[0].event or {"game_id": gl.game_id}
    ruleset = None
    if report.rules is not None:
        ruleset = {"preset": report.rules.preset, "options": report.rules.options()}
    return Timeline(
        source=source,
        file=gl.file,
        game_id=gl.game_id,
        header=header,
        ruleset=ruleset,
        steps=steps,
        violation=violation,
        sha256=game_sha256(raw for _, raw in gl.lines),
        unchecked=report.unchecked,
    )


def engine_after(
    gl: GameLines, at: int, rules_file: dict[str, Any] | None = None
) -> tuple[Engine, GameReport]:
    """The engine right after event ``at`` of the game (0 = the header); at the game's
    violating event, the engine right before it (as ``game --at`` shows it: the state in
    which the violating event was played).

    Raises:
        SourceError: ``at`` outside 0..the violating event (0..the last event for a valid
            game); the message states that range (the one ``--at`` takes).
    """
    cap = _Capture(gl.lines[0][0], stop_after=at)
    report = _replay(gl, cap, rules_file)
    v = report.violation
    bad = v.event_index if v is not None else None
    if cap.engine_at is None and bad is not None and at == bad and at >= 1:
        cap = _Capture(gl.lines[0][0], stop_after=at - 1)
        report = _replay(gl, cap, rules_file)
    if cap.engine_at is None:
        last = len(gl.lines) - 1
        if v is not None and bad is not None:
            if bad == 0:
                raise SourceError(
                    f"game {gl.game_id!r}: the replay stopped at its header ({v.code}): "
                    "there is no state to try"
                )
            raise SourceError(
                f"game {gl.game_id!r}: --at takes 0..{bad}, not {at} (the replay stopped "
                f"at event {bad} ({v.code}): --at {bad} is the state right before it)"
            )
        if at < 0 or at > last:
            raise SourceError(f"game {gl.game_id!r}: --at takes 0..{last}, not {at}")
        raise SourceError(f"game {gl.game_id!r}: no replayed state after event {at}")
    return cap.engine_at, report


def iter_steps(tl: Timeline) -> Iterator[Step]:
    """The steps that were replayed (with a state)."""
    return (s for s in tl.steps if s.state is not None)
