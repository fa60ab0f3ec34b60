"""The audit's workers: what a part costs them and what they refuse.

A worker holds a small part's seats and events facts in memory while the part's queries
run (a large part is scanned query by query): the report is the same bytes either way, and
with one worker or two. A worker imports only what counting needs (not scipy, which the
tests use in the driver). A file changed after the ingest is refused before any part is
read, with the same message and exit code whatever the number of workers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds  # noqa: F401  (registers the command)
from maumau_log.audit import audit
from maumau_log.audit import parts as parts_mod
from maumau_log.audit.parts import HOLD_GAMES, PART_GAMES, Part, Piece, holds, plan_parts
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest
from maumau_log.run.runners import default_jobs
from maumau_log.store import check_files, read_manifest
from maumau_log.store.integrity import file_sha256

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two rulesets, two table sizes; small shards, so each file holds many row groups."""
    tmp = tmp_path_factory.mktemp("auditworkers")
    with open(tmp / "games.jsonl", "wb") as fh:
        write_games(simulate("classic", 4, 300, seed=41), fh)
        write_games(simulate("standard", 3, 200, seed=42), fh)
    ds = tmp / "ds"
    ingest([tmp / "games.jsonl"], ds, jobs=1, shard_bytes=60_000)
    return ds


def _json(dataset: Path, jobs: int) -> str:
    report = audit(dataset, min_games=50, jobs=jobs)
    return json.dumps(report.to_dict(), default=str, indent=1)


def test_the_dataset_is_cut_into_parts_each_held_by_its_worker(dataset: Path) -> None:
    parts = plan_parts(dataset, check_files(dataset).files, part_games=100)
    assert len(parts) >= 4
    assert all(holds(p) for p in parts)


def test_held_and_scanned_parts_give_the_same_report_bytes(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _json(dataset, jobs=1)  # parts of up to PART_GAMES games, held
    monkeypatch.setattr(parts_mod, "PART_GAMES", 100)
    assert _json(dataset, jobs=1) == whole  # many parts, held
    assert _json(dataset, jobs=2) == whole  # many parts, two workers
    monkeypatch.setattr(parts_mod, "HOLD_GAMES", 0)
    assert _json(dataset, jobs=1) == whole  # many parts, each query scans its part


def test_a_part_is_held_up_to_hold_games_and_never_as_whole_files() -> None:
    def part(*rows: int) -> Part:
        pieces = tuple(Piece("games/ruleset=classic/date=unknown/part-a.parquet", 0, n)
                       for n in rows)  # fmt: skip
        return Part((("games", pieces),))

    assert HOLD_GAMES == 2 * PART_GAMES == 20_000
    assert holds(part(HOLD_GAMES))
    assert holds(part(12_000, 8_000))
    assert not holds(part(HOLD_GAMES + 1))
    assert not holds(part(12_000, 8_001))
    assert not holds(part(-1))  # a whole file (a partition's part): any number of games
    assert not holds(part(5, -1))
    assert holds(part())  # no games: nothing to hold


def _imported(code: str) -> list[str]:
    script = code + "\nimport sys\nprint(sorted({m.split('.')[0] for m in sys.modules}))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.replace("'", '"'))


def test_a_worker_counting_parts_does_not_import_scipy() -> None:
    # what a spawned worker imports to unpickle its task (count_part, Part) and count
    loaded = _imported("import maumau_log.audit.parts")
    assert "polars" in loaded
    assert "scipy" not in loaded


def test_the_audit_command_loads_scipy_only_to_run_its_tests() -> None:
    loaded = _imported("import maumau_log.cli.audit_cmds")
    assert "scipy" not in loaded
    assert "plotly" not in loaded


def _tamper(dataset: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the dataset whose audit_events file has one byte changed (same size)."""
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    (rel,) = read_manifest(ds).files["audit_events"][:1]
    info = read_manifest(ds).file_info[rel]
    path = ds / rel
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    return ds, path, {"want": info["sha256"], "got": file_sha256(path)}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_changed_facts_file_is_refused_before_any_part_is_read(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    ds, path, sums = _tamper(dataset, tmp_path)
    counted: list[Part] = []
    monkeypatch.setattr(parts_mod, "count_part", lambda root, part: counted.append(part))
    result = runner.invoke(app, ["audit", str(ds), "--jobs", jobs])
    assert result.exit_code == 2
    assert " ".join(result.output.split()) == (
        f"error: {path}: changed: SHA-256 {sums['got'][:16]}..., the manifest recorded "
        f"{sums['want'][:16]}...; the dataset is damaged and nothing was read from it "
        f"(maumau-log verify {ds} checks it all)"
    )
    assert counted == []


def pool_size(root: object, part: object) -> int:
    """A part counter that reports the worker's Polars thread pool instead."""
    import polars as pl

    return pl.thread_pool_size()


@pytest.mark.parametrize(("given", "want"), [(None, max(1, default_jobs() // 2)), ("3", 3)])
def test_two_workers_share_the_cores_among_their_polars_threads(
    dataset: Path, monkeypatch: pytest.MonkeyPatch, given: str | None, want: int
) -> None:
    if given is None:
        monkeypatch.delenv("POLARS_MAX_THREADS", raising=False)
    else:
        monkeypatch.setenv("POLARS_MAX_THREADS", given)  # the user's choice is kept
    monkeypatch.setattr(parts_mod, "count_part", pool_size)
    parts = plan_parts(dataset, check_files(dataset).files, part_games=100)
    assert set(parts_mod._run(dataset, parts, 2, "local", None)) == {want}
