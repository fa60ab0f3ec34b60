"""The ``verify`` command: check a dataset's files and tables.

Exit 0 when the dataset is whole, 1 when a file is missing, changed or unreadable or the
tables disagree, 2 when the folder is not a dataset.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..store import DatasetError
from ..store.verify import verify
from ..store.writer import remove_leftovers
from . import EXIT_OK, EXIT_VIOLATIONS, app, err, fail, safe


@app.command("verify")
def verify_cmd(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder made by ingest.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="First delete what interrupted ingests left (staging folders, unlisted "
            "files); listed files are never touched.",
        ),
    ] = False,
) -> None:
    """Check a dataset's files against its manifest and its tables against each other.

    Every file's size and SHA-256; every result, event and violation has its game, and so
    on. With --repair, the leftovers of interrupted ingests are deleted first (what the
    next ingest would delete), under the dataset's lock.

    Exit 0 when the dataset is whole, 1 when anything is missing, changed or disagrees, 2
    when the folder is not a dataset (or, with --repair, an ingest holds its lock).
    """
    removed: list[str] = []
    try:
        if repair:
            removed = remove_leftovers(dataset)
        report = verify(dataset)
    except DatasetError as exc:
        fail(str(exc))
    code = EXIT_OK if report.ok else EXIT_VIOLATIONS
    if as_json:
        doc = report.to_dict()
        if repair:
            doc["removed"] = removed
        sys.stdout.write(json.dumps(doc) + "\n")
        raise typer.Exit(code)
    if removed:
        err.print(
            f"removed {len(removed)} leftovers of interrupted ingests: "
            f"{safe(', '.join(removed[:5]))}{' ...' if len(removed) > 5 else ''}",
            highlight=False,
        )
    for p in report.problems:
        err.print(f"[bold red]{safe(p.check)}[/] {safe(str(p))}", highlight=False)
    if report.unrecorded:
        err.print(
            f"checksums not recorded for {report.unrecorded:,} of {report.files:,} files "
            "(written by an older maumau-log): those were checked for presence and "
            "readability only",
            highlight=False,
        )
    if report.unlisted or report.staging:
        what = [f"{len(report.unlisted)} Parquet files not in the manifest"] * bool(
            report.unlisted
        ) + [f"{len(report.staging)} staging folders"] * bool(report.staging)
        err.print(
            f"{' and '.join(what)} (left by an interrupted ingest, or one running now; "
            "readers ignore them; the next ingest or verify --repair deletes them)",
            highlight=False,
        )
    rows = ", ".join(f"{n:,} {t}" for t, n in report.rows.items())
    if report.ok:
        err.print(
            f"[bold green]ok:[/] {safe(str(dataset))}: {report.files:,} files "
            f"({report.checksummed} checksums match), {safe(rows)}; the tables agree",
            highlight=False,
        )
    else:
        err.print(
            f"[bold red]{len(report.problems)} problems[/] in {safe(str(dataset))} "
            f"({report.files:,} files, {safe(rows)})",
            highlight=False,
        )
    raise typer.Exit(code)
