"""The dataset's layout without Arrow: table names, columns and their types, the manifest's
name, the partition keys, :class:`DatasetError` (issue 11, start-up of ``stats``).

The single definition of every table's columns, as ``(name, type code)`` pairs;
:mod:`maumau_log.store_schema` turns them into the Arrow schemas the writer writes and
:func:`polars_schema` into the Polars schema the readers scan with. Importing this module
imports neither pyarrow nor Polars, so a query (``stats``, ``query``) that reads with Polars
alone never pays pyarrow's (and NumPy's) start-up.

Type codes: ``str``, ``bool``, ``i8``, ``i16``, ``i32``, ``i64``, ``f64``, ``ts`` (a
timestamp in milliseconds, UTC), ``list:<code>`` (a list of that type) and ``list:total``
(a list of :data:`MATCH_TOTAL_FIELDS` structs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

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

DRAW_REASONS: tuple[str, ...] = ("no_play", "voluntary", "effect", "cover")
"""The draw reasons with a ``results.drawn_<reason>`` column."""

AUDIT_POWERS: tuple[str, ...] = (
    "wild", "draw", "skip", "reverse", "cover", "play_again", "cancel", "draw_previous",
)  # fmt: skip
"""The card powers whose cards in each first hand ``audit_seats`` counts (RULES.md, card
powers; the ``deal`` test's powers)."""

MATCH_TOTAL_FIELDS: tuple[tuple[str, str], ...] = (("player", "str"), ("total", "i32"))
"""The fields of one ``matches.totals`` entry."""

Columns = tuple[tuple[str, str], ...]

COLUMNS: dict[str, Columns] = {
    "games": (
        ("game_id", "str"),
        ("match_id", "str"),
        ("round", "i32"),
        ("header_ruleset", "str"),
        ("options", "str"),
        ("options_hash", "str"),
        ("players", "list:str"),
        ("n_players", "i8"),
        ("dealer", "str"),
        ("started_at", "str"),
        ("events", "i32"),
        ("valid", "bool"),
        ("violation_code", "str"),
        ("violation_index", "i32"),
        ("winner", "str"),
        ("source_file", "str"),
        ("source_line", "i32"),
        ("content_hash", "i64"),
        ("ingested_at", "ts"),
    ),
    "results": (
        ("game_id", "str"),
        ("player", "str"),
        ("seat", "i8"),
        ("valid", "bool"),
        ("won", "bool"),
        ("cards_left", "i16"),
        ("points_left", "i32"),
        ("round_score", "i32"),
        ("cards_played", "i16"),
        *((f"drawn_{r}", "i16") for r in DRAW_REASONS),
        ("penalties", "i16"),
        ("penalty_cards_missed_call", "i16"),
        ("penalty_cards_wrong_call", "i16"),
        ("penalty_cards_other", "i16"),
        ("calls_made", "i16"),
        ("calls_missed", "i16"),
        ("wild_played", "i16"),
        ("suits_named", "i16"),
        ("draw_cards_played", "i16"),
        ("skip_cards_played", "i16"),
        ("reverse_cards_played", "i16"),
        ("cover_cards_played", "i16"),
        ("turns", "i16"),
        ("skipped", "i16"),
        ("match_id", "str"),
        ("round", "i32"),
        ("total_after", "i32"),
    ),
    "events": (
        ("game_id", "str"),
        ("event_index", "i32"),
        ("line", "i32"),
        ("type", "str"),
        ("player", "str"),
        ("cards", "list:str"),
        ("suit", "str"),
        ("reason", "str"),
        ("top", "str"),
        ("suit_to_follow", "str"),
        ("pending_draw", "i16"),
        ("pending_skip", "i8"),
        ("direction", "i8"),
        ("hand_sizes", "list:i16"),
        ("turn", "str"),
        ("raw", "str"),
    ),
    "violations": (
        ("file", "str"),
        ("line", "i32"),
        ("game_id", "str"),
        ("event_index", "i32"),
        ("player", "str"),
        ("code", "str"),
        ("rule", "str"),
        ("message", "str"),
        ("expected", "str"),
        ("raw", "str"),
    ),
    "matches": (
        ("match_id", "str"),
        ("players", "list:str"),
        ("rounds", "i32"),
        ("valid_rounds", "i32"),
        ("totals", "list:total"),
        ("over", "bool"),
        ("ended", "bool"),
        ("valid", "bool"),
        ("winner", "str"),
        ("draw", "bool"),
        ("first_ingest", "ts"),
        ("last_ingest", "ts"),
    ),
    "audit_games": (
        ("game_id", "str"),
        ("client", "str"),
        ("dealer", "i16"),
        ("starter", "str"),
        ("hands_known", "bool"),
        ("moments", "i32"),
    ),
    "audit_seats": (
        ("game_id", "str"),
        ("seat", "i8"),
        ("player", "str"),
        ("hand_size", "i16"),
        *((f"hand_{power}", "i8") for power in AUDIT_POWERS),
        ("faults", "i16"),
        ("behind", "i32"),
        ("drawn_no_play", "i16"),
        ("playable_no_play", "i16"),
        ("drawn_voluntary", "i16"),
        ("playable_voluntary", "i16"),
        ("timed", "i16"),
    ),
    "audit_events": (
        ("game_id", "str"),
        ("event_index", "i32"),
        ("kind", "str"),
        ("player", "str"),
        ("by", "str"),
        ("reason", "str"),
        ("flag", "bool"),
        ("ms", "f64"),
    ),
}
"""Each table's columns in file order, ``(name, type code)``; the columns' meanings are in
the docstrings of :mod:`maumau_log.store_schema`'s Arrow schemas."""


class DatasetError(ValueError):
    """A dataset that cannot be used: missing, not a dataset, a newer version, busy,
    damaged (a listed file missing or changed), or not writable (a full disk).

    The message names the folder or file and says what is wrong, in one line.
    """


def _polars_type(code: str) -> pl.DataType:
    import polars as pl

    if code.startswith("list:"):
        inner = code[len("list:") :]
        if inner == "total":
            return pl.List(pl.Struct({n: _polars_type(c) for n, c in MATCH_TOTAL_FIELDS}))
        return pl.List(_polars_type(inner))
    simple: dict[str, pl.DataType] = {
        "str": pl.String(),
        "bool": pl.Boolean(),
        "i8": pl.Int8(),
        "i16": pl.Int16(),
        "i32": pl.Int32(),
        "i64": pl.Int64(),
        "f64": pl.Float64(),
        "ts": pl.Datetime("ms", "UTC"),
    }
    return simple[code]


def polars_schema(table: str) -> pl.Schema:
    """A table's columns as a Polars schema (without the partition columns), built without
    pyarrow (the same as ``pl.from_arrow`` of the Arrow schema: a test checks it).

    Args:
        table: one of :data:`ALL_TABLES`.
    Returns:
        A new :class:`polars.Schema`.
    Raises:
        KeyError: an unknown table.
    """
    import polars as pl

    return pl.Schema([(name, _polars_type(code)) for name, code in COLUMNS[table]])
