"""Checksums on every read: a changed bit in a data file is an error, not an answer.

The manifest records each file's size and SHA-256 when it is published
(:meth:`maumau_log.store.DatasetWriter.commit`). Three kinds of read check them:

- Answers (``stats``, ``query``, ``game``, ``match``, ``audit``...) read with Polars, which
  does not check Parquet page checksums. Each table a query reads is gated
  (:func:`maumau_log.store.manifest.scan`): before Polars opens its files, every file of
  that table is hashed and compared with the manifest (:func:`check_sums`), so a query
  that touches only ``results`` hashes only ``results``. Measured on 200,000 games
  (``bench/bench_ingest.py``): ``results`` 6 MB, about 6 ms on a 60 ms ``stats``;
  ``events`` 140 MB, about 0.23 s (SHA-256 runs at about 600 MB/s a core).
- Rewrites (``compact``, an ingest that replaces files when match totals change) read a
  file's bytes once, check their size and SHA-256, and parse those very bytes
  (:func:`read_checked`), so a changed file is refused, never rewritten with a fresh
  checksum.
- ``verify`` checks every file and the tables against each other
  (:mod:`maumau_log.store.verify`).

Files are written with Parquet page checksums (CRC-32 of every page) and the pyarrow
reads verify them: a second line of defence, and the only one for files listed without
a recorded SHA-256 (a dataset written before checksums were recorded; then only the
sizes are checked, as before).

Imports neither Polars nor pyarrow at module level.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .layout import DatasetError
from .paths import damaged_manifest

if TYPE_CHECKING:
    import pyarrow as pa

_VERIFIED: set[tuple[str, int, int, int, int]] = set()
"""Files this process has hashed and found as recorded, by (path, inode, size, mtime,
ctime): a table read twice (a self-join) is hashed once."""

HASH_THREADS = 4
"""Files hashed at once (hashlib releases the GIL on large buffers)."""


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


def changed(path: Path, root: Path, got: str, want: str) -> DatasetError:
    """The error for a file whose SHA-256 is not the recorded one (exit 2)."""
    return DatasetError(
        f"{path}: changed: SHA-256 {got[:16]}..., the manifest recorded {want[:16]}...; "
        f"the dataset is damaged and nothing was read from it (maumau-log verify {root} "
        "checks it all)"
    )


def _key(path: Path) -> tuple[str, int, int, int, int]:
    st = os.stat(path)
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _check_one(root: Path, rel: str, want: str) -> None:
    path = root / rel
    try:
        key = _key(path)
        if key in _VERIFIED:
            return
        got = file_sha256(path)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if got != want:
        raise changed(path, root, got, want)
    _VERIFIED.add(key)


_HEX = frozenset("0123456789abcdef")


def check_file_info(
    manifest: Path, files: Mapping[str, Iterable[str]], file_info: Mapping[str, Mapping[str, Any]]
) -> None:
    """Check that every listed file has its recorded size and SHA-256.

    Every manifest of dataset version 2 records both for each file it lists (a version-1
    manifest may not; its files are checked for size where recorded, as before). A file
    listed without them would be read unchecked, so such a manifest is refused.

    Args:
        manifest: the manifest's path (named in the error).
        files: table name to its listed files.
        file_info: the manifest's ``file_info``.
    Raises:
        DatasetError: a listed file lacks ``bytes`` (a whole number of bytes, at least 0)
            or ``sha256`` (64 lowercase hexadecimal digits).
    """
    for rels in files.values():
        for rel in rels:
            info = file_info.get(rel, {})
            size, digest = info.get("bytes"), info.get("sha256")
            if type(size) is not int or size < 0:
                why = "no recorded size" if size is None else f"a size of {size!r}"
            elif not (isinstance(digest, str) and len(digest) == 64 and set(digest) <= _HEX):
                why = "no recorded SHA-256" if digest is None else "a SHA-256 that is no digest"
            else:
                continue
            raise damaged_manifest(
                manifest,
                f"the file {rel!r} has {why} in 'file_info' (dataset version 2 "
                "records the size and SHA-256 of every file)",
            )


def check_sums(root: Path, file_info: Mapping[str, Mapping[str, Any]], rels: Iterable[str]) -> None:
    """Hash every file of ``rels`` and compare it with the SHA-256 the manifest recorded.

    Files without a recorded checksum (an older dataset) are skipped: their sizes were
    checked by :func:`~maumau_log.store.manifest.check_files`.

    Args:
        root: the dataset folder.
        file_info: the manifest's ``file_info`` (relative path to ``bytes``, ``sha256``).
        rels: the files to check (relative paths, already checked as plain paths).
    Raises:
        DatasetError: a file differs from its checksum or cannot be read; the first in
            ``rels`` order is named.
    """
    todo = []
    for rel in rels:
        want = file_info.get(rel, {}).get("sha256")
        if isinstance(want, str):
            todo.append((rel, want))
    if len(todo) <= 1:
        for rel, want in todo:
            _check_one(root, rel, want)
        return
    from concurrent.futures import ThreadPoolExecutor  # only for several files (start-up)

    with ThreadPoolExecutor(min(HASH_THREADS, len(todo))) as pool:
        futures = [pool.submit(_check_one, root, rel, want) for rel, want in todo]
        for f in futures:  # in order: the first damaged file listed is the one named
            f.result()


def read_checked(root: Path, rel: str, info: Mapping[str, Any]) -> pa.Table:
    """Read one published file for a rewrite: its bytes once, their size and SHA-256
    checked against the manifest, then those bytes parsed with page checksums verified.

    Args:
        root: the dataset folder.
        rel: the file (a listed, checked path).
        info: its ``file_info`` entry (``bytes``, ``sha256``; empty for an older dataset).
    Returns:
        The file's table (its own schema; no partition columns).
    Raises:
        DatasetError: the size or the SHA-256 differs, a page checksum fails, or the file
            is no readable Parquet file; the message names the file.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = root / rel
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    size, want = info.get("bytes"), info.get("sha256")
    if isinstance(size, int) and len(data) != size:
        raise DatasetError(
            f"{path}: changed: {len(data):,} bytes, the manifest recorded {size:,}; the dataset "
            f"is damaged and nothing was rewritten (maumau-log verify {root} checks it all)"
        )
    if isinstance(want, str):
        got = hashlib.sha256(data).hexdigest()
        if got != want:
            raise changed(path, root, got, want)
    try:
        return pq.read_table(
            pa.BufferReader(data), partitioning=None, page_checksum_verification=True
        )
    except (OSError, pa.ArrowException) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DatasetError(
            f"{path}: not a readable Parquet file ({first}); the dataset is damaged "
            f"(maumau-log verify {root} checks it all)"
        ) from exc
