"""A driver killed (SIGKILL) at any moment of an ingest whose workers write every table
themselves (as on Ray) leaves the dataset as it was before the command: ``verify``
accepts it, ``stats`` and ``query`` answer as before; its staging folder and the files its
commit moved into place without publishing them are deleted by the next ingest or by
``verify --repair``; and running the command again adds exactly the missing games.

The ingest runs in a child process whose ``os.replace`` (or the manifest's folder sync,
right after the manifest's rename) kills the process at a chosen point of the commit
(docs/explanations/scale-and-ray.md, the commit). Its runner is the shard function in
that process with every table staged, as Ray stages them (``stages`` = every table), so
no worker outlives the killed driver.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_scale import assert_same_rows
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # registers the commands
import maumau_log.cli.replay_cmds
import maumau_log.cli.verify_cmds  # noqa: F401
from maumau_log.bots.sim import simulate, simulate_matches, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest
from maumau_log.store import MANIFEST, TABLES, read_manifest
from maumau_log.store.verify import verify

ROOT = Path(__file__).resolve().parent.parent
SHARD_BYTES = 30_000  # several shards per file, so several staged files per table

KILLER = r"""
import os, signal, sys
point, dataset, *logs = sys.argv[1:]
import maumau_log.store.manifest as manifest_mod
from maumau_log.run.ingest import ingest
from maumau_log.run.runners import merge_order, serial_results
from maumau_log.store import MANIFEST, TABLES

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_replace = os.replace
moved = []

def replace(src, dst, *args, **kw):
    name = os.fspath(dst)
    if point == "manifest" and os.path.basename(name) == MANIFEST:
        die()  # every file moved into place, the manifest not yet renamed
    if "/.tmp-" not in name and name.endswith(".parquet"):  # a file moved into place
        moved.append(name)
        if point == "files" and len(moved) == 3:
            die()
    return real_replace(src, dst, *args, **kw)

os.replace = replace
if point == "published":  # right after the manifest's rename
    manifest_mod._fsync_dir = lambda path: die()

def runner(shards, task):  # the shard function here, every table staged as on Ray
    return merge_order(serial_results(shards, task), task, shards)

runner.stages = TABLES
merged = []

def on_shard(res):
    merged.append(res)
    if point == "shards" and len(merged) == 2:
        die()

ingest(logs, dataset, runner=runner, shard_bytes=int(os.environ["SHARD_BYTES"]),
       on_shard=on_shard)
print("not killed")
"""


def _ray_like_runner():  # type: ignore[no-untyped-def]
    from maumau_log.run.runners import merge_order, serial_results

    def run(shards, task):  # type: ignore[no-untyped-def]
        return merge_order(serial_results(shards, task), task, shards)

    run.stages = TABLES  # type: ignore[attr-defined]
    return run


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A: single games and two classic matches (stored first). B: new games. C: the first
    20 games of A again (duplicates) and 20 new ones, in one shard with them (the driver
    then reads the staged files to drop the duplicates' rows)."""
    root = tmp_path_factory.mktemp("crash")
    a, b, c = root / "a.jsonl", root / "b.jsonl", root / "c.jsonl"
    with open(a, "wb") as fh:
        write_games(simulate("classic", 3, 60, seed=1, id_prefix="a"), fh)
        write_games(simulate_matches("classic", 3, 2, seed=7), fh)
    with open(b, "wb") as fh:
        write_games(simulate("standard", 4, 50, seed=2, id_prefix="b"), fh)
    lines = a.read_bytes().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"game"')]
    with open(c, "wb") as fh:
        fh.write(b"".join(lines[: starts[20]]))
        write_games(simulate("crazy-eights", 2, 20, seed=3, id_prefix="c"), fh)
    return [a, b, c]


def _answers(dataset: Path) -> tuple[str, str]:
    """What ``stats`` and a ``query`` print for the dataset."""
    cli = CliRunner()
    stats = cli.invoke(app, ["stats", str(dataset), "--format", "csv"])
    assert stats.exit_code == 0, stats.output
    sql = "select count(*) as games, sum(events) as events, count(match_id) as rounds from games"
    query = cli.invoke(app, ["query", str(dataset), sql, "--format", "csv"])
    assert query.exit_code == 0, query.output
    return stats.stdout, query.stdout


@pytest.fixture(scope="module")
def before(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset before the command: A stored."""
    ds = tmp_path_factory.mktemp("before") / "ds"
    ingest(logs[:1], ds, jobs=1)
    return ds


@pytest.fixture(scope="module")
def reference(logs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dataset after the command, from one process: A, then A, B and C."""
    ds = tmp_path_factory.mktemp("reference") / "ds"
    ingest(logs[:1], ds, jobs=1)
    ingest(logs, ds, jobs=1)
    return ds


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def _kill_at(point: str, dataset: Path, logs: list[Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SHARD_BYTES": str(SHARD_BYTES)}
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, point, str(dataset), *map(str, logs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("point", "repair"),
    [("shards", False), ("files", True), ("manifest", False), ("manifest", True)],
)
def test_a_driver_killed_before_its_manifest_leaves_the_dataset_as_it_was(
    point: str, repair: bool, logs: list[Path], before: Path, reference: Path, tmp_path: Path
) -> None:
    ds = _copy(before, tmp_path / "ds")
    answers = _answers(before)
    files_before = read_manifest(before).files
    _kill_at(point, ds, logs)
    assert read_manifest(ds).files == files_before
    report = verify(ds)
    assert report.ok, [str(p) for p in report.problems]
    [staging] = report.staging  # the killed run's staging folder, its staged files in it
    assert list((ds / staging).rglob("*.parquet"))
    if point == "shards":
        assert report.unlisted == []
    else:  # the commit moved files into place and was killed before its manifest
        assert report.unlisted
        assert all(f.split("/")[0] in TABLES for f in report.unlisted)
    temp = [p.name for p in ds.iterdir() if p.name.startswith(f".{MANIFEST}.")]
    if point == "manifest":  # every staged file moved: one per shard, table and partition
        assert len(report.unlisted) >= 3 * len(TABLES)
        assert len(temp) == 1  # the new manifest, written, not renamed
    else:
        assert temp == []
    assert _answers(ds) == answers
    if repair:
        res = CliRunner().invoke(app, ["verify", str(ds), "--repair", "--json"])
        assert res.exit_code == 0, res.output
        doc = json.loads(res.stdout)
        assert doc["ok"] and doc["staging_folders"] == [] and doc["unlisted_files"] == []
        assert doc["removed"] == sorted([f"{staging}/", *report.unlisted, *temp])
        assert not (ds / staging).exists()
        assert _answers(ds) == answers
    expected = ingest(logs, _copy(before, tmp_path / "again"), jobs=1).added
    assert expected == 50 + 20  # B and C's new games
    again = ingest(logs, ds, runner=_ray_like_runner(), shard_bytes=SHARD_BYTES)
    assert again.added == expected and again.failed == []
    assert not [p for p in ds.iterdir() if p.name.startswith(".tmp-")]
    report = verify(ds)
    assert report.ok and report.unlisted == [] and report.staging == []
    assert_same_rows(reference, ds)


def test_a_driver_killed_right_after_its_manifest_has_published_the_command(
    logs: list[Path], before: Path, reference: Path, tmp_path: Path
) -> None:
    ds = _copy(before, tmp_path / "ds")
    _kill_at("published", ds, logs)
    report = verify(ds)
    assert report.ok and report.unlisted == []
    assert len(report.staging) == 1  # the staging folder (emptied by the moves) stays
    assert _answers(ds) == _answers(reference)
    assert_same_rows(reference, ds)
    again = ingest(logs, ds, runner=_ray_like_runner(), shard_bytes=SHARD_BYTES)
    assert again.added == 0 and again.duplicates == again.games
    assert verify(ds).staging == []


def test_the_duplicates_of_a_staged_shard_are_dropped_by_the_driver(
    logs: list[Path], before: Path, reference: Path, tmp_path: Path
) -> None:
    """C's shard holds 20 stored games and 20 new ones: the driver reads its staged
    files and writes the new games' rows itself; a shard of stored games only adopts
    nothing (its staged files are never published)."""
    ds = _copy(before, tmp_path / "ds")
    stored = verify(before).rows["games"]
    res = ingest(logs, ds, runner=_ray_like_runner(), shard_bytes=10**9)  # a shard a file
    assert (res.added, res.duplicates) == (50 + 20, stored + 20)
    assert_same_rows(reference, ds)
    new = [f for fs in read_manifest(ds).files.values() for f in fs if f not in _listed(before)]
    assert not [f for f in new if "-s00000" in f]  # A: stored games only, nothing adopted
    assert {f.split("/")[0] for f in new if "-s00001" in f} == {
        "games", "results", "events", *(t for t in TABLES if t.startswith("audit_"))
    }  # fmt: skip  # B's staged files, adopted (B has no invalid game: no violations)
    assert not [f for f in new if "-s00002" in f]  # C: read and rewritten by the driver
    assert [f for f in new if f.startswith("games/") and "-s0" not in f]


def _listed(dataset: Path) -> set[str]:
    return {f for fs in read_manifest(dataset).files.values() for f in fs}


def test_verify_repair_refuses_while_an_ingest_holds_the_lock(before: Path, tmp_path: Path) -> None:
    import fcntl

    ds = _copy(before, tmp_path / "ds")
    (ds / ".tmp-0123456789abcdef").mkdir()  # as a running ingest's staging folder
    fd = os.open(ds / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        res = CliRunner().invoke(app, ["verify", str(ds), "--repair"])
        assert res.exit_code == 2
        assert "an ingest holds the lock on this dataset" in res.output
        assert (ds / ".tmp-0123456789abcdef").exists()
    finally:
        os.close(fd)
    res = CliRunner().invoke(app, ["verify", str(ds), "--repair"])
    assert res.exit_code == 0, res.output
    assert "removed 1 leftovers of interrupted ingests: .tmp-0123456789abcdef/" in res.output
    assert not (ds / ".tmp-0123456789abcdef").exists()
    assert MANIFEST in os.listdir(ds)
