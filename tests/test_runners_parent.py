"""Issue 11, the parent's side of the runners: the planner cuts the input's tail finer so
the workers finish together; a game's outcome crosses processes as a compact tuple."""

from __future__ import annotations

import itertools
import pickle
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import maumau_log.shard as shard_mod
from maumau_log.runners import ShardTask, local_results, serial_results
from maumau_log.shard import GameOutcome, plan_shards
from maumau_log.sim import simulate, write_games


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
    monkeypatch.setattr(shard_mod, "MIN_SHARD_BYTES", 1)
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
