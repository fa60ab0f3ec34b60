"""A changed bit in a data file is an error, not an answer (:mod:`maumau_log.store.integrity`).

Reads for answers check each table's files against the SHA-256 the manifest recorded
before Polars reads them; rewrites (``compact``, an ingest that recomputes match totals)
check every file they read, so a changed bit is never rewritten under a fresh checksum;
files carry Parquet page checksums that the pyarrow reads verify. Before, 24 of 150
random single-bit flips changed ``stats``/``query`` answers silently
(``bench/bench_bitflips.py``), and ``compact`` laundered a flipped bit.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_matches_data import _rounds, _write
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.compact_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.verify_cmds  # noqa: F401  (registers the commands)
from maumau_log import store
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest

runner = CliRunner()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def many(tmp_path: Path) -> Path:
    """Three small ingests of standard games (three files per table to merge)."""
    ds = tmp_path / "ds"
    for k in range(3):
        log = tmp_path / f"g{k}.jsonl"
        with open(log, "wb") as fh:
            write_games(simulate("standard", 3, 6, seed=k + 1), fh)
        ingest([log], ds)
    return ds


def _flip(path: Path, at: int, bit: int = 0) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 1 << bit
    path.write_bytes(bytes(data))


def _snapshot(ds: Path) -> dict[str, bytes]:
    return {
        p.relative_to(ds).as_posix(): p.read_bytes()
        for p in sorted(ds.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def test_compact_refuses_a_changed_bit_and_verify_still_reports_it(many: Path) -> None:
    manifest = store.read_manifest(many)
    rel = manifest.files["results"][1]
    path = many / rel
    _flip(path, path.stat().st_size // 2)  # same size: only the SHA-256 tells
    before = _snapshot(many)
    res = runner.invoke(app, ["compact", str(many)])
    assert res.exit_code == 2, res.output  # before: exit 0, the flipped bit rewritten
    text = _flat(res.output)
    assert f"{path}: changed: SHA-256 " in text and "the manifest recorded" in text
    assert _snapshot(many) == before  # nothing published, nothing deleted
    res = runner.invoke(app, ["verify", str(many), "--json"])
    assert res.exit_code == 1
    (problem, *_) = json.loads(res.stdout)["problems"]
    assert problem["where"] == rel and problem["message"].startswith("changed: SHA-256 ")


def test_changed_bit_in_results_is_an_error_for_stats_and_query(many: Path) -> None:
    path = many / store.read_manifest(many).files["results"][0]
    gid = pq.read_table(path, columns=["game_id"]).column(0)[0].as_py()
    _flip(path, path.stat().st_size // 2, 3)
    for args in (
        ["stats", str(many)],
        ["stats", str(many), "--format", "json", "--include-invalid"],
        ["query", str(many), "select player, sum(cards_left) from results group by player"],
        ["game", str(many), gid],
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, (args, res.output)
        text = _flat(res.output)
        assert f"{path}: changed: SHA-256 " in text, (args, text)
        assert f"maumau-log verify {many}" in text
    # a query of another table does not read (nor hash) results: it answers
    res = runner.invoke(app, ["query", str(many), "select count(*) as n from games"])
    assert res.exit_code == 0 and "18" in res.output


def _answers(ds: Path) -> list[tuple[int, str]]:
    out = []
    for args in (
        ["stats", str(ds), "--format", "json", "--include-invalid"],
        *(
            ["query", str(ds), f"select * from {t}", "--format", "json"]
            for t in ("games", "results", "events", "violations")
        ),
    ):
        res = runner.invoke(app, args)
        out.append((res.exit_code, res.stdout if res.exit_code == 0 else _flat(res.output)))
    return out


def test_random_bit_flips_are_errors_naming_the_file_never_other_answers(
    tmp_path: Path,
) -> None:
    """Eight flips of one random bit of one random data file (seed 25): every answer is
    the same or exit 2 naming the file; bench/bench_bitflips.py runs 150 (24 silent
    changes before, 0 after)."""
    ds = tmp_path / "ds"
    ingest([write_log(tmp_path / "hand.jsonl", hand_games())], ds)
    before = _answers(ds)
    assert all(code == 0 for code, _ in before)
    files = [p for _, p in store.iter_files(ds)]
    rng = random.Random(25)
    errors = 0
    for _ in range(8):
        path = rng.choice(files)
        original = path.read_bytes()
        _flip(path, rng.randrange(len(original)), rng.randrange(8))
        try:
            after = _answers(ds)
        finally:
            path.write_bytes(original)
        for (code, text), (_, was) in zip(after, before, strict=True):
            if code == 0:
                assert text == was  # an answer is the true one
            else:
                assert code == 2 and f"{path}: changed: SHA-256 " in text, text
                errors += 1
    assert errors >= 8  # every flip reached at least one answer's table


def test_ingest_that_rewrites_results_refuses_a_changed_file(tmp_path: Path) -> None:
    """Rounds 2 and 3 first, then round 1: the second ingest rewrites the results files
    of rounds 2 and 3 (their running totals become known) and so checks them first."""
    rounds = _rounds()
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "late.jsonl", rounds[1:])], ds)
    (rel,) = store.read_manifest(ds).files["results"]
    _flip(ds / rel, (ds / rel).stat().st_size // 2, 5)
    before = _snapshot(ds)
    res = runner.invoke(app, ["ingest", str(_write(tmp_path / "r1.jsonl", rounds[:1])),
                              "--out", str(ds), "--no-progress"])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert f"{ds / rel}: changed: SHA-256 " in _flat(res.output)
    assert _snapshot(ds) == before


def test_files_carry_page_checksums_that_pyarrow_verifies(tmp_path: Path) -> None:
    """A flipped bit inside a data page that zstd still decompresses: read unverified it
    gives other values; read with page checksums verified it is an error."""
    table = pa.table({"game_id": [f"g{i % 7}" for i in range(2000)], "seat": list(range(2000))})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, **store.writer_options("results"))  # every table's options
    good = pq.read_table(path)
    data = path.read_bytes()
    found = 0
    for at in range(4, len(data) // 2):
        bad = bytearray(data)
        bad[at] ^= 1
        try:
            unverified = pq.read_table(pa.BufferReader(bytes(bad)))
        except (OSError, pa.ArrowException):
            continue
        if unverified.equals(good):
            continue
        with pytest.raises(OSError, match="CRC checksum verification failed"):
            pq.read_table(pa.BufferReader(bytes(bad)), page_checksum_verification=True)
        found += 1
    assert found > 0  # bits that would change values silently, caught by the CRC


def test_dataset_of_version_1_without_checksums_still_reads_and_compacts(
    many: Path,
) -> None:
    """Files as version 1 wrote them (narrow integers, no page checksums, version "1"):
    read widened, their SHA-256 still checked; compact rewrites them in version 2."""
    narrow = {
        "seat": pa.int8(), "cards_left": pa.int16(), "points_left": pa.int32(),
        "turns": pa.int16(), "total_after": pa.int32(), "n_players": pa.int8(),
        "source_line": pa.int32(), "line": pa.int32(), "pending_draw": pa.int16(),
    }  # fmt: skip
    manifest = store.read_manifest(many)
    for table, rels in manifest.files.items():
        for rel in rels:
            path = many / rel
            t = pq.read_table(path, partitioning=None)
            schema = pa.schema([pa.field(f.name, narrow.get(f.name, f.type)) for f in t.schema],
                               metadata={b"maumau_log.dataset_version": b"1",
                                         b"maumau_log.table": table.encode()})  # fmt: skip
            pq.write_table(t.cast(schema), path, compression="zstd")
            data = path.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            manifest.file_info[rel] = {"bytes": len(data), "sha256": digest}
    doc = json.loads(manifest.to_json())
    doc["version"] = 1
    (many / store.MANIFEST).write_text(json.dumps(doc))
    assert pq.read_schema(many / manifest.files["results"][0]).field("seat").type == pa.int8()
    old = many.parent / "old"
    shutil.copytree(many, old)
    board = runner.invoke(app, ["stats", str(many), "--format", "json"])
    assert board.exit_code == 0, board.output
    seats = runner.invoke(app, ["query", str(many), "select max(seat) as s from results",
                                "--format", "json"])  # fmt: skip
    assert json.loads(seats.stdout) == [{"s": 2}]
    assert runner.invoke(app, ["verify", str(many)]).exit_code == 0
    assert runner.invoke(app, ["compact", str(many)]).exit_code == 0
    (merged,) = store.read_manifest(many).files["results"]
    assert pq.read_schema(many / merged).field("seat").type == pa.int32()
    assert runner.invoke(app, ["stats", str(many), "--format", "json"]).stdout == board.stdout
    assert runner.invoke(app, ["verify", str(many)]).exit_code == 0
    # and a changed bit in an old file (no page checksums) is still caught by its SHA-256
    path = old / store.read_manifest(old).files["games"][0]
    _flip(path, path.stat().st_size // 2)
    res = runner.invoke(app, ["query", str(old), "select count(*) from games"])
    assert res.exit_code == 2 and f"{path}: changed: SHA-256" in _flat(res.output)
