"""Writing a dataset: one ingest's files, published atomically (:class:`DatasetWriter`).

Split out of :mod:`maumau_log.store` (which re-exports it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .integrity import check_sums, read_checked
from .manifest import (
    Manifest,
    _foreign_files,
    _manifest_path,
    _write_manifest,
    check_files,
    file_sha256,
)
from .paths import link_refused, open_lock, parquet_files, remove_file
from .schema import (
    ALL_TABLES,
    MANIFEST,
    SCHEMAS,
    DatasetError,
    _writer_options,
    partition_dir,
    write_error,
)

# ---------------------------------------------------------------------------------------
# Writing


def write_file(
    table: str, data: pa.Table, path: str | os.PathLike[str], atomic: bool = False
) -> None:
    """Write ``data`` as one Parquet file of dataset table ``table`` at ``path`` (its
    folder created): cast to the table's schema, with its metadata and writer options.
    The one Parquet write of a whole file, shared by :meth:`DatasetWriter.replace` and
    the workers' staged files (:func:`maumau_log.run.runners.stage_tables`).

    Args:
        table: the dataset table (a key of ``SCHEMAS``).
        data: its rows (columns of the table's schema).
        path: the file.
        atomic: write under a temporary name beside it and rename, so that a file found
            at ``path`` is whole (a process killed mid-write leaves only a ``.tmp`` file).
    Raises:
        OSError: the folder or the file cannot be written (a full disk, a size limit).
    """
    target = os.fspath(path)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    out = f"{target}.{os.getpid()}.tmp" if atomic else target
    schema = SCHEMAS[table]
    pq.write_table(data.cast(schema).replace_schema_metadata(schema.metadata), out,
                   **_writer_options(table))  # fmt: skip
    if atomic:
        os.replace(out, target)


def write_staged(table: str, data: pa.Table, path: str | os.PathLike[str]) -> tuple[int, str]:
    """Write one staged file as a worker does (:func:`maumau_log.run.runners.stage_tables`):
    as :func:`write_file` (the table's schema, metadata and writer options), the bytes
    made in memory, hashed there, written under a temporary name, flushed to disk
    (``fsync``) and renamed. The publishing process takes the file as it is
    (:meth:`DatasetWriter.adopt`): it never reads nor hashes it again.

    Args:
        table: the dataset table (a key of ``SCHEMAS``).
        data: its rows.
        path: the file (its folder is created).
    Returns:
        (its size in bytes, its SHA-256 as hex): the manifest's ``file_info`` of it.
    Raises:
        OSError: the folder or the file cannot be written (a full disk, a size limit).
    """
    import hashlib

    target = os.fspath(path)
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    schema = SCHEMAS[table]
    sink = pa.BufferOutputStream()
    pq.write_table(data.cast(schema).replace_schema_metadata(schema.metadata), sink,
                   **_writer_options(table))  # fmt: skip
    buf = sink.getvalue()
    digest = hashlib.sha256(buf).hexdigest()
    out = f"{target}.{os.getpid()}.tmp"
    try:
        with open(out, "wb") as fh:
            fh.write(buf)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(out, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(out)
        raise
    return buf.size, digest


def _leftovers(root: Path, manifest: Manifest) -> tuple[list[Path], list[str]]:
    """What an interrupted ingest left in a dataset: its staging folders and temporary
    manifests (``.tmp-*``, ``.<manifest>.*.tmp``) and the Parquet files under the table
    folders that the manifest does not list (moved into place by a commit that did not
    publish its manifest).

    Raises:
        DatasetError: a link among them (:func:`~maumau_log.store.paths.link_refused`), or
            under a table folder (:func:`~maumau_log.store.paths.parquet_files`).
    """
    listed = {f for files in manifest.files.values() for f in files}
    entries = []
    for p in root.iterdir():
        if p.name.startswith(".tmp-") or (
            p.name.startswith(f".{MANIFEST}.") and p.name.endswith(".tmp")
        ):
            if p.is_symlink():
                raise link_refused(p)
            entries.append(p)
    return sorted(entries), [rel for rel in parquet_files(root) if rel not in listed]


def _remove_leftovers(root: Path, entries: list[Path], unlisted: list[str]) -> None:
    for p in entries:
        if p.is_dir():  # rmtree does not follow links inside (avoids_symlink_attacks)
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    for rel in unlisted:
        remove_file(root, rel)


def remove_leftovers(dataset: str | os.PathLike[str]) -> list[str]:
    """Delete what interrupted ingests left in a dataset (``verify --repair``): the
    staging folders of runs killed before their commit (with the files their workers
    staged), temporary manifests, and Parquet files a commit killed before its manifest
    moved into place. Listed files are never touched; the next ingest deletes the same.

    Takes the dataset's lock first, so the staging folder of an ingest running now is
    never taken for a leftover.

    Args:
        dataset: the dataset folder.
    Returns:
        What was deleted, relative to the dataset (folders with a trailing ``/``), sorted.
    Raises:
        DatasetError: not a dataset (see :func:`~maumau_log.store.manifest.read_manifest`),
            a listed file missing or changed in size (:func:`check_files`), an ingest holds
            the lock, a link among the leftovers, or a leftover cannot be deleted.
    """
    from .manifest import read_manifest

    root = Path(dataset)
    manifest = read_manifest(root)
    try:
        fd = open_lock(root)
    except OSError as exc:
        raise DatasetError(f"{root}: cannot open the lock: {exc.strerror or exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise DatasetError(
                f"{root}: an ingest holds the lock on this dataset ({root / '.lock'}); "
                "its staging folder is no leftover: run this again when it has finished"
            ) from exc
        manifest = check_files(root, manifest)
        entries, unlisted = _leftovers(root, manifest)
        names = [f"{p.name}/" if p.is_dir() else p.name for p in entries]
        try:
            _remove_leftovers(root, entries, unlisted)
        except OSError as exc:
            raise DatasetError(f"{root}: cannot delete a leftover: {exc}") from exc
        return sorted(names + unlisted)
    finally:
        os.close(fd)  # closing releases the flock


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
        DatasetError: the folder is a non-empty non-dataset folder, cannot be created,
            another ingest holds the lock, or its path is not valid UTF-8.
    """

    def __init__(self, dataset: str | os.PathLike[str]) -> None:
        self.root = Path(dataset)
        self.id = uuid.uuid4().hex[:16]
        self.tmp = self.root / f".tmp-{self.id}"
        self._writers: dict[tuple[str, str, str], pq.ParquetWriter] = {}
        self._written: dict[str, str] = {}  # relative path of a file in tmp -> its table
        self._info: dict[str, dict[str, Any]] = {}  # adopted files' size and SHA-256
        self._removed: set[str] = set()  # published files this ingest replaces
        self._closed = False
        self._lock_fd: int | None = None
        self.manifest = Manifest()
        self.rows: dict[str, int] = dict.fromkeys(ALL_TABLES, 0)
        self._created = False
        self._committed = False

    def __enter__(self) -> DatasetWriter:
        root = self.root
        try:  # Arrow takes paths as UTF-8: a name of other bytes would fail every shard
            str(root.absolute()).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DatasetError(
                f"{root}: the dataset folder's path is not valid UTF-8 (the byte "
                f"0x{ord(str(root.absolute())[exc.start]) & 0xFF:02x}), which Parquet files "
                "cannot be written under; choose another folder name"
            ) from None
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
            fd = open_lock(root)
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
        """Delete what an interrupted ingest left: temp folders and unlisted files
        (:func:`remove_leftovers` without taking the lock again).

        Only inside the dataset: the walk opens every folder without following links and
        deletes only regular files (:mod:`maumau_log.store.paths`); a link met is refused
        (DatasetError) before anything is deleted.
        """
        _remove_leftovers(self.root, *_leftovers(self.root, self.manifest))

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

    def check(self, rels: list[str]) -> None:
        """Check the published files among ``rels`` against their recorded size and
        SHA-256 before this ingest reads them to rewrite others (this ingest's own files
        need no check).

        Raises:
            DatasetError: a file differs; the message names it.
        """
        published = [r for r in rels if r not in self._written]
        check_sums(self.root, self.manifest.file_info, published)

    def read(self, rel: str) -> pa.Table:
        """Read one file of :meth:`files` whole, to rewrite it: a published file's bytes are
        checked against the manifest first (:func:`~maumau_log.store.integrity.read_checked`),
        so a changed file is refused, never rewritten under a fresh checksum.

        Raises:
            DatasetError: a published file differs from its recorded size or SHA-256, or
                a page checksum fails.
        """
        if rel in self._written:
            return pq.read_table(self.tmp / rel, partitioning=None,
                                 page_checksum_verification=True)  # fmt: skip
        return read_checked(self.root, rel, self.manifest.file_info.get(rel, {}))

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
            self._info.pop(rel, None)  # a staged file rewritten here: hashed at the commit
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
            write_file(table, new, path)
        except OSError as exc:
            raise write_error(self.root, exc, str(self.root / target)) from exc
        self._written[target] = table

    def adopt(
        self, table: str, rel: str, rows: int, size: int | None = None, sha256: str | None = None
    ) -> None:
        """Take a file a worker wrote into this ingest's staging folder (:attr:`tmp`) as
        one of this ingest's files of ``table``; :meth:`commit` publishes it with the
        others (:func:`maumau_log.run.runners.stage_tables` writes them).

        With ``size`` and ``sha256`` (what :func:`write_staged` returned to the worker, who
        also flushed the file to disk), the commit records them as they are: this process
        never reads the file (one ``stat`` checks that it is there, of that size).
        Without them, the commit flushes and hashes the file itself.

        Args:
            table: the table.
            rel: the file's path relative to the staging folder (and, once published, to
                the dataset): ``<table>/ruleset=R/date=D/part-<id>-s<shard>.parquet``.
            rows: its rows (counted in :attr:`rows`).
            size: its size in bytes, as the worker wrote it, or None.
            sha256: its SHA-256 (hex), as the worker computed it, or None.
        Raises:
            DatasetError: the file is not in the staging folder, not of ``table``, or not of
                the size the worker reported.
        """
        path = self.tmp / rel
        if not rel.startswith(f"{table}/") or ".." in Path(rel).parts or not path.is_file():
            raise DatasetError(f"{path}: no staged file of table {table!r} to adopt")
        if size is not None and sha256 is not None:
            got = path.stat().st_size
            if got != size:
                raise DatasetError(
                    f"{path}: the staged file has {got:,} bytes, its worker wrote {size:,}"
                )
            self._info[rel] = {"bytes": size, "sha256": sha256}
        self._written[rel] = table
        self.rows[table] += rows

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
            for rel in {f for fs in self.manifest.files.values() for f in fs} - self._removed:
                if "sha256" not in info.get(rel, {}):  # a version-1 file: version 2 records all
                    kept = self.root / rel
                    info[rel] = {"bytes": kept.stat().st_size, "sha256": file_sha256(kept)}
            for src, _dst, rel, _name in moves:
                known = self._info.get(rel)
                if known is not None:  # staged, flushed and hashed by its worker
                    info[rel] = known
                    continue
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
                remove_file(self.root, rel)
        elif not _manifest_path(self.root).exists():
            _write_manifest(self.root, self.manifest)  # a new, empty dataset
        self._written = {}
        self._info = {}
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
