"""Dataset rows against hand-made logs: every count here was made by hand.

The three logs (classic rules, two players ana and ben) are written out move by move in
:func:`hand_games`; the comments give the hands after each move, so every expected value
below can be recounted from them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from maumau_log.replay.driver import Replayer
from maumau_log.rules import resolve
from maumau_log.run.ingest import RecordCollector, content_hash, ingest, load_game
from maumau_log.store import scan

PACK = [r + s for s in "CDHS" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")]


def _stock(top: list[str], used: list[str]) -> list[str]:
    """The stock, top first: ``top`` then every other card of the 32-card pack."""
    taken = set(top) | set(used)
    return top + [c for c in PACK if c not in taken]


def _deal(hands: dict[str, list[str]], starter: str, top: list[str]) -> dict[str, Any]:
    used = [c for h in hands.values() for c in h] + [starter]
    return {"type": "deal", "hands": hands, "starter": starter, "stock": _stock(top, used)}


def play(p: str, c: str) -> dict[str, Any]:
    return {"type": "play", "player": p, "cards": [c]}


def draw(p: str, cards: list[str], reason: str) -> dict[str, Any]:
    return {"type": "draw", "player": p, "cards": cards, "reason": reason}


def mau(p: str, word: str = "mau") -> dict[str, Any]:
    return {"type": "mau", "player": p, "call": word}


def hand_games() -> list[list[dict[str, Any]]]:
    """Three classic games: g1 (ana wins), g2 (ben wins, dated), g3 (invalid at event 3)."""
    g1 = [
        {"type": "game", "format": "maumau-log/1", "game_id": "g1", "ruleset": "classic",
         "players": ["ana", "ben"], "dealer": "ben"},
        _deal({"ana": ["7H", "8H", "KH", "QC", "9D"], "ben": ["10C", "KD", "AS", "10S", "QS"]},
              "10H", ["AC", "8D", "7S", "QD", "9S", "10D"]),
        play("ana", "7H"),                      # 2  ben owes 2
        draw("ben", ["AC", "8D"], "effect"),    # 3  ben: 10C KD AS 10S QS AC 8D; turn ends
        play("ana", "8H"),                      # 4  skips ben; ana: KH QC 9D
        play("ana", "KH"),                      # 5  ana: QC 9D
        play("ben", "KD"),                      # 6  ben: 10C AS 10S QS AC 8D
        play("ana", "9D"),                      # 7  reverse (no-op for two); ana: QC
        mau("ana"),                             # 8
        play("ben", "8D"),                      # 9  skips ana; ben: 10C AS 10S QS AC
        draw("ben", ["7S"], "no_play"),         # 10 7S does not go on 8D
        {"type": "pass", "player": "ben"},      # 11
        draw("ana", ["QD"], "no_play"),         # 12 ana: QC QD
        play("ana", "QD"),                      # 13 ana: QC -- and forgets "mau"
        {"type": "penalty", "player": "ana", "reason": "missed_call", "by": "ben",
         "cards": ["9S", "10D"]},               # 14 ana: QC 9S 10D
        play("ben", "QS"),                      # 15 ben: 10C AS 10S AC 7S
        play("ana", "9S"),                      # 16 reverse; ana: QC 10D
        play("ben", "10S"),                     # 17 ben: 10C AS AC 7S
        play("ana", "10D"),                     # 18 ana: QC
        mau("ana"),                             # 19
        play("ben", "10C"),                     # 20 ben: AS AC 7S (10 + 10 + 7 = 27)
        play("ana", "QC"),                      # 21 ana is out
        {"type": "round_end", "winner": "ana", "scores": {"ana": 27, "ben": 0}},
    ]  # fmt: skip
    g2 = [
        {"type": "game", "format": "maumau-log/1", "game_id": "g2", "ruleset": "classic",
         "players": ["ben", "ana"], "dealer": "ana", "started_at": "2024-05-02T10:00:00Z"},
        _deal({"ben": ["KS", "JS", "7D", "9C", "JH"], "ana": ["7C", "8C", "10C", "AC", "KC"]},
              "10S", ["8D", "9H", "10H", "KH", "AH"]),
        play("ben", "KS"),                      # 2  ben: JS 7D 9C JH
        play("ana", "KC"),                      # 3  ana: 7C 8C 10C AC
        play("ben", "9C"),                      # 4  reverse (no-op); ben: JS 7D JH
        play("ana", "10C"),                     # 5  ana: 7C 8C AC
        play("ben", "JH"),                      # 6  wild; ben: JS 7D
        {"type": "suit", "player": "ben", "suit": "D"},  # 7
        draw("ana", ["8D"], "no_play"),         # 8
        play("ana", "8D"),                      # 9  skips ben; ana: 7C 8C AC
        play("ana", "8C"),                      # 10 skips ben; ana: 7C AC
        play("ana", "7C"),                      # 11 ben owes 2; ana: AC
        mau("ana"),                             # 12
        play("ben", "7D"),                      # 13 answers: ana owes 4; ben: JS
        mau("ben", "mau-mau"),                  # 14 the last card is wild
        draw("ana", ["9H", "10H", "KH", "AH"], "effect"),  # 15 ana: AC 9H 10H KH AH (49)
        play("ben", "JS"),                      # 16 ben is out on a wild card
        {"type": "round_end", "winner": "ben", "scores": {"ben": 49, "ana": 0}},
    ]  # fmt: skip
    g3 = [
        {"type": "game", "format": "maumau-log/1", "game_id": "g3", "ruleset": "classic",
         "players": ["ana", "ben"], "dealer": "ben", "started_at": "2024-04-30T08:00:00Z"},
        _deal({"ana": ["7H", "8H", "KH", "QC", "9D"], "ben": ["10C", "KD", "AS", "10S", "QS"]},
              "10H", []),
        play("ana", "8H"),                      # 2  skips ben
        play("ana", "AS"),                      # 3  ana does not hold AS: card_not_in_hand
        play("ben", "KD"),                      # 4  not replayed
        {"type": "round_end", "winner": "ben"},  # 5 not replayed
    ]  # fmt: skip
    return [g1, g2, g3]


def write_log(path: Path, games: list[list[dict[str, Any]]]) -> Path:
    """Write games as one JSON Lines file."""
    with open(path, "w", encoding="utf-8") as fh:
        for game in games:
            for ev in game:
                fh.write(json.dumps(ev) + "\n")
    return path


# ---------------------------------------------------------------------------------------
# The tables against the logs


@pytest.fixture
def dataset(tmp_path: Path, logs: Path) -> Path:
    out = tmp_path / "ds"
    summary = ingest([logs], out)
    assert (summary.games, summary.added, summary.invalid) == (3, 3, 1)
    return out


def _results(dataset: Path) -> dict[tuple[str, str], dict[str, Any]]:
    rows = scan(dataset, "results").collect().to_dicts()
    return {(r["game_id"], r["player"]): r for r in rows}


# Hand counts from the comments in hand_games() (turns: turns begun, the first included).
EXPECTED_RESULTS = {
    ("g1", "ana"): dict(
        seat=0, valid=True, won=True, cards_left=0, points_left=0, round_score=27,
        cards_played=8, drawn_no_play=1, drawn_voluntary=0, drawn_effect=0, drawn_cover=0,
        penalties=1, penalty_cards_missed_call=2, penalty_cards_wrong_call=0,
        penalty_cards_other=0, calls_made=2, calls_missed=1, wild_played=0, suits_named=0,
        draw_cards_played=1, skip_cards_played=1, reverse_cards_played=2,
        cover_cards_played=0, turns=8, skipped=1,
    ),
    ("g1", "ben"): dict(
        seat=1, valid=True, won=False, cards_left=3, points_left=27, round_score=0,
        cards_played=5, drawn_no_play=1, drawn_voluntary=0, drawn_effect=2, drawn_cover=0,
        penalties=0, penalty_cards_missed_call=0, penalty_cards_wrong_call=0,
        penalty_cards_other=0, calls_made=0, calls_missed=0, wild_played=0, suits_named=0,
        draw_cards_played=0, skip_cards_played=1, reverse_cards_played=0,
        cover_cards_played=0, turns=7, skipped=1,
    ),
    ("g2", "ben"): dict(
        seat=0, valid=True, won=True, cards_left=0, points_left=0, round_score=49,
        cards_played=5, drawn_no_play=0, drawn_voluntary=0, drawn_effect=0, drawn_cover=0,
        penalties=0, penalty_cards_missed_call=0, penalty_cards_wrong_call=0,
        penalty_cards_other=0, calls_made=1, calls_missed=0, wild_played=2, suits_named=1,
        draw_cards_played=1, skip_cards_played=0, reverse_cards_played=1,
        cover_cards_played=0, turns=5, skipped=2,
    ),
    ("g2", "ana"): dict(
        seat=1, valid=True, won=False, cards_left=5, points_left=49, round_score=0,
        cards_played=5, drawn_no_play=1, drawn_voluntary=0, drawn_effect=4, drawn_cover=0,
        penalties=0, penalty_cards_missed_call=0, penalty_cards_wrong_call=0,
        penalty_cards_other=0, calls_made=1, calls_missed=0, wild_played=0, suits_named=0,
        draw_cards_played=1, skip_cards_played=2, reverse_cards_played=0,
        cover_cards_played=0, turns=6, skipped=0,
    ),
    # g3 stops at event 3: only ana's 8H (a skip) was replayed; no scores for an invalid game
    ("g3", "ana"): dict(
        seat=0, valid=False, won=False, cards_left=4, points_left=36, round_score=None,
        cards_played=1, skip_cards_played=1, turns=2, skipped=0, calls_missed=0,
    ),
    ("g3", "ben"): dict(
        seat=1, valid=False, won=False, cards_left=5, points_left=50, round_score=None,
        cards_played=0, skip_cards_played=0, turns=0, skipped=1,
    ),
}  # fmt: skip


def test_results_match_hand_counts(dataset: Path) -> None:
    got = _results(dataset)
    assert set(got) == set(EXPECTED_RESULTS)
    for key, expected in EXPECTED_RESULTS.items():
        row = got[key]
        assert {k: row[k] for k in expected} == expected, key
        assert row["ruleset"] == "classic"


def test_games_table(dataset: Path) -> None:
    games = {r["game_id"]: r for r in scan(dataset, "games").collect().to_dicts()}
    assert set(games) == {"g1", "g2", "g3"}
    g1, g2, g3 = games["g1"], games["g2"], games["g3"]
    assert (g1["events"], g1["valid"], g1["winner"], g1["players"]) == (
        23,
        True,
        "ana",
        ["ana", "ben"],
    )
    assert (g2["events"], g2["winner"], g2["dealer"], g2["players"]) == (
        18,
        "ben",
        "ana",
        ["ben", "ana"],
    )
    assert (g3["events"], g3["valid"], g3["winner"]) == (6, False, None)
    assert (g3["violation_code"], g3["violation_index"]) == ("card_not_in_hand", 3)
    assert (g1["date"], g2["date"], g3["date"]) == ("unknown", "2024-05-02", "2024-04-30")
    assert (g1["source_line"], g2["source_line"], g3["source_line"]) == (1, 24, 42)
    assert g1["n_players"] == 2 and g1["header_ruleset"] == "classic"
    rules = resolve("classic")
    assert g1["options"] == json.dumps(rules.options(), sort_keys=True)
    assert g1["options_hash"] == g2["options_hash"] and len(g1["options_hash"]) == 16
    assert g2["started_at"] == "2024-05-02T10:00:00Z"
    assert len({g["content_hash"] for g in games.values()}) == 3


def test_events_table_holds_every_accepted_event(dataset: Path, logs: Path) -> None:
    ev = scan(dataset, "events").sort("game_id", "event_index").collect()
    counts = dict(ev.group_by("game_id").len().iter_rows())
    assert counts == {"g1": 23, "g2": 18, "g3": 3}  # g3 stops before its event 3
    games = hand_games()
    for gid, game in zip(("g1", "g2", "g3"), games, strict=True):
        rows = ev.filter(pl.col("game_id") == gid)
        assert rows["event_index"].to_list() == list(range(rows.height))
        assert rows["type"].to_list() == [e["type"] for e in game[: rows.height]]
        plays = [e["cards"] for e in game[: rows.height] if e["type"] == "play"]
        assert rows.filter(pl.col("type") == "play")["cards"].to_list() == plays
    assert ev.filter(pl.col("type") == "play").height == 13 + 10 + 1
    # the state after g1 event 3 (ben served the 7): hands 4 and 7, ana to play, 7H on top
    row = ev.filter((pl.col("game_id") == "g1") & (pl.col("event_index") == 3)).row(0, named=True)
    assert (row["top"], row["pending_draw"], row["hand_sizes"], row["turn"]) == (
        "7H",
        0,
        [4, 7],
        "ana",
    )
    assert (row["reason"], row["cards"], row["line"]) == ("effect", ["AC", "8D"], 4)
    after_seven = ev.filter((pl.col("game_id") == "g1") & (pl.col("event_index") == 2))
    assert after_seven["pending_draw"].to_list() == [2]
    suit = ev.filter((pl.col("game_id") == "g2") & (pl.col("event_index") == 7)).row(0, named=True)
    assert (suit["type"], suit["suit"], suit["suit_to_follow"]) == ("suit", "D", "D")
    reverse = ev.filter((pl.col("game_id") == "g1") & (pl.col("event_index") == 7))
    assert reverse["direction"].to_list() == [-1]


def test_violations_equal_the_replay(dataset: Path, logs: Path) -> None:
    replayed = [r.violation.to_dict() for r in Replayer().replay_paths([logs]) if r.violation]
    stored = scan(dataset, "violations").drop("ruleset", "date", "raw").collect().to_dicts()
    assert stored == replayed
    assert stored[0]["code"] == "card_not_in_hand" and stored[0]["line"] == 45


def test_collector_in_memory(logs: Path) -> None:
    c = RecordCollector()
    list(Replayer(visitors=[c]).replay_paths([logs]))
    tables = c.tables()
    assert set(tables) == {
        ("classic", "unknown"),
        ("classic", "2024-05-02"),
        ("classic", "2024-04-30"),
    }
    assert sum(t["events"].num_rows for t in tables.values()) == 23 + 18 + 3
    assert sum(t["results"].num_rows for t in tables.values()) == 6


def test_content_hash_sees_the_violation() -> None:
    assert content_hash([b"a"], None, 1) != content_hash([b"a"], None, 2)
    assert content_hash([b"a"], None, 1) == content_hash([b"a"], None, 1)
    assert content_hash([b"a"], None, 1) != content_hash([b"b"], None, 1)


# ---------------------------------------------------------------------------------------
# Reading a game back (the dispute view's data)


def test_load_game_rebuilds_every_hand(dataset: Path) -> None:
    g = load_game(dataset, "g1", 13)
    assert g.at == 13 and g.stored_events == 23
    state = g.state
    assert state is not None
    # after ana's QD (event 13): ana QC, ben 10C AS 10S QS AC 7S; top QD; ben to play
    assert state["hands"] == {"ana": ["QC"], "ben": ["10C", "AS", "10S", "QS", "AC", "7S"]}
    assert (state["top"], state["turn"], state["pending_draw"]) == ("QD", "ben", 0)
    assert g.event is not None and g.event["cards"] == ["QD"]
    last = load_game(dataset, "g1")
    assert last.at == 22 and last.state is not None and last.state["phase"] == "finished"
    assert [r["player"] for r in last.results] == ["ana", "ben"]


def test_load_game_invalid_stops_before_the_violation(dataset: Path) -> None:
    g = load_game(dataset, "g3")
    assert g.at == 2 and g.stored_events == 3
    assert g.violations[0]["event_index"] == 3
    assert g.state is not None and g.state["hands"]["ana"] == ["7H", "KH", "QC", "9D"]
    # event 3, the number the report gives, is the state right before it and the
    # line as logged (it used to fail with "no event 3 is stored")
    at = load_game(dataset, "g3", 3)
    assert at.at_violation and at.at == 3 and at.event is None
    assert at.state == g.state
    assert at.logged is not None and json.loads(at.logged)["type"] == "play"
    with pytest.raises(
        ValueError,
        match=r"--at takes 0..3, not 4 \(events 0..2 replayed; event 3 is where the replay",
    ):
        load_game(dataset, "g3", 4)


def test_load_game_unknown(dataset: Path) -> None:
    with pytest.raises(ValueError, match="no game 'nope'"):
        load_game(dataset, "nope")
