"""Writing a log in the ``.mm`` notation: the short form of every event, and the trailing
JSON object, ``json {...}`` or ``raw`` line for whatever the short form cannot say, so
that reading it back gives the same JSON objects (docs/reference/notation.md "Decisions")."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ...events import has_lone_surrogate
from .lexer import (
    _HEADER_ORDER,
    _INT,
    _REASON,
    FORMAT,
    HEADER_TOKEN_KEYS,
    NotationError,
    _card,
    _dump,
    _is_int,
    _is_str_list,
    _needs_quote,
    _player,
    _q,
)

# ---------------------------------------------------------------------------------------
# Writing: JSON objects -> notation


def _cards(cards: list[str]) -> str:
    return " ".join(_card(c) for c in cards)


def _hand(h: Any) -> str | None:
    if _is_str_list(h):
        return _cards(h)
    if isinstance(h, dict) and set(h) == {"count"} and _is_int(h["count"]) and h["count"] >= 0:
        return f"?{h['count']}"
    return None


def _is_time(text: str) -> bool:
    """An ISO 8601 date and time the reader takes after ``@`` (``9999-99-99`` is none)."""
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _tail(parts: list[str], ev: dict[str, Any], used: set[str]) -> str:
    t = ev.get("t")
    if "t" not in used and (
        (_is_int(t) and t >= 0)
        or (
            isinstance(t, str)
            and t
            and not _INT.match(t)
            and not _needs_quote(t, False)
            and _is_time(t)  # else in the JSON object: '@' takes only a possible time
        )
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
        except (ValueError, RecursionError):  # (ValueError: also a 5,000-digit number)
            ev = None
        # a lone surrogate ("\\ud800", which json reads) cannot be written as UTF-8 text:
        # such a line, as any line that is no object, is kept as it is (raw)
        if not isinstance(ev, dict) or has_lone_surrogate(ev):
            out.append("raw " + raw)
            continue
        written: list[str] | None = None
        try:
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
        except RecursionError:  # nested just deep enough for json to read it
            written = ["raw " + raw]
        out.extend(written)
    return "\n".join(out) + "\n"
