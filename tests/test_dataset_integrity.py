"""A dataset that checks itself and exit codes that tell the truth:
checksums in the manifest, a size check on every read, ``verify``, full disks, the lock."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.verify_cmds
from maumau_log import store
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event
from maumau_log.run.ingest import ingest

runner = CliRunner()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    logs = write_log(tmp_path / "hand.jsonl", hand_games())
    ds = tmp_path / "ds"
    ingest([logs], ds)
    return ds


def _file(ds: Path, table: str) -> Path:
    (rel,) = store.read_manifest(ds).files[table][:1]
    return ds / rel


def _commands(ds: Path) -> list[list[str]]:
    return [
        ["stats", str(ds)],
        ["stats", str(ds), "--by", "match"],
        ["query", str(ds), "select count(*) from results"],
        ["game", str(ds), "g1"],
        ["audit", str(ds)],
    ]


def test_manifest_records_every_file_with_size_and_sha256(dataset: Path) -> None:
    manifest = json.loads((dataset / store.MANIFEST).read_text())
    listed = [f for fs in manifest["files"].values() for f in fs]
    # three partitions (dates unknown, 2024-05-02, 2024-04-30) of games, results, events;
    # the one violation in one; the audit facts: audit_games in all three, audit_seats and
    # audit_events in the two partitions with a valid game
    assert sorted(manifest["file_info"]) == sorted(listed) and len(listed) == 17
    for rel in listed:
        data = (dataset / rel).read_bytes()
        assert manifest["file_info"][rel] == {
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }


def test_deleted_parquet_file_is_exit_2_naming_the_file(dataset: Path) -> None:
    gone = _file(dataset, "results")
    gone.unlink()
    for args in _commands(dataset):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)  # stats used to exit 0 here, query 3
        assert f"{gone}: missing" in res.output, (args, res.output)
        assert "internal error" not in res.output and "Traceback" not in res.output


def test_truncated_parquet_file_is_exit_2_with_both_sizes(dataset: Path) -> None:
    path = _file(dataset, "events")
    size = path.stat().st_size
    os.truncate(path, 100)
    for args in _commands(dataset):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert f"changed: 100 bytes, the manifest recorded {size:,}" in " ".join(
            res.output.split()
        ), (args, res.output)


def test_ingest_into_a_damaged_dataset_refuses(dataset: Path, tmp_path: Path) -> None:
    _file(dataset, "games").unlink()
    more = write_log(tmp_path / "more.jsonl", hand_games()[:1])
    res = runner.invoke(app, ["ingest", str(more), "--out", str(dataset)])
    assert res.exit_code == 2 and "missing" in res.output


def test_verify_whole_dataset(dataset: Path) -> None:
    res = runner.invoke(app, ["verify", str(dataset), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["ok"] and doc["problems"] == []
    # 3 games (g1, g2 valid; g3 invalid), 2 players each, one per date partition: 3 files
    # each of games, results, events, and the one violation's
    # and the audit facts: a row per game, a seat row per player of the valid games
    assert doc["rows"] == {"games": 3, "results": 6, "events": 44, "violations": 1, "matches": 0,
                           "audit_games": 3, "audit_seats": 4, "audit_events": 4}  # fmt: skip
    assert (doc["files"], doc["checksummed"], doc["checksums_not_recorded"]) == (17, 17, 0)
    text = runner.invoke(app, ["verify", str(dataset)])
    assert "ok:" in text.output and "the tables agree" in text.output


def test_verify_finds_a_same_size_corruption_by_checksum(dataset: Path) -> None:
    path = _file(dataset, "games")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    res = runner.invoke(app, ["verify", str(dataset), "--json"])
    assert res.exit_code == 1
    (p, *_) = json.loads(res.stdout)["problems"]
    assert p["check"] == "file" and p["where"] == path.relative_to(dataset).as_posix()
    assert p["message"].startswith("changed: SHA-256 ")


def test_verify_finds_tables_that_disagree(dataset: Path) -> None:
    # drop g2's results rows, and record the new file honestly: only the tables disagree
    (path,) = [
        dataset / rel
        for rel in store.read_manifest(dataset).files["results"]
        if "g2" in pq.read_table(dataset / rel).column("game_id").to_pylist()
    ]
    t = pq.read_table(path)
    keep = [i for i, g in enumerate(t.column("game_id").to_pylist()) if g != "g2"]
    pq.write_table(t.take(pa.array(keep, pa.int64())), path)
    m = store.read_manifest(dataset)
    rel = path.relative_to(dataset).as_posix()
    m.file_info[rel] = {"bytes": path.stat().st_size, "sha256": store.file_sha256(path)}
    (dataset / store.MANIFEST).write_text(m.to_json())
    res = runner.invoke(app, ["verify", str(dataset), "--json"])
    assert res.exit_code == 1
    problems = json.loads(res.stdout)["problems"]
    assert problems == [
        {
            "check": "results.rows",
            "where": "results",
            "message": "1 games whose ruleset resolved have no results rows: 'g2'",
        }
    ]


def test_old_manifest_without_checksums_still_opens(dataset: Path) -> None:
    doc = json.loads((dataset / store.MANIFEST).read_text())
    del doc["file_info"]  # as a dataset written before file checksums were recorded
    doc["version"] = 1  # (version 2 records them for every file)
    (dataset / store.MANIFEST).write_text(json.dumps(doc))
    assert runner.invoke(app, ["stats", str(dataset), "--format", "json"]).exit_code == 0
    res = runner.invoke(app, ["verify", str(dataset)])
    assert res.exit_code == 0, res.output
    assert "checksums not recorded for 17 of 17 files" in " ".join(res.output.split())
    # a new ingest records its own files and keeps the old ones listed
    more = write_log(dataset.parent / "more.jsonl", [hand_games()[0]])
    ingest([more], dataset)
    assert store.read_manifest(dataset).file_info == {}  # nothing added (a duplicate)


def _big_log(tmp_path: Path, games: int = 400) -> Path:
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as fh:
        for game in simulate("classic", 4, games, 7):
            for ev in game:
                fh.write(encode_event(ev) + b"\n")
    return path


def test_file_size_limit_during_ingest_is_exit_2(tmp_path: Path) -> None:
    log = _big_log(tmp_path)
    ds = tmp_path / "ds"

    def limit() -> None:  # ulimit -f 64 (KiB): the events file cannot be written
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))

    res = subprocess.run(
        [sys.executable, "-m", "maumau_log", "ingest", str(log), "--out", str(ds)],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        env={**os.environ, "COLUMNS": "300"},
    )
    assert res.returncode == 2, res.stderr
    assert "internal error" not in res.stderr
    line = " ".join(res.stderr.split())
    assert "cannot write: file too large (a file-size limit such as ulimit -f)" in line
    assert f"{ds}/events/ruleset=classic/date=unknown/part-" in line
    assert "nothing was stored" in line
    assert not ds.exists()  # a new dataset that could not be written is not left half-made


def test_full_disk_during_ingest_leaves_the_dataset_as_it_was(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file() and p.name != ".lock"}
    log = _big_log(tmp_path, 20)

    def full(self: object, *a: object, **k: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    res = runner.invoke(app, ["ingest", str(log), "--out", str(dataset)])
    assert res.exit_code == 2, res.output
    assert "cannot write: no space left on the device; nothing was stored" in " ".join(
        res.output.split()
    )
    after = {p: p.read_bytes() for p in dataset.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


def test_second_ingest_into_a_new_folder_says_the_lock_is_held(tmp_path: Path) -> None:
    ds = tmp_path / "new"
    log = write_log(tmp_path / "a.jsonl", hand_games()[:1])
    with store.DatasetWriter(ds):  # the first ingest, still writing (its .tmp-* is there)
        res = runner.invoke(app, ["ingest", str(log), "--out", str(ds)])
        assert res.exit_code == 2
        text = " ".join(res.output.split())
        assert f"another ingest (process {os.getpid()}) holds the lock" in text, text
        assert "not empty" not in text


def test_os_errors_are_exit_2_not_internal_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], dataset: Path
) -> None:
    from maumau_log import cli

    for exc in (
        PermissionError(errno.EACCES, "Permission denied", "/srv/ds/games/part-x.parquet"),
        ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
    ):

        def boom(*a: object, _e: Exception = exc, **k: object) -> None:
            raise _e

        monkeypatch.setattr(maumau_log.cli.data_cmds, "load_game", boom)
        monkeypatch.setattr(sys, "argv", ["maumau-log", "game", str(dataset), "g1"])
        with pytest.raises(SystemExit) as stop:
            cli.main()
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "internal error" not in err
        assert exc.strerror in err
        if exc.filename:
            assert "/srv/ds/games/part-x.parquet: Permission denied" in err


def test_same_size_garbage_names_the_damaged_file(dataset: Path) -> None:
    """A file overwritten with garbage of the same size passes the size check; the error
    names that file , exit 2."""
    bad = _file(dataset, "events")
    bad.write_bytes(b"\x07" * bad.stat().st_size)
    res = runner.invoke(app, ["query", str(dataset), "select count(*) from events"])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert bad.name in text
    assert "maumau-log verify" in text
    assert store.unreadable_file(dataset) is not None
    assert store.unreadable_file(dataset)[0] == str(bad)  # type: ignore[index]


def test_result_too_large_is_the_querys_fault_not_damage() -> None:
    """Polars' 'maximum length reached' is a query too large, not a damaged dataset."""
    from maumau_log.cli import dataset_read_error

    exc = RuntimeError("polars' maximum length reached. consider installing 'polars-u64-idx'")
    msg = dataset_read_error(exc, "ds")
    assert msg.startswith("ds: the result is too large for Polars")
    assert "the dataset is fine" in msg and "verify" not in msg


def test_every_footer_reads_on_a_whole_dataset(dataset: Path) -> None:
    assert store.unreadable_file(dataset) is None
