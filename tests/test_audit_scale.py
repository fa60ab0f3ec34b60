"""Issue 11: the audit's streaming collection gives the same findings and p-values as the
in-memory collection it replaced, on a few thousand games.

:func:`_in_memory_collect` is the old collection, kept here as the reference: it read the
whole ``events`` table, sorted it and grouped it by game before replaying. The dataset is
made by several ingests (so several events files), with planted bias (timed bots, a quitter,
a peeking player), invalid games, match rounds, several rulesets and a compacted part.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import msgspec
import polars as pl
import pytest

from maumau_log import audit as audit_mod
from maumau_log.audit import audit
from maumau_log.audit_collect import _client, _Data, _GameFacts, _replay, collect
from maumau_log.compact import compact
from maumau_log.engine import RuleViolation
from maumau_log.records import ingest
from maumau_log.rules import Ruleset, RulesetError, resolve
from maumau_log.sim import _Table, simulate, simulate_matches, write_games
from maumau_log.sim_bias import PeekingTable, QuitterTable, add_times, simulate_with, write_jsonl
from maumau_log.store import scan_all


def _in_memory_collect(dataset: str | os.PathLike[str]) -> _Data:
    tables = scan_all(dataset)
    games = (
        tables["games"]
        .select(
            "game_id",
            "match_id",
            "round",
            "players",
            "n_players",
            "dealer",
            "valid",
            "violation_code",
            "winner",
            "options",
            "options_hash",
            "ruleset",
            "date",
        )
        .collect()
    )
    events = (
        tables["events"]
        .select("game_id", "event_index", "raw")
        .sort("game_id", "event_index")
        .collect()
    )
    raws_by_game: dict[str, list[str]] = {}
    for gid, part in events.group_by("game_id", maintain_order=True):
        raws_by_game[str(gid[0])] = part["raw"].to_list()
    clients = {gid: _client(raws[0] if raws else None) for gid, raws in raws_by_game.items()}
    # a label per (ruleset, options): the ruleset alone unless it appears with several
    variants: dict[str, set[str]] = defaultdict(set)
    for rs, oh in games.select("ruleset", "options_hash").unique().iter_rows():
        variants[rs].add(oh)
    rules_cache: dict[tuple[str, str], Ruleset | None] = {}
    facts: list[_GameFacts] = []
    winners: dict[tuple[str, int], str | None] = {}
    for mid, rnd, won in games.select("match_id", "round", "winner").iter_rows():
        if mid is not None and rnd is not None:
            winners[(mid, rnd)] = won
    for row in games.filter(pl.col("valid")).iter_rows(named=True):
        key = (row["ruleset"], row["options"])
        if key not in rules_cache:
            try:
                rules_cache[key] = resolve(row["ruleset"], None, json.loads(row["options"]))
            except (RulesetError, ValueError, TypeError):
                rules_cache[key] = None
        rules = rules_cache[key]
        raws = raws_by_game.get(row["game_id"])
        if rules is None or not raws:
            continue
        label = row["ruleset"]
        if len(variants[label]) > 1:
            label = f"{label}#{(row['options_hash'] or '')[:6]}"
        g = _GameFacts(row["game_id"], label, rules, list(row["players"]), 0, row["winner"])
        prev = None
        if row["match_id"] is not None and row["round"] is not None:
            prev = winners.get((row["match_id"], row["round"] - 1))
        try:
            _replay(g, raws, prev)
        except (RuleViolation, msgspec.DecodeError, ValueError, KeyError):
            continue
        facts.append(g)
    return _Data(games, facts, clients)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("auditscale")
    ds = tmp / "ds"
    logs = [
        write_jsonl(tmp / "timed.jsonl", add_times(simulate_with(_Table, "classic", 4, 700, 21),
                                                   21, bots={"p4"})),
        write_jsonl(tmp / "quit.jsonl", simulate_with(QuitterTable, "classic", 4, 500, 22)),
        write_jsonl(tmp / "peek.jsonl", simulate_with(PeekingTable, "classic", 3, 500, 23)),
    ]  # fmt: skip
    with open(tmp / "other.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 300, seed=24), fh)
        write_games(simulate("standard", 3, 200, seed=25, options={"hand_size": 6}), fh)
        write_games(simulate_matches("classic", 2, 4, seed=26), fh)
    with open(tmp / "fresh.jsonl", "wb") as fh:
        write_games(simulate("standard", 3, 40, seed=27), fh)
    lines = (tmp / "fresh.jsonl").read_bytes().splitlines(keepends=True)
    (tmp / "broken.jsonl").write_bytes(b"".join([*lines[:300], b"{oops\n", *lines[300:900]]))
    for log in logs:
        ingest([log], ds, jobs=1)
    compact(ds)  # the first three ingests into one file per table
    ingest([tmp / "other.jsonl", tmp / "broken.jsonl"], ds, jobs=2, shard_bytes=50_000)
    games = scan_all(ds)["games"].collect()
    assert games.height > 2000 and not games["valid"].all()
    return ds


def test_streaming_collection_equals_in_memory(dataset: Path) -> None:
    new = collect(dataset, batch_rows=1000)
    old = _in_memory_collect(dataset)
    assert new.games.equals(old.games)
    assert new.clients == old.clients
    assert [f.game_id for f in new.facts] == [f.game_id for f in old.facts]
    assert len(new.facts) > 2000
    for a, b in zip(new.facts, old.facts, strict=True):
        assert a == b


def test_same_findings_and_p_values(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new = audit(dataset).to_dict()
    monkeypatch.setattr(audit_mod, "collect", _in_memory_collect)
    old = audit(dataset).to_dict()
    assert json.dumps(new, sort_keys=True, default=str) == json.dumps(
        old, sort_keys=True, default=str
    )
    tested = [f for f in new["findings"] if f["p_value"] is not None]
    assert len(tested) > 20
    assert new["flags"] >= 2  # the bot's timing and the quitter, at least
