"""The ``match`` command: a match's score sheet and the chart of its running totals
(split out of :mod:`.data_cmds`)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import polars as pl
import typer
from rich import box
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..store import DatasetError
from . import (
    app,
    clean,
    dataset_read_error,
    err,
    fail,
    safe,
)
from .frames import (
    DatasetArg,
    _panel,
    _print_table,
)

if TYPE_CHECKING:
    from ..run.ingest import StoredMatch


def load_match(*args: Any, **kwargs: Any) -> StoredMatch:
    """:func:`maumau_log.run.ingest.load_match`, imported when called."""
    from ..run.ingest import load_match as run

    return run(*args, **kwargs)


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
    """A match's score sheet round by round, and a chart of the running totals.

    Each round: its dealer, winner, and every player's round score and running total.

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
