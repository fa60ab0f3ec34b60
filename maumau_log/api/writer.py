"""Writing canonical logs: :class:`LogWriter`.

Each event is written as one line of canonical JSON (the event struct of
:mod:`maumau_log.events` encoded: fields in their schema order, defaults left out), to a
``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst`` file by its name (FORMAT.md Files; the same
compression as ``simulate`` writes). By default every event is first checked through a
:class:`~maumau_log.api.table.Table`, so a server logging through the writer cannot write
an illegal log without knowing: an illegal event is not written, and the violation is
returned (or raised, with ``strict``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from ..events import EVENT_DECODER, Event, encode_event
from ..logs.output import open_out
from ..violations import Violation
from .table import Table
from .validation import PathLike

__all__ = ["IllegalEvent", "LogWriter"]


class IllegalEvent(ValueError):
    """An event :class:`LogWriter` refused (``strict``); ``violation`` says why."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(f"{violation.code}: {violation.message}")
        self.violation = violation


class LogWriter:
    """A log file written event by event, each event checked first.

    Args:
        path: the log to write (``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst``; replaced
            when it exists).
        check: check each event through a :class:`Table` (default); False writes every
            event as given (an importer that validates afterwards).
        strict: raise :class:`IllegalEvent` for an illegal event instead of returning
            its violation.
        rules: options overriding every round's, for the checking table.

    Use it as a context manager (or call :meth:`close`): the file is complete, and a
    compressed file's last block written, when it is closed.

    Examples:
        >>> import tempfile, maumau_log as m
        >>> path = tempfile.mkdtemp() + "/table7.jsonl.gz"
        >>> with m.LogWriter(path) as log:
        ...     log.write({"type": "game", "format": "maumau-log/1", "game_id": "g1",
        ...                "ruleset": "standard", "players": ["ana", "ben"]})
        ...     log.write({"type": "deal", "hands": {"ana": ["7H", "KS", "9C", "QD", "8S"],
        ...                "ben": ["10H", "JC", "AD", "7S", "8C"]}, "starter": "9H"})
        ...     log.write({"type": "play", "player": "ana", "cards": ["AH"]}).code
        ...     log.written
        'card_not_in_hand'
        2
        >>> [v.code for v in m.validate(path).violations]
        ['round_not_finished']
    """

    def __init__(
        self,
        path: PathLike,
        *,
        check: bool = True,
        strict: bool = False,
        rules: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = Path(path)
        self.table: Table | None = Table(rules, name=str(self.path)) if check else None
        self.strict = strict
        self.written = 0
        self._handle: Any = open_out(self.path)
        self._out: Any = self._handle.__enter__()

    def write(self, event: Mapping[str, Any] | Event) -> Violation | None:
        """Check ``event`` (unless the writer does not check) and write it when legal.

        Returns:
            None when the event was written; else its violation (nothing written).
        Raises:
            IllegalEvent: with ``strict``, instead of returning the violation.
            TypeError: ``event`` is not a mapping (nor an event struct).
            ValueError: the writer is closed.
        """
        if self._out is None:
            raise ValueError(f"{self.path}: the log writer is closed")
        if self.table is not None:
            verdict = self.table.apply(event)
            if verdict is not None:
                if self.strict:
                    raise IllegalEvent(verdict)
                return verdict
        if isinstance(event, Mapping):
            line = msgspec.json.encode(dict(event))
            # canonical: the event struct's fields in schema order (unchecked and no event
            # of the format: written as given)
            with contextlib.suppress(msgspec.DecodeError, RecursionError):
                line = encode_event(EVENT_DECODER.decode(line))
        elif isinstance(event, msgspec.Struct):
            line = encode_event(event)
        else:
            raise TypeError(f"an event is a mapping (a JSON object), not {type(event).__name__}")
        self._out.write(line + b"\n")
        self.written += 1
        return None

    def close(self) -> None:
        """Finish the file (a compressed file's last block); writing after it is an
        error. Closing twice is harmless."""
        if self._out is not None:
            self._out = None
            self._handle.__exit__(None, None, None)

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
