"""Tokens of the ``.mm`` notation: words, JSON strings, reasons, times, the trailing JSON
object; the errors; and how a name or a card is quoted so that it reads back the same
(docs/notation.md "Grammar")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

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
        NotationError: an unterminated string or parenthesis, bad JSON, text after the
            trailing JSON object.
    """
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
            try:
                value, end = _decoder.raw_decode(text, i)
            except json.JSONDecodeError as exc:
                what = "string" if ch == '"' else "JSON object"
                raise NotationError(line, exc.colno, f"bad {what}: {exc.msg}") from None
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
