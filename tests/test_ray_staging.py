"""Workers write, the driver commits: on a Ray cluster (a head with no CPU and two worker
nodes on this machine, ``ray.cluster_utils``) every table of every shard is written by
the Ray tasks into the ingest's staging folder, and the driver receives no table row: only
the games' outcomes and the staged files' names, rows, sizes and SHA-256, which it
publishes in one manifest commit. The dataset equals ``--jobs 1``'s row by row; a driver
killed at its manifest's rename leaves the dataset as it was; a node that does not see
the dataset folder stops the ingest with exit 2's message, nothing stored
(docs/explanations/scale-and-ray.md).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from test_scale import assert_same_rows, make_inputs  # noqa: E402

import maumau_log.run.ray_runner as ray_mod  # noqa: E402
import maumau_log.run.runners as runners_mod  # noqa: E402
from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.logs.lines import expand_paths  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.run.ray_runner import ray_runner  # noqa: E402
from maumau_log.run.shard import ShardResult  # noqa: E402
from maumau_log.store import TABLES, DatasetError, file_sha256, read_manifest  # noqa: E402
from maumau_log.store.verify import verify  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """test_scale's inputs (every preset, classic matches whose rounds fall into several
    shards, broken lines, a truncated file, duplicates, a conflict) without the binary
    file, and 300 simulated games."""
    root = make_inputs(tmp_path_factory.mktemp("staging"))
    (root / "f_binary.jsonl").unlink()  # an unreadable file stops an ingest (exit 2)
    with open(root / "sim.jsonl", "wb") as fh:
        write_games(simulate("classic", 4, 300, seed=11, id_prefix="sim"), fh)
    return expand_paths([root])


@pytest.fixture(scope="module")
def reference(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("ref") / "ds"
    ingest(logs, ds, jobs=1)
    return ds


def test_the_driver_receives_no_table_rows_and_stores_the_rows_of_jobs_one(
    cluster: Any,
    logs: list[Path],
    reference: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    received: list[Any] = []  # every outcome Ray hands the driver, replays again included
    ran_here: list[Any] = []  # shards the driver replayed itself

    def recorded(results: Iterator[Any]) -> Iterator[Any]:
        for res in results:
            received.append(res)
            yield res

    def results(*args: Any, **kw: Any) -> Iterator[Any]:
        return recorded(real_results(*args, **kw))

    def rerun(task: Any) -> Any:
        inner = real_rerun(task)

        def again(shard: Any, matches: Any) -> Any:
            res = inner(shard, matches)
            received.append(res)
            return res

        return again

    real_results, real_rerun = ray_mod.ray_range_results, ray_mod.ray_rerun
    monkeypatch.setattr(ray_mod, "ray_range_results", results)
    monkeypatch.setattr(ray_mod, "ray_rerun", rerun)
    real_shard = runners_mod.run_shard  # the driver's copy only: Ray's workers import theirs
    monkeypatch.setattr(
        runners_mod, "run_shard", lambda *a, **kw: ran_here.append(a[0]) or real_shard(*a, **kw)
    )
    on_ray = ingest(logs, tmp_path / "ds", runner=ray_runner(address=cluster.address),
                    shard_bytes=8192)  # fmt: skip
    assert on_ray.failed == [] and ran_here == []
    shards = [r for r in received if isinstance(r, ShardResult)]
    assert len(shards) == len(received) > 20
    assert any(r.seeded for r in shards)  # a match continued: replayed again on a node
    assert all(r.tables == {} for r in shards)  # no table row came back
    # nor any game's outcome: each shard's are staged for the known-games keeper
    assert all(r.games == [] and len(r.chunks) == 1 for r in shards)
    files = [r.chunks[0].staged for r in shards]
    staged = {key[0] for f in files for key in f}
    assert staged == set(TABLES)  # every table, the audit's facts and violations too
    # what the workers reported is what the manifest records, file by file (a shard
    # replayed again replaced its files: its last report counts), but for the results
    # files whose match totals the driver rewrote (update_matches: the serbian match,
    # whose last round comes again cut short, a conflict)
    last = {rel: (size, sha) for f in files for rel, _rows, size, sha in f.values()}
    manifest = read_manifest(tmp_path / "ds")
    adopted = [rel for rel in last if rel in manifest.file_info]
    assert len(adopted) > 20
    kept = [rel for rel in adopted if manifest.file_info[rel]["sha256"] == last[rel][1]]
    assert all(rel.startswith("results/ruleset=serbian/") for rel in set(adopted) - set(kept))
    assert len(kept) >= len(adopted) - 2
    for rel in kept:
        assert manifest.file_info[rel]["bytes"] == last[rel][0]
        assert file_sha256(tmp_path / "ds" / rel) == last[rel][1]
    assert ray_mod._OUT_SCHEMA.names == ["file", "shard", "meta"]  # the URI path: no tables
    assert_same_rows(reference, tmp_path / "ds")
    assert verify(tmp_path / "ds").ok


def test_a_node_that_does_not_see_the_dataset_stops_the_ingest_with_nothing_stored(
    cluster: Any, logs: list[Path], tmp_path: Path
) -> None:
    base = ray_runner(address=cluster.address)
    elsewhere = str(tmp_path / "not-shared" / ".tmp-0123456789abcdef")

    def runner(shards: Any, task: Any) -> Any:  # as if the nodes had another filesystem
        return base(shards, dataclasses.replace(task, stage=elsewhere))

    runner.stages = base.stages  # type: ignore[attr-defined]
    with pytest.raises(DatasetError) as info:
        ingest(logs[:2], tmp_path / "ds", runner=runner)
    assert str(info.value).endswith(
        ".tmp-0123456789abcdef: cannot write: this worker does not see the ingest's staging "
        "folder in the dataset folder: every Ray node must see the dataset folder at the "
        f"same path (a shared filesystem); nothing was stored, the dataset {tmp_path / 'ds'} "
        "is as it was"
    )
    assert not (tmp_path / "ds").exists()  # a new dataset: removed again
    assert not (tmp_path / "not-shared").exists()  # the workers wrote nothing


KILLER = r"""
import os, signal, sys
address, dataset, *logs = sys.argv[1:]
from maumau_log.run.ingest import ingest
from maumau_log.run.ray_runner import ray_runner
from maumau_log.store import MANIFEST

real_replace = os.replace

def replace(src, dst, *args, **kw):
    if os.path.basename(os.fspath(dst)) == MANIFEST:
        os.kill(os.getpid(), signal.SIGKILL)  # every file moved into place, not published
    return real_replace(src, dst, *args, **kw)

os.replace = replace
ingest(logs, dataset, runner=ray_runner(address=address), shard_bytes=100_000)
print("not killed")
"""


def test_a_driver_killed_at_its_manifest_rename_leaves_the_dataset_as_it_was(
    cluster: Any, logs: list[Path], reference: Path, tmp_path: Path
) -> None:
    ds = tmp_path / "ds"
    first = ingest(logs[:3], ds, jobs=1)
    before = read_manifest(ds).files
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, cluster.address, str(ds), *map(str, logs)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr[-3000:]
    assert read_manifest(ds).files == before
    report = verify(ds)
    assert report.ok and report.rows["games"] == first.added
    assert len(report.staging) == 1 and report.unlisted  # the killed commit's files
    again = ingest(logs, ds, runner=ray_runner(address=cluster.address), shard_bytes=100_000)
    assert again.failed == []
    assert again.added == ingest(logs, tmp_path / "all", jobs=1).added - first.added
    report = verify(ds)
    assert report.ok and report.staging == [] and report.unlisted == []
    assert_same_rows(reference, ds)
