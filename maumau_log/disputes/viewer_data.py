"""The viewer's states, embedded compactly: one frame per event, most of them deltas.

A page that embedded :func:`maumau_log.disputes.timeline.snapshot` whole after every event grew
with events times hands times names: 570 bytes an event for two players (64 MB for
111,000 events), and a 1 MB player name was repeated in every hand, turn and legal action
of every step (266 MB for 61 events). Here:

- a player is named once, in ``players`` (the seats in order); a frame refers to a player
  by seat number (a name that is no seat, which the engine never gives, stays a string);
- a frame holds only what changed since the previous event: a scalar field by its short
  key, a hand as the positions of the cards that left it and the cards added at its end
  (or, where that does not say it, the whole hand), the call faults and the match totals
  whole when they change, the legal actions as numbers in a table of distinct actions;
- every :data:`KEYFRAME_EVERY`-th frame, the first one of a page and the first after a
  missing one holds the whole state (``"k": 1``), so the page rebuilds the state of any
  event from at most that many frames, on demand.

Player-keyed data is a list of ``[who, value]`` pairs, never an object keyed by name, so
a player called ``__proto__``, ``constructor`` or ``toString`` is data like any other.

Frame keys: ``ph`` phase, ``tu`` turn (who), ``di`` direction, ``to`` top of the discard
pile, ``su`` suit to follow, ``pd`` pending draw, ``ps`` pending skip, ``as`` suit owed
by (who), ``co`` cover owed, ``ss`` stock size, ``ds`` discard pile size, ``st`` the
stock's top card where the log shows it, ``rd`` the match round, ``m`` match totals
(pairs or null), ``c`` call faults open (pairs), ``h`` hands (``[who, cards]`` whole or
``[who, left_positions, added_cards]``), ``l`` legal actions (numbers into ``actions``,
each ``[who or null, text after the name]``), ``k`` 1 on a whole frame.

:func:`decode_frames` is the page script's decoding in Python (tests and tools that check
a page handed on as evidence use it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

KEYFRAME_EVERY = 64
"""Frames between two whole states: the page rebuilds a state from at most this many."""

PAGE_LIMIT = 64 * 2**20
"""Bytes of embedded data one page may hold (UTF-8). Chromium opens such a page in about
3 seconds; a JavaScript string cannot exceed 2**29 - 24 characters, so a page of over
about 512 MB cannot be read at all ("Unexpected end of JSON input")."""

_SCALARS = (
    ("phase", "ph"), ("direction", "di"), ("top", "to"), ("suit", "su"),
    ("pending_draw", "pd"), ("pending_skip", "ps"), ("cover_owed", "co"),
    ("stock_size", "ss"), ("discard_size", "ds"), ("stock_top", "st"), ("round", "rd"),
)  # fmt: skip
_WHO = (("turn", "tu"), ("awaiting_suit", "as"))


_encode = msgspec.json.Encoder().encode


def dumps(obj: Any) -> str:
    """Compact JSON (no spaces, non-ASCII kept): the form every part of the page uses
    (msgspec, five times faster than :func:`json.dumps` on a frame; :func:`json.dumps`
    for what UTF-8 cannot carry, a lone surrogate in a file name)."""
    try:
        return _encode(obj).decode("utf-8")
    except (UnicodeEncodeError, TypeError, OverflowError):
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (its length when it is ASCII, which is checked in O(1))."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _hand_change(old: Sequence[str], new: Sequence[str]) -> list[Any] | None:
    """``[left_positions, added]`` when ``new`` is ``old`` without the cards at those
    positions and with ``added`` appended (a play, a draw), else None."""
    gone: list[int] = []
    j = 0
    for i, card in enumerate(old):
        if j < len(new) and new[j] == card:
            j += 1
        else:
            gone.append(i)
    added = list(new[j:])
    if len(gone) + len(added) >= len(new):
        return None  # the whole hand says it as briefly
    return [gone, added]


class StateCodec:
    """Turns the snapshots of one game into frames (see the module docstring).

    Args:
        players: the seats in order (the engine's ``players``; the keys of its ``hands``).
    Attributes:
        players: as given; actions: the table of distinct legal actions ``[who, text]``;
        actions_size: the bytes ``actions`` takes in the page.
    """

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self._seat = {p: i for i, p in enumerate(self.players)}
        self.actions: list[list[Any]] = []
        self.actions_size = 2
        self._action_ids: dict[str, int] = {}
        self._prev: dict[str, Any] | None = None
        self._since_key = 0

    def who(self, name: Any) -> Any:
        """A player as frames name them: the seat number, or the value itself when it is
        no seat (None stays None)."""
        if isinstance(name, str):
            return self._seat.get(name, name)
        return name

    def _action(self, player: str | None, text: str) -> int:
        ident = self._action_ids.get(text)
        if ident is None:
            if player is not None and text.startswith(player):
                entry = [self.who(player), text[len(player) :]]
            else:
                entry = [None, text]
            ident = self._action_ids[text] = len(self.actions)
            self.actions.append(entry)
            self.actions_size += utf8_size(dumps(entry)) + 1
        return ident

    def whole(
        self, snap: dict[str, Any], legal: Iterable[tuple[str | None, str]]
    ) -> dict[str, Any]:
        """The whole state as a frame's fields (without ``k``).

        Args:
            snap: :func:`maumau_log.disputes.timeline.snapshot`; legal: the legal actions as
                ``(player, text)`` (``text`` is ``str(action)``).
        """
        who = self.who
        frame = {short: snap.get(key) for key, short in _SCALARS}
        for key, short in _WHO:
            frame[short] = who(snap.get(key))
        totals = snap.get("match_totals")
        frame["m"] = None if totals is None else [[who(p), n] for p, n in totals.items()]
        frame["c"] = [[who(p), why] for p, why in (snap.get("calls_due") or {}).items()]
        frame["h"] = [[who(p), list(cards)] for p, cards in snap["hands"].items()]
        frame["l"] = [self._action(p, text) for p, text in legal]
        return frame

    def frame(
        self, snap: dict[str, Any] | None, legal: Iterable[tuple[str | None, str]] = ()
    ) -> dict[str, Any] | None:
        """The next event's frame: the changes since the previous frame, or the whole
        state (``"k": 1``) every :data:`KEYFRAME_EVERY` frames and after a missing one.

        Args:
            snap: the state after the event, or None where it was not replayed.
            legal: the legal actions there, as :meth:`whole` takes them.
        """
        if snap is None:
            self._prev = None
            return None
        now = self.whole(snap, legal)
        prev = self._prev
        self._prev = now
        if prev is None or self._since_key + 1 >= KEYFRAME_EVERY:
            self._since_key = 0
            return {**now, "k": 1}
        self._since_key += 1
        delta = {k: v for k, v in now.items() if k != "h" and v != prev[k]}
        before = {e[0]: e[1] for e in prev["h"]}
        hands = []
        for who, cards in now["h"]:
            old = before.get(who)
            if old == cards:
                continue
            change = None if old is None else _hand_change(old, cards)
            hands.append([who, cards] if change is None else [who, *change])
        if hands:
            delta["h"] = hands
        return delta


def _player(players: Sequence[str], who: Any) -> Any:
    return players[who] if isinstance(who, int) and not isinstance(who, bool) else who


def _apply_hand(old: list[str], entry: list[Any]) -> list[str]:
    if len(entry) == 2:
        return list(entry[1])
    gone = set(entry[1])
    return [c for i, c in enumerate(old) if i not in gone] + list(entry[2])


def decode_frames(
    players: Sequence[str], actions: Sequence[Sequence[Any]], frames: Sequence[Any]
) -> list[dict[str, Any] | None]:
    """The states the page shows, rebuilt from its frames as the page's script does.

    Returns:
        One state per frame (None for a missing one): the keys of
        :func:`maumau_log.disputes.timeline.snapshot` (``hands``, ``calls_due``, ``hand_sizes``,
        ``match_totals`` keyed by player) and ``legal`` (the actions as text).
    Raises:
        ValueError: a delta frame with no whole frame before it.
    """
    out: list[dict[str, Any] | None] = []
    cur: dict[str, Any] | None = None
    hands: dict[Any, list[str]] = {}
    for f in frames:
        if f is None:
            cur = None
            out.append(None)
            continue
        if f.get("k"):
            cur, hands = {}, {}
        elif cur is None:
            raise ValueError("a delta frame with no whole frame before it")
        for key, value in f.items():
            if key == "h":
                for entry in value:
                    hands[entry[0]] = _apply_hand(hands.get(entry[0], []), entry)
            elif key != "k":
                cur[key] = value
        named = {_player(players, w): list(c) for w, c in hands.items()}
        state = {key: cur.get(short) for key, short in _SCALARS}
        for key, short in _WHO:
            state[key] = _player(players, cur.get(short))
        state["hands"] = named
        state["hand_sizes"] = {p: len(c) for p, c in named.items()}
        state["calls_due"] = {_player(players, w): why for w, why in cur.get("c") or []}
        m = cur.get("m")
        state["match_totals"] = None if m is None else {_player(players, w): n for w, n in m}
        state["legal"] = [
            ("" if actions[i][0] is None else str(_player(players, actions[i][0]))) + actions[i][1]
            for i in cur.get("l") or []
        ]
        out.append(state)
    return out
