"""Reading the ``.mm`` notation into located JSON events (docs/reference/notation.md "Grammar"):
the header block, the deal's lines, one line per event; a line the grammar does not
allow is a :class:`~.lexer.NotationError` with its line and column."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from .lexer import (
    _HEADER_KEY,
    _INT,
    _NOT_TEXT,
    _RAW,
    _SURROGATE,
    _UNKNOWN,
    FORMAT,
    HEADER_TOKEN_KEYS,
    KEYWORDS,
    VERBS,
    HeaderError,
    NotationError,
    Tok,
    _bad_line,
    decode_json,
    tokenize,
    whole_number,
)

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
            if _INT.match(t.value):
                ev["t"] = whole_number(t.value, self.line, t.col + 1, "the time")
            else:
                try:  # FORMAT.md: t is an ISO 8601 date and time; 9999-99-99 is none
                    datetime.fromisoformat(t.value)
                except ValueError:
                    raise self.err(
                        f"'@{t.value[:40]}' is not a possible date and time (ISO 8601, e.g. "
                        "@2024-03-14T20:06:10Z, or milliseconds)",
                        t,
                    ) from None
                ev["t"] = t.value
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
            total += whole_number(digits, ln.line, t.col + 1, "the count") if digits else 1
        return {"count": total}
    if len(toks) == 1 and toks[0].kind == "word" and _INT.match(toks[0].value):
        return {"count": whole_number(toks[0].value, ln.line, toks[0].col, "the count")}
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
        got[p] = whole_number(n.value, ln.line, n.col, f"{p}'s points")
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
        at = col + len(text) - len(text.lstrip())
        if not _INT.match(text.strip()):
            raise NotationError(ln_no, at, "round is a whole number")
        return whole_number(text.strip(), ln_no, at, "round")
    stripped = text.strip()
    if not stripped:
        raise NotationError(ln_no, col, f"expected a value for {key}")
    lead = len(text) - len(text.lstrip())
    try:
        value, end = decode_json(stripped, 0, ln_no, f"{key} takes a JSON value ({{}})")
    except NotationError as exc:  # placed in the line (the column is the value's)
        raise NotationError(ln_no, col + lead + exc.column - 1, exc.message) from None
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
        bad = _SURROGATE.search(text)  # (raw lines are not tokenized: checked here)
        if bad is not None:
            raise NotationError(n, bad.start() + 1, _NOT_TEXT)
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


def _dumps_event(ev: dict[str, Any], line: int) -> bytes:
    """The event as one JSON line (UTF-8: the reader let no lone surrogate through).

    Raises:
        NotationError: the event is nested too deeply to write (its JSON was just deep
            enough to read).
    """
    try:
        return json.dumps(ev, ensure_ascii=False, separators=(",", ":")).encode()
    except RecursionError:
        raise NotationError(line, 1, "the event is nested too deeply to write") from None


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
        got.append((n, item.encode() if isinstance(item, str) else _dumps_event(item, n)))
    return got


def located_lines(text: str) -> Iterator[tuple[int, bytes]]:
    """Like :func:`from_notation` for the replay: a bad line becomes a :class:`BadLine`
    in place (reported ``bad_notation``) and reading goes on.

    Yields:
        ``(line, bytes)`` as :func:`maumau_log.logs.lines.iter_lines` does.
    """
    for n, item in parse(text):
        if not isinstance(item, NotationError | str):
            try:
                yield n, _dumps_event(item, n)
                continue
            except NotationError as exc:
                if item.get("type") == "game":  # the header's fault: the game's own
                    exc = HeaderError(exc.line, exc.column, exc.message)
                    exc.game_id = item.get("game_id")  # type: ignore[attr-defined]
                item = exc
        if isinstance(item, NotationError):
            gid = getattr(item, "game_id", None)
            yield n, _bad_line(item, isinstance(item, HeaderError), gid)
            continue
        yield n, item.encode()
