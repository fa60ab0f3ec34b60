"""Is the rating any good? Rate the first 80% of the contests, predict the rest.

:func:`evaluate` rates the first ``train`` share of the contests in time order
(:func:`maumau_log.stats.ratings.rate`), freezes the ratings, and gives every later contest
with exactly one winner three forecasts of who wins:

- ``rating``: openskill's ``predict_win`` over the players' frozen ratings (a player not
  seen before the cut has the model's starting rating);
- ``equal``: every player the same chance, 1/n;
- ``win_rate``: each player's past win rate with a prior (Laplace's rule of succession:
  ``(wins + 1) / (contests + 2)`` over the training contests), the players' values
  normalised to sum to 1 over the table.

Each forecast is scored by its mean log loss (``-ln p(winner)``, lower is better; ``ln 2
= 0.693`` for a coin at a 2-player table), its mean Brier score (the sum over the table of
``(p - won)²``, lower is better) and its top-1 accuracy (1 when the winner had the highest
chance, ``1/k`` when k players shared it: the equal forecast scores ``1/n``).
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from .ratings import RatingModel, make_model, rate

EPS = 1e-15
"""Chances are clipped to ``[EPS, 1 - EPS]`` before the logarithm (a sure forecast that
misses costs ``-ln EPS`` = 34.5, not infinity)."""

FORECASTS = ("rating", "equal", "win_rate")
"""The forecasts, in the JSON's order."""


def _score(p: list[float], won: list[bool], into: dict[str, list[float]]) -> None:
    """Append one contest's log loss, Brier score and top-1 credit for forecast ``p``."""
    w = won.index(True)
    into["log_loss"].append(-math.log(min(max(p[w], EPS), 1 - EPS)))
    into["brier"].append(sum((pi - (1.0 if y else 0.0)) ** 2 for pi, y in zip(p, won, strict=True)))
    top = max(p)
    best = [i for i, pi in enumerate(p) if pi == top]
    into["accuracy"].append(1 / len(best) if w in best else 0.0)


def evaluate(
    contests: pl.DataFrame, model: str | RatingModel = "plackett-luce", train: float = 0.8
) -> dict[str, Any]:
    """Rate the first ``train`` share of the contests, forecast the winners of the rest.

    Args:
        contests: ranked players in time order (:func:`~maumau_log.stats.ratings.round_contests`
            or :func:`~maumau_log.stats.ratings.match_contests`).
        model: a :data:`~maumau_log.stats.ratings.MODELS` name or a
            :class:`~maumau_log.stats.ratings.RatingModel` (the document's ``model`` is its
            text: ``plackett-luce, tau 0.1``).
        train: the share of contests (by count, in time order) rated before the forecasts.
    Returns:
        ``{"model", "train_contests", "test_contests", "forecast_contests", "log_loss":
        {"rating", "equal", "win_rate"}, "brier": {...}, "accuracy": {...}}``; the
        metrics are None when no test contest has exactly one winner.
    Raises:
        ValueError: an unknown model, or fewer than 2 contests.
    """
    m = make_model(model)
    numbered = contests.with_columns(pl.col("contest").rle_id().alias("_pos"))
    n = numbered.get_column("contest").n_unique()
    if n < 2:
        raise ValueError(f"--evaluate needs at least 2 contests, not {n}")
    cut = min(max(1, int(n * train)), n - 1)
    head = numbered.filter(pl.col("_pos") < cut).drop("_pos")
    tail = numbered.filter(pl.col("_pos") >= cut)
    rated = rate(head, model)
    index = {k: i for i, k in enumerate(rated.keys)}
    past = (
        head.group_by("group", "player")
        .agg(pl.col("won").sum().alias("wins"), pl.len().alias("n"))
        .rows()
    )
    rate_of = {(g, p): (w + 1) / (k + 2) for g, p, w, k in past}
    scores: dict[str, dict[str, list[float]]] = {
        f: {"log_loss": [], "brier": [], "accuracy": []} for f in FORECASTS
    }
    forecast = 0
    for part in tail.partition_by("_pos", maintain_order=True):
        won = part.get_column("won").to_list()
        if len(won) < 2 or sum(won) != 1:
            continue
        forecast += 1
        keys = list(zip(part.get_column("group"), part.get_column("player"), strict=True))
        teams = []
        for k in keys:
            i = index.get(k)
            teams.append([m.rating() if i is None else m.rating(rated.mu[i], rated.sigma[i])])
        p_rating = [float(x) for x in m.predict_win(teams)]
        p_equal = [1 / len(keys)] * len(keys)
        w = [rate_of.get(k, 0.5) for k in keys]
        p_rate = [x / sum(w) for x in w]
        for name, p in zip(FORECASTS, (p_rating, p_equal, p_rate), strict=True):
            _score(p, won, scores[name])
    doc: dict[str, Any] = {
        "model": str(model),
        "train_contests": cut,
        "test_contests": n - cut,
        "forecast_contests": forecast,
    }
    for metric in ("log_loss", "brier", "accuracy"):
        doc[metric] = {
            f: (sum(scores[f][metric]) / forecast if forecast else None) for f in FORECASTS
        }
    return doc
