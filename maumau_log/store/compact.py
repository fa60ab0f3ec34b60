"""``maumau-log compact DATASET``: fewer, larger Parquet files, the same rows.

Every ingest adds one file per table and partition, so a dataset fed in many small batches
holds many small files, and every query opens them all. :func:`compact` rewrites, in each
partition of each table, the runs of consecutive files smaller than the target size into
files of about that size, and publishes them through the store's crash-safe mechanism
(:class:`~maumau_log.store.DatasetWriter`: the new files are written beside the dataset,
the manifest is replaced atomically, the old files are deleted after; an interruption
leaves the dataset as it was).

Rows keep their order: the files are concatenated in manifest order, so the events of a
game stay together and in order, and every query gives the same answer before and after.
Files written by an older version are read with the current schema (missing columns null,
narrower integers widened) and rewritten with page checksums.

Every file merged is checked against its recorded size and SHA-256 before it is read
(:meth:`~maumau_log.store.DatasetWriter.read`): a changed file stops the compaction (exit
2, naming it) and nothing is published, so a changed bit is never rewritten under a fresh
checksum.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from . import ALL_TABLES, SCHEMAS, DatasetWriter, read_manifest, writer_options

TARGET_BYTES = 128 * 1024 * 1024
"""Target size of a compacted file on disk, in bytes."""


@dataclass
class CompactSummary:
    """What :func:`compact` did.

    Attributes:
        dataset: the dataset folder.
        files_before, files_after: published files per table, before and after.
        bytes_before, bytes_after: their total size on disk.
        rows: rows rewritten per table (the same number went in and out).
    """

    dataset: str
    files_before: dict[str, int] = field(default_factory=dict)
    files_after: dict[str, int] = field(default_factory=dict)
    bytes_before: int = 0
    bytes_after: int = 0
    rows: dict[str, int] = field(default_factory=dict)


def _partition(rel: str) -> tuple[str, str]:
    parts = rel.split("/")
    return parts[1], parts[2]  # "ruleset=R", "date=D"


def _value(part: str) -> str:
    return part.split("=", 1)[1]


def _as_current(table: pa.Table, name: str) -> pa.Table:
    """A file's rows with the table's current schema (older files lack some columns)."""
    schema = SCHEMAS[name]
    cols = []
    for f in schema:
        if f.name in table.column_names:
            cols.append(table.column(f.name).cast(f.type))
        else:
            cols.append(pa.nulls(table.num_rows, f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def _runs(root: Path, files: list[str], target: int) -> list[list[str]]:
    """Consecutive small files grouped into runs of about ``target`` bytes (runs of one
    file are left out: nothing to gain)."""
    runs: list[list[str]] = []
    cur: list[str] = []
    size = 0
    for rel in files:
        n = os.path.getsize(root / rel)
        if n >= target:  # a big file stays; it ends the run before it
            if len(cur) > 1:
                runs.append(cur)
            cur, size = [], 0
            continue
        if cur and size + n > target:
            if len(cur) > 1:
                runs.append(cur)
            cur, size = [], 0
        cur.append(rel)
        size += n
    if len(cur) > 1:
        runs.append(cur)
    return runs


def compact(dataset: str | os.PathLike[str], target_bytes: int = TARGET_BYTES) -> CompactSummary:
    """Rewrite each partition's small files into files of about ``target_bytes``.

    Args:
        dataset: the dataset folder.
        target_bytes: the size a compacted file aims at (on disk).
    Returns:
        The :class:`CompactSummary` (nothing is published when there is nothing to merge).
    Raises:
        DatasetError: not a usable dataset, another ingest or compaction holds its lock,
            or a file to merge differs from its recorded size or SHA-256.
    """
    root = Path(dataset)
    manifest = read_manifest(root)  # a missing or foreign folder fails here, not created
    summary = CompactSummary(dataset=str(dataset))
    with DatasetWriter(root) as writer:
        manifest = writer.manifest
        for name in ALL_TABLES:
            files = manifest.files.get(name, [])
            summary.files_before[name] = len(files)
            summary.bytes_before += sum(os.path.getsize(root / f) for f in files)
            by_part: dict[tuple[str, str], list[str]] = defaultdict(list)
            for rel in files:
                by_part[_partition(rel)].append(rel)
            rows = 0
            for (rs, dt), part_files in sorted(by_part.items()):
                for run in _runs(root, part_files, target_bytes):
                    rows += _merge(writer, name, _value(rs), _value(dt), root, run)
            summary.rows[name] = rows
        written = any(summary.rows.values())
        writer.commit({"compacted": dict(summary.rows)} if written else None)
    after = read_manifest(root)
    for name in ALL_TABLES:
        summary.files_after[name] = len(after.files.get(name, []))
        summary.bytes_after += sum(os.path.getsize(root / f) for f in after.files.get(name, []))
    return summary


def _merge(
    writer: DatasetWriter, name: str, ruleset: str, date: str, root: Path, run: list[str]
) -> int:
    """Concatenate the files of ``run`` (in order) into one new file; drop the old ones."""
    _rel, path = writer.new_file(name, ruleset, date)
    rows = 0
    with pq.ParquetWriter(path, SCHEMAS[name], **writer_options(name)) as out:
        for rel in run:
            table = _as_current(writer.read(rel), name)  # checked against the manifest
            out.write_table(table)
            rows += table.num_rows
    for rel in run:
        writer.replace(name, rel, None)
    return rows
