"""The dataset's layout: table names, Arrow schemas, partitions, file options, errors.

Split out of :mod:`maumau_log.store` (which re-exports every name here); imported by the
manifest and writer modules, never importing them.
"""

from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import Any

import pyarrow as pa

from .layout import (  # noqa: F401  (re-exported: the layout's names live there)
    ALL_TABLES,
    AUDIT_POWERS,
    AUDIT_TABLES,
    COLUMNS,
    DATASET_VERSION,
    DRAW_REASONS,
    FORMAT_NAME,
    MANIFEST,
    MATCH_TABLES,
    MATCH_TOTAL_FIELDS,
    PARTITION_COLUMNS,
    TABLES,
    UNKNOWN,
    DatasetError,
)

_SAFE_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

_DRAW_REASONS = DRAW_REASONS

_I16 = pa.int16()


def _arrow_type(code: str) -> pa.DataType:
    """The Arrow type of a :mod:`maumau_log.store.layout` type code."""
    if code.startswith("list:"):
        inner = code[len("list:") :]
        return pa.list_(MATCH_TOTAL if inner == "total" else _arrow_type(inner))
    return {
        "str": pa.string(),
        "bool": pa.bool_(),
        "i8": pa.int8(),
        "i16": pa.int16(),
        "i32": pa.int32(),
        "i64": pa.int64(),
        "f64": pa.float64(),
        "ts": pa.timestamp("ms", tz="UTC"),
    }[code]


def _arrow_schema(table: str) -> pa.Schema:
    """A table's Arrow schema from its columns in :data:`~maumau_log.store.layout.COLUMNS`."""
    return pa.schema([(name, _arrow_type(code)) for name, code in COLUMNS[table]])


MATCH_TOTAL = pa.struct([("player", pa.string()), ("total", pa.int64())])
"""One entry of ``matches.totals`` (:data:`~maumau_log.store.layout.MATCH_TOTAL_FIELDS`)."""

GAMES_SCHEMA = _arrow_schema("games")
"""One row a game (one round), valid or not."""

RESULTS_SCHEMA = _arrow_schema("results")
"""One row per player per game whose ruleset resolved (the engine ran).

``match_id`` and ``round`` are set where the game is a match round (``round`` as the replay
numbered it where the header gave none); ``total_after`` is the player's running total after
this round: the sum of the round scores of rounds 1 to this one, null where that sum is not
known (this round or an earlier one is invalid, unscored or not stored, or the match was
already over). A later ingest that stores an earlier round rewrites the files concerned
(:func:`maumau_log.run.ingest.ingest`). Absent (read as null) in version 1 files."""

EVENTS_SCHEMA = _arrow_schema("events")
"""One row per accepted event (the header is event 0) with the state it left."""

VIOLATIONS_SCHEMA = _arrow_schema("violations")
"""Every violation, with the fields of ``Violation.to_dict()``, and ``raw``: the violating
line as logged (UTF-8, invalid bytes replaced, cut to :data:`RAW_LIMIT` characters; null
when there was no line, e.g. a file that ended early). ``raw`` was added later (the
dispute view shows the event as logged); older files read it as null."""

RAW_LIMIT = 10_000
"""Characters of a violating line kept in ``violations.raw``."""

MATCHES_SCHEMA = _arrow_schema("matches")
"""One row per match (``match_id``) stored, recomputed from the stored rounds by every
ingest that adds a round of it (:func:`maumau_log.run.ingest.match_rows` defines each column).
Partitioned like the others: the ruleset, and the date of its first stored round."""


AUDIT_GAMES_SCHEMA = _arrow_schema("audit_games")
"""One row per stored game with a header: ``client`` (the header's
``meta.client``, else ``meta.engine``, else ``unknown``) for every such game; for a valid
game also the dealer's seat as the engine placed it, the starter card, whether every first
hand was logged card by card, and ``moments``: the events after which every player held a
card (the ``abandon`` test's denominator). The replay facts are null for an invalid game."""

AUDIT_SEATS_SCHEMA = _arrow_schema("audit_seats")
"""One row per seat of a valid game: the first hand's size (null when the deal hid it) and
its cards of each power (``hand_wild`` ...), the player's call faults (missed or wrong
calls, caught or not), and the events after which that player held more cards than the
best-placed other player (``behind``; of the game's ``moments``); the player's
``audit_events`` per game: cards drawn (reasons ``no_play``, ``voluntary``) and the playable
ones among them, and timed decisions (``timed``)."""

AUDIT_EVENTS_SCHEMA = _arrow_schema("audit_events")
"""One row per audit fact of a valid game, in the game's order: ``kind`` ``fault`` (a
catchable call fault of ``player`` arose at this event), ``catch`` (``by`` caught
``player``'s call fault), ``draw`` (one card drawn with ``reason`` ``no_play`` or
``voluntary``; ``flag``: it could be played on the pile right after), ``decision`` (a play,
draw or pass starting ``player``'s action, ``ms`` after the previous event's ``t``),
``abandon`` (``flag``: the player held more cards than the best-placed other player)."""

SCHEMAS: dict[str, pa.Schema] = {
    name: schema.with_metadata(
        {"maumau_log.dataset_version": str(DATASET_VERSION), "maumau_log.table": name}
    )
    for name, schema in (
        ("games", GAMES_SCHEMA),
        ("results", RESULTS_SCHEMA),
        ("events", EVENTS_SCHEMA),
        ("violations", VIOLATIONS_SCHEMA),
        ("matches", MATCHES_SCHEMA),
        ("audit_games", AUDIT_GAMES_SCHEMA),
        ("audit_seats", AUDIT_SEATS_SCHEMA),
        ("audit_events", AUDIT_EVENTS_SCHEMA),
    )
}
"""Each table's schema, with the version metadata written into every file."""

WRITE_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 6,
    "write_page_checksum": True,
}
"""``pq.ParquetWriter`` options for every file: zstd, and a CRC-32 of every page, which the
pyarrow reads verify (:mod:`maumau_log.store.integrity`)."""

DELTA_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("source_line",),
    "events": ("event_index", "line"),
}
"""Counting-up integer columns stored DELTA_BINARY_PACKED (zstd does poorly on them)."""


def writer_options(table: str) -> dict[str, Any]:
    """The ``pq.ParquetWriter`` options of a table's files (zstd; delta-encoded counters)."""
    return _writer_options(table)


COMPRESSION_LEVELS: dict[str, int] = {"events": 3}
"""zstd levels other than :data:`WRITE_OPTIONS`' 6, per table. ``events`` holds most of a
dataset's bytes (every line as read): at level 6 zstd's match finder was the largest single
entry of an ``ingest --jobs 1`` profile (5% of its CPU; 1.2% at level 3). The trade-off,
5,000 classic games, whole ``ingest --jobs 1`` processes: 0.2-0.5 CPU s less (of about 5),
for a dataset 8% larger (6.46 MB, not 5.99) on a log with a ``t`` on every line and 12%
larger (4.52 MB, not 4.02) on one without. The rows are the same at any level (the level
changes the file's bytes, not what they decode to; the manifest hashes the bytes written)."""


def _writer_options(table: str) -> dict[str, Any]:
    options = dict(WRITE_OPTIONS)
    level = COMPRESSION_LEVELS.get(table)
    if level is not None:
        options["compression_level"] = level
    delta = DELTA_COLUMNS.get(table, ())
    if not delta:
        return options
    return {
        **options,
        "use_dictionary": [n for n in SCHEMAS[table].names if n not in delta],
        "column_encoding": dict.fromkeys(delta, "DELTA_BINARY_PACKED"),
    }


_WRITE_CAUSES = {
    errno.ENOSPC: "no space left on the device",
    errno.EFBIG: "file too large (a file-size limit such as ulimit -f)",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
}


def write_error(root: Path, exc: OSError, what: str | None = None) -> DatasetError:
    """A :class:`DatasetError` for an ingest that could not write (exit 2: the machine's
    fault, not a bug): the file and the cause, and that the dataset is as it was."""
    cause = _WRITE_CAUSES.get(exc.errno or -1) or exc.strerror or str(exc)
    where = what or exc.filename or root
    return DatasetError(
        f"{where}: cannot write: {cause}; nothing was stored, the dataset {root} is as it was"
    )


def partition_value(value: str | None) -> str:
    """Return ``value`` if it is safe as a hive path component, else :data:`UNKNOWN`."""
    if value is None or not _SAFE_VALUE.match(value) or value == "__HIVE_DEFAULT_PARTITION__":
        return UNKNOWN
    return value


def partition_dir(table: str, ruleset: str, date: str) -> str:
    """The relative folder of one partition of ``table``."""
    return f"{table}/ruleset={ruleset}/date={date}"


# ---------------------------------------------------------------------------------------
# The manifest
