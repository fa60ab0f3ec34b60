"""Event types of the canonical log (FORMAT.md "Events") and their JSON decoding.

Every line of a log is one event: a JSON object whose ``type`` picks one of the frozen
structs below. Decoding uses msgspec tagged structs (the fast path, about 50 times faster
than a JSON Schema check); ``schemas/`` holds the same contract as JSON Schema and the test
suite keeps the two in agreement. When the fast path rejects a line, :mod:`maumau_log.events.schema`
explains the failure with the schema's own words.

Unknown fields are ignored (FORMAT.md: "kept and ignored, never fatal"): the raw line stays
in the log file; the engine never needs them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import msgspec

FORMAT_VERSION = "maumau-log/1"

Time = str | int
"""``t``: an ISO 8601 string or integer milliseconds since the epoch."""

DrawReason = Literal["no_play", "voluntary", "effect", "cover"]
SuitCode = Literal["C", "D", "H", "S"]


class HandCount(msgspec.Struct, frozen=True, forbid_unknown_fields=False):
    """A hand known only by its size, in a partial log (FORMAT.md "Information levels")."""

    count: int


class _Event(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True, gc=False
):
    """The fields every event has. Not tracked by the garbage collector (``gc=False``): an
    event is frozen and holds only JSON values, so it is never part of a reference cycle,
    and an untracked struct is allocated and freed without the collector's bookkeeping
    (about 200 machine instructions fewer per decoded line, callgrind; fewer collections
    during a replay)."""

    t: Time | None = None
    seq: int | None = None


class Game(_Event, tag="game", frozen=True):
    """Header: starts a game (one round). ``players`` are in seat order, clockwise."""

    format: str
    game_id: str
    ruleset: str
    players: list[str]
    options: dict[str, Any] | None = None
    dealer: str | None = None
    match_id: str | None = None
    round: int | None = None
    started_at: str | None = None
    shuffle: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None


class Cut(_Event, tag="cut", frozen=True):
    """Optional ritual before the deal: ``taken`` are the cards the cutter keeps."""

    player: str
    taken: list[str] | None = None


class Deal(_Event, tag="deal", frozen=True):
    """The deal: every hand, the starter card turned up, and the stock (top first)."""

    hands: dict[str, list[str] | HandCount]
    starter: str
    stock: list[str] | None = None


class Play(_Event, tag="play", frozen=True):
    """A player lays down ``cards`` (in order); ``jump_in`` marks an out-of-turn play."""

    player: str
    cards: list[str]
    jump_in: bool = False


class SuitChoice(_Event, tag="suit", frozen=True):
    """The suit named with the wild card just played."""

    player: str
    suit: SuitCode


class Draw(_Event, tag="draw", frozen=True):
    """Cards drawn from the stock top: ``cards`` when known, else ``count``."""

    player: str
    cards: list[str] | None = None
    count: int | None = None
    reason: DrawReason | None = None


class Pass(_Event, tag="pass", frozen=True):
    """The player ends the turn without playing."""

    player: str


class Call(_Event, tag="mau", frozen=True):
    """A call such as ``"mau"``, ``"mau-mau"`` or ``"last card"``."""

    player: str
    call: str


class Penalty(_Event, tag="penalty", frozen=True):
    """Penalty cards drawn by ``player``; ``by`` is who caught the fault."""

    player: str
    reason: str
    by: str | None = None
    cards: list[str] | None = None
    count: int | None = None


class Reshuffle(_Event, tag="reshuffle", frozen=True):
    """The discard pile but its top card becomes the stock (``stock`` top first)."""

    stock: list[str] | None = None
    count: int | None = None


class RoundEnd(_Event, tag="round_end", frozen=True):
    """The claimed result of the round; the engine recomputes and compares it."""

    winner: str | None
    scores: dict[str, int | float] | None = None
    hands: dict[str, list[str] | HandCount] | None = None


class MatchEnd(_Event, tag="match_end", frozen=True):
    """After the last round of a match: claimed totals and winner (None for a draw)."""

    totals: dict[str, int | float] | None = None
    winner: str | None = None


class Abandon(_Event, tag="abandon", frozen=True):
    """The round stopped (disconnect, timeout); only ``round_end`` may follow."""

    reason: str | None = None
    player: str | None = None


Event = (
    Game | Cut | Deal | Play | SuitChoice | Draw | Pass | Call | Penalty | Reshuffle | RoundEnd
    | MatchEnd | Abandon
)  # fmt: skip
"""Any event of the log."""

_ALL: tuple[type[_Event], ...] = (
    Game,
    Cut,
    Deal,
    Play,
    SuitChoice,
    Draw,
    Pass,
    Call,
    Penalty,
    Reshuffle,
    RoundEnd,
    MatchEnd,
    Abandon,
)
EVENT_TYPES: dict[str, type[_Event]] = {str(cls.__struct_config__.tag): cls for cls in _ALL}
"""The ``type`` value of each event to its struct."""

_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(Event)
EVENT_DECODER = _decoder
"""The decoder :func:`decode_event` uses; the replay calls its ``decode`` directly (one
Python call less per line)."""
_encoder = msgspec.json.Encoder()


def decode_event(line: bytes | str) -> Event:
    """Decode one JSON line into its event.

    Args:
        line: the raw line (bytes or str), without its newline.
    Returns:
        The event struct.
    Raises:
        msgspec.DecodeError: not JSON (``msgspec.DecodeError`` but not a
            ``ValidationError``) or JSON of the wrong shape (``msgspec.ValidationError``).
    """
    return _decoder.decode(line)


def encode_event(event: Event) -> bytes:
    """Encode an event as one compact JSON line (no newline), ``type`` first, defaults left out."""
    return _encoder.encode(event)


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the replacement character).

    A lone surrogate is no character: UTF-8 (a log, a JSON document, a Parquet string, a
    terminal) cannot hold it, and encoding it fails. It reaches a Python string from a JSON
    ``"\\ud800"`` escape read by :mod:`json` (msgspec refuses it: such a line is
    ``bad_json``) or from a file name whose bytes are not UTF-8 (decoded with
    ``surrogateescape``). Text that holds none comes back as it is (the same object).

    >>> valid_text("ana"), valid_text("bad\\ud800id")
    ('ana', 'bad\ufffdid')
    """
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def has_lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a lone surrogate in any string, keys included
    (see :func:`valid_text`). Walked with a stack, not recursion: ``value`` may be nested
    as deeply as :mod:`json` reads."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _SURROGATE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return False


def valid_json(value: Any) -> Any:
    """``value`` (JSON-ready: dicts, lists, tuples, strings, numbers) with
    :func:`valid_text` applied to every string, keys included: what a JSON document
    written as UTF-8 may hold. Containers without a lone surrogate are still copied."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        return {valid_json(k): valid_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [valid_json(v) for v in value]
    return value


def event_player(event: Event) -> str | None:
    """Return the player an event belongs to (who acts or pays), or None."""
    return getattr(event, "player", None)
