"""The Parquet dataset: Arrow schemas, crash-safe appends, lazy reads.

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

A dataset folder is untrusted input (:mod:`maumau_log.store.paths`): the manifest's
entries must be plain paths of their table, no symbolic link inside the dataset is
followed, and deletions stay inside it. Every file's size and SHA-256 are in the manifest
and checked before a read gives an answer or a rewrite uses it; files carry Parquet page
checksums (:mod:`maumau_log.store.integrity`).
"""

from __future__ import annotations

import os  # noqa: F401  (tests patch store.os)
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .layout import DateWindow  # noqa: F401
    from .manifest import (  # noqa: F401
        Manifest,
        _foreign_files,
        _fsync_dir,
        _manifest_path,
        _scan_files,
        _write_manifest,
        check_files,
        file_sha256,
        iter_files,
        known_games,
        polars_schema,
        read_manifest,
        scan,
        scan_all,
        scan_paths,
        unreadable_file,
    )
    from .schema import (  # noqa: F401
        _DRAW_REASONS,
        _I16,
        _SAFE_VALUE,
        _WRITE_CAUSES,
        ALL_TABLES,
        AUDIT_EVENTS_SCHEMA,
        AUDIT_GAMES_SCHEMA,
        AUDIT_POWERS,
        AUDIT_SEATS_SCHEMA,
        AUDIT_TABLES,
        DATASET_VERSION,
        DELTA_COLUMNS,
        EVENTS_SCHEMA,
        FORMAT_NAME,
        GAMES_SCHEMA,
        MANIFEST,
        MATCH_TABLES,
        MATCH_TOTAL,
        MATCHES_SCHEMA,
        PARTITION_COLUMNS,
        RAW_LIMIT,
        RESULTS_SCHEMA,
        SCHEMAS,
        TABLES,
        UNKNOWN,
        VIOLATIONS_SCHEMA,
        WRITE_OPTIONS,
        DatasetError,
        _writer_options,
        partition_dir,
        partition_value,
        write_error,
        writer_options,
    )
    from .writer import (  # noqa: F401
        DatasetWriter,
    )

_LAZY: dict[str, str] = {
    "DateWindow": "layout",
    "Manifest": "manifest",
    "_foreign_files": "manifest",
    "_fsync_dir": "manifest",
    "_manifest_path": "manifest",
    "_scan_files": "manifest",
    "_write_manifest": "manifest",
    "check_files": "manifest",
    "file_sha256": "manifest",
    "iter_files": "manifest",
    "known_games": "manifest",
    "polars_schema": "manifest",
    "read_manifest": "manifest",
    "scan": "manifest",
    "scan_all": "manifest",
    "scan_paths": "manifest",
    "unreadable_file": "manifest",
    "_DRAW_REASONS": "schema",
    "_I16": "schema",
    "_SAFE_VALUE": "schema",
    "_WRITE_CAUSES": "schema",
    "ALL_TABLES": "schema",
    "AUDIT_EVENTS_SCHEMA": "schema",
    "AUDIT_GAMES_SCHEMA": "schema",
    "AUDIT_POWERS": "schema",
    "AUDIT_SEATS_SCHEMA": "schema",
    "AUDIT_TABLES": "schema",
    "DATASET_VERSION": "schema",
    "DELTA_COLUMNS": "schema",
    "EVENTS_SCHEMA": "schema",
    "FORMAT_NAME": "schema",
    "GAMES_SCHEMA": "schema",
    "MANIFEST": "schema",
    "MATCH_TABLES": "schema",
    "MATCH_TOTAL": "schema",
    "MATCHES_SCHEMA": "schema",
    "PARTITION_COLUMNS": "schema",
    "RAW_LIMIT": "schema",
    "RESULTS_SCHEMA": "schema",
    "SCHEMAS": "schema",
    "TABLES": "schema",
    "UNKNOWN": "schema",
    "VIOLATIONS_SCHEMA": "schema",
    "WRITE_OPTIONS": "schema",
    "DatasetError": "schema",
    "_writer_options": "schema",
    "partition_dir": "schema",
    "partition_value": "schema",
    "write_error": "schema",
    "writer_options": "schema",
    "DatasetWriter": "writer",
}
"""The names this package gives, and the module each lives in: imported on first use, so
that a process that only needs :mod:`maumau_log.store.layout` (``stats``, ``query``) never
loads pyarrow (the start-up test pins it)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
