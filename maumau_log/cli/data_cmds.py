"""Dataset commands: ``game``, ``query``, ``analyze``; ``ingest`` (:mod:`.ingest_cmds`, which
imports no Polars), ``stats`` and ``match`` are registered from here too, in this order.

Thin wrappers: :mod:`maumau_log.run.ingest` ingests and reads games back,
:mod:`maumau_log.stats.players` builds the lazy queries, this module collects and prints. Data
goes to stdout, summaries and errors to stderr. Bad input (a missing dataset, a folder that is
not one, an unknown game, bad SQL) is one line on stderr and exit 2.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..store import DatasetError
from . import (
    EXIT_USAGE,
    app,
    clean,
    dataset_read_error,
    err,
    fail,
    out,
    safe,
)
from .frames import (
    DatasetArg,
    _emit,
    _panel,
    _print_board,
    _print_table,
    _rich_table,
)
from .ingest_cmds import ingest_cmd, print_ingest, run_ingest  # registers ``ingest`` first
from .replay_cmds import RulesOpt, ValidationRun
from .run_opts import AddressOpt, EngineOpt, JobsOpt, LogPathsArg, ProgressOpt, make_runner
from .tables import BOARD_TITLE

if TYPE_CHECKING:
    from ..run.ingest import StoredGame


def load_game(*args: Any, **kwargs: Any) -> StoredGame:
    """:func:`maumau_log.run.ingest.load_game`, imported when called."""
    from ..run.ingest import load_game as run

    return run(*args, **kwargs)


DEFAULT_DATASET = Path("maumau-data")
"""Where ``analyze`` keeps its dataset when ``--out`` is not given."""


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


_RESULT_FAULTS = (
    pl.exceptions.PanicException,
    pl.exceptions.ComputeError,
    ValueError,
    OverflowError,
)
"""What Polars raises while it computes or Python while it shows a query's answer when the
query asks the impossible: a Rust panic (``cast(1 as decimal(38,40))``), a date beyond
year 9999 (``now() + interval '9999999999 days'``). Exit 2, "bad query", unless a stored
file turns out damaged (:func:`_result_fault`)."""


class _HeldStderr:
    """Whether what was written to the stderr descriptor meanwhile is dropped."""

    def __init__(self) -> None:
        self.cleared = False


@contextlib.contextmanager
def _rust_stderr_held() -> Iterator[_HeldStderr]:
    """Hold what is written to file descriptor 2 (where a Rust panic prints itself and
    its backtrace, past Python's ``sys.stderr``) while the block runs; write it out after,
    unless the block raised one of :data:`_RESULT_FAULTS` (told in one line instead).
    """
    held = _HeldStderr()
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no real descriptor 2: nothing to hold
        yield held
        return
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield held
        except _RESULT_FAULTS:  # the query's fault, told in one line: no backtrace
            held.cleared = True
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if not held.cleared:
                tmp.seek(0)
                text = tmp.read()
                if text:
                    os.write(2, text)


def _result_fault(exc: BaseException, dataset: object) -> str:
    """The message for an error while a query's answer was computed: a damaged stored file
    (named, :func:`dataset_read_error`), a result too large, or else the query's fault."""
    text = _polars_error(exc)
    if not isinstance(exc, (ValueError, OverflowError)):
        from ..store import unreadable_file

        if "maximum length reached" in text or unreadable_file(str(dataset)) is not None:
            return dataset_read_error(exc, dataset)
    return f"bad query: {text}"


def _polars_error(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()
    return first[0] if first else type(exc).__name__


# ---------------------------------------------------------------------------------------
# Commands


# ``stats`` lives in its own module (it starts without the replay stack); imported
# here, between ``ingest`` and ``game``, so that --help lists the commands in the same order.
from .stats_cmds import _leaderboard, stats_cmd  # noqa: E402


def _extent(events: int | None) -> str:
    """A game's events as every dispute tool states them: ``"0 to 50"`` for a game of 51
    lines (FORMAT.md: the header is event 0), never a count that reads as the last index."""
    return f"0 to {events - 1:,}" if events else "none"


def _render_game(g: StoredGame) -> None:
    game = g.game
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold", no_wrap=True)
    head.add_column(overflow="fold")  # a long source path wraps, never cut
    status = "[green]valid[/]" if game["valid"] else f"[red]invalid: {game['violation_code']}[/]"
    for key, value in (
        ("game", game["game_id"]),
        ("ruleset", f"{game['ruleset']} (header: {game['header_ruleset'] or '-'})"),
        ("match / round", f"{game['match_id'] or '-'} / {game['round'] or '-'}"),
        ("players", " ".join(game["players"] or [])),
        ("dealer", game["dealer"] or "-"),
        ("started", game["started_at"] or "-"),
        ("events", _extent(game["events"])),
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
    title = safe(
        f"State after event {g.at} of {_extent(g.game['events'])} (line {ev['line']}): {what}"
    )
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
    # who acts next: while a wild card's suit is owed, the player who played it names the
    # suit before the player whose turn it then is (FORMAT.md Conventions: a wild card is
    # followed by a ``suit`` event from its player)
    acts = s["awaiting_suit"] or s["turn"]
    turn = s["turn"] or "-"
    if s["awaiting_suit"]:
        turn = f"{s['awaiting_suit']} names a suit first, then it is {turn}'s turn"
    for seat, (player, cards) in enumerate(s["hands"].items()):
        marker = "▶ " if player == acts else "  "
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
        ("turn", turn),
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


def _game_from_file(source: Path, game_id: str, at: int | None) -> StoredGame:
    """``game`` on a log or ``.mm`` file: the file is ingested into a temporary dataset
    (removed afterwards) and the game read back from it, so the view is the one a dataset
    of that file gives (the same checks, the same numbering).

    Raises:
        DatasetError: no such game in the file, or ``at`` out of range.
    """
    import tempfile

    with tempfile.TemporaryDirectory(prefix="maumau-log-game-") as tmp:
        ds = Path(tmp) / "dataset"
        run_ingest([str(source)], ds, None, progress=False, keep_game_ids=False)
        try:
            return load_game(ds, game_id, at)
        except DatasetError as exc:
            raise DatasetError(str(exc).replace(str(ds), str(source))) from None


@app.command("game")
def game_cmd(
    source: Annotated[
        Path,
        typer.Argument(
            help="A dataset folder made by ingest, or a log or .mm file (replayed first)."
        ),
    ],
    game_id: Annotated[
        str | None,
        typer.Argument(help="The game's id; may be left out when SOURCE holds one game."),
    ] = None,
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
            "(exit 0 legal, 1 not).",
        ),
    ] = None,
) -> None:
    """The dispute view: a game's header, result, violations and full state at event N."""
    from .dispute_cmds import one_game_id

    game_id = one_game_id(source, game_id)
    if try_action is not None:  # hypothetical moves: maumau_log.disputes.hypothetical
        from .dispute_cmds import run_try

        run_try(source, game_id, at, try_action, as_json, None)
    try:
        if source.is_file():
            g = _game_from_file(source, game_id, at)
        else:
            g = load_game(source, game_id, at)
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, source))
    if as_json:
        sys.stdout.write(json.dumps(g.to_dict(), default=str) + "\n")
        return
    _render_game(g)


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
    """Run SQL (Polars SQL) over the dataset's tables.

    The tables: games, results, events, violations, matches (docs: the dataset reference).
    """
    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("must be table, csv or json", param_hint="--format")
    from ..api.dataset import Dataset
    from ..store.sqlguard import BadQuery, QueryRefused  # sqlglot: only for query

    try:
        with _rust_stderr_held():
            df = Dataset(dataset).sql(sql)
    except BadQuery as exc:
        fail(f"bad query: {exc}")
    except QueryRefused as exc:
        fail(f"query refused: {exc}")
    except DatasetError as exc:
        fail(str(exc))
    except _QUERY_FAULTS as exc:
        fail(f"bad query: {_polars_error(exc)}")
    except _RESULT_FAULTS as exc:  # a panic's backtrace (held) is not shown
        fail(_result_fault(exc, dataset))
    except pl.exceptions.PolarsError as exc:  # a file Polars cannot read: damaged data
        fail(dataset_read_error(exc, dataset))
    if fmt == "table" and df.height > limit:
        err.print(f"showing {limit:,} of {df.height:,} rows (use --limit, or --format csv)")
        df = df.head(limit)
    try:
        with _rust_stderr_held():
            _emit(df, fmt, None)
    except _RESULT_FAULTS as exc:  # a value Python cannot show (a date beyond year 9999)
        fail(f"bad query: cannot show the result: {_polars_error(exc)}")


@app.command("analyze")
def analyze_cmd(
    paths: LogPathsArg,
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder.")
    ] = DEFAULT_DATASET,
    rules: RulesOpt = None,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Validate, ingest and rank in one go: the violations, then the leaderboard.

    The leaderboard counts the valid games of the logs given (also those already stored).
    Exit 0 when every game is valid, 1 when any violation or conflict is found, 2 for usage
    errors or unreadable input, 4 when a shard failed.
    """
    runner = make_runner(engine, jobs, address)
    run = ValidationRun()
    summary = run_ingest(paths, dataset, rules, on_report=run.add, runner=runner,
                          progress=progress, uris=engine == "ray")  # fmt: skip
    run.print_report()
    print_ingest(summary)
    df = _leaderboard(dataset, game_ids=summary.game_ids)
    if df.height:
        _print_board(df, BOARD_TITLE.replace("Leaderboard", "Leaderboard of valid games", 1))
    else:
        err.print("no valid games to rank")
    code = summary.exit_code
    raise typer.Exit(code)


__all__ = [
    "EXIT_USAGE",
    "analyze_cmd",
    "game_cmd",
    "ingest_cmd",
    "query_cmd",
    "stats_cmd",
]


from . import match_cmds  # noqa: E402, F401  (registers ``match``: one module before the split)
