"""The Ray runner (``--engine ray``, the optional extra ``maumau-log[ray]``).

Local paths (every node must see them, e.g. a shared filesystem): one plain Ray task
(``ray.remote``) per planned shard runs the shard function
(:func:`maumau_log.run.shard.run_shard`), the task reading its shard's byte range itself
(:func:`ray_range_results`), so a local Ray gets the balanced shards the local pool gets
(:func:`~maumau_log.run.shard.balanced_target`), no read stage and none of Ray Data's own
actors (their start-up was most of what a local Ray lost to ``--jobs 2``). Pyarrow
filesystem URIs (``s3://bucket/logs/``): Ray Data reads the files as binary files
(``read_binary_files``, :func:`ray_results`), a file being one shard, and ``map_batches``
(``batch_format="pyarrow"``, one batch per shard) returns the rows as Arrow IPC streams,
one output row per (shard, partition), so the tables stay Arrow from the worker to the
writer. Either way this process then merges the shards in input order exactly as the
local runner does (:func:`maumau_log.run.runners.merge_order`) and writes them through the
same :class:`~maumau_log.store.DatasetWriter`, so the dataset is the same hive-partitioned
tables, published the same crash-safe way. (A match whose rounds lie in several shards is
replayed again here with its state, as locally: this process must be able to read those
files too.)

A shard whose function fails comes back as a :class:`~maumau_log.run.shard.ShardFailure` with
its file and the error; when Ray itself gives up (a node lost after its retries), every
shard not yet received is reported failed with Ray's error, never dropped silently.
"""

from __future__ import annotations

import contextlib
import os
import pickle
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa

from ..store import TABLES
from .runners import Outcome, Runner, ShardTask, default_jobs, merge_order
from .shard import Shard, ShardFailure, ShardResult, is_uri

_TABLE_COLUMNS = tuple(f"t_{name}" for name in TABLES)
_OUT_SCHEMA = pa.schema(
    [
        ("file", pa.int64()),
        ("shard", pa.int64()),
        ("ruleset", pa.string()),
        ("date", pa.string()),
        ("meta", pa.large_binary()),
        *[(c, pa.large_binary()) for c in _TABLE_COLUMNS],
    ]
)


def _ipc(table: pa.Table | None) -> bytes | None:
    if table is None or table.num_rows == 0:
        return None
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_ipc(data: bytes | None) -> pa.Table | None:
    if data is None:
        return None
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


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
    """Run the shard function on ``s`` and add its rows: one per (shard, partition), the
    pickled outcome in the first, each table as Arrow IPC (a failure is never lost: as in
    :func:`_run_one`, a task that raises past its own guard is this shard's failure; an
    exception out of ``map_batches`` would fail every shard not yet received)."""
    try:
        res = task(s)
    except Exception as exc:  # never lose a shard
        res = ShardFailure(s, f"{type(exc).__name__}: {exc}")
    parts = res.tables if isinstance(res, ShardResult) else {}
    if isinstance(res, ShardResult):
        res.tables = {}
    keys = list(parts) or [("", "")]
    for k, (ruleset, date) in enumerate(keys):
        rows["file"].append(file_no)
        rows["shard"].append(s.index)
        rows["ruleset"].append(ruleset)
        rows["date"].append(date)
        rows["meta"].append(pickle.dumps(res) if k == 0 else None)
        tables = parts.get((ruleset, date), {})
        for name, col in zip(TABLES, _TABLE_COLUMNS, strict=True):
            rows[col].append(_ipc(tables.get(name)))


def _init(address: str | None, num_cpus: int | None) -> None:
    import logging

    import ray

    for name in ("ray", "ray.data"):  # Ray's progress lines would drown our report
        logging.getLogger(name).setLevel(logging.WARNING)
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is None:
        ray.init(
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


def _run_one(task: ShardTask, shard: Shard) -> Outcome:
    """The Ray task of :func:`ray_range_results`: one shard, its byte range read by the
    task; a bug becomes a :class:`~maumau_log.run.shard.ShardFailure` (never a lost shard).

    :class:`~maumau_log.run.runners.ShardTask` catches its own errors; this guard is for a
    task whose ``__call__`` raises before that (a subclass: tests/test_ray.py's failing
    shard), so its failure reads as the task's error, not as Ray's wrapper of it."""
    try:
        return task(shard)
    except Exception as exc:  # never lose a shard
        return ShardFailure(shard, f"{type(exc).__name__}: {exc}")


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
    bounded, as the local pool's window); each result (its Arrow tables out of band,
    pickle protocol 5) comes back through Ray's object store. Only for local paths (every
    node must see them, as for :func:`ray_results`); URIs go through :func:`ray_results`.

    Args:
        shards: the planned shards (:func:`~maumau_log.run.shard.plan_shards`).
        task, address, num_cpus: as for :func:`ray_results`.
    Yields:
        One outcome per shard, in shard order; a task Ray gave up on (its worker died
        after Ray's retries, a node lost) is a :class:`~maumau_log.run.shard.ShardFailure`
        with Ray's error.
    """
    import ray

    _init(address, num_cpus)
    if not shards:
        return
    remote = ray.remote(num_cpus=1)(_run_one)
    task_ref = ray.put(task)
    window = 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    refs: dict[int, Any] = {}
    nxt = 0
    try:
        for want, shard in enumerate(shards):
            while nxt < len(shards) and nxt < want + window:
                refs[nxt] = remote.remote(task_ref, shards[nxt])
                nxt += 1
            ref = refs.pop(want)
            try:
                res = ray.get(ref)
            except Exception as exc:  # Ray gave up on this task
                res = ShardFailure(shard, f"Ray: {_one_line(exc)}")
            del ref
            yield res
    finally:
        for ref in refs.values():  # stopped early (Ctrl-C, an error): cancel the rest
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)


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
    cols = {n: batch.column(n).to_pylist() for n in ("shard", "ruleset", "date", "meta")}
    tables = {c: batch.column(c).to_pylist() for c in _TABLE_COLUMNS}
    for i, idx in enumerate(cols["shard"]):
        meta = cols["meta"][i]
        if meta is not None:
            pending[idx] = pickle.loads(meta)
        res = pending[idx]
        if not isinstance(res, ShardResult):
            continue
        part = {}
        for name, col in zip(TABLES, _TABLE_COLUMNS, strict=True):
            t = _from_ipc(tables[col][i])
            if t is not None:
                part[name] = t
        if part:
            res.tables[(cols["ruleset"][i], cols["date"][i])] = part


def ray_runner(address: str | None = None, num_cpus: int | None = None) -> Runner:
    """The ``--engine ray`` runner: :func:`ray_range_results` (local paths) or
    :func:`ray_results` (URIs) merged in order.

    The runner's ``workers`` (:func:`~maumau_log.run.runners.runner_workers`) is a local Ray's
    CPUs, so the caller plans balanced shards; on a cluster (``address`` or
    ``RAY_ADDRESS``) it is 1 (the cluster's size is not known before it is joined). Its
    ``stages`` (:func:`~maumau_log.run.runners.runner_stages`) is true for a local Ray: the
    tasks write the ``events`` tables into the ingest's staging folder themselves; on a
    cluster every table travels to the driver (the nodes may not see its folder).

    Raises:
        ImportError: Ray is not installed (``pip install 'maumau-log[ray]'``).
    """
    import ray  # noqa: F401  (fail now, not in the middle of an ingest)

    def run(shards: Sequence[Shard], task: ShardTask) -> Iterator[Outcome]:
        if not any(is_uri(s.path) for s in shards):
            return merge_order(ray_range_results(shards, task, address, num_cpus), task, shards)
        # URIs: one shard per file, a task reading a whole file's bytes (give Ray many
        # files for a wide cluster)
        paths = list(dict.fromkeys(s.path for s in shards))
        whole = [Shard(i, p) for i, p in enumerate(paths)]
        return merge_order(ray_results(whole, task, address, num_cpus), task, whole)

    local = address is None and not os.environ.get("RAY_ADDRESS")
    run.workers = (num_cpus or default_jobs()) if local else 1  # type: ignore[attr-defined]
    # a local Ray's tasks see the staging folder: they write the events tables themselves
    run.stages = local  # type: ignore[attr-defined]
    return run
