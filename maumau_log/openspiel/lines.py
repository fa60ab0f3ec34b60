"""The compact form of a converted game's events, and its two renderings: the log's JSON
lines (FORMAT.md events ``play``, ``suit``, ``pass``, ``draw``) and event dicts.

:func:`~maumau_log.openspiel.convert.events_from_trace` makes most events of a game in a
compact form, so that the import writes them without building a dict per event and
encoding it (the conversion's largest cost before, about 0.2 s of the 960-history
benchmark's 0.5 s): a ``play``, ``suit`` or ``pass`` is one int (:func:`play`, :func:`suit`,
:func:`passes`), a one-card ``draw`` (most draws) one int too (:func:`draw_one`),
any other ``draw`` a :class:`Draw` whose cards are added as the trace tells them;
every other event (the header, ``deal``, ``reshuffle``, ``abandon``, ``round_end``) stays a
dict. :func:`encode_events` writes the JSON lines (the bytes msgspec writes for the dicts,
which ``tests/test_openspiel.py`` checks line by line), :func:`as_dicts` gives the dicts.

Players are ``p0`` .. ``p14`` (OpenSpiel's player ids, at most
:data:`~maumau_log.openspiel.actions.MAX_PLAYERS`), cards the log's codes
(:data:`~maumau_log.openspiel.actions.CARD_CODES`), suits ``C D H S``.

Compiled with the OpenSpiel port (``hatch_build.EXTRA``): :func:`encode_events` calls
``out.append`` on the list, not through a bound-method local, which compiled is a direct C
call.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from .actions import CARD_CODES, MAX_PLAYERS, NUM_CARDS, SUITS

PER_PLAYER: Final = NUM_CARDS + len(SUITS) + 1
"""Compact ids per player: ``player * PER_PLAYER + x`` with ``x`` a card id (a play),
``SUIT_BASE + suit`` (a suit call) or ``PASS_ID`` (a pass)."""
SUIT_BASE: Final = NUM_CARDS
PASS_ID: Final = NUM_CARDS + len(SUITS)

REASONS: Final = ("no_play", "voluntary", "effect")
"""A draw's ``reason`` by :attr:`Draw.reason` (FORMAT.md ``draw.reason``)."""
DRAW_ONE_BASE: Final = MAX_PLAYERS * PER_PLAYER
"""Compact ids from here on are one-card draws: ``DRAW_ONE_BASE + (player * NUM_CARDS +
card) * 3 + reason`` (:func:`draw_one`)."""


def play(player: int, card: int) -> int:
    """The compact ``play`` of OpenSpiel card id ``card`` by ``player``."""
    return player * PER_PLAYER + card


def suit(player: int, suit_index: int) -> int:
    """The compact ``suit`` call of suit ``SUITS[suit_index]`` by ``player``."""
    return player * PER_PLAYER + SUIT_BASE + suit_index


def passes(player: int) -> int:
    """The compact ``pass`` of ``player``."""
    return player * PER_PLAYER + PASS_ID


def draw_one(player: int, card: int, reason: int) -> int:
    """The compact ``draw`` of the one OpenSpiel card id ``card`` by ``player`` (``reason``
    an index of :data:`REASONS`): most draws, made without a :class:`Draw`.

    Returns:
        An int from :data:`DRAW_ONE_BASE` up, above every play, suit and pass id.
    """
    return DRAW_ONE_BASE + (player * NUM_CARDS + card) * len(REASONS) + reason


def _line(item: int) -> bytes:
    player, what = divmod(item, PER_PLAYER)
    who = f'"player":"p{player}"'
    if what < NUM_CARDS:
        return f'{{"type":"play",{who},"cards":["{CARD_CODES[what]}"]}}'.encode()
    if what < PASS_ID:
        return f'{{"type":"suit",{who},"suit":"{SUITS[what - SUIT_BASE]}"}}'.encode()
    return f'{{"type":"pass",{who}}}'.encode()


_LINES: Final[tuple[bytes, ...]] = tuple(_line(i) for i in range(MAX_PLAYERS * PER_PLAYER))
"""The JSON line of every compact id."""
_QUOTED: Final[tuple[bytes, ...]] = tuple(f'"{c}"'.encode() for c in CARD_CODES)
_DRAW_HEAD: Final[tuple[bytes, ...]] = tuple(
    f'{{"type":"draw","player":"p{p}","cards":['.encode() for p in range(MAX_PLAYERS)
)
_DRAW_TAIL: Final[tuple[bytes, ...]] = tuple(f'],"reason":"{r}"}}'.encode() for r in REASONS)
_DRAW_ONE: Final[list[bytes | None]] = [None] * (MAX_PLAYERS * NUM_CARDS * len(REASONS))
"""The line of a one-card draw, by ``(player * NUM_CARDS + card) * 3 + reason``, made on
first use (``_DRAW_HEAD + _QUOTED + _DRAW_TAIL``)."""


class Draw:
    """A ``draw`` event in the making: its player, its reason (an index of
    :data:`REASONS`) and the OpenSpiel card ids drawn so far.

    Args:
        player: the player's OpenSpiel id.
        reason: 0 ``no_play``, 1 ``voluntary``, 2 ``effect``.
    """

    __slots__ = ("cards", "player", "reason")

    def __init__(self, player: int, reason: int) -> None:
        self.player = player
        self.reason = reason
        self.cards: list[int] = []

    def split(self) -> Draw:
        """The same draw continued after a reshuffle: a new event, no cards yet."""
        return Draw(self.player, self.reason)


_encode = msgspec.json.Encoder().encode


def encode_events(events: list[Any]) -> bytes:
    """A game's events, compact or dicts, as JSON lines, each ending in a newline (the
    dicts as msgspec encodes them: keys in order, no spaces).

    Raises:
        UnicodeEncodeError: a text in a dict is not valid Unicode (a lone surrogate).
    """
    if not events:
        return b""
    lines, quoted, heads, tails = _LINES, _QUOTED, _DRAW_HEAD, _DRAW_TAIL
    ones = _DRAW_ONE
    out: list[bytes] = []
    for ev in events:
        if isinstance(ev, int):
            if ev < DRAW_ONE_BASE:
                out.append(lines[ev])
                continue
            key = ev - DRAW_ONE_BASE  # a one-card draw: its line made once
            one = ones[key]
            if one is None:
                who, rest = divmod(key, NUM_CARDS * len(REASONS))
                card, reason = divmod(rest, len(REASONS))
                one = heads[who] + quoted[card] + tails[reason]
                ones[key] = one
            out.append(one)
        elif isinstance(ev, Draw):
            drawn = ev.cards
            cards = quoted[drawn[0]] if len(drawn) == 1 else b",".join([quoted[c] for c in drawn])
            out.append(heads[ev.player] + cards + tails[ev.reason])
        else:
            out.append(_encode(ev))
    out.append(b"")
    return b"\n".join(out)


def as_dicts(events: list[Any]) -> list[dict[str, Any]]:
    """A game's events, compact or dicts, as event dicts (new dicts for the compact ones;
    the dicts given are kept as they are)."""
    out: list[dict[str, Any]] = []
    for ev in events:
        kind = type(ev)
        if kind is int and ev >= DRAW_ONE_BASE:
            who, rest = divmod(ev - DRAW_ONE_BASE, NUM_CARDS * len(REASONS))
            card, reason = divmod(rest, len(REASONS))
            out.append({
                "type": "draw",
                "player": f"p{who}",
                "cards": [CARD_CODES[card]],
                "reason": REASONS[reason],
            })  # fmt: skip
        elif kind is int:
            player, what = divmod(ev, PER_PLAYER)
            who = f"p{player}"
            if what < NUM_CARDS:
                out.append({"type": "play", "player": who, "cards": [CARD_CODES[what]]})
            elif what < PASS_ID:
                out.append({"type": "suit", "player": who, "suit": SUITS[what - SUIT_BASE]})
            else:
                out.append({"type": "pass", "player": who})
        elif kind is Draw:
            out.append({
                "type": "draw",
                "player": f"p{ev.player}",
                "cards": [CARD_CODES[c] for c in ev.cards],
                "reason": REASONS[ev.reason],
            })  # fmt: skip
        else:
            out.append(ev)
    return out


__all__ = [
    "DRAW_ONE_BASE",
    "PASS_ID",
    "PER_PLAYER",
    "REASONS",
    "SUIT_BASE",
    "Draw",
    "as_dicts",
    "draw_one",
    "encode_events",
    "passes",
    "play",
    "suit",
]
