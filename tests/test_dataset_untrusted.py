"""A dataset folder is untrusted input: no symbolic link inside it is followed, no path the
manifest names leaves it, and nothing outside it is written or deleted
(:mod:`maumau_log.store.paths`).

Each attack is the one a hostile dataset can carry: a ``.lock`` that links to a file of
the user's, a table folder that links to another dataset (whose files the clean-up of
leftovers would delete), a manifest entry ``games/.../../../<elsewhere>`` with the right
size and SHA-256 (which ``compact`` would merge in and delete). Every command refuses
with exit 2 and names the link or the entry; the targets stay byte for byte as they were.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.compact_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.verify_cmds  # noqa: F401  (registers the commands)
from maumau_log import store
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest
from maumau_log.store.paths import ENTRY, check_entry, parquet_files, remove_file

runner = CliRunner()

LINK = "a symbolic link inside the dataset; maumau-log does not follow links"


@pytest.fixture
def dataset(tmp_path: Path, logs: Path) -> Path:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    return ds


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """Another dataset, the one a link in ``dataset`` points into."""
    log = tmp_path / "other.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("standard", 3, 4, seed=2), fh)
    ds = tmp_path / "other"
    ingest([log], ds)
    return ds


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _commands(ds: Path, log: Path) -> list[list[str]]:
    """Every command that reads or writes a dataset."""
    return [
        ["ingest", str(log), "--out", str(ds), "--no-progress"],
        ["compact", str(ds)],
        ["verify", str(ds)],
        ["stats", str(ds)],
        ["query", str(ds), "select count(*) from games"],
        ["game", str(ds), "g1"],
        ["match", str(ds), "m"],
        ["audit", str(ds)],
    ]


def _refused_by_all(ds: Path, log: Path, text: str) -> None:
    for args in _commands(ds, log):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        assert text in " ".join(res.output.split()), (args, res.output)
        assert "Traceback" not in res.output and "internal error" not in res.output


def test_lock_that_is_a_symlink_is_refused_and_its_target_untouched(
    dataset: Path, logs: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (dataset / ".lock").unlink()
    (dataset / ".lock").symlink_to(victim)
    for args in (["ingest", str(logs), "--out", str(dataset)], ["compact", str(dataset)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        text = " ".join(res.output.split())
        assert f"{dataset}/.lock: {LINK}" in text
        assert "has not touched its target" in text
    assert victim.read_text() == "precious\n"  # before: truncated to the ingest's pid


def test_lock_that_is_a_hard_link_to_another_file_is_refused(
    dataset: Path, logs: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (dataset / ".lock").unlink()
    os.link(victim, dataset / ".lock")
    res = runner.invoke(app, ["ingest", str(logs), "--out", str(dataset)])
    assert res.exit_code == 2
    assert f"{dataset}/.lock: not a plain file of this dataset (a hard link to another file)" in (
        " ".join(res.output.split())
    )
    assert victim.read_text() == "precious\n"


def test_symlinked_table_folder_is_refused_and_the_other_dataset_untouched(
    dataset: Path, other: Path, logs: Path
) -> None:
    # the manifest lists no matches file: before, ingest's clean-up of unlisted files
    # walked through the link and deleted the other dataset's events files (exit 0)
    before = _snapshot(other)
    (dataset / "matches").symlink_to(other / "events", target_is_directory=True)
    _refused_by_all(dataset, logs, f"{dataset}/matches: {LINK}")
    assert _snapshot(other) == before


def test_symlinked_partition_folder_is_refused(dataset: Path, logs: Path, tmp_path: Path) -> None:
    part = dataset / "games" / "ruleset=classic" / "date=unknown"
    moved = tmp_path / "elsewhere"
    shutil.move(part, moved)
    part.symlink_to(moved, target_is_directory=True)
    before = _snapshot(moved)
    _refused_by_all(dataset, logs, f"{part}: {LINK}")
    assert _snapshot(moved) == before


def test_symlinked_data_file_is_refused(dataset: Path, logs: Path, tmp_path: Path) -> None:
    (rel,) = store.read_manifest(dataset).files["results"][:1]
    moved = tmp_path / "results.parquet"
    shutil.move(dataset / rel, moved)
    (dataset / rel).symlink_to(moved)
    before = moved.read_bytes()
    _refused_by_all(dataset, logs, f"{dataset / rel}: {LINK}")
    assert moved.read_bytes() == before


def test_manifest_that_is_a_symlink_is_refused(dataset: Path, tmp_path: Path) -> None:
    real = tmp_path / "manifest.json"
    shutil.move(dataset / store.MANIFEST, real)
    (dataset / store.MANIFEST).symlink_to(real)
    res = runner.invoke(app, ["stats", str(dataset)])
    assert res.exit_code == 2
    assert f"{dataset / store.MANIFEST}: {LINK}" in " ".join(res.output.split())


def _add_entry(ds: Path, table: str, rel: str, target: Path) -> None:
    """List ``rel`` in the manifest with ``target``'s true size and SHA-256."""
    doc = json.loads((ds / store.MANIFEST).read_text())
    doc["files"][table].append(rel)
    doc["file_info"][rel] = {"bytes": target.stat().st_size, "sha256": store.file_sha256(target)}
    (ds / store.MANIFEST).write_text(json.dumps(doc))


def test_manifest_entry_leaving_the_dataset_is_refused_and_the_file_untouched(
    dataset: Path, other: Path, logs: Path
) -> None:
    (target_rel,) = store.read_manifest(other).files["games"]
    target = other / target_rel
    rel = f"games/ruleset=classic/date=unknown/../../../../{other.name}/{target_rel}"
    assert (dataset / rel).resolve() == target.resolve()  # it names the other file
    _add_entry(dataset, "games", rel, target)
    before = _snapshot(other)
    # before: verify and query read it; compact merged it in and deleted it (exit 0)
    _refused_by_all(
        dataset,
        logs,
        f"{dataset / store.MANIFEST}: the entry '{rel}' of table 'games' is not a file of this "
        "dataset (each is games/ruleset=R/date=D/NAME.parquet, a relative path without '..')",
    )
    assert _snapshot(other) == before


@pytest.mark.parametrize(
    "rel",
    [
        "/etc/passwd",
        "games/../games/ruleset=classic/date=unknown/x.parquet",
        "games/ruleset=classic/date=unknown/./x.parquet",
        "games/ruleset=classic//date=unknown/x.parquet",
        "games/ruleset=../date=unknown/x.parquet",
        "results/ruleset=classic/date=unknown/x.parquet",  # listed under another table
        "games/ruleset=classic/date=unknown/sub/x.parquet",
        "games/ruleset=classic/date=unknown/x.csv",
    ],
)
def test_manifest_entries_that_are_not_plain_paths_of_their_table(rel: str) -> None:
    with pytest.raises(store.DatasetError, match="is not a file of this dataset"):
        check_entry(Path("ds/maumau-dataset.json"), "games", rel)


def test_every_entry_maumau_log_writes_is_a_plain_path(dataset: Path) -> None:
    manifest = store.read_manifest(dataset)
    listed = [(t, rel) for t, rels in manifest.files.items() for rel in rels]
    assert listed and all(
        (m := ENTRY.fullmatch(rel)) is not None and m["table"] == t for t, rel in listed
    )


def test_clean_up_deletes_unlisted_files_only_inside_the_dataset(
    dataset: Path, other: Path, logs: Path
) -> None:
    stray = dataset / "events" / "ruleset=classic" / "date=unknown" / "part-crashed.parquet"
    stray.write_bytes(b"left by a crash")
    leftover = dataset / ".tmp-0123456789abcdef"
    (leftover / "games").mkdir(parents=True)
    (leftover / "games" / "x.parquet").write_bytes(b"half written")
    (leftover / "outside").symlink_to(other, target_is_directory=True)
    before = _snapshot(other)
    assert ingest([logs], dataset).duplicates == 3
    assert not stray.exists() and not leftover.exists()
    assert _snapshot(other) == before  # the link inside the leftover was not followed


def test_leftover_that_is_a_symlink_is_refused(dataset: Path, other: Path, logs: Path) -> None:
    (dataset / ".tmp-0123456789abcdef").symlink_to(other, target_is_directory=True)
    before = _snapshot(other)
    res = runner.invoke(app, ["ingest", str(logs), "--out", str(dataset)])
    assert res.exit_code == 2
    assert f"{dataset}/.tmp-0123456789abcdef: {LINK}" in " ".join(res.output.split())
    assert _snapshot(other) == before


def test_walk_and_remove_never_follow_links(dataset: Path, other: Path) -> None:
    rels = sorted(parquet_files(dataset))
    assert rels == sorted(f for fs in store.read_manifest(dataset).files.values() for f in fs)
    (dataset / "games" / "ruleset=x").symlink_to(other / "games", target_is_directory=True)
    with pytest.raises(store.DatasetError, match="ruleset=x: a symbolic link"):
        list(parquet_files(dataset))
    (other_rel,) = store.read_manifest(other).files["games"]
    via_link = "games/ruleset=x/" + other_rel.split("/", 1)[1]
    assert (dataset / via_link).exists()  # the path leads into the other dataset
    with pytest.raises(store.DatasetError, match="ruleset=x: a symbolic link"):
        remove_file(dataset, via_link)
    assert (other / other_rel).exists()
