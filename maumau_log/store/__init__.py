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

A dataset folder is untrusted input (:mod:`maumau_log.store.paths`): the manifest's
entries must be plain paths of their table, no symbolic link inside the dataset is
followed, and deletions stay inside it. Every file's size and SHA-256 are in the manifest
and checked before a read gives an answer or a rewrite uses it; files carry Parquet page
checksums (:mod:`maumau_log.store.integrity`).
"""

import os  # noqa: F401  (tests patch store.os)

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
