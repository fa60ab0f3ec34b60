"""``compact``: rewrite a dataset's small files into larger ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..store import DatasetError
from ..store.compact import TARGET_BYTES, compact
from . import EXIT_OK, app, err, fail, safe


@app.command("compact")
def compact_cmd(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder made by ingest.")],
    target_mb: Annotated[
        int, typer.Option("--target-mb", min=1, help="Size a compacted file aims at, in MiB.")
    ] = TARGET_BYTES // (1024 * 1024),
) -> None:
    """Rewrite each partition's small Parquet files into files of about --target-mb.

    The rows, their order and every query's answer stay the same; the change is published
    atomically (an interruption leaves the dataset as it was). Exit 0, or 2 for a missing
    or busy dataset.
    """
    try:
        s = compact(dataset, target_mb * 1024 * 1024)
    except DatasetError as exc:
        fail(str(exc))
    before = sum(s.files_before.values())
    after = sum(s.files_after.values())
    err.print(
        f"[bold green]{safe(str(dataset))}: {before:,} files -> {after:,} "
        f"({s.bytes_before / 1e6:,.1f} MB -> {s.bytes_after / 1e6:,.1f} MB), "
        f"{sum(s.rows.values()):,} rows rewritten[/]",
        highlight=False,
    )
    raise typer.Exit(EXIT_OK)
