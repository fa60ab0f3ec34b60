"""Dataset commands: ``ingest``, ``stats``, ``game``, ``query``, ``analyze`` (issue 3).

Thin wrappers: :mod:`maumau_log.records` ingests and reads games back, :mod:`maumau_log.stats`
builds the lazy queries, this module collects and prints. Data goes to stdout, summaries
and errors to stderr. Bad input (a missing dataset, a folder that is not one, an unknown
game, bad SQL) is one line on stderr and exit 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..logfile import LogReadError
from ..records import IngestSummary, StoredGame, ingest, load_game
from ..rules import RulesetError, find_preset
from ..stats import filter_results, player_stats
from ..store import DatasetError, scan, scan_all
from . import EXIT_OK, EXIT_USAGE, EXIT_VIOLATIONS, app, err, fail, out
from .replay_cmds import RulesOpt, ValidationRun, load_rules_file, resolve_inputs

DEFAULT_DATASET = Path("maumau-data")
"""Where ``analyze`` keeps its dataset when ``--out`` is not given."""

FORMATS = ("table", "csv", "json", "parquet")

DatasetArg = Annotated[Path, typer.Argument(help="A dataset folder made by ingest.")]


# ---------------------------------------------------------------------------------------
# Output helpers


def _flatten(df: pl.DataFrame) -> pl.DataFrame:
    """Nested columns to text (CSV and tables have no lists): lists joined by spaces."""
    fixes = []
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List):
            fixes.append(pl.col(name).cast(pl.List(pl.String)).list.join(" ").alias(name))
        elif isinstance(dtype, pl.Struct | pl.Array | pl.Object):
            fixes.append(pl.col(name).map_elements(str, return_dtype=pl.String).alias(name))
    return df.with_columns(fixes) if fixes else df


def _cell(value: Any) -> str:
    if value is None:
        return "-"
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
        table.add_row(*(Text(_cell(v)) for v in row))
    return table


_BOARD_COLUMNS: tuple[tuple[str, str, str], ...] = (
    # (column, header, format)
    ("games", "games", "d"),
    ("wins", "wins", "d"),
    ("win_rate", "win\n%", "pct"),
    ("win_rate_low", "95% CI\n(Wilson)", "ci"),
    ("avg_cards_left", "cards\nleft", ".2f"),
    ("avg_points_left", "points\nleft", ".1f"),
    ("avg_round_score", "round\nscore", ".1f"),
    ("draws_per_game", "draws\n/game", ".2f"),
    ("penalties_per_game", "pen.\n/game", ".2f"),
    ("missed_calls", "missed\ncalls", "d"),
    ("power_played", "power\ncards", "d"),
    ("wild_played", "wild\ncards", "d"),
    ("avg_turns_to_win", "turns\nto win", ".1f"),
)


def _board_table(df: pl.DataFrame, title: str) -> Table:
    """The leaderboard, compact: percentages, the interval in one column, short headers."""
    table = Table(title=title, highlight=False, box=box.SIMPLE_HEAD)
    keys = [c for c in df.columns if c in ("player", "seat", "ruleset")]
    for k in keys:
        table.add_column(k, no_wrap=True)
    for _, header, _ in _BOARD_COLUMNS:
        table.add_column(header, justify="right", overflow="fold")
    for row in df.iter_rows(named=True):
        cells = [str(row[k]) for k in keys]
        for col, _, fmt in _BOARD_COLUMNS:
            value = row[col]
            if value is None:
                cells.append("-")
            elif fmt == "pct":
                cells.append(f"{100 * value:.1f}")
            elif fmt == "ci":
                cells.append(f"{100 * value:.0f}-{100 * row['win_rate_high']:.0f}")
            else:
                cells.append(format(value, fmt))
        table.add_row(*(Text(c) for c in cells))
    return table


def _print_table(table: Table) -> None:
    """Print a table on stdout; full width when stdout is not a terminal (no truncation)."""
    if out.is_terminal:
        out.print(table)
    else:
        Console(width=250, soft_wrap=True, highlight=False).print(table)


def _emit(df: pl.DataFrame, fmt: str, dest: Path | None, title: str | None = None) -> None:
    """Print or write ``df`` as table, csv, json or parquet."""
    if fmt == "parquet":
        if dest is None:
            fail("--format parquet needs --out FILE")
        try:
            df.write_parquet(dest, compression="zstd")
        except OSError as exc:
            fail(f"{dest}: cannot write: {exc.strerror or exc}")
        err.print(f"wrote {df.height} rows to {dest}", highlight=False)
        return
    if fmt == "table":
        if dest is not None:
            fail("--out is for --format csv, json or parquet")
        _print_table(_rich_table(df, title))
        return
    text = _flatten(df).write_csv() if fmt == "csv" else _json_rows(df)
    if dest is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        return
    try:
        dest.write_text(text, "utf-8")
    except OSError as exc:
        fail(f"{dest}: cannot write: {exc.strerror or exc}")
    err.print(f"wrote {df.height} rows to {dest}", highlight=False)


def _json_rows(df: pl.DataFrame) -> str:
    buf = io.StringIO()
    json.dump(df.to_dicts(), buf, default=str)
    return buf.getvalue()


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise typer.BadParameter(f"must be one of {', '.join(FORMATS)}", param_hint="--format")
    return fmt


def _polars_error(exc: Exception) -> str:
    first = str(exc).strip().splitlines()
    return first[0] if first else type(exc).__name__


def _print_ingest(summary: IngestSummary) -> None:
    for c in summary.conflicts[:50]:
        err.print(f"[bold red]conflict:[/] {escape(str(c))}", highlight=False)
    if len(summary.conflicts) > 50:
        err.print(f"... and {len(summary.conflicts) - 50} more conflicts")
    rate = summary.events / summary.seconds if summary.seconds else 0.0
    colour = "red" if summary.exit_code else "green"
    err.print(
        f"[bold {colour}]{summary.games} games read ({summary.valid} valid, "
        f"{summary.invalid} invalid): {summary.added} added, {summary.duplicates} already "
        f"stored, {len(summary.conflicts)} conflicts[/] -> {summary.dataset} "
        f"({summary.events} events in {summary.seconds:.1f} s, {rate:,.0f} events/s)",
        highlight=False,
    )


def _run_ingest(
    paths: list[Path], dataset: Path, rules: Path | None, on_report: Any = None
) -> IngestSummary:
    file_options = load_rules_file(rules)
    files = resolve_inputs(paths)
    try:
        return ingest(files, dataset, file_options, on_report=on_report)
    except (DatasetError, LogReadError, RulesetError) as exc:
        fail(str(exc))


def _leaderboard(
    dataset: Path,
    *,
    ruleset: str | None = None,
    player: str | None = None,
    since: str | None = None,
    include_invalid: bool = False,
    by: str | None = None,
    game_ids: list[str] | None = None,
) -> pl.DataFrame:
    try:
        results = scan(dataset, "results")
        if ruleset is not None:
            with contextlib.suppress(RulesetError):  # else keep the name: it matches no game
                ruleset = find_preset(ruleset)
        lf = filter_results(
            results,
            ruleset=ruleset,
            player=player,
            since=since,
            include_invalid=include_invalid,
            game_ids=game_ids,
        )
        return player_stats(lf, by=by).collect()
    except (DatasetError, ValueError) as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(f"{dataset}: cannot read the dataset: {_polars_error(exc)}")


# ---------------------------------------------------------------------------------------
# Commands


@app.command("ingest")
def ingest_cmd(
    paths: Annotated[list[Path], typer.Argument(help="Log files or directories.")],
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder (created when missing).")
    ],
    rules: RulesOpt = None,
) -> None:
    """Replay every game and add it to a Parquet dataset (valid or not).

    Games already stored are skipped; a stored game id met with other content is a conflict
    (reported, not stored). Exit 0 when every game read is valid, 1 when any is invalid or
    conflicts, 2 for usage errors or unreadable input (then nothing is stored).
    """
    summary = _run_ingest(paths, dataset, rules)
    _print_ingest(summary)
    raise typer.Exit(summary.exit_code)


@app.command("stats")
def stats_cmd(
    dataset: DatasetArg,
    ruleset: Annotated[str | None, typer.Option(help="Only this ruleset (preset).")] = None,
    player: Annotated[str | None, typer.Option(help="Only this player id.")] = None,
    since: Annotated[
        str | None, typer.Option(help="Only games dated on or after YYYY-MM-DD.")
    ] = None,
    include_invalid: Annotated[
        bool, typer.Option("--include-invalid", help="Also count invalid games.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet.")] = "table",
    dest: Annotated[Path | None, typer.Option("--out", help="Write to this file.")] = None,
    by: Annotated[
        str | None, typer.Option(help="Break down per player by seat or ruleset.")
    ] = None,
) -> None:
    """Per-player leaderboard: games, wins, win rate with its 95% Wilson interval, and more.

    Only valid games count unless --include-invalid.
    """
    _check_format(fmt)
    if by is not None and by not in ("seat", "ruleset"):
        raise typer.BadParameter("must be seat or ruleset", param_hint="--by")
    df = _leaderboard(
        dataset,
        ruleset=ruleset,
        player=player,
        since=since,
        include_invalid=include_invalid,
        by=by,
    )
    if fmt == "table" and dest is None:
        _print_table(_board_table(df, "Leaderboard"))
        return
    _emit(df, fmt, dest)


def _render_game(g: StoredGame) -> None:
    game = g.game
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    status = "[green]valid[/]" if game["valid"] else f"[red]invalid: {game['violation_code']}[/]"
    for key, value in (
        ("game", game["game_id"]),
        ("ruleset", f"{game['ruleset']} (header: {game['header_ruleset']})"),
        ("match / round", f"{game['match_id'] or '-'} / {game['round'] or '-'}"),
        ("players", " ".join(game["players"] or [])),
        ("dealer", game["dealer"] or "-"),
        ("started", game["started_at"] or "-"),
        ("events", str(game["events"])),
        ("status", status),
        ("winner", game["winner"] or "-"),
        ("source", f"{game['source_file']}:{game['source_line']}"),
    ):
        head.add_row(key, Text(str(value)))
    out.print(Panel(head, title="Game", expand=False))
    if g.results:
        res = pl.DataFrame(g.results).select(
            "seat", "player", "won", "cards_left", "points_left", "round_score",
            "cards_played", "turns", "calls_missed",
        )  # fmt: skip
        _print_table(_rich_table(res, "Result"))
    for v in g.violations:
        text = (
            f"[bold red]{escape(v['code'])}[/] at event {v['event_index']} "
            f"({escape(str(v['file']))}:{v['line']}), player {escape(v['player'] or '-')}\n"
            f"{escape(v['message'])}"
            + (f"\n[dim]legal: {escape(v['expected'])}[/]" if v["expected"] else "")
            + f"\n[dim]rule: {escape(v['rule'])}[/]"
        )
        out.print(Panel(text, title="Violation", expand=False))
    if g.at is None or g.event is None:
        out.print("[dim]no events stored for this game[/]")
        return
    ev = g.event
    what = f"{ev['type']}" + (f" by {ev['player']}" if ev["player"] else "")
    if ev["cards"]:
        what += " " + " ".join(ev["cards"])
    if ev["suit"]:
        what += f" names {ev['suit']}"
    if ev["reason"]:
        what += f" ({ev['reason']})"
    title = escape(f"State after event {g.at} of {g.stored_events - 1} (line {ev['line']}): {what}")
    s = g.state
    if s is None:
        out.print(Panel("[dim]the state cannot be rebuilt (no resolved ruleset)[/]", title=title))
        return
    hands = Table(highlight=False)
    for col in ("seat", "player", "cards", "hand", "call due"):
        hands.add_column(col)
    for seat, (player, cards) in enumerate(s["hands"].items()):
        marker = "▶ " if player == s["turn"] else "  "
        hands.add_row(
            str(seat),
            Text(marker + player),
            str(len(cards)),
            Text(" ".join(cards) or "-"),
            Text(s["calls_due"].get(player, "-")),
        )
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    direction = "clockwise" if s["direction"] == 1 else "counter-clockwise"
    for key, value in (
        ("phase", s["phase"]),
        ("turn", s["turn"] or "-"),
        ("top card", s["top"] or "-"),
        ("suit to follow", s["suit"] or "-"),
        ("pending draw", s["pending_draw"]),
        ("pending skip", s["pending_skip"]),
        ("awaiting suit", s["awaiting_suit"] or "-"),
        ("cover owed", s["cover_owed"] or "-"),
        ("direction", direction),
        ("stock / discard", f"{s['stock_size']} / {s['discard_size']}"),
    ):
        facts.add_row(key, Text(str(value)))
    out.print(Panel(facts, title=title, expand=False))
    out.print(hands)


@app.command("game")
def game_cmd(
    dataset: DatasetArg,
    game_id: Annotated[str, typer.Argument(help="The game's id.")],
    at: Annotated[
        int | None,
        typer.Option("--at", help="Show the state after event N (0 = header; default: last)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """The dispute view: a game's header, result, violations and full state at event N."""
    try:
        g = load_game(dataset, game_id, at)
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(f"{dataset}: cannot read the dataset: {_polars_error(exc)}")
    if as_json:
        sys.stdout.write(json.dumps(g.to_dict(), default=str) + "\n")
        return
    _render_game(g)


@app.command("query")
def query_cmd(
    dataset: DatasetArg,
    sql: Annotated[str, typer.Argument(help="SQL over games, results, events, violations.")],
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    limit: Annotated[
        int, typer.Option(help="Rows shown by --format table (csv and json show all).")
    ] = 100,
) -> None:
    """Run SQL (Polars SQL) over the dataset's tables: games, results, events, violations."""
    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("must be table, csv or json", param_hint="--format")
    try:
        frames = scan_all(dataset)
        ctx = pl.SQLContext(frames=frames, eager=False)
        df = ctx.execute(sql, eager=False).collect()
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(f"bad query: {_polars_error(exc)}")
    if fmt == "table" and df.height > limit:
        err.print(f"showing {limit} of {df.height} rows (use --limit, or --format csv)")
        df = df.head(limit)
    _emit(df, fmt, None)


@app.command("analyze")
def analyze_cmd(
    paths: Annotated[list[Path], typer.Argument(help="Log files or directories.")],
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder.")
    ] = DEFAULT_DATASET,
    rules: RulesOpt = None,
) -> None:
    """Validate, ingest and rank in one go: the violations, then the leaderboard.

    The leaderboard counts the valid games of the logs given (also those already stored).
    Exit 0 when every game is valid, 1 when any violation or conflict is found, 2 for usage
    errors or unreadable input.
    """
    run = ValidationRun()
    summary = _run_ingest(paths, dataset, rules, on_report=run.add)
    run.print_report()
    _print_ingest(summary)
    df = _leaderboard(dataset, game_ids=summary.game_ids)
    if df.height:
        _print_table(_board_table(df, "Leaderboard (valid games)"))
    else:
        err.print("no valid games to rank")
    code = EXIT_VIOLATIONS if summary.exit_code else EXIT_OK
    raise typer.Exit(code)


__all__ = ["EXIT_USAGE", "analyze_cmd", "game_cmd", "ingest_cmd", "query_cmd", "stats_cmd"]
