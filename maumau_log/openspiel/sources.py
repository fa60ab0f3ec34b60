"""Reading OpenSpiel game records: the text of ``pyspiel.serialize_game_and_state``
(``open_spiel/spiel.cc``, ``SerializeGameAndState``: ``[Meta]`` ``Version: 1``, ``[Game]`` the
game string, ``[State]`` one action id per line) and JSON lines of ``{"game": "<game
string>", "history": [action ids]}`` (docs/tutorials/openspiel-import.md).

Bad input is located: every game that cannot be read becomes an
:class:`~maumau_log.openspiel.errors.OpenSpielImportError` with its file, line and game
number, and the games around it are still read.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from .errors import OpenSpielImportError


@dataclass
class SourceGame:
    """One game read from an input file, before decoding.

    Attributes:
        number: 1-based number of the game in the file.
        line: the line where the game starts.
        game: the game string.
        history: the action ids.
        lines: the line of each action (the same line for every action of a JSON line).
        game_id: an id given in the input (a JSON line's ``game_id`` or ``id``), or None.
    """

    number: int
    line: int
    game: str
    history: list[int]
    lines: list[int]
    game_id: str | None = None


def read_source(path: str | Path) -> Iterator[SourceGame | OpenSpielImportError]:
    """Read the games of one input file: the text of ``pyspiel.serialize_game_and_state``
    (one or several, each from its ``[Meta]`` or ``[Game]`` section), or JSON lines of
    ``{"game": "<game string>", "history": [action ids]}``.

    Yields:
        A :class:`SourceGame` per game, or a located :class:`OpenSpielImportError` for a
        game that cannot be read (the others are still read).
    Raises:
        OpenSpielImportError: the file cannot be opened or is not text.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise OpenSpielImportError(f"cannot read: {exc.strerror}", name) from exc
    except UnicodeDecodeError as exc:
        raise OpenSpielImportError("not a UTF-8 text file", name) from exc
    lines = text.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if not first:
        raise OpenSpielImportError("the file holds no game", name)
    if first.startswith("{"):
        yield from _read_json_lines(name, lines)
    else:
        yield from _read_serialized(name, lines)


_INT_ONLY = {int}
_decode = msgspec.json.Decoder().decode


class _UsualLine(msgspec.Struct):
    """The usual JSON line: ``game`` a string, ``history`` a list of integers (any other
    keys ignored; ``game_id`` and ``id`` as given, absent = ``UNSET``)."""

    game: str
    history: list[int]
    game_id: Any = msgspec.UNSET
    id: Any = msgspec.UNSET


_decode_usual = msgspec.json.Decoder(_UsualLine).decode
"""Decodes a usual line, typed, in one pass (the generic decode and the test of
every entry's type were a fifth of the reading); every other line raises and is read by
the general path, which decides and words the refusals as before."""


def _usual(i: int, number: int, raw: str) -> SourceGame | None:
    """The game of line ``i`` when it is a usual line (see :class:`_UsualLine`), exactly as
    the general path of :func:`_read_json_lines` reads it; None for any other line.

    msgspec's typed decode takes what the general path takes: a JSON object whose last
    ``game`` is a string and whose last ``history`` is a list of exact ints (a bool, a float
    such as ``1.0`` or ``1e3`` is refused, an int of any size taken); what it refuses goes
    to the general path.
    """
    try:
        line = _decode_usual(raw)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    hist = line.history
    # ``obj.get("game_id", obj.get("id"))`` of the general path
    gid = line.game_id if line.game_id is not msgspec.UNSET else line.id
    if gid is msgspec.UNSET:
        gid = None
    return SourceGame(number, i, line.game, hist, [i] * len(hist),
                      str(gid) if gid is not None else None)  # fmt: skip


def _read_json_lines(name: str, lines: list[str]) -> Iterator[SourceGame | OpenSpielImportError]:
    number = 0
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        number += 1
        usual = _usual(i, number, raw)
        if usual is not None:
            yield usual
            continue
        try:
            obj = _decode(raw)  # msgspec: about 3x json's speed
        except msgspec.DecodeError:
            # what msgspec refuses, json decides, as before: it reads NaN, 1e400 and lone
            # surrogates, and words the errors
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as exc:
                yield OpenSpielImportError(f"not valid JSON: {exc.msg}", name, i, number)
                continue
            except ValueError:  # json's int(): a number of more digits than Python reads
                yield OpenSpielImportError(
                    f"not valid JSON: a number of more than {sys.get_int_max_str_digits():,} "
                    "digits",
                    name, i, number,
                )  # fmt: skip
                continue
            except RecursionError:
                yield OpenSpielImportError("not valid JSON: nested too deeply", name, i, number)
                continue
        except RecursionError:  # msgspec's own depth limit: a deeply nested line
            yield OpenSpielImportError("not valid JSON: nested too deeply", name, i, number)
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("game"), str):
            yield OpenSpielImportError(
                'expected an object {"game": "<game string>", "history": [<action ids>]}',
                name, i, number,
            )  # fmt: skip
            continue
        hist = obj.get("history")
        # JSON gives exact ints (never a subclass but bool): a type test suffices, made
        # in C (the set of the entries' types)
        if not isinstance(hist, list) or not set(map(type, hist)) <= _INT_ONLY:
            yield OpenSpielImportError('"history" must be a list of integer action ids',
                                       name, i, number)  # fmt: skip
            continue
        gid = obj.get("game_id", obj.get("id"))
        yield SourceGame(number, i, obj["game"], list(hist), [i] * len(hist),
                         str(gid) if gid is not None else None)  # fmt: skip


def _read_serialized(name: str, lines: list[str]) -> Iterator[SourceGame | OpenSpielImportError]:
    """Parse ``SerializeGameAndState`` text: ``[Meta]`` (``Version: 1``), ``[Game]`` (one
    game string), ``[State]`` (one action id per line); ``#`` lines are comments."""
    number = 0
    section: str | None = None
    cur: SourceGame | None = None
    bad: OpenSpielImportError | None = None

    def close() -> Iterator[SourceGame | OpenSpielImportError]:
        if bad is not None:
            yield bad
        elif cur is not None:
            yield cur

    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if s in ("[Meta]", "[Game]", "[State]"):
            if s == "[Meta]" or (s == "[Game]" and section != "[Meta]"):
                yield from close()
                number += 1
                cur, bad = None, None
            elif section is None and s == "[State]":
                number += 1
            section = s
            if s == "[State]" and cur is None and bad is None:
                bad = OpenSpielImportError("a [State] section with no [Game] before it",
                                           name, i, number)  # fmt: skip
            continue
        if section is None:
            bad = bad or OpenSpielImportError(
                "not an OpenSpiel serialization ([Meta] / [Game] / [State] sections) nor "
                "JSON lines",
                name, i, max(number, 1),
            )  # fmt: skip
            yield bad
            return
        if section == "[Meta]":
            if s.startswith("Version:") and s.split(":", 1)[1].strip() != "1":
                bad = bad or OpenSpielImportError(
                    f"serialization {s!r}: this importer reads version 1", name, i, number
                )
            continue
        if section == "[Game]":
            if cur is not None:
                bad = bad or OpenSpielImportError("[Game] holds more than one line",
                                                  name, i, number)  # fmt: skip
                continue
            cur = SourceGame(number, i, s, [], [])
            continue
        # [State]
        if bad is not None or cur is None:
            continue
        if not re.fullmatch(r"-?\d+", s):
            bad = OpenSpielImportError(
                f"[State] line {s[:40]!r} is not an action id",
                name, i, number, len(cur.history),
            )  # fmt: skip
            continue
        try:
            action = int(s)
        except ValueError:  # more digits than Python turns into an int (4,300)
            bad = OpenSpielImportError(
                f"[State] line {s[:12]}... ({len(s.lstrip('-'))} digits) is not an action id",
                name, i, number, len(cur.history),
            )  # fmt: skip
            continue
        cur.history.append(action)
        cur.lines.append(i)
    yield from close()
