"""A Ray cluster of a head and two worker nodes on this machine (``ray.cluster_utils``):
ingest and audit through it give the rows and the report of ``--jobs 1``, also when a
worker node dies in the middle of the ingest (Ray runs its tasks again elsewhere).

The head has no CPU for tasks, so every shard and every audit part runs on a worker node.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

from test_scale import assert_same_rows  # noqa: E402

from maumau_log.audit import audit  # noqa: E402
from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.run.ray_runner import ray_runner  # noqa: E402


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("cluster")
    out = []
    for k, (preset, n) in enumerate((("classic", 4), ("standard", 3), ("crazy-eights", 2))):
        path = root / f"{preset}.jsonl"
        with open(path, "wb") as fh:
            write_games(simulate(preset, n, 400, seed=50 + k), fh)
        out.append(path)
    return out


def _report(dataset: Path, **kw: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(audit(dataset, min_games=50, **kw).to_dict(), default=str))
    out.pop("dataset")
    return out


@pytest.fixture(scope="module")
def reference(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("ref") / "ds"
    ingest(logs, ds, jobs=1)
    return ds


def test_ingest_and_audit_on_three_nodes_equal_jobs_one(
    cluster: Any, logs: list[Path], reference: Path, tmp_path: Path
) -> None:
    on_ray = ingest(logs, tmp_path / "ds", runner=ray_runner(address=cluster.address),
                    shard_bytes=200_000)  # fmt: skip
    assert on_ray.games == on_ray.added == 1200 and on_ray.failed == []
    assert_same_rows(reference, tmp_path / "ds")
    ref = _report(reference, jobs=1)
    assert _report(tmp_path / "ds", engine="ray", address=cluster.address) == ref
    assert ref["games"] == 1200 and ref["replayed"] == 1200


def test_a_worker_node_killed_mid_ingest_loses_nothing(
    cluster: Any, logs: list[Path], reference: Path, tmp_path: Path
) -> None:
    killed: list[Any] = []

    def on_shard(res: Any) -> None:
        if not killed:  # after the first shard: the other tasks are running or queued
            node = cluster.worker_nodes_started[0]
            cluster.remove_node(node, allow_graceful=False)
            killed.append(node)

    on_ray = ingest(logs, tmp_path / "ds", runner=ray_runner(address=cluster.address),
                    shard_bytes=100_000, on_shard=on_shard)  # fmt: skip
    assert killed
    # a shard Ray gave up on is reported, never lost: a re-run adds exactly what is missing
    if on_ray.failed:
        again = ingest(logs, tmp_path / "ds", runner=ray_runner(address=cluster.address))
        assert again.added == 1200 - on_ray.added
    assert_same_rows(reference, tmp_path / "ds")
    assert _report(tmp_path / "ds", engine="ray", address=cluster.address) == _report(
        reference, jobs=1
    )
