"""Games replayed one by one with their states: :func:`replay`.

The replay is ``validate``'s own (:class:`~maumau_log.replay.driver.Replayer`); a visitor
records each accepted event with the state it left (what the viewer shows,
:func:`~maumau_log.disputes.timeline.snapshot`). A game stops at its first violation, as
in ``validate``; the games around a bad one replay as usual.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..events import Event, encode_event
from ..replay.driver import GameReport, Replayer
from ..violations import Violation
from .validation import rules_options

__all__ = ["GameReplay", "ReplayedEvent", "replay"]


@dataclass(frozen=True)
class ReplayedEvent:
    """One accepted event and the state after it.

    Attributes:
        index: the event's index in its game (the header is 0).
        line: its line in the source (for a ``.mm`` file, the notation line).
        event: the event as a dict (the log's JSON object).
        state: the state after it, as :meth:`Table.view` gives it (JSON-ready).
    """

    index: int
    line: int
    event: dict[str, Any]
    state: dict[str, Any]


@dataclass
class GameReplay:
    """One game (one round) of a source, replayed.

    Attributes:
        game_id: the header's ``game_id`` (None for events outside any game).
        header: the header as a dict (None without one).
        file: the source's name; line: the header's line.
        events: the accepted events, the header first, each with the state after it.
        violations: the game's violation (a replay stops at the first one: at most one).
        result: ``winner`` and ``scores`` of a valid game's ``round_end`` (the
            replay's own; None for an invalid game).
    """

    game_id: str | None
    header: dict[str, Any] | None
    file: str
    line: int
    events: list[ReplayedEvent] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    result: dict[str, Any] | None = None

    @property
    def valid(self) -> bool:
        """True when the game replayed to its ``round_end`` with no violation."""
        return not self.violations


class _Recorder:
    """A replay visitor keeping each game's accepted events and states."""

    def __init__(self) -> None:
        from ..disputes.timeline import snapshot

        self.snapshot = snapshot
        self.steps: list[ReplayedEvent] = []

    def begin_game(self, report: GameReport) -> None:
        self.steps = []
        if report.engine is not None and report.header is not None:
            header = msgspec.json.decode(encode_event(report.header))
            self.steps.append(ReplayedEvent(0, report.line, header, self.snapshot(report.engine)))

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        eng = report.engine
        assert eng is not None
        self.steps.append(ReplayedEvent(index, line, msgspec.json.decode(raw), self.snapshot(eng)))

    def end_game(self, report: GameReport) -> None:
        pass


def _lines(source: Iterable[Any]) -> Iterator[tuple[int, bytes]]:
    for n, item in enumerate(source, 1):
        if isinstance(item, bytes):
            yield n, item.rstrip(b"\r\n")
        elif isinstance(item, str):
            yield n, item.rstrip("\r\n").encode("utf-8", "surrogatepass")
        elif isinstance(item, Mapping):
            yield n, msgspec.json.encode(dict(item))
        else:
            raise TypeError(f"line {n}: a line is str, bytes or a dict, not {type(item).__name__}")


def replay(
    source: str | os.PathLike[str] | Iterable[str | bytes | Mapping[str, Any]],
    *,
    rules: str | os.PathLike[str] | Mapping[str, Any] | None = None,
) -> Iterator[GameReplay]:
    """Replay every game of a source, yielding each with its events and states.

    Args:
        source: a log file (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``), a ``.mm`` notation
            file, or the log's lines (``str``/``bytes`` JSON lines, or event dicts).
        rules: a ruleset file or options overriding every game's (as :func:`validate`).
    Yields:
        A :class:`GameReplay` per game, in source order (invalid games too).
    Raises:
        LogReadError: the file cannot be read at all (missing, binary).
        TypeError: a line that is neither text, bytes nor a dict.

    Examples:
        >>> import maumau_log as m
        >>> g = next(m.replay("sample_logs/valid/standard_2p.jsonl"))
        >>> g.valid, g.result["winner"], len(g.events)
        (True, 'p1', 14)
        >>> g.events[1].event["type"], g.events[1].state["top"]
        ('deal', '9C')
    """
    recorder = _Recorder()
    replayer = Replayer(rules_options(rules), visitors=[recorder])
    if isinstance(source, str | os.PathLike):
        reports = replayer.replay_file(Path(source))
    else:
        reports = replayer.replay_lines("<lines>", _lines(source))
    for rep in reports:
        header = None if rep.header is None else msgspec.json.decode(encode_event(rep.header))
        result = None
        if rep.violation is None and rep.engine is not None:
            eng = rep.engine
            result = {"winner": eng.winner, "scores": _scores(recorder.steps)}
        yield GameReplay(
            game_id=rep.game_id,
            header=header,
            file=rep.file,
            line=rep.line,
            events=recorder.steps,
            violations=[rep.violation] if rep.violation is not None else [],
            result=result,
        )


def _scores(steps: list[ReplayedEvent]) -> dict[str, Any] | None:
    for st in reversed(steps):
        if st.event.get("type") == "round_end":
            scores = st.event.get("scores")
            return dict(scores) if isinstance(scores, dict) else None
    return None
