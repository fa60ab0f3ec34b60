"""On Ray the driver reads no log: the planner's cut scan of each large file is a Ray task
(a head with no CPU and two 1-CPU worker nodes on this machine, ``ray.cluster_utils``),
and the shards planned from the tasks' cut lists are exactly :func:`plan_shards`'s, so the
dataset equals ``--jobs 1``'s row by row (docs/explanations/scale-details.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.cluster_utils")

from test_scale import assert_same_rows  # noqa: E402

import maumau_log.run.plan as plan_mod  # noqa: E402
import maumau_log.run.ray_runner as ray_mod  # noqa: E402
from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.run.plan import plan_shards  # noqa: E402
from maumau_log.run.ray_runner import ray_runner  # noqa: E402


def test_the_driver_scans_no_log_and_plans_the_shards_of_the_local_planner(
    cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = []
    for k, (preset, games) in enumerate((("classic", 120), ("crazy-eights", 90))):
        path = tmp_path / f"log{k}.jsonl"
        with open(path, "wb") as fh:
            write_games(simulate(preset, 3, games, seed=5 + k, id_prefix=f"f{k}"), fh)
        files.append(path)
    small = tmp_path / "small.jsonl"
    with open(small, "wb") as fh:
        write_games(simulate("classic", 2, 3, seed=9, id_prefix="s"), fh)
    files.insert(1, small)
    expected = list(plan_shards(files, 65536))  # a cluster's runner plans for 1 worker
    per_file = [sum(s.path == str(f) for s in expected) for f in files]
    assert per_file[1] == 1 and min(per_file[0], per_file[2]) >= 3

    here: list[str] = []  # the driver's scans (Ray's workers import their own module)
    real_cuts = plan_mod._cuts

    def counted(path: Path, target: int, limit: int | None = None) -> Any:
        here.append(str(path))
        return real_cuts(path, target, limit)

    planned: list[Any] = []
    real_results = ray_mod.ray_range_results

    def results(shards: Any, *args: Any, **kw: Any) -> Any:
        planned.append(shards)
        return real_results(shards, *args, **kw)

    monkeypatch.setattr(plan_mod, "_cuts", counted)
    monkeypatch.setattr(ray_mod, "ray_range_results", results)
    on_ray = ingest(files, tmp_path / "ray", runner=ray_runner(address=cluster.address),
                    shard_bytes=65536)  # fmt: skip
    assert here == []
    assert on_ray.failed == []
    assert list(planned[0]) == expected
    monkeypatch.undo()
    local = ingest(files, tmp_path / "local", jobs=1)
    assert (on_ray.games, on_ray.added, on_ray.events) == (local.games, local.added, local.events)
    assert on_ray.games == 213
    assert_same_rows(tmp_path / "local", tmp_path / "ray")
