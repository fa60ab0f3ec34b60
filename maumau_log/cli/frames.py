"""Data frames for the dataset commands: as rich tables, CSV, JSON or Parquet; the
boards (split out of :mod:`.data_cmds`)."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from rich import box
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from . import (
    clean,
    err,
    fail,
    out,
    safe,
)
from .tables import BOARD_COLUMNS, BoardColumn, board_table, pick_columns

FORMATS = ("table", "csv", "json", "parquet")

DatasetArg = Annotated[Path, typer.Argument(help="A dataset folder made by ingest.")]


# ---------------------------------------------------------------------------------------
# Output helpers


def _flatten(df: pl.DataFrame) -> pl.DataFrame:
    """Nested columns to text (CSV and tables have no lists): lists joined by spaces."""
    fixes = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
            fixes.append(  # matches.totals: JSON, [{"player": ..., "total": ...}, ...]
                pl.col(name)
                .map_elements(lambda s: json.dumps(s.to_list()), return_dtype=pl.String)
                .alias(name)
            )
        elif isinstance(dtype, pl.List):
            fixes.append(pl.col(name).cast(pl.List(pl.String)).list.join(" ").alias(name))
        elif isinstance(dtype, pl.Struct | pl.Array | pl.Object):
            fixes.append(pl.col(name).map_elements(str, return_dtype=pl.String).alias(name))
    return df.with_columns(fixes) if fixes else df


_CSV_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a CSV cell never holds raw: every C0 control (tab and newline too), DEL, C1
and the bidi overrides (``clean``'s set plus tab and newline)."""

FORMULA_START = ("=", "+", "-", "@")
"""A cell starting with one of these is a formula to a spreadsheet (OWASP CSV injection)."""


def csv_text(text: str) -> str:
    """One text cell made safe for a terminal and a spreadsheet (``--format csv``).

    Every character of :data:`_CSV_CONTROL` becomes the six characters ``\\uXXXX`` (a
    terminal shows them; they move no cursor and colour nothing); a cell that then starts
    with ``=``, ``+``, ``-`` or ``@`` gets a leading ``'``, so a spreadsheet shows it as text
    instead of running it as a formula (OWASP's advice on CSV injection).

    Args:
        text: the cell's text.
    Returns:
        The text to write, e.g. ``"\\u001b[31mred"`` for ``"\\x1b[31mred"`` and
        ``"'=HYPERLINK(1)"`` for ``"=HYPERLINK(1)"``.
    """
    text = _CSV_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return "'" + text if text.startswith(FORMULA_START) else text


def csv_safe(df: pl.DataFrame) -> pl.DataFrame:
    """A flat frame's text columns through :func:`csv_text` (numbers, such as a negative
    count, stay numbers; JSON and Parquet output keep the text exactly)."""
    fixes = [
        pl.col(name).map_elements(csv_text, return_dtype=pl.String).alias(name)
        for name, dtype in df.schema.items()
        if dtype == pl.String
    ]
    return df.with_columns(fixes) if fixes else df


def _cell(value: Any) -> str:
    """One table cell as text: None "-", a bool "yes"/"no" (not Python's True/False),
    a float to 3 places, a list space-joined."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return str(value)


def _rich_table(df: pl.DataFrame, title: str | None = None) -> Table:
    table = Table(title=title, highlight=False, box=box.SIMPLE_HEAD)
    for name, dtype in df.schema.items():
        numeric = dtype.is_numeric()
        table.add_column(name, justify="right" if numeric else "left", overflow="fold")
    for row in df.iter_rows():
        table.add_row(*(Text(clean(_cell(v))) for v in row))
    return table


def _width() -> int | None:
    """The width tables must fit: the terminal's, or ``COLUMNS``; None when stdout is a
    file or a pipe (whole rows)."""
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return int(out.width)
    return None


def _print_board(
    df: pl.DataFrame,
    title: str,
    columns: tuple[BoardColumn, ...] = BOARD_COLUMNS,
    *,
    wide: bool = False,
    names: str | None = None,
) -> None:
    """A leaderboard that fits the terminal; the statistics left out named in one line."""
    try:
        chosen = pick_columns(columns, names)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--columns") from exc
    width = None if wide else _width()
    table, left_out = board_table(df, title, chosen, width)
    if width is None:
        Console(width=max(250, int(out.width)), soft_wrap=True, highlight=False, emoji=False).print(
            table
        )
    else:
        out.print(table, soft_wrap=False)
    if left_out:
        # wrapped at the table's width, as the table is (one line of 181 columns is not)
        err.print(
            f"[dim]not shown at {width} columns: {safe(', '.join(left_out))} "
            "(--wide shows every column, --columns chooses)[/]",
            highlight=False,
            soft_wrap=False,
            width=width,
        )


def _print_table(table: Table) -> None:
    """Print a table on stdout at the terminal's width; when stdout is not a terminal, at
    ``COLUMNS`` if set, else 250 columns (a file gets whole rows)."""
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        out.print(table, soft_wrap=False)
    else:
        Console(width=250, soft_wrap=True, highlight=False, emoji=False).print(table)


def _emit(df: pl.DataFrame, fmt: str, dest: Path | None, title: str | None = None) -> None:
    """Print or write ``df`` as table, csv, json or parquet."""
    if fmt == "parquet":
        if dest is None:
            fail("--format parquet needs --out FILE")
        try:
            df.write_parquet(dest, compression="zstd")
        except OSError as exc:
            fail(f"{dest}: cannot write: {exc.strerror or exc}")
        err.print(f"wrote {df.height:,} rows to {dest}", highlight=False)
        return
    if fmt == "table":
        if dest is not None:
            fail("--out is for --format csv, json or parquet")
        _print_table(_rich_table(df, title))
        return
    text = csv_safe(_flatten(df)).write_csv() if fmt == "csv" else _json_rows(df)
    if dest is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        return
    try:
        dest.write_text(text, "utf-8")
    except OSError as exc:
        fail(f"{dest}: cannot write: {exc.strerror or exc}")
    err.print(f"wrote {df.height:,} rows to {dest}", highlight=False)


def _json_rows(df: pl.DataFrame) -> str:
    buf = io.StringIO()
    json.dump(df.to_dicts(), buf, default=str)
    return buf.getvalue()


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise typer.BadParameter(f"must be one of {', '.join(FORMATS)}", param_hint="--format")
    return fmt


def _panel(panel: Panel) -> None:
    """Print a panel folding long lines (a path) inside it, never cutting them."""
    out.print(panel, soft_wrap=False)


def note_nothing_matched(
    dataset: Path, filters: dict[str, str | None], rows: str = "valid games"
) -> None:
    """On stderr, when a leaderboard came out empty: which filters were given and what the
    dataset holds instead (each ruleset with its games and first and last day), so an
    empty table is never a silent puzzle. Player text (rulesets, the filters) is escaped.

    Args:
        dataset: the dataset folder.
        filters: option name (``--ruleset``) to the value given, None when not given.
        rows: what the board counts, for the note when no filter was given.
    """
    from ..store import DatasetError, scan

    given = ", ".join(f"{k} {v}" for k, v in filters.items() if v is not None)
    try:
        date = pl.col("date")
        known = date.filter(date != "unknown")
        held = (
            scan(dataset, "games")
            .group_by("ruleset")
            .agg(pl.len().alias("games"), known.min().alias("first"), known.max().alias("last"))
            .sort("ruleset")
            .collect()
        )
    except (DatasetError, pl.exceptions.PolarsError, OSError):
        return
    parts = []
    for r in held.iter_rows(named=True):
        days = f", {r['first']} to {r['last']}" if r["first"] is not None else ", no dates"
        parts.append(f"{r['ruleset']} ({r['games']:,} games{days})")
    holds = "; ".join(parts) if parts else "no games"
    what = f"nothing matches {given}" if given else f"no {rows}"
    # one line, however narrow the terminal: a program reading stderr gets it whole
    err.print(f"{safe(what)}: the dataset holds {safe(holds)}", highlight=False, soft_wrap=True)
