"""The audit as map-reduce: any split of the games into parts, counted by any number of
workers (this process, a process pool, Ray) and merged in any order, gives the same
``audit --format json`` bytes; and the same findings as the in-memory audit it replaced.

The dataset: several ingests (a pool of two workers with small shards, so each file holds
many row groups), planted bias (a timed bot, a quitter, a peeking player), invalid games, a
line that does not parse, several rulesets and table sizes, match rounds.
"""

from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from audit_reference import json_diffs, reference_audit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maumau_log.audit as audit_mod
from maumau_log.audit import audit
from maumau_log.audit.accumulators import _Data
from maumau_log.audit.collect import _GAME_COLUMNS
from maumau_log.audit.merge import Partial, finish, merge
from maumau_log.audit.parts import collect_parts, plan_parts
from maumau_log.audit.tables import partial_from_frames
from maumau_log.bots.sim import _Table, simulate, simulate_matches, write_games
from maumau_log.bots.sim_bias import (
    PeekingTable,
    QuitterTable,
    add_times,
    simulate_with,
    write_jsonl,
)
from maumau_log.run.ingest import ingest
from maumau_log.store import check_files, scan_all
from maumau_log.store.compact import compact


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("auditparts")
    ds = tmp / "ds"
    logs = [
        write_jsonl(tmp / "timed.jsonl", add_times(simulate_with(_Table, "classic", 4, 500, 31),
                                                   31, bots={"p4"})),
        write_jsonl(tmp / "quit.jsonl", simulate_with(QuitterTable, "classic", 4, 400, 32)),
        write_jsonl(tmp / "peek.jsonl", simulate_with(PeekingTable, "classic", 3, 400, 33)),
    ]  # fmt: skip
    with open(tmp / "other.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 300, seed=34), fh)
        write_games(simulate("standard", 2, 200, seed=35, options={"hand_size": 6}), fh)
        write_games(simulate_matches("classic", 2, 3, seed=36), fh)
    with open(tmp / "fresh.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 30, seed=37), fh)
    lines = (tmp / "fresh.jsonl").read_bytes().splitlines(keepends=True)
    # a line that does not parse, and a game cut short (invalid): bad input among good
    (tmp / "broken.jsonl").write_bytes(b"".join([*lines[:200], b"{oops\n", *lines[200:700]]))
    ingest(logs, ds, jobs=2, shard_bytes=200_000)
    ingest([tmp / "other.jsonl", tmp / "broken.jsonl"], ds, jobs=2, shard_bytes=100_000)
    games = scan_all(ds)["games"].collect()
    assert games.height > 1800 and not games["valid"].all()
    return ds


def _json(dataset: Path, **kw: Any) -> str:
    report = audit(dataset, min_games=50, **kw)
    return json.dumps(report.to_dict(), default=str, indent=1)


@pytest.fixture(scope="module")
def one_part(dataset: Path) -> str:
    """The report with the whole dataset as one part, in this process."""
    return _json(dataset, jobs=1)


def test_the_dataset_is_cut_into_many_parts_of_whole_row_groups(dataset: Path) -> None:
    files = check_files(dataset).files
    parts = plan_parts(dataset, files, part_games=150)
    assert len(parts) > 8
    # every games row in exactly one part, in games-table order
    ats = [pc.at for p in parts for pc in p.of("games")]
    rows = [pc.rows for p in parts for pc in p.of("games")]
    assert ats == sorted(ats)
    assert sum(rows) == scan_all(dataset)["games"].collect().height


def test_audit_json_is_byte_identical_for_any_parts_and_workers(
    dataset: Path, one_part: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("maumau_log.audit.parts.PART_GAMES", 150)
    assert _json(dataset, jobs=1) == one_part
    assert _json(dataset, jobs=2) == one_part


def test_audit_equals_the_in_memory_audit(dataset: Path, one_part: str) -> None:
    new = json.loads(one_part)
    old = json.loads(json.dumps(reference_audit(dataset).to_dict(), default=str))
    assert new.pop("facts_from") == "ingest"  # the reference replays
    old.pop("facts_from", None)
    for path, a, b in json_diffs(new, old):
        # the exact integer sums differ from the old float sums in the last bits only:
        # the seat test's expected wins, the draw test's dispersion, the head-to-head
        # fair shares (now an exact sum of 1 / table size)
        assert isinstance(a, float) and isinstance(b, float), (path, a, b)
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300), (path, a, b)
        i = int(path.split("[")[1].split("]")[0])
        assert new["findings"][i]["section"] in ("seats", "draws", "head_to_head"), path
    assert new["flags"] == old["flags"] >= 2  # the bot's timing and the quitter, at least
    assert new["tables"] == old["tables"]


def test_a_compacted_dataset_is_split_by_partition(dataset: Path, tmp_path: Path) -> None:
    # compaction rewrites each table's files on its own: their row groups no longer hold
    # the same games, so the parts are planned again, one per partition
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    compact(ds)
    files = check_files(ds).files
    by_partition = plan_parts(ds, files, by_partition=True)
    assert len(by_partition) == len({r.split("/")[1:3].__repr__() for r in files["games"]})
    with pytest.MonkeyPatch.context() as m:
        m.setattr("maumau_log.audit.parts.PART_GAMES", 150)
        small = _json(ds, jobs=2)
    assert small == _json(ds, jobs=1)
    a, b = json.loads(small), json.loads(_json(dataset, jobs=1))
    assert a["tables"] == b["tables"] and a["flags"] == b["flags"]


def _subset(tables: dict[str, pl.LazyFrame], games: pl.DataFrame, rows: list[int]) -> Partial:
    part = games.filter(pl.col("at").is_in(rows))
    ids = part.select("game_id").lazy()
    sub = {t: lf.join(ids, on="game_id", how="semi") for t, lf in tables.items()}
    return partial_from_frames(sub, part)


@pytest.fixture(scope="module")
def frames(dataset: Path) -> tuple[dict[str, pl.LazyFrame], pl.DataFrame]:
    tables = scan_all(dataset)
    cols = [c for c in _GAME_COLUMNS if c != "options"]
    games = tables["games"].select(cols).collect().with_row_index("at")
    games = games.with_columns(pl.col("at").cast(pl.Int64))
    return tables, games


def _report(dataset: Path, total: Partial) -> str:
    data = _Data(None, finish(total.acc), total.replayed, total.invalid, total.games, total.valid)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(audit_mod, "collect_parts", lambda *a, **k: data)
        return _json(dataset)


@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(2, 5), st.randoms(use_true_random=False))
def test_merges_are_associative_and_order_independent(
    dataset: Path, one_part: str, frames: Any, k: int, rnd: random.Random
) -> None:
    tables, games = frames
    groups: list[list[int]] = [[] for _ in range(k)]
    for at in range(games.height):  # a random split of the games, not by file or row
        groups[rnd.randrange(k)].append(at)
    parts = [_subset(tables, games, g) for g in groups]
    rnd.shuffle(parts)
    while len(parts) > 1:  # merge random neighbours: any bracketing, any order
        i = rnd.randrange(len(parts) - 1)
        a, b = parts[i], parts[i + 1]
        parts[i : i + 2] = [merge(b, a) if rnd.random() < 0.5 else merge(a, b)]
    assert _report(dataset, parts[0]) == one_part


def test_audit_on_ray_is_byte_identical(dataset: Path, one_part: str) -> None:
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        # "local": a Ray of its own even when another test's cluster runs on this machine
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with pytest.MonkeyPatch.context() as m:
            m.setattr("maumau_log.audit.parts.PART_GAMES", 150)
            assert _json(dataset, engine="ray") == one_part
    finally:
        if started:
            ray.shutdown()


def test_an_unknown_engine_is_refused(dataset: Path) -> None:
    with pytest.raises(ValueError, match="unknown engine 'spark': local or ray"):
        collect_parts(dataset, engine="spark")
