"""The Ray runner (``--engine ray``, the optional extra ``maumau-log[ray]``).

Workers write, the driver commits. Every Ray task replays its shard and writes every table
the shard produces (``games``, ``results``, ``events``, ``violations``, the audit's facts)
straight into the ingest's staging folder inside the dataset folder
(:func:`maumau_log.run.runners.stage_tables`), each file hashed and flushed to disk by the
task, and the games' outcomes (ids, content hashes, violations) beside them
(:attr:`~maumau_log.run.runners.ShardTask.stage_outcomes`). What comes back to the driver
is small: per staged file, its name, rows, size and SHA-256, and the shard's match states.
The driver puts the match states back in shard order as the local runner does
(:func:`maumau_log.run.runners.merge_order`); the rule on game ids, which needs every
outcome in input order, runs in the known-games keeper (:class:`KeeperMerges`, an actor on
the driver's node that reads the staged outcomes), and the driver publishes the files in
one crash-safe manifest commit (:meth:`maumau_log.store.DatasetWriter.commit`), never
reading nor hashing them. So the dataset folder must be at the same path on every node (a
shared filesystem); a task that does not see the staging folder fails the ingest with
exit 2 and writes nothing.

Local paths (every node must see them too): one plain Ray task (``ray.remote``) per
planned shard, the task reading its shard's byte range itself (:func:`ray_range_results`),
so a local Ray gets the balanced shards the local pool gets
(:func:`~maumau_log.run.plan.balanced_target`), no read stage and none of Ray Data's own
actors (their start-up was most of what a local Ray lost to ``--jobs 2``). A shard holding
rounds of a match that began in an earlier shard is replayed again with that match's state
as one more Ray task (:func:`ray_rerun`). Pyarrow filesystem URIs (``s3://bucket/logs/``):
Ray Data reads the files as binary files (``read_binary_files``, :func:`ray_results`), a file
being one shard, and ``map_batches`` returns one row per shard, its pickled outcome; a
match continued across files is replayed again on the driver there (it reads the file).

A shard whose function fails comes back as a :class:`~maumau_log.run.shard.ShardFailure` with
its file and the error; when Ray itself gives up (a node lost after its retries), every
shard not yet received is reported failed with Ray's error, never dropped silently.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa

from ..scoring.matches import MatchState
from ..store import TABLES
from .merge import LocalMerges, Part, PartMerge, read_outcomes
from .plan import Cuts, ShardPlan, StartScan, scan_cuts
from .runners import Outcome, Rerun, Runner, ShardTask, default_jobs, merge_order
from .shard import GameOutcome, Shard, ShardFailure, ShardResult, is_uri

CANCEL_WAIT = 10.0
"""Seconds an ingest stopped early (an error, Ctrl-C) waits for its cancelled Ray tasks to
stop before the writer removes the staging folder (a forced cancel ends the worker
process, so this is a bound, not a usual wait)."""

_OUT_SCHEMA = pa.schema([("file", pa.int64()), ("shard", pa.int64()), ("meta", pa.large_binary())])
"""One row per shard out of ``map_batches``: the pickled outcome. It carries no table: the
task wrote every table of the shard into the ingest's staging folder
(:func:`~maumau_log.run.runners.stage_tables`), so only the games' outcomes and the staged
files' names, rows, sizes and SHA-256 reach the driver."""


def _local_path(path: str) -> str:
    return os.path.realpath(path) if "://" not in path else path


class _ReplayBatch:
    """The ``map_batches`` function: a batch of files (bytes, path) to the shard rows."""

    def __init__(self, task: ShardTask, by_path: dict[str, tuple[int, list[Shard]]]) -> None:
        self.task = task
        self.by_path = by_path

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows: dict[str, list[Any]] = {n: [] for n in _OUT_SCHEMA.names}
        for data, path in zip(
            batch.column("bytes").to_pylist(), batch.column("path").to_pylist(), strict=True
        ):
            file_no, shards = self._find(path)
            for s in shards:  # one shard per file (see ray_runner)
                _replay(self.task, Shard(s.index, s.path, data=data), rows, file_no)
        return pa.Table.from_pydict(rows, schema=_OUT_SCHEMA)

    def _find(self, path: str) -> tuple[int, list[Shard]]:
        for key in (path, _local_path(path), "/" + path.lstrip("/")):
            if key in self.by_path:
                return self.by_path[key]
        for key, value in self.by_path.items():  # a URI: Ray reports it without the scheme
            if key.endswith("://" + path) or key.split("://", 1)[-1] == path:
                return value
        raise KeyError(f"Ray read a file the input does not list: {path}")


def _replay(task: ShardTask, s: Shard, rows: dict[str, list[Any]], file_no: int) -> None:
    """Run the shard function on ``s`` and add its row: the pickled outcome (a failure is
    never lost: as in :func:`_run_one`, a task that raises past its own guard is this
    shard's failure; an exception out of ``map_batches`` would fail every shard not yet
    received)."""
    try:
        res = task(s)
    except Exception as exc:  # never lose a shard
        res = ShardFailure(s, f"{type(exc).__name__}: {exc}")
    rows["file"].append(file_no)
    rows["shard"].append(s.index)
    rows["meta"].append(pickle.dumps(res, protocol=5))


def _init(address: str | None, num_cpus: int | None) -> None:
    import logging

    import ray

    for name in ("ray", "ray.data"):  # Ray's progress lines would drown our report
        logging.getLogger(name).setLevel(logging.WARNING)
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is None:  # "local": a new Ray, never the cluster last started on this
        # machine (Ray's default joins it, which then refuses ``num_cpus``)
        ray.init(
            address="local",
            num_cpus=num_cpus or default_jobs(),
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)


def _ordered_quiet_context() -> None:
    """Ray Data's context for our runs: results in input (shard) order, no progress bars of
    Ray's own (the CLI draws its own)."""
    import ray

    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = False


def ray_results(
    shards: Sequence[Shard],
    task: ShardTask,
    address: str | None = None,
    num_cpus: int | None = None,
) -> Iterator[Outcome]:
    """Run the shards on Ray; yield their results in shard order (not yet merged).

    Args:
        shards: whole-file shards, one per file (``start`` 0, ``end`` None).
        task: the shard function's arguments.
        address: a running cluster (``ray://...`` or ``host:port``); default
            ``RAY_ADDRESS``, else Ray starts on this machine with ``num_cpus`` CPUs.
        num_cpus: CPUs of a local Ray (default: the cores this process may use).
    """

    _init(address, num_cpus)
    files: dict[str, list[Shard]] = {}
    for s in shards:
        files.setdefault(s.path, []).append(s)
    by_path: dict[str, tuple[int, list[Shard]]] = {}
    paths = []
    for no, (path, group) in enumerate(files.items()):
        full = _local_path(path)
        by_path[full] = (no, group)
        paths.append(full)
    if not paths:
        return
    _ordered_quiet_context()
    ds = _read_binary(paths)
    ds = ds.map_batches(
        _ReplayBatch(task, by_path), batch_format="pyarrow", batch_size=1, zero_copy_batch=True
    )
    yield from _in_order(ds, shards)


def _run_one(
    task: ShardTask, shard: Shard, matches: Mapping[str, MatchState] | None = None
) -> Outcome:
    """The Ray task of :func:`ray_range_results` (and of a shard's replay again with
    ``matches``, :func:`ray_rerun`): one shard, its byte range read by the task; a bug
    becomes a :class:`~maumau_log.run.shard.ShardFailure` (never a lost shard).

    :class:`~maumau_log.run.runners.ShardTask` catches its own errors; this guard is for a
    task whose ``__call__`` raises before that (a subclass: tests/test_ray.py's failing
    shard), so its failure reads as the task's error, not as Ray's wrapper of it."""
    try:
        return task(shard, matches)
    except Exception as exc:  # never lose a shard
        return ShardFailure(shard, f"{type(exc).__name__}: {exc}")


def ray_rerun(task: ShardTask) -> Rerun:
    """The merge's replay of a shard with match states from earlier shards
    (:func:`~maumau_log.run.runners.merge_order`), as one Ray task, so that the driver
    reads no log and builds no row for it either (it waits for that one task: rare, the
    planner cuts before a match's first round where it can).

    Returns:
        ``rerun(shard, matches)``: the task's outcome; a Ray error (the node lost after
        Ray's retries) is the shard's :class:`~maumau_log.run.shard.ShardFailure`.
    """
    import ray

    remote: Any = ray.remote(num_cpus=1)(_run_one)  # (Ray's types miss the default)
    refs: list[Any] = []

    def rerun(shard: Shard, matches: Mapping[str, MatchState]) -> Outcome:
        if not refs:
            refs.append(ray.put(task))
        try:
            res: Outcome = ray.get(remote.remote(refs[0], shard, dict(matches)))
        except Exception as exc:  # Ray gave up on this task
            res = ShardFailure(shard, f"Ray: {_one_line(exc)}")
        return res

    return rerun


def ray_scans() -> StartScan:
    """The planner's cut scan of a large plain file as a Ray task
    (:meth:`~maumau_log.run.plan.ShardPlan.scan_with`): the driver reads no log (the scan
    was about 0.28 CPU s per 160 MB on the driver). Every scan is submitted at once, ahead
    of the replay tasks, and its cuts are waited for when the file's first shard is wanted;
    the cuts are :func:`~maumau_log.run.plan.scan_cuts`'s, the local planner's, so the
    shards are too (a scan Ray gives up on is done on the driver).

    Returns:
        ``start(path, target, limit)`` giving ``wait()`` (:data:`~maumau_log.run.plan.StartScan`).
    """
    import ray

    remote: Any = ray.remote(num_cpus=1)(scan_cuts)

    def start(path: str, target: int, limit: int) -> Any:
        ref = remote.remote(path, target, limit)

        def wait() -> Cuts:
            cuts: Cuts = ray.get(ref)
            return cuts

        return wait

    return start


def ray_range_results(
    shards: Sequence[Shard],
    task: ShardTask,
    address: str | None = None,
    num_cpus: int | None = None,
) -> Iterator[Outcome]:
    """Run shards of local files on Ray, one Ray task per shard reading its own byte range
    (so a big file is spread over several tasks, as the local pool spreads it); yield in
    shard order (not yet merged).

    Plain Ray tasks (``ray.remote``), not Ray Data: Ray Data's executor starts two actors
    of its own (``_StatsActor``, ``_AutoscalingCoordinatorActor``: each a Python process
    importing Ray Data) before the first task runs, measured at 4-6 s of wall and 6.5 s of
    CPU more than plain tasks to the first result on the 2-core machine
    (docs/explanations/scale-and-ray.md).
    At most ``4 *`` the cluster's CPUs shards are submitted and not yet yielded (memory
    bounded, as the local pool's window); each result comes back through Ray's object
    store (with an ingest's task, no table: the task staged them). Only for local paths
    (every node must see them, as for :func:`ray_results`); URIs go through
    :func:`ray_results`.

    Args:
        shards: the planned shards (:func:`~maumau_log.run.plan.plan_shards`).
        task, address, num_cpus: as for :func:`ray_results`.
    Yields:
        One outcome per shard, in shard order; a task Ray gave up on (its worker died
        after Ray's retries, a node lost) is a :class:`~maumau_log.run.shard.ShardFailure`
        with Ray's error.
    """
    import ray

    _init(address, num_cpus)
    remote = ray.remote(num_cpus=1)(_run_one)
    window = 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    feed = iter(shards)  # a lazy plan plans its later files as the window has room
    held: deque[tuple[Shard, Any]] = deque()  # submitted and not yet yielded, in order
    task_ref = None
    try:
        while True:
            while len(held) < window and (shard := next(feed, None)) is not None:
                if task_ref is None:
                    task_ref = ray.put(task)
                held.append((shard, remote.remote(task_ref, shard)))
            if not held:
                return
            shard, ref = held.popleft()
            try:
                res = ray.get(ref)
            except Exception as exc:  # Ray gave up on this task
                res = ShardFailure(shard, f"Ray: {_one_line(exc)}")
            del ref
            yield res
    finally:
        refs = [ref for _, ref in held]
        for ref in refs:  # stopped early (Ctrl-C, an error): cancel the rest
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if refs:  # and wait until they stopped (a cancel is asynchronous): a task still
            # writing would recreate the staging folder the writer removes next
            with contextlib.suppress(Exception):
                ray.wait(refs, num_returns=len(refs), timeout=CANCEL_WAIT)


def _in_order(ds: Any, shards: Sequence[Shard]) -> Iterator[Outcome]:
    """The outcomes of ``ds``'s rows in shard order; every shard not received is reported
    failed (Ray gave up, or returned nothing for it), never dropped."""
    pending: dict[int, ShardResult | ShardFailure] = {}
    nxt = 0
    try:
        for batch in ds.iter_batches(batch_format="pyarrow", batch_size=None):
            _collect(batch, pending)
            while nxt < len(shards) and shards[nxt].index in pending:
                yield pending.pop(shards[nxt].index)
                nxt += 1
    except Exception as exc:  # Ray gave up: report every shard not received
        for s in shards[nxt:]:
            if s.index in pending:
                yield pending.pop(s.index)
            else:
                yield ShardFailure(s, f"Ray: {_one_line(exc)}")
        return
    for s in shards[nxt:]:
        yield (
            pending.pop(s.index)
            if s.index in pending
            else ShardFailure(s, "Ray returned no result for this shard")
        )


def _one_line(exc: BaseException) -> str:
    """Ray's error without colours and stack: its type and last line."""
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:500]


def _read_binary(paths: list[str]) -> Any:
    """``ray.data.read_binary_files`` with the bytes as stored: Ray would decompress
    ``.gz``/``.zst`` by the name and fail the whole read at a truncated stream, where the
    shard function keeps the games before the damage and reports it (FORMAT.md Files)."""
    import ray

    try:
        from ray.data._internal.datasource.binary_datasource import BinaryDatasource
        from ray.data.datasource.file_meta_provider import DefaultFileMetadataProvider
    except ImportError:  # another Ray layout: names say nothing of compression then
        return ray.data.read_binary_files(paths, include_paths=True, override_num_blocks=len(paths))

    class _AsStored(BinaryDatasource):
        def resolve_compression(self, path: str, open_args: dict[str, Any]) -> None:
            return None

    source = _AsStored(paths, include_paths=True, meta_provider=DefaultFileMetadataProvider())
    return ray.data.read_datasource(source, override_num_blocks=len(paths))


def _collect(batch: pa.Table, pending: dict[int, ShardResult | ShardFailure]) -> None:
    """The outcomes of one batch of :data:`_OUT_SCHEMA` rows, by shard."""
    for idx, meta in zip(
        batch.column("shard").to_pylist(), batch.column("meta").to_pylist(), strict=True
    ):
        pending[idx] = pickle.loads(meta)


class _Keeper:
    """The known-games keeper, a Ray actor on the driver's node: it owns the ingest's
    known games (loaded from the dataset, on disk: its memory flat in the games) and
    applies the first-copy rule (:class:`~maumau_log.run.merge.FirstCopy`) to every
    shard's outcomes, read from the staging folder where the tasks wrote them
    (:attr:`~maumau_log.run.runners.ShardTask.stage_outcomes`), so that no game's outcome
    reaches the driver; it replies with each part's small :class:`~maumau_log.run.merge.
    PartMerge`. The driver calls it once per shard, in shard order, waiting for each reply,
    so the first copy of an id wins across shards as in one process."""

    def __init__(self) -> None:
        self.merges: LocalMerges | None = None

    def load(self, dataset: str, keep_game_ids: bool) -> str | None:
        """Load the dataset's known games; None, or the message of the
        :class:`~maumau_log.store.DatasetError` that stopped it."""
        from ..store import DatasetError

        try:
            self.merges = LocalMerges(dataset, keep_game_ids)
        except DatasetError as exc:
            return str(exc)
        return None

    def merge(self, stage: str, chunks: list[str], games: list[GameOutcome]) -> list[PartMerge]:
        """The merged parts of one shard: each staged chunk's outcomes (read and deleted),
        or ``games`` when the shard staged none."""
        assert self.merges is not None
        rule = self.merges.rule
        if not chunks:
            return [rule.merge(games)]
        return [rule.merge(read_outcomes(stage, rel)) for rel in chunks]


class KeeperMerges:
    """The ingest's merges (:class:`~maumau_log.run.merge.Merges`) in the known-games keeper
    (:class:`_Keeper`), an actor pinned to the driver's node (``soft=False``: a worker
    node lost never takes it, and it sees the staging folder the driver sees) that asks
    for no CPU (the tasks keep every core).

    Args:
        dataset: the dataset folder (the keeper loads its games; a relative path is this
            process's, made absolute: the actor runs in another folder).
        keep_game_ids: the parts list every game's id (:attr:`~maumau_log.run.merge.
            PartMerge.game_ids`).
    Raises:
        DatasetError: the dataset's games cannot be loaded.
    """

    def __init__(self, dataset: str, keep_game_ids: bool = False) -> None:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from ..store import DatasetError

        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        keeper: Any = ray.remote(num_cpus=0, max_restarts=0)(_Keeper)
        self.actor = keeper.options(scheduling_strategy=here).remote()
        try:
            why = self._get(self.actor.load.remote(os.path.abspath(dataset), keep_game_ids))
        except BaseException:
            self.close()
            raise
        if why is not None:
            self.close()
            raise DatasetError(why)

    def _get(self, ref: Any) -> Any:
        """The keeper's reply; its death is the ingest's error (nothing is stored)."""
        import ray

        from ..store import DatasetError

        try:
            return ray.get(ref)
        except ray.exceptions.RayError as exc:
            raise DatasetError(
                f"the known-games keeper (a Ray actor on this node) failed, nothing was "
                f"stored: {_one_line(exc)}"
            ) from exc

    def parts(self, res: ShardResult, stage: str | os.PathLike[str]) -> Iterator[Part]:
        """The merged parts of ``res``, merged in the keeper (its outcomes never read
        here: the tasks staged them)."""
        if not res.chunks and not res.games:  # nothing read: nothing to merge
            yield PartMerge(), res.tables, res.staged
            return
        rels = [c.outcomes for c in res.chunks]
        merged: list[PartMerge] = self._get(
            self.actor.merge.remote(os.path.abspath(stage), rels, [] if rels else res.games)
        )
        if not rels:
            yield merged[0], res.tables, res.staged
            return
        for part, chunk in zip(merged, res.chunks, strict=True):
            yield part, {}, chunk.staged

    def close(self) -> None:
        """End the keeper (its known games are a temporary database: gone with it)."""
        import ray

        with contextlib.suppress(Exception):
            ray.kill(self.actor)


def ray_runner(address: str | None = None, num_cpus: int | None = None) -> Runner:
    """The ``--engine ray`` runner: :func:`ray_range_results` (local paths) or
    :func:`ray_results` (URIs) merged in order.

    The runner's ``workers`` (:func:`~maumau_log.run.runners.runner_workers`) is a local Ray's
    CPUs, so the caller plans balanced shards; on a cluster (``address`` or
    ``RAY_ADDRESS``) it is 1 (the cluster's size is not known before it is joined). Its
    ``stages`` (:func:`~maumau_log.run.runners.runner_stages`) is every table
    (:data:`~maumau_log.store.TABLES`): the tasks write them into the ingest's staging
    folder, on a local Ray and on a cluster alike (whose nodes must see the dataset folder
    at the same path), and no table row travels to the driver.

    Raises:
        ImportError: Ray is not installed (``pip install 'maumau-log[ray]'``).
    """
    import ray  # noqa: F401  (fail now, not in the middle of an ingest)

    def run(shards: Sequence[Shard], task: ShardTask) -> Iterator[Outcome]:
        # a plan's files, not its shards: those would plan every file here first
        paths = shards.paths if isinstance(shards, ShardPlan) else [s.path for s in shards]
        if not any(is_uri(p) for p in paths):
            if isinstance(shards, ShardPlan):  # the files' cut scans as Ray tasks
                _init(address, num_cpus)
                shards.scan_with(ray_scans(), task.max_line_bytes)
            results = ray_range_results(shards, task, address, num_cpus)
            return merge_order(results, task, shards, ray_rerun(task))
        # URIs: one shard per file, a task reading a whole file's bytes (give Ray many
        # files for a wide cluster)
        paths = list(dict.fromkeys(paths))
        whole = [Shard(i, p) for i, p in enumerate(paths)]
        return merge_order(ray_results(whole, task, address, num_cpus), task, whole)

    def keeper(dataset: str, keep_game_ids: bool = False) -> KeeperMerges:
        _init(address, num_cpus)
        return KeeperMerges(dataset, keep_game_ids)

    local = address is None and not os.environ.get("RAY_ADDRESS")
    run.workers = (num_cpus or default_jobs()) if local else 1  # type: ignore[attr-defined]
    # the tasks write every table into the staging folder (on a cluster, each node must
    # see the dataset folder): no row travels to the driver
    run.stages = TABLES  # type: ignore[attr-defined]
    # the first-copy rule in the known-games keeper (:class:`KeeperMerges`): the driver
    # holds no game's outcome (the ingest uses it unless it reports every outcome)
    run.keeper = keeper  # type: ignore[attr-defined]
    return run
