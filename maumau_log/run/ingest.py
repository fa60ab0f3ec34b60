"""Ingest and the way back: replay logs into the dataset, read games and matches back.

:func:`ingest` drives a whole ingest through the shard function
(:func:`maumau_log.run.shard.run_shard`) on one core or many (:mod:`maumau_log.run.runners`);
:func:`load_game` reads one game back and rebuilds the state at any event by replaying the
stored events through the engine (the events table keeps each event's JSON in ``raw``, so
the rebuilt state is exactly the replay's). The row building lives in
:mod:`maumau_log.store.collector`, the matches table in :mod:`maumau_log.store.matches`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..engine import Engine, RuleViolation
from ..events import (
    Game,
    decode_event,
)
from ..rules import RulesetError, resolve
from ..store import (
    SCHEMAS,
    UNKNOWN,
    DatasetError,
    DatasetWriter,
    check_files,
    scan_all,
    write_error,
)
from ..store.collector import (  # noqa: F401  (re-exported: the API before the split)
    BATCH_EVENTS,
    Conflict,
    RecordCollector,
    content_hash,
    game_date,
    options_json,
    orphan_key,
)
from ..store.manifest import checked_scan
from ..store.matches import MatchRound, match_rows, update_matches  # noqa: F401
from ..store.rows import ingest_memory_pool
from ..violations import Violation
from .merge import LocalMerges, Merges, PartMerge
from .plan import SHARD_BYTES, plan_shards
from .runners import (
    STAGED_TABLES,
    Runner,
    ShardTask,
    local_results,
    runner_stages,
    runner_workers,
)
from .shard import GameOutcome, ShardFailure, ShardResult, expand_inputs

# ---------------------------------------------------------------------------------------
# Ingest


@dataclass
class IngestSummary:
    """What an ingest read and stored.

    Attributes:
        dataset: the dataset folder.
        files: log files read.
        games: games read (valid or not, duplicates and conflicts included).
        invalid: games read that have a violation.
        events: events read (every game's event count, the header included).
        added: games stored by this ingest.
        duplicates: games skipped because the dataset already held them unchanged.
        conflicts: games skipped because their id is stored with other content.
        violations: the first violation of every invalid game read, in order.
        rows: rows written per table.
        seconds: wall time of the ingest.
        game_ids: the id of every game read (``?file:line`` for a game without one);
            empty when :func:`ingest` was told not to keep them (``keep_game_ids``).
        failed: the shards that failed (``file (bytes a-b): error``); their games are not
            stored.
        unreadable: files that could not be read (binary, no permission), as
            ``"path: why"``; the other files' games are stored.
    """

    dataset: str
    files: int = 0
    games: int = 0
    invalid: int = 0
    events: int = 0
    added: int = 0
    duplicates: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    game_ids: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @property
    def valid(self) -> int:
        """Games read with no violation."""
        return self.games - self.invalid

    @property
    def exit_code(self) -> int:
        """4 when a shard failed (the rest is stored); 2 when a file could not be read and
        no game was; 1 when a game read is invalid or conflicted, or a file could not be
        read beside games that were; else 0."""
        if self.failed:
            return 4
        if self.unreadable and not self.games:
            return 2
        return 1 if self.invalid or self.conflicts or self.unreadable else 0


def _without(tables: Mapping[str, pa.Table], drop: set[str]) -> dict[str, pa.Table]:
    """The tables without the rows of the games in ``drop``."""
    if not drop:
        return dict(tables)
    ids = pa.array(sorted(drop), pa.string())
    return {
        name: t.filter(pc.invert(pc.is_in(t.column("game_id"), value_set=ids)))
        for name, t in tables.items()
    }


def ingest(
    paths: Iterable[str | Path],
    dataset: str | Path,
    rules_file_options: Mapping[str, Any] | None = None,
    on_report: Callable[[GameOutcome], None] | None = None,
    jobs: int = 1,
    runner: Runner | None = None,
    shard_bytes: int = SHARD_BYTES,
    on_shard: Callable[[ShardResult | ShardFailure], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
    keep_game_ids: bool = True,
) -> IngestSummary:
    """Replay logs and add their games to a Parquet dataset (crash-safe, idempotent).

    The input is cut into shards (:func:`~maumau_log.run.plan.plan_shards`), each replayed by
    :func:`~maumau_log.run.shard.run_shard` on ``jobs`` local processes (or by ``runner``, e.g.
    Ray), and the results are merged in shard order, so any ``jobs`` stores the same rows
    and reports the same outcomes in the same order.

    Where the runner stages (:func:`~maumau_log.run.runners.runner_stages`: the pool's
    workers the ``events`` tables, Ray's tasks every table), the workers write those files
    into the writer's staging folder with their size and SHA-256, and this process adopts
    them unread (:meth:`~maumau_log.store.DatasetWriter.adopt`); it reads a staged file
    only to drop the rows of games already stored from a shard that also holds new ones
    (a shard of stored games only adopts nothing). Everything is published in one
    manifest commit: a process killed before it leaves the dataset as it was, and the
    next ingest (or ``verify --repair``) deletes the leftovers.

    The first-copy rule on game ids (FORMAT.md Files; :class:`~maumau_log.run.merge.
    FirstCopy`) runs in this process, or, with a runner that has a ``keeper`` (Ray:
    :class:`~maumau_log.run.ray_runner.KeeperMerges`) and no ``on_report``, in that keeper:
    the workers stage the games' outcomes for it and this process holds none.

    Args:
        paths: log files and folders, as for ``validate`` (:func:`expand_paths`); with a
            ``runner`` that reads them (Ray), also pyarrow filesystem URIs.
        dataset: the dataset folder (created when missing).
        rules_file_options: options of a ``--rules`` file, or None.
        on_report: called with every game's outcome, in input order (progress, tallies);
            the outcomes then come to this process (no keeper).
        jobs: worker processes (1: this process).
        runner: another runner (:data:`~maumau_log.run.runners.Runner`), or None for the local one.
        shard_bytes: target shard size of a large plain log.
        on_shard: called after each shard is merged (progress).
        on_plan: called with the number of shards once they are planned.
        keep_game_ids: list every game's id in the summary's ``game_ids`` (``analyze``
            ranks those games); False keeps the parent's memory flat in the games read.
    Returns:
        The :class:`IngestSummary`. Games already stored with the same content hash are
        skipped; a stored id with other content is a conflict (listed, not stored). A shard
        that failed is listed in ``failed`` and its games are not stored (a re-run adds them).
    Raises:
        LogReadError: a path given is missing (nothing is stored); a file found that cannot
            be read (binary, no permission) is listed in ``unreadable`` instead.
        DatasetError: the dataset folder cannot be used (see :class:`DatasetWriter`), or
            cannot be written (a full disk: nothing is stored).
    """
    t0 = time.perf_counter()
    files = expand_inputs([str(p) for p in paths])
    summary = IngestSummary(dataset=str(dataset), files=len(files))
    # where the first-copy rule runs (run/merge.py): on Ray, in the known-games keeper
    # (an actor on this node), unless every game's outcome is reported here
    keeper = getattr(runner, "keeper", None)
    apart = keeper is not None and on_report is None
    # the C library's allocator for the Arrow buffers (store/rows.py: no huge pages
    # zeroed on first touch), inherited by the pool's forked workers
    with ingest_memory_pool(), DatasetWriter(dataset) as writer:
        writer.check(writer.manifest.files["games"])  # what decides duplicates: as recorded
        # the known games: on disk, so memory stays flat in the games stored and read
        ingested_at = datetime.now(UTC)
        merges: Merges = (
            keeper(str(dataset), keep_game_ids)
            if keeper is not None and apart
            else LocalMerges(dataset, keep_game_ids, on_report)
        )
        try:
            _merge_results(files, writer, merges, summary, runner, jobs, shard_bytes,
                           ShardTask(rules_file_options, True, ingested_at,
                                     stage=str(writer.tmp.resolve()), stage_id=writer.id,
                                     staged_tables=runner_stages(runner, jobs),
                                     stage_outcomes=apart),
                           on_shard, on_plan)  # fmt: skip
        finally:
            merges.close()
        summary.rows = dict(writer.rows)
        writer.commit(
            {
                "at": ingested_at.isoformat(timespec="seconds"),
                "games_added": summary.added,
                "rows": dict(writer.rows),
                "sources": [str(f) for f in files][:1000],
            }
        )
    summary.seconds = time.perf_counter() - t0
    return summary


def _merge_results(
    files: list[Any],
    writer: DatasetWriter,
    merges: Merges,
    summary: IngestSummary,
    runner: Runner | None,
    jobs: int,
    shard_bytes: int,
    task: ShardTask,
    on_shard: Callable[[ShardResult | ShardFailure], None] | None,
    on_plan: Callable[[int], None] | None,
) -> None:
    """Run the shards of ``files`` with ``task`` and merge their results into ``writer``
    and ``summary`` in shard order through ``merges`` (:func:`ingest`'s loop)."""
    # the workers write ``task.staged_tables`` into the staging folder (the pool: events;
    # Ray: every table), returning only the files' names, rows, sizes and SHA-256
    # (every table of a shard flushed in chunks, of which this process adopts those)
    adopted = set(task.staged_tables or STAGED_TABLES)
    # planned as the runner reads them: on_plan has the count once all are
    shards = plan_shards(files, shard_bytes, runner_workers(runner, jobs), on_plan)
    results = runner(shards, task) if runner is not None else local_results(shards, task, jobs)
    touched: set[str] = set()
    try:
        for res in results:
            if isinstance(res, ShardFailure):
                if res.write is not None:  # a worker could not write: the machine's fault
                    rel, code, why = res.write  # pyarrow's OSError may have no errno
                    exc = OSError(code, why) if why else OSError(res.error)
                    raise write_error(writer.root, exc, str(writer.root / rel))
                summary.failed.append(str(res))
                if on_shard is not None:
                    on_shard(res)
                continue
            if res.unreadable is not None:
                if res.unreadable.line is not None:
                    raise res.unreadable
                summary.unreadable.append(str(res.unreadable))  # the rest goes on
                continue
            for part, tables, staged in merges.parts(res, writer.tmp):
                _add_part(summary, part)
                touched |= part.touched
                drop = part.drop
                for (ruleset, date), rows in tables.items():
                    writer.write(ruleset, date, _without(rows, drop))
                if not part.added:
                    pass  # every row staged is of a game dropped: none is adopted
                elif drop:  # rare: the staged rows less the dropped games, written here
                    for (name, ruleset, date), (rel, *_) in staged.items():
                        kept = pq.read_table(writer.tmp / rel, schema=SCHEMAS[name])
                        writer.write(ruleset, date, _without({name: kept}, drop))
                else:  # taken as the worker wrote, flushed and hashed it: never read here
                    for (name, ruleset, date), (rel, rows_n, size, sha256) in staged.items():
                        if name in adopted:
                            writer.adopt(name, rel, rows_n, size, sha256)
                        else:  # a chunk's small table: into this ingest's one file
                            kept = pq.read_table(writer.tmp / rel, schema=SCHEMAS[name])
                            writer.write(ruleset, date, {name: kept})
            if on_shard is not None:
                on_shard(res)
    finally:  # the workers stopped before the writer's abort removes the staging
        # folder on an error (else one still writing recreates it)
        close = getattr(results, "close", None)
        if close is not None:
            close()
    update_matches(writer, touched)


def _add_part(summary: IngestSummary, part: PartMerge) -> None:
    """Add one merged part's counts and lists to the summary."""
    summary.games += part.games
    summary.events += part.events
    summary.invalid += part.invalid
    summary.added += part.added
    summary.duplicates += part.duplicates
    summary.violations.extend(part.violations)
    summary.conflicts.extend(part.conflicts)
    summary.game_ids.extend(part.game_ids)


# ---------------------------------------------------------------------------------------
# Reading a game back


@dataclass
class StoredGame:
    """One game read back from a dataset (the dispute view's data).

    Attributes:
        game: the ``games`` row (plus ``ruleset`` and ``date``).
        results: the ``results`` rows, in seat order.
        violations: the ``violations`` rows.
        stored_events: how many events the dataset holds for the game (0..n-1).
        at: the event asked for (None when no event is stored).
        event: the ``events`` row of event ``at`` (without ``raw``), or None (also at the
            violating event, which is not stored: see ``logged``).
        state: ``Engine.view()`` after event ``at``; at the violating event, the state
            right before it (after event ``at - 1``); None when it cannot be rebuilt.
        at_violation: True when ``at`` is the game's violating event.
        logged: at the violating event, the line as logged (``violations.raw``; None for a
            dataset written before it was stored).
    """

    game: dict[str, Any]
    results: list[dict[str, Any]]
    violations: list[dict[str, Any]]
    stored_events: int
    at: int | None
    event: dict[str, Any] | None
    state: dict[str, Any] | None
    at_violation: bool = False
    logged: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (times as ISO text; ``game.options`` as a JSON object)."""
        game = dict(self.game)
        if isinstance(game.get("ingested_at"), datetime):
            game["ingested_at"] = game["ingested_at"].isoformat()
        if isinstance(game.get("options"), str):
            game["options"] = json.loads(game["options"])
        return {
            "game": game,
            "results": self.results,
            "violations": self.violations,
            "stored_events": self.stored_events,
            "at": self.at,
            "state_is": "before" if self.at_violation else "after",
            "event": self.event,
            "logged_event": self.logged,
            "state": self.state,
        }


def rebuild_state(ruleset: str, options: str, raws: list[str], at: int) -> dict[str, Any]:
    """Replay stored events through the engine and return the state after event ``at``.

    Args:
        ruleset: the canonical preset name (the ``ruleset`` partition).
        options: the game's effective options JSON (``games.options``).
        raws: the stored ``raw`` JSON of events 0..k, header first.
        at: the event to stop after (0 is the header).
    Returns:
        ``Engine.view()`` (hands, top, suit, pending draw and skip, direction, turn, calls due).
    Raises:
        DatasetError: the stored events do not replay (a damaged or foreign dataset).
    """
    try:
        rules = resolve(ruleset, None, json.loads(options))
        header = decode_event(raws[0])
        if not isinstance(header, Game):
            raise DatasetError("event 0 of the stored game is not its header")
        engine = Engine(rules, header)
        for raw in raws[1 : at + 1]:
            engine.apply(decode_event(raw))
    except (RuleViolation, RulesetError, msgspec.DecodeError, ValueError) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(f"the stored events do not replay: {exc}") from exc
    return engine.view()


def at_range_message(at: int, stored: int, game: dict[str, Any]) -> str:
    """Why ``--at at`` is refused, stating the one range ``--at`` takes for this game (the
    stored events and, for an invalid game, its violating event).

    Args:
        at: the event asked for.
        stored: the events stored (0..stored-1).
        game: the ``games`` row (``valid``, ``violation_index``, ``violation_code``,
            ``events``).
    Returns:
        e.g. ``"--at takes 0..12, not 13 (events 0..11 replayed; event 12 is where the
        replay stopped (wrong_player): --at 12 shows the state before it and the event as
        logged; events 13..61 not replayed)"``.
    """
    bad = game["violation_index"] if not game["valid"] else None
    if bad is None:
        if not stored:
            return f"no event {at}: no events are stored"
        return f"--at takes 0..{stored - 1}, not {at}"
    replayed = (
        f"events 0..{bad - 1} replayed; " if bad > 1 else ("event 0 replayed; " if bad else "")
    )
    why = (
        f"{replayed}event {bad} is where the replay stopped ({game['violation_code']}): "
        f"--at {bad} shows the state before it and the event as logged"
    )
    last = game["events"] - 1
    if bad < at <= last:
        why += (
            f"; {f'event {last}' if last == bad + 1 else f'events {bad + 1}..{last}'} not replayed"
        )
    return f"--at takes 0..{bad}, not {at} ({why})"


def load_game(dataset: str | Path, game_id: str, at: int | None = None) -> StoredGame:
    """Read one game from a dataset and rebuild the state at event ``at``.

    ``at`` is the event index a report gives (header = 0, as ``validate`` counts): for a
    stored (accepted) event, the state after it; for an invalid game's violating event
    (``games.violation_index``), the state right before it, with the line as logged.

    Args:
        dataset: the dataset folder.
        game_id: the game's id (``games.game_id``).
        at: the event index (0 = header); None for the last stored event.
    Returns:
        The :class:`StoredGame`.
    Raises:
        DatasetError: no such dataset or game, or ``at`` neither a stored event nor the
            violating one (the message says which events there are).
    """
    import polars as pl  # only here: an ingest need not import Polars (0.2 CPU s)

    root = Path(dataset)
    manifest = check_files(root)
    games = checked_scan(root, "games", manifest).filter(pl.col("game_id") == game_id).collect()
    if games.height == 0:
        raise DatasetError(f"no game {game_id!r} in {dataset}")
    game = games.row(0, named=True)
    # only the game's partition is read (and checked against its checksums)
    part = (game["ruleset"], game["date"])
    tables = {t: checked_scan(root, t, manifest, part) for t in ("results", "violations", "events")}
    mine = pl.col("game_id") == game_id
    results = tables["results"].filter(mine).sort("seat").drop("ruleset", "date").collect()
    violations = tables["violations"].filter(mine).drop("ruleset", "date").collect()
    events = tables["events"].filter(mine).sort("event_index").drop("date").collect()
    n = events.height
    bad = game["violation_index"] if not game["valid"] else None
    at_violation = at is not None and bad is not None and at == bad
    if at is None:
        at = n - 1 if n else None
    elif not at_violation and not 0 <= at < n:
        raise DatasetError(f"game {game_id!r}: {at_range_message(at, n, game)}")
    state = event = None
    logged = None
    replayable = game["options"] is not None and game["ruleset"] != UNKNOWN
    raws = events["raw"].to_list()
    if at_violation:
        assert at is not None
        rows = violations.filter(pl.col("event_index") == at)
        if rows.height and "raw" in rows.columns:
            logged = rows["raw"][0]
        if replayable and 1 <= at <= n:
            state = rebuild_state(game["ruleset"], game["options"], raws, at - 1)
    elif at is not None:
        row = events.row(at, named=True)
        event = {k: v for k, v in row.items() if k not in ("raw", "ruleset")}
        if replayable:
            state = rebuild_state(game["ruleset"], game["options"], raws, at)
    return StoredGame(
        game=game,
        results=results.to_dicts(),
        violations=violations.to_dicts(),
        stored_events=n,
        at=at,
        event=event,
        state=state,
        at_violation=at_violation,
        logged=logged,
    )


# ---------------------------------------------------------------------------------------
# Reading a match back


@dataclass
class StoredMatch:
    """One match read back from a dataset: its ``matches`` row and its score sheet.

    Attributes:
        match: the ``matches`` row (plus ``ruleset`` and ``date``), with ``totals`` as a
            dict player to total.
        rounds: one dict per stored round, in round order: ``round``, ``game_id``,
            ``dealer``, ``winner``, ``valid``, ``scores`` (player to round score, None
            where unknown) and ``totals`` (player to running total after the round, None
            where unknown: the ``results`` column ``total_after``).
    """

    match: dict[str, Any]
    rounds: list[dict[str, Any]]

    @property
    def players(self) -> list[str]:
        """The match's seats."""
        return list(self.match["players"] or [])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (times as ISO text)."""
        match = dict(self.match)
        for key in ("first_ingest", "last_ingest"):
            if isinstance(match.get(key), datetime):
                match[key] = match[key].isoformat()
        return {"match": match, "rounds": self.rounds}


def load_match(dataset: str | Path, match_id: str) -> StoredMatch:
    """Read one match from a dataset: its ``matches`` row and its rounds' score sheet.

    Args:
        dataset: the dataset folder.
        match_id: the match's id.
    Returns:
        The :class:`StoredMatch`.
    Raises:
        DatasetError: no such dataset; a dataset with no ``matches`` table (written before
            matches were stored, or holding no match round); no such match.
    """
    import polars as pl  # only here: an ingest need not import Polars (0.2 CPU s)

    tables = scan_all(dataset)
    found = tables["matches"].filter(pl.col("match_id") == match_id).collect()
    if found.height == 0:
        if tables["matches"].select(pl.len()).collect().item() == 0:
            raise DatasetError(
                f"{dataset}: no matches table (no match rounds stored, or a dataset written "
                "before matches were stored: ingest its logs into a new dataset)"
            )
        raise DatasetError(f"no match {match_id!r} in {dataset}")
    match = found.row(0, named=True)
    match["totals"] = {t["player"]: t["total"] for t in match["totals"] or []}
    games = (
        tables["games"]
        .filter(pl.col("match_id") == match_id)
        .select("game_id", "round", "dealer", "winner", "valid", "ruleset", "date")
        .collect()
    )
    parts = (
        pl.col("ruleset").is_in(games["ruleset"].unique().to_list())
        & pl.col("date").is_in(games["date"].unique().to_list())
        & pl.col("game_id").is_in(games["game_id"].to_list())
    )
    results = (
        tables["results"]
        .filter(parts)
        .select("game_id", "player", "seat", "round_score", "round", "total_after")
        .sort("game_id", "seat")
        .collect()
    )
    by_game: dict[str, list[dict[str, Any]]] = {}
    for r in results.iter_rows(named=True):
        by_game.setdefault(r["game_id"], []).append(r)
    rounds = []
    for g in games.iter_rows(named=True):
        rows = by_game.get(g["game_id"], [])
        rnd = g["round"]
        if rnd is None and rows:
            rnd = rows[0]["round"]
        rounds.append(
            {
                "round": rnd,
                "game_id": g["game_id"],
                "dealer": g["dealer"],
                "winner": g["winner"],
                "valid": g["valid"],
                "scores": {r["player"]: r["round_score"] for r in rows},
                "totals": {r["player"]: r["total_after"] for r in rows},
            }
        )
    rounds.sort(key=lambda r: (r["round"] is None, r["round"] or 0, r["game_id"]))
    return StoredMatch(match=match, rounds=rounds)
