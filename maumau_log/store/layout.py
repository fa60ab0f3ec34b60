"""The dataset's layout without Arrow: table names, columns and their types, the manifest's
name, the partition keys, :class:`DatasetError` (start-up of ``stats``).

The single definition of every table's columns, as ``(name, type code)`` pairs;
:mod:`maumau_log.store.schema` turns them into the Arrow schemas the writer writes and
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

DATASET_VERSION = 2
"""Version of the table layout; stored in the manifest and in every file's metadata.

Additions keep the version: a later version added the ``matches`` table and the ``results`` columns
``match_id``, ``round`` and ``total_after``; a dataset written before reads as it is (the
missing columns read as null, the missing table as empty).

Version 2 widened integer columns so that every value a valid log can produce fits (see
:data:`COLUMNS`): a header may name more than 127 players, a long game counts more than
32,767 calls or turns, options allow card points and draw counts up to 2,147,483,647 (so
scores and pending draws beyond 32 bits), a file may hold more than 2^31 lines. Files of
version 1 keep their narrower types and read as the wider ones (the readers upcast; an
older maumau-log refuses a version 2 dataset with "upgrade maumau-log" rather than
misreading it)."""

INT_MAX: dict[str, int] = {"i8": 2**7 - 1, "i16": 2**15 - 1, "i32": 2**31 - 1, "i64": 2**63 - 1}
"""The largest value of each integer type code (the smallest is ``-INT_MAX - 1``)."""

MANIFEST = "maumau-dataset.json"
"""The manifest's file name inside a dataset folder."""

FORMAT_NAME = "maumau-log-dataset"

AUDIT_TABLES: tuple[str, ...] = ("audit_games", "audit_seats", "audit_events")
"""The audit's facts, recorded by the ingest's replay: absent from datasets
written before them (the audit then replays the stored events instead)."""

TABLES: tuple[str, ...] = ("games", "results", "events", "violations", *AUDIT_TABLES)
"""The tables an ingest fills game by game."""

MATCH_TABLES: tuple[str, ...] = ("matches",)
"""Tables recomputed from the stored rounds; absent from older datasets."""

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

MATCH_TOTAL_FIELDS: tuple[tuple[str, str], ...] = (("player", "str"), ("total", "i64"))
"""The fields of one ``matches.totals`` entry."""

Columns = tuple[tuple[str, str], ...]

COLUMNS: dict[str, Columns] = {  # widths: see the comment after this table
    "games": (
        ("game_id", "str"),
        ("match_id", "str"),
        ("round", "i32"),
        ("header_ruleset", "str"),
        ("options", "str"),
        ("options_hash", "str"),
        ("players", "list:str"),
        ("n_players", "i32"),
        ("dealer", "str"),
        ("started_at", "str"),
        ("events", "i32"),
        ("valid", "bool"),
        ("violation_code", "str"),
        ("violation_index", "i32"),
        ("winner", "str"),
        ("source_file", "str"),
        ("source_line", "i64"),
        ("content_hash", "i64"),
        ("ingested_at", "ts"),
    ),
    "results": (
        ("game_id", "str"),
        ("player", "str"),
        ("seat", "i32"),
        ("valid", "bool"),
        ("won", "bool"),
        ("cards_left", "i32"),
        ("points_left", "i64"),
        ("round_score", "i64"),
        ("cards_played", "i32"),
        *((f"drawn_{r}", "i32") for r in DRAW_REASONS),
        ("penalties", "i32"),
        ("penalty_cards_missed_call", "i32"),
        ("penalty_cards_wrong_call", "i32"),
        ("penalty_cards_other", "i32"),
        ("calls_made", "i32"),
        ("calls_missed", "i32"),
        ("wild_played", "i32"),
        ("suits_named", "i32"),
        ("draw_cards_played", "i32"),
        ("skip_cards_played", "i32"),
        ("reverse_cards_played", "i32"),
        ("cover_cards_played", "i32"),
        ("turns", "i32"),
        ("skipped", "i32"),
        ("match_id", "str"),
        ("round", "i32"),
        ("total_after", "i64"),
    ),
    "events": (
        ("game_id", "str"),
        ("event_index", "i32"),
        ("line", "i64"),
        ("type", "str"),
        ("player", "str"),
        ("cards", "list:str"),
        ("suit", "str"),
        ("reason", "str"),
        ("top", "str"),
        ("suit_to_follow", "str"),
        ("pending_draw", "i64"),
        ("pending_skip", "i32"),
        ("direction", "i8"),
        ("hand_sizes", "list:i32"),
        ("turn", "str"),
        ("raw", "str"),
    ),
    "violations": (
        ("file", "str"),
        ("line", "i64"),
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
        ("dealer", "i32"),
        ("starter", "str"),
        ("hands_known", "bool"),
        ("moments", "i32"),
    ),
    "audit_seats": (
        ("game_id", "str"),
        ("seat", "i32"),
        ("player", "str"),
        ("hand_size", "i32"),
        *((f"hand_{power}", "i32") for power in AUDIT_POWERS),
        ("faults", "i32"),
        ("behind", "i32"),
        ("drawn_no_play", "i32"),
        ("playable_no_play", "i32"),
        ("drawn_voluntary", "i32"),
        ("playable_voluntary", "i32"),
        ("timed", "i32"),
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
the docstrings of :mod:`maumau_log.store.schema`'s Arrow schemas.

Integer widths (version 2), by the largest value a log can give:

- ``i64``: line numbers (``source_line``, ``line``: a file may hold more than 2^31 lines,
  blank ones too); card points and scores (``points_left``, ``round_score``,
  ``total_after``, ``matches.totals``: up to 432 cards of up to 2,147,483,647 points, times
  ``wild_finish_multiplier``); ``pending_draw`` (draw options up to 2,147,483,647, added up
  by up to 432 cards); ``content_hash``.
- ``i32``: players and seats (a header may name any number: 128 overflowed ``i8``); every
  count of events, turns, calls or cards of one game or player (40,002 calls overflowed
  ``i16``: a game's events and the cards they list are held in memory until the game
  ends, so 2^31 of them is out of reach); ``cards_left`` and ``hand_size`` (a partial
  deal's hand may hold up to ``hand_size``, at most 2,147,483,647); ``round`` (a header's
  ``round`` beyond that is a ``schema_error``, stored as null); ``pending_skip``.
- ``i8``: ``direction`` (+1 or -1).

A value that does not fit all the same (a round score beyond 64 bits with a huge
``wild_finish_multiplier``, a count beyond 32 bits) makes that game invalid with a
``schema_error`` at the event that produced it; the game and the others are stored
(:class:`maumau_log.store.collector.RecordCollector`)."""


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


class DateWindow:
    """The games dated on or after ``since`` and on or before ``until`` (``--since``,
    ``--until`` of ``stats``, ``ratings`` and ``audit``): a game's date is its ``date``
    partition (the header's ``started_at`` or first ``t``), so a window selects whole
    partitions. A game with no known date (``date=unknown``) is outside every window that
    has a bound; with neither bound every game is inside.

    Args:
        since: ``YYYY-MM-DD`` or None (no lower bound).
        until: ``YYYY-MM-DD`` or None (no upper bound).
    Raises:
        ValueError: a bound that is not a calendar date ``YYYY-MM-DD`` (the message names
            the option: ``--since must be a date YYYY-MM-DD, not '2024-02-30'``).

    >>> w = DateWindow("2024-03-01", "2024-03-31")
    >>> w.keeps("2024-03-15"), w.keeps("2024-04-01"), w.keeps(UNKNOWN)
    (True, False, False)
    >>> w.keeps_file("games/ruleset=classic/date=2024-03-02/part-1.parquet")
    True
    >>> DateWindow().keeps(UNKNOWN)
    True
    """

    __slots__ = ("since", "until")

    def __init__(self, since: str | None = None, until: str | None = None) -> None:
        for option, value in (("--since", since), ("--until", until)):
            if value is not None and not _calendar_date(value):
                raise ValueError(f"{option} must be a date YYYY-MM-DD, not {value!r}")
        self.since = since
        self.until = until

    @property
    def bounded(self) -> bool:
        """True when the window has a bound (some games may be outside it)."""
        return self.since is not None or self.until is not None

    def keeps(self, date: str) -> bool:
        """True when a game of the ``date`` partition is inside the window."""
        if not self.bounded:
            return True
        if date == UNKNOWN:
            return False
        return (self.since is None or date >= self.since) and (
            self.until is None or date <= self.until
        )

    def keeps_file(self, rel: str) -> bool:
        """True when a dataset file (``table/ruleset=R/date=D/NAME.parquet``) holds games of
        the window; a file with no ``date`` partition (``matches``) is kept."""
        for part in rel.split("/")[1:-1]:
            if part.startswith("date="):
                return self.keeps(part[len("date=") :])
        return True

    def files(self, files: dict[str, list[str]]) -> dict[str, list[str]]:
        """A manifest's file lists (table to paths) with only the window's files."""
        if not self.bounded:
            return files
        return {t: [r for r in rels if self.keeps_file(r)] for t, rels in files.items()}

    def frame(self, lf: pl.LazyFrame) -> pl.LazyFrame:
        """``lf`` (rows with the ``date`` partition column) less the rows outside the
        window (the filters reach the scan: Polars prunes the partitions)."""
        import polars as pl

        if self.since is not None:
            lf = lf.filter((pl.col("date") != UNKNOWN) & (pl.col("date") >= self.since))
        if self.until is not None:
            lf = lf.filter((pl.col("date") != UNKNOWN) & (pl.col("date") <= self.until))
        return lf

    def __repr__(self) -> str:
        return f"DateWindow({self.since!r}, {self.until!r})"


def _calendar_date(text: str) -> bool:
    """True for ``YYYY-MM-DD`` naming a real day (``2024-02-30`` is not one)."""
    import datetime as _dt
    import re

    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text, flags=re.ASCII) is None:
        return False
    try:
        _dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True
