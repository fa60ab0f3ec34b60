"""The ratings' cache: one Parquet file per dataset version and options, outside the dataset.

A rating run over 10^6 rounds takes seconds; a second call with the same options on the
same dataset reads its result back. The key is the SHA-256 of the dataset's manifest text
(every ingest or compaction rewrites it: a new version of the data, a new key), the
options that change the result, and the versions of maumau-log and openskill.

The cache lives in the user's cache folder (``MAUMAU_LOG_CACHE`` if set, else
``$XDG_CACHE_HOME/maumau-log/ratings`` or ``~/.cache/maumau-log/ratings``; on macOS
``~/Library/Caches``, on Windows ``%LOCALAPPDATA%``), never inside the dataset: the
dataset folder is untrusted input (:mod:`maumau_log.store.paths`) and may be read-only or
shared. ``MAUMAU_LOG_CACHE=off`` turns the cache off. A cache file that cannot be read or
does not have the expected columns is ignored (and rewritten); one that cannot be written
costs only the time.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

CACHE_LAYOUT = 1
"""Bumped whenever the cached frame or the rating rule changes."""


def cache_dir() -> Path | None:
    """The ratings' cache folder, or None when ``MAUMAU_LOG_CACHE=off``."""
    env = os.environ.get("MAUMAU_LOG_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "no") else Path(env)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "maumau-log" / "ratings"


def cache_key(manifest_text: str, options: dict[str, Any]) -> str:
    """The cache file's name (64 hex digits) for a dataset version and the options."""
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    try:
        skill = version("openskill")
    except PackageNotFoundError:
        skill = "?"
    doc = json.dumps(
        {
            "layout": CACHE_LAYOUT,
            "maumau": __version__,
            "openskill": skill,
            "manifest": manifest_text,
            "options": options,
        },
        sort_keys=True,
    )
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()


def load(key: str, schema: pl.Schema) -> pl.DataFrame | None:
    """The cached frame for ``key`` if there is one with exactly ``schema``, else None."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / f"{key}.parquet"
    try:
        df = pl.read_parquet(path)
    except (OSError, pl.exceptions.PolarsError, ValueError):
        return None
    return df if df.schema == schema else None


def store(key: str, df: pl.DataFrame) -> None:
    """Write the frame for ``key`` (atomically: a temporary file renamed); errors ignored."""
    folder = cache_dir()
    if folder is None:
        return
    with contextlib.suppress(OSError, pl.exceptions.PolarsError):
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        os.close(fd)
        try:
            df.write_parquet(tmp)
            os.replace(tmp, folder / f"{key}.parquet")
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
