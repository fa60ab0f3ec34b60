"""The Parquet dataset: layout, idempotent re-ingest, conflicts, crash safety."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_records import hand_games, write_log

from maumau_log import store
from maumau_log.run import ingest as records
from maumau_log.run.ingest import ingest
from maumau_log.store import DatasetError, DatasetWriter, read_manifest, scan


def _rows(dataset: Path) -> dict[str, int]:
    return {t: scan(dataset, t).collect().height for t in store.TABLES
            if t not in store.AUDIT_TABLES}  # fmt: skip


def _audit_rows(dataset: Path) -> dict[str, int]:
    return {t: scan(dataset, t).collect().height for t in store.AUDIT_TABLES}


def _snapshot(dataset: Path) -> dict[str, bytes]:
    """Every file of the dataset (the lock aside) and its bytes."""
    return {
        str(p.relative_to(dataset)): p.read_bytes()
        for p in sorted(dataset.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def test_layout_metadata_and_compression(tmp_path: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    manifest = json.loads((ds / store.MANIFEST).read_text())
    assert manifest["format"] == "maumau-log-dataset" and manifest["version"] == 2
    files = manifest["files"]
    assert sorted(Path(f).parent.as_posix() for f in files["games"]) == [
        "games/ruleset=classic/date=2024-04-30",
        "games/ruleset=classic/date=2024-05-02",
        "games/ruleset=classic/date=unknown",
    ]
    for table, paths in files.items():
        for rel in paths:
            meta = pq.read_metadata(ds / rel)
            schema_meta = meta.schema.to_arrow_schema().metadata
            assert schema_meta[b"maumau_log.dataset_version"] == b"2"
            assert schema_meta[b"maumau_log.table"] == table.encode()
            assert meta.row_group(0).column(0).compression == "ZSTD"
    assert _rows(ds) == {"games": 3, "results": 6, "events": 44, "violations": 1}
    # audit facts: a row per game with a header, a seat row per player of the 2 valid games
    assert _audit_rows(ds) == {"audit_games": 3, "audit_seats": 4, "audit_events": 4}


def test_reingest_adds_nothing(tmp_path: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    before = _snapshot(ds)
    again = ingest([logs], ds)
    assert (again.games, again.added, again.duplicates, again.conflicts) == (3, 0, 3, [])
    assert again.exit_code == 1  # g3 is still invalid, as validate would say
    assert _rows(ds) == {"games": 3, "results": 6, "events": 44, "violations": 1}
    assert _snapshot(ds) == before  # not even a new manifest
    # the same games in another file (another path) are still duplicates
    copy = write_log(tmp_path / "copy.jsonl", hand_games())
    assert ingest([copy], ds).added == 0


def test_new_games_are_appended(tmp_path: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    games = hand_games()
    ingest([write_log(tmp_path / "a.jsonl", games[:1])], ds)
    summary = ingest([logs], ds)
    assert (summary.added, summary.duplicates) == (2, 1)
    assert _rows(ds) == {"games": 3, "results": 6, "events": 44, "violations": 1}
    assert len(read_manifest(ds).ingests) == 2


def test_conflict_is_reported_not_overwritten(tmp_path: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    g1 = hand_games()[0]
    g1[-1] = {"type": "round_end", "winner": "ana"}  # same id, other content (no scores)
    other = write_log(tmp_path / "other.jsonl", [g1])
    summary = ingest([other], ds)
    assert summary.added == 0 and summary.exit_code == 1
    assert [(c.game_id, c.file, c.line, c.stored_line) for c in summary.conflicts] == [
        ("g1", str(other), 1, 1)
    ]
    assert "differs from the copy already stored" in str(summary.conflicts[0])
    games = scan(ds, "games").collect()
    assert games.height == 3
    # a conflict inside one ingest: the first copy is kept
    ds2 = tmp_path / "ds2"
    both = ingest([logs, other], ds2)
    assert (both.added, len(both.conflicts)) == (3, 1)


def test_interrupted_ingest_leaves_the_dataset_unchanged(
    tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds = tmp_path / "ds"
    games = hand_games()
    ingest([write_log(tmp_path / "a.jsonl", games[:1])], ds)
    before = _snapshot(ds)
    rows = _rows(ds)

    real_write = DatasetWriter.write
    calls = {"n": 0}

    def boom(self: DatasetWriter, *args: object, **kwargs: object) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # Ctrl-C half-way through the writing
        real_write(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DatasetWriter, "write", boom)
    with pytest.raises(KeyboardInterrupt):
        ingest([logs], ds)
    assert calls["n"] == 2
    assert _snapshot(ds) == before
    assert _rows(ds) == rows
    assert not [p for p in ds.iterdir() if p.name.startswith(".tmp-")]
    monkeypatch.setattr(DatasetWriter, "write", real_write)
    assert ingest([logs], ds).added == 2  # and the next ingest works


def test_crash_while_publishing(
    tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds = tmp_path / "ds"
    ingest([write_log(tmp_path / "a.jsonl", hand_games()[:1])], ds)
    before = _snapshot(ds)
    real_replace = os.replace
    calls = {"n": 0}

    def crash(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # two data files are in place, the manifest is not
            raise OSError(5, "I/O error")
        real_replace(src, dst)

    monkeypatch.setattr(store.os, "replace", crash)
    # a write failure is the machine's fault, reported as a DatasetError (exit 2)
    with pytest.raises(store.DatasetError, match="cannot write: I/O error; nothing was stored"):
        ingest([logs], ds)
    monkeypatch.setattr(store.os, "replace", real_replace)
    # the moved files are not in the manifest: readers do not see them
    assert _rows(ds) == {"games": 1, "results": 2, "events": 23, "violations": 0}
    assert (ds / store.MANIFEST).read_bytes() == before[store.MANIFEST]
    summary = ingest([logs], ds)  # cleans the leftovers, then adds the two games
    assert summary.added == 2
    assert _rows(ds) == {"games": 3, "results": 6, "events": 44, "violations": 1}
    listed = {f for fs in read_manifest(ds).files.values() for f in fs}
    on_disk = {p.relative_to(ds).as_posix() for p in ds.rglob("*.parquet")}
    assert on_disk == listed


def test_interrupted_first_ingest_leaves_no_folder(
    tmp_path: Path, logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(self: object, *args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store.DatasetWriter, "write", boom)
    with pytest.raises(RuntimeError):
        ingest([logs], tmp_path / "new")
    assert not (tmp_path / "new").exists()


def test_bad_datasets(tmp_path: Path, logs: Path) -> None:
    with pytest.raises(DatasetError, match="no such dataset"):
        scan(tmp_path / "missing", "games")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("hello")
    with pytest.raises(DatasetError, match="not a maumau-log dataset"):
        scan(tmp_path / "plain", "games")
    with pytest.raises(DatasetError, match="not a maumau-log dataset and not empty"):
        ingest([logs], tmp_path / "plain")
    assert sorted(p.name for p in (tmp_path / "plain").iterdir()) == ["notes.txt"]
    ds = tmp_path / "ds"
    ingest([logs], ds)
    with pytest.raises(DatasetError, match="unknown table"):
        scan(ds, "nope")
    data = json.loads((ds / store.MANIFEST).read_text())
    data["version"] = 99
    (ds / store.MANIFEST).write_text(json.dumps(data))
    with pytest.raises(DatasetError, match="dataset version 99"):
        scan(ds, "games")


def test_lock_refuses_a_second_writer(tmp_path: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    with DatasetWriter(ds), pytest.raises(DatasetError, match="another ingest"):
        ingest([logs], ds)


def test_empty_dataset_scans(tmp_path: Path) -> None:
    empty = write_log(tmp_path / "empty.jsonl", [])
    ds = tmp_path / "ds"
    summary = ingest([empty], ds)
    assert summary.games == 0
    for t in store.TABLES:
        df = scan(ds, t).collect()
        assert df.height == 0 and "ruleset" in df.columns


def test_partition_values_are_safe() -> None:
    assert store.partition_value("classic") == "classic"
    assert store.partition_value("../etc") == "unknown"
    assert store.partition_value(None) == "unknown"
    assert records.game_date(None) == "unknown"
