"""The ``ratings`` command: OpenSkill ratings of the players, their history, their check.

A thin layer over :mod:`maumau_log.stats.ratings` (the ranking rule, the rating loop),
:mod:`maumau_log.stats.rating_eval` (``--evaluate``) and
:mod:`maumau_log.stats.rating_cache` (the cache outside the dataset). Exit codes: 0 done;
2 a bad option, a missing or damaged dataset, a file that cannot be written.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from ..stats.ratings import (
    BY_CHOICES,
    MODELS,
    RatingModel,
    history_frame,
    rate,
    ratings_frame,
)
from ..store.manifest import DatasetError, scan
from . import app, dataset_read_error, err, fail, out
from .date_opts import SinceOpt, UntilOpt
from .frames import DatasetArg, _check_format, _emit, _print_board, note_nothing_matched
from .tables import BoardColumn

CHARTS = ("png", "html", "terminal")
"""What ``--chart`` draws: a PNG (matplotlib, the ``plot`` extra), a self-contained HTML
file (plotly, a dependency) or text on the terminal."""

TOP = 8
"""Players charted without ``--player``: the best by conservative rating."""

RATING_COLUMNS: tuple[BoardColumn, ...] = (
    BoardColumn("rating", "rating\nmu-3σ", ".2f"),
    BoardColumn("mu", "mu", ".2f"),
    BoardColumn("sigma", "sigma", ".2f"),
    BoardColumn("rounds", "rounds", "d"),
    BoardColumn("first_played", "first\nplayed", "%Y-%m-%d"),
    BoardColumn("last_played", "last\nplayed", "%Y-%m-%d"),
)
"""The ratings table's columns (a ``first``/``last`` date is UTC; ``-`` when unknown)."""

_PLOT_HINT = "pip install 'maumau-log[plot]'"


def _pool(ruleset: str | None) -> list[str] | None:
    """``--ruleset A,B``: the canonical preset names (aliases resolved), or None."""
    if ruleset is None:
        return None
    from ..rules import RulesetError, find_preset

    names = set()
    for given in (r.strip() for r in ruleset.split(",") if r.strip()):
        try:
            names.add(find_preset(given))
        except RulesetError:
            names.add(given)  # no preset: it matches no game
    return sorted(names) or None


def contests_of(
    dataset: Path, by: str, pool: list[str] | None, since: str | None, until: str | None
) -> pl.DataFrame:
    """The ranked contests of a dataset (rounds or matches), or exit 2 with the reason."""
    from ..stats.ratings import match_contests, round_contests

    try:
        games = scan(dataset, "games")
        if by == "match":
            return match_contests(
                games, scan(dataset, "matches"), pool=pool, since=since, until=until
            )
        return round_contests(games, scan(dataset, "results"), pool=pool, since=since, until=until)
    except (DatasetError, ValueError) as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        fail(dataset_read_error(exc, dataset))


def with_ratings(
    df: pl.DataFrame,
    dataset: Path,
    *,
    ruleset: str | None,
    since: str | None,
    until: str | None,
    by: str | None,
) -> pl.DataFrame:
    """The leaderboard ``df`` (``stats``) with each player's ``rating``, ``mu`` and
    ``sigma`` joined: per player and ruleset with ``by="ruleset"``, else one rating per
    player over the rulesets of the selection (``--ruleset``, or every ruleset stored,
    pooled). Rounds are rated as ``maumau-log ratings`` rates them (valid rounds only)."""
    if by == "ruleset":
        pool = _pool(ruleset)
    else:
        pool = _pool(ruleset)
        if pool is None:
            try:
                stored = scan(dataset, "games").select("ruleset").unique().collect()
            except (DatasetError, pl.exceptions.PolarsError) as exc:
                fail(str(exc))
            pool = sorted(stored.get_column("ruleset").to_list())
    board = ratings_table(dataset, pool=pool, since=since, until=until)
    board = board.select("player", "ruleset", "mu", "sigma", "rating")
    if by != "ruleset":
        return df.join(board.drop("ruleset"), on="player", how="left")
    return df.join(board, on=["player", "ruleset"], how="left")


def _cached(dataset: Path, options: dict[str, Any], schema: pl.Schema) -> tuple[str, Any]:
    """The cache key for these options and the cached frame (or None)."""
    from ..stats import rating_cache
    from ..store.paths import read_manifest_text

    try:
        key = rating_cache.cache_key(read_manifest_text(dataset), options)
    except (OSError, DatasetError, UnicodeDecodeError):
        return "", None
    return key, rating_cache.load(key, schema)


def ratings_table(
    dataset: Path,
    *,
    by: str = "round",
    model: str | RatingModel = "plackett-luce",
    pool: list[str] | None = None,
    since: str | None = None,
    until: str | None = None,
) -> pl.DataFrame:
    """Every player's rating (:func:`maumau_log.stats.ratings.ratings_frame`), from the
    cache when the dataset and the options are the same as a call before."""
    from ..stats import rating_cache

    options = {
        "what": "ratings",
        "by": by,
        "model": str(model),
        "pool": pool,
        "since": since,
        "until": until,
    }
    probe = ratings_frame(rate(pl.DataFrame(schema=_CONTEST_SCHEMA), model))
    key, hit = _cached(dataset, options, probe.schema)
    if hit is not None:
        return hit
    df = ratings_frame(rate(contests_of(dataset, by, pool, since, until), model))
    if key:
        rating_cache.store(key, df)
    return df


_CONTEST_SCHEMA = pl.Schema(
    [
        ("contest", pl.String()),
        ("group", pl.String()),
        ("player", pl.String()),
        ("rank", pl.Int32()),
        ("won", pl.Boolean()),
        ("when", pl.Datetime("us", "UTC")),
    ]
)
"""The columns of :func:`maumau_log.stats.ratings.round_contests`' frame."""


def _evaluation(
    dataset: Path,
    by: str,
    model: RatingModel,
    pool: list[str] | None,
    since: str | None,
    until: str | None,
) -> dict[str, Any]:
    from ..stats import rating_cache
    from ..stats.rating_eval import evaluate

    options = {
        "what": "evaluate",
        "by": by,
        "model": str(model),
        "pool": pool,
        "since": since,
        "until": until,
    }
    schema = pl.Schema({"doc": pl.String})
    key, hit = _cached(dataset, options, schema)
    if hit is not None and hit.height == 1:
        return dict(json.loads(hit.item()))
    try:
        doc = evaluate(contests_of(dataset, by, pool, since, until), model)
    except ValueError as exc:
        fail(str(exc))
    doc["by"] = by
    if key:
        rating_cache.store(key, pl.DataFrame({"doc": [json.dumps(doc)]}, schema=schema))
    return doc


def _print_evaluation(doc: dict[str, Any]) -> None:
    from rich import box
    from rich.table import Table

    t = Table(
        title=f"Forecasting the winners of the last {doc['test_contests']:,} {doc['by']}s "
        f"from ratings of the first {doc['train_contests']:,} ({doc['model']}; "
        f"{doc['forecast_contests']:,} with one winner)",
        box=box.SIMPLE_HEAD,
        highlight=False,
    )
    t.add_column("forecast")
    for col in ("log loss", "Brier", "top-1 acc."):
        t.add_column(col, justify="right")
    names = {
        "rating": "rating (openskill)",
        "equal": "every player equal",
        "win_rate": "past win rate",
    }
    for f, label in names.items():
        cells = [doc[m][f] for m in ("log_loss", "brier", "accuracy")]
        t.add_row(label, *("-" if v is None else f"{v:.4f}" for v in cells))
    out.print(t)
    err.print("lower log loss and Brier are better; higher accuracy is better", highlight=False)


# ------------------------------------------------------------------------------ charts


def _history(
    dataset: Path,
    board: pl.DataFrame,
    by: str,
    model: RatingModel,
    pool: list[str] | None,
    since: str | None,
    until: str | None,
) -> pl.DataFrame:
    track = set(zip(board.get_column("ruleset"), board.get_column("player"), strict=True))
    rated = rate(contests_of(dataset, by, pool, since, until), model, track=track)
    return history_frame(rated)


def _series(hist: pl.DataFrame) -> list[tuple[str, list[int], list[float], list[float]]]:
    several = hist.get_column("ruleset").n_unique() > 1
    lines = []
    for (player, ruleset), part in hist.group_by("player", "ruleset", maintain_order=True):
        label = f"{player} ({ruleset})" if several else str(player)
        xs = part.get_column("contest").to_list()
        lines.append(
            (label, xs, part.get_column("mu").to_list(), part.get_column("sigma").to_list())
        )
    return lines


def _png(hist: pl.DataFrame, title: str, unit: str) -> bytes:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        fail(f"--chart png needs matplotlib: {_PLOT_HINT}")
    fig = Figure(figsize=(9, 5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    for label, xs, mus, sigmas in _series(hist):
        (line,) = ax.plot(xs, mus, label=label)
        ax.fill_between(
            xs,
            [m - s for m, s in zip(mus, sigmas, strict=True)],
            [m + s for m, s in zip(mus, sigmas, strict=True)],
            color=line.get_color(),
            alpha=0.15,
        )
    ax.set_title(title)
    ax.set_xlabel(f"{unit} (all players, in time order)")
    ax.set_ylabel("mu (band: ± sigma)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _html(hist: pl.DataFrame, title: str, unit: str) -> bytes:
    import plotly.graph_objects as go

    fig = go.Figure()
    for label, xs, mus, sigmas in _series(hist):
        upper = [m + s for m, s in zip(mus, sigmas, strict=True)]
        lower = [m - s for m, s in zip(mus, sigmas, strict=True)]
        fig.add_trace(
            go.Scatter(
                x=xs + xs[::-1],
                y=upper + lower[::-1],
                fill="toself",
                opacity=0.2,
                line={"width": 0},
                showlegend=False,
                hoverinfo="skip",
                legendgroup=label,
            )
        )
        fig.add_trace(go.Scatter(x=xs, y=mus, mode="lines", name=label, legendgroup=label))
    fig.update_layout(
        title=title,
        xaxis={"title": {"text": f"{unit} (all players, in time order)"}},
        yaxis={"title": {"text": "mu (band: ± sigma)"}},
    )
    # include_plotlyjs=True embeds plotly.js: the file opens offline (no CDN)
    return str(fig.to_html(include_plotlyjs=True, full_html=True)).encode("utf-8")


def _terminal(hist: pl.DataFrame, title: str, width: int = 40) -> None:
    """Each charted player's mu at ten points of their history, as text bars."""
    from rich.panel import Panel
    from rich.text import Text

    from . import clean

    lines = _series(hist)
    values = [m + s for _, _, mus, sig in lines for m, s in zip(mus, sig, strict=True)]
    low = min(
        (m - s for _, _, mus, sig in lines for m, s in zip(mus, sig, strict=True)), default=0.0
    )
    top = max(values, default=1.0)
    span = (top - low) or 1.0
    text = Text()
    for label, xs, mus, sigmas in lines:
        text.append(clean(label) + "\n", style="bold")
        marks = sorted({round(i * (len(xs) - 1) / 9) for i in range(10)}) if xs else []
        for i in marks:
            n = round(width * (mus[i] - low) / span)
            text.append(f"  {xs[i]:>9,} ")
            text.append("█" * n, style="cyan")
            text.append(f" {mus[i]:.1f} ± {sigmas[i]:.1f}\n")
    out.print(Panel(text, title=title, expand=False), soft_wrap=False)


# ----------------------------------------------------------------------------- command


@app.command("ratings")
def ratings_cmd(
    dataset: DatasetArg,
    ruleset: Annotated[
        str | None,
        typer.Option(metavar="NAME,...", help="Only these rulesets, rated as one (pooled)."),
    ] = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    by: Annotated[str, typer.Option(help="Rate each round, or each whole match.")] = "round",
    model: Annotated[
        str, typer.Option(help=f"The OpenSkill model: {', '.join(MODELS)}.")
    ] = "plackett-luce",
    tau: Annotated[
        float | None,
        typer.Option(
            help="The dynamics factor: uncertainty added before each contest, so ratings "
            "follow recent play (default: openskill's 25/300).",
            show_default=False,
        ),
    ] = None,
    beta: Annotated[
        float | None,
        typer.Option(
            help="The performance spread: the skill gap at which the better player wins "
            "about 76% (default: openskill's 25/6).",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="table, csv, json or parquet.")] = "table",
    dest: Annotated[Path | None, typer.Option("--out", help="Write to this file.")] = None,
    chart: Annotated[
        str | None,
        typer.Option(help="Chart the rating histories: png, html (with --out) or terminal."),
    ] = None,
    player: Annotated[str | None, typer.Option(help="Only this player id.")] = None,
    evaluate: Annotated[
        bool,
        typer.Option("--evaluate", help="Rate the first 80% in time, forecast the last 20%."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    wide: Annotated[bool, typer.Option("--wide", help="Show every column, however wide.")] = False,
) -> None:
    """OpenSkill ratings (Weng-Lin, Plackett-Luce by default) from every valid round.

    A round ranks its winner first, then the others by points left in hand where the
    ruleset scores rounds, by cards left otherwise (equal = tied). Rounds are rated in time
    order (started_at, then game_id): the same ratings whatever files or jobs the ingest
    used. One rating per player and ruleset; --ruleset A,B pools those rulesets. The table
    is sorted by the conservative rating mu - 3 sigma. --by match rates whole matches
    (winner first, then by final total). --evaluate rates the first 80% of the rounds and
    forecasts the winners of the rest: log loss, Brier score and accuracy against every
    player equal and the past win rate. Results are cached per dataset version outside
    the dataset (MAUMAU_LOG_CACHE=off turns it off).
    """
    _check_format(fmt)
    if by not in BY_CHOICES:
        raise typer.BadParameter("must be round or match", param_hint="--by")
    if model not in MODELS:
        raise typer.BadParameter(f"must be one of {', '.join(MODELS)}", param_hint="--model")
    try:
        spec = RatingModel(model, tau, beta)
    except ValueError as exc:
        fail(str(exc))
    if chart is not None and chart not in CHARTS:
        raise typer.BadParameter(f"must be one of {', '.join(CHARTS)}", param_hint="--chart")
    if chart in ("png", "html") and dest is None:
        fail(f"--chart {chart} needs --out FILE")
    if chart is not None and (evaluate or fmt != "table" or as_json):
        fail("--chart draws the rating histories: no --evaluate, --format or --json with it")
    pool = _pool(ruleset)
    if evaluate:
        if dest is not None or fmt != "table":
            fail("--evaluate prints a table, or JSON with --json")
        doc = _evaluation(dataset, by, spec, pool, since, until)
        if as_json:
            sys.stdout.write(json.dumps(doc, indent=1) + "\n")
        else:
            _print_evaluation(doc)
        return
    df = ratings_table(dataset, by=by, model=spec, pool=pool, since=since, until=until)
    if player is not None:
        df = df.filter(pl.col("player") == player)
    if chart is not None:
        unit = "matches" if by == "match" else "rounds"
        board = df if player is not None else df.head(TOP)
        if board.is_empty():
            fail("no ratings to chart" + (f" for player {player!r}" if player else ""))
        hist = _history(dataset, board, by, spec, pool, since, until)
        title = f"Ratings ({spec}, by {by})"
        if chart == "terminal":
            _terminal(hist, title)
            return
        assert dest is not None
        data = _png(hist, title, unit) if chart == "png" else _html(hist, title, unit)
        try:
            dest.write_bytes(data)
        except OSError as exc:
            fail(f"{dest}: cannot write: {exc.strerror or exc}")
        err.print(f"wrote the {chart} chart ({len(data):,} bytes) to {dest}", highlight=False)
        return
    if as_json:
        doc = {"model": str(spec), "by": by, "ratings": df.to_dicts()}
        sys.stdout.write(json.dumps(doc, default=str) + "\n")
        return
    if fmt == "table" and dest is None:
        groups = df.get_column("ruleset").unique().to_list()
        shown = df.drop("ruleset") if len(groups) == 1 else df
        where = f", {groups[0]}" if len(groups) == 1 else ""
        title = f"Ratings ({spec}, by {by}{where}), sorted by the conservative rating mu - 3 sigma"
        _print_board(shown, title, RATING_COLUMNS, wide=wide)
        if df.is_empty():
            filters = {"--ruleset": ruleset, "--player": player, "--since": since, "--until": until}
            note_nothing_matched(dataset, filters)
        return
    _emit(df, fmt, dest)
