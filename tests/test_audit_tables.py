"""The audit from the facts the ingest recorded equals the audit by replay.

The dataset mixes several presets, table sizes, option variants, match rounds, timed bots,
a quitter, a peeking player, invalid games and a compacted part. The audit is run three
ways: from the facts tables (the default), by replaying the stored events (the fallback of
a dataset written before the tables) and by ``tests/audit_reference.py`` (the old
in-memory audit). Every count, flag, evidence list, table and summary is identical; floats
may differ in their last bits where a sum is taken in another order (relative 1e-9).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from audit_reference import json_diffs, reference_audit

import maumau_log.audit as audit_mod
from maumau_log.audit import audit
from maumau_log.audit.collect import _Replays, read_games, stream
from maumau_log.audit.tables import collect_from_tables
from maumau_log.bots.sim import _Table, simulate, simulate_matches, write_games
from maumau_log.bots.sim_bias import (
    PeekingTable,
    QuitterTable,
    add_times,
    simulate_with,
    write_jsonl,
)
from maumau_log.run.ingest import ingest
from maumau_log.store import AUDIT_TABLES, read_manifest, scan_all
from maumau_log.store.compact import compact


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("auditfacts")
    out = [
        write_jsonl(tmp / "timed.jsonl", add_times(simulate_with(_Table, "classic", 4, 400, 31),
                                                   31, bots={"p3"})),
        write_jsonl(tmp / "quit.jsonl", simulate_with(QuitterTable, "classic", 4, 300, 32)),
        write_jsonl(tmp / "peek.jsonl", simulate_with(PeekingTable, "classic", 3, 300, 33)),
    ]  # fmt: skip
    with open(tmp / "presets.jsonl", "wb") as fh:
        for i, (preset, n) in enumerate(
            [("standard", 3), ("online", 4), ("prsi", 2), ("crazy-eights", 5), ("pesten", 3)]
        ):
            write_games(simulate(preset, n, 150, seed=40 + i), fh)
        write_games(simulate("standard", 3, 150, seed=49, options={"hand_size": 6}), fh)
        write_games(simulate_matches("classic", 2, 4, seed=50), fh)
    lines = (tmp / "presets.jsonl").read_bytes().splitlines(keepends=True)
    (tmp / "broken.jsonl").write_bytes(b"".join([*lines[:200], b"{oops\n", *lines[200:]]))
    return [*out, tmp / "broken.jsonl"]


@pytest.fixture(scope="module")
def dataset(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("auditfacts-ds") / "ds"
    for log in logs[:3]:
        ingest([log], ds, jobs=1)
    compact(ds)
    ingest([logs[3]], ds, jobs=2, shard_bytes=100_000)
    games = scan_all(ds)["games"].collect()
    assert games.height > 1800 and not games["valid"].all()
    return ds


def _same(new: dict[str, Any], old: dict[str, Any]) -> None:
    for path, a, b in json_diffs(new, old):
        assert isinstance(a, float) and isinstance(b, float), (path, a, b)
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300), (path, a, b)


def _json(report: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(report.to_dict(), default=str))
    out.pop("facts_from", None)
    out.pop("dataset", None)
    return out


def _replay_audit(dataset: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> Any:
    with monkeypatch.context() as m:
        m.setattr(audit_mod, "collect_parts", lambda *a, **k: None)
        return audit(dataset, **kw)


def test_facts_equal_the_replay_facts(dataset: Path) -> None:
    """Fact by fact: the ingest's rows hold what the replay path computes per game."""
    games = read_games(dataset)
    replays = _Replays(games)
    tables = scan_all(dataset)
    seats = tables["audit_seats"].collect()
    events = tables["audit_events"].collect()
    facts = tables["audit_games"].collect()
    by_game = {r["game_id"]: r for r in facts.to_dicts()}
    seat_rows = seats.partition_by("game_id", as_dict=True)
    event_rows = events.partition_by("game_id", as_dict=True)
    checked = 0
    for _, g in stream(dataset, replays):
        row = by_game[g.game_id]
        assert row["dealer"] == g.dealer and row["starter"] == g.starter
        assert row["moments"] == g.moments
        assert row["hands_known"] == (len(g.hands) == len(g.players))
        s = seat_rows[(g.game_id,)].sort("seat")
        assert s["player"].to_list() == g.players
        assert s["behind"].to_list() == [g.behind[p] for p in g.players]
        assert s["hand_size"].to_list() == [
            len(g.hands[p]) if p in g.hands else None for p in g.players
        ]
        wild = {c for c in g.rules.cards if g.rules.cards[c].wild}
        if len(g.hands) == len(g.players):
            assert s["hand_wild"].to_list() == [
                sum(c in wild for c in g.hands[p]) for p in g.players
            ]
        ev = event_rows.get((g.game_id,), pl.DataFrame(schema=events.schema))

        def kind(k: str, cols: list[str], e: pl.DataFrame = ev) -> list[tuple[Any, ...]]:
            return list(e.filter(pl.col("kind") == k).select(cols).iter_rows())

        assert kind("fault", ["player", "event_index"]) == g.faults
        assert kind("catch", ["player", "by", "event_index"]) == g.catches
        assert kind("draw", ["player", "reason", "flag", "event_index"]) == g.draws
        assert kind("decision", ["player", "ms", "event_index"]) == g.decisions
        assert kind("abandon", ["player", "flag", "event_index"]) == g.abandons
        checked += 1
    assert checked == replays.replayed > 1700
    assert events.filter(pl.col("kind") == "decision").height > 1000  # the timed games
    assert events.filter(pl.col("kind") == "abandon").height > 50  # the quitter
    assert events.filter(pl.col("kind") == "catch").height > 10


def test_same_findings_and_p_values_as_the_replay_and_the_reference(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = audit(dataset)
    assert report.facts_from == "ingest"
    new = _json(report)
    replayed = _replay_audit(dataset, monkeypatch)
    assert replayed.facts_from == "replay"
    _same(new, _json(replayed))
    _same(new, _json(reference_audit(dataset)))
    assert new["replayed"] == replayed.replayed > 1700
    tested = [f for f in new["findings"] if f["p_value"] is not None]
    assert len(tested) > 30
    assert new["flags"] >= 2  # the timed bot and the quitter, at least
    sections = {f["section"] for f in tested}
    assert {"deal", "seats", "catches", "head_to_head", "draws", "timing", "abandon"} <= sections


def test_small_min_games_same_too(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cell tested (min_games 1): the evidence lists of every finding agree."""
    new = _json(audit(dataset, min_games=1))
    _same(new, _json(_replay_audit(dataset, monkeypatch, min_games=1)))


def test_a_dataset_without_facts_tables_is_audited_by_replay(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dataset written before the facts tables (the tables dropped from its manifest)
    audits by replay, with the same findings; so does one where a later ingest added facts
    for some games only."""
    old = tmp_path / "old"
    shutil.copytree(dataset, old)
    path = old / "maumau-dataset.json"
    manifest = json.loads(path.read_text())
    for t in AUDIT_TABLES:
        manifest["files"].pop(t, None)
    manifest["version"] = 1  # written before them (version 2 lists every table)
    path.write_text(json.dumps(manifest))
    assert not read_manifest(old).files["audit_games"]
    assert collect_from_tables(old) is None
    report = audit(old)
    assert report.facts_from == "replay"
    _same(_json(report), _json(audit(dataset)))


def test_mixed_dataset_falls_back(dataset: Path, logs: list[Path], tmp_path: Path) -> None:
    old = tmp_path / "mixed"
    ingest([logs[0]], old, jobs=1)
    path = old / "maumau-dataset.json"
    manifest = json.loads(path.read_text())
    for t in AUDIT_TABLES:
        manifest["files"].pop(t, None)
    manifest["version"] = 1  # written before them (version 2 lists every table)
    path.write_text(json.dumps(manifest))
    ingest([logs[1]], old, jobs=1)  # facts for these games only
    report = audit(old)
    assert report.facts_from == "replay"
    assert report.replayed == scan_all(old)["games"].filter(pl.col("valid")).collect().height


def test_reingest_and_compact_keep_the_facts(
    dataset: Path, logs: list[Path], tmp_path: Path
) -> None:
    """Re-ingesting the same logs adds no facts rows (game_id + content hash); compact
    rewrites the facts tables with the same rows."""
    ds = tmp_path / "re"
    ingest(logs, ds, jobs=2, shard_bytes=200_000)

    def rows(d: Path) -> dict[str, pl.DataFrame]:
        t = scan_all(d)
        return {n: t[n].collect().sort(pl.all()) for n in AUDIT_TABLES}

    before = rows(ds)
    summary = ingest(logs, ds, jobs=2)
    assert summary.added == 0
    again = rows(ds)
    compact(ds)
    after = rows(ds)
    for n in AUDIT_TABLES:
        assert before[n].height > 0
        assert before[n].equals(again[n]) and before[n].equals(after[n]), n


def test_distinct_ids_from_a_bounded_top_k() -> None:
    """The smallest distinct game ids of a group: from its smallest rows when they hold
    enough distinct ids, else exactly from the source (a game repeated 200 times)."""
    from maumau_log.audit.tables import _distinct_ids

    ids = ["g05", "g01", "g01", "g03"]
    src = pl.LazyFrame({"game_id": ids, "p": ["a"] * 4})
    assert _distinct_ids(sorted(ids), 4, src, pl.col("p") == "a") == ["g01", "g03", "g05"]
    many = ["g00"] * 200 + [f"g{i:02d}" for i in range(1, 40)]
    src = pl.LazyFrame({"game_id": many, "p": ["a"] * len(many)})
    top = sorted(many)[:160]  # what bottom_k(20 * 8) keeps: g00 only
    assert _distinct_ids(top, len(many), src, pl.col("p") == "a") == [
        f"g{i:02d}" for i in range(20)
    ]
