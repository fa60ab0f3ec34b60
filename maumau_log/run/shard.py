"""The unit of replay work: a shard (a file, or a byte range of a large file) in, Arrow out.

Every command that replays (``validate``, ``ingest``, ``analyze``, ``audit``'s inputs)
cuts its input into :class:`~maumau_log.run.plan.Shard` objects
(:func:`~maumau_log.run.plan.plan_shards`) and turns each into a
:class:`ShardResult` with :func:`run_shard`: the games' outcomes (violations, ids, content
hashes) and, for an ingest, the dataset's tables as pyarrow Tables per partition. The
function is pure: it reads its shard, touches no dataset and shares no state, so shards run
in any process or on any machine (:mod:`maumau_log.run.runners`) and give the same result.
An ingest's shard hands its rows out every ``flush_events`` events (its ``flush`` writes
them into the ingest's staging folder as a :class:`Chunk`), so its memory is bounded by
that and not by its file: a compressed file, which cannot be cut, is one shard.

What crosses shard boundaries is put back by the one merging the results in shard order
(:func:`maumau_log.run.runners.merge_order`): match state (a shard whose matches began in an
earlier shard is replayed again with that state, :attr:`ShardResult.match_ids`) and the
game_id + content-hash rule of ingest (each outcome carries its hash; the merger drops the
rows of games already stored or seen).

Where a file is cut into shards is :mod:`maumau_log.run.plan`'s decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..logs.lines import LogReadError, iter_line_runs
from ..logs.lines import expand_inputs as expand_inputs  # re-exported (its home was here)
from ..logs.lines import is_uri as is_uri  # re-exported for the runners
from ..logs.notation import file_lines as notation_lines
from ..logs.notation import is_notation, located_lines
from ..replay.driver import GameReport, Replayer
from ..replay.game_ids import orphan_key
from ..replay.report import ContentHasher as ContentHasher  # re-exported (its home was here)
from ..scoring.matches import MatchState
from ..violations import Violation
from .plan import SHARD_BYTES as SHARD_BYTES  # re-exported: a shard's names in one place
from .plan import Shard as Shard
from .plan import ShardPlan as ShardPlan
from .plan import balanced_target as balanced_target
from .plan import plan_shards as plan_shards

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(slots=True)
class GameOutcome:
    """What one replayed game leaves besides its rows (small, cheap to send between
    processes).

    Attributes:
        file, line: the game's source (header line, or first line of headerless events).
        game_id: the header's id, or None for events outside any game.
        key: the id the dataset stores the game under (``game_id``, or ``?path:line``).
        has_header: a header was read.
        events: events in the game, the header counted.
        violation: the first violation, or None.
        unchecked: checks a partial-information log did not allow.
        content_hash: :func:`~maumau_log.store.collector.content_hash` (only when collecting rows).
        match_id: the header's match id.
    """

    file: str
    line: int
    game_id: str | None
    key: str
    has_header: bool
    events: int
    violation: Violation | None
    unchecked: list[str]
    content_hash: int | None = None
    match_id: str | None = None

    @property
    def valid(self) -> bool:
        """No violation."""
        return self.violation is None

    def __reduce__(self) -> tuple[type[GameOutcome], tuple[Any, ...]]:
        """Pickle as the class and its field values (the workers send one per game: 40%
        fewer bytes and half the pickling time of the slots dataclass's default state)."""
        return GameOutcome, (
            self.file, self.line, self.game_id, self.key, self.has_header, self.events,
            self.violation, self.unchecked, self.content_hash, self.match_id,
        )  # fmt: skip


Staged = dict[tuple[str, str, str], tuple[str, int, int, str]]
"""(table, ruleset, date) to (path relative to the staging folder, rows, bytes, SHA-256)
of staged files (:func:`maumau_log.run.runners.stage_tables`)."""


@dataclass
class Chunk:
    """One flushed part of a shard's result: a shard that collects rows writes what it
    holds into the staging folder every :data:`~maumau_log.run.runners.FLUSH_EVENTS`
    events (:class:`~maumau_log.run.runners.ChunkStager`), so that its memory is bounded
    by that and not by its file (a compressed file is one shard).

    Attributes:
        outcomes: the pickled list of the part's :class:`GameOutcome` objects, as a path
            relative to the staging folder.
        games: the games in it.
        events: their events.
        staged: its staged files, every table (see :data:`Staged`).
    """

    outcomes: str
    games: int
    events: int
    staged: Staged = field(default_factory=dict)


@dataclass
class ShardResult:
    """The result of :func:`run_shard`.

    Attributes:
        shard: the shard (without its data).
        games: one outcome per game, in file order.
        tables: (ruleset, date) to table name to pyarrow Table (``games``, ``results``,
            ``events``, ``violations``); empty when rows were not asked for.
        unreadable: the error when the file could not be opened at all.
        match_ids: the matches whose rounds this shard holds.
        matches: the match states at the end of the shard (for the next shard's replay).
        seeded: the shard was replayed with match state from earlier shards.
        staged: (table, ruleset, date) to (path relative to the staging folder, rows,
            bytes, SHA-256) of the tables the worker wrote itself
            (:func:`maumau_log.run.runners.stage_tables`): all the publisher needs.
        chunks: the parts flushed to the staging folder (:class:`Chunk`), in file order;
            when there are any, ``games``, ``tables`` and ``staged`` are empty and the
            games are read back chunk by chunk
            (:meth:`~maumau_log.run.merge.LocalMerges.parts`).
    """

    shard: Shard
    games: list[GameOutcome] = field(default_factory=list)
    tables: dict[tuple[str, str], dict[str, pa.Table]] = field(default_factory=dict)
    unreadable: LogReadError | None = None
    match_ids: set[str] = field(default_factory=set)
    matches: dict[str, MatchState] = field(default_factory=dict)
    seeded: bool = False
    staged: Staged = field(default_factory=dict)
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def events(self) -> int:
        """Events read (every game's count, headers included; the chunks' too)."""
        return sum(g.events for g in self.games) + sum(c.events for c in self.chunks)

    @property
    def game_count(self) -> int:
        """Games read (the chunks' too)."""
        return len(self.games) + sum(c.games for c in self.chunks)


@dataclass
class ShardFailure:
    """A shard that could not be replayed (its worker died, or a bug).

    Attributes:
        shard: the shard.
        error: what went wrong, in one line.
        write: when a worker could not write a staged file
            (:func:`maumau_log.run.runners.stage_tables`): (the file's path relative to the
            dataset, errno, strerror); the ingest then stops with the dataset's write
            error (exit 2, nothing stored), as when the parent cannot write.
    """

    shard: Shard
    error: str
    write: tuple[str, int | None, str | None] | None = None

    def __str__(self) -> str:
        return f"{self.shard.describe()}: {self.error}"


Flush = Callable[[list[GameOutcome], dict[tuple[str, str], dict[str, "pa.Table"]]], Chunk]
"""Takes a shard's outcomes and rows held so far, returns their :class:`Chunk`
(:func:`run_shard`'s ``flush``)."""


def outcome(report: GameReport) -> GameOutcome:
    """The :class:`GameOutcome` of a replayed game's report."""
    gid = report.game_id
    header = report.header
    return GameOutcome(
        file=report.file,
        line=report.line,
        game_id=gid,
        key=gid if gid is not None else orphan_key(report),
        has_header=header is not None,
        events=report.events,
        violation=report.violation,
        unchecked=report.unchecked,
        content_hash=report.extra.get("content_hash"),
        match_id=header.match_id if header is not None else None,
    )


def run_shard(
    shard: Shard,
    rules_file_options: Mapping[str, Any] | None = None,
    collect: bool = False,
    ingested_at: datetime | None = None,
    matches: Mapping[str, MatchState] | None = None,
    *,
    max_line_bytes: int | None = None,
    flush: Flush | None = None,
    flush_events: int = 0,
    digest: bool = True,
) -> ShardResult:
    """Replay one shard: the games' outcomes and, with ``collect``, the dataset's rows.

    A pure function: it reads the shard (or ``shard.data``) and nothing else.

    Args:
        shard: the shard.
        rules_file_options: options of a ``--rules`` file, or None.
        collect: build the dataset's tables (ingest); False for ``validate``.
        ingested_at: the ingest time stored in every ``games`` row (one per ingest, so every
            shard of it stores the same).
        matches: match states from the shards before (only when :attr:`ShardResult.match_ids`
            said the shard continues their matches); copied, not changed.
        max_line_bytes: the longest line read (None: :func:`~maumau_log.logs.lines.line_limit`);
            a longer one is reported ``line_too_long`` in place.
        flush: with ``collect``, called with the games' outcomes and rows held each time
            they reach ``flush_events`` events (between games) and, once it was called, at
            the end; it returns the :class:`Chunk` kept in :attr:`ShardResult.chunks`
            (:class:`~maumau_log.run.runners.ChunkStager` writes them). None: everything
            is held until the end.
        flush_events: the events held that make a flush (0: none).
        digest: without ``collect``, put each game's content digest in its outcome
            (:class:`ContentHasher`); False when no game id of the shard can repeat, so no
            digest would ever be compared (``import --validate``).
    Returns:
        The :class:`ShardResult`. Within the shard (a chunk, when flushed) a game id met
        twice keeps only its first copy's rows; the merger applies the rule across chunks,
        shards and the dataset. A file that cannot be opened gives ``unreadable`` and no games.
    """
    import copy

    collector = None
    if collect:  # Arrow and Polars only when rows are wanted (not for validate: start-up)
        from ..store.collector import RecordCollector

        collector = RecordCollector(ingested_at=ingested_at)
    visitors: list[Any] = [collector] if collector else [ContentHasher()] if digest else []
    replayer = Replayer(rules_file_options, visitors=visitors)
    if matches:
        replayer.matches = copy.deepcopy(dict(matches))
    result = ShardResult(shard=Shard(shard.index, shard.path, shard.start, shard.end,
                                     shard.first_line), seeded=bool(matches))  # fmt: skip
    reports: Iterable[GameReport]
    if is_notation(shard.path):  # the hand-written notation: one shard, converted as read
        reports = replayer.replay_lines(
            shard.path,
            located_lines(shard.data.decode("utf-8", "replace"))
            if shard.data is not None
            else notation_lines(shard.path),
        )
    else:
        reports = replayer.replay_runs(  # the lines in runs, as read (numbered by the replay)
            shard.path,
            iter_line_runs(
                Path(shard.path),
                start=shard.start,
                end=shard.end,
                first_line=shard.first_line,
                data=shard.data,
                max_line_bytes=max_line_bytes,
            ),
        )
    if collector is None or flush_events <= 0:
        flush = None
    held = 0  # events of the outcomes held
    try:
        for report in reports:
            o = outcome(report)
            result.games.append(o)
            if o.match_id is not None:
                result.match_ids.add(o.match_id)
            held += o.events
            if flush is not None and held >= flush_events:
                assert collector is not None
                result.chunks.append(flush(result.games, collector.take()))
                result.games, held = [], 0
    except LogReadError as exc:
        result.unreadable = exc
        result.games, result.chunks = [], []  # the staged chunks are never adopted
        return result
    if collector is not None:
        if result.chunks and result.games:
            assert flush is not None
            result.chunks.append(flush(result.games, collector.take()))
            result.games = []
        elif not result.chunks:
            result.tables = collector.tables()
    result.matches = replayer.matches
    return result
