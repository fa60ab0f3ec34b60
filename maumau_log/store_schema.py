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

DATASET_VERSION = 1
"""Version of the table layout; stored in the manifest and in every file's metadata.

Additions keep the version: issue 6 added the ``matches`` table and the ``results`` columns
``match_id``, ``round`` and ``total_after``; a dataset written before reads as it is (the
missing columns read as null, the missing table as empty)."""

MANIFEST = "maumau-dataset.json"
"""The manifest's file name inside a dataset folder."""

FORMAT_NAME = "maumau-log-dataset"

AUDIT_TABLES: tuple[str, ...] = ("audit_games", "audit_seats", "audit_events")
"""The audit's facts, recorded by the ingest's replay (issue 11): absent from datasets
written before them (the audit then replays the stored events instead)."""

TABLES: tuple[str, ...] = ("games", "results", "events", "violations", *AUDIT_TABLES)
"""The tables an ingest fills game by game."""

MATCH_TABLES: tuple[str, ...] = ("matches",)
"""Tables recomputed from the stored rounds (issue 6); absent from older datasets."""

ALL_TABLES: tuple[str, ...] = TABLES + MATCH_TABLES
"""Every table of a dataset."""

PARTITION_COLUMNS: tuple[str, ...] = ("ruleset", "date")
"""Hive partition keys, in path order (strings; ``unknown`` where not known)."""

UNKNOWN = "unknown"
"""The partition value used where the ruleset or the date is not known."""

_SAFE_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

_DRAW_REASONS = ("no_play", "voluntary", "effect", "cover")

GAMES_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("match_id", pa.string()),
        ("round", pa.int32()),
        ("header_ruleset", pa.string()),
        ("options", pa.string()),
        ("options_hash", pa.string()),
        ("players", pa.list_(pa.string())),
        ("n_players", pa.int8()),
        ("dealer", pa.string()),
        ("started_at", pa.string()),
        ("events", pa.int32()),
        ("valid", pa.bool_()),
        ("violation_code", pa.string()),
        ("violation_index", pa.int32()),
        ("winner", pa.string()),
        ("source_file", pa.string()),
        ("source_line", pa.int32()),
        ("content_hash", pa.int64()),
        ("ingested_at", pa.timestamp("ms", tz="UTC")),
    ]
)
"""One row a game (one round), valid or not."""

_I16 = pa.int16()
RESULTS_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("player", pa.string()),
        ("seat", pa.int8()),
        ("valid", pa.bool_()),
        ("won", pa.bool_()),
        ("cards_left", _I16),
        ("points_left", pa.int32()),
        ("round_score", pa.int32()),
        ("cards_played", _I16),
        *[(f"drawn_{r}", _I16) for r in _DRAW_REASONS],
        ("penalties", _I16),
        ("penalty_cards_missed_call", _I16),
        ("penalty_cards_wrong_call", _I16),
        ("penalty_cards_other", _I16),
        ("calls_made", _I16),
        ("calls_missed", _I16),
        ("wild_played", _I16),
        ("suits_named", _I16),
        ("draw_cards_played", _I16),
        ("skip_cards_played", _I16),
        ("reverse_cards_played", _I16),
        ("cover_cards_played", _I16),
        ("turns", _I16),
        ("skipped", _I16),
        ("match_id", pa.string()),
        ("round", pa.int32()),
        ("total_after", pa.int32()),
    ]
)
"""One row per player per game whose ruleset resolved (the engine ran).

``match_id`` and ``round`` are set where the game is a match round (``round`` as the replay
numbered it where the header gave none); ``total_after`` is the player's running total after
this round: the sum of the round scores of rounds 1 to this one, null where that sum is not
known (this round or an earlier one is invalid, unscored or not stored, or the match was
already over). A later ingest that stores an earlier round rewrites the files concerned
(:func:`maumau_log.records.ingest`). Absent (read as null) in version 1 files."""

EVENTS_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("event_index", pa.int32()),
        ("line", pa.int32()),
        ("type", pa.string()),
        ("player", pa.string()),
        ("cards", pa.list_(pa.string())),
        ("suit", pa.string()),
        ("reason", pa.string()),
        ("top", pa.string()),
        ("suit_to_follow", pa.string()),
        ("pending_draw", pa.int16()),
        ("pending_skip", pa.int8()),
        ("direction", pa.int8()),
        ("hand_sizes", pa.list_(pa.int16())),
        ("turn", pa.string()),
        ("raw", pa.string()),
    ]
)
"""One row per accepted event (the header is event 0) with the state it left."""

VIOLATIONS_SCHEMA = pa.schema(
    [
        ("file", pa.string()),
        ("line", pa.int32()),
        ("game_id", pa.string()),
        ("event_index", pa.int32()),
        ("player", pa.string()),
        ("code", pa.string()),
        ("rule", pa.string()),
        ("message", pa.string()),
        ("expected", pa.string()),
        ("raw", pa.string()),
    ]
)
"""Every violation, with the fields of ``Violation.to_dict()``, and ``raw``: the violating
line as logged (UTF-8, invalid bytes replaced, cut to :data:`RAW_LIMIT` characters; null
when there was no line, e.g. a file that ended early). ``raw`` was added by issue 15 (the
dispute view shows the event as logged); older files read it as null."""

RAW_LIMIT = 10_000
"""Characters of a violating line kept in ``violations.raw``."""

MATCH_TOTAL = pa.struct([("player", pa.string()), ("total", pa.int32())])

MATCHES_SCHEMA = pa.schema(
    [
        ("match_id", pa.string()),
        ("players", pa.list_(pa.string())),
        ("rounds", pa.int32()),
        ("valid_rounds", pa.int32()),
        ("totals", pa.list_(MATCH_TOTAL)),
        ("over", pa.bool_()),
        ("ended", pa.bool_()),
        ("valid", pa.bool_()),
        ("winner", pa.string()),
        ("draw", pa.bool_()),
        ("first_ingest", pa.timestamp("ms", tz="UTC")),
        ("last_ingest", pa.timestamp("ms", tz="UTC")),
    ]
)
"""One row per match (``match_id``) stored, recomputed from the stored rounds by every
ingest that adds a round of it (:func:`maumau_log.records.match_rows` defines each column).
Partitioned like the others: the ruleset, and the date of its first stored round."""


AUDIT_POWERS: tuple[str, ...] = (
    "wild", "draw", "skip", "reverse", "cover", "play_again", "cancel", "draw_previous",
)  # fmt: skip
"""The card powers whose cards in each first hand ``audit_seats`` counts (RULES.md, card
powers; the ``deal`` test's powers)."""

AUDIT_GAMES_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("client", pa.string()),
        ("dealer", pa.int16()),
        ("starter", pa.string()),
        ("hands_known", pa.bool_()),
        ("moments", pa.int32()),
    ]
)
"""One row per stored game with a header (issue 11): ``client`` (the header's
``meta.client``, else ``meta.engine``, else ``unknown``) for every such game; for a valid
game also the dealer's seat as the engine placed it, the starter card, whether every first
hand was logged card by card, and ``moments``: the events after which every player held a
card (the ``abandon`` test's denominator). The replay facts are null for an invalid game."""

AUDIT_SEATS_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("hand_size", pa.int16()),
        *((f"hand_{power}", pa.int8()) for power in AUDIT_POWERS),
        ("faults", pa.int16()),
        ("behind", pa.int32()),
        ("drawn_no_play", pa.int16()),
        ("playable_no_play", pa.int16()),
        ("drawn_voluntary", pa.int16()),
        ("playable_voluntary", pa.int16()),
        ("timed", pa.int16()),
    ]
)
"""One row per seat of a valid game: the first hand's size (null when the deal hid it) and
its cards of each power (``hand_wild`` ...), the player's call faults (missed or wrong
calls, caught or not), and the events after which that player held more cards than the
best-placed other player (``behind``; of the game's ``moments``); the player's
``audit_events`` per game: cards drawn (reasons ``no_play``, ``voluntary``) and the playable
ones among them, and timed decisions (``timed``)."""

AUDIT_EVENTS_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("event_index", pa.int32()),
        ("kind", pa.string()),
        ("player", pa.string()),
        ("by", pa.string()),
        ("reason", pa.string()),
        ("flag", pa.bool_()),
        ("ms", pa.float64()),
    ]
)
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

WRITE_OPTIONS: dict[str, Any] = {"compression": "zstd", "compression_level": 6}
"""``pq.ParquetWriter`` options for every file."""

DELTA_COLUMNS: dict[str, tuple[str, ...]] = {
    "games": ("source_line",),
    "events": ("event_index", "line"),
}
"""Counting-up integer columns stored DELTA_BINARY_PACKED (zstd does poorly on them)."""


def writer_options(table: str) -> dict[str, Any]:
    """The ``pq.ParquetWriter`` options of a table's files (zstd; delta-encoded counters)."""
    return _writer_options(table)


def _writer_options(table: str) -> dict[str, Any]:
    delta = DELTA_COLUMNS.get(table, ())
    if not delta:
        return dict(WRITE_OPTIONS)
    return {
        **WRITE_OPTIONS,
        "use_dictionary": [n for n in SCHEMAS[table].names if n not in delta],
        "column_encoding": dict.fromkeys(delta, "DELTA_BINARY_PACKED"),
    }


class DatasetError(ValueError):
    """A dataset that cannot be used: missing, not a dataset, a newer version, busy,
    damaged (a listed file missing or changed), or not writable (a full disk).

    The message names the folder or file and says what is wrong, in one line.
    """


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
