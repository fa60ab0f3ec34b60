"""Tokens of the ``.mm`` notation: words, JSON strings, reasons, times, the trailing JSON
object; the errors; and how a name or a card is quoted so that it reads back the same
(docs/reference/notation.md "Grammar")."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

from ...events import has_lone_surrogate
from .badline import BadLine

FORMAT = "maumau-log/1"

VERBS: dict[str, str] = {
    "plays": "play", "play": "play", "p": "play",
    "jumps": "jump", "jump": "jump",
    "names": "suit", "name": "suit", "suit": "suit", "chooses": "suit",
    "draws": "draw", "draw": "draw", "d": "draw",
    "passes": "pass", "pass": "pass",
    "calls": "mau", "call": "mau", "says": "mau",
    "pays": "penalty", "pay": "penalty",
    "cuts": "cut", "cut": "cut",
    "abandons": "abandon",
}  # fmt: skip
"""Verb of a player line (and its short or imperative forms) to the event type."""

KEYWORDS = ("game", "hand", "starter", "stock", "reshuffle", "end", "match_end", "abandon",
            "json", "raw")  # fmt: skip
"""Words that open a line that is not a player's action (a player so named is quoted)."""

HEADER_TOKEN_KEYS = ("ruleset", "dealer", "match_id", "started_at", "format")
"""Header keys whose value is one token (a word or a JSON string)."""
_HEADER_ORDER = ("ruleset", "players", "dealer", "match_id", "round", "started_at", "options",
                 "shuffle", "meta")  # fmt: skip
_HEADER_KEY = re.compile(r"\s*([a-z_][a-z0-9_]*):(?=\s|$)")
_RAW = re.compile(r"\s*raw(\s|$)")
_INT = re.compile(r"-?[0-9]+\Z")
_UNKNOWN = re.compile(r"\?([0-9]*)\Z")
_REASON = re.compile(r"[^()#\s]([^()]*[^()\s])?\Z")
_SPECIAL_START = ('"', "{", "(", ")", "#", "@", "?")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_TEXT = (
    "a lone surrogate is no character (the notation and the log are UTF-8 text): "
    "a '\\ud800'-style escape without its pair, or a byte that is not UTF-8"
)


class NotationError(ValueError):
    """A line the grammar does not allow.

    Attributes:
        line: the 1-based line number; column: the 1-based column of the fault.
        message: what is wrong and what was expected there.
    """

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.line, self.column, self.message = line, column, message


class HeaderError(NotationError):
    """A fault in a game's header block: the whole game is reported at its header."""


def _bad_line(err: NotationError, header: bool, game_id: str | None) -> BadLine:
    stub = {"type": "game", "game_id": game_id} if header else {"type": "?"}
    b = BadLine(json.dumps(stub).encode())
    b.message = f"column {err.column}: {err.message}"
    b.header, b.game_id = header, game_id
    return b


# ---------------------------------------------------------------------------------------
# Tokens


@dataclass(frozen=True, slots=True)
class Tok:
    """One token: ``kind`` is ``word`` (bare), ``str`` (a JSON string), ``paren`` (text in
    parentheses), ``at`` (``@time``) or ``json`` (a trailing JSON object); ``col`` 1-based."""

    kind: str
    value: Any
    col: int


_decoder = json.JSONDecoder()


def tokenize(text: str, line: int) -> list[Tok]:
    """Split one line into tokens; a ``#`` at a token's start begins a comment.

    Raises:
        NotationError: an unterminated string or parenthesis, bad JSON (also a number of
            more digits than Python reads, JSON nested too deeply), text after the trailing
            JSON object, a lone surrogate (in the text, or from a JSON escape).
    """
    bad = _SURROGATE.search(text)  # (an argument that is not UTF-8, e.g. for --try)
    if bad is not None:
        raise NotationError(line, bad.start() + 1, _NOT_TEXT)
    toks: list[Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        col = i + 1
        if ch == "#":
            break
        if ch in '"{':
            what = "string" if ch == '"' else "JSON object"
            value, end = decode_json(text, i, line, f"bad {what}: {{}}")
            if ch == "{":
                rest = text[end:].strip()
                if rest and not rest.startswith("#"):
                    raise NotationError(
                        line, end + 1 + (len(text[end:]) - len(text[end:].lstrip())),
                        "nothing may follow the trailing JSON object",
                    )  # fmt: skip
                toks.append(Tok("json", value, col))
                break
            toks.append(Tok("str", value, col))
            i = end
            continue
        if ch == "(":
            close = text.find(")", i)
            if close < 0:
                raise NotationError(line, col, "'(' without its ')'")
            toks.append(Tok("paren", text[i + 1 : close].strip(), col))
            i = close + 1
            continue
        if ch == ")":
            raise NotationError(line, col, "')' without its '('")
        j = i
        while j < n and not text[j].isspace():
            j += 1
        word = text[i:j]
        toks.append(Tok("at", word[1:], col) if ch == "@" else Tok("word", word, col))
        i = j
    return toks


def decode_json(text: str, at: int, line: int, message: str) -> tuple[Any, int]:
    """The JSON value that starts at ``text[at]`` and the index after it.

    Args:
        text: one line (or the part of it holding the value); at: where the value starts;
        line: the line number; message: the error's words, ``{}`` standing for the reason.
    Raises:
        NotationError: not JSON (at the column the decoder names), or at the value's
            column: a number of more digits than Python turns into an int (4,300 by
            default: ``sys.get_int_max_str_digits``), nested too deeply to read, or
            holding a lone surrogate (``"\\ud800"``).
    """
    try:
        value, end = _decoder.raw_decode(text, at)
    except json.JSONDecodeError as exc:
        raise NotationError(line, exc.colno, message.format(exc.msg)) from None
    except ValueError as exc:  # json's int conversion: "Exceeds the limit (4300 digits)"
        raise NotationError(line, at + 1, message.format(_too_long(exc))) from None
    except RecursionError:
        raise NotationError(line, at + 1, message.format("nested too deeply to read")) from None
    if has_lone_surrogate(value):
        raise NotationError(line, at + 1, message.format(_NOT_TEXT))
    return value, end


def _too_long(exc: ValueError) -> str:
    limit = sys.get_int_max_str_digits()
    return f"a number of more than {limit:,} digits" if limit else str(exc)


def whole_number(text: str, line: int, column: int, what: str) -> int:
    """``int(text)`` for a token the grammar reads as a whole number.

    Raises:
        NotationError: at ``column``: ``text`` has more digits than Python turns into an
            int (``sys.get_int_max_str_digits``, 4,300 by default).
    """
    try:
        return int(text)
    except ValueError as exc:
        raise NotationError(line, column, f"{what}: {_too_long(exc)}") from None


def _needs_quote(s: str, colon: bool = True) -> bool:
    """True when ``s`` would not read back as one bare word (``colon``: a ``:`` could make
    a line look like a header line, so a name with one is quoted)."""
    return (
        not s
        or s.startswith(_SPECIAL_START)
        or any(c.isspace() or not c.isprintable() for c in s)
        or (colon and ":" in s)
    )


def _q(s: str, reserved: Iterable[str] = ()) -> str:
    """A token for ``s``: bare where that reads back the same, else a JSON string."""
    if _needs_quote(s) or s in reserved:
        return json.dumps(s, ensure_ascii=False)
    return s


def _player(s: str) -> str:
    return _q(s, (*KEYWORDS, "-", "by", "scores", "totals"))


def _card(s: str) -> str:
    return _q(s, ("by", "scores", "totals")) if not _INT.match(s) else json.dumps(s)


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)
