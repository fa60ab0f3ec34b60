"""The ``.mm`` notation: a game written by hand, one line per event.

A transcription of a disputed game, compact and readable aloud, that converts both ways
to the canonical JSON Lines log (FORMAT.md) without losing anything. The grammar is in
``docs/reference/notation.md``; in short::

    game t7-000123                  # a game starts: its header block follows
    ruleset: classic
    players: ana ben
    dealer: ben
    hand ana 7H JS 9C 10D QD        # the deal: one line per hand ...
    hand ben ?5                     # ... ?5: five cards not shown (a partial log)
    starter 10H                     # ... then the starter
    stock KC 8C JD                  # ... and the stock, top first (optional)
    ana plays 7H
    ben draws KC 8C (effect)
    ana plays JS
    ana names D
    end ana scores ana 0 ben 23

Every event that the short forms cannot say exactly (an unusual field, a null, a value of
an unexpected type) keeps the rest in a trailing JSON object (``ana plays 7H {"t": 5}``);
an event with no short form at all is written ``json {...}``, and a line that was not a
JSON object in the log is written ``raw TEXT``. So ``to_notation`` followed by
``from_notation`` gives back the same JSON objects, line for line (property-tested).

Data flow: this module only translates text; the engine checks the rules afterwards, so a
transcription with an illegal move converts fine and ``validate`` reports the violation.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .badline import BadLine

if TYPE_CHECKING:
    from .lexer import HeaderError, NotationError, tokenize
    from .reader import from_notation, parse, parse_action
    from .writer import to_notation

__all__ = [
    "NOTATION_SUFFIX",
    "BadLine",
    "HeaderError",
    "NotationError",
    "file_lines",
    "from_notation",
    "is_notation",
    "located_lines",
    "parse",
    "parse_action",
    "read_text",
    "to_notation",
    "tokenize",
]

_LAZY = {
    "HeaderError": "lexer",
    "NotationError": "lexer",
    "tokenize": "lexer",
    "from_notation": "reader",
    "parse": "reader",
    "parse_action": "reader",
    "to_notation": "writer",
}
"""Names imported from their module on first use (PEP 562): the replay and the validate
command import this package for :func:`is_notation` and :class:`BadLine` only, and the
lexer, reader and writer (regular expressions, tables) are start-up a JSON Lines log need
not pay."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


NOTATION_SUFFIX = ".mm"
"""The file name ending of the notation (a file so named is read as notation)."""


def is_notation(path: str | os.PathLike[str]) -> bool:
    """True for a file named ``*.mm`` (compared case-insensitively)."""
    return os.fspath(path).lower().endswith(NOTATION_SUFFIX)


def read_text(path: str | os.PathLike[str]) -> str:
    """Read a notation file as UTF-8 text.

    Raises:
        LogReadError: the file cannot be opened (no line number) or is not UTF-8 text
            (the line of the first bad byte).
    """
    from ..lines import LogReadError

    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise LogReadError(name, None, exc.strerror or type(exc).__name__) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LogReadError(name, line, "not a text log: the notation is UTF-8 text") from None


def located_lines(text: str) -> Iterator[tuple[int, bytes]]:
    """A notation text's events as located JSON lines for the replay: a bad line becomes
    a :class:`BadLine` in place (reported ``bad_notation``) and reading goes on
    (:func:`maumau_log.logs.notation.reader.located_lines`, imported on the first call).

    Returns:
        an iterator of ``(line, bytes)``, as :func:`maumau_log.logs.lines.iter_lines` gives.
    """
    from .reader import located_lines as read_located

    return read_located(text)


def file_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """A notation file's events as located JSON lines for the replay (see
    :func:`located_lines`); opened on the first ``next()``.

    Raises:
        LogReadError: as :func:`read_text`.
    """
    yield from located_lines(read_text(path))
