"""The ``.mm`` notation: a game written by hand, one line per event (issue 13, item 3).

A transcription of a disputed game, compact and readable aloud, that converts both ways
to the canonical JSON Lines log (FORMAT.md) without losing anything. The grammar is in
``docs/notation.md`` (and the README); in short::

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

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeGuard

__all__ = [
    "BadLine",
    "NotationError",
    "from_notation",
    "located_lines",
    "parse_action",
    "to_notation",
]

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


class BadLine(bytes):
    """A located line that could not be read, for the replay (code ``bad_notation``).

    The bytes are a stand-in event (a header stand-in when ``header`` is true, so the game
    the line belongs to is the one that gets the violation). ``message`` says where and why.
    """

    message: str
    header: bool
    game_id: str | None


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


# ---------------------------------------------------------------------------------------
# Writing: JSON objects -> notation


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _cards(cards: list[str]) -> str:
    return " ".join(_card(c) for c in cards)


def _hand(h: Any) -> str | None:
    if _is_str_list(h):
        return _cards(h)
    if isinstance(h, dict) and set(h) == {"count"} and _is_int(h["count"]) and h["count"] >= 0:
        return f"?{h['count']}"
    return None


def _tail(parts: list[str], ev: dict[str, Any], used: set[str]) -> str:
    t = ev.get("t")
    if "t" not in used and (
        (_is_int(t) and t >= 0)
        or (isinstance(t, str) and t and not _INT.match(t) and not _needs_quote(t, False))
    ):
        parts.append(f"@{t}")
        used.add("t")
    rest = {k: v for k, v in ev.items() if k not in used and k != "type"}
    if rest:
        parts.append(_dump(rest))
    return " ".join(p for p in parts if p)


def _event_line(ev: dict[str, Any]) -> str:
    """One event (not a header, not a deal) as one line."""
    kind = ev.get("type")
    player = ev.get("player")
    used: set[str] = set()
    if kind in ("play", "suit", "draw", "pass", "mau", "penalty", "cut") and isinstance(
        player, str
    ):
        used.add("player")
        head = _player(player)
        if kind == "play" and _is_str_list(ev.get("cards")) and ev["cards"]:
            used.add("cards")
            verb = "plays"
            if ev.get("jump_in") is True:
                verb = "jumps"
                used.add("jump_in")
            return _tail([head, verb, _cards(ev["cards"])], ev, used)
        if kind == "suit" and isinstance(ev.get("suit"), str):
            used.add("suit")
            return _tail([head, "names", _card(ev["suit"])], ev, used)
        if kind == "pass":
            return _tail([head, "passes"], ev, used)
        if kind == "mau" and isinstance(ev.get("call"), str):
            used.add("call")
            word = ev["call"]
            words = word.split(" ")
            bare = all(
                w and not _needs_quote(w) and w not in ("by", "scores", "totals") for w in words
            )
            return _tail([head, "calls", word if bare else json.dumps(word)], ev, used)
        if kind == "cut":
            parts = [head, "cuts"]
            if _is_str_list(ev.get("taken")) and ev["taken"]:
                used.add("taken")
                parts.append(_cards(ev["taken"]))
            return _tail(parts, ev, used)
        if kind in ("draw", "penalty"):
            parts = [head, "draws" if kind == "draw" else "pays"]
            cards, count = ev.get("cards"), ev.get("count")
            if _is_str_list(cards) and cards:
                used.add("cards")
                parts.append(_cards(cards))
            elif _is_int(count) and count > 0 and "cards" not in ev:
                used.add("count")
                parts.append(f"?{count}")
            reason = ev.get("reason")
            if isinstance(reason, str) and _REASON.match(reason):
                used.add("reason")
                parts.append(f"({reason})")
            if kind == "penalty" and "reason" not in used:
                return "json " + _dump(ev)
            if kind == "penalty" and isinstance(ev.get("by"), str):
                used.add("by")
                parts += ["by", _player(ev["by"])]
            return _tail(parts, ev, used)
    if kind == "reshuffle":
        parts = ["reshuffle"]
        if _is_str_list(ev.get("stock")) and ev["stock"]:
            used.add("stock")
            parts.append(_cards(ev["stock"]))
        elif _is_int(ev.get("count")) and ev["count"] > 0 and "stock" not in ev:
            used.add("count")
            parts.append(f"?{ev['count']}")
        return _tail(parts, ev, used)
    if kind in ("round_end", "match_end") and "winner" in ev:
        w = ev["winner"]
        if w is None or isinstance(w, str):
            used.add("winner")
            parts = [
                "end" if kind == "round_end" else "match_end",
                "-" if w is None else _player(w),
            ]
            key = "scores" if kind == "round_end" else "totals"
            sc = ev.get(key)
            if isinstance(sc, dict) and sc and all(_is_int(v) for v in sc.values()):
                used.add(key)
                parts.append(key)
                parts += [f"{_player(p)} {v}" for p, v in sc.items()]
            return _tail(parts, ev, used)
    if kind == "abandon":
        parts = ["abandon"]
        if isinstance(player, str):
            used.add("player")
            parts.append(_player(player))
        reason = ev.get("reason")
        if isinstance(reason, str) and _REASON.match(reason):
            used.add("reason")
            parts.append(f"({reason})")
        return _tail(parts, ev, used)
    return "json " + _dump(ev)


def _header_lines(ev: dict[str, Any]) -> list[str] | None:
    gid = ev.get("game_id")
    if not isinstance(gid, str) or "format" not in ev:
        return None
    lines = [f"game {_q(gid, ('-',))}"]
    used = {"type", "game_id"}
    if ev["format"] == FORMAT:
        used.add("format")
    extra: dict[str, Any] = {}
    keys = [k for k in _HEADER_ORDER if k in ev] + [k for k in ev if k not in _HEADER_ORDER]
    for k in keys:
        if k in used:
            continue
        v = ev[k]
        if k == "players" and _is_str_list(v) and v:
            lines.append("players: " + " ".join(_player(p) for p in v))
        elif k in HEADER_TOKEN_KEYS:
            if isinstance(v, str):
                lines.append(f"{k}: {v if not _needs_quote(v, False) else json.dumps(v)}")
            else:
                extra[k] = v
        elif k == "round" and _is_int(v):
            lines.append(f"round: {v}")
        elif k in ("players", "round", "json"):
            extra[k] = v
        else:
            lines.append(f"{k}: {_dump(v)}")
    if extra:
        lines.append(f"json: {_dump(extra)}")
    return lines


def _deal_lines(ev: dict[str, Any]) -> list[str] | None:
    hands, starter = ev.get("hands"), ev.get("starter")
    if not isinstance(hands, dict) or not hands or not isinstance(starter, str):
        return None
    lines = []
    for p, h in hands.items():
        text = _hand(h)
        if text is None:
            return None
        lines.append(f"hand {_player(p)} {text}".rstrip())
    used = {"hands", "starter"}
    last = ["starter", _card(starter)]
    stock_line = None
    if _is_str_list(ev.get("stock")):
        used.add("stock")
        stock_line = ("stock " + _cards(ev["stock"])).rstrip()
    lines.append(_tail(last, ev, used))
    if stock_line is not None:
        lines.append(stock_line)
    return lines


def to_notation(lines: Iterable[bytes | str]) -> str:
    """Write a log's lines (JSON events, as read) in the notation.

    Args:
        lines: the log's non-blank lines, in order (``bytes`` or ``str``).
    Returns:
        The notation text, one game's header block after a blank line; ends with a newline.
    Raises:
        NotationError: a line is not UTF-8 text (line number = its place in ``lines``).
    """
    out: list[str] = []
    for i, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise NotationError(i, 1, "the line is not UTF-8 text") from None
        try:
            ev = json.loads(raw)
        except (ValueError, RecursionError):
            ev = None
        if not isinstance(ev, dict):
            out.append("raw " + raw)
            continue
        written: list[str] | None = None
        if ev.get("type") == "game":
            written = _header_lines(ev)
            if out:
                out.append("")
        elif ev.get("type") == "deal":
            written = _deal_lines(ev)
        else:
            written = [_event_line(ev)]
        if written is None:
            written = ["json " + _dump(ev)]
        out.extend(written)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------
# Reading: notation -> JSON objects


class _Line:
    """The tokens of one line, read left to right with located errors."""

    def __init__(self, toks: list[Tok], line: int, text: str) -> None:
        self.toks, self.line, self.text, self.i = toks, line, text, 0

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def end_col(self) -> int:
        return len(self.text.rstrip()) + 1

    def err(self, message: str, tok: Tok | None = None) -> NotationError:
        col = tok.col if tok is not None else self.end_col()
        return NotationError(self.line, col, message)

    def name(self, what: str) -> str:
        t = self.peek()
        if t is None or t.kind not in ("word", "str"):
            raise self.err(f"expected {what}", t)
        self.i += 1
        return str(t.value)

    def items(self) -> list[Tok]:
        """Card-like tokens up to a reason, a keyword, ``@time`` or the JSON object."""
        got = []
        while (t := self.peek()) is not None and t.kind in ("word", "str"):
            if t.kind == "word" and t.value in ("by", "scores", "totals"):
                break
            got.append(self.take())
        return got

    def finish(self, ev: dict[str, Any]) -> dict[str, Any]:
        t = self.peek()
        if t is not None and t.kind == "at":
            self.i += 1
            if not t.value:
                raise self.err("'@' needs a time after it (ISO 8601 or milliseconds)", t)
            ev["t"] = int(t.value) if _INT.match(t.value) else t.value
            t = self.peek()
        if t is not None and t.kind == "json":
            self.i += 1
            if not isinstance(t.value, dict):  # pragma: no cover - tokenizer gives objects
                raise self.err("expected a JSON object", t)
            ev.update(t.value)
            t = self.peek()
        if t is not None:
            raise self.err(f"unexpected {_show(t)} here", t)
        return ev


def _show(t: Tok) -> str:
    if t.kind == "paren":
        return f"'({t.value})'"
    if t.kind == "json":
        return "JSON object"
    return repr(t.value) if t.kind != "at" else f"'@{t.value}'"


def _cards_or_unknown(ln: _Line, toks: list[Tok], key: str) -> dict[str, Any]:
    """Cards as ``{key: [...]}``, unknown cards (``?``, ``?N``) or a bare count as
    ``{"count": N}``, nothing as ``{}``."""
    if not toks:
        return {}
    unknown = [t for t in toks if t.kind == "word" and _UNKNOWN.match(t.value)]
    if unknown:
        if len(unknown) != len(toks):
            raise ln.err(
                "known and unknown ('?') cards mixed: the log format has either the cards or "
                "their count; write all of them or only the count",
                unknown[0],
            )
        total = 0
        for t in unknown:
            digits = _UNKNOWN.match(t.value).group(1)  # type: ignore[union-attr]
            total += int(digits) if digits else 1
        return {"count": total}
    if len(toks) == 1 and toks[0].kind == "word" and _INT.match(toks[0].value):
        return {"count": int(toks[0].value)}
    for t in toks:
        if t.kind == "word" and _INT.match(t.value):
            raise ln.err(f"{t.value!r} is not a card (a count stands alone, e.g. '?2')", t)
    return {key: [str(t.value) for t in toks]}


def _pairs(ln: _Line) -> dict[str, int]:
    got: dict[str, int] = {}
    while (t := ln.peek()) is not None and t.kind in ("word", "str"):
        p = ln.name("a player")
        n = ln.peek()
        if n is None or n.kind != "word" or not _INT.match(n.value):
            raise ln.err(f"expected {p}'s points (a whole number)", n)
        ln.i += 1
        got[p] = int(n.value)
    return got


def parse_action(text: str, line: int = 1) -> dict[str, Any]:
    """Parse one player line (``ben plays 7C``, ``ben draws``, ``ben names H`` ...) into
    its event object. Used for transcriptions and for ``game --try``.

    Args:
        text: the line; line: its number, for error messages.
    Returns:
        The event as a JSON-ready dict.
    Raises:
        NotationError: the line is not a player's action; the column points at the fault.
    """
    toks = tokenize(text, line)
    ln = _Line(toks, line, text)
    if not toks:
        raise ln.err("empty: expected a player and what they did, e.g. 'ben plays 7C'")
    return _player_line(ln)


def _player_line(ln: _Line) -> dict[str, Any]:
    player = ln.name("a player")
    vt = ln.peek()
    if vt is None or vt.kind != "word" or vt.value.lower() not in VERBS:
        known = "plays, draws, names, calls, passes, pays, jumps, cuts, abandons"
        raise ln.err(f"expected what {player} did ({known})", vt)
    ln.i += 1
    kind = VERBS[vt.value.lower()]
    ev: dict[str, Any] = {"type": kind, "player": player}
    if kind in ("play", "jump"):
        while kind == "jump" and (w := ln.peek()) is not None and w.kind == "word":
            if w.value not in ("in", "with"):  # "jumps in with 7C", as the engine says it
                break
            ln.i += 1
        toks = ln.items()
        if not toks:
            raise ln.err(f"expected the card(s) {player} played, e.g. 7C")
        for t in toks:
            if t.kind == "word" and (_UNKNOWN.match(t.value) or _INT.match(t.value)):
                raise ln.err(f"{t.value!r}: a play shows its cards (a card code like 7C)", t)
        ev = {"type": "play", "player": player, "cards": [str(t.value) for t in toks]}
        if kind == "jump":
            ev["jump_in"] = True
    elif kind == "suit":
        ev["suit"] = ln.name("the suit named (C, D, H or S)")
    elif kind == "mau":
        words = ln.items()
        if not words:
            raise ln.err("expected the word called, e.g. mau")
        if len(words) > 1 and any(w.kind == "str" for w in words):
            raise ln.err("a quoted call stands alone", words[1])
        ev["call"] = " ".join(str(w.value) for w in words)
    elif kind == "cut":
        taken = ln.items()
        if taken:
            ev["taken"] = [str(t.value) for t in taken]
    elif kind in ("draw", "penalty"):
        ev.update(_cards_or_unknown(ln, ln.items(), "cards"))
        r = ln.peek()
        if r is not None and r.kind == "paren":
            ln.i += 1
            ev["reason"] = r.value
        elif kind == "penalty":
            raise ln.err("a penalty needs its reason in parentheses, e.g. (missed_call)", r)
        if kind == "penalty" and (b := ln.peek()) is not None and b.kind == "word":
            if b.value != "by":
                raise ln.err("expected 'by' and the player who caught it", b)
            ln.i += 1
            ev["by"] = ln.name("the player who caught it")
    elif kind == "abandon":
        ev = {"type": "abandon", "player": player}
        a = ln.peek()
        if a is not None and a.kind == "paren":
            ln.i += 1
            ev["reason"] = a.value
    return ln.finish(ev)


def _keyword_line(ln: _Line, word: str) -> dict[str, Any]:
    ln.i += 1
    if word == "reshuffle":
        ev: dict[str, Any] = {"type": "reshuffle"}
        got = _cards_or_unknown(ln, ln.items(), "stock")
        ev.update(got)
        return ln.finish(ev)
    if word in ("end", "match_end"):
        kind = "round_end" if word == "end" else "match_end"
        t = ln.peek()
        if t is None or t.kind not in ("word", "str"):
            raise ln.err("expected the winner (a player, or - for none)", t)
        ln.i += 1
        ev = {"type": kind, "winner": None if (t.kind, t.value) == ("word", "-") else t.value}
        key = "scores" if kind == "round_end" else "totals"
        t = ln.peek()
        if t is not None and t.kind == "word" and t.value == key:
            ln.i += 1
            ev[key] = _pairs(ln)
        return ln.finish(ev)
    if word == "abandon":
        ev = {"type": "abandon"}
        t = ln.peek()
        if t is not None and t.kind in ("word", "str"):
            ev["player"] = ln.name("a player")
        t = ln.peek()
        if t is not None and t.kind == "paren":
            ln.i += 1
            ev["reason"] = t.value
        return ln.finish(ev)
    raise ln.err(f"{word!r} cannot start a line here")  # pragma: no cover


def _header_value(ln_no: int, key: str, text: str, col: int) -> Any:
    if key == "players":
        toks = tokenize(text, ln_no)
        for t in toks:
            if t.kind not in ("word", "str"):
                raise NotationError(ln_no, col + t.col - 1, "players are names, one after another")
        if not toks:
            raise NotationError(ln_no, col, "expected the players in seat order")
        return [str(t.value) for t in toks]
    if key in HEADER_TOKEN_KEYS:
        toks = tokenize(text, ln_no)
        if len(toks) != 1 or toks[0].kind not in ("word", "str"):
            at = col + (toks[1].col - 1 if len(toks) > 1 else 0)
            raise NotationError(ln_no, at, f"{key} is one word (quote it if it has spaces)")
        return str(toks[0].value)
    if key == "round":
        if not _INT.match(text.strip()):
            at = col + len(text) - len(text.lstrip())
            raise NotationError(ln_no, at, "round is a whole number")
        return int(text.strip())
    stripped = text.strip()
    if not stripped:
        raise NotationError(ln_no, col, f"expected a value for {key}")
    try:
        value, end = _decoder.raw_decode(stripped)
    except json.JSONDecodeError as exc:
        raise NotationError(
            ln_no, col + (len(text) - len(text.lstrip())) + exc.pos,
            f"{key} takes a JSON value ({exc.msg})",
        ) from None  # fmt: skip
    rest = stripped[end:].strip()
    if rest and not rest.startswith("#"):
        raise NotationError(ln_no, col + text.find(rest), f"unexpected text after {key}'s value")
    return value


def _split(text: str) -> list[str]:
    """Lines split on ``\\n`` only (a JSON string may hold U+2028), ``\\r`` dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


Item = dict[str, Any] | str | NotationError
"""What :func:`parse` yields per event: an event dict, a ``raw`` line's text, or an error."""


class _Reader:
    """The state of :func:`parse`: the header block and the deal being read."""

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.header_line = 0
        self.header_error: NotationError | None = None
        self.deal: dict[str, Any] | None = None
        self.deal_line = 0
        self.deal_done = False  # the starter line was read: only "stock" may extend it

    def flush_header(self) -> Iterator[tuple[int, Item]]:
        if self.header is not None:
            err = self.header_error
            gid = self.header.get("game_id")
            if err is not None:
                herr = HeaderError(err.line, err.column, err.message)
                herr.game_id = gid if isinstance(gid, str) else None  # type: ignore[attr-defined]
                yield self.header_line, herr
            else:
                yield self.header_line, self.header
            self.header, self.header_error = None, None

    def flush(self) -> Iterator[tuple[int, Item]]:
        yield from self.flush_header()
        if self.deal is not None:
            if "starter" not in self.deal:
                yield (
                    self.deal_line,
                    NotationError(
                        self.deal_line, 1, "the deal's hands need a 'starter CARD' line after them"
                    ),
                )
            else:
                yield self.deal_line, self.deal
            self.deal, self.deal_done = None, False

    def line(self, n: int, text: str) -> Iterator[tuple[int, Item]]:
        m = _HEADER_KEY.match(text)
        if m and self.header is not None:
            key = m.group(1)
            try:
                value = _header_value(n, key, text[m.end() :], m.end() + 1)
                if key == "json" and not isinstance(value, dict):
                    raise NotationError(n, m.end() + 2, "json: takes a JSON object")
            except NotationError as exc:
                self.header_error = self.header_error or exc
                return
            if key == "json":
                self.header.update(value)
            else:
                self.header[key] = value
            return
        if m:
            yield from self.flush()
            yield n, NotationError(
                n, 1, f"header line '{m.group(1)}:' outside a header (a game starts with "
                "'game ID', its header lines follow it directly)",
            )  # fmt: skip
            return
        if _RAW.match(text):
            yield from self.flush()
            raw = text.lstrip()[3:]
            yield n, raw[1:] if raw.startswith(" ") else raw
            return
        toks = tokenize(text, n)
        if not toks:
            return
        first = toks[0]
        word = first.value if first.kind == "word" else None
        ln = _Line(toks, n, text)
        if word == "hand" or (word in ("starter", "stock") and self.deal is not None):
            yield from self.flush_header()
            yield from self.deal_part(ln, word)
            return
        if word in ("starter", "stock"):
            raise ln.err(f"'{word}' belongs to a deal: write the 'hand' lines first", first)
        yield from self.flush()
        if word == "game":
            ln.i = 1
            header = {"type": "game", "format": FORMAT, "game_id": None}
            self.header, self.header_line = header, n
            header["game_id"] = ln.name("the game's id after 'game'")
            ln.finish({})
            return
        if word == "json":
            t = toks[1] if len(toks) > 1 else None
            if t is None or t.kind != "json":
                raise ln.err("expected a JSON object after 'json'", t)
            yield n, t.value
            return
        if word in KEYWORDS:
            yield n, _keyword_line(ln, word)
            return
        yield n, _player_line(ln)

    def deal_part(self, ln: _Line, word: str) -> Iterator[tuple[int, Item]]:
        first = ln.toks[0]
        ln.i = 1
        if word == "hand":
            if self.deal_done:
                yield from self.flush()
            if self.deal is None:
                self.deal, self.deal_line = {"type": "deal", "hands": {}}, ln.line
            p = ln.name("the player whose hand this is")
            hand = _cards_or_unknown(ln, ln.items(), "cards")
            ln.finish({})
            self.deal["hands"][p] = hand.get("cards", hand if hand else [])
            return
        deal = self.deal
        assert deal is not None
        if word == "starter":
            if self.deal_done:
                raise ln.err("a second starter line; one deal has one starter", first)
            c = ln.items()
            if len(c) != 1 or (c[0].kind == "word" and _UNKNOWN.match(c[0].value)):
                raise ln.err("expected the one starter card", c[1] if len(c) > 1 else None)
            deal["starter"] = str(c[0].value)
            self.deal_done = True
            ln.finish(deal)
            return
        if not self.deal_done:
            raise ln.err("the stock line comes after the starter line", first)
        got = _cards_or_unknown(ln, ln.items(), "stock")
        if "count" in got:
            raise ln.err("a stock lists its cards (leave it out when they are not known)")
        deal["stock"] = got.get("stock", [])
        ln.finish({})
        yield from self.flush()


def parse(text: str) -> Iterator[tuple[int, Item]]:
    """Read notation text into located events.

    Yields:
        ``(line, item)`` in order: ``item`` is an event dict, the text of a ``raw`` line,
        or the :class:`NotationError` of a line the grammar does not allow (reading goes on
        with the next line; a fault in a header block is one :class:`HeaderError` for the
        game). A header or a deal is placed at its first line.
    """
    r = _Reader()
    for n, line in enumerate(_split(text), start=1):
        try:
            yield from r.line(n, line)
        except NotationError as exc:
            if r.header is not None and n == r.header_line:  # a fault on the game line
                r.header_error = r.header_error or exc
                continue
            yield from r.flush_header()
            yield n, exc
    yield from r.flush()


def _dumps_event(ev: dict[str, Any]) -> bytes:
    return json.dumps(ev, ensure_ascii=False, separators=(",", ":")).encode()


def from_notation(text: str) -> list[tuple[int, bytes]]:
    """Convert notation text to JSON Lines, each event with the notation line it came from.

    Returns:
        ``[(line, json_bytes), ...]``, in order.
    Raises:
        NotationError: the first line the grammar does not allow.
    """
    got: list[tuple[int, bytes]] = []
    for n, item in parse(text):
        if isinstance(item, NotationError):
            raise item
        got.append((n, item.encode() if isinstance(item, str) else _dumps_event(item)))
    return got


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
    from .logfile import LogReadError

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


def file_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """A notation file's events as located JSON lines for the replay (see
    :func:`located_lines`); opened on the first ``next()``.

    Raises:
        LogReadError: as :func:`read_text`.
    """
    yield from located_lines(read_text(path))


def located_lines(text: str) -> Iterator[tuple[int, bytes]]:
    """Like :func:`from_notation` for the replay: a bad line becomes a :class:`BadLine`
    in place (reported ``bad_notation``) and reading goes on.

    Yields:
        ``(line, bytes)`` as :func:`maumau_log.logfile.iter_lines` does.
    """
    for n, item in parse(text):
        if isinstance(item, NotationError):
            gid = getattr(item, "game_id", None)
            yield n, _bad_line(item, isinstance(item, HeaderError), gid)
            continue
        yield n, item.encode() if isinstance(item, str) else _dumps_event(item)
