"""A manifest is untrusted input: its file lists are checked before anything reads or
deletes by them (:func:`maumau_log.store.paths.check_file_map`,
:func:`maumau_log.store.integrity.check_file_info`).

A manifest that lists no files (``"files": null`` or ``{}``) would make the next ingest's
clean-up delete every stored file as a leftover; a file listed twice would be read twice
(every count doubled) and merged by ``compact`` under a fresh checksum; a file listed
without its size and SHA-256 would be read unchecked. Each is a damaged manifest: every
command refuses it with exit 2 and the stored files stay byte for byte as they were.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.compact_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.verify_cmds  # noqa: F401  (registers the commands)
from maumau_log import store
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest

runner = CliRunner()


@pytest.fixture
def dataset(tmp_path: Path, logs: Path) -> Path:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    return ds


def _flat(text: str) -> str:
    return " ".join(text.split())


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))
    }


def _edit(ds: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = ds / store.MANIFEST
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def _commands(ds: Path, new_log: Path) -> list[list[str]]:
    return [
        ["verify", str(ds)],
        ["stats", str(ds)],
        ["query", str(ds), "select count(*) from results"],
        ["game", str(ds), "g1"],
        ["audit", str(ds)],
        ["compact", str(ds)],
        ["ingest", str(new_log), "--out", str(ds)],
    ]


def _refused_by_all(ds: Path, tmp_path: Path, why: str) -> None:
    new_log = tmp_path / "new.jsonl"
    with open(new_log, "wb") as fh:
        write_games(simulate("standard", 3, 2, seed=5), fh)
    before = _snapshot(ds)
    assert len(before) == 17
    for args in _commands(ds, new_log):
        res = runner.invoke(app, args)
        out = _flat(res.output)
        assert res.exit_code == 2, (args, res.output)
        assert f"{ds / store.MANIFEST}: damaged manifest: {why}" in out, (args, out)
        assert "Traceback" not in res.output
    assert _snapshot(ds) == before  # nothing deleted, nothing rewritten


@pytest.mark.parametrize(
    ("files", "why"),
    [
        (None, "'files' is null, not an object of the tables' file lists"),
        ({}, "'files' of table 'games' is missing (version 2 lists every table"),
        ([], "'files' is list, not an object of the tables' file lists"),
    ],
)
def test_manifest_without_file_lists_is_refused_and_no_file_deleted(
    dataset: Path, tmp_path: Path, files: Any, why: str
) -> None:
    _edit(dataset, lambda doc: doc.update(files=files))
    _refused_by_all(dataset, tmp_path, why)


def test_manifest_missing_one_table_or_with_a_non_list_is_damaged(
    dataset: Path, tmp_path: Path
) -> None:
    _edit(dataset, lambda doc: doc["files"].pop("matches"))
    res = runner.invoke(app, ["verify", str(dataset)])
    assert res.exit_code == 2
    assert "damaged manifest: 'files' of table 'matches' is missing" in _flat(res.output)
    _edit(dataset, lambda doc: doc["files"].update(matches=[], events="events/x.parquet"))
    _refused_by_all(dataset, tmp_path, "'files' of table 'events' is not a list of file paths")


def test_file_listed_twice_is_damaged_for_readers_and_compact(
    dataset: Path, tmp_path: Path
) -> None:
    first = store.read_manifest(dataset).files["results"][0]
    _edit(dataset, lambda doc: doc["files"]["results"].append(first))
    _refused_by_all(dataset, tmp_path, f"the file {first!r} is listed twice")


def test_file_without_recorded_size_or_sha256_is_damaged(dataset: Path, tmp_path: Path) -> None:
    rel = store.read_manifest(dataset).files["games"][0]
    _edit(dataset, lambda doc: doc["file_info"].pop(rel))
    _refused_by_all(dataset, tmp_path, f"the file {rel!r} has no recorded size in 'file_info'")
    _edit(dataset, lambda doc: doc["file_info"].update({rel: {"bytes": 10}}))
    res = runner.invoke(app, ["verify", str(dataset)])
    assert res.exit_code == 2
    assert f"damaged manifest: the file {rel!r} has no recorded SHA-256" in _flat(res.output)


def test_new_dataset_of_zero_games_lists_every_table_and_reads(tmp_path: Path) -> None:
    """What the writer writes for zero games: every table with an empty list."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    ds = tmp_path / "ds"
    ingest([empty], ds)
    doc = json.loads((ds / store.MANIFEST).read_text())
    assert doc["files"] == {t: [] for t in store.ALL_TABLES}
    res = runner.invoke(app, ["query", str(ds), "select count(*) as n from games",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"n": 0}]
    assert runner.invoke(app, ["verify", str(ds)]).exit_code == 0


def test_version_1_manifest_without_checksums_or_later_tables_reads_and_ingest_records_them(
    dataset: Path, tmp_path: Path
) -> None:
    """A version-1 manifest may lack the later tables and the checksums; an ingest into it
    records the SHA-256 of the files it keeps, as version 2 does for every file."""

    def old(doc: dict[str, Any]) -> None:
        doc["version"] = 1
        del doc["file_info"]
        for table in ("matches", "audit_games", "audit_seats", "audit_events"):
            doc["files"].pop(table)

    _edit(dataset, old)
    res = runner.invoke(app, ["query", str(dataset), "select count(*) as n from games",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"n": 3}]
    more = write_log(tmp_path / "more.jsonl", [hand_games()[0]])
    new_log = tmp_path / "new.jsonl"
    with open(new_log, "wb") as fh:
        write_games(simulate("standard", 3, 1, seed=5), fh)
    ingest([more, new_log], dataset)
    doc = json.loads((dataset / store.MANIFEST).read_text())
    assert doc["version"] == 2
    listed = [f for fs in doc["files"].values() for f in fs]
    assert sorted(doc["file_info"]) == sorted(listed)
    assert runner.invoke(app, ["verify", str(dataset)]).exit_code == 0
