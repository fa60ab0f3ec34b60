"""Player ratings: OpenSkill (Weng-Lin Bayesian) ratings from the stored rounds or matches.

Every valid round (or match) is one contest: its players ranked, then rated in time order
with an :mod:`openskill` model. The ranking rule (docs/explanations/ratings.md):

- a round: the winner first, then the others by the ruleset's own measure of what is
  left in hand: points left (``results.points_left``) where the game's ruleset scores
  rounds (``scoring`` other than ``none``, header options included), cards left
  (``results.cards_left``) otherwise; fewer is better; an equal measure is a tied rank;
- a match: the match winner first, then the others by their final total, the higher the
  better under ``winner_collects`` and ``hand_penalty``, the lower under the other scoring
  systems (:data:`maumau_log.scoring.rounds.HIGH_WINS`; PRESETS.md ruling 13); equal
  totals tie.

Time order: ``started_at`` read as a UTC instant (a match: its earliest round), then the
id (``game_id`` or ``match_id``); contests with no ``started_at`` come last. The order
never depends on the files, their order or the ingest's shards. A player has one rating
per ruleset (the ``ruleset`` partition) unless the rulesets are pooled
(:func:`contests` with ``pool``).

The Plackett-Luce model (the default) is rated by :func:`_plackett_luce`, the update of
``openskill``'s ``PlackettLuce.rate`` with its default parameters written out for one
player per team (openskill's ``rate`` copies every rating object, two thirds of its
time: 53 µs of a 2-player round against 6 µs here). :func:`fast_path_agrees` checks it
against openskill on fixed rounds before each use; where it differs (a newer openskill),
openskill's own ``rate`` is used, as for every other model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..scoring.rounds import HIGH_WINS
from ..store.layout import DateWindow

MODELS: dict[str, str] = {
    "plackett-luce": "PlackettLuce",
    "thurstone-mosteller": "ThurstoneMostellerFull",
    "thurstone-mosteller-part": "ThurstoneMostellerPart",
    "bradley-terry": "BradleyTerryFull",
    "bradley-terry-part": "BradleyTerryPart",
}
"""``--model`` names and the :mod:`openskill.models` class each stands for."""

BY_CHOICES: tuple[str, ...] = ("round", "match")
"""What a contest is (``--by``): one round, or one whole match."""

Z = 3.0
"""The conservative rating is ``mu - Z * sigma`` (openskill's ``ordinal()``)."""


@dataclass(frozen=True)
class RatingModel:
    """A ``--model`` with its parameters (``--tau``, ``--beta``; None: openskill's default).

    ``tau`` is the dynamics factor: the uncertainty added to every rating before each
    contest, so that sigma never settles and a rating follows a player who changes
    (openskill's default ``25/300``). ``beta`` is the performance spread: the skill gap
    at which the better player wins about 76% of the time (default ``25/6``). A larger
    ``tau`` makes ratings follow recent play; a smaller ``beta`` makes the ratings of
    players with a steady record spread further apart.

    Attributes:
        name: a :data:`MODELS` name.
        tau: the dynamics factor (>= 0), or None.
        beta: the performance spread (> 0), or None.
    Raises:
        ValueError: an unknown name (the message lists :data:`MODELS`), a negative or
            not finite ``tau``, a ``beta`` not above 0 or not finite.

    >>> str(RatingModel()), str(RatingModel("thurstone-mosteller", tau=0.1))
    ('plackett-luce', 'thurstone-mosteller, tau 0.1')
    >>> RatingModel(beta=0)
    Traceback (most recent call last):
    ...
    ValueError: --beta must be a number above 0, not 0
    """

    name: str = "plackett-luce"
    tau: float | None = None
    beta: float | None = None

    def __post_init__(self) -> None:
        if self.name not in MODELS:
            raise ValueError(f"--model must be one of {', '.join(MODELS)}, not {self.name!r}")
        if self.tau is not None and not (math.isfinite(self.tau) and self.tau >= 0):
            raise ValueError(f"--tau must be a number of at least 0, not {self.tau:g}")
        if self.beta is not None and not (math.isfinite(self.beta) and self.beta > 0):
            raise ValueError(f"--beta must be a number above 0, not {self.beta:g}")

    def build(self) -> Any:
        """The :mod:`openskill.models` model."""
        from openskill import models

        params = {k: v for k, v in (("tau", self.tau), ("beta", self.beta)) if v is not None}
        return getattr(models, MODELS[self.name])(**params)

    def __str__(self) -> str:
        params = [
            f"{k} {v:g}" for k, v in (("tau", self.tau), ("beta", self.beta)) if v is not None
        ]
        return ", ".join([self.name, *params])


def make_model(model: str | RatingModel) -> Any:
    """The openskill model for a ``--model`` name (openskill's default parameters) or a
    :class:`RatingModel`.

    Raises:
        ValueError: an unknown name (the message lists :data:`MODELS`).
    """
    return (model if isinstance(model, RatingModel) else RatingModel(model)).build()


def _window(lf: pl.LazyFrame, since: str | None, until: str | None) -> pl.LazyFrame:
    return DateWindow(since, until).frame(lf)  # ValueError: a bound that is not a date


def _instant(col: str) -> pl.Expr:
    """An ISO 8601 ``started_at`` text as a UTC instant: with an offset (``Z``,
    ``+02:00``), without one (read as UTC) or a date alone; null where absent."""
    s = pl.col(col)
    return pl.coalesce(
        s.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f%#z", time_zone="UTC", strict=False),
        s.str.to_datetime("%Y-%m-%dT%H:%M:%S%.f", time_zone="UTC", strict=False),
        s.str.to_datetime("%Y-%m-%d", time_zone="UTC", strict=False),
    ).dt.cast_time_unit("us")


def _scores_points(pairs: pl.DataFrame) -> pl.DataFrame:
    """For each distinct ``(ruleset, options)`` pair: whether that game's rules score
    rounds (``scoring != "none"``), resolved once per pair; an unknown ruleset or bad
    options (no valid game has them) count as not scoring."""
    from ..rules import RulesetError, resolve

    flags = []
    for ruleset, options in pairs.iter_rows():
        try:
            opts = json.loads(options) if options else None
            rules = resolve(ruleset, opts if isinstance(opts, dict) else None)
            flags.append(rules.scoring != "none")
        except (RulesetError, ValueError, TypeError):
            flags.append(False)
    return pairs.with_columns(pl.Series("points", flags, dtype=pl.Boolean))


def _group(pool: Sequence[str] | None) -> pl.Expr:
    """The rating's ruleset column: the partition, or the pooled rulesets' joined names."""
    return pl.lit("+".join(pool)) if pool else pl.col("ruleset")


def round_contests(
    games: pl.LazyFrame,
    results: pl.LazyFrame,
    *,
    pool: Sequence[str] | None = None,
    since: str | None = None,
    until: str | None = None,
) -> pl.DataFrame:
    """Every valid round as ranked players, in time order.

    Args:
        games, results: the dataset's tables (``store.scan``).
        pool: keep these rulesets only (canonical preset names) and rate them as one.
        since, until: keep games dated on or after / on or before ``YYYY-MM-DD``.
    Returns:
        One row per player and round: ``contest`` (the ``game_id``), ``group`` (the
        rating's ruleset), ``player``, ``rank`` (0 = the winner, ties share a rank),
        ``when`` (UTC, null when unknown); sorted by ``when`` (nulls last), ``contest``,
        ``rank``, ``player``.
    Raises:
        ValueError: a date that is not ``YYYY-MM-DD``.
    """
    g = games.filter(pl.col("valid"))
    if pool:
        g = g.filter(pl.col("ruleset").is_in(list(pool)))
    gf = _window(g, since, until).select("game_id", "ruleset", "options", "started_at").collect()
    pairs = _scores_points(gf.select("ruleset", "options").unique(maintain_order=True))
    gf = gf.join(pairs, on=["ruleset", "options"], how="left", nulls_equal=True)
    r = (
        results.filter(pl.col("valid"))
        .select("game_id", "player", "won", "cards_left", "points_left")
        .collect()
    )
    df = r.join(gf, on="game_id", how="inner")
    measure = (
        pl.when(pl.col("points"))
        .then(pl.col("points_left"))
        .otherwise(pl.col("cards_left").cast(pl.Int64))
    )
    key = pl.when(pl.col("won")).then(-1).otherwise(measure.fill_null(2**62))
    return (
        df.with_columns(
            (key.rank("dense").over("game_id") - 1).cast(pl.Int32).alias("rank"),
            _instant("started_at").alias("when"),
            _group(pool).alias("group"),
        )
        .select(pl.col("game_id").alias("contest"), "group", "player", "rank", "won", "when")
        .sort(["when", "contest", "rank", "player"], nulls_last=True)
    )


def match_contests(
    games: pl.LazyFrame,
    matches: pl.LazyFrame,
    *,
    pool: Sequence[str] | None = None,
    since: str | None = None,
    until: str | None = None,
) -> pl.DataFrame:
    """Every valid match as ranked players, in time order (as :func:`round_contests`).

    A match is dated and timed by its earliest stored round; ``contest`` is the
    ``match_id``; the rank is 0 for the match winner, then by final total (higher first
    under :data:`~maumau_log.scoring.rounds.HIGH_WINS`, lower first otherwise).
    """
    first = (
        games.filter(pl.col("match_id").is_not_null())
        .group_by("match_id")
        .agg(_instant("started_at").min().alias("when"))
    )
    m = matches.filter(pl.col("valid"))
    if pool:
        m = m.filter(pl.col("ruleset").is_in(list(pool)))
    mf = _window(m, since, until).select("match_id", "ruleset", "winner", "totals").collect()
    from ..rules import RulesetError, resolve

    high = {}
    for name in mf.get_column("ruleset").unique().to_list():
        try:
            high[name] = resolve(name).scoring in HIGH_WINS
        except RulesetError:
            high[name] = False
    df = (
        mf.explode("totals")
        .filter(pl.col("totals").is_not_null())
        .with_columns(
            pl.col("totals").struct.field("player").alias("player"),
            pl.col("totals").struct.field("total").alias("total"),
            pl.col("ruleset")
            .replace_strict(high, default=False, return_dtype=pl.Boolean)
            .alias("high"),
        )
    )
    signed = pl.when(pl.col("high")).then(-pl.col("total")).otherwise(pl.col("total"))
    key = pl.when(pl.col("player") == pl.col("winner")).then(-(2**62)).otherwise(signed)
    return (
        df.join(first.collect(), on="match_id", how="left")
        .with_columns(
            (key.rank("dense").over("match_id") - 1).cast(pl.Int32).alias("rank"),
            _group(pool).alias("group"),
            (pl.col("player") == pl.col("winner")).fill_null(False).alias("won"),
        )
        .select(pl.col("match_id").alias("contest"), "group", "player", "rank", "won", "when")
        .sort(["when", "contest", "rank", "player"], nulls_last=True)
    )


# --------------------------------------------------------------------------- rating


def _plackett_luce(
    mus: list[float], sigmas: list[float], idx: Sequence[int], ranks: Sequence[int]
) -> None:
    """One contest rated in place: openskill's ``PlackettLuce().rate`` with its default
    parameters (beta 25/6, kappa 0.0001, tau 25/300, gamma sqrt(sigma²)/c), one player per
    team (Weng and Lin 2011, Algorithm 4).

    Args:
        mus, sigmas: every rating's mu and sigma (changed in place).
        idx: the contest's ratings (indices into ``mus``), sorted by rank.
        ranks: their ranks, ascending (ties equal).
    """
    beta2 = (25.0 / 6.0) ** 2
    tau2 = (25.0 / 300.0) ** 2
    s2 = [sigmas[i] * sigmas[i] + tau2 for i in idx]
    c = math.sqrt(sum(v + beta2 for v in s2))
    e = [math.exp(mus[i] / c) for i in idx]
    n = len(idx)
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    a = [sum(1 for r in ranks if r == ranks[q]) for q in range(n)]
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                t = e[i] / sum_q[q]
                delta += t * (1 - t) / a[q]
                omega += ((1 - t) if q == i else -t) / a[q]
        omega *= s2[i] / c
        delta *= s2[i] / c**2
        delta *= math.sqrt(s2[i]) / c
        k = idx[i]
        mus[k] += omega
        sigmas[k] = math.sqrt(s2[i]) * math.sqrt(max(1 - delta, 0.0001))


_PROBES: tuple[tuple[tuple[float, float], ...], ...] = (
    ((25.0, 25.0 / 3), (25.0, 25.0 / 3)),
    ((31.2, 4.1), (22.5, 6.7), (27.0, 2.2)),
    ((20.0, 5.0), (20.0, 5.0), (29.0, 3.0), (18.0, 7.5)),
)
_PROBE_RANKS: tuple[tuple[int, ...], ...] = ((0, 1), (0, 1, 1), (0, 1, 2, 2))


_PARAMETERS = (
    "mu",
    "sigma",
    "beta",
    "kappa",
    "gamma",
    "tau",
    "margin",
    "limit_sigma",
    "balance",
    "weight_bounds",
)
"""``PlackettLuce``'s parameters :func:`_plackett_luce` assumes at their defaults."""


def fast_path_agrees(model: Any) -> bool:
    """Whether :func:`_plackett_luce` gives ``model.rate``'s ratings (to 1e-9) on fixed
    rounds of 2, 3 and 4 players with ties: only for a ``PlackettLuce`` with openskill's
    default parameters."""
    from openskill.models import PlackettLuce

    if type(model) is not PlackettLuce:
        return False
    default = PlackettLuce()
    for name in _PARAMETERS:
        if getattr(model, name, None) != getattr(default, name, None):
            return False
    for players, ranks in zip(_PROBES, _PROBE_RANKS, strict=True):
        teams = [[model.rating(mu=m, sigma=s)] for m, s in players]
        want = model.rate(teams, ranks=list(ranks))
        mus, sigmas = [m for m, _ in players], [s for _, s in players]
        _plackett_luce(mus, sigmas, range(len(players)), ranks)
        for k, [r] in enumerate(want):
            if abs(r.mu - mus[k]) > 1e-9 or abs(r.sigma - sigmas[k]) > 1e-9:
                return False
    return True


@dataclass
class Rated:
    """The ratings after a run of contests.

    Attributes:
        keys: ``(group, player)`` of each rating, in order of first appearance.
        mu, sigma: each rating's mean and standard deviation.
        contests: contests each rating took part in.
        first, last: the first and last contest's time of each rating (None: unknown).
        history: with ``track``, ``(position, key index, mu, sigma)`` after every
            contest of a tracked rating (position: the contest's number in time order).
    """

    keys: list[tuple[str, str]]
    mu: list[float]
    sigma: list[float]
    contests: list[int]
    first: list[Any]
    last: list[Any]
    history: list[tuple[int, int, float, float]] = field(default_factory=list)


def rate(
    contests: pl.DataFrame,
    model: str | RatingModel = "plackett-luce",
    track: set[tuple[str, str]] | None = None,
) -> Rated:
    """Rate the contests in the frame's order (:func:`round_contests`).

    Args:
        contests: ranked players, contest by contest, in time order.
        model: a :data:`MODELS` name or a :class:`RatingModel`.
        track: ``(group, player)`` ratings whose history to keep (for a chart).
    Returns:
        :class:`Rated`.
    Raises:
        ValueError: an unknown model.
    """
    m = make_model(model)
    fast = fast_path_agrees(m)
    groups = contests.get_column("group").to_list()
    players = contests.get_column("player").to_list()
    ranks = contests.get_column("rank").to_list()
    whens = contests.get_column("when").to_list()
    ids = contests.get_column("contest").to_list()
    order: dict[tuple[str, str], int] = {}  # ratings numbered in order of first appearance
    idx_all = [order.setdefault(gp, len(order)) for gp in zip(groups, players, strict=True)]
    keys = list(order)
    n = len(keys)
    mus, sigmas = [float(m.mu)] * n, [float(m.sigma)] * n
    played = [0] * n
    first: list[Any] = [None] * n
    last: list[Any] = [None] * n
    tracked = {order[k] for k in track if k in order} if track else set()
    out = Rated(keys, mus, sigmas, played, first, last)
    start, total, pos = 0, len(ids), 0
    while start < total:
        end = start + 1
        while end < total and ids[end] == ids[start]:
            end += 1
        idx = idx_all[start:end]
        rk = ranks[start:end]
        when = whens[start]
        for k in idx:
            played[k] += 1
            if first[k] is None:
                first[k] = when
            last[k] = when
        if len(idx) >= 2:
            if fast:
                _plackett_luce(mus, sigmas, idx, rk)
            else:
                teams = [[m.rating(mu=mus[k], sigma=sigmas[k])] for k in idx]
                for k, [r] in zip(idx, m.rate(teams, ranks=list(rk)), strict=True):
                    mus[k], sigmas[k] = r.mu, r.sigma
            if tracked:
                out.history.extend((pos, k, mus[k], sigmas[k]) for k in idx if k in tracked)
        start, pos = end, pos + 1
    return out


def ratings_frame(rated: Rated) -> pl.DataFrame:
    """The ratings as a frame, best first.

    Returns:
        Columns ``player``, ``ruleset``, ``mu``, ``sigma``, ``rating`` (the conservative
        rating ``mu - 3 sigma``), ``rounds`` (contests played), ``first_played``,
        ``last_played`` (UTC); sorted by ``rating`` (highest first), then ``player``,
        ``ruleset``.
    """
    df = pl.DataFrame(
        {
            "player": [p for _, p in rated.keys],
            "ruleset": [g for g, _ in rated.keys],
            "mu": rated.mu,
            "sigma": rated.sigma,
            "rounds": rated.contests,
            "first_played": rated.first,
            "last_played": rated.last,
        },
        schema={
            "player": pl.String,
            "ruleset": pl.String,
            "mu": pl.Float64,
            "sigma": pl.Float64,
            "rounds": pl.Int64,
            "first_played": pl.Datetime("us", "UTC"),
            "last_played": pl.Datetime("us", "UTC"),
        },
    )
    return (
        df.with_columns((pl.col("mu") - Z * pl.col("sigma")).alias("rating"))
        .select(
            "player", "ruleset", "mu", "sigma", "rating", "rounds", "first_played", "last_played"
        )
        .sort(["rating", "player", "ruleset"], descending=[True, False, False])
    )


def history_frame(rated: Rated) -> pl.DataFrame:
    """The tracked ratings' histories: ``player``, ``ruleset``, ``contest`` (the contest's
    number in time order), ``mu``, ``sigma``."""
    h = rated.history
    return pl.DataFrame(
        {
            "player": [rated.keys[k][1] for _, k, _, _ in h],
            "ruleset": [rated.keys[k][0] for _, k, _, _ in h],
            "contest": [p for p, _, _, _ in h],
            "mu": [mu for _, _, mu, _ in h],
            "sigma": [s for _, _, _, s in h],
        },
        schema={
            "player": pl.String,
            "ruleset": pl.String,
            "contest": pl.Int64,
            "mu": pl.Float64,
            "sigma": pl.Float64,
        },
    )


def player_ratings(
    dataset: str,
    *,
    by: str = "round",
    model: str | RatingModel = "plackett-luce",
    rulesets: Sequence[str] | None = None,
    since: str | None = None,
    until: str | None = None,
) -> pl.DataFrame:
    """The ratings of a dataset's players as a Polars frame (``maumau-log ratings``
    without its cache).

    Args:
        dataset: the dataset folder.
        by: ``"round"`` or ``"match"`` (:data:`BY_CHOICES`).
        model: a :data:`MODELS` name or a :class:`RatingModel` (``--tau``, ``--beta``).
        rulesets: rate only these rulesets (canonical preset names), pooled into one rating
            per player; None for one rating per player and ruleset.
        since, until: keep games (matches: their first round) dated on or after / on or
            before ``YYYY-MM-DD``.
    Returns:
        :func:`ratings_frame`'s frame.
    Raises:
        DatasetError: a missing or damaged dataset; ValueError: a bad option.
    """
    from ..store.manifest import scan

    if by not in BY_CHOICES:
        raise ValueError(f"by must be one of {', '.join(BY_CHOICES)}, not {by!r}")
    pool = sorted(rulesets) if rulesets else None
    games = scan(dataset, "games")
    if by == "match":
        contests = match_contests(
            games, scan(dataset, "matches"), pool=pool, since=since, until=until
        )
    else:
        contests = round_contests(
            games, scan(dataset, "results"), pool=pool, since=since, until=until
        )
    return ratings_frame(rate(contests, model))
