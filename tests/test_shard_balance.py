"""With several workers the planner cuts a small input finer (about
SHARDS_PER_WORKER shards per worker), so no worker idles while the other finishes the last
big file; the outcomes stay those of one replay."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli.run_opts import make_runner
from maumau_log.run.plan import (
    MIN_SHARD_BYTES,
    SHARD_BYTES,
    SHARDS_PER_WORKER,
    balanced_target,
    plan_shards,
)
from maumau_log.run.runners import ShardTask, local_results, runner_workers, serial_results

MIB = 1024 * 1024


def _sized(tmp_path: Path, sizes: list[int]) -> list[Path]:
    files = []
    for k, size in enumerate(sizes):
        p = tmp_path / f"f{k}.jsonl"
        with open(p, "wb") as fh:
            fh.truncate(size)  # sparse: only the size matters to the target
        files.append(p)
    return files


def test_balanced_target_by_hand(tmp_path: Path) -> None:
    assert SHARDS_PER_WORKER == 12 and MIN_SHARD_BYTES == 4 * MIB
    eight = _sized(tmp_path, [40 * MIB] * 8)  # the 10^5 benchmark's shape
    assert balanced_target(eight, 1) == SHARD_BYTES  # one worker: as before
    assert balanced_target(eight, 2) == 320 * MIB // 24 == 13_981_013
    small = eight[:2]
    assert balanced_target(small, 2) == MIN_SHARD_BYTES  # 80 MiB / 24 < 4 MiB: the floor
    assert balanced_target(eight, 2, shard_bytes=4096) == 4096  # never above shard_bytes
    huge = _sized(tmp_path, [3000 * MIB])
    assert balanced_target(huge, 2) == SHARD_BYTES  # 125 MiB per shard wanted: the cap


def test_runner_workers() -> None:
    assert runner_workers(None, 3) == 3
    assert runner_workers(make_runner("local", 2, None)) == 2
    assert runner_workers(lambda shards, task: iter(())) == 1


def test_finer_shards_give_the_same_outcomes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "games.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("standard", 3, 300, seed=5, id_prefix="b"), fh)
    size = log.stat().st_size
    one = plan_shards([log], shard_bytes=size)
    assert len(one) == 1
    # a target of size/24 (floor and cap moved out of the way) cuts the file in many shards
    import maumau_log.run.plan as plan_mod

    monkeypatch.setattr(plan_mod, "MIN_SHARD_BYTES", 1)
    many = plan_shards([log], shard_bytes=size, workers=2)
    assert len(many) >= 20
    assert many[0].start == 0 and many[-1].end is None
    assert all(a.end == b.start for a, b in itertools.pairwise(many))
    task = ShardTask()
    ref = [g for r in serial_results(one, task) for g in r.games]  # type: ignore[union-attr]
    got = [g for r in local_results(many, task, 2) for g in r.games]  # type: ignore[union-attr]
    assert len(got) == len(ref) == 300
    assert got == ref
