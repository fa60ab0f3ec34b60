"""What a replay produces: the per-game report, the visitor protocol, the driver's record.

The bottom of the replay's modules (:mod:`maumau_log.replay.driver` drives, :mod:`.replay_checks`
checks headers and matches; both import this one). Names are re-exported by
:mod:`maumau_log.replay.driver`, where callers import them.

Compiled with the engine (``hatch_build.EXTRA``): :class:`GameReport`'s ``__init__`` is the
dataclass's own, written out, because compiled it is a C function where the generated one is
interpreted, once per game (``tests/test_fast_paths.py`` pins its fields and their order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..engine import Engine
from ..events import Event, Game, encode_event
from ..rules import Ruleset
from ..violations import Violation

try:  # hashlib's blake2b is this one (CPython's own, never OpenSSL's); importing hashlib
    # would load OpenSSL, which validate never uses (2.5% of a short validate's start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - another Python: the same function through hashlib
    from hashlib import blake2b

__all__ = ["ContentHasher", "GameReport", "GameState", "ReplayVisitor"]


@dataclass(init=False)
class GameReport:
    """One replayed game (one round), valid or not.

    Attributes:
        file: the log file as given.
        line: the header's line number (or the first line of headerless events).
        game_id: ``game.game_id``, or None for events outside any game.
        header: the decoded header, or None.
        rules: the resolved ruleset, or None when it could not be resolved.
        events: events in the game, the header counted (so the last index + 1).
        last_line: the line of the game's last event (set when the game ends; during the
            replay the driver keeps it, and writes it to :attr:`GameState.last_line` before
            any method that reads it).
        violation: the first violation, or None for a valid game.
        engine: the engine after the last replayed event (None without a valid header).
        extra: what visitors attach to the report (empty unless one does).
        violation_raw: the violating line as logged (bytes without the newline; None when
            there is no violation or no line, e.g. a file that ended early).
        lines: the accepted lines as read (bytes without the newline, header excluded),
            collected only when a visitor has ``lines_only`` set (see
            :class:`ReplayVisitor`); empty otherwise.
    """

    file: str
    line: int
    game_id: str | None
    header: Game | None = None
    rules: Ruleset | None = None
    events: int = 0
    last_line: int = 0
    violation: Violation | None = None
    engine: Engine | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    violation_raw: bytes | None = None
    lines: list[bytes] = field(default_factory=list)

    def __init__(
        self,
        file: str,
        line: int,
        game_id: str | None,
        header: Game | None = None,
        rules: Ruleset | None = None,
        events: int = 0,
        last_line: int = 0,
        violation: Violation | None = None,
        engine: Engine | None = None,
        extra: dict[str, Any] | None = None,
        violation_raw: bytes | None = None,
        lines: list[bytes] | None = None,
    ) -> None:
        # ``extra`` and ``lines`` default to new empty containers, as the fields say. A
        # field added above must be added here too (see the module docstring)
        self.file = file
        self.line = line
        self.game_id = game_id
        self.header = header
        self.rules = rules
        self.events = events
        self.last_line = last_line
        self.violation = violation
        self.engine = engine
        self.extra = {} if extra is None else extra
        self.violation_raw = violation_raw
        self.lines = [] if lines is None else lines

    @property
    def valid(self) -> bool:
        """True when the game replayed to its ``round_end`` with no violation."""
        return self.violation is None

    @property
    def unchecked(self) -> list[str]:
        """Checks a partial-information log did not allow (empty for a full log)."""
        return sorted(self.engine.unchecked) if self.engine is not None else []

    @property
    def winner(self) -> str | None:
        """The replayed winner (None for no winner or an invalid game)."""
        return self.engine.winner if self.engine is not None and self.valid else None


class ReplayVisitor(Protocol):
    """Receives a replay as it happens (python-chess ``BaseVisitor`` style).

    ``event`` is called after each event the engine accepted, with the engine in the state
    the event left; ``end_game`` once per game, valid or not. A visitor that needs only the
    accepted lines sets a class attribute ``lines_only = True``: it gets no ``event`` calls,
    and the driver appends each accepted line to ``report.lines`` for its ``end_game``
    instead (a list append per event, not a Python call).
    """

    def begin_game(self, report: GameReport) -> None:
        """A header was read (``report.engine`` is set when it resolved)."""

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        """The engine accepted event number ``index`` (1-based after the header);
        ``raw`` is its line as read (without the newline). ``event`` is read-only: one
        event object may stand for every line with the same bytes (the driver keeps short
        lines decoded, ``replay.DECODED_LINE_BYTES``), so changing it would change later
        games."""

    def end_game(self, report: GameReport) -> None:
        """The game is over (valid, or stopped at ``report.violation``)."""


class GameState:
    """A game being replayed: the driver's working record (one per game, slots only).

    Attributes:
        report: the :class:`GameReport` the game ends as.
        engine: the engine (None without a valid header).
        failed: no more events are checked (a violation was reported).
        count: events read so far, the header counted (the next event's index).
        last_line: the line of the last event read (copied to the report at the end).

    During a replay the driver keeps ``count`` and ``last_line`` in its own variables and
    writes them here before any method that reads them (``replay.Replayer.replay_lines``).
        lines: ``report.lines`` (the accepted lines, when a visitor wants them).
    """

    __slots__ = ("count", "engine", "failed", "last_line", "lines", "report")

    def __init__(self, report: GameReport) -> None:
        self.report = report
        self.engine: Engine | None = None
        self.failed = False
        self.count = 0
        self.last_line = report.last_line
        self.lines = report.lines

    def set_engine(self, engine: Engine) -> None:
        """Attach the game's engine (to the report too)."""
        self.engine = engine
        self.report.engine = engine


class ContentHasher:
    """A replay visitor for ``validate`` (which builds no rows): puts a 64-bit digest of
    each game's header, accepted lines and first violation into
    ``report.extra["content_hash"]``, so a game id used twice for one game can be told
    from one used by two different games. It takes the accepted lines
    from ``report.lines`` (``lines_only``: no Python call per event). Compiled with the
    driver (``hatch_build.EXTRA``): one call per game (:mod:`maumau_log.run.shard`
    re-exports it)."""

    lines_only = True

    def begin_game(self, report: GameReport) -> None:
        """Nothing to do: the digest is made at the game's end."""

    def event(self, report: GameReport, index: int, line: int, event: Any, raw: bytes) -> None:
        """Not called (``lines_only``); the lines arrive in ``report.lines``."""

    def end_game(self, report: GameReport) -> None:
        """The digest of the header, the lines, the event count and the first violation's
        code and place (the lines are released afterwards)."""
        h = blake2b(digest_size=8)
        if report.header is not None:
            h.update(encode_event(report.header))
        if report.lines:
            h.update(b"\n".join(report.lines))
            h.update(b"\n")
            report.lines.clear()
        v = report.violation
        tail = f"{report.events}|{v.code if v else ''}|{v.event_index if v else ''}"
        h.update(tail.encode())
        report.extra["content_hash"] = int.from_bytes(h.digest(), "little", signed=True)
