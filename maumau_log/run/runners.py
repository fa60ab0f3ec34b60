"""Runners of the shard function: this process, a process pool over local cores, Ray.

Every runner yields one :class:`~maumau_log.run.shard.ShardResult` (or
:class:`~maumau_log.run.shard.ShardFailure`) per shard, in shard order, whatever order the
workers finish in; :func:`merge_order` then puts back what crosses shards (match state), so
``--jobs N`` gives exactly the results of ``--jobs 1``: the same outcomes in the same order.

The pool (:func:`pool_results`) uses :class:`concurrent.futures.ProcessPoolExecutor`: at most
``4 * jobs`` shards are in flight or waiting to be yielded (memory stays bounded by
that many shards' results, not by the input; a window of ``2 * jobs`` left the workers
idle while the parent took in a result: ``validate --jobs 2`` of 10^5 games 20.2 s ->
14.6 s, ``--jobs 1`` 27.1 s), workers ignore SIGINT so that
Ctrl-C reaches only the parent, which then kills every worker and lets the ingest roll back.
A worker that dies (killed, out of memory) breaks the pool: the shards in flight are run
again one at a time in a fresh pool, so the one that kills its worker is found and reported
as a :class:`~maumau_log.run.shard.ShardFailure`; the others go on.
"""

from __future__ import annotations

import itertools
import os
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..logs.lines import line_limit
from ..scoring.matches import MatchState
from .shard import Chunk, GameOutcome, Shard, ShardFailure, ShardResult, run_shard

if TYPE_CHECKING:  # the pool's modules only when a pool runs (one process's start-up)
    from concurrent.futures import Future, ProcessPoolExecutor

    import pyarrow as pa

Outcome = ShardResult | ShardFailure
"""What a runner yields per shard."""


def default_jobs() -> int:
    """The cores this process may use (``os.sched_getaffinity``; ``os.cpu_count`` where
    that is missing)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


STAGED_TABLES = ("events",)
"""The tables a local pool's worker writes itself when the ingest stages
(:attr:`ShardTask.stage`): the ``events`` table is about 85% of an ingest's Parquet bytes
and of its writing time (zstd, about 10 CPU s at 10^5 games), which the parent otherwise
spends beside the workers on 2 cores, with the tables travelling to it first. The smaller
tables go to the parent, which writes each partition's rows into one file per ingest (what
``stats`` and ``audit`` read stays a few files). Ray stages every table
(:func:`runner_stages`): there the driver must stay flat in the rows, at the price of one
file per shard and partition of each table (``compact`` joins them)."""


FLUSH_EVENTS = 1_000_000
"""The events a shard collecting rows holds before it writes them into the ingest's
staging folder as a :class:`~maumau_log.run.shard.Chunk` (:class:`ChunkStager`): a
worker's memory is bounded by this, not by its shard, which matters for a shard that
cannot be cut (a compressed file, a notation file, a URI). About 300 bytes of memory per
event held (an ``ingest`` of one ``.zst`` of 10^6 classic games, 69 million events, took
20.7 GB when nothing was flushed); a plain shard of :data:`~maumau_log.run.plan.SHARD_BYTES`
holds about 570,000 classic events (59 bytes a line), so a plain log's shards are not
cut into chunks and keep their files."""


def _flush_events() -> int:
    return FLUSH_EVENTS  # read when a task is made (a test may lower the constant)


@dataclass(frozen=True)
class ShardTask:
    """The shard function with an ingest's (or a validation's) fixed arguments; picklable,
    so a pool or Ray can call it.

    Attributes:
        rules_file_options: options of a ``--rules`` file, or None.
        collect: build the dataset's tables.
        ingested_at: the ingest's time.
        stage: the ingest's staging folder (an absolute path) where the worker writes its
            shard's ``staged_tables`` itself (:func:`stage_tables`), or None (the tables
            travel back with the result).
        stage_id: the ingest's id, part of the staged files' names.
        staged_tables: the tables the worker writes when it stages: :data:`STAGED_TABLES`
            (the local pool), or every table (:data:`~maumau_log.store.TABLES`: Ray, so
            no row travels to the driver).
        max_line_bytes: the longest line the shards' readers accept: the planning
            process's :func:`~maumau_log.logs.lines.line_limit` (taken when the task is made),
            so every worker, local or on a Ray node, reads the lines the planner cut
            between (an over-long line is never a cut).
        flush_events: with ``stage`` and ``collect``, the events a shard holds before it
            stages them as a chunk (:data:`FLUSH_EVENTS` when the task is made).
        stage_outcomes: with ``stage``, the games' outcomes of a shard whose tables are all
            staged are written there too (:func:`stage_outcomes`): the result is one
            :class:`~maumau_log.run.shard.Chunk` and carries no game, so the process
            merging the results never holds one (Ray's known-games keeper reads them,
            :mod:`maumau_log.run.ray_runner`).
        digest: the games' content digests (``run_shard``'s ``digest``).
    """

    rules_file_options: Mapping[str, Any] | None = None
    collect: bool = False
    ingested_at: datetime | None = None
    stage: str | None = None
    stage_id: str = ""
    max_line_bytes: int = field(default_factory=line_limit)
    staged_tables: tuple[str, ...] = STAGED_TABLES
    flush_events: int = field(default_factory=_flush_events)
    stage_outcomes: bool = False
    digest: bool = True

    def __call__(self, shard: Shard, matches: Mapping[str, MatchState] | None = None) -> Outcome:
        """Run :func:`~maumau_log.run.shard.run_shard` on ``shard``; a bug becomes a
        :class:`ShardFailure` (never a lost shard). With ``stage``, the shard's
        ``staged_tables`` are written there (:func:`stage_tables`); a worker that does not
        see the staging folder (a Ray node without the dataset's filesystem) fails the
        shard as a write error before replaying it, and writes nothing."""
        if self.stage is not None and not os.path.isdir(self.stage):
            return ShardFailure(shard, _UNSEEN, (os.path.basename(self.stage), None, _UNSEEN))
        try:
            stager = None
            if self.stage is not None and self.collect:
                stager = ChunkStager(self.stage, self.stage_id, shard.index)
            res = run_shard(
                shard,
                self.rules_file_options,
                self.collect,
                self.ingested_at,
                matches,
                max_line_bytes=self.max_line_bytes,
                flush=stager,
                flush_events=self.flush_events,
                digest=self.digest,
            )
            if self.stage is not None and self.staged_tables and not res.chunks:
                stage_tables(res, self.stage, self.stage_id, self.staged_tables)
            if self.stage is not None and self.stage_outcomes:
                stage_outcomes(res, self.stage)
            return res
        except StagingError as exc:
            err = exc.error
            return ShardFailure(shard, str(err), (exc.rel, err.errno, err.strerror))
        except Exception as exc:
            return ShardFailure(shard, f"{type(exc).__name__}: {exc}")


class StagingError(Exception):
    """A staged file could not be written (:func:`stage_tables`).

    Args:
        rel: the file's path relative to the staging folder (and the dataset).
        error: the OSError (a full disk, a file-size limit).
    """

    def __init__(self, rel: str, error: OSError) -> None:
        super().__init__(f"{rel}: {error}")
        self.rel = rel
        self.error = error


_UNSEEN = (
    "this worker does not see the ingest's staging folder in the dataset folder: every "
    "Ray node must see the dataset folder at the same path (a shared filesystem)"
)


def stage_tables(
    res: ShardResult, stage: str, stage_id: str, tables: tuple[str, ...] = STAGED_TABLES
) -> None:
    """Write ``res``'s ``tables`` into the ingest's staging folder (the
    :class:`~maumau_log.store.DatasetWriter`'s, published with the rest at its commit) and
    move them from ``res.tables`` to ``res.staged``, each with its size and SHA-256
    (:func:`~maumau_log.store.writer.write_staged`: hashed from the bytes in memory,
    flushed to disk), so that the publishing process records them without reading them.

    Each partition's table becomes ``<stage>/<table>/ruleset=R/date=D/part-<stage_id>-
    s<shard>.parquet``, written under a temporary name and renamed, so a file that exists
    is whole (a worker killed mid-write leaves only a ``.tmp`` file, which no one adopts).
    A shard run again (the merge's match replay, a re-run after a worker died) replaces
    its file.

    Args:
        res: the shard's result (changed in place).
        stage: the staging folder.
        stage_id: the ingest's id (file names).
        tables: the tables to write (the others stay in ``res.tables``).
    Raises:
        StagingError: a file cannot be written (:class:`ShardTask` turns it into a
            :class:`~maumau_log.run.shard.ShardFailure` with ``write`` set: the ingest stops
            with exit 2, nothing published).
    """
    file = f"part-{stage_id}-s{res.shard.index:05d}.parquet"
    for (ruleset, date), part in res.tables.items():
        for name in tables:
            table = part.pop(name, None)
            if table is not None and table.num_rows:
                res.staged[(name, ruleset, date)] = _stage_one(stage, file, name, ruleset,
                                                               date, table)  # fmt: skip
    res.tables = {key: part for key, part in res.tables.items() if part}


def _stage_one(
    stage: str, file: str, name: str, ruleset: str, date: str, table: pa.Table
) -> tuple[str, int, int, str]:
    """Write one staged file (:func:`~maumau_log.store.writer.write_staged`); its entry of
    :data:`~maumau_log.run.shard.Staged`. Raises :class:`StagingError`."""
    from ..store import partition_dir
    from ..store.writer import write_staged

    rel = f"{partition_dir(name, ruleset, date)}/{file}"
    try:
        size, sha256 = write_staged(name, table, os.path.join(stage, rel))
    except OSError as exc:
        raise StagingError(rel, exc) from exc
    return rel, table.num_rows, size, sha256


class ChunkStager:
    """A shard's ``flush`` (:func:`~maumau_log.run.shard.run_shard`): writes the rows a
    worker holds into the ingest's staging folder, every table (one file per table and
    partition, ``part-<stage_id>-s<shard>-c<chunk>.parquet``, as :func:`stage_tables`
    writes them: whole or absent, with size and SHA-256), and the games' outcomes beside
    them (``outcomes/s<shard>-c<chunk>.pickle``). The merger reads the outcomes back one
    chunk at a time (:meth:`~maumau_log.run.merge.LocalMerges.parts`). A shard run again
    writes the same names.

    Args:
        stage: the staging folder.
        stage_id: the ingest's id (file names).
        shard: the shard's index.
    """

    def __init__(self, stage: str, stage_id: str, shard: int) -> None:
        self.stage = stage
        self.stage_id = stage_id
        self.shard = shard
        self.count = 0

    def __call__(
        self, games: list[GameOutcome], tables: dict[tuple[str, str], dict[str, pa.Table]]
    ) -> Chunk:
        """Stage one chunk; its :class:`~maumau_log.run.shard.Chunk`.

        Raises:
            StagingError: a file cannot be written.
        """
        name = f"s{self.shard:05d}-c{self.count:05d}"
        self.count += 1
        file = f"part-{self.stage_id}-{name}.parquet"
        staged = {
            (table, ruleset, date): _stage_one(self.stage, file, table, ruleset, date, rows)
            for (ruleset, date), part in tables.items()
            for table, rows in part.items()
            if rows.num_rows
        }
        rel = _write_outcomes(self.stage, name, games)
        return Chunk(rel, len(games), sum(g.events for g in games), staged)


def _write_outcomes(stage: str, name: str, games: list[GameOutcome]) -> str:
    """Pickle ``games`` into ``<stage>/outcomes/<name>.pickle``; its relative path (read
    back once by :func:`~maumau_log.run.merge.read_outcomes`). Written under a temporary
    name and renamed, as the staged tables are, so a file found there is whole (a task
    run again, elsewhere, replaces it). Raises :class:`StagingError`."""
    rel = f"outcomes/{name}.pickle"
    path = os.path.join(stage, rel)
    try:
        os.makedirs(os.path.join(stage, "outcomes"), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        import pickle  # only an ingest that stages needs it (a validate's start-up)

        with open(tmp, "wb") as fh:
            pickle.dump(games, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError as exc:
        raise StagingError(rel, exc) from exc
    return rel


def stage_outcomes(res: ShardResult, stage: str) -> None:
    """Write the games' outcomes of ``res`` (a shard whose tables are all staged) into
    the staging folder (``outcomes/s<shard>.pickle``) and make ``res`` the one
    :class:`~maumau_log.run.shard.Chunk` it is then, so the result carries no game (a
    flushed shard's chunks have theirs staged already; a shard with rows held, or with
    no game, is left as it is).

    Args:
        res: the shard's result (changed in place).
        stage: the staging folder.
    Raises:
        StagingError: the file cannot be written.
    """
    if res.chunks or res.tables or not res.games:
        return
    rel = _write_outcomes(stage, f"s{res.shard.index:05d}", res.games)
    res.chunks = [Chunk(rel, len(res.games), sum(g.events for g in res.games), res.staged)]
    res.games, res.staged = [], {}


def serial_results(shards: Iterable[Shard], task: ShardTask) -> Iterator[Outcome]:
    """Run the shards one after the other in this process (``--jobs 1``)."""
    for s in shards:
        yield task(s)


KEEP_FREED_BYTES = 256 * 1024 * 1024
"""Freed memory a pool worker keeps for its next shard instead of giving it back to the
system (glibc's trim threshold; see :func:`keep_freed_memory`)."""
_MMAP_BYTES = 32 * 1024 * 1024  # glibc's largest mmap threshold (64-bit)
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # glibc's mallopt codes


def keep_freed_memory() -> bool:
    """Let this process reuse the memory of one shard for the next instead of giving it
    back to the system and faulting it in again (a pool worker's set-up).

    A worker builds one shard's rows at a time (collector buffers, Arrow tables, the
    staged file's pages) and frees them before the next. With the defaults, glibc returns
    freed blocks above its mmap threshold and a heap top above its trim threshold to the
    system, so every shard faulted much of its memory in afresh: ``ingest --jobs 2`` of
    25,000 games, 100,705 minor faults in the workers (45,236 with this) against 93,130
    for ``--jobs 1``'s single process over the same events
    (``bench/profile_ingest.py``). This sets glibc's trim threshold to
    :data:`KEEP_FREED_BYTES` and its top pad and mmap threshold to 32 MiB (``mallopt``).
    Arrow's own pool (mimalloc) is left as it is (its system pool faulted more). Only speed
    and a worker's resident memory between shards depend on it (its peak is one shard's,
    as before), never a result.

    Returns:
        True when glibc's ``mallopt`` took the settings (Linux with glibc), else False
        (nothing changed).
    """
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    settings = (
        (_M_TRIM_THRESHOLD, KEEP_FREED_BYTES),
        (_M_TOP_PAD, _MMAP_BYTES),
        (_M_MMAP_THRESHOLD, _MMAP_BYTES),
    )
    return all(mallopt(code, value) == 1 for code, value in settings)


def _worker_init() -> None:
    """A pool worker's set-up: Ctrl-C reaches only the parent; memory kept between
    shards (:func:`keep_freed_memory`); the objects inherited from the parent (its
    imports) frozen out of the garbage collector's passes (``gc.freeze``: a full pass
    no longer walks them, nor writes to, and so copies, their pages)."""
    import gc

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    keep_freed_memory()


def _pool(workers: int) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)


def _kill(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel what waits, kill the workers."""
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.kill()
    for p in procs:
        p.join(timeout=5)


def _alone(task: ShardTask, shard: Shard) -> Outcome:
    """Run one shard in a pool of its own: a death is this shard's."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool(1)
    try:
        return pool.submit(task, shard).result()
    except BrokenProcessPool:
        return ShardFailure(shard, "its worker process died (killed, or out of memory)")
    finally:
        _kill(pool)


def pool_results(shards: Iterable[Shard], task: ShardTask, jobs: int) -> Iterator[Outcome]:
    """Run the shards on a pool of ``jobs`` worker processes; yield in shard order.

    ``shards`` is read as the window has room (a lazy :class:`~maumau_log.run.plan.ShardPlan`
    plans its later files while the workers replay the first shards)."""
    feed = iter(shards)
    head = list(itertools.islice(feed, 2))
    if jobs <= 1 or len(head) <= 1:
        yield from serial_results(itertools.chain(head, feed), task)
        return
    feed = itertools.chain(head, feed)
    from concurrent.futures.process import BrokenProcessPool

    window = 4 * jobs  # see the module docstring
    pool = _pool(jobs)
    held: dict[int, Shard] = {}  # submitted and not yet yielded, by position
    flight: dict[int, Future[Outcome]] = {}
    done: dict[int, Outcome] = {}
    nxt = 0  # next shard to submit
    want = 0  # next shard to yield
    more = True  # ``feed`` may hold more shards
    try:
        while more or want < nxt:
            try:
                while more and len(flight) + len(done) < window:
                    if nxt not in held:  # else taken already, its submit broke: again
                        shard = next(feed, None)
                        if shard is None:
                            more = False
                            break
                        held[nxt] = shard
                    flight[nxt] = pool.submit(task, held[nxt])
                    nxt += 1
                if want in done:
                    del held[want]
                    yield done.pop(want)
                    want += 1
                    continue
                if want < nxt:
                    done[want] = flight.pop(want).result()
            except BrokenProcessPool:
                # a worker died: keep what finished, run the rest of the flight alone
                suspects = []
                for i, f in flight.items():
                    if f.done() and not f.cancelled() and f.exception() is None:
                        done[i] = f.result()
                    else:
                        suspects.append(i)
                if want not in done and want not in flight and want < nxt:
                    suspects.append(want)
                flight = {}
                _kill(pool)
                for i in sorted(set(suspects)):
                    done[i] = _alone(task, held[i])
                pool = _pool(jobs)
    finally:
        _kill(pool)


Rerun = Callable[[Shard, Mapping[str, MatchState]], Outcome]
"""Runs one shard again with match states (:func:`merge_order`)."""


def merge_order(
    results: Iterable[Outcome],
    task: ShardTask,
    shards: Sequence[Shard] | None = None,
    rerun: Rerun | None = None,
) -> Iterator[Outcome]:
    """Put back the match state that crosses shards, in shard order.

    A shard whose matches already had rounds in an earlier shard is replayed again, with
    the match states the shards before left (so its rounds are checked against their
    match exactly as one replay of the whole input checks them): here, or where ``rerun``
    sends it (Ray: a task on a node, so the driver reads no log and builds no row).
    Shards are yielded in the order given.

    Args:
        results: runner output in shard order.
        task: the shard function (for the replays again).
        shards: the shards with their data (Ray hands results without it), or None.
        rerun: runs a shard again with match states; None: ``task`` in this process.
    """
    states: dict[str, MatchState] = {}
    again: Rerun = rerun if rerun is not None else task
    try:
        for res in results:
            if isinstance(res, ShardResult) and res.match_ids & states.keys():
                shard = shards[res.shard.index] if shards is not None else res.shard
                res = again(shard, {m: states[m] for m in res.match_ids if m in states})
            if isinstance(res, ShardResult):
                states.update(res.matches)
                res.matches = {}
            yield res
    finally:  # closed early (an error, Ctrl-C): stop the runner's workers now, not at GC
        close = getattr(results, "close", None)
        if close is not None:
            close()


def local_results(shards: Sequence[Shard], task: ShardTask, jobs: int) -> Iterator[Outcome]:
    """The local runner: ``jobs`` processes (1: this process), merged in order (``shards``
    read in order as the workers need them, indexed only for a match replay)."""
    return merge_order(pool_results(shards, task, jobs), task, shards)


def runner_stages(runner: Runner | None, jobs: int = 1) -> tuple[str, ...]:
    """The tables the workers of an ingest on ``runner`` write into its staging folder
    themselves (:func:`stage_tables`); empty when they write none.

    The local pool with more than one process (``runner`` None and ``jobs`` > 1, or a
    runner whose ``stages`` attribute is True): :data:`STAGED_TABLES`. A runner whose
    ``stages`` is a tuple of table names: those (Ray: every table, on a cluster too, whose
    nodes must then see the dataset folder). Elsewhere (one process, a runner that says
    nothing) the tables travel to the parent, which writes them."""
    if runner is None:
        return STAGED_TABLES if jobs > 1 else ()
    stages = getattr(runner, "stages", False)
    if stages is True:
        return STAGED_TABLES
    if isinstance(stages, tuple) and all(isinstance(t, str) for t in stages):
        return stages
    return ()


Runner = Callable[[Sequence[Shard], ShardTask], Iterator[Outcome]]
"""A runner: shards and the task in, results in shard order out (already merged). A
runner may carry a ``workers`` attribute (its processes), which planning reads through
:func:`runner_workers` to cut the input finer for many workers."""


def runner_workers(runner: Runner | None, jobs: int = 1) -> int:
    """The processes ``runner`` runs shards on (its ``workers`` attribute; 1 when it has
    none, e.g. Ray, which plans its own shards); ``jobs`` when ``runner`` is None (the
    local runner)."""
    if runner is None:
        return jobs
    workers = getattr(runner, "workers", 1)
    return workers if isinstance(workers, int) and workers > 0 else 1
