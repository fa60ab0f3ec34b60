"""The audit's running accumulators give the same findings and p-values as the
in-memory audit they replaced, on a few thousand games.

``tests/audit_reference.py`` is the old audit (whole events table in memory, every game's
facts in a list, list-based tests), kept as the reference. The dataset is made by several
ingests (so several events files), with planted bias (timed bots, a quitter, a peeking
player), invalid games, match rounds, several rulesets and a compacted part.

The documented differences, in the last bits of a float only (relative 1e-12 at most): the
seat test's expected wins are ``sum over dealer seats of games x rate`` instead of a sum of
one rate per game, and the draw test's dispersion phi is computed from per-player sums of
k^2, k n and n^2 in exact integers instead of a float sum over (game, player, reason)
cells, so their statistics and p-values may differ there; everything else (every count,
flag, evidence list, table, summary) is identical.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from audit_reference import _in_memory_collect, json_diffs, reference_audit
from hypothesis import given
from hypothesis import strategies as st

import maumau_log.audit as audit_mod
from maumau_log.audit import AuditInput, audit
from maumau_log.audit.accumulators import First, SmallestIds, TimingCell, collect
from maumau_log.audit.findings import MAX_EVIDENCE
from maumau_log.bots.sim import _Table, simulate, simulate_matches, write_games
from maumau_log.bots.sim_bias import (
    PeekingTable,
    QuitterTable,
    add_times,
    simulate_with,
    write_jsonl,
)
from maumau_log.run.ingest import ingest
from maumau_log.store import scan_all
from maumau_log.store.compact import compact


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("auditscale")
    ds = tmp / "ds"
    logs = [
        write_jsonl(tmp / "timed.jsonl", add_times(simulate_with(_Table, "classic", 4, 700, 21),
                                                   21, bots={"p4"})),
        write_jsonl(tmp / "quit.jsonl", simulate_with(QuitterTable, "classic", 4, 500, 22)),
        write_jsonl(tmp / "peek.jsonl", simulate_with(PeekingTable, "classic", 3, 500, 23)),
    ]  # fmt: skip
    with open(tmp / "other.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 300, seed=24), fh)
        write_games(simulate("standard", 3, 200, seed=25, options={"hand_size": 6}), fh)
        write_games(simulate_matches("classic", 2, 4, seed=26), fh)
    with open(tmp / "fresh.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 40, seed=27), fh)
    lines = (tmp / "fresh.jsonl").read_bytes().splitlines(keepends=True)
    (tmp / "broken.jsonl").write_bytes(b"".join([*lines[:300], b"{oops\n", *lines[300:900]]))
    for log in logs:
        ingest([log], ds, jobs=1)
    compact(ds)  # the first three ingests into one file per table
    ingest([tmp / "other.jsonl", tmp / "broken.jsonl"], ds, jobs=2, shard_bytes=50_000)
    games = scan_all(ds)["games"].collect()
    assert games.height > 2000 and not games["valid"].all()
    return ds


def test_same_findings_and_p_values(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the replay path (a dataset written before the facts tables); the facts path is
    # compared with both in test_audit_tables.py
    monkeypatch.setattr(audit_mod, "collect_parts", lambda *a, **k: None)
    new = json.loads(json.dumps(audit(dataset).to_dict(), default=str))
    old = json.loads(json.dumps(reference_audit(dataset).to_dict(), default=str))
    diffs = json_diffs(new, old)
    for path, a, b in diffs:
        # only the statistics, expected counts and p-values of the tests that sum floats
        # over cells, in the last bits: the merged counts are summed in key order (one
        # fixed order for any split of the games), the head-to-head fair shares exactly
        assert isinstance(a, float) and isinstance(b, float), (path, a, b)
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300), (path, a, b)
        i = int(path.split("[")[1].split("]")[0])
        assert new["findings"][i]["section"] in ("seats", "draws", "catches", "head_to_head")
        assert path.rsplit("/", 1)[1] in ("statistic", "expected", "p_value", "p_adjusted")
    tested = [f for f in new["findings"] if f["p_value"] is not None]
    assert len(tested) > 20
    assert new["flags"] == old["flags"] >= 2  # the bot's timing and the quitter, at least
    assert [f["flagged"] for f in new["findings"]] == [f["flagged"] for f in old["findings"]]
    assert new["tables"] == old["tables"]
    assert new["replayed"] == old["replayed"] > 2000
    # the evidence of the planted quitter: the same first events, in games-table order
    quits = [f for f in new["findings"] if f["section"] == "abandon" and f["flagged"]]
    assert quits and quits[0]["evidence"]["events"]


def test_batch_size_does_not_change_the_counts(dataset: Path) -> None:
    a = collect(dataset, batch_rows=1000)
    b = collect(dataset)
    assert a.replayed == b.replayed
    assert a.games.equals(b.games)
    assert a.acc.play.pair_caught == b.acc.play.pair_caught
    assert a.acc.seats.cells == b.acc.seats.cells
    assert {p: c.times for p, c in a.acc.timing.cells.items()} == {
        p: c.times for p, c in b.acc.timing.cells.items()
    }


def test_clients_and_facts_stream_equal_the_in_memory_collection(dataset: Path) -> None:
    old = _in_memory_collect(dataset)
    data = collect(dataset)
    clients = dict(data.games.select("game_id", "client").iter_rows())
    assert clients == {g: old.clients.get(g, "unknown") for g in old.games["game_id"]}
    facts = AuditInput(data, dataset, 50).facts
    assert len(facts) == len(old.facts)
    assert sorted((f for f in facts), key=lambda f: f.game_id) == sorted(
        old.facts, key=lambda f: f.game_id
    )


def test_first_keeps_the_k_smallest_keys() -> None:
    first = First()
    for key in [50, 3, 7, *range(100, 80, -1), 1, 2]:
        first.add((key, 0), key)
    assert first.values() == sorted([50, 3, 7, *range(100, 80, -1), 1, 2])[:MAX_EVIDENCE]
    ids = SmallestIds()
    for gid in ["g9", "g1", "g1", "g5", *[f"h{i:02d}" for i in range(30)]]:
        ids.add(gid)
    assert ids.ids == sorted({"g9", "g1", "g5", *[f"h{i:02d}" for i in range(30)]})[:20]


@given(st.lists(st.integers(0, 2000).map(float), min_size=1, max_size=60))
def test_median_from_counts_is_numpys(times: list[float]) -> None:
    cell = TimingCell()
    for t in times:
        cell.times[t] += 1
        cell.n += 1
    assert cell.median() == float(np.median(times))


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 5)), max_size=80))
def test_first_is_the_head_of_the_sorted_items(items: list[tuple[int, int]]) -> None:
    first = First()
    for key in items:
        first.add(key, list(key))
    assert first.values() == [list(k) for k in sorted(items)][:MAX_EVIDENCE]
