"""The Parquet dataset: Arrow schemas, crash-safe appends, lazy reads (issue 3).

A dataset is a folder::

    DATASET/
      maumau-dataset.json                       the manifest: the published files
      games/ruleset=classic/date=unknown/part-<ingest id>.parquet
      results/...   events/...   violations/...
      .lock                                     held (flock) while an ingest writes
      .tmp-<ingest id>/                         only while an ingest runs

Every table is hive-partitioned on ``ruleset`` (the canonical preset name, ``unknown`` when
the header named none that resolved) and ``date`` (``YYYY-MM-DD`` from the header's
``started_at`` or ``t``, ``unknown`` when the log gives none); the partition values live in
the paths only. Files are zstd-compressed and carry the dataset version in their schema
metadata (``maumau_log.dataset_version``).

Crash safety: an ingest writes its files into ``.tmp-<id>/``, moves them into place with
:func:`os.replace`, then publishes them by replacing the manifest (write, fsync, rename).
Readers read only the files the manifest lists, so until the manifest is replaced the
dataset is exactly what it was; files a crash left behind unlisted are deleted by the next
ingest.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

DATASET_VERSION = 1
"""Version of the table layout; stored in the manifest and in every file's metadata.

Additions keep the version: issue 6 added the ``matches`` table and the ``results`` columns
``match_id``, ``round`` and ``total_after``; a dataset written before reads as it is (the
missing columns read as null, the missing table as empty)."""

MANIFEST = "maumau-dataset.json"
"""The manifest's file name inside a dataset folder."""

FORMAT_NAME = "maumau-log-dataset"

TABLES: tuple[str, ...] = ("games", "results", "events", "violations")
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


@dataclass
class Manifest:
    """The published state of a dataset.

    Attributes:
        files: table name to the relative paths of its published files.
        ingests: one record per ingest that added data (id, time, counts, sources).
        file_info: relative path to ``{"bytes": size, "sha256": hex digest}`` of each
            published file (issue 15). A manifest written before records none: such files
            are checked for presence only, and ``verify`` says their checksums were not
            recorded.
    """

    files: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in ALL_TABLES})
    ingests: list[dict[str, Any]] = field(default_factory=list)
    file_info: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> str:
        """The manifest as JSON text (``file_info`` is a key older readers ignore)."""
        listed = {f for fs in self.files.values() for f in fs}
        return json.dumps(
            {
                "format": FORMAT_NAME,
                "version": DATASET_VERSION,
                "files": self.files,
                "file_info": {k: v for k, v in sorted(self.file_info.items()) if k in listed},
                "ingests": self.ingests,
            },
            indent=1,
        )


def _manifest_path(dataset: Path) -> Path:
    return dataset / MANIFEST


def read_manifest(dataset: str | os.PathLike[str]) -> Manifest:
    """Read a dataset's manifest.

    Args:
        dataset: the dataset folder.
    Returns:
        The :class:`Manifest`.
    Raises:
        DatasetError: the folder does not exist, is not a dataset (no manifest), or its
            manifest is unreadable or of a newer version.
    """
    root = Path(dataset)
    if not root.exists():
        raise DatasetError(f"{root}: no such dataset (the folder does not exist)")
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset (not a folder)")
    path = _manifest_path(root)
    if not path.exists():
        raise DatasetError(f"{root}: not a maumau-log dataset (no {MANIFEST}; run ingest first)")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path}: unreadable manifest: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise DatasetError(f"{path}: not a maumau-log dataset manifest")
    version = data.get("version")
    if not isinstance(version, int) or version > DATASET_VERSION:
        raise DatasetError(
            f"{path}: dataset version {version!r}; this maumau-log reads version "
            f"{DATASET_VERSION} (upgrade maumau-log)"
        )
    files = data.get("files") or {}
    info = data.get("file_info") or {}
    return Manifest(
        files={t: [str(f) for f in files.get(t, [])] for t in ALL_TABLES},
        ingests=list(data.get("ingests") or []),
        file_info={
            str(k): dict(v)
            for k, v in (info.items() if isinstance(info, dict) else [])
            if isinstance(v, dict)
        },
    )


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex (what ``sha256sum`` prints).

    Raises:
        OSError: the file cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_files(
    dataset: str | os.PathLike[str],
    manifest: Manifest | None = None,
    tables: tuple[str, ...] = ALL_TABLES,
) -> Manifest:
    """The cheap check every read makes: each file the manifest lists for ``tables`` exists
    and has the size the manifest recorded (one ``stat`` per file; checksums are for
    :func:`maumau_log.verify.verify`).

    Args:
        dataset: the dataset folder.
        manifest: its manifest, or None to read it.
        tables: the tables about to be read.
    Returns:
        The manifest.
    Raises:
        DatasetError: a listed file is missing, unreadable or of another size; the message
            names the file and says to run ``maumau-log verify``.
    """
    root = Path(dataset)
    if manifest is None:
        manifest = read_manifest(root)
    for table in tables:
        for rel in manifest.files.get(table, []):
            path = root / rel
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                raise DatasetError(
                    f"{path}: missing: the manifest lists this file of table {table!r} but it "
                    f"is gone; the dataset is damaged (maumau-log verify {root} checks it all)"
                ) from None
            except OSError as exc:
                raise DatasetError(f"{path}: cannot read: {exc.strerror or exc}") from exc
            want = manifest.file_info.get(rel, {}).get("bytes")
            if isinstance(want, int) and size != want:
                raise DatasetError(
                    f"{path}: changed: {size:,} bytes, the manifest recorded {want:,}; the "
                    f"dataset is damaged (maumau-log verify {root} checks it all)"
                )
    return manifest


def _write_manifest(root: Path, manifest: Manifest) -> None:
    """Replace the manifest atomically (write a temporary file, fsync, rename)."""
    tmp = root / f".{MANIFEST}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(manifest.to_json())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, _manifest_path(root))
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    _fsync_dir(root)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ---------------------------------------------------------------------------------------
# Reading


def scan(dataset: str | os.PathLike[str], table: str) -> pl.LazyFrame:
    """Scan one table of a dataset lazily (only the files the manifest lists).

    Args:
        dataset: the dataset folder.
        table: one of :data:`ALL_TABLES`.
    Returns:
        A LazyFrame with the table's columns plus the partition columns ``ruleset`` and
        ``date`` (strings). Filters on them prune files; column selection is pushed into
        the scan.
    Raises:
        DatasetError: see :func:`read_manifest` and :func:`check_files` (a listed file of
            any table missing or of another size); also an unknown table name.
    """
    if table not in ALL_TABLES:
        raise DatasetError(f"unknown table {table!r}; the tables are: {', '.join(ALL_TABLES)}")
    root = Path(dataset)
    manifest = check_files(root)  # every file: a damaged dataset is noticed by every read
    return _scan_files(root, table, manifest.files[table])


def _scan_files(root: Path, table: str, files: list[str]) -> pl.LazyFrame:
    return scan_paths(table, [root / f for f in files])


def polars_schema(table: str) -> pl.Schema:
    """A table's columns as a Polars schema (without the partition columns)."""
    empty = pl.from_arrow(SCHEMAS[table].empty_table())
    assert isinstance(empty, pl.DataFrame)
    return empty.schema


def scan_paths(
    table: str, paths: list[Path], include_file_paths: str | None = None
) -> pl.LazyFrame:
    """Scan Parquet files of one table, laid out in partition folders.

    Columns a file lacks (written by an older version) read as null, so every file of a
    table scans with the current schema.

    Args:
        table: one of :data:`ALL_TABLES`.
        paths: the files (``.../ruleset=R/date=D/part-....parquet``).
        include_file_paths: add a column of this name holding each row's file path.
    Returns:
        A LazyFrame with the table's columns, then ``ruleset`` and ``date``.
    """
    if not paths:
        empty = pl.from_arrow(SCHEMAS[table].empty_table())
        assert isinstance(empty, pl.DataFrame)
        extra = [pl.lit(None, pl.String).alias("ruleset"), pl.lit(None, pl.String).alias("date")]
        if include_file_paths is not None:
            extra.append(pl.lit(None, pl.String).alias(include_file_paths))
        return empty.lazy().with_columns(extra)
    return pl.scan_parquet(
        [str(p) for p in paths],
        schema=polars_schema(table),
        missing_columns="insert",
        hive_partitioning=True,
        hive_schema={"ruleset": pl.String, "date": pl.String},
        try_parse_hive_dates=False,
        include_file_paths=include_file_paths,
    )


def scan_all(dataset: str | os.PathLike[str]) -> dict[str, pl.LazyFrame]:
    """Scan every table of a dataset (see :func:`scan`); table name to LazyFrame.

    Raises:
        DatasetError: see :func:`read_manifest`.
    """
    root = Path(dataset)
    manifest = check_files(root)
    return {t: _scan_files(root, t, manifest.files[t]) for t in ALL_TABLES}


def known_games(dataset: str | os.PathLike[str]) -> dict[str, tuple[int, str, int]]:
    """The games already stored: game_id to (content hash, source file, source line).

    Returns:
        An empty dict for a folder that is not a dataset yet.
    Raises:
        DatasetError: the manifest exists but is unusable.
    """
    root = Path(dataset)
    if not _manifest_path(root).exists():
        return {}
    manifest = check_files(root, tables=("games",))
    out: dict[str, tuple[int, str, int]] = {}
    for f in manifest.files["games"]:
        t = pq.read_table(
            root / f, columns=["game_id", "content_hash", "source_file", "source_line"]
        )
        ids = t.column("game_id").to_pylist()
        hashes = t.column("content_hash").to_pylist()
        files = t.column("source_file").to_pylist()
        lines = t.column("source_line").to_pylist()
        for gid, h, sf, sl in zip(ids, hashes, files, lines, strict=True):
            out[gid] = (h, sf, sl)
    return out


# ---------------------------------------------------------------------------------------
# Writing


class DatasetWriter:
    """Writes one ingest's files and publishes them atomically.

    Use as a context manager: the dataset folder is created if needed and locked
    (``flock`` on ``.lock``, so a second ingest into the same dataset fails at once);
    :meth:`write` adds tables for a partition; :meth:`commit` publishes everything. Leaving
    the block without :meth:`commit` (an exception, Ctrl-C) deletes what was written and
    leaves the dataset as it was.

    Args:
        dataset: the dataset folder (created when missing; must be empty or a dataset).
    Raises:
        DatasetError: the folder is a non-empty non-dataset folder, cannot be created, or
            another ingest holds the lock.
    """

    def __init__(self, dataset: str | os.PathLike[str]) -> None:
        self.root = Path(dataset)
        self.id = uuid.uuid4().hex[:16]
        self.tmp = self.root / f".tmp-{self.id}"
        self._writers: dict[tuple[str, str, str], pq.ParquetWriter] = {}
        self._written: dict[str, str] = {}  # relative path of a file in tmp -> its table
        self._removed: set[str] = set()  # published files this ingest replaces
        self._closed = False
        self._lock_fd: int | None = None
        self.manifest = Manifest()
        self.rows: dict[str, int] = dict.fromkeys(ALL_TABLES, 0)
        self._created = False
        self._committed = False

    def __enter__(self) -> DatasetWriter:
        root = self.root
        if root.exists() and not root.is_dir():
            raise DatasetError(f"{root}: exists and is not a folder")
        if root.is_dir() and not _manifest_path(root).exists() and _foreign_files(root):
            raise DatasetError(
                f"{root}: not a maumau-log dataset and not empty; "
                "give a new or empty folder, or an existing dataset"
            )
        try:
            self._created = not root.exists()
            root.mkdir(parents=True, exist_ok=True)
            fd = os.open(root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise DatasetError(f"{root}: cannot create the dataset: {exc.strerror}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = ""
            with contextlib.suppress(OSError, ValueError):
                pid = int(os.pread(fd, 32, 0).decode().strip() or "x")
                holder = f" (process {pid})"
            os.close(fd)
            self._created = False
            raise DatasetError(
                f"{root}: another ingest{holder} holds the lock on this dataset "
                f"({root / '.lock'}); wait for it to finish, then run this ingest again"
            ) from exc
        self._lock_fd = fd
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            if _manifest_path(root).exists():
                self.manifest = check_files(root)
            self._clean_leftovers()
            self.tmp.mkdir()
        except OSError as exc:
            self._unlock()
            raise write_error(root, exc, str(self.tmp)) from exc
        except BaseException:
            self._unlock()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.abort()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def _clean_leftovers(self) -> None:
        """Delete what an interrupted ingest left: temp folders and unlisted files."""
        listed = {f for files in self.manifest.files.values() for f in files}
        for p in self.root.iterdir():
            if p.name.startswith(".tmp-") and p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            elif p.name.startswith(f".{MANIFEST}.") and p.name.endswith(".tmp"):
                p.unlink(missing_ok=True)
        for table in ALL_TABLES:
            base = self.root / table
            if not base.is_dir():
                continue
            for f in base.rglob("*.parquet"):
                if f.relative_to(self.root).as_posix() not in listed:
                    f.unlink(missing_ok=True)

    def write(self, ruleset: str, date: str, tables: Mapping[str, pa.Table]) -> None:
        """Append tables (one row group each) to this ingest's files for a partition.

        Args:
            ruleset: partition value (use :func:`partition_value`).
            date: partition value.
            tables: table name to a pyarrow Table with that table's schema (empty tables
                are skipped).
        Raises:
            RuntimeError: after :meth:`close_files`, for a file already closed.
        """
        for name, table in tables.items():
            if table.num_rows == 0:
                continue
            key = (name, ruleset, date)
            writer = self._writers.get(key)
            if writer is None:
                rel = f"{partition_dir(name, ruleset, date)}/part-{self.id}.parquet"
                if rel in self._written:
                    raise RuntimeError(f"{rel} is closed; write before close_files()")
                path = self.tmp / rel
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    writer = pq.ParquetWriter(path, SCHEMAS[name], **_writer_options(name))
                except OSError as exc:
                    raise write_error(self.root, exc, str(self.root / rel)) from exc
                self._writers[key] = writer
                self._written[rel] = name
            try:
                writer.write_table(table.replace_schema_metadata(SCHEMAS[name].metadata))
            except OSError as exc:
                rel = f"{partition_dir(*key)}/part-{self.id}.parquet"
                raise write_error(self.root, exc, str(self.root / rel)) from exc
            self.rows[name] += table.num_rows

    def close_files(self) -> None:
        """Finish the files written so far, so that :meth:`files` can read them.

        Raises:
            DatasetError: a file cannot be finished (a full disk, a file-size limit).
        """
        writers, self._writers = self._writers, {}
        for (name, ruleset, date), w in writers.items():
            try:
                w.close()
            except OSError as exc:
                rel = f"{partition_dir(name, ruleset, date)}/part-{self.id}.parquet"
                raise write_error(self.root, exc, str(self.root / rel)) from exc

    def files(self, table: str) -> list[tuple[str, Path]]:
        """The files of ``table`` as they will be after :meth:`commit`: (relative path,
        where to read it now), the published ones first, then this ingest's (closed) ones.
        """
        out = [
            (rel, self.root / rel)
            for rel in self.manifest.files.get(table, [])
            if rel not in self._removed
        ]
        out += [(rel, self.tmp / rel) for rel, name in self._written.items() if name == table]
        return out

    def replace(self, table: str, rel: str, new: pa.Table | None) -> None:
        """Replace one file of ``table`` (published, or this ingest's) by ``new``.

        A published file is kept until :meth:`commit` publishes the replacement (written
        beside this ingest's other files under a new name) and is deleted after; an
        interrupted ingest leaves the dataset as it was.

        Args:
            table: the table.
            rel: the file's relative path (from :meth:`files`).
            new: the whole new content (same schema), or None (or no rows) to drop the file.
        """
        self.close_files()
        if rel in self._written:
            path = self.tmp / rel
            path.unlink(missing_ok=True)
            del self._written[rel]
            target = rel
        else:
            self._removed.add(rel)
            folder = rel.rsplit("/", 1)[0]
            k = sum(1 for r in self._written if r.startswith(f"{folder}/part-{self.id}-r"))
            target = f"{folder}/part-{self.id}-r{k}.parquet"
        if new is None or new.num_rows == 0:
            return
        path = self.tmp / target
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(
                new.cast(SCHEMAS[table]).replace_schema_metadata(SCHEMAS[table].metadata),
                path,
                **_writer_options(table),
            )
        except OSError as exc:
            raise write_error(self.root, exc, str(self.root / target)) from exc
        self._written[target] = table

    def new_file(self, table: str, ruleset: str, date: str) -> tuple[str, Path]:
        """Register one more file of ``table`` in a partition, for the caller to write
        (e.g. with ``pq.ParquetWriter(path, SCHEMAS[table], **writer_options(table))``);
        :meth:`commit` publishes it with the others (``compact`` writes so).

        Returns:
            (relative path, where to write it now).
        """
        folder = partition_dir(table, ruleset, date)
        k = sum(1 for r in self._written if r.startswith(f"{folder}/part-{self.id}-c"))
        rel = f"{folder}/part-{self.id}-c{k}.parquet"
        path = self.tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        self._written[rel] = table
        return rel, path

    def commit(self, record: Mapping[str, Any] | None = None) -> list[str]:
        """Close the files, move them into place and publish them in the manifest.

        Files that :meth:`replace` replaced leave the manifest and are deleted after it is
        published (a crash in between leaves them unlisted: the next ingest deletes them).
        Every published file's size and SHA-256 go into the manifest's ``file_info``.

        Args:
            record: facts about this ingest kept in the manifest's ``ingests`` list.
        Returns:
            The relative paths published (empty when nothing was written).
        Raises:
            DatasetError: a file cannot be written or moved (a full disk, a file-size limit,
                no permission); nothing is published.
        """
        try:
            return self._commit(record)
        except OSError as exc:
            raise write_error(self.root, exc) from exc

    def _commit(self, record: Mapping[str, Any] | None) -> list[str]:
        self.close_files()
        published: list[str] = []
        moves = [(self.tmp / r, self.root / r, r, name) for r, name in self._written.items()]
        if moves or self._removed:
            info = {k: v for k, v in self.manifest.file_info.items() if k not in self._removed}
            for src, _dst, rel, _name in moves:
                with open(src, "rb") as fh:
                    os.fsync(fh.fileno())
                info[rel] = {"bytes": src.stat().st_size, "sha256": file_sha256(src)}
            for src, dst, rel, _name in moves:
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(src, dst)
                published.append(rel)
            new = Manifest(
                files={
                    t: [f for f in fs if f not in self._removed]
                    for t, fs in self.manifest.files.items()
                },
                ingests=list(self.manifest.ingests),
                file_info=info,
            )
            for _, _, rel, name in moves:
                new.files[name].append(rel)
            new.ingests.append({"id": self.id, **(record or {})})
            _write_manifest(self.root, new)
            self.manifest = new
            for rel in self._removed:
                (self.root / rel).unlink(missing_ok=True)
        elif not _manifest_path(self.root).exists():
            _write_manifest(self.root, self.manifest)  # a new, empty dataset
        self._written = {}
        self._removed = set()
        self._committed = True
        self.abort()
        return published

    def abort(self) -> None:
        """Drop everything not committed and release the lock (safe to call twice)."""
        for w in self._writers.values():
            with contextlib.suppress(Exception):
                w.close()
        self._writers = {}
        if self.tmp.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)
        if self._created and not self._committed and self._lock_fd is not None:
            shutil.rmtree(self.root, ignore_errors=True)  # it did not exist before
        self._unlock()


def _foreign_files(root: Path) -> bool:
    """True when a folder without a manifest holds anything but what an ingest into it
    leaves while it runs (``.lock``, ``.tmp-*``): then it is not ours to fill."""
    return any(
        p.name != ".lock" and not p.name.startswith((".tmp-", f".{MANIFEST}."))
        for p in root.iterdir()
    )


def unreadable_file(dataset: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The first published file whose Parquet footer cannot be read, as ``(path, why)``.

    Reads only each file's footer (cheap; ``verify`` checks the checksums). Used to name
    the damaged file when a query over the dataset fails (issue 15, item 2).

    Args:
        dataset: the dataset's folder.
    Returns:
        ``(absolute path as text, the reader's first line)`` or None when every footer
        reads (or the manifest itself cannot be read).
    """
    try:
        files = list(iter_files(dataset))
    except (DatasetError, OSError):
        return None
    for _table, path in files:
        try:
            pq.read_metadata(path)
        except (OSError, pa.ArrowException) as exc:
            why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return str(path), why
    return None


def iter_files(dataset: str | os.PathLike[str]) -> Iterator[tuple[str, Path]]:
    """Yield (table, absolute path) for every published file of a dataset.

    Raises:
        DatasetError: see :func:`read_manifest`.
    """
    root = Path(dataset)
    manifest = read_manifest(root)
    for table, files in manifest.files.items():
        for f in files:
            yield table, root / f
