"""``compact`` merges small files, keeps every row and every answer, crash-safe."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from test_scale import dataset_rows
from typer.testing import CliRunner

import maumau_log.cli.compact_cmds
import maumau_log.cli.data_cmds  # noqa: F401
from maumau_log.bots.sim import simulate, simulate_matches, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest
from maumau_log.stats.players import filter_results, player_stats
from maumau_log.store import DatasetError, read_manifest, scan
from maumau_log.store import compact as compact_mod
from maumau_log.store.compact import compact


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """A dataset made by 6 small ingests (6 files per table and partition)."""
    ds = tmp_path / "ds"
    for k in range(5):
        log = tmp_path / f"g{k}.jsonl"
        with open(log, "wb") as fh:
            write_games(simulate("standard", 3, 8, seed=k + 1), fh)
        ingest([log], ds, jobs=1)
    log = tmp_path / "m.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate_matches("classic", 2, 2, seed=5), fh)
    ingest([log], ds, jobs=1)
    return ds


def _board(ds: Path) -> pl.DataFrame:
    return player_stats(filter_results(scan(ds, "results"))).collect().sort("player")


def test_compact_merges_and_keeps_rows(many: Path) -> None:
    before_rows = dataset_rows(many)
    board = _board(many)
    files = read_manifest(many).files
    assert len(files["events"]) == 6 and len(files["games"]) == 6
    s = compact(many)
    after = read_manifest(many).files
    # one partition per table (standard and classic, date unknown): 5 + 1 files
    assert len(after["events"]) == 2 and len(after["games"]) == 2
    assert s.files_before["events"] == 6 and s.files_after["events"] == 2
    assert s.rows["games"] == 40  # the five standard ingests, 8 games each
    for name, df in dataset_rows(many).items():
        assert df.equals(before_rows[name]), name
    assert _board(many).equals(board)
    on_disk = {p.relative_to(many).as_posix() for p in many.rglob("*.parquet")}
    assert on_disk == {f for fs in after.values() for f in fs}
    # events of a game stay together and in order
    ev = scan(many, "events").select("game_id", "event_index").collect()
    runs = ev.with_columns(
        pl.col("game_id").ne_missing(pl.col("game_id").shift()).cum_sum().alias("r")
    )
    assert runs["r"].n_unique() == ev["game_id"].n_unique()
    # nothing left to merge: a second compaction changes nothing
    again = compact(many)
    assert sum(again.rows.values()) == 0
    assert read_manifest(many).files == after


def test_reingest_after_compact_adds_nothing(many: Path, tmp_path: Path) -> None:
    compact(many)
    s = ingest([tmp_path / "g0.jsonl", tmp_path / "m.jsonl"], many, jobs=1)
    assert s.added == 0 and s.duplicates == 8 + s.games - 8


def test_interrupted_compact_leaves_the_dataset(
    many: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {p: p.read_bytes() for p in many.rglob("*") if p.is_file() and p.name != ".lock"}
    calls = []

    def crash(*args: object) -> int:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)  # type: ignore[arg-type]

    real = compact_mod._merge
    monkeypatch.setattr(compact_mod, "_merge", crash)
    with pytest.raises(KeyboardInterrupt):
        compact(many)
    after = {p: p.read_bytes() for p in many.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


def test_compact_cli(many: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["compact", str(many)])
    assert res.exit_code == 0, res.output
    # games, results, events and the three audit facts tables: 6 files each, 2 after (one per
    # ruleset); matches: 1 file
    assert "37 files -> 13" in res.stderr.replace("\n", " ")
    res = CliRunner().invoke(app, ["compact", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no such dataset" in res.stderr
    with pytest.raises(DatasetError):
        compact(tmp_path / "nope")
    assert not (tmp_path / "nope").exists()
