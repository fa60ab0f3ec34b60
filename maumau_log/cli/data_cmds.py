"""Dataset commands: ``ingest``, ``stats``, ``game``, ``match``, ``query``, ``analyze``
(issues 3 and 6).

Thin wrappers: :mod:`maumau_log.records` ingests and reads games back, :mod:`maumau_log.stats`
builds the lazy queries, this module collects and prints. Data goes to stdout, summaries
and errors to stderr. Bad input (a missing dataset, a folder that is not one, an unknown
game, bad SQL) is one line on stderr and exit 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
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

from ..logfile import LogReadError
from ..records import IngestSummary, StoredGame, StoredMatch, ingest, load_game, load_match
from ..rules import RulesetError, find_preset
from ..runners import Runner
from ..sqlguard import BadQuery, QueryRefused, check_query
from ..stats import STATS_BY, filter_matches, filter_results, match_stats, player_stats
from ..store import DatasetError, scan, scan_all
from . import (
    EXIT_USAGE,
    app,
    clean,
    dataset_read_error,
    err,
    fail,
    on_interrupt,
    out,
    safe,
)
from .replay_cmds import RulesOpt, ValidationRun, load_rules_file, resolve_inputs
from .run_opts import AddressOpt, EngineOpt, JobsOpt, make_runner, shard_progress
from .tables import BOARD_COLUMNS, MATCH_BOARD_COLUMNS, BoardColumn, board_table, pick_columns

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
        Console(width=max(250, int(out.width)), soft_wrap=True, highlight=False).print(table)
    else:
        out.print(table, soft_wrap=False)
    if left_out:
        err.print(
            f"[dim]not shown at {width} columns: {safe(', '.join(left_out))} "
            "(--wide shows every column, --columns chooses)[/]",
            highlight=False,
        )


def _print_table(table: Table) -> None:
    """Print a table on stdout at the terminal's width; when stdout is not a terminal, at
    ``COLUMNS`` if set, else 250 columns (a file gets whole rows)."""
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        out.print(table, soft_wrap=False)
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


_QUERY_FAULTS = (
    pl.exceptions.SQLInterfaceError,
    pl.exceptions.SQLSyntaxError,
    pl.exceptions.ColumnNotFoundError,
    pl.exceptions.SchemaFieldNotFoundError,
    pl.exceptions.SchemaError,
    pl.exceptions.InvalidOperationError,
    pl.exceptions.DuplicateError,
    pl.exceptions.ShapeError,
)
"""Polars errors that a query's text causes (exit 2, "bad query"); any other Polars error
while a query runs comes from reading the files."""


def _polars_error(exc: Exception) -> str:
    first = str(exc).strip().splitlines()
    return first[0] if first else type(exc).__name__


def _print_ingest(summary: IngestSummary) -> None:
    for problem in summary.unreadable:
        err.print(f"[bold red]unreadable:[/] {safe(problem)}", highlight=False)
    for c in summary.conflicts[:50]:
        err.print(f"[bold red]conflict:[/] {safe(str(c))}", highlight=False)
    for problem in summary.failed:
        err.print(
            f"[bold red]failed shard:[/] {safe(problem)} (its games are not stored; run the "
            "same ingest again to add them)",
            highlight=False,
        )
    if len(summary.conflicts) > 50:
        err.print(f"... and {len(summary.conflicts) - 50} more conflicts")
    if summary.conflicts:
        err.print(f"[dim]{safe(summary.conflicts[0].hint(summary.dataset))}[/]", highlight=False)
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
    paths: list[str],
    dataset: Path,
    rules: Path | None,
    on_report: Any = None,
    runner: Runner | None = None,
    progress: bool = True,
    uris: bool = False,
) -> IngestSummary:
    file_options = load_rules_file(rules)
    files = resolve_inputs(paths, uris=uris)
    on_interrupt(f"interrupted; the dataset is as it was ({dataset} was not changed)")
    try:
        with shard_progress(None, progress) as tick:
            return ingest(files, dataset, file_options, on_report=on_report, runner=runner,
                          on_shard=tick, on_plan=tick.planned)  # fmt: skip
    except (DatasetError, LogReadError, RulesetError) as exc:
        fail(str(exc))


def _match_board(
    dataset: Path,
    *,
    ruleset: str | None = None,
    player: str | None = None,
    since: str | None = None,
    include_invalid: bool = False,
) -> pl.DataFrame:
    try:
        matches = scan(dataset, "matches")
        if ruleset is not None:
            with contextlib.suppress(RulesetError):
                ruleset = find_preset(ruleset)
        lf = filter_matches(
            matches, ruleset=ruleset, player=player, since=since, include_invalid=include_invalid
        )
        return match_stats(lf, player=player).collect(engine="streaming")
    except (DatasetError, ValueError) as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))


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
        return player_stats(lf, by=by).collect(engine="streaming")
    except (DatasetError, ValueError) as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))


# ---------------------------------------------------------------------------------------
# Commands


@app.command("ingest")
def ingest_cmd(
    paths: Annotated[
        list[str],
        typer.Argument(help="Log files or directories (with --engine ray also URIs: s3://...)."),
    ],
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder (created when missing).")
    ],
    rules: RulesOpt = None,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar on stderr.")] = True,
) -> None:
    """Replay every game and add it to a Parquet dataset (valid or not).

    Games already stored are skipped; a stored game id met with other content is a conflict
    (reported, not stored). Exit 0 when every game read is valid, 1 when any is invalid or
    conflicts, 2 for usage errors or unreadable input (then nothing is stored), 4 when a
    shard failed (the others are stored; run it again to add the rest).
    """
    runner = make_runner(engine, jobs, address)
    summary = _run_ingest(
        paths, dataset, rules, runner=runner, progress=progress, uris=engine == "ray"
    )
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
        str | None,
        typer.Option(
            help="Break down per player by seat or ruleset; 'match' for the match leaderboard."
        ),
    ] = None,
    wide: Annotated[
        bool,
        typer.Option("--wide", help="Show every column of the table, however wide."),
    ] = False,
    columns: Annotated[
        str | None,
        typer.Option(
            "--columns",
            metavar="NAME,...",
            help="The table's statistics, in order (games, wins, win_rate, ci, "
            "avg_cards_left, draws_per_game, ...).",
        ),
    ] = None,
) -> None:
    """Per-player leaderboard: games, wins, win rate with its 95% Wilson interval, and more.

    Only valid games count unless --include-invalid. With --by match, the match
    leaderboard instead (from the matches table, one row per player): matches played, won
    and drawn, the match win rate with its Wilson interval, the average final total and
    the rounds per match; only valid matches (every round valid, properly ended) count
    unless --include-invalid, and --since dates a match by its first round.
    """
    _check_format(fmt)
    if by is not None and by not in STATS_BY:
        raise typer.BadParameter("must be seat, ruleset or match", param_hint="--by")
    if by == "match":
        mdf = _match_board(
            dataset, ruleset=ruleset, player=player, since=since, include_invalid=include_invalid
        )
        if fmt == "table" and dest is None:
            _print_board(mdf, "Match leaderboard", MATCH_BOARD_COLUMNS, wide=wide, names=columns)
            return
        _emit(mdf, fmt, dest)
        return
    df = _leaderboard(
        dataset,
        ruleset=ruleset,
        player=player,
        since=since,
        include_invalid=include_invalid,
        by=by,
    )
    if fmt == "table" and dest is None:
        _print_board(df, "Leaderboard", wide=wide, names=columns)
        return
    _emit(df, fmt, dest)


def _panel(panel: Panel) -> None:
    """Print a panel folding long lines (a path) inside it, never cutting them."""
    out.print(panel, soft_wrap=False)


def _render_game(g: StoredGame) -> None:
    game = g.game
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")  # a long source path wraps, never cut (issue 15)
    status = "[green]valid[/]" if game["valid"] else f"[red]invalid: {game['violation_code']}[/]"
    for key, value in (
        ("game", game["game_id"]),
        ("ruleset", f"{game['ruleset']} (header: {game['header_ruleset']})"),
        ("match / round", f"{game['match_id'] or '-'} / {game['round'] or '-'}"),
        ("players", " ".join(game["players"] or [])),
        ("dealer", game["dealer"] or "-"),
        ("started", game["started_at"] or "-"),
        ("events", str(game["events"])),
        ("status", Text.from_markup(status)),
        ("winner", game["winner"] or "-"),
        ("source", f"{game['source_file']}:{game['source_line']}"),
    ):
        head.add_row(key, value if isinstance(value, Text) else Text(clean(str(value))))
    _panel(Panel(head, title="Game", expand=False))
    if g.results:
        res = pl.DataFrame(g.results).select(
            pl.col("seat"), pl.col("player"), pl.col("won"),
            pl.col("cards_left").alias("cards\nleft"),
            pl.col("points_left").alias("points\nleft"),
            pl.col("round_score").alias("round\nscore"),
            pl.col("cards_played").alias("cards\nplayed"),
            pl.col("turns"),
            pl.col("calls_missed").alias("calls\nmissed"),
        )  # fmt: skip
        _print_table(_rich_table(res, "Result"))
    for v in g.violations:
        text = (
            f"[bold red]{safe(v['code'])}[/] at event {v['event_index']} "
            f"({safe(str(v['file']))}:{v['line']}), player {safe(v['player'] or '-')}\n"
            f"{safe(v['message'])}"
            + (f"\n[dim]legal: {safe(v['expected'])}[/]" if v["expected"] else "")
            + f"\n[dim]rule: {safe(v['rule'])}[/]"
        )
        _panel(Panel(Text.from_markup(text, overflow="fold"), title="Violation", expand=False))
    if g.at_violation:
        _render_violating_event(g)
        return
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
    title = safe(f"State after event {g.at} of {g.stored_events - 1} (line {ev['line']}): {what}")
    _render_state(g.state, title)


def _render_violating_event(g: StoredGame) -> None:
    """At the violating event: the state right before it, then the line as logged."""
    at = g.at
    v = next((v for v in g.violations if v["event_index"] == at), None)
    if not at:
        out.print("[dim]the violation is in the header: there is no state before it[/]")
    else:
        _render_state(
            g.state,
            safe(f"State before event {at} (after event {at - 1}), where the replay stopped"),
        )
    body = Text(overflow="fold")
    if v is not None:
        body.append(clean(f"{v['file']}:{v['line']}") + "\n", style="dim")
    if g.logged is not None:
        body.append(clean(g.logged))
    else:
        body.append("not stored (a dataset written before maumau-log kept it)", style="dim")
    _panel(Panel(body, title=f"Event {at} as logged", expand=False))


def _render_state(s: dict[str, Any] | None, title: str) -> None:
    if s is None:
        _panel(Panel("[dim]the state cannot be rebuilt (no resolved ruleset)[/]", title=title))
        return
    hands = Table(highlight=False)
    for col in ("seat", "player", "cards", "hand", "call due"):
        hands.add_column(col)
    for seat, (player, cards) in enumerate(s["hands"].items()):
        marker = "▶ " if player == s["turn"] else "  "
        hands.add_row(
            str(seat),
            Text(clean(marker + player)),
            str(len(cards)),
            Text(clean(" ".join(cards) or "-")),
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
        facts.add_row(key, Text(clean(str(value))))
    _panel(Panel(facts, title=title, expand=False))
    out.print(hands)


@app.command("game")
def game_cmd(
    dataset: DatasetArg,
    game_id: Annotated[str, typer.Argument(help="The game's id.")],
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            metavar="N",
            help="The event number a report gives (0 = header): the state after it; at the "
            "violating event, the state right before it and the event as logged. Default: "
            "the last stored event.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    try_action: Annotated[
        str | None,
        typer.Option(
            "--try",
            help='Would this action have been legal after event N? e.g. "ben plays 7C" '
            "(DATASET may then also be a log or .mm file; exit 0 legal, 1 not).",
        ),
    ] = None,
) -> None:
    """The dispute view: a game's header, result, violations and full state at event N."""
    if try_action is not None:  # hypothetical moves (issue 13): maumau_log.hypothetical
        from .dispute_cmds import run_try

        run_try(dataset, game_id, at, try_action, as_json, None)
    try:
        g = load_game(dataset, game_id, at)
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))
    if as_json:
        sys.stdout.write(json.dumps(g.to_dict(), default=str) + "\n")
        return
    _render_game(g)


# ---------------------------------------------------------------------------------------
# Matches: the score sheet and the chart of running totals

CHARTS = ("png", "html", "terminal")
"""What ``match --chart`` draws: a PNG file (matplotlib), a self-contained HTML file
(plotly, its JavaScript embedded: no network needed to open it) or text on the terminal."""

_PLOT_HINT = "pip install 'maumau-log[plot]'"


def _when(t: Any) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S") if t is not None else "-"


def _render_match(m: StoredMatch) -> None:
    """The match's header and its score sheet, round by round."""
    match = m.match
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    if match["valid"]:
        status = "[green]valid[/]"
    else:
        why = []
        if match["valid_rounds"] < match["rounds"]:
            why.append(f"{match['rounds'] - match['valid_rounds']} invalid round(s)")
        if not match["over"]:
            why.append("not over")
        elif not match["ended"]:
            why.append("no match_end")
        status = "[red]invalid[/]" + (f" ({safe(', '.join(why))})" if why else "")
    if match["winner"] is not None:
        outcome = str(match["winner"])
    elif match["draw"]:
        outcome = "draw"
    else:
        outcome = "-"
    totals = "  ".join(f"{p} {t}" for p, t in match["totals"].items())
    for key, value in (
        ("match", match["match_id"]),
        ("ruleset", match["ruleset"]),
        ("players", " ".join(m.players)),
        ("rounds", f"{match['rounds']} stored, {match['valid_rounds']} valid"),
        ("totals", totals),
        ("winner", outcome),
        ("ingested", f"{_when(match['first_ingest'])} .. {_when(match['last_ingest'])}"),
    ):
        head.add_row(key, value if isinstance(value, Text) else Text(clean(str(value))))
    head.add_row("status", status)
    _panel(Panel(head, title="Match", expand=False))
    sheet = Table(title="Score sheet", highlight=False, box=box.SIMPLE_HEAD)
    for col in ("round", "dealer", "winner"):
        sheet.add_column(col, justify="right" if col == "round" else "left")
    for p in m.players:
        sheet.add_column(f"{p}\nscore", justify="right")
        sheet.add_column(f"{p}\ntotal", justify="right")
    for r in m.rounds:
        cells = [
            str(r["round"] if r["round"] is not None else "-"),
            r["dealer"] or "-",
            (r["winner"] or "-") if r["valid"] else "invalid",
        ]
        for p in m.players:
            score, total = r["scores"].get(p), r["totals"].get(p)
            cells.append("-" if score is None else str(score))
            cells.append("-" if total is None else str(total))
        sheet.add_row(*(Text(clean(c)) for c in cells))
    _print_table(sheet)


def _series(m: StoredMatch) -> tuple[list[int], dict[str, list[int | None]]]:
    """Rounds (0 for the start) and each player's running total after them (None: unknown)."""
    xs = [0]
    ys: dict[str, list[int | None]] = {p: [0] for p in m.players}
    for r in m.rounds:
        if r["round"] is None:
            continue
        xs.append(r["round"])
        for p in m.players:
            ys[p].append(r["totals"].get(p))
    return xs, ys


def _terminal_chart(m: StoredMatch, width: int = 40) -> None:
    """Running totals as text bars: one line per player per round."""
    xs, ys = _series(m)
    values = [abs(v) for vals in ys.values() for v in vals if v is not None]
    top = max(values, default=0) or 1
    colours = ("cyan", "magenta", "yellow", "green", "blue", "red")
    name_w = max((len(p) for p in m.players), default=1)
    lines = Text()
    for i, x in enumerate(xs[1:], start=1):
        for k, p in enumerate(m.players):
            label = f"r{x:<3} " if k == 0 else " " * 5
            lines.append(label + p.ljust(name_w) + " ")
            v = ys[p][i]
            if v is None:
                lines.append("?\n", style="dim")
                continue
            n = round(width * abs(v) / top)
            lines.append(("█" if v >= 0 else "░") * n, style=colours[k % len(colours)])
            lines.append(f" {v}\n")
    _panel(Panel(lines, title=f"Running totals: {m.match['match_id']}", expand=False))


def _png_chart(m: StoredMatch) -> bytes:
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        fail(f"--chart png needs matplotlib: {_PLOT_HINT}")
    xs, ys = _series(m)
    fig = Figure(figsize=(8, 4.5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    for p, vals in ys.items():
        ax.plot(xs, [float("nan") if v is None else v for v in vals], marker="o", label=p)
    ax.set_title(f"Match {m.match['match_id']} ({m.match['ruleset']}): running totals")
    ax.set_xlabel("round")
    ax.set_ylabel("total")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")  # Figure without pyplot: no GUI backend, no global state
    return buf.getvalue()


def _html_chart(m: StoredMatch) -> bytes:
    try:
        import plotly.graph_objects as go
    except ImportError:
        fail(f"--chart html needs plotly: {_PLOT_HINT}")
    xs, ys = _series(m)
    fig = go.Figure()
    for p, vals in ys.items():
        fig.add_trace(go.Scatter(x=xs, y=vals, mode="lines+markers", name=p))
    fig.update_layout(
        title=f"Match {m.match['match_id']} ({m.match['ruleset']}): running totals",
        xaxis={"title": {"text": "round"}, "dtick": 1},
        yaxis={"title": {"text": "total"}},
    )
    # include_plotlyjs=True embeds plotly.js: the file opens offline (no CDN)
    html = fig.to_html(include_plotlyjs=True, full_html=True)
    return str(html).encode("utf-8")


@app.command("match")
def match_cmd(
    dataset: DatasetArg,
    match_id: Annotated[str, typer.Argument(help="The match's id.")],
    chart: Annotated[
        str | None, typer.Option("--chart", help="Chart the running totals: png, html or terminal.")
    ] = None,
    dest: Annotated[
        Path | None, typer.Option("--out", help="The chart file (for --chart png or html).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """A match's score sheet round by round (dealer, winner, every player's round score and
    running total) and a chart of the running totals.

    --chart terminal draws text bars below the sheet; --chart png (matplotlib) and --chart
    html (plotly, self-contained) write --out FILE (install with the \\[plot] extra). --json
    prints {"match": the matches row, "rounds": [{round, game_id, dealer, winner, valid,
    scores, totals}, ...]} instead of the sheet.
    """
    if chart is not None and chart not in CHARTS:
        fail(f"--chart must be one of {', '.join(CHARTS)}, not {chart!r}")
    if chart in ("png", "html") and dest is None:
        fail(f"--chart {chart} needs --out FILE")
    if dest is not None and chart not in ("png", "html"):
        fail("--out is for --chart png or html")
    if as_json and chart == "terminal":
        fail("--chart terminal prints on the terminal; with --json use --chart png or html")
    try:
        m = load_match(dataset, match_id)
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))
    if chart in ("png", "html"):
        assert dest is not None
        data = _png_chart(m) if chart == "png" else _html_chart(m)
        try:
            dest.write_bytes(data)
        except OSError as exc:
            fail(f"{dest}: cannot write: {exc.strerror or exc}")
        err.print(f"wrote the {chart} chart ({len(data):,} bytes) to {dest}", highlight=False)
    if as_json:
        sys.stdout.write(json.dumps(m.to_dict(), default=str) + "\n")
        return
    _render_match(m)
    if chart == "terminal":
        _terminal_chart(m)


@app.command("query")
def query_cmd(
    dataset: DatasetArg,
    sql: Annotated[
        str, typer.Argument(help="SQL over games, results, events, violations, matches.")
    ],
    fmt: Annotated[str, typer.Option("--format", help="table, csv or json.")] = "table",
    limit: Annotated[
        int, typer.Option(help="Rows shown by --format table (csv and json show all).")
    ] = 100,
) -> None:
    """Run SQL (Polars SQL) over the dataset's tables: games, results, events, violations,
    matches."""
    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("must be table, csv or json", param_hint="--format")
    try:
        frames = scan_all(dataset)
        check_query(sql, frames)
        ctx = pl.SQLContext(frames=frames, eager=False)
        lf = ctx.execute(sql, eager=False)
        df = lf.collect()
    except BadQuery as exc:
        fail(f"bad query: {exc}")
    except QueryRefused as exc:
        fail(f"query refused: {exc}")
    except DatasetError as exc:
        fail(str(exc))
    except _QUERY_FAULTS as exc:
        fail(f"bad query: {_polars_error(exc)}")
    except pl.exceptions.PolarsError as exc:  # a file Polars cannot read: damaged data
        fail(dataset_read_error(exc, dataset))
    if fmt == "table" and df.height > limit:
        err.print(f"showing {limit} of {df.height} rows (use --limit, or --format csv)")
        df = df.head(limit)
    _emit(df, fmt, None)


@app.command("analyze")
def analyze_cmd(
    paths: Annotated[
        list[str],
        typer.Argument(help="Log files or directories (with --engine ray also URIs: s3://...)."),
    ],
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder.")
    ] = DEFAULT_DATASET,
    rules: RulesOpt = None,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar on stderr.")] = True,
) -> None:
    """Validate, ingest and rank in one go: the violations, then the leaderboard.

    The leaderboard counts the valid games of the logs given (also those already stored).
    Exit 0 when every game is valid, 1 when any violation or conflict is found, 2 for usage
    errors or unreadable input, 4 when a shard failed.
    """
    runner = make_runner(engine, jobs, address)
    run = ValidationRun()
    summary = _run_ingest(paths, dataset, rules, on_report=run.add, runner=runner,
                          progress=progress, uris=engine == "ray")  # fmt: skip
    run.print_report()
    _print_ingest(summary)
    df = _leaderboard(dataset, game_ids=summary.game_ids)
    if df.height:
        _print_board(df, "Leaderboard (valid games)")
    else:
        err.print("no valid games to rank")
    code = summary.exit_code
    raise typer.Exit(code)


__all__ = [
    "EXIT_USAGE",
    "analyze_cmd",
    "game_cmd",
    "ingest_cmd",
    "match_cmd",
    "query_cmd",
    "stats_cmd",
]
