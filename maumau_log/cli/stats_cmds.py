"""The ``stats`` command: the player and match leaderboards of a dataset.

Its own module so that ``maumau-log stats`` imports only what a query needs: Polars, typer,
rich and :mod:`maumau_log.store.manifest` (no pyarrow, no replay engine, no process pool:
``stats`` over 10^6 games under a second as a whole process).
:mod:`.data_cmds` imports it (``analyze`` prints the same leaderboard).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from ..api.dataset import Dataset
from ..stats.players import STATS_BY
from ..store.manifest import DatasetError
from . import app, dataset_read_error, fail
from .date_opts import SinceOpt, UntilOpt
from .frames import DatasetArg, _check_format, _emit, _print_board, note_nothing_matched
from .tables import BOARD_COLUMNS, BOARD_TITLE, MATCH_BOARD_COLUMNS, MATCH_BOARD_TITLE


def _leaderboard(
    dataset: Path,
    *,
    by: str | None = None,
    game_ids: list[str] | None = None,
    **filters: Any,
) -> pl.DataFrame:
    """:meth:`maumau_log.api.Dataset.stats` with ``filters`` (``ruleset``, ``player``,
    ``since``, ``until``, ``include_invalid``; ``by="match"``: the match leaderboard;
    ``game_ids``: the leaderboard of those games, as ``analyze`` ranks them), or exit 2."""
    try:
        ds = Dataset(dataset)
        if game_ids is not None:
            return ds.leaderboard(game_ids=game_ids, **filters)
        return ds.stats(by=by, **filters)
    except (DatasetError, ValueError) as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))


@app.command("stats")
def stats_cmd(
    dataset: DatasetArg,
    ruleset: Annotated[str | None, typer.Option(help="Only this ruleset (preset).")] = None,
    player: Annotated[str | None, typer.Option(help="Only this player id.")] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
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
            "avg_cards_left, draws_per_game, ...; rating, mu, sigma: the OpenSkill rating).",
        ),
    ] = None,
) -> None:
    """Per-player leaderboard: games, wins, win rate with its 95% Wilson interval, and more.

    Only valid games count unless --include-invalid. With --by match, the match
    leaderboard instead (from the matches table, one row per player): matches played, won
    and drawn, the match win rate with its Wilson interval, the average final total and
    the rounds per match; only valid matches (every round valid, properly ended) count
    unless --include-invalid, and --since and --until date a match by its first round.
    --columns rating,mu,sigma adds each player's OpenSkill rating (as maumau-log ratings:
    per ruleset with --by ruleset, else over the rulesets shown).
    """
    _check_format(fmt)
    if by is not None and by not in STATS_BY:
        raise typer.BadParameter("must be seat, ruleset or match", param_hint="--by")
    filters: dict[str, Any] = {
        "ruleset": ruleset,
        "player": player,
        "since": since,
        "until": until,
        "include_invalid": include_invalid,
    }
    if by == "match":
        mdf = _leaderboard(dataset, by="match", **filters)
        if fmt == "table" and dest is None:
            _print_board(mdf, MATCH_BOARD_TITLE, MATCH_BOARD_COLUMNS, wide=wide, names=columns)
            if mdf.is_empty():
                given = _filters(ruleset, player, since, until)
                note_nothing_matched(dataset, given, "valid matches")
            return
        _emit(mdf, fmt, dest)
        return
    df = _leaderboard(dataset, by=by, **filters)
    board = BOARD_COLUMNS
    if columns and {c.strip() for c in columns.split(",")} & {"rating", "mu", "sigma"}:
        from .ratings_cmds import RATING_COLUMNS, with_ratings

        df = with_ratings(df, dataset, ruleset=ruleset, since=since, until=until, by=by)
        board = BOARD_COLUMNS + RATING_COLUMNS[:3]
    if fmt == "table" and dest is None:
        _print_board(df, BOARD_TITLE, board, wide=wide, names=columns)
        if df.is_empty():
            note_nothing_matched(dataset, _filters(ruleset, player, since, until))
        return
    _emit(df, fmt, dest)


def _filters(
    ruleset: str | None, player: str | None, since: str | None, until: str | None
) -> dict[str, str | None]:
    return {"--ruleset": ruleset, "--player": player, "--since": since, "--until": until}
