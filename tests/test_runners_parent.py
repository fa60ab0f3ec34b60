"""The parent's side of the runners: the planner cuts the input's tail finer so
the workers finish together; a game's outcome crosses processes as a compact tuple."""

from __future__ import annotations

import itertools
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import maumau_log.run.plan as plan_mod
from maumau_log.bots.sim import simulate, write_games
from maumau_log.logs.lines import expand_paths
from maumau_log.run.ingest import ingest
from maumau_log.run.runners import ShardTask, local_results, runner_stages, serial_results
from maumau_log.run.shard import GameOutcome, Shard, plan_shards
from maumau_log.store import read_manifest, scan_all


def test_the_tail_is_cut_three_times_finer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three copies of one log (S bytes each) on 2 workers, the floor moved out of the way:
    the target is 3S / 24 = S/8 (balanced_target); the tail is the last 2 targets, S/4
    bytes, so it starts at 2.75 S, inside the third file, which is cut at S/24."""
    first = tmp_path / "a.jsonl"
    with open(first, "wb") as fh:
        write_games(simulate("standard", 3, 240, seed=11, id_prefix="t"), fh)
    files = [first, tmp_path / "b.jsonl", tmp_path / "c.jsonl"]
    for f in files[1:]:
        shutil.copy(first, f)
    size = first.stat().st_size
    monkeypatch.setattr(plan_mod, "MIN_SHARD_BYTES", 1)
    shards = plan_shards(files, shard_bytes=size, workers=2)
    per_file = {str(f): [s for s in shards if s.path == str(f)] for f in files}
    a, b, c = (per_file[str(f)] for f in files)
    # the same bytes and the same target S/8: the same cuts in a and b
    assert [(s.start, s.end, s.first_line) for s in a] == [
        (s.start, s.end, s.first_line) for s in b
    ]
    assert 7 <= len(a) <= 9  # about S / (S/8)
    assert 22 <= len(c) <= 26  # about S / (S/24)
    # a cut comes at the first header at or after the previous cut + the target
    assert all(y.start - x.start >= size // 8 for x, y in itertools.pairwise(a))
    assert all(y.start - x.start >= size // 24 for x, y in itertools.pairwise(c))
    assert min(y.start - x.start for x, y in itertools.pairwise(a)) > size // 24
    assert [s.index for s in shards] == list(range(len(shards)))
    task = ShardTask()
    ref = [g for f in files for r in serial_results(plan_shards([f]), task) for g in r.games]  # type: ignore[union-attr]
    got = [g for r in local_results(shards, task, 2) for g in r.games]  # type: ignore[union-attr]
    assert len(got) == len(ref) == 3 * 240
    assert got == ref


def test_one_worker_plans_whole_files(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 4, 30, seed=3, id_prefix="w"), fh)
    assert [(s.start, s.end, s.first_line) for s in plan_shards([log, log])] == [
        (0, None, 1),
        (0, None, 1),
    ]


_text = st.text(max_size=12)


@given(
    line=st.integers(1, 10**9),
    game_id=st.none() | _text,
    has_header=st.booleans(),
    events=st.integers(0, 10**6),
    unchecked=st.lists(_text, max_size=3),
    content_hash=st.none() | st.integers(-(2**63), 2**63 - 1),
    match_id=st.none() | _text,
)
def test_game_outcome_pickle_round_trip(
    line: int,
    game_id: str | None,
    has_header: bool,
    events: int,
    unchecked: list[str],
    content_hash: int | None,
    match_id: str | None,
) -> None:
    g = GameOutcome(
        "logs/a.jsonl", line, game_id, game_id or f"?logs/a.jsonl:{line}", has_header,
        events, None, unchecked, content_hash, match_id,
    )  # fmt: skip
    back = pickle.loads(pickle.dumps(g, protocol=5))
    assert back == g and type(back) is GameOutcome
    assert back.valid


class _DieAfterStaging(ShardTask):
    """Writes the shard's staged files, then its worker dies before answering (as if
    killed between the write and the reply)."""

    def __call__(self, shard: Shard, matches: Any = None) -> Any:
        res = super().__call__(shard, matches)
        mine = shard.path.endswith("c_serbian.jsonl") and shard.start == 0
        if mine and os.environ.get("MAUMAU_KILL") == "1":
            os._exit(9)
        return res


def test_staged_events_of_a_killed_worker_are_never_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--jobs 2`` ingests stage the events tables in the workers (runner_stages); a
    worker that dies after writing its shard's file leaves it unpublished, the shard is
    reported, and a re-run completes the dataset with the rows of one-process ingest."""
    from test_scale import _reference_ingest, assert_same_rows, make_inputs

    files = [
        f
        for f in expand_paths([make_inputs(tmp_path)])
        if "binary" not in f.name and "conflict" not in f.name
    ]
    _reference_ingest(files, tmp_path / "ref")
    assert runner_stages(None, 2) and not runner_stages(None, 1)
    monkeypatch.setenv("MAUMAU_KILL", "1")

    def runner(shards: Any, task: ShardTask) -> Any:
        assert task.stage is not None and task.stage.endswith(f".tmp-{task.stage_id}")
        dying = _DieAfterStaging(
            task.rules_file_options, True, task.ingested_at, task.stage, task.stage_id
        )
        return local_results(shards, dying, 2)

    runner.workers = 2  # type: ignore[attr-defined]
    runner.stages = True  # type: ignore[attr-defined]
    ds = tmp_path / "ds"
    first = ingest(files, ds, runner=runner, shard_bytes=4096)
    assert first.exit_code == 4 and len(first.failed) == 1
    assert "c_serbian.jsonl (bytes 0-" in first.failed[0]
    manifest = read_manifest(ds)
    staged = [f for f in manifest.files["events"] if "-s0" in f]
    assert staged and all(f.startswith("events/ruleset=") for f in staged)
    assert not [f for f in manifest.files["games"] if "-s0" in f]  # only events staged
    assert not list(ds.glob(".tmp-*")) and not list(ds.rglob("*.tmp"))
    events = scan_all(ds)["events"].collect()
    assert "sim-serbian-2p-8-m00000-r001" not in set(events["game_id"])
    monkeypatch.setenv("MAUMAU_KILL", "0")
    second = ingest(files, ds, jobs=2, shard_bytes=4096)
    assert second.added > 0 and second.exit_code == 1
    assert_same_rows(tmp_path / "ref", ds)
    again = ingest(files, ds, jobs=2, shard_bytes=4096)
    assert again.added == 0
    assert_same_rows(tmp_path / "ref", ds)
