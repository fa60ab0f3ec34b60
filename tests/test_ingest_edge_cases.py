"""Ingest edge cases: a game twice in one file is stored once, a game id met again with other
content keeps the first, a shard's outcome pickles every field, and a staged write error
without an errno keeps its text."""

from __future__ import annotations

import dataclasses
import errno
from pathlib import Path

import polars as pl
import pytest

import maumau_log.run.runners as runners_mod
from maumau_log.logs.lines import expand_paths
from maumau_log.run.ingest import ingest
from maumau_log.run.shard import GameOutcome, plan_shards
from maumau_log.store import DatasetError

SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "valid"
ONE = SAMPLE / "classic_2p_handwritten.jsonl"  # one game, t7-000123, 21 lines


def _rows(ds: Path, table: str) -> int:
    return sum(pl.read_parquet(f).height for f in ds.glob(f"{table}/**/*.parquet"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_game_twice_in_one_file_is_stored_once(tmp_path: Path, jobs: int) -> None:
    """A game repeated inside one shard was counted as added, but its rows were all dropped
    (the shard had kept the first copy only, and the parent dropped the id's rows)."""
    log = tmp_path / "twice.jsonl"
    log.write_bytes(ONE.read_bytes() * 2)
    s = ingest([log], tmp_path / "ds", jobs=jobs)
    assert (s.games, s.added, s.duplicates, s.conflicts) == (2, 1, 1, [])
    assert (_rows(tmp_path / "ds", "games"), _rows(tmp_path / "ds", "events")) == (1, 21)
    again = ingest([log], tmp_path / "ds", jobs=jobs)  # a re-run: nothing new, nothing lost
    assert (again.added, again.duplicates) == (0, 2)
    assert (_rows(tmp_path / "ds", "games"), _rows(tmp_path / "ds", "events")) == (1, 21)


def test_a_game_id_twice_with_other_content_keeps_the_first(tmp_path: Path) -> None:
    text = ONE.read_bytes()
    other = text.replace(b'"table":"7"', b'"table":"8"')  # same id, other content
    assert other != text
    log = tmp_path / "conflict.jsonl"
    log.write_bytes(text + other)
    s = ingest([log], tmp_path / "ds", jobs=1)
    assert (s.added, s.duplicates, len(s.conflicts)) == (1, 0, 1)
    assert s.conflicts[0].line == 22  # the second header
    games = pl.read_parquet(next((tmp_path / "ds").glob("games/**/*.parquet")))
    assert games.height == 1 and games["source_line"][0] == 1
    events = pl.concat([pl.read_parquet(f) for f in (tmp_path / "ds").glob("events/**/*.parquet")])
    header = events.filter(pl.col("event_index") == 0)["raw"][0]
    assert events.height == 21 and '"table":"7"' in header


def test_game_outcome_pickles_every_field() -> None:
    """``GameOutcome.__reduce__`` lists the fields by hand: a field added later must be
    added there too, or it is lost between processes."""
    names = [f.name for f in dataclasses.fields(GameOutcome)]
    g = GameOutcome(*range(len(names)))  # type: ignore[arg-type]
    cls, values = g.__reduce__()
    assert cls is GameOutcome and values == tuple(range(len(names)))


def test_a_staged_write_error_without_errno_keeps_its_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pyarrow raises ``OSError(message)`` with no errno: the ingest's error said
    ``[Errno None] None``. It now gives the message, exit 2's DatasetError, nothing stored."""

    def no_space(*_a: object, **_k: object) -> None:
        raise OSError("IOError: No space left on device (writing a Parquet page)")

    import pyarrow.parquet as pq

    monkeypatch.setattr(pq, "write_table", no_space)  # stage_tables imports it when run
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(2):  # two files: two shards, so the staged path runs (jobs 2)
        (logs / f"{i}.jsonl").write_bytes(ONE.read_bytes().replace(b"t7-000123", b"g%d" % i))
    (tmp_path / "stage").mkdir()  # the staging folder the worker sees
    task = runners_mod.ShardTask(None, True, None, stage=str(tmp_path / "stage"), stage_id="x")
    res = task(plan_shards(expand_paths([str(logs)]), 1 << 20, 1)[0])
    assert res.write is not None and res.write[1] is None  # type: ignore[union-attr]
    with pytest.raises(DatasetError) as info:
        ingest([logs], tmp_path / "ds", runner=lambda shards, t: iter([task(shards[0])]))
    assert "No space left on device (writing a Parquet page)" in str(info.value)
    assert "Errno None" not in str(info.value)
    assert errno.ENOSPC  # the errno-ful case keeps its words: tests/test_dataset_integrity.py
