"""Statistics over a dataset: Polars queries that take and return lazy frames.

Nothing here collects: the CLI (or a notebook) calls ``.collect()``. Scans come from
:func:`maumau_log.store.scan`, so filters on ``ruleset`` and ``date`` prune partitions and
only the columns a query names are read.

Every statistic is defined in :func:`player_stats`'s docstring; the statistics table of
docs/tutorials/club-statistics.md is made from it.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ..store.layout import DateWindow

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile used by the Wilson interval."""

BY_CHOICES: tuple[str, ...] = ("seat", "ruleset")
"""Breakdowns :func:`player_stats` accepts for ``by``."""

STATS_BY: tuple[str, ...] = (*BY_CHOICES, "match")
"""What ``maumau-log stats --by`` accepts: a breakdown of the leaderboard, or ``match`` for
the match leaderboard (:func:`match_stats`)."""


DRAW_COLUMNS: tuple[str, ...] = ("drawn_no_play", "drawn_voluntary", "drawn_effect", "drawn_cover")
"""``results`` columns of cards drawn, one per draw reason (penalty cards not included)."""

POWER_COLUMNS: tuple[str, ...] = (
    "draw_cards_played",
    "skip_cards_played",
    "reverse_cards_played",
    "cover_cards_played",
)
"""``results`` columns of power cards played, one per power."""


def _common_filters(
    lf: pl.LazyFrame,
    ruleset: str | None,
    since: str | None,
    include_invalid: bool,
    until: str | None = None,
) -> pl.LazyFrame:
    """Valid rows only (unless ``include_invalid``), one ruleset, dated on or after ``since``
    and on or before ``until``.

    Raises:
        ValueError: ``since`` or ``until`` is not ``YYYY-MM-DD``.
    """
    if not include_invalid:
        lf = lf.filter(pl.col("valid"))
    if ruleset is not None:
        lf = lf.filter(pl.col("ruleset") == ruleset)
    return DateWindow(since, until).frame(lf)  # ValueError: a bound that is not a date


def filter_results(
    results: pl.LazyFrame,
    *,
    ruleset: str | None = None,
    player: str | None = None,
    since: str | None = None,
    include_invalid: bool = False,
    game_ids: Sequence[str] | None = None,
    until: str | None = None,
) -> pl.LazyFrame:
    """Select the ``results`` rows a statistic counts.

    Args:
        results: the ``results`` table (``store.scan(dataset, "results")``).
        ruleset: keep one ruleset (canonical preset name, the ``ruleset`` partition).
        player: keep one player id.
        since: keep games dated on or after this ``YYYY-MM-DD`` day (games with no known
            date are left out when a date is given).
        include_invalid: also count games that stopped at a violation (their counters run
            up to the violation; they are never won).
        game_ids: keep only these games.
        until: keep games dated on or before this ``YYYY-MM-DD`` day (as ``since``).
    Returns:
        The filtered LazyFrame (same columns).
    Raises:
        ValueError: ``since`` or ``until`` is not ``YYYY-MM-DD``.
    """
    lf = _common_filters(results, ruleset, since, include_invalid, until)
    if player is not None:
        lf = lf.filter(pl.col("player") == player)
    if game_ids is not None:
        lf = lf.filter(pl.col("game_id").is_in(list(game_ids)))
    return lf


def wilson_interval(wins: pl.Expr, games: pl.Expr, z: float = Z95) -> tuple[pl.Expr, pl.Expr]:
    """The Wilson score interval of a proportion, as two expressions (low, high).

    With ``p = wins / games`` and ``n = games``::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z · sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n)

    Args:
        wins: successes.
        games: trials (the interval is null where there are none).
        z: the normal quantile (default: 95% two-sided).
    Returns:
        ``(centre - half, centre + half)``, both within 0..1.
    """
    n = games.cast(pl.Float64)
    p = wins.cast(pl.Float64) / n
    z2 = z * z
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z * (p * (1 - p) / n + z2 / (4 * n * n)).sqrt() / den
    some = games > 0
    return (
        pl.when(some).then((centre - half).clip(0.0, 1.0)),
        pl.when(some).then((centre + half).clip(0.0, 1.0)),
    )


def player_stats(results: pl.LazyFrame, by: str | None = None) -> pl.LazyFrame:
    """Per-player statistics, sorted as a leaderboard.

    One row per player (per player and seat with ``by="seat"``, per player and ruleset with
    ``by="ruleset"``). Over the rows of ``results`` given (filter first with
    :func:`filter_results`); a "game" is one round, one ``results`` row:

    - ``games``: games played.
    - ``wins``: games won (the player emptied the hand and the replay confirmed it).
    - ``win_rate``: ``wins / games``.
    - ``win_rate_low``, ``win_rate_high``: the 95% Wilson score interval of the win rate.
    - ``avg_cards_left``: mean cards in hand at the end of the game (0 when won).
    - ``avg_points_left``: mean points of those cards under the ruleset's ``points`` table.
    - ``avg_round_score``: mean round score as the ruleset scores (``scoring``); null when no
      game counted has a scoring ruleset (``scoring = "none"``) or only invalid games.
    - ``draws_per_game``: cards drawn per game, all draw reasons (no play, voluntary,
      effect, cover), penalty cards not included.
    - ``penalties_per_game``: ``penalty`` events paid per game.
    - ``missed_calls``: call faults in total: calls due but missed or wrong, caught or not
      (``engine.call_faults``).
    - ``power_played``: power cards played in total: each card counts once per power it has
      (draw, skip, reverse, cover) under the game's ruleset.
    - ``wild_played``: wild cards played in total.
    - ``avg_turns_to_win``: mean turns the player began in the games they won; null without a
      win.

    Sorted by ``win_rate_low`` (the Wilson lower bound: a high win rate over few games ranks
    below a slightly lower one over many), then wins, then player id.

    Args:
        results: ``results`` rows (LazyFrame).
        by: None, ``"seat"`` or ``"ruleset"``.
    Returns:
        A LazyFrame with the key columns then the statistics above.
    Raises:
        ValueError: an unknown ``by``.
    """
    if by is not None and by not in BY_CHOICES:
        raise ValueError(f"--by must be one of {', '.join(BY_CHOICES)}, not {by!r}")
    keys = ["player"] if by is None else ["player", by]
    games = pl.len().alias("games")
    wins = pl.col("won").sum().cast(pl.Int64).alias("wins")
    agg = results.group_by(keys).agg(
        games,
        wins,
        pl.col("cards_left").mean().alias("avg_cards_left"),
        pl.col("points_left").mean().alias("avg_points_left"),
        pl.col("round_score").mean().alias("avg_round_score"),
        pl.sum_horizontal(*DRAW_COLUMNS).sum().alias("_drawn"),
        pl.col("penalties").sum().alias("_penalties"),
        pl.col("calls_missed").sum().cast(pl.Int64).alias("missed_calls"),
        pl.sum_horizontal(*POWER_COLUMNS).sum().cast(pl.Int64).alias("power_played"),
        pl.col("wild_played").sum().cast(pl.Int64).alias("wild_played"),
        pl.col("turns").filter(pl.col("won")).mean().alias("avg_turns_to_win"),
    )
    low, high = wilson_interval(pl.col("wins"), pl.col("games"))
    return (
        agg.with_columns(
            (pl.col("wins") / pl.col("games")).alias("win_rate"),
            low.alias("win_rate_low"),
            high.alias("win_rate_high"),
            (pl.col("_drawn") / pl.col("games")).alias("draws_per_game"),
            (pl.col("_penalties") / pl.col("games")).alias("penalties_per_game"),
        )
        .select(
            *keys,
            "games",
            "wins",
            "win_rate",
            "win_rate_low",
            "win_rate_high",
            "avg_cards_left",
            "avg_points_left",
            "avg_round_score",
            "draws_per_game",
            "penalties_per_game",
            "missed_calls",
            "power_played",
            "wild_played",
            "avg_turns_to_win",
        )
        .sort(
            ["win_rate_low", "wins", *keys],
            descending=[True, True] + [False] * len(keys),
            nulls_last=True,
        )
    )


def game_summary(games: pl.LazyFrame) -> pl.LazyFrame:
    """Counts over ``games`` rows: one row with ``games``, ``valid``, ``invalid``, ``events``.

    Args:
        games: ``games`` rows (LazyFrame), filtered as wanted.
    Returns:
        A one-row LazyFrame.
    """
    return games.select(
        pl.len().alias("games"),
        pl.col("valid").sum().cast(pl.Int64).alias("valid"),
        (~pl.col("valid")).sum().cast(pl.Int64).alias("invalid"),
        pl.col("events").sum().cast(pl.Int64).alias("events"),
    )


def violation_counts(violations: pl.LazyFrame) -> pl.LazyFrame:
    """Violations per code, most frequent first: columns ``code``, ``count``.

    Args:
        violations: ``violations`` rows (LazyFrame).
    Returns:
        A LazyFrame sorted by count (descending), then code.
    """
    return (
        violations.group_by("code")
        .agg(pl.len().alias("count"))
        .sort(["count", "code"], descending=[True, False])
    )


def filter_matches(
    matches: pl.LazyFrame,
    *,
    ruleset: str | None = None,
    player: str | None = None,
    since: str | None = None,
    include_invalid: bool = False,
    until: str | None = None,
) -> pl.LazyFrame:
    """Select the ``matches`` rows a match statistic counts (as :func:`filter_results`).

    Args:
        matches: the ``matches`` table (``store.scan(dataset, "matches")``).
        ruleset: keep one ruleset (the ``ruleset`` partition).
        player: keep the matches this player took part in.
        since: keep matches whose first stored round is dated on or after ``YYYY-MM-DD``.
        include_invalid: also count matches that are not valid (a round invalid or missing,
            no proper ``match_end``, or not over yet).
        until: keep matches whose first stored round is dated on or before ``YYYY-MM-DD``.
    Returns:
        The filtered LazyFrame (same columns).
    Raises:
        ValueError: ``since`` or ``until`` is not ``YYYY-MM-DD``.
    """
    lf = _common_filters(matches, ruleset, since, include_invalid, until)
    if player is not None:
        lf = lf.filter(pl.col("players").list.contains(player))
    return lf


def match_stats(matches: pl.LazyFrame, player: str | None = None) -> pl.LazyFrame:
    """Per-player match statistics, sorted as a leaderboard (``stats --by match``).

    One row per player, over the ``matches`` rows given (filter first with
    :func:`filter_matches`); a "match" is one ``matches`` row the player has a seat in:

    - ``matches``: matches played.
    - ``match_wins``: matches won (the match's ``winner``); ``match_draws``: matches drawn.
    - ``match_win_rate``: ``match_wins / matches``; ``match_win_rate_low``,
      ``match_win_rate_high``: its 95% Wilson score interval.
    - ``avg_final_total``: mean of the player's total at the end of the match (the sum of
      the round scores; for a match not over, the total so far).
    - ``rounds_per_match``: mean rounds per match (rounds stored).

    Sorted by ``match_win_rate_low``, then match wins, then player id.

    Args:
        matches: ``matches`` rows (LazyFrame).
        player: keep only this player's row (the other seats of the player's matches are
            dropped after the explode).
    Returns:
        A LazyFrame with ``player`` then the statistics above.
    """
    per = (
        matches.select("match_id", "rounds", "winner", "draw", "totals")
        .explode("totals")
        .filter(pl.col("totals").is_not_null())
        .with_columns(
            pl.col("totals").struct.field("player").alias("player"),
            pl.col("totals").struct.field("total").alias("total"),
        )
    )
    if player is not None:
        per = per.filter(pl.col("player") == player)
    agg = per.group_by("player").agg(
        pl.len().alias("matches"),
        (pl.col("winner") == pl.col("player")).fill_null(False).sum().cast(pl.Int64)
        .alias("match_wins"),
        pl.col("draw").fill_null(False).sum().cast(pl.Int64).alias("match_draws"),
        pl.col("total").mean().alias("avg_final_total"),
        pl.col("rounds").mean().alias("rounds_per_match"),
    )  # fmt: skip
    low, high = wilson_interval(pl.col("match_wins"), pl.col("matches"))
    return (
        agg.with_columns(
            (pl.col("match_wins") / pl.col("matches")).alias("match_win_rate"),
            low.alias("match_win_rate_low"),
            high.alias("match_win_rate_high"),
        )
        .select(
            "player",
            "matches",
            "match_wins",
            "match_draws",
            "match_win_rate",
            "match_win_rate_low",
            "match_win_rate_high",
            "avg_final_total",
            "rounds_per_match",
        )
        .sort(
            ["match_win_rate_low", "match_wins", "player"],
            descending=[True, True, False],
            nulls_last=True,
        )
    )
