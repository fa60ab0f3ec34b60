"""Leaderboard tables that fit the terminal.

The leaderboard has more statistics than an 80-column terminal holds. :func:`board_table`
chooses its columns by width: the key columns (player, and seat or ruleset), then the
statistics in :data:`BOARD_COLUMNS` order while they fit; the rest are named in one line
below (``--wide`` shows them all, ``--columns`` chooses). Nothing inside a number wraps
(numeric columns never wrap), a long player name is cut with an ellipsis, every header
says whether it is a total over the games or a mean per game, and a confidence interval
gets the digits it needs to differ from its estimate (at a million games the 95% Wilson
interval of 50% is 49.9-50.1, not 50-50).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from rich import box
from rich.table import Table
from rich.text import Text

from . import clean

NAME_WIDTH = 20
"""Characters of a player id shown before the ellipsis."""


@dataclass(frozen=True)
class BoardColumn:
    """One statistic of a leaderboard table.

    Attributes:
        key: the column of the statistics frame (``win_rate``).
        header: the table header (two lines at most).
        fmt: ``"d"`` (a count, shown with a comma between thousands: ``9,341``), a float
            format (``".2f"``), ``"pct"`` (a rate shown in %) or ``"ci"``
            (``key`` is the interval's low end; ``key`` with ``_low`` made ``_high`` is the
            high end; the estimate is ``key`` without ``_low``).
    """

    key: str
    header: str
    fmt: str


BOARD_COLUMNS: tuple[BoardColumn, ...] = (
    BoardColumn("games", "games", "d"),
    BoardColumn("wins", "wins", "d"),
    BoardColumn("win_rate", "win\n%", "pct"),
    BoardColumn("win_rate_low", "95% CI\n(Wilson)", "ci"),
    BoardColumn("avg_cards_left", "cards left\n/game", ".2f"),
    BoardColumn("draws_per_game", "draws\n/game", ".2f"),
    BoardColumn("penalties_per_game", "pen.\n/game", ".2f"),
    BoardColumn("missed_calls", "missed\ncalls tot.", "d"),
    BoardColumn("avg_turns_to_win", "turns to\nwin /win", ".1f"),
    BoardColumn("power_played", "power\ncards tot.", "d"),
    BoardColumn("wild_played", "wild\ncards tot.", "d"),
    BoardColumn("avg_points_left", "points left\n/game", ".1f"),
    BoardColumn("avg_round_score", "round score\n/game", ".1f"),
)
"""The player leaderboard's statistics, most wanted first (the order they are dropped in
from the end when the terminal is narrow). ``tot.`` = a total over the player's games,
``/game`` = a mean per game, ``/win`` = a mean per game won."""

MATCH_BOARD_COLUMNS: tuple[BoardColumn, ...] = (
    BoardColumn("matches", "matches", "d"),
    BoardColumn("match_wins", "wins", "d"),
    BoardColumn("match_draws", "draws", "d"),
    BoardColumn("match_win_rate", "win\n%", "pct"),
    BoardColumn("match_win_rate_low", "95% CI\n(Wilson)", "ci"),
    BoardColumn("avg_final_total", "final total\n/match", ".1f"),
    BoardColumn("rounds_per_match", "rounds\n/match", ".2f"),
)
"""The match leaderboard's statistics (``stats --by match``)."""

BOARD_TITLE = "Leaderboard, by the lower end of the win rate's 95% CI, then wins"
"""The player leaderboard's title: it names the order of
:func:`maumau_log.stats.players.player_stats` (a player with few games and a lucky streak
does not lead: the interval's lower end weighs the evidence)."""

MATCH_BOARD_TITLE = "Match leaderboard, by the lower end of the match win rate's 95% CI"
"""The match leaderboard's title: the order of :func:`maumau_log.stats.players.match_stats`
(then match wins)."""

KEY_COLUMNS = ("player", "seat", "ruleset")


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    """A player id cut to ``width`` characters with an ellipsis (control characters shown
    as escapes first)."""
    text = clean(name)
    return text if len(text) <= width else text[: width - 1] + "…"


def ci_text(low: float, est: float | None, high: float) -> str:
    """A 95% interval in %, with the fewest decimals (0 to 4) at which both ends differ
    from the estimate (where they do at all)."""
    for d in range(5):
        lo, hi = f"{100 * low:.{d}f}", f"{100 * high:.{d}f}"
        mid = f"{100 * est:.{d}f}" if est is not None else None
        apart_lo = low == est or lo != mid
        apart_hi = high == est or hi != mid
        if d >= 1 and apart_lo and apart_hi:
            return f"{lo}-{hi}"
    return f"{100 * low:.4f}-{100 * high:.4f}"


def cell(col: BoardColumn, row: dict[str, Any]) -> str:
    """The text of one statistic for one row."""
    value = row.get(col.key)
    if value is None:
        return "-"
    if col.fmt == "pct":
        return f"{100 * value:.1f}"
    if col.fmt == "ci":
        high = row.get(col.key.removesuffix("_low") + "_high")
        est = row.get(col.key.removesuffix("_low"))
        return "-" if high is None else ci_text(value, est, high)
    return format(value, ",d" if col.fmt == "d" else col.fmt)  # counts as 9,341


def column_names(columns: tuple[BoardColumn, ...]) -> list[str]:
    """The names ``--columns`` accepts (the statistics' keys; ``win_rate_low`` is also
    ``ci``)."""
    return [c.key for c in columns]


def pick_columns(columns: tuple[BoardColumn, ...], names: str | None) -> tuple[BoardColumn, ...]:
    """The columns named in ``--columns a,b,c`` (in that order), or all.

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    if not names:
        return columns
    by_key = {c.key: c for c in columns}
    by_key.update(
        {c.key.removesuffix("_low").replace("win_rate", "ci"): c for c in columns if c.fmt == "ci"}
    )
    out = []
    for name in (n.strip() for n in names.split(",")):
        if not name:
            continue
        if name not in by_key:
            raise ValueError(
                f"unknown column {name!r}; the columns are: {', '.join(column_names(columns))}"
            )
        out.append(by_key[name])
    return tuple(out)


def board_table(
    df: pl.DataFrame,
    title: str,
    columns: tuple[BoardColumn, ...] = BOARD_COLUMNS,
    width: int | None = None,
) -> tuple[Table, list[str]]:
    """The leaderboard as a rich table that fits ``width`` columns.

    Args:
        df: the statistics frame (:func:`maumau_log.stats.players.player_stats` or
            :func:`~maumau_log.stats.players.match_stats`).
        title: the table's title.
        columns: the statistics to show, in priority order.
        width: the terminal width; None for no limit (``--wide``, or not a terminal).
    Returns:
        ``(table, left_out)``: the table, and the headers (one line each) of the
        statistics that did not fit.
    """
    rows = df.to_dicts()
    keys = [k for k in KEY_COLUMNS if k in df.columns]
    key_cells = {
        k: [short_name(str(r[k])) if k == "player" else clean(str(r[k])) for r in rows]
        for k in keys
    }
    stat_cells = {c.key: [cell(c, r) for r in rows] for c in columns}

    def need(header: str, cells: list[str]) -> int:
        lines = header.split("\n")
        # content, padding 1 + 1, and the box's one-character column separator or edge
        return max([len(x) for x in lines] + [len(x) for x in cells]) + 3

    used = 1 + sum(need(k, key_cells[k]) for k in keys)  # + the right edge
    shown: list[BoardColumn] = []
    left_out: list[str] = []
    for c in columns:
        w = need(c.header, stat_cells[c.key])
        if width is None or used + w <= width:
            shown.append(c)
            used += w
        else:
            left_out.append(c.header.replace("\n", " "))
    table = Table(title=title, highlight=False, box=box.SIMPLE_HEAD, pad_edge=True)
    for k in keys:
        table.add_column(k, no_wrap=True, overflow="ellipsis")
    for c in shown:
        table.add_column(c.header, justify="right", no_wrap=True)
    for i in range(len(rows)):
        table.add_row(
            *(Text(key_cells[k][i]) for k in keys), *(Text(stat_cells[c.key][i]) for c in shown)
        )
    return table, left_out
