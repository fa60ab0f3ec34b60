"""Duplicate and conflicting game ids in bounded memory: the on-disk tally equals
the in-memory count, across files and shards, with any batch size."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from gamebuilder import simulated_lines
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import maumau_log.api.validation
import maumau_log.cli.replay_cmds
from maumau_log.cli import app
from maumau_log.replay.game_ids import GameIdTally, repeated_in_memory
from maumau_log.run.ingest import ingest
from maumau_log.run.shard import plan_shards
from maumau_log.store import known_games
from maumau_log.store.known import KnownGames

runner = CliRunner()


def _tally(games: list[tuple[str, int | None, str, int | None]], batch: int) -> GameIdTally:
    tally = GameIdTally(batch=batch, cache_kib=64)
    for gid, h, file, line in games:
        tally.add(gid, h, file, line)
    return tally


def test_hand_made_duplicates_and_conflicts() -> None:
    games = [
        ("g2", 7, "a.jsonl", 1),
        ("g1", 5, "a.jsonl", 9),
        ("g2", 7, "b.jsonl", 1),  # the same game again: a duplicate, no conflict
        ("g3", 1, "a.jsonl", 20),
        ("g3", 2, "b.jsonl", 30),  # other content: a conflict
        ("g3", 1, "c.jsonl", 5),  # content 1 again: its first place stays a.jsonl:20
        ("g4", None, "a.jsonl", 40),
        ("g4", None, "b.jsonl", 41),  # no content hash: a duplicate only
        ("g10", 3, "b.jsonl", 50),
        ("g10", 4, "a.jsonl", 60),
    ]
    want = (
        ["g10", "g2", "g3", "g4"],
        {"g10": ["a.jsonl:60", "b.jsonl:50"], "g3": ["a.jsonl:20", "b.jsonl:30"]},
    )
    for batch in (1, 2, 3, 100):
        assert _tally(games, batch).repeated() == want
    assert repeated_in_memory(games) == want


def test_no_repeats_and_empty() -> None:
    assert GameIdTally().repeated() == ([], {})
    assert _tally([("a", 1, "f", 1), ("b", 1, "f", 2)], 1).repeated() == ([], {})


def test_ids_that_differ_only_in_bytes_are_never_one() -> None:
    """Exact ids, no hash: a lone surrogate (from JSON \\ud800), NUL and case all count."""
    games = [("a\ud800", 1, "f", 1), ("a", 2, "f", 2), ("A", 3, "f", 3), ("a\x00", 4, "f", 4)]
    assert _tally(games, 1).repeated() == ([], {})
    both = [*games, ("a\ud800", 9, "g", 1)]
    assert _tally(both, 2).repeated() == (["a\ud800"], {"a\ud800": ["f:1", "g:1"]})


ids = st.sampled_from(["g1", "g2", "g3", "G1", "é", "g1 ", "\ud800", ""]) | st.text(max_size=3)
games_strategy = st.lists(
    st.tuples(
        ids,
        st.none() | st.integers(-(2**63), 2**63 - 1) | st.sampled_from([0, 1, -1]),
        st.sampled_from(["a.jsonl", "b.jsonl", "dir/c.jsonl.gz"]),
        st.none() | st.integers(1, 10**6),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(games=games_strategy, batch=st.integers(1, 7))
def test_tally_equals_the_counter(
    games: list[tuple[str, int | None, str, int | None]], batch: int
) -> None:
    tally = _tally(games, batch)
    assert tally.repeated() == repeated_in_memory(games)
    tally.add("late", 1, "z", 1)  # adding after a result gives a fresh result
    tally.add("late", 2, "z", 2)
    assert tally.repeated() == repeated_in_memory(
        [*games, ("late", 1, "z", 1), ("late", 2, "z", 2)]
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_validate_across_files_and_shards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    """Two files, the first cut into several shards: the copies and conflicts are found
    across shards and files, with the places of each content's first copy."""
    a, b, c = (
        simulated_lines(5, game_id="x"),
        simulated_lines(6, game_id="x"),
        simulated_lines(7, game_id="y"),
    )
    other = simulated_lines(8, game_id="z")
    first = [*a, *other, *c, *a]  # x at 1, z, y, x again (same content)
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"\n".join(first) + b"\n")
    two = tmp_path / "two.jsonl"
    two.write_bytes(b"\n".join([*b, *c]) + b"\n")  # x with other content, y again
    small = functools.partial(plan_shards, shard_bytes=200)
    monkeypatch.setattr(maumau_log.api.validation, "plan_shards", small)
    assert len(small([one])) >= 3  # the first file is really cut
    res = runner.invoke(app, ["validate", str(one), str(two), "--json", "--jobs", jobs])
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"]) == (6, 6)
    assert doc["duplicate_game_ids"] == ["x", "y"]
    assert doc["conflicting_game_ids"] == {"x": [f"{one}:1", f"{two}:1"]}
    assert res.exit_code == 1  # a conflict


def test_known_games_lookup_add_and_replace() -> None:
    with KnownGames(cache_kib=64) as known:
        assert known.lookup(["a"]) == {}
        known.add({"a": (1, "f.jsonl", 3), "b\ud800": (-(2**63), "g.jsonl", 1)})
        known.add({"a": (2, "h.jsonl", 9)})  # as a dict: the later entry
        ids = [f"x{i}" for i in range(1200)]  # more than one lookup query
        known.add({gid: (i, "many.jsonl", i + 1) for i, gid in enumerate(ids)})
        assert known.lookup(["a", "b\ud800", "b", "x1199", "x0", "a"]) == {
            "a": (2, "h.jsonl", 9),
            "b\ud800": (-(2**63), "g.jsonl", 1),
            "x1199": (1199, "many.jsonl", 1200),
            "x0": (0, "many.jsonl", 1),
        }
        assert len(known.lookup(ids)) == 1200


def test_known_games_load_equals_known_games(tmp_path: Path) -> None:
    """Loaded from a dataset, the same entries as :func:`store.known_games`' dict."""
    logs = tmp_path / "logs.jsonl"
    games = [
        simulated_lines(5, game_id="p"),
        simulated_lines(6, game_id="q"),
        simulated_lines(7, game_id="r"),
    ]
    logs.write_bytes(b"\n".join(line for g in games for line in g) + b"\n")
    ingest([logs], tmp_path / "ds")
    want = known_games(tmp_path / "ds")
    assert sorted(want) == ["p", "q", "r"] and want["q"][1:] == (str(logs), len(games[0]) + 1)
    with KnownGames() as known:
        known.load(tmp_path / "ds")
        assert known.lookup(["p", "q", "r", "s"]) == want
        known.load(tmp_path / "nothing")  # no dataset yet: nothing to add
        assert known.lookup(["s"]) == {}


def test_ingest_duplicates_and_conflicts_across_shards_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Repeats inside a shard, across shards and against the stored games of an earlier
    ingest: counted and reported as before the on-disk index (first copy wins)."""
    a, a2, c = (
        simulated_lines(5, game_id="x"),
        simulated_lines(6, game_id="x"),
        simulated_lines(7, game_id="y"),
    )
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"\n".join([*a, *a, *c, *a2]) + b"\n")
    first = ingest([one], tmp_path / "ds", shard_bytes=200)
    assert (first.games, first.added, first.duplicates) == (4, 2, 1)
    assert [(k.game_id, k.line) for k in first.conflicts] == [("x", 2 * len(a) + len(c) + 1)]
    assert [(k.stored_file, k.stored_line) for k in first.conflicts] == [(str(one), 1)]
    assert first.game_ids == ["x", "x", "y", "x"]
    two = tmp_path / "two.jsonl"
    two.write_bytes(b"\n".join([*c, *a2, *simulated_lines(8, game_id="z")]) + b"\n")
    again = ingest([two], tmp_path / "ds", keep_game_ids=False)
    assert (again.games, again.added, again.duplicates, len(again.conflicts)) == (3, 1, 1, 1)
    assert (again.conflicts[0].stored_file, again.conflicts[0].stored_line) == (str(one), 1)
    assert again.game_ids == []
    assert sorted(known_games(tmp_path / "ds")) == ["x", "y", "z"]
