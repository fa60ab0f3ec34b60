"""Every statistic against values counted by hand on the logs of test_records.

Valid games: g1 (ana beats ben, 27 points) and g2 (ben beats ana on a wild card, 49 points);
g3 is invalid and counts only with ``include_invalid``. Per-game figures are in
``test_records.EXPECTED_RESULTS``; the sums below are made from them by hand.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from test_records import hand_games, write_log

from maumau_log.run.ingest import ingest
from maumau_log.stats.players import (
    filter_results,
    game_summary,
    player_stats,
    violation_counts,
    wilson_interval,
)
from maumau_log.store import scan


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("stats")
    ingest([write_log(tmp / "hand.jsonl", hand_games())], tmp / "ds")
    return tmp / "ds"


def _wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The textbook formula, written out separately from the Polars expression."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def _stats(dataset: Path, by: str | None = None, **filters: object) -> dict[tuple, dict]:
    lf = filter_results(scan(dataset, "results"), **filters)  # type: ignore[arg-type]
    rows = player_stats(lf, by=by).collect().to_dicts()
    keys = ["player"] if by is None else ["player", by]
    return {tuple(r[k] for k in keys): r for r in rows}


def test_leaderboard_valid_games(dataset: Path) -> None:
    df = player_stats(filter_results(scan(dataset, "results"))).collect()
    assert df["player"].to_list() == ["ana", "ben"]  # tied: same bound, same wins -> by name
    s = {r["player"]: r for r in df.to_dicts()}
    ana, ben = s["ana"], s["ben"]
    assert (ana["games"], ana["wins"], ana["win_rate"]) == (2, 1, 0.5)
    assert (ben["games"], ben["wins"], ben["win_rate"]) == (2, 1, 0.5)
    low, high = _wilson(1, 2)
    assert ana["win_rate_low"] == pytest.approx(low) and ana["win_rate_high"] == pytest.approx(high)
    assert low == pytest.approx(0.0945312, abs=1e-6)
    # ana: g1 0 cards / 0 points / +27; g2 5 cards (AC 9H 10H KH AH) / 49 points / 0
    assert ana["avg_cards_left"] == 2.5
    assert ana["avg_points_left"] == 24.5
    assert ana["avg_round_score"] == 13.5
    # drawn: g1 QD (no play); g2 8D (no play) + 4 effect cards = 6 cards / 2 games
    assert ana["draws_per_game"] == 3.0
    assert ana["penalties_per_game"] == 0.5  # the missed-call penalty in g1
    assert ana["missed_calls"] == 1
    # power: g1 7H (draw) 8H (skip) 9D 9S (reverse) = 4; g2 8D 8C (skip) 7C (draw) = 3
    assert ana["power_played"] == 7
    assert ana["wild_played"] == 0
    assert ana["avg_turns_to_win"] == 8.0  # won g1 in 8 turns
    # ben: g1 3 cards (AS AC 7S = 27 points) / 0; g2 0 / 0 / +49
    assert (ben["avg_cards_left"], ben["avg_points_left"], ben["avg_round_score"]) == (
        1.5,
        13.5,
        24.5,
    )
    assert ben["draws_per_game"] == 1.5  # g1: 2 effect + 7S
    assert (ben["penalties_per_game"], ben["missed_calls"]) == (0.0, 0)
    assert ben["power_played"] == 3  # g1 8D (skip); g2 9C (reverse), 7D (draw)
    assert ben["wild_played"] == 2  # g2 JH, JS
    assert ben["avg_turns_to_win"] == 5.0


def test_include_invalid(dataset: Path) -> None:
    s = _stats(dataset, include_invalid=True)
    ana, ben = s[("ana",)], s[("ben",)]
    assert (ana["games"], ana["wins"], ben["games"], ben["wins"]) == (3, 1, 3, 1)
    assert ana["win_rate"] == pytest.approx(1 / 3)
    assert ana["avg_cards_left"] == pytest.approx((0 + 5 + 4) / 3)
    assert ana["avg_points_left"] == pytest.approx((0 + 49 + 36) / 3)
    assert ana["avg_round_score"] == 13.5  # g3 has no score: nulls are not averaged
    assert ana["power_played"] == 8  # + 8H in g3
    assert ben["avg_points_left"] == pytest.approx((27 + 0 + 50) / 3)


def test_filters(dataset: Path) -> None:
    since = _stats(dataset, since="2024-05-01")  # only g2 is dated on or after
    assert {k: (r["games"], r["wins"]) for k, r in since.items()} == {
        ("ana",): (1, 0),
        ("ben",): (1, 1),
    }
    assert since[("ana",)]["avg_turns_to_win"] is None
    low, high = _wilson(0, 1)
    assert since[("ana",)]["win_rate_low"] == pytest.approx(0.0, abs=1e-12)
    assert since[("ana",)]["win_rate_high"] == pytest.approx(high)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert list(_stats(dataset, player="ben")) == [("ben",)]
    assert _stats(dataset, ruleset="standard") == {}
    assert len(_stats(dataset, ruleset="classic")) == 2
    assert _stats(dataset, since="2030-01-01") == {}
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        _stats(dataset, since="May 2024")
    only_g2 = _stats(dataset, game_ids=["g2"])
    assert only_g2[("ben",)]["wins"] == 1 and only_g2[("ana",)]["games"] == 1


def test_by_seat_and_ruleset(dataset: Path) -> None:
    seat = _stats(dataset, by="seat")
    # g1 seats: ana 0, ben 1; g2 seats: ben 0, ana 1
    assert {k: (r["games"], r["wins"]) for k, r in seat.items()} == {
        ("ana", 0): (1, 1),
        ("ana", 1): (1, 0),
        ("ben", 0): (1, 1),
        ("ben", 1): (1, 0),
    }
    assert seat[("ana", 1)]["avg_points_left"] == 49.0
    by_rules = _stats(dataset, by="ruleset")
    assert set(by_rules) == {("ana", "classic"), ("ben", "classic")}
    with pytest.raises(ValueError, match="--by"):
        _stats(dataset, by="colour")


def test_wilson_edges() -> None:
    df = pl.DataFrame({"w": [0, 5, 10, 0], "n": [10, 10, 10, 0]})
    low, high = wilson_interval(pl.col("w"), pl.col("n"))
    got = df.select(low.alias("lo"), high.alias("hi")).to_dicts()
    for row, (w, n) in zip(got[:3], [(0, 10), (5, 10), (10, 10)], strict=True):
        lo, hi = _wilson(w, n)
        assert row["lo"] == pytest.approx(max(lo, 0.0), abs=1e-12)
        assert row["hi"] == pytest.approx(min(hi, 1.0), abs=1e-12)
    assert got[0]["lo"] == 0.0 and got[2]["hi"] == pytest.approx(1.0)
    assert got[3] == {"lo": None, "hi": None}  # no games, no interval


def test_summaries(dataset: Path) -> None:
    summary = game_summary(scan(dataset, "games")).collect().to_dicts()
    assert summary == [{"games": 3, "valid": 2, "invalid": 1, "events": 23 + 18 + 6}]
    codes = violation_counts(scan(dataset, "violations")).collect().to_dicts()
    assert codes == [{"code": "card_not_in_hand", "count": 1}]


def test_queries_stay_lazy_and_prune(dataset: Path) -> None:
    lf = player_stats(filter_results(scan(dataset, "results"), since="2024-05-01"))
    assert isinstance(lf, pl.LazyFrame)
    plan = lf.explain()
    assert "date=unknown" not in plan and "date=2024-05-02" in plan
