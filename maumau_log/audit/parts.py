"""The audit as map-reduce: the dataset's facts split into parts, counted in parallel, merged.

The ingest appends each batch of games to every table of its files as one row group per
table (:meth:`~maumau_log.store.DatasetWriter.write`), so row group j of
``games/<partition>/part-X.parquet`` and row group j of ``audit_games``, ``audit_seats``
and ``audit_events`` under the same name hold the same games. :func:`plan_parts` cuts each
such file set into parts of whole row groups of about :data:`PART_GAMES` games; a file set
whose row groups do not line up (a compacted or rewritten file, a table without a file) is
one part, and a dataset whose facts files do not match its games files by name is split
by partition (``ruleset``, ``date``), which always holds every row of its games.

Each part is counted on its own (:func:`count_part`: the Polars queries of
:mod:`maumau_log.audit.tables` over the part's rows) into a
:class:`~maumau_log.audit.merge.Partial`, by this process, a pool of processes or Ray tasks;
the driver merges the partials in part order as they come back
(:func:`~maumau_log.audit.merge.merge`: exact counts, so the order changes nothing) and
finishes them once. Memory: a worker holds one part (about :data:`PART_GAMES` games' rows),
the driver the merged counts (players, pairs, rulesets; bounded evidence): neither grows
with the games. A part whose facts rows do not belong to its games makes the whole audit
plan again by partition; a game with a header and no facts makes it replay
(:func:`~maumau_log.audit.accumulators.collect`), as before.

The files are checked against their recorded sizes and SHA-256 by the driver before any part
is read (:func:`~maumau_log.store.integrity.check_sums`: the dataset is untrusted).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from ..store import check_files, scan_paths
from ..store.integrity import check_sums
from ..store.layout import DateWindow
from .accumulators import _Data
from .collect import _GAME_COLUMNS
from .merge import Partial, finish, merge
from .tables import partial_from_frames

PART_GAMES = 10_000
"""About how many games one part holds (whole row groups: a part may hold more when one
row group does). A worker's memory is about 1.5 KB per game of its part, and 1 KB more
for the rows it holds (:data:`_HELD`)."""

_READ = ("games", "audit_games", "audit_seats", "audit_events")
"""The tables read part by part (``violations``: a partition's files, joined)."""

_HELD = ("audit_seats", "audit_events")
"""The tables a worker reads once per part and holds in memory (without the partition
columns) while the part's queries run: each is queried a dozen times or more
(:func:`~maumau_log.audit.tables.partial_from_frames`), and a scan per query decoded the
part's rows again each time (profiled: the 312 ``collect`` calls of 4 parts took all of
their 1.3 s). Measured on 10^6 classic 4-player games (120 parts of about 8,200 games),
whole audits at ``jobs`` 1 on a loaded machine: 26.9-31.1 CPU s scanned per query,
20.0-25.2 read once; the rows held are about 1 KB a game. Only a part of at most
:data:`HOLD_GAMES` games is held: a larger one (one row group of more games, a whole
partition) could hold any number, so its queries scan it on the streaming engine."""

HOLD_GAMES = 2 * PART_GAMES
"""The most games of a part whose :data:`_HELD` rows are held in memory (about 20 MB)."""


class WorkerDied(Exception):
    """A worker process counting the audit's parts died (killed, e.g. by the out-of-memory
    killer): the audit cannot be finished from the other parts (its tests need every
    game), so it stops; the CLI exits 4, as for a failed shard."""


@dataclass(frozen=True)
class Piece:
    """Rows ``start`` to ``start + rows`` of one file (``rows`` -1: all of it); ``at``: the
    ``games`` table row of its first row (``games`` pieces only)."""

    rel: str
    start: int = 0
    rows: int = -1
    at: int = 0


@dataclass(frozen=True)
class Part:
    """One part of a dataset: its pieces per table."""

    pieces: tuple[tuple[str, tuple[Piece, ...]], ...]

    def of(self, table: str) -> tuple[Piece, ...]:
        """The part's pieces of ``table``."""
        return dict(self.pieces).get(table, ())


def _split(rel: str) -> tuple[str, str]:
    """``games/ruleset=R/date=D/part-X.parquet`` to (``ruleset=R/date=D``, ``part-X.parquet``)."""
    folder, name = rel.rsplit("/", 1)
    return folder.split("/", 1)[1], name


def plan_parts(
    root: Path,
    files: dict[str, list[str]],
    part_games: int = PART_GAMES,
    by_partition: bool = False,
) -> list[Part]:
    """Cut a dataset into parts (see the module's text).

    Args:
        root: the dataset folder.
        files: the manifest's files per table (checked).
        part_games: about how many games a part holds.
        by_partition: one part per partition (``ruleset``, ``date``).
    Returns:
        The parts, in ``games`` file order.
    """
    games = files.get("games", [])
    sizes = [pq.read_metadata(root / rel) for rel in games]
    offsets, at = [], 0
    for md in sizes:
        offsets.append(at)
        at += md.num_rows
    stems = {_split(rel) for rel in games}
    named = {t: {_split(r): r for r in files.get(t, [])} for t in _READ[1:]}
    if not by_partition and any(set(n) - stems for n in named.values()):
        by_partition = True  # a facts file with no games file of its name
    viol: dict[str, list[str]] = {}
    for rel in files.get("violations", []):
        viol.setdefault(_split(rel)[0], []).append(rel)
    if by_partition:
        parts: dict[str, dict[str, list[Piece]]] = {}
        for rel, off in zip(games, offsets, strict=True):
            folder = _split(rel)[0]
            parts.setdefault(folder, {t: [] for t in (*_READ, "violations")})["games"].append(
                Piece(rel, at=off)
            )
        for t in _READ[1:]:
            for rel in files.get(t, []):
                folder = _split(rel)[0]
                if folder in parts:
                    parts[folder][t].append(Piece(rel))
        for folder, by_table in parts.items():
            by_table["violations"] = [Piece(r) for r in viol.get(folder, [])]
        return [_part(p) for p in parts.values()]
    out: list[Part] = []
    for rel, md, off in zip(games, sizes, offsets, strict=True):
        stem = _split(rel)
        others = {t: named[t].get(stem) for t in _READ[1:]}
        metas = {t: pq.read_metadata(root / r) for t, r in others.items() if r is not None}
        groups = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
        violations = [Piece(r) for r in viol.get(stem[0], [])]
        if any(m.num_row_groups != md.num_row_groups for m in metas.values()):
            whole = {t: [Piece(r)] for t, r in others.items() if r is not None}
            out.append(_part({"games": [Piece(rel, at=off)], **whole, "violations": violations}))
            continue
        starts = {t: [0] for t in metas}
        for t, m in metas.items():
            for i in range(m.num_row_groups):
                starts[t].append(starts[t][-1] + m.row_group(i).num_rows)
        g0 = 0
        row = 0
        while g0 < len(groups):
            g1, n = g0, 0
            while g1 < len(groups) and (n == 0 or n + groups[g1] <= part_games):
                n += groups[g1]
                g1 += 1
            p: dict[str, list[Piece]] = {"games": [Piece(rel, row, n, off + row)]}
            for t, s in starts.items():
                p[t] = [Piece(others[t] or "", s[g0], s[g1] - s[g0])]
            p["violations"] = violations
            out.append(_part(p))
            row += n
            g0 = g1
    return out


def _part(pieces: dict[str, list[Piece]]) -> Part:
    return Part(tuple((t, tuple(ps)) for t, ps in pieces.items()))


def _frame(root: Path, table: str, pieces: Sequence[Piece]) -> pl.LazyFrame:
    frames = []
    for pc in pieces:
        lf = scan_paths(table, [root / pc.rel])
        if pc.rows >= 0:
            lf = lf.slice(pc.start, pc.rows)
        frames.append(lf)
    if not frames:
        return scan_paths(table, [])
    return pl.concat(frames, how="vertical") if len(frames) > 1 else frames[0]


def holds(part: Part) -> bool:
    """Whether :func:`count_part` holds the part's :data:`_HELD` rows in memory: its
    ``games`` pieces are row ranges (not whole files, which may hold any number of games)
    of at most :data:`HOLD_GAMES` games in all."""
    rows = [pc.rows for pc in part.of("games")]
    return all(n >= 0 for n in rows) and sum(rows) <= HOLD_GAMES


def count_part(root: str | os.PathLike[str], part: Part) -> Partial:
    """The audit's counts over one part (the map step; files checked by the caller). The
    part's seats and events facts are read once and held while its queries run when it
    :func:`holds` them, else each query scans them.

    Args:
        root: the dataset folder (a path this process sees).
        part: the part (:func:`plan_parts`).
    Returns:
        Its :class:`~maumau_log.audit.merge.Partial`.
    """
    base = Path(root)
    tables = {t: _frame(base, t, part.of(t)) for t in (*_READ, "violations")}
    if holds(part):
        for t in _HELD:
            tables[t] = tables[t].drop("ruleset", "date").collect().lazy()
    cols = [c for c in _GAME_COLUMNS if c != "options"]
    frames = []
    for pc in part.of("games"):
        lf = _frame(base, "games", [pc]).select(cols).with_row_index("i")
        frames.append(lf.with_columns((pl.col("i").cast(pl.Int64) + pc.at).alias("at")).drop("i"))
    games = pl.concat(frames).collect() if frames else None
    if games is None:
        return Partial()
    games = games.select("at", *cols)
    return partial_from_frames(tables, games)


def _threads(workers: int) -> tuple[str, str]:
    """The Polars thread pool of each of ``workers`` processes: the cores shared among
    them (set in the worker before Polars starts its pool; a ``POLARS_MAX_THREADS`` the
    user set is kept): two workers of two threads each are four threads on two cores.
    Measured on 2 cores (loaded), 10^6 games, two workers counting 120 parts: 22.5-25.5
    CPU s with one thread each, 24.8-29.3 with two."""
    from ..run.runners import default_jobs

    mine = os.environ.get("POLARS_MAX_THREADS")
    return ("POLARS_MAX_THREADS", mine or str(max(1, default_jobs() // workers)))


def _run(root: Path, parts: list[Part], jobs: int, engine: str, address: str | None
         ) -> Iterator[Partial]:  # fmt: skip
    """Each part's counts, in part order."""
    if engine == "ray":
        import ray

        from ..run.ray_runner import _init

        _init(address, jobs)
        remote = ray.remote(num_cpus=1)(count_part)
        window = 4 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        refs: list[Any] = []
        nxt = 0
        for want in range(len(parts)):
            while nxt < len(parts) and nxt < want + window:
                refs.append(remote.remote(str(root), parts[nxt]))
                nxt += 1
            yield ray.get(refs[want])
            refs[want] = None
        return
    if jobs <= 1 or len(parts) <= 1:
        for p in parts:
            yield count_part(root, p)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # started fresh ("spawn"), not forked: a fork of a process whose Polars thread pool
    # holds a lock can hang in the child (measured: both workers asleep, no CPU)
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    workers = min(jobs, len(parts))
    done = 0
    try:
        with ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=os.putenv, initargs=_threads(workers)
        ) as pool:
            for partial in pool.map(count_part, [root] * len(parts), parts):
                yield partial
                done += 1
    except BrokenProcessPool:
        # the parts in flight when it died: the next ``workers`` after those counted
        last = min(done + workers, len(parts))
        which = f"part {done + 1}" if last == done + 1 else f"parts {done + 1}-{last}"
        raise WorkerDied(
            f"{root}: a worker process died (killed, or out of memory) counting {which} of "
            f"{len(parts)}; nothing is reported: run the audit again, with fewer --jobs if "
            "memory is short"
        ) from None


def collect_parts(
    dataset: str | os.PathLike[str],
    jobs: int | None = None,
    engine: str = "local",
    address: str | None = None,
    part_games: int | None = None,
    window: DateWindow | None = None,
) -> _Data | None:
    """The audit's input from the facts tables, part by part (see the module's text).

    Args:
        dataset: the dataset folder.
        jobs: worker processes (default: the cores; 1: this process).
        engine: ``local`` or ``ray``.
        address: the Ray cluster (``ray`` only).
        part_games: about how many games a part holds (default :data:`PART_GAMES`).
        window: only the partitions dated inside it (None: every game).
    Returns:
        The merged, finished counts; None when a game with a header has no facts
        (the audit then replays the stored events).
    Raises:
        DatasetError: see :func:`~maumau_log.store.check_files`; a file whose SHA-256
            differs.
        ValueError: an unknown engine.
    """
    if engine not in ("local", "ray"):
        raise ValueError(f"unknown engine {engine!r}: local or ray")
    if jobs is None:
        from ..run.runners import default_jobs

        jobs = default_jobs()
    root = Path(dataset)
    part_games = part_games or PART_GAMES
    manifest = check_files(root)
    files = (window or DateWindow()).files(manifest.files)
    for t in (*_READ, "violations"):
        check_sums(root, manifest.file_info, files.get(t, []))
    total: Partial | None = None
    for by_partition in (False, True):
        parts = plan_parts(root, files, part_games, by_partition)
        total = Partial()
        for p in _run(root, parts, jobs, engine, address):
            merge(total, p)
        if total.aligned:
            break
    assert total is not None
    if not total.complete:
        return None
    return _Data(None, finish(total.acc), total.replayed, total.invalid, total.games, total.valid)


__all__ = [
    "HOLD_GAMES",
    "PART_GAMES",
    "Part",
    "Piece",
    "collect_parts",
    "count_part",
    "holds",
    "plan_parts",
]
