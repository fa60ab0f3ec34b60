"""The ``stats`` command: the player and match leaderboards of a dataset (issues 3, 6).

Its own module so that ``maumau-log stats`` imports only what a query needs: Polars, typer,
rich and :mod:`maumau_log.store.manifest` (no pyarrow, no replay engine, no process pool;
issue 11: ``stats`` over 10^6 games under a second as a whole process).
:mod:`.data_cmds` imports it (``analyze`` prints the same leaderboard).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from ..stats.players import STATS_BY, filter_matches, filter_results, match_stats, player_stats
from ..store.manifest import DatasetError, scan
from . import app, dataset_read_error, fail
from .frames import DatasetArg, _check_format, _emit, _print_board
from .tables import BOARD_TITLE, MATCH_BOARD_COLUMNS, MATCH_BOARD_TITLE


def _preset(ruleset: str | None) -> str | None:
    """The canonical preset name for ``--ruleset`` (an alias resolved); a name that is no
    preset is kept: it matches no game. :mod:`maumau_log.rules` is imported only here."""
    if ruleset is None:
        return None
    from ..rules import RulesetError, find_preset

    with contextlib.suppress(RulesetError):
        return find_preset(ruleset)
    return ruleset


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
        ruleset = _preset(ruleset)
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
        ruleset = _preset(ruleset)
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
            _print_board(mdf, MATCH_BOARD_TITLE, MATCH_BOARD_COLUMNS, wide=wide, names=columns)
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
        _print_board(df, BOARD_TITLE, wide=wide, names=columns)
        return
    _emit(df, fmt, dest)
