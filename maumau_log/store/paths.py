"""A dataset folder is untrusted input: its paths, checked before they are used.

A dataset may come from someone else (an archive, a shared drive), so nothing inside it is
taken on trust:

- every file the manifest lists must be ``<table>/ruleset=<R>/date=<D>/<name>.parquet``
  under the table it is listed for: a relative path of plain names (no ``..``, no
  absolute path), so it cannot name a file outside the dataset (:func:`check_entry`);
- nothing inside the dataset is followed through a symbolic link: the manifest, the
  ``.lock``, the table and partition folders and the data files must be the things
  themselves (:func:`check_listed`, :func:`check_tables`, :func:`open_lock`);
- what an ingest or ``compact`` deletes (files a crash left unlisted, files it replaced) is
  deleted by a walk that opens every folder without following links and unlinks only
  regular files, so a deletion never leaves the dataset (:func:`remove_file`,
  :func:`parquet_files`).

A link found is refused (:class:`~maumau_log.store.layout.DatasetError`, exit 2) with the
path and what to do, never followed and never removed: its target is not touched. The
dataset folder itself may be a link (the user named it).

Imports neither pyarrow nor Polars (every read calls these checks, ``stats`` too).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from .layout import ALL_TABLES, MANIFEST, DatasetError

FIRST_TABLES: tuple[str, ...] = ("games", "results", "events", "violations")
"""The tables every manifest lists, of every dataset version; a version-1 manifest may lack
the later ones (the audit facts, ``matches``), which then read as empty."""

_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,200}"
_VALUE = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"
ENTRY = re.compile(
    rf"(?P<table>[a-z_]+)/ruleset=(?P<ruleset>{_VALUE})/date=(?P<date>{_VALUE})"
    rf"/(?P<name>{_NAME}\.parquet)"
)
"""The shape of every file a manifest lists: the table, its two partition folders (values
as :func:`~maumau_log.store.schema.partition_value` makes them) and the file's name."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def link_refused(path: Path | str) -> DatasetError:
    """The error for a symbolic link found inside a dataset (exit 2)."""
    return DatasetError(
        f"{path}: a symbolic link inside the dataset; maumau-log does not follow links in a "
        "dataset (it is untrusted input) and has not touched its target: put the file or "
        "folder itself there, or remove the link"
    )


def check_entry(manifest: Path, table: str, rel: str) -> None:
    """Check one file the manifest lists: a plain relative path under its own table.

    Args:
        manifest: the manifest's path (named in the error).
        table: the table the entry is listed under.
        rel: the entry.
    Raises:
        DatasetError: the entry is absolute, has ``..``, ``.`` or empty components, or is
            not ``<table>/ruleset=R/date=D/NAME.parquet`` (the message quotes it).
    """
    m = ENTRY.fullmatch(rel)
    if m is None or m["table"] != table:
        shown = rel if len(rel) <= 300 else f"{rel[:300]}..."
        raise DatasetError(
            f"{manifest}: the entry {shown!r} of table {table!r} is not a file of this "
            f"dataset (each is {table}/ruleset=R/date=D/NAME.parquet, a relative path "
            "without '..'); the manifest was changed outside maumau-log: refusing the dataset"
        )


def damaged_manifest(manifest: Path, why: str) -> DatasetError:
    """The error for a manifest that does not describe a dataset maumau-log wrote (exit 2).

    Nothing is read by its list and nothing is deleted by it: a clean-up trusting a
    manifest that lists no files would delete every stored file as a leftover.
    """
    return DatasetError(
        f"{manifest}: damaged manifest: {why}; the manifest was changed outside maumau-log: "
        "refusing the dataset (nothing was read or deleted)"
    )


def check_file_map(manifest: Path, version: int, files: object) -> dict[str, list[str]]:
    """Check the manifest's ``files``: a table map listing each table's files once.

    Every manifest maumau-log writes lists every table of its version, an empty list for a
    table without files (a dataset of zero games too). Version 1 may lack the tables added
    later (the audit facts, ``matches``); those read as empty.

    Args:
        manifest: the manifest's path (named in the error).
        version: its dataset version (already checked to be one this maumau-log reads).
        files: the ``files`` value as parsed from the JSON.
    Returns:
        Table name to its files, for every table of :data:`ALL_TABLES`.
    Raises:
        DatasetError: ``files`` is not an object; a table of the version is missing or not
            a list of strings; an entry is not a plain path of its table
            (:func:`check_entry`); a file is listed twice.
    """
    if not isinstance(files, dict):
        raise damaged_manifest(
            manifest,
            f"'files' is {type(files).__name__ if files is not None else 'null'}, "
            "not an object of the tables' file lists",
        )
    required = ALL_TABLES if version >= 2 else FIRST_TABLES
    listed: dict[str, list[str]] = {}
    seen: set[str] = set()
    for table in ALL_TABLES:
        rels = files.get(table)
        if rels is None and table not in required:
            rels = []
        if not isinstance(rels, list) or not all(isinstance(r, str) for r in rels):
            what = "missing" if table not in files else "not a list of file paths"
            raise damaged_manifest(
                manifest,
                f"'files' of table {table!r} is {what} (version {version} lists "
                "every table, an empty list for none)",
            )
        for rel in rels:
            check_entry(manifest, table, rel)
            key = os.path.normpath(rel)
            if key in seen:
                raise damaged_manifest(manifest, f"the file {rel!r} is listed twice")
            seen.add(key)
        listed[table] = list(rels)
    return listed


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None


def _real_dir(path: Path) -> bool:
    """True for a real folder, False when missing; a link or a non-folder is refused."""
    st = _lstat(path)
    if st is None:
        return False
    if stat.S_ISLNK(st.st_mode):
        raise link_refused(path)
    if not stat.S_ISDIR(st.st_mode):
        raise DatasetError(f"{path}: not a folder (a dataset's tables and partitions are)")
    return True


def check_tables(root: Path) -> None:
    """Refuse a dataset whose table folders (``games``, ``results``, ...) are links.

    Raises:
        DatasetError: a table folder is a symbolic link or not a folder.
    """
    for table in ALL_TABLES:
        _real_dir(root / table)


def check_listed(root: Path, rel: str, checked: set[str]) -> os.stat_result | None:
    """Check that a listed file and its folders are not links; its ``lstat`` result.

    Args:
        root: the dataset folder.
        rel: the entry (already checked by :func:`check_entry`).
        checked: folders (relative) already found real, shared between calls.
    Returns:
        The file's ``lstat`` result, or None when it (or a folder on its way) is missing.
    Raises:
        DatasetError: a folder on the way or the file is a link, or the file is not a
            regular file.
    """
    parts = rel.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if folder not in checked:
            if not _real_dir(root / folder):
                return None
            checked.add(folder)
    path = root / rel
    st = _lstat(path)
    if st is None:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise link_refused(path)
    if not stat.S_ISREG(st.st_mode):
        raise DatasetError(f"{path}: not a regular file (the manifest lists a Parquet file)")
    return st


def read_manifest_text(root: Path) -> str:
    """The manifest's text, read without following a link.

    Raises:
        FileNotFoundError: there is none.
        DatasetError: it is a symbolic link.
        OSError: it cannot be read.
    """
    path = root / MANIFEST
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_refused(path) from None
        raise
    with os.fdopen(fd, "rb") as fh:
        return fh.read().decode("utf-8")


def open_lock(root: Path) -> int:
    """Open (create) the dataset's ``.lock`` without following a link.

    Returns:
        The open descriptor (read-write).
    Raises:
        DatasetError: ``.lock`` is a symbolic link, or not a regular file of this dataset
            alone (a hard link to another file, a device): its target is not touched.
        OSError: it cannot be created or opened.
    """
    path = root / ".lock"
    try:
        fd = os.open(
            path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644
        )
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_refused(path) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise DatasetError(
            f"{path}: not a plain file of this dataset ("
            + ("a hard link to another file" if stat.S_ISREG(st.st_mode) else "not a file")
            + "); maumau-log writes its process id there and has not touched it: remove it"
        )
    return fd


def _open_dir(name: str, dir_fd: int | None, path: Path) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            st = _lstat(path)
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise link_refused(path) from None
            raise DatasetError(
                f"{path}: not a folder (a dataset's tables and partitions are)"
            ) from None
        raise


def parquet_files(root: Path) -> Iterator[str]:
    """Every ``.parquet`` file under the table folders, as a relative path, found by a
    walk that opens each folder without following links.

    Yields:
        ``<table>/.../<name>.parquet`` of every regular file so named.
    Raises:
        DatasetError: a symbolic link (to a folder or a file) or a folder that cannot be
            opened under a table folder.
    """
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for table in ALL_TABLES:
            try:
                fd = _open_dir(table, top, root / table)
            except FileNotFoundError:
                continue
            yield from _walk(fd, root / table, table)
    finally:
        os.close(top)


def _walk(fd: int, path: Path, rel: str) -> Iterator[str]:
    """The ``.parquet`` files under the open folder ``fd`` (closed on return)."""
    try:
        with os.scandir(fd) as entries:
            found = list(entries)
        for entry in found:
            where = path / entry.name
            if entry.is_symlink():
                raise link_refused(where)
            if entry.is_dir(follow_symlinks=False):
                sub = _open_dir(entry.name, fd, where)
                yield from _walk(sub, where, f"{rel}/{entry.name}")
            elif entry.name.endswith(".parquet") and entry.is_file(follow_symlinks=False):
                yield f"{rel}/{entry.name}"
    finally:
        os.close(fd)


def remove_file(root: Path, rel: str) -> None:
    """Delete one regular file of the dataset, ``rel`` relative to ``root``, opening each
    folder on the way without following links (a missing file is no error).

    Raises:
        DatasetError: a folder on the way or the file is a link, or not what it should be.
        OSError: the file cannot be deleted.
    """
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise DatasetError(f"{root / rel}: not a path inside the dataset")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        path = root
        for name in parts[:-1]:
            path = path / name
            try:
                sub = _open_dir(name, fd, path)
            except FileNotFoundError:
                return
            os.close(fd)
            fd = sub
        try:
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(st.st_mode):
            raise link_refused(path / parts[-1])
        if not stat.S_ISREG(st.st_mode):
            raise DatasetError(f"{path / parts[-1]}: not a regular file; not deleted")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(parts[-1], dir_fd=fd)
    finally:
        os.close(fd)
