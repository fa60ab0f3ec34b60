"""One player's view of a round, and comparing a seat's log with the server's
(FORMAT.md "Information levels").

:func:`seat_view` turns a full-information (server) log into what one seat saw: the own
hand and draws in full, the other hands and draws as counts, no stock order. The engine
replays such partial logs and lists the checks it could not make. :func:`compare` walks a
server log and a seat's log of the same round side by side and reports the first event
where they disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ..events import Deal, Draw, Event, Game, HandCount, Penalty, Reshuffle, encode_event


def seat_view(events: Sequence[Event], seat: str) -> list[Event]:
    """What ``seat`` saw of a full-information round.

    Args:
        events: one game's events, header first.
        seat: the viewing player's id.
    Returns:
        The partial log: other hands as ``{"count": n}``, other players' drawn and penalty
        cards as ``count``, no ``deal.stock`` and no ``reshuffle.stock`` (a count instead);
        the final hands of ``round_end`` stay (they are shown at the end).
    Raises:
        ValueError: ``seat`` is not a player of the game.
    """
    out: list[Event] = []
    for ev in events:
        if isinstance(ev, Game):
            if seat not in ev.players:
                raise ValueError(f"{seat!r} is not a player of game {ev.game_id}")
            meta = dict(ev.meta or {})
            meta["view"] = seat
            out.append(msgspec.structs.replace(ev, meta=meta))
        elif isinstance(ev, Deal):
            hands: dict[str, list[str] | HandCount] = {
                p: (h if p == seat else HandCount(count=len(h) if isinstance(h, list) else h.count))
                for p, h in ev.hands.items()
            }
            out.append(msgspec.structs.replace(ev, hands=hands, stock=None))
        elif isinstance(ev, (Draw, Penalty)) and ev.player != seat and ev.cards is not None:
            out.append(msgspec.structs.replace(ev, cards=None, count=len(ev.cards)))
        elif isinstance(ev, Reshuffle) and ev.stock is not None:
            out.append(msgspec.structs.replace(ev, stock=None, count=len(ev.stock)))
        else:
            out.append(ev)
    return out


@dataclass(frozen=True)
class Disagreement:
    """The first place where a seat's log and the server's differ.

    Attributes:
        index: the event index in the game (header = 0).
        server: the server's event as the seat should have seen it (JSON), or None when the
            server's log ended first.
        seat: the seat's event (JSON), or None when the seat's log ended first.
    """

    index: int
    server: dict[str, Any] | None
    seat: dict[str, Any] | None


def _plain(ev: Event) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.json.decode(encode_event(ev))
    for key in ("t", "seq", "meta"):
        data.pop(key, None)
    return data


def compare(server: Sequence[Event], seat_log: Sequence[Event], seat: str) -> Disagreement | None:
    """Compare a seat's log with the server's log of the same round.

    Args:
        server: the full-information log (one game, header first).
        seat_log: the seat's log of the same game.
        seat: whose view ``seat_log`` is.
    Returns:
        The first disagreement (times, ``seq`` and ``meta`` are not compared), or None when
        the seat's log is exactly what the server's log shows that seat.
    Raises:
        ValueError: ``seat`` is not a player of the server's game.
    """
    expected = seat_view(server, seat)
    for i in range(max(len(expected), len(seat_log))):
        a = _plain(expected[i]) if i < len(expected) else None
        b = _plain(seat_log[i]) if i < len(seat_log) else None
        if (
            a is not None
            and b is not None
            and a.get("type") == b.get("type") == "reshuffle"
            and "count" not in b
        ):
            a.pop("count", None)  # the count is optional in a reshuffle the seat did not see
        if a != b:
            return Disagreement(i, a, b)
    return None
