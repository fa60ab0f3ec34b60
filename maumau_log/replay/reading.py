"""Reading a log's games as decoded events, without replaying them (the bots' review and
``compare`` read a log so); :mod:`.driver` re-exports :func:`read_games`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..events import Event, Game, decode_event
from ..logs.lines import LogReadError, Overlong, iter_lines


def read_games(path: str | Path) -> Iterator[tuple[int, list[Event]]]:
    """Read a log's games as decoded events, without replaying them.

    Args:
        path: a log file.
    Yields:
        ``(header_line, events)`` per game, header first.
    Raises:
        LogReadError: the file cannot be read, or a line is not a valid event (the message
            names the line); events before any header are an error too.
    """
    current: list[Event] | None = None
    start = 0
    for line_no, raw in iter_lines(Path(path)):
        if type(raw) is Overlong:
            raise LogReadError(str(path), line_no, "the line is longer than the reader accepts")
        try:
            ev = decode_event(raw)
        except msgspec.DecodeError as exc:
            raise LogReadError(str(path), line_no, f"not a valid event: {exc}") from exc
        except RecursionError:  # msgspec's depth limit
            raise LogReadError(str(path), line_no, "not a valid event: nested too deeply") from None
        if isinstance(ev, Game):
            if current is not None:
                yield start, current
            current, start = [ev], line_no
        elif current is None:
            raise LogReadError(str(path), line_no, "an event before any game header")
        else:
            current.append(ev)
    if current is not None:
        yield start, current
