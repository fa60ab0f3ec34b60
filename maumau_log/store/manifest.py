"""The dataset's manifest and its reads: published files, checksums, lazy scans.

Split out of :mod:`maumau_log.store` (which re-exports every name here). Imports neither
Polars nor pyarrow: the scans load Polars, :func:`known_games` and :func:`unreadable_file`
pyarrow, when called, so ``stats`` and ``query`` start without pyarrow's and NumPy's
import time and an ingest without Polars' (about 0.2 CPU s).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .integrity import check_file_info, check_sums, file_sha256
from .layout import (
    ALL_TABLES,
    DATASET_VERSION,
    FORMAT_NAME,
    MANIFEST,
    DatasetError,
    DateWindow,
    polars_schema,
)

if TYPE_CHECKING:
    import polars as pl
from .paths import check_file_map, check_listed, check_tables, read_manifest_text

__all__ = ["file_sha256"]  # re-exported: the store's checksum of a file


@dataclass
class Manifest:
    """The published state of a dataset.

    Attributes:
        files: table name to the relative paths of its published files.
        ingests: one record per ingest that added data (id, time, counts, sources).
        file_info: relative path to ``{"bytes": size, "sha256": hex digest}`` of each
            published file. A manifest written before records none: such files
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
            manifest is unreadable, of a newer version, a symbolic link, or lists a file
            that is not a plain path inside the dataset
            (:func:`~maumau_log.store.paths.check_entry`); a damaged manifest: ``files``
            not a list per table of its version or a file listed twice
            (:func:`~maumau_log.store.paths.check_file_map`), a version-2 file without its
            size and SHA-256 (:func:`~maumau_log.store.integrity.check_file_info`).
    """
    root = Path(dataset)
    if not root.exists():
        raise DatasetError(f"{root}: no such dataset (the folder does not exist)")
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset (not a folder)")
    path = _manifest_path(root)
    try:
        text = read_manifest_text(root)
    except FileNotFoundError:
        raise DatasetError(
            f"{root}: not a maumau-log dataset (no {MANIFEST}; run ingest first)"
        ) from None
    except OSError as exc:
        raise DatasetError(f"{path}: unreadable manifest: {exc.strerror or exc}") from exc
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{path}: unreadable manifest: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
        raise DatasetError(f"{path}: not a maumau-log dataset manifest")
    version = data.get("version")
    if not isinstance(version, int) or version > DATASET_VERSION:
        raise DatasetError(
            f"{path}: dataset version {version!r}; this maumau-log reads version "
            f"{DATASET_VERSION} (upgrade maumau-log)"
        )
    listed = check_file_map(path, version, data.get("files"))
    info = data.get("file_info") or {}
    file_info = {
        str(k): dict(v)
        for k, v in (info.items() if isinstance(info, dict) else [])
        if isinstance(v, dict)
    }
    if version >= 2:
        check_file_info(path, listed, file_info)
    return Manifest(
        files=listed,
        ingests=list(data.get("ingests") or []),
        file_info=file_info,
    )


def check_files(
    dataset: str | os.PathLike[str],
    manifest: Manifest | None = None,
    tables: tuple[str, ...] = ALL_TABLES,
) -> Manifest:
    """The cheap check every read makes: each file the manifest lists for ``tables`` exists
    and has the size the manifest recorded (one ``stat`` per file; checksums are for
    :func:`maumau_log.store.verify.verify`).

    Args:
        dataset: the dataset folder.
        manifest: its manifest, or None to read it.
        tables: the tables about to be read.
    Returns:
        The manifest.
    Raises:
        DatasetError: a listed file is missing, unreadable or of another size; the message
            names the file and says to run ``maumau-log verify``. Also a table folder, a
            partition folder or a listed file that is a symbolic link
            (:mod:`maumau_log.store.paths`).
    """
    root = Path(dataset)
    if manifest is None:
        manifest = read_manifest(root)
    check_tables(root)
    checked: set[str] = set()
    for table in tables:
        for rel in manifest.files.get(table, []):
            path = root / rel
            try:
                st = check_listed(root, rel, checked)
            except OSError as exc:
                raise DatasetError(f"{path}: cannot read: {exc.strerror or exc}") from exc
            if st is None:
                raise DatasetError(
                    f"{path}: missing: the manifest lists this file of table {table!r} but it "
                    f"is gone; the dataset is damaged (maumau-log verify {root} checks it all)"
                )
            size = st.st_size
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
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        with os.fdopen(os.open(tmp, flags, 0o644), "w", encoding="utf-8") as fh:
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
        the scan. The table's files have been checked against their recorded SHA-256
        first (:func:`~maumau_log.store.integrity.check_sums`: a query of one table reads
        it all, so the check is made now, before any Polars engine opens a file).
    Raises:
        DatasetError: see :func:`read_manifest` and :func:`check_files` (a listed file of
            any table missing or of another size); a file of the table whose SHA-256
            differs; an unknown table name.
    """
    if table not in ALL_TABLES:
        raise DatasetError(f"unknown table {table!r}; the tables are: {', '.join(ALL_TABLES)}")
    root = Path(dataset)
    manifest = check_files(root)  # every file: a damaged dataset is noticed by every read
    check_sums(root, manifest.file_info, manifest.files[table])
    return _scan_files(root, table, manifest.files[table])


def _scan_files(root: Path, table: str, files: list[str]) -> pl.LazyFrame:
    return scan_paths(table, [root / f for f in files])


def checked_scan(
    root: Path, table: str, manifest: Manifest, part: tuple[str, str] | None = None
) -> pl.LazyFrame:
    """A table's scan that checks the table's files before Polars reads them.

    Polars does not verify Parquet page checksums, so the scan is preceded by a gate: an
    empty source (a Polars IO plugin) that, when the query reaches this table, hashes
    every file of the table and compares it with the manifest
    (:func:`~maumau_log.store.integrity.check_sums`), then yields no rows. The two are
    concatenated (in order; the in-memory engine runs them one after the other, so the
    files are read only after the check); projections and filters still reach the
    Parquet scan. No answer comes without the gate: a failed check fails the query. A
    query that does not read the table does not hash it.

    Args:
        root: the dataset folder.
        table: the table.
        manifest: the dataset's manifest (checked by :func:`check_files`).
        part: only the files of this ``(ruleset, date)`` partition (checked and read),
            e.g. the rows of one game: its partition is known from its ``games`` row.
    Returns:
        The table as :func:`scan_paths` gives it.
    Raises:
        DatasetError: when collected, a file of the table whose SHA-256 differs (the
            exception itself, from ``collect``).
    """
    import polars as pl

    files = manifest.files[table]
    if part is not None:
        folder = f"{table}/ruleset={part[0]}/date={part[1]}/"
        files = [f for f in files if f.startswith(folder)]
    native = _scan_files(root, table, files)
    if not any("sha256" in manifest.file_info.get(f, {}) for f in files):
        return native  # nothing recorded to compare with (an older dataset, or no files)
    from polars.io.plugins import register_io_source

    schema = pl.Schema(
        [*polars_schema(table).items(), ("ruleset", pl.String()), ("date", pl.String())]
    )
    info = manifest.file_info

    def gate(
        columns: list[str] | None, predicate: Any, n_rows: int | None, batch: int | None
    ) -> Iterator[pl.DataFrame]:
        check_sums(root, info, files)
        names = list(schema) if columns is None else columns
        yield pl.DataFrame(schema={n: schema[n] for n in names})

    return pl.concat([register_io_source(gate, schema=schema), native], parallel=False)


def scan_paths(
    table: str, paths: list[Path], include_file_paths: str | None = None
) -> pl.LazyFrame:
    """Scan Parquet files of one table, laid out in partition folders.

    Columns a file lacks (written by an older version) read as null, and integer columns
    an older version wrote narrower read widened, so every file of a table scans with the
    current schema.

    Args:
        table: one of :data:`ALL_TABLES`.
        paths: the files (``.../ruleset=R/date=D/part-....parquet``).
        include_file_paths: add a column of this name holding each row's file path.
    Returns:
        A LazyFrame with the table's columns, then ``ruleset`` and ``date``.
    """
    import polars as pl

    if not paths:
        empty = pl.DataFrame(schema=polars_schema(table))
        extra = [pl.lit(None, pl.String).alias("ruleset"), pl.lit(None, pl.String).alias("date")]
        if include_file_paths is not None:
            extra.append(pl.lit(None, pl.String).alias(include_file_paths))
        return empty.lazy().with_columns(extra)
    return pl.scan_parquet(
        [str(p) for p in paths],
        schema=polars_schema(table),
        missing_columns="insert",
        cast_options=pl.ScanCastOptions(integer_cast="upcast"),
        hive_partitioning=True,
        hive_schema={"ruleset": pl.String, "date": pl.String},
        try_parse_hive_dates=False,
        include_file_paths=include_file_paths,
    )


def scan_all(
    dataset: str | os.PathLike[str], window: DateWindow | None = None
) -> dict[str, pl.LazyFrame]:
    """Scan every table of a dataset (see :func:`scan`); table name to LazyFrame. With a
    ``window`` (:class:`~maumau_log.store.layout.DateWindow`), only the files of the
    partitions dated inside it are scanned (and checked).

    Each table is checked against its recorded SHA-256 when a query first reads it
    (:func:`checked_scan`), so a query of ``games`` does not hash ``events``.

    Raises:
        DatasetError: see :func:`read_manifest` and :func:`check_files`; when a frame is
            collected, a file of its table whose SHA-256 differs.
    """
    root = Path(dataset)
    manifest = check_files(root)
    if window is not None and window.bounded:
        manifest = replace(manifest, files=window.files(manifest.files))
    return {t: checked_scan(root, t, manifest) for t in ALL_TABLES}


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
    import pyarrow.parquet as pq  # not with this module: reads with Polars alone skip pyarrow

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


def _foreign_files(root: Path) -> bool:
    """True when a folder without a manifest holds anything but what an ingest into it
    leaves while it runs (``.lock``, ``.tmp-*``): then it is not ours to fill."""
    return any(
        p.name != ".lock" and not p.name.startswith((".tmp-", f".{MANIFEST}."))
        for p in root.iterdir()
    )


def unreadable_file(dataset: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The first published file that differs from its recorded SHA-256, else the first
    whose Parquet footer cannot be read, as ``(path, why)``.

    Used, after a query over the dataset failed, to name the damaged file: a
    reader may fail on a changed file before the checksum gate of its table has run
    (:func:`checked_scan`).

    Args:
        dataset: the dataset's folder.
    Returns:
        ``(absolute path as text, what is wrong)`` or None when every file is as recorded
        and every footer reads (or the manifest itself cannot be read).
    """
    try:
        root = Path(dataset)
        manifest = read_manifest(root)
        files = list(iter_files(dataset))
    except (DatasetError, OSError):
        return None
    for table in ALL_TABLES:
        try:
            check_sums(root, manifest.file_info, manifest.files[table])
        except DatasetError as exc:
            where, _, why = str(exc).partition(": ")
            return where, why.split("; the dataset")[0]
    import pyarrow as pa
    import pyarrow.parquet as pq

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
