"""The first-copy rule on game ids (FORMAT.md Files), decided in one place
(:class:`maumau_log.run.merge.FirstCopy`): the first copy an ingest meets of an id is
stored, a later one with the same content hash is a duplicate, with other content a
conflict; "met" is the dataset's games or an earlier game of the ingest, in input order.

The property test checks the rule part by part against a plain reading of it (a dict of
the ids met, the ingest's loop as it ran in the ingest's own process before the rule
moved into its own module), over random parts with repeated ids, same and different
content, and ids the dataset already holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from maumau_log.run.ingest import ingest
from maumau_log.run.merge import FirstCopy, LocalMerges, PartMerge
from maumau_log.run.shard import GameOutcome
from maumau_log.store.known import KnownGames
from maumau_log.store.rows import Conflict
from maumau_log.violations import Violation

IDS = ["g1", "g2", "g3", "g4", "\udc80odd"]  # a lone surrogate: kept exactly (JSON allows it)


def outcome(key: str, content: int, file: str, line: int, bad: bool, match: str | None) -> Any:
    violation = None
    if bad:
        violation = Violation(file=file, line=line + 1, game_id=key, event_index=1,
                              player="ann", code="wrong_player", rule="RULES.md Turn order",
                              message="not ann's turn")  # fmt: skip
    return GameOutcome(file, line, key, key, True, 3, violation, [], content, match)


@st.composite
def ingests(draw: Any) -> tuple[dict[str, tuple[int, str, int]], list[list[Any]]]:
    """Games the dataset holds and the parts of an ingest, in input order."""
    stored = {
        key: (draw(st.integers(1, 3)), "old.jsonl", 10 * k + 1)
        for k, key in enumerate(draw(st.lists(st.sampled_from(IDS), unique=True, max_size=3)))
    }
    parts = []
    line = 1
    for p in range(draw(st.integers(1, 5))):
        part = []
        for _ in range(draw(st.integers(0, 6))):
            key = draw(st.sampled_from(IDS))
            content = draw(st.integers(1, 3))
            match = draw(st.sampled_from([None, "m1", "m2"]))
            part.append(outcome(key, content, f"in{p}.jsonl", line, draw(st.booleans()), match))
            line += 7
        parts.append(part)
    return stored, parts


def reference(stored: dict[str, tuple[int, str, int]], parts: list[list[Any]]) -> list[PartMerge]:
    """The rule read plainly: the ingest's per-part loop with a dict of the ids met."""
    known = dict(stored)
    out = []
    for games in parts:
        m = PartMerge()
        before_part = {g.key: known[g.key] for g in games if g.key in known}
        new: dict[str, tuple[int, str, int]] = {}
        for g in games:
            m.games += 1
            m.events += g.events
            if g.violation is not None:
                m.invalid += 1
                m.violations.append(g.violation)
            m.game_ids.append(g.key)
            before = before_part.get(g.key)
            seen = before or new.get(g.key)
            if seen is not None:
                if seen[0] == g.content_hash:
                    m.duplicates += 1
                else:
                    m.conflicts.append(Conflict(g.key, g.file, g.line, seen[1], seen[2]))
                if before is not None:
                    m.drop.add(g.key)
                continue
            new[g.key] = (g.content_hash, g.file, g.line)
            m.added += 1
            if g.match_id is not None:
                m.touched.add(g.match_id)
        known.update(new)
        out.append(m)
    return out


@settings(max_examples=300)
@given(ingests())
def test_first_copy_merges_every_part_as_the_rule_reads(case: Any) -> None:
    stored, parts = case
    reported: list[str] = []
    with KnownGames(cache_kib=64) as known:
        known.add(stored)
        rule = FirstCopy(known, keep_game_ids=True, on_report=lambda g: reported.append(g.key))
        got = [rule.merge(games) for games in parts]
    assert got == reference(stored, parts)
    assert reported == [g.key for games in parts for g in games]


def test_a_repeated_id_is_a_duplicate_or_a_conflict_and_only_the_first_copy_is_stored() -> None:
    """By hand: the dataset holds g1 (content 5); part one reads g1 again (same content),
    g2 and g2 again with other content; part two reads g2 (as first read) and g3 twice."""
    with KnownGames() as known:
        known.add({"g1": (5, "old.jsonl", 1)})
        rule = FirstCopy(known)
        one = rule.merge(
            [
                outcome("g1", 5, "a", 1, False, None),
                outcome("g2", 7, "a", 9, False, "m"),
                outcome("g2", 8, "a", 20, True, None),
            ]
        )
        two = rule.merge(
            [
                outcome("g2", 7, "b", 1, False, None),
                outcome("g3", 1, "b", 9, False, None),
                outcome("g3", 1, "b", 30, False, None),
            ]
        )
        assert known.lookup(["g1", "g2", "g3"]) == {
            "g1": (5, "old.jsonl", 1), "g2": (7, "a", 9), "g3": (1, "b", 9)
        }  # fmt: skip
    assert (one.games, one.added, one.duplicates, one.invalid) == (3, 1, 1, 1)
    assert one.conflicts == [Conflict("g2", "a", 20, "a", 9)]
    assert one.drop == {"g1"}  # g2's second copy: its part kept the first copy's rows only
    assert one.touched == {"m"} and one.game_ids == []
    assert (two.games, two.added, two.duplicates, two.conflicts) == (3, 1, 2, [])
    assert two.drop == {"g2"}  # stored by an earlier part: its rows in this part go


def test_local_merges_reads_a_chunks_outcomes_once_from_the_staging_folder(tmp_path: Path) -> None:
    from maumau_log.run.plan import Shard
    from maumau_log.run.runners import ChunkStager
    from maumau_log.run.shard import ShardResult

    stager = ChunkStager(str(tmp_path), "x", 0)
    chunks = [stager([outcome("g1", 1, "a", 1, False, None)], {}),
              stager([outcome("g1", 2, "a", 9, False, None)], {})]  # fmt: skip
    res = ShardResult(Shard(0, "a"), chunks=chunks)
    merges = LocalMerges(tmp_path / "no-dataset")
    try:
        parts = list(merges.parts(res, tmp_path))
    finally:
        merges.close()
    assert [(p.added, p.conflicts) for p, _, _ in parts] == [
        (1, []), (0, [Conflict("g1", "a", 9, "a", 1)])
    ]  # fmt: skip
    assert not any((tmp_path / c.outcomes).exists() for c in chunks)


def test_the_ingest_reports_the_same_games_through_the_merge(tmp_path: Path) -> None:
    """A log of the sample's games, then the same log with one game's content changed:
    the second ingest stores nothing, counts the unchanged games as duplicates and the
    changed one as a conflict (exit 1)."""
    from maumau_log.bots.sim import simulate, write_games

    log = tmp_path / "a.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 3, 5, seed=3, id_prefix="c"), fh)
    first = ingest([log], tmp_path / "ds", keep_game_ids=False)
    assert (first.games, first.added, first.duplicates, first.game_ids) == (5, 5, 0, [])
    lines = log.read_text().splitlines()
    lines[0] = lines[0].replace('"meta":{', '"meta":{"note":1,', 1)
    changed = tmp_path / "b.jsonl"
    changed.write_text("\n".join(lines) + "\n")
    again = ingest([changed], tmp_path / "ds")
    assert (again.games, again.added, again.duplicates) == (5, 0, 4)
    [c] = again.conflicts
    assert (c.file, c.line, c.stored_file, c.stored_line) == (str(changed), 1, str(log), 1)
    assert (
        again.game_ids == [g for g in again.game_ids if g.startswith("c")]
        and len(again.game_ids) == 5
    )
    assert again.exit_code == 1
