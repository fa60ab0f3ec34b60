"""Column buffers of the dataset's rows and the helpers that fill them (split out of
:mod:`maumau_log.store.collector`, which re-exports the public names): the interned event columns
(typed arrays, a few appends per event), per-partition buffers of every table, the content
hash, partition dates and conflicts.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from ..events import (
    Game,
)
from ..replay.driver import is_iso_datetime
from ..rules import Ruleset
from ..violations import Violation
from . import (
    AUDIT_TABLES,
    RAW_LIMIT,
    SCHEMAS,
    UNKNOWN,
)

_encode = msgspec.json.Encoder().encode
_TAG: dict[type, str] = {}
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


def _tag(t: type) -> str:
    name = _TAG.get(t)
    if name is None:
        name = _TAG[t] = str(t.__struct_config__.tag)  # type: ignore[attr-defined]
    return name


def pyarrow_without_pandas() -> None:
    """Tell pyarrow, before its first conversion of Python values, that pandas is absent.

    pyarrow imports pandas (when installed) on its first ``pa.array`` of a Python list, to
    look for pandas objects among the values: 0.44 CPU s per process, about a tenth of
    ``ingest --jobs 1`` of 5,000 games, more than building every table. The rows are
    built from Python lists of ints, strings, floats and None only, which pyarrow converts
    the same with or without pandas (``tests/test_collector_rows.py`` pins them). For
    processes that never convert pandas objects with pyarrow afterwards (the ``ingest``
    command and its forked workers): pyarrow's pandas support stays off for the rest of
    the process (``Table.to_pandas`` raises ImportError). Nothing happens when pandas is
    imported already or pyarrow has converted before.
    """
    if "pandas" in sys.modules:
        return
    sys.meta_path.insert(0, _NoPandas)  # an import of pandas fails at once
    try:
        # pyarrow tries its import now and remembers the failure: in the conversion of
        # Python values, and (on its own) in the first compute call
        empty = pa.array([], pa.int8())
        pc.if_else(pc.less(empty, 0), empty, empty)
    finally:
        sys.meta_path.remove(_NoPandas)


class _NoPandas:
    """A ``sys.meta_path`` finder that refuses pandas (for :func:`pyarrow_without_pandas`)."""

    @staticmethod
    def find_spec(name: str, path: Any = None, target: Any = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not used by this process's pyarrow")


def game_date(header: Game | None) -> str:
    """The partition date of a game: ``YYYY-MM-DD`` from ``started_at``, else from ``t``
    (ISO text or epoch milliseconds, taken in UTC), else :data:`~maumau_log.store.UNKNOWN`."""
    if header is None:
        return UNKNOWN
    if header.started_at is not None and not is_iso_datetime(header.started_at):
        return UNKNOWN  # no date, rather than a made-up partition
    for value in (header.started_at, header.t):
        if isinstance(value, str):
            m = _DATE.match(value)
            if m and is_iso_datetime(value):
                return m.group(1)
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                return datetime.fromtimestamp(value / 1000, UTC).strftime("%Y-%m-%d")
            except (OverflowError, OSError, ValueError):
                continue
    return UNKNOWN


def logged_line(raw: bytes | None) -> str | None:
    """A violating line as ``violations.raw`` keeps it: text, cut to ``RAW_LIMIT`` characters
    with the number left out said."""
    if raw is None or not isinstance(raw, bytes):
        return None
    text = raw.decode("utf-8", errors="replace")
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + f" ... [{len(text) - RAW_LIMIT} more characters]"
    return text


def options_json(rules: Ruleset) -> str:
    """The effective options as canonical JSON (``json.dumps(rules.options(), sort_keys=True)``)."""
    return json.dumps(rules.options(), sort_keys=True)


def content_hash(raws: Iterable[bytes], violation: Violation | None, events: int) -> int:
    """The content hash of a game: 64-bit BLAKE2b, as a signed integer.

    Args:
        raws: the canonical JSON (``events.encode_event``) of every accepted event, header
            first.
        violation: the game's first violation (its code and event index are hashed, so a
            game that breaks differently hashes differently), or None.
        events: the number of events the game holds, the rejected and unreplayed ones too.
    Returns:
        A signed 64-bit integer.
    """
    h = hashlib.blake2b(b"\n".join(raws), digest_size=8)
    tail = f"\x00{events}"
    if violation is not None:
        tail += f"\x00{violation.code}\x00{violation.event_index}"
    h.update(tail.encode())
    return int.from_bytes(h.digest(), "little", signed=True)


@dataclass
class Conflict:
    """A game id met again with different content (not stored).

    Attributes:
        game_id: the id.
        file, line: where the new copy is.
        stored_file, stored_line: where the stored (or first seen) copy came from.
    """

    game_id: str
    file: str
    line: int
    stored_file: str
    stored_line: int

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: game {self.game_id!r} differs from the copy already "
            f"stored (from {self.stored_file}:{self.stored_line}); not stored"
        )

    def hint(self, dataset: str) -> str:
        """How to tell the two games apart, in one line."""
        return (
            f"a game id names one game: compare the stored one (maumau-log game {dataset} "
            f"{self.game_id!r}) with the new one (maumau-log validate {self.file} --json); "
            "give the new game another game_id, or ingest it into another dataset"
        )


class _Intern:
    """Small strings (players, cards, suits, reasons, types) to codes; None is -1.

    The codes are a plain ``dict`` (:attr:`codes`), not a ``dict`` subclass: a subscript of a
    subclass goes through a method call (``slot_mp_subscript``: 5% of the compiled
    collector's per-event time), while the compiled collector reads ``codes.get`` as one C
    call and adds a string (:meth:`add`) only when it is new.
    """

    __slots__ = ("codes", "strings")

    def __init__(self) -> None:
        self.codes: dict[str | None, int] = {None: -1}
        self.strings: list[str] = []

    def add(self, key: str | None) -> int:
        """The code of ``key``, given it the next free one when it has none yet."""
        code = self.codes.get(key)
        if code is None:
            code = len(self.strings)
            self.strings.append(str(key))
            self.codes[key] = code
        return code

    def __getitem__(self, key: str | None) -> int:
        return self.add(key)

    def get(self, key: str | None) -> int | None:
        """The code of ``key``, or None when it has none (nothing is added)."""
        return self.codes.get(key)

    def decode(self, codes: array) -> pa.Array:
        """Codes (``array('i')``, -1 for null) to a string array."""
        idx = pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes)])
        idx = pc.if_else(pc.less(idx, 0), pa.scalar(None, pa.int32()), idx)
        return pa.DictionaryArray.from_arrays(idx, pa.array(self.strings, pa.string())).cast(
            pa.string()
        )


def _ints(values: array, typ: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(typ, len(values), [None, pa.py_buffer(values)])


def _offsets(lengths: array) -> pa.Array:
    """Offsets (int32, one more than ``lengths``) from lengths (their sum below 2 GiB)."""
    arr = _ints(lengths, pa.int32())
    return pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(arr)])


def typed(code: str, values: list[int]) -> array:
    """A list of ints as a typed array (``array(code, values)``: one pass in C).

    Raises:
        OverflowError: a value does not fit the type (a column's width is checked before,
            by the collector; this is the last guard).
    """
    return array(code, values)


def _offsets_from_ends(ends: array) -> pa.Array:
    """List offsets (int32, a 0 first) from each list's end offset."""
    return pa.concat_arrays([pa.array([0], pa.int32()), _ints(ends, pa.int32())])


STRING_CHUNK = 2**31 - 1
"""The most bytes one Arrow string array holds (32-bit offsets)."""


def _strings(raws: list[bytes], lengths: array, data: bytes | None = None) -> pa.Array:
    """One string array of ``raws`` (``data``: their bytes joined, when already made)."""
    data = b"".join(raws) if data is None else data
    return pa.StringArray.from_buffers(
        len(raws), _offsets(lengths).buffers()[1], pa.py_buffer(data)
    )


def raw_column(raws: list[bytes], lengths: array, chunk: int = STRING_CHUNK) -> pa.ChunkedArray:
    """The ``raw`` strings as Arrow arrays of at most ``chunk`` bytes each.

    One array when the lines fit (the usual case); a shard of long lines (a compressed log
    is one shard; a line may hold 64 MiB) is split, since one string array's 32-bit offsets
    cannot pass 2 GiB (they would wrap around and garble the rows).

    Args:
        raws: the lines, UTF-8 bytes.
        lengths: their lengths (``array('i')``), each at most ``chunk``.
        chunk: the most bytes of one array.
    Returns:
        A chunked string array of ``len(raws)`` rows.
    """
    data = b"".join(raws)
    if len(data) <= chunk:
        return pa.chunked_array([_strings(raws, lengths, data)], pa.string())
    del data
    parts = []
    first = size = 0
    for i, n in enumerate(lengths):
        if size + n > chunk and i > first:
            parts.append(_strings(raws[first:i], lengths[first:i]))
            first, size = i, 0
        size += n
    parts.append(_strings(raws[first:], lengths[first:]))
    return pa.chunked_array(parts, pa.string())


class _EventColumns:
    """The events table as one Python list per column: a few appends per event, converted
    once per table.

    The compiled collector appends to the lists it holds as typed attributes (a C call of
    ``PyList_Append``, no method call: a bound ``array.append`` per column and event parsed
    its argument each time, 7% of a compiled ingest), and :meth:`table` turns each list
    into a typed array in one pass (:func:`typed`). Codes of interned strings are 32-bit
    (a shard may name more than 32,767 players: one header of 40,000 did), line numbers
    and pending draws 64-bit, hand sizes and pending skips 32-bit, as the columns are
    (:data:`maumau_log.store.layout.COLUMNS`).
    """

    def __init__(self, intern: _Intern) -> None:
        self.intern = intern
        self.game_ids: list[str] = []  # one per game
        self.game_counts: list[int] = []  # events per game
        self.index: list[int] = []
        self.line: list[int] = []
        self.type: list[int] = []
        self.player: list[int] = []
        self.cards: list[int] = []  # card codes, flattened
        self.cards_end: list[int] = []  # end offset of each event's cards
        self.cards_null: list[int] = []  # 1 where the event has no cards
        self.suit: list[int] = []
        self.reason: list[int] = []
        self.top: list[int] = []
        self.suit_to_follow: list[int] = []
        self.pending_draw: list[int] = []
        self.pending_skip: list[int] = []
        self.direction: list[int] = []
        self.hand_sizes: list[int] = []  # flattened; n_players per event
        self.hands_end: list[int] = []
        self.turn: list[int] = []
        self.raw: list[bytes] = []
        self.raw_len: list[int] = []

    def __len__(self) -> int:
        return len(self.line)

    def truncate(self, n: int) -> None:
        """Drop the events from row ``n`` on (a game that is not stored)."""
        cards_at = self.cards_end[n - 1] if n else 0
        hands_at = self.hands_end[n - 1] if n else 0
        for col in (
            self.index, self.line, self.type, self.player, self.cards_end, self.cards_null,
            self.suit, self.reason, self.top, self.suit_to_follow, self.pending_draw,
            self.pending_skip, self.direction, self.hands_end, self.turn, self.raw_len,
        ):  # fmt: skip
            del col[n:]
        del self.raw[n:]
        del self.cards[cards_at:]
        del self.hand_sizes[hands_at:]

    def table(self) -> pa.Table:
        intern = self.intern
        game_no = array("i")
        for g, count in enumerate(self.game_counts):
            game_no.extend(repeat(g, count))
        game_id = pa.DictionaryArray.from_arrays(
            _ints(game_no, pa.int32()), pa.array(self.game_ids, pa.string())
        ).cast(pa.string())
        cards_null = typed("b", self.cards_null)
        cards = pa.ListArray.from_arrays(
            _offsets_from_ends(typed("i", self.cards_end)),
            intern.decode(typed("i", self.cards)),
            mask=pc.equal(_ints(cards_null, pa.int8()), 1),
        )
        hand_sizes = pa.ListArray.from_arrays(
            _offsets_from_ends(typed("i", self.hands_end)),
            _ints(typed("i", self.hand_sizes), pa.int32()),
        )
        raw = raw_column(self.raw, typed("i", self.raw_len))
        return pa.Table.from_arrays(
            [
                game_id,
                _ints(typed("i", self.index), pa.int32()),
                _ints(typed("q", self.line), pa.int64()),
                intern.decode(typed("i", self.type)),
                intern.decode(typed("i", self.player)),
                cards,
                intern.decode(typed("i", self.suit)),
                intern.decode(typed("i", self.reason)),
                intern.decode(typed("i", self.top)),
                intern.decode(typed("i", self.suit_to_follow)),
                _ints(typed("q", self.pending_draw), pa.int64()),
                _ints(typed("i", self.pending_skip), pa.int32()),
                _ints(typed("b", self.direction), pa.int8()),
                hand_sizes,
                intern.decode(typed("i", self.turn)),
                raw,
            ],
            schema=SCHEMAS["events"],
        )


class _Buffers:
    """Column buffers of one partition."""

    def __init__(self, intern: _Intern) -> None:
        self.ev = _EventColumns(intern)
        self.games: dict[str, list[Any]] = {n: [] for n in SCHEMAS["games"].names}
        self.results: dict[str, list[Any]] = {n: [] for n in SCHEMAS["results"].names}
        self.violations: dict[str, list[Any]] = {n: [] for n in SCHEMAS["violations"].names}
        self.audit: dict[str, dict[str, list[Any]]] = {
            name: {n: [] for n in SCHEMAS[name].names} for name in AUDIT_TABLES
        }

    @property
    def n_events(self) -> int:
        return len(self.ev)

    def tables(self) -> dict[str, pa.Table]:
        out = {"events": self.ev.table()}
        for name, cols in (
            ("games", self.games),
            ("results", self.results),
            ("violations", self.violations),
            *self.audit.items(),
        ):
            out[name] = pa.Table.from_pydict(cols, schema=SCHEMAS[name])
        return out
