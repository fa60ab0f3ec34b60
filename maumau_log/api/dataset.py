"""The Parquet dataset as a library: :func:`ingest`, :func:`open_dataset` and :func:`audit`.

``maumau-log ingest``, ``stats`` and ``query`` are thin commands over these functions: the
same ingest, the same Polars queries (:mod:`maumau_log.stats.players`) and the same SQL
sandbox (:mod:`maumau_log.store.sqlguard`). Every read checks the dataset first (the
manifest's paths, each file's size and SHA-256: docs/reference/security.md), so a
damaged or tampered dataset raises :class:`~maumau_log.store.DatasetError` with the file
named, never a changed answer.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from ..stats.players import STATS_BY, filter_matches, filter_results, match_stats, player_stats
from ..store.manifest import read_manifest, scan, scan_all

if TYPE_CHECKING:  # loaded when used: `stats` starts without pyarrow or the replay stack
    from ..audit import AuditReport
    from ..audit.botlike import BotLikeness
    from ..run.ingest import IngestSummary

PathLike = str | os.PathLike[str]
"""A file or folder name."""

__all__ = ["Dataset", "audit", "ingest", "open_dataset"]


def _preset(ruleset: str | None) -> str | None:
    """The canonical preset name (an alias resolved); a name that is no preset is kept:
    it matches no game."""
    if ruleset is None:
        return None
    from ..rules import RulesetError, find_preset

    try:
        return find_preset(ruleset)
    except RulesetError:
        return ruleset


class Dataset:
    """A dataset folder made by :func:`ingest` (``maumau-log ingest``), read lazily.

    The tables are Polars ``LazyFrame`` s (docs/reference/dataset.md lists their columns);
    each read checks the files it needs against the manifest first.

    Args:
        path: the dataset folder.

    Examples:
        >>> import tempfile, maumau_log as m
        >>> out = tempfile.mkdtemp() + "/data"
        >>> m.ingest(["sample_logs/valid"], out, jobs=1).added
        24
        >>> ds = m.open_dataset(out)
        >>> ds.games.select("game_id").collect().height
        24
        >>> ds.stats().columns[:4]
        ['player', 'games', 'wins', 'win_rate']
        >>> ds.sql("SELECT count(*) AS n FROM games").item()
        24
    """

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"Dataset({str(self.path)!r})"

    def table(self, name: str) -> pl.LazyFrame:
        """One table by name (``games``, ``results``, ``events``, ``violations``,
        ``matches``, or the audit's fact tables), checked and scanned lazily.

        Raises:
            DatasetError: an unknown table, or a file missing, resized or changed.
        """
        return scan(self.path, name)

    @property
    def games(self) -> pl.LazyFrame:
        """One row per game (round): header, outcome, violation code."""
        return self.table("games")

    @property
    def results(self) -> pl.LazyFrame:
        """One row per player per game: seat, winner or not, cards left, score."""
        return self.table("results")

    @property
    def events(self) -> pl.LazyFrame:
        """One row per event of every game, as logged."""
        return self.table("events")

    @property
    def violations(self) -> pl.LazyFrame:
        """One row per invalid game: its first violation."""
        return self.table("violations")

    @property
    def matches(self) -> pl.LazyFrame:
        """One row per player per match: totals, rounds, match winner."""
        return self.table("matches")

    def stats(
        self,
        *,
        ruleset: str | None = None,
        player: str | None = None,
        since: str | None = None,
        include_invalid: bool = False,
        by: str | None = None,
        until: str | None = None,
    ) -> pl.DataFrame:
        """Per-player statistics: the rows of ``stats --format json`` with the same
        options (games, wins, win rate with its 95% Wilson interval, ...).

        Args:
            ruleset: only this preset (an alias is resolved).
            player: only this player id.
            since: only games dated on or after this ``YYYY-MM-DD``.
            include_invalid: count invalid games too.
            until: only games dated on or before this ``YYYY-MM-DD``.
            by: ``"seat"`` or ``"ruleset"`` to break each player down; ``"match"`` for
                the match leaderboard (:meth:`leaderboard` with ``matches=True``).
        Raises:
            DatasetError: the dataset is missing or damaged.
            ValueError: a bad ``by`` or ``since``.
        """
        if by is not None and by not in STATS_BY:
            raise ValueError(f"by must be one of {', '.join(STATS_BY)}, not {by!r}")
        if by == "match":
            return self.leaderboard(
                ruleset=ruleset,
                player=player,
                since=since,
                include_invalid=include_invalid,
                matches=True,
                until=until,
            )
        return self._players(ruleset, player, since, include_invalid, by, None, until)

    def leaderboard(
        self,
        *,
        ruleset: str | None = None,
        player: str | None = None,
        since: str | None = None,
        include_invalid: bool = False,
        matches: bool = False,
        game_ids: Sequence[str] | None = None,
        until: str | None = None,
    ) -> pl.DataFrame:
        """The leaderboard: players ranked by wins (``stats``), or with ``matches`` the
        match leaderboard (``stats --by match``: matches played, won and drawn, the match
        win rate with its Wilson interval; only valid matches unless ``include_invalid``).

        Args:
            game_ids: only these games (``analyze`` ranks the games it read).
            until: only games dated on or before this ``YYYY-MM-DD``.
        Raises:
            DatasetError: the dataset is missing or damaged.
        """
        if not matches:
            return self._players(ruleset, player, since, include_invalid, None, game_ids, until)
        lf = filter_matches(
            self.matches,
            ruleset=_preset(ruleset),
            player=player,
            since=since,
            include_invalid=include_invalid,
            until=until,
        )
        return match_stats(lf, player=player).collect(engine="streaming")

    def _players(
        self,
        ruleset: str | None,
        player: str | None,
        since: str | None,
        include_invalid: bool,
        by: str | None,
        game_ids: Sequence[str] | None,
        until: str | None = None,
    ) -> pl.DataFrame:
        lf = filter_results(
            self.results,
            ruleset=_preset(ruleset),
            player=player,
            since=since,
            include_invalid=include_invalid,
            game_ids=list(game_ids) if game_ids is not None else None,
            until=until,
        )
        return player_stats(lf, by=by).collect(engine="streaming")

    def sql(self, query: str) -> pl.DataFrame:
        """Run SQL over the tables through ``query``'s sandbox
        (:func:`maumau_log.store.sqlguard.run_query`): only a SELECT over the dataset's
        tables, run as the SQL regenerated from the syntax tree that was checked.

        Raises:
            QueryRefused: a table function, a file path, a table that is not the
                dataset's, anything but a SELECT.
            BadQuery: SQL that does not parse, or nests deeper than 32 levels.
            DatasetError: the dataset is missing or damaged.
        """
        from ..store.sqlguard import run_query

        return run_query(scan_all(self.path), query).collect()

    def audit(self, **options: Any) -> AuditReport:
        """:func:`audit` of this dataset."""
        return audit(self, **options)


def open_dataset(path: PathLike) -> Dataset:
    """Open a dataset folder made by :func:`ingest`.

    Raises:
        DatasetError: no dataset there (no manifest), or its manifest is unreadable or
            names a path outside ``<table>/ruleset=R/date=D/NAME.parquet``.
    """
    read_manifest(path)
    return Dataset(path)


def ingest(
    paths: PathLike | Sequence[PathLike],
    out: PathLike,
    *,
    rules: PathLike | Mapping[str, Any] | None = None,
    jobs: int | None = None,
) -> IngestSummary:
    """Replay logs and add their games to the dataset folder ``out`` (created when
    missing): ``maumau-log ingest PATHS --out OUT``. Crash-safe and idempotent: games
    already stored are skipped, a stored game id met with other content is a conflict.

    Args:
        paths: log files and folders.
        out: the dataset folder.
        rules: a ruleset file or options overriding every game's (as :func:`validate`).
        jobs: local processes (None: the cores this process may use).
    Returns:
        The :class:`~maumau_log.run.ingest.IngestSummary` (games read, added,
        duplicates, conflicts, violations, ``exit_code``).
    Raises:
        LogReadError: a path that does not exist, or no log file found.
        DatasetError: ``out`` is not a usable dataset folder, another ingest holds it,
            the disk is full (nothing is stored).
    """
    from ..run.ingest import ingest as run_ingest
    from ..run.runners import default_jobs
    from .validation import expand_paths, local_runner, rules_options

    n = jobs if jobs is not None else default_jobs()
    if n < 1:
        raise ValueError(f"jobs must be at least 1, not {n}")
    files = expand_paths(paths)
    return run_ingest(files, Path(out), rules_options(rules), runner=local_runner(n))


def audit(
    dataset: PathLike | Dataset,
    *,
    alpha: float = 0.05,
    min_games: int = 50,
    replay: bool = False,
    bot_likeness: BotLikeness | None = None,
    jobs: int | None = None,
    engine: str = "local",
    address: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> AuditReport:
    """Audit a dataset: deal fairness, seat advantage, suspicious play, invalid games
    (``maumau-log audit``; ``report.to_dict()`` is the ``audit --format json`` document).

    Args:
        dataset: a dataset folder or :class:`Dataset`.
        alpha: the family-wise false-flag rate of the report (Holm-corrected).
        min_games: the smallest sample any test runs on.
        replay: replay the stored events even where the facts tables hold them.
        bot_likeness: run the bot-likeness test with these settings
            (:class:`maumau_log.audit.botlike.BotLikeness`; off when None).
        jobs: local processes counting the dataset's parts (None: the cores); the report
            is the same bytes whatever the number.
        engine: ``"local"`` (this process or a pool) or ``"ray"``.
        address: the Ray cluster to join with ``engine="ray"`` (None: a local Ray).
        since: audit only the games dated on or after this ``YYYY-MM-DD`` day
            (``audit --since``; the JSON document then holds ``since``).
        until: audit only the games dated on or before this day (``audit --until``).
    Raises:
        DatasetError: the dataset is missing or damaged.
        ValueError: ``alpha`` not in (0, 1), ``min_games`` below 1, or a bound that is
            not a calendar date.
    """
    from ..audit import audit as run_audit

    path = dataset.path if isinstance(dataset, Dataset) else Path(os.fspath(dataset))
    return run_audit(
        path, alpha=alpha, min_games=min_games, replay=replay, bot_likeness=bot_likeness,
        jobs=jobs, engine=engine, address=address, since=since, until=until,
    )  # fmt: skip
