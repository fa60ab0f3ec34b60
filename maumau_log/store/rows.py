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
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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


@contextmanager
def ingest_memory_pool() -> Iterator[None]:
    """Build and write an ingest's Arrow data with the C library's allocator
    (``pa.system_memory_pool()``), pyarrow's default pool again afterwards.

    pyarrow's default pool is mimalloc, which takes fresh memory in large regions; the
    kernel backs them with transparent huge pages and zeroes each 2 MiB page on its first
    touch: 7% of an ``ingest --jobs 1``'s samples (``clear_page_erms`` under
    ``do_huge_pmd_anonymous_page``), half its system time. With the system pool the same
    ingest (5,000 classic games, a ``t`` on every line) spent 0.29-0.38 system CPU s, not
    0.58-0.65 (5 interleaved runs; 0.44 against 0.53 at the median of 10 on a busier
    machine), its user-space instructions the same (callgrind), and its peak RSS fell
    from 328-332 to 264-301 MiB. The rows are the same with any pool (a pool only places
    the buffers). The pool is process-wide: forked workers started inside inherit it.
    """
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(before)


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
        return self.decode_array(
            pa.Array.from_buffers(pa.int32(), len(codes), [None, pa.py_buffer(codes)])
        )

    def decode_array(self, idx: pa.Array) -> pa.Array:
        """Codes (an int32 array, -1 for null) to a string array."""
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


STRING_CHUNK = 2**31 - 1
"""The most bytes one Arrow string array holds (32-bit offsets)."""


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
    return joined_raw_column(b"".join(raws), lengths, chunk)


def joined_raw_column(
    data: bytes | bytearray, lengths: array, chunk: int = STRING_CHUNK
) -> pa.ChunkedArray:
    """:func:`raw_column` of the lines already joined into ``data`` (``lengths``: each
    line's bytes in it, in order). The arrays point into ``data`` (no copy)."""
    if len(data) <= chunk:
        return pa.chunked_array([_strings_at(data, lengths)], pa.string())
    view = memoryview(data)
    parts = []
    first = size = at = 0
    for i, n in enumerate(lengths):
        if size + n > chunk and i > first:
            parts.append(_strings_at(view[at : at + size], lengths[first:i]))
            first, at, size = i, at + size, 0
        size += n
    parts.append(_strings_at(view[at : at + size], lengths[first:]))
    return pa.chunked_array(parts, pa.string())


def _strings_at(data: bytes | bytearray | memoryview, lengths: array) -> pa.Array:
    """One string array of the lines of ``lengths`` bytes each, joined in ``data``."""
    return pa.StringArray.from_buffers(
        len(lengths), _offsets(lengths).buffers()[1], pa.py_buffer(data)
    )


_STAGED: tuple[tuple[str, str], ...] = (
    ("index", "i"), ("line", "q"), ("type", "i"), ("player", "i"), ("cards", "i"),
    ("n_cards", "i"), ("suit", "i"), ("reason", "i"), ("top", "i"), ("suit_to_follow", "i"),
    ("pending_draw", "q"), ("pending_skip", "i"), ("direction", "b"), ("hand_sizes", "i"),
    ("n_hands", "i"), ("turn", "i"),
)  # fmt: skip
"""The event columns' staged lists and the type code of their typed arrays: codes of
interned strings, counts and hand sizes 32-bit (a shard may name more than 32,767 players:
one header of 40,000 did), line numbers and pending draws 64-bit, as the columns are
(:data:`maumau_log.store.layout.COLUMNS`)."""


RUN_COLUMNS: tuple[str, ...] = ("suit_to_follow", "pending_draw", "pending_skip", "direction")
"""Event columns staged as runs: a value is appended only where it differs from the row
before (and on a game's first row), with the row it starts at; the table expands them in
Arrow (:func:`_decode_runs`). On a timed log of 5,000 classic games the suit to follow
changes on 17% of the events, the pending draw on 12%, the direction on 6%, the pending
skip never: four appends per event fewer, each of which cost about 330 instructions (the
append, the conversion to the typed array, the list's clearing)."""


def _decode_runs(starts: array, values: array, n: int, typ: pa.DataType) -> pa.Array:
    """The ``n`` rows of a run-length column: ``values[i]`` from row ``starts[i]`` up to
    the next start (the last one up to ``n``); ``starts`` rise from 0."""
    ends = pa.concat_arrays([_ints(starts, pa.int64())[1:], pa.array([n], pa.int64())])
    if not len(starts):
        ends = ends[1:]  # no rows
    runs = pa.RunEndEncodedArray.from_arrays(ends, _ints(values, typ))
    return pc.run_end_decode(runs)


class _EventColumns:
    """The events table: the game being replayed staged in Python lists, the games before
    it in typed arrays, converted to Arrow without a copy.

    The compiled collector appends a game's values to the staged lists it holds as typed
    attributes (a C call of ``PyList_Append``, no method call: a bound ``array.append`` per
    column and event parsed its argument each time, 7% of a compiled ingest). At the end
    of a stored game :meth:`commit` moves them into one typed array per column (one pass
    in C per column and game) and empties the lists, which the next game refills: a shard
    no longer holds a Python int per value (32 bytes and a list slot each; the lists of a
    5,000-game shard made 17,000 page faults when :meth:`table` converted them, and every
    full pass of the garbage collector walked them), and :meth:`table` wraps the arrays'
    memory. Per event the cards and the hand sizes are stored as counts (``n_cards``, -1
    for no card list; ``n_hands``), small ints Python does not allocate, their offsets
    summed in Arrow; the columns of :data:`RUN_COLUMNS` as runs (a value and the row it
    starts at, in :attr:`run_starts`), expanded in Arrow; the lines are joined into one
    ``bytearray`` (the ``raw`` column's data, no second copy) and their lengths taken at
    :meth:`commit`.
    """

    def __init__(self, intern: _Intern) -> None:
        self.intern = intern
        self.game_ids: list[str] = []  # one per committed game
        self.game_counts: list[int] = []  # events per committed game
        # the staged game
        self.index: list[int] = []
        self.line: list[int] = []
        self.type: list[int] = []
        self.player: list[int] = []
        self.cards: list[int] = []  # card codes, flattened
        self.n_cards: list[int] = []  # cards of each event, -1 where it has no card list
        self.suit: list[int] = []
        self.reason: list[int] = []
        self.top: list[int] = []
        # runs (RUN_COLUMNS): a value, and the row of the game it starts at
        self.suit_to_follow: list[int] = []
        self.suit_to_follow_at: list[int] = []
        self.pending_draw: list[int] = []
        self.pending_draw_at: list[int] = []
        self.pending_skip: list[int] = []
        self.pending_skip_at: list[int] = []
        self.direction: list[int] = []
        self.direction_at: list[int] = []
        self.hand_sizes: list[int] = []  # flattened
        self.n_hands: list[int] = []  # hand sizes of each event (the game's players)
        self.turn: list[int] = []
        self.raw: list[bytes] = []
        # the committed games
        self.rows = 0
        self.typed: dict[str, array] = {name: array(code) for name, code in _STAGED}
        # the rows where the runs of RUN_COLUMNS start (their values are in ``typed``)
        self.run_starts: dict[str, array] = {name: array("q") for name in RUN_COLUMNS}
        self.raw_data = bytearray()  # the committed games' lines, joined
        self.raw_len = array("i")
        self._pair()

    def _pair(self) -> None:
        """Pair each staged list with its typed array (for :meth:`commit`); the arrays
        are not lent to Arrow yet."""
        self._pairs = [(getattr(self, name), self.typed[name]) for name, _ in _STAGED]
        self._runs = [(getattr(self, f"{name}_at"), self.run_starts[name]) for name in RUN_COLUMNS]
        self._lent = False  # table() handed the arrays' memory to Arrow

    def __len__(self) -> int:
        """The events held: committed and staged."""
        return self.rows + len(self.line)

    @property
    def staged(self) -> int:
        """The staged game's events."""
        return len(self.line)

    def truncate(self, n: int) -> None:
        """Drop the staged events from the staged game's row ``n`` on (a game, or its end,
        that is not stored)."""
        cards_at = sum(k for k in self.n_cards[:n] if k > 0)
        hands_at = sum(self.n_hands[:n])
        for col in (
            self.index, self.line, self.type, self.player, self.n_cards, self.suit,
            self.reason, self.top, self.n_hands, self.turn, self.raw,
        ):  # fmt: skip
            del col[n:]
        del self.cards[cards_at:]
        del self.hand_sizes[hands_at:]
        for name in RUN_COLUMNS:  # the runs that start at the game's row n or later
            starts, values = getattr(self, f"{name}_at"), getattr(self, name)
            k = bisect_left(starts, self.rows + n)
            del starts[k:]
            del values[k:]

    def commit(self, game_id: str) -> None:
        """Store the staged events as game ``game_id``'s rows and empty the staged lists.

        Raises:
            OverflowError: a value does not fit its column's type (the collector checks the
                widths before: this is the last guard); nothing is committed then.
        """
        n = len(self.line)
        if not n:
            return
        for starts, _ in self._runs:
            if not starts or starts[0] != self.rows:
                raise ValueError("a game's runs start at its first row")
        if self._lent:  # Arrow may still point into the arrays: grow copies of them
            self.typed = {name: _copy(arr) for name, arr in self.typed.items()}
            self.run_starts = {name: _copy(arr) for name, arr in self.run_starts.items()}
            self.raw_len = _copy(self.raw_len)
            self.raw_data = bytearray(self.raw_data)
            self._pair()
        pairs = self._pairs + self._runs
        sizes = [len(arr) for _, arr in pairs]
        try:
            for values, arr in pairs:
                arr.fromlist(values)  # one pass in C; the arrays as they were when one fails
        except OverflowError:
            for (_, arr), size in zip(pairs, sizes, strict=True):
                del arr[size:]
            raise
        for values, _ in pairs:
            del values[:]
        self.raw_len.fromlist([len(r) for r in self.raw])
        self.raw_data += b"".join(self.raw)
        del self.raw[:]
        self.game_ids.append(game_id)
        self.game_counts.append(n)
        self.rows += n

    def table(self) -> pa.Table:
        """The committed games' events as a table (:data:`~maumau_log.store.SCHEMAS`)."""
        intern = self.intern
        t = self.typed
        self._lent = True
        game_no = array("i")
        for g, count in enumerate(self.game_counts):
            game_no.extend(repeat(g, count))
        game_id = pa.DictionaryArray.from_arrays(
            _ints(game_no, pa.int32()), pa.array(self.game_ids, pa.string())
        ).cast(pa.string())
        n_cards = _ints(t["n_cards"], pa.int32())
        no_cards = pc.less(n_cards, 0)
        cards = pa.ListArray.from_arrays(
            _offsets_of(pc.if_else(no_cards, pa.scalar(0, pa.int32()), n_cards)),
            intern.decode(t["cards"]),
            mask=no_cards,
        )
        hand_sizes = pa.ListArray.from_arrays(
            _offsets_of(_ints(t["n_hands"], pa.int32())),
            _ints(t["hand_sizes"], pa.int32()),
        )
        raw = joined_raw_column(self.raw_data, self.raw_len)

        def runs(name: str, typ: pa.DataType) -> pa.Array:
            return _decode_runs(self.run_starts[name], t[name], self.rows, typ)

        return pa.Table.from_arrays(
            [
                game_id,
                _ints(t["index"], pa.int32()),
                _ints(t["line"], pa.int64()),
                intern.decode(t["type"]),
                intern.decode(t["player"]),
                cards,
                intern.decode(t["suit"]),
                intern.decode(t["reason"]),
                intern.decode(t["top"]),
                intern.decode_array(runs("suit_to_follow", pa.int32())),
                runs("pending_draw", pa.int64()),
                runs("pending_skip", pa.int32()),
                runs("direction", pa.int8()),
                hand_sizes,
                intern.decode(t["turn"]),
                raw,
            ],
            schema=SCHEMAS["events"],
        )


def _copy(values: array) -> array:
    """A copy of a typed array (a slice: one ``memcpy``)."""
    return values[:]


def _offsets_of(counts: pa.Array) -> pa.Array:
    """List offsets (int32, a 0 first) from each list's length."""
    return pa.concat_arrays([pa.array([0], pa.int32()), pc.cumulative_sum(counts)])


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
