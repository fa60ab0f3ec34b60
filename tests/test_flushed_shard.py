"""A shard that cannot be cut (a compressed log is one shard) writes the rows it holds into
the ingest's staging folder every ``FLUSH_EVENTS`` events, as a chunk: a worker's memory is
bounded by that, not by the file. The dataset stored equals the plain log's ingest row by
row (on ``--jobs 1``, the local pool and Ray), with the game_id + content-hash rule applied
across chunks as across shards (a duplicate in a later chunk is dropped, a conflict
listed), a match whose rounds straddle a chunk boundary totalled as one, and an ingest
killed between chunks leaving the dataset as it was; a re-run adds exactly the missing
games.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import zstandard
from test_scale import assert_same_rows, dataset_rows

import maumau_log.run.runners as runners
from maumau_log.bots.sim import simulate, simulate_matches, write_games
from maumau_log.run.ingest import IngestSummary, ingest
from maumau_log.run.shard import Chunk, GameOutcome, ShardFailure, ShardResult
from maumau_log.store import read_manifest
from maumau_log.store.verify import verify

ROOT = Path(__file__).resolve().parent.parent
FLUSH = 400  # events: a chunk holds about six classic games


def _games(lines: list[bytes]) -> list[list[bytes]]:
    """The lines cut at every game header."""
    starts = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"game"')]
    return [lines[a:b] for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``main``: 30 classic games, two 3-player classic matches (their rounds straddle
    chunk boundaries), 30 more games, then the first game again (a duplicate, chunks after
    its first copy) and another game under the id of the second (a conflict); written
    plain, as ``.zst`` and as ``.gz``. ``other``: 40 standard games (a second shard, so
    ``--jobs 2`` runs a pool). ``first``: the first 10 games of ``main`` (stored before)."""
    root = tmp_path_factory.mktemp("flushed")
    buf = io.BytesIO()
    write_games(simulate("classic", 4, 30, seed=3, id_prefix="a"), buf)
    write_games(simulate_matches("classic", 3, 2, seed=7), buf)
    write_games(simulate("classic", 4, 30, seed=4, id_prefix="b"), buf)
    games = _games(buf.getvalue().splitlines(keepends=True))
    other_buf = io.BytesIO()
    write_games(simulate("classic", 4, 2, seed=99, id_prefix="a"), other_buf)
    conflict = _games(other_buf.getvalue().splitlines(keepends=True))[1]
    conflict[0] = conflict[0].replace(b'"a-99-000001"', b'"a-3-000001"')  # the 2nd's id
    data = b"".join(b"".join(g) for g in [*games, games[0], conflict])
    out = {"plain": root / "main.jsonl", "zst": root / "main.jsonl.zst"}
    out["plain"].write_bytes(data)
    out["zst"].write_bytes(zstandard.ZstdCompressor().compress(data))
    out["gz"] = root / "main.jsonl.gz"
    out["gz"].write_bytes(gzip.compress(data))
    out["other"] = root / "other.jsonl"
    with open(out["other"], "wb") as fh:
        write_games(simulate("standard", 4, 40, seed=5, id_prefix="o"), fh)
    out["first"] = root / "first.jsonl"
    out["first"].write_bytes(b"".join(b"".join(g) for g in games[:10]))
    return out


@pytest.fixture(scope="module")
def reference(logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plain log and ``other``, one process, nothing flushed (one shard a file)."""
    ds = tmp_path_factory.mktemp("ref") / "ds"
    ingest([logs["plain"], logs["other"]], ds, jobs=1, shard_bytes=10**9)
    return ds


def _rows(dataset: Path) -> dict[str, pl.DataFrame]:
    """The dataset's rows, sorted, without ``source_file`` (the plain and the compressed
    log have other names)."""
    rows = dataset_rows(dataset)
    rows["games"] = rows["games"].drop("source_file")
    return rows


def _same(a: Path, b: Path) -> None:
    ra, rb = _rows(a), _rows(b)
    for name in ra:
        assert ra[name].height == rb[name].height, name
        assert ra[name].equals(rb[name]), name


def _flushed(
    paths: list[Path], dataset: Path, **kw: object
) -> tuple[IngestSummary, list[list[Chunk]], list[GameOutcome]]:
    """Ingest; the chunks of every shard and the outcomes in input order."""
    chunks: list[list[Chunk]] = []
    games: list[GameOutcome] = []

    def on_shard(res: ShardResult | ShardFailure) -> None:
        assert isinstance(res, ShardResult)
        chunks.append(list(res.chunks))

    summary = ingest(paths, dataset, on_shard=on_shard, on_report=games.append, **kw)  # type: ignore[arg-type]
    return summary, chunks, games


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("kind", ["zst", "gz"])
def test_a_compressed_log_flushed_in_chunks_stores_the_plain_logs_rows(
    kind: str,
    jobs: int,
    logs: dict[str, Path],
    reference: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(runners, "FLUSH_EVENTS", FLUSH)
    ref = ingest([logs["plain"], logs["other"]], tmp_path / "ref", jobs=1, shard_bytes=10**9)
    got, chunks, games = _flushed([logs[kind], logs["other"]], tmp_path / "ds", jobs=jobs)
    # the compressed log is one shard, cut into chunks (``other`` too: a plain file is
    # flushed when its shard holds more events)
    assert len(chunks) == 2 and sum(c.games for c in chunks[1]) == 40
    sizes = [c.games for c in chunks[0]]
    assert sum(sizes) == 30 + 6 + 30 + 2 and len(sizes) >= 10
    assert (got.games, got.added, got.duplicates) == (ref.games, ref.added, ref.duplicates)
    assert (got.added, got.duplicates) == (30 + 6 + 30 + 40, 1)
    assert [(c.game_id, c.line, c.stored_line) for c in got.conflicts] == [
        (c.game_id, c.line, c.stored_line) for c in ref.conflicts
    ] and len(got.conflicts) == 1
    _same(reference, tmp_path / "ds")
    # a chunk boundary inside a match; the duplicate and the conflict chunks after their
    # first copies
    bounds = [sum(sizes[:i]) for i in range(1, len(sizes))]
    keys = [g.key for g in games]
    matches = [g.match_id for g in games]
    assert any(matches[b - 1] is not None and matches[b - 1] == matches[b] for b in bounds)
    chunk_of = [i for i, n in enumerate(sizes) for _ in range(n)]
    dup, clash = 66, 67  # the last two games of the log: the first and the second again
    assert (keys[dup], keys[clash]) == (keys[0], keys[1])
    assert chunk_of[0] < chunk_of[dup] and chunk_of[1] < chunk_of[clash]
    # the running totals of the match rounds after a boundary are filled (one replay)
    results = _rows(tmp_path / "ds")["results"]
    rounds = results.filter(pl.col("match_id").is_not_null())
    assert rounds.height == 6 * 3 and rounds["total_after"].null_count() == 0


def test_a_flushed_shard_holds_at_most_the_flush_events_and_one_game(
    logs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runners, "FLUSH_EVENTS", FLUSH)
    held: list[tuple[int, int]] = []  # (games, events) handed to each flush
    stage = runners.ChunkStager.__call__

    def spy(self: runners.ChunkStager, games: list[GameOutcome], tables: dict) -> Chunk:  # type: ignore[type-arg]
        held.append((len(games), sum(g.events for g in games)))
        return stage(self, games, tables)

    monkeypatch.setattr(runners.ChunkStager, "__call__", spy)
    _, chunks, games = _flushed([logs["zst"]], tmp_path / "ds", jobs=1)
    longest = max(g.events for g in games)
    assert [(c.games, c.events) for c in chunks[0]] == held
    assert all(events < FLUSH + longest for _, events in held)
    assert all(events >= FLUSH for _, events in held[:-1])  # flushed when reached, not before
    assert sum(n for n, _ in held) == len(games) == 68
    # every table of a chunk is staged; the small ones go into the ingest's one file each
    files = read_manifest(tmp_path / "ds").files
    assert held[-1][0] == 2  # the duplicate and the conflict: dropped, nothing adopted
    assert len([f for f in files["events"] if "-c0" in f]) == len(held) - 1
    assert len(files["games"]) == len(files["results"]) == 1


def test_a_gameless_tail_after_the_last_flush_leaves_no_empty_chunk(
    logs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flushing after each game: one chunk per game, none empty."""
    monkeypatch.setattr(runners, "FLUSH_EVENTS", 1)
    got, chunks, _ = _flushed([logs["zst"]], tmp_path / "ds", jobs=1)
    assert [c.games for c in chunks[0]] == [1] * 68
    assert got.added == 66


KILLER = r"""
import os, signal, sys
jobs, dataset, *logs = sys.argv[1:]
import maumau_log.run.runners as runners
from maumau_log.run.ingest import ingest

runners.FLUSH_EVENTS = int(os.environ["FLUSH"])
stage = runners.ChunkStager.__call__

def die_after_three(self, games, tables):
    chunk = stage(self, games, tables)
    if self.count == 3:  # three chunks staged, the shard not finished
        if int(jobs) > 1:  # a pool worker: its driver first, then itself
            os.kill(os.getppid(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)
    return chunk

runners.ChunkStager.__call__ = die_after_three
ingest(logs, dataset, jobs=int(jobs))
print("not killed")
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_ingest_killed_between_chunks_leaves_the_dataset_and_a_rerun_adds_the_rest(
    jobs: int, logs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tmp_path / "before"
    ingest([logs["first"]], before, jobs=1)
    ds = tmp_path / "ds"
    shutil.copytree(before, ds)
    inputs = [logs["zst"], logs["other"]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FLUSH": str(FLUSH)}
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(jobs), str(ds), *map(str, inputs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    assert read_manifest(ds).files == read_manifest(before).files
    report = verify(ds)
    assert report.ok, [str(p) for p in report.problems]
    [staging] = report.staging  # the killed run's chunks: (at least) three staged
    assert len(list((ds / staging).rglob("events/**/*-c0*.parquet"))) >= 3
    assert len(list((ds / staging / "outcomes").iterdir())) >= 3
    assert_same_rows(before, ds)
    monkeypatch.setattr(runners, "FLUSH_EVENTS", FLUSH)
    again = ingest(inputs, ds, jobs=jobs)
    assert (again.added, again.duplicates) == (30 + 6 + 30 + 40 - 10, 10 + 1)
    assert not [p for p in ds.iterdir() if p.name.startswith(".tmp-")]
    report = verify(ds)
    assert report.ok and report.unlisted == [] and report.staging == []
    full = tmp_path / "full"
    shutil.copytree(before, full)
    ingest(inputs, full, jobs=1, shard_bytes=10**9)  # nothing flushed
    assert_same_rows(full, ds)


def test_ray_stores_a_flushed_shards_rows(
    cluster: object,
    logs: dict[str, Path],
    reference: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("ray")
    from maumau_log.run.ray_runner import ray_runner

    monkeypatch.setattr(runners, "FLUSH_EVENTS", FLUSH)
    address = cluster.address  # type: ignore[attr-defined]
    got, chunks, _ = _flushed(
        [logs["zst"], logs["other"]], tmp_path / "ds", runner=ray_runner(address=address)
    )
    assert len(chunks[0]) >= 10
    assert (got.added, got.duplicates, len(got.conflicts)) == (30 + 6 + 30 + 40, 1, 1)
    _same(reference, tmp_path / "ds")
    # Ray adopts every staged table: one file per chunk of each (the last chunk of the
    # compressed log holds only the duplicate and the conflict: nothing adopted)
    files = read_manifest(tmp_path / "ds").files
    assert len([f for f in files["games"] if "-s00000-c" in f]) == len(chunks[0]) - 1
