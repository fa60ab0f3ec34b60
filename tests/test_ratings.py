"""Ratings: the ranking rule, the rating against openskill and by hand, the time order,
the forecasts of ``--evaluate``, the cache, and ``simulate --bots``.

The three-round example (ana, ben, cid under ``classic``, which scores rounds, so the
measure is points left in hand):

- round 1 (10:00Z, id ``z1``): ana wins; ben 12 points, cid 30 -> ranks 0, 1, 2;
- round 2 (11:05+01:00 = 10:05Z, id ``m2``): ben wins; ana 7 points in 1 card, cid 7
  points in 3 cards -> ben 0, ana and cid tied at 1 (points, not cards, decide);
- round 3 (10:10Z, id ``a3``): cid wins; ben 5 points, ana 20 -> 0, 1, 2.

The ids sort against the times, so only the time order gives these ratings.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from openskill.models import PlackettLuce, ThurstoneMostellerFull
from typer.testing import CliRunner

import maumau_log.cli.ratings_cmds  # registers the command
import maumau_log.cli.replay_cmds  # registers simulate
import maumau_log.cli.stats_cmds  # registers stats
from maumau_log.bots.seated import seat_names, simulate_seated
from maumau_log.bots.sim import write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest
from maumau_log.stats import rating_cache
from maumau_log.stats.rating_eval import evaluate
from maumau_log.stats.ratings import (
    _plackett_luce,
    fast_path_agrees,
    match_contests,
    rate,
    ratings_frame,
    round_contests,
)
from maumau_log.store import scan

runner = CliRunner()

ROUNDS = [  # game_id, started_at, {player: (won, cards_left, points_left)}
    (
        "z1",
        "2026-01-01T10:00:00Z",
        {"ana": (True, 0, 0), "ben": (False, 2, 12), "cid": (False, 4, 30)},
    ),
    (
        "m2",
        "2026-01-01T11:05:00+01:00",
        {"ana": (False, 1, 7), "ben": (True, 0, 0), "cid": (False, 3, 7)},
    ),
    (
        "a3",
        "2026-01-01T10:10:00Z",
        {"ana": (False, 2, 20), "ben": (False, 1, 5), "cid": (True, 0, 0)},
    ),
]


def _frames(rounds: list, ruleset: str = "classic") -> tuple[pl.LazyFrame, pl.LazyFrame]:
    games = pl.DataFrame(
        {
            "game_id": [g for g, _, _ in rounds],
            "valid": [True] * len(rounds),
            "ruleset": [ruleset] * len(rounds),
            "date": ["2026-01-01"] * len(rounds),
            "options": pl.Series([None] * len(rounds), dtype=pl.String),
            "started_at": [t for _, t, _ in rounds],
        }
    )
    rows = [(g, p, True, *v) for g, _, ps in rounds for p, v in ps.items()]
    results = pl.DataFrame(
        rows,
        schema=["game_id", "player", "valid", "won", "cards_left", "points_left"],
        orient="row",
    )
    return games.lazy(), results.lazy()


def test_ranking_winner_first_then_points_left_ties_share_a_rank() -> None:
    df = round_contests(*_frames(ROUNDS))
    got = [(r["contest"], r["player"], r["rank"]) for r in df.to_dicts()]
    assert got == [
        ("z1", "ana", 0),
        ("z1", "ben", 1),
        ("z1", "cid", 2),
        ("m2", "ben", 0),
        ("m2", "ana", 1),
        ("m2", "cid", 1),  # 7 points each: tied
        ("a3", "cid", 0),
        ("a3", "ben", 1),
        ("a3", "ana", 2),
    ]


def test_ranking_by_cards_left_where_the_ruleset_does_not_score() -> None:
    # defaults: scoring = "none" -> cards left decide: ana 1 card before cid 3 cards
    df = round_contests(*_frames(ROUNDS[1:2], ruleset="defaults"))
    assert [(r["player"], r["rank"]) for r in df.to_dicts()] == [("ben", 0), ("ana", 1), ("cid", 2)]


def test_round_one_by_hand() -> None:
    """Weng and Lin's Algorithm 4 for three fresh ratings (mu 25, sigma 25/3) ranked
    0, 1, 2, worked through with the fractions it gives: every exp(mu/c) is equal, so
    the shares are 1/3 (of the three), 1/2 (of the last two) and 1."""
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2  # sigma² after the dynamics tau
    c = math.sqrt(3 * (s2 + (25 / 6) ** 2))
    # omega: (1 - t) for one's own place, -t for each place above; t = 1/3, 1/2, 1
    omega = [1 - 1 / 3, -1 / 3 + (1 - 1 / 2), -1 / 3 - 1 / 2 + (1 - 1)]  # 2/3, 1/6, -5/6
    delta = [2 / 9, 2 / 9 + 1 / 4, 2 / 9 + 1 / 4 + 0]  # t(1 - t): 1/3·2/3, 1/2·1/2, 1·0
    mus = [25 + w * s2 / c for w in omega]
    sigmas = [math.sqrt(s2) * math.sqrt(1 - d * s2 / c**2 * math.sqrt(s2) / c) for d in delta]
    assert mus == pytest.approx([27.869048, 25.717262, 21.413690], abs=1e-6)
    assert sigmas == pytest.approx([8.205243, 8.058224, 8.058224], abs=1e-6)
    rated = rate(round_contests(*_frames(ROUNDS[:1])))
    assert rated.mu == pytest.approx(mus, abs=1e-12)
    assert rated.sigma == pytest.approx(sigmas, abs=1e-12)


PINNED_MU = {"ana": 22.5056, "ben": 28.6161, "cid": 23.7258}
"""The Plackett-Luce mu after the three rounds (openskill 6.2), to 4 places."""


def _openskill_three_rounds(model: object) -> dict[str, tuple[float, float]]:
    """The three rounds through openskill's own ``rate``, in time order."""
    r = {p: model.rating() for p in ("ana", "ben", "cid")}  # type: ignore[attr-defined]
    for order, ranks in (
        (("ana", "ben", "cid"), [0, 1, 2]),
        (("ben", "ana", "cid"), [0, 1, 1]),
        (("cid", "ben", "ana"), [0, 1, 2]),
    ):
        new = model.rate([[r[p]] for p in order], ranks=ranks)  # type: ignore[attr-defined]
        for p, [x] in zip(order, new, strict=True):
            r[p] = x
    return {p: (x.mu, x.sigma) for p, x in r.items()}


@pytest.mark.parametrize("model", ["plackett-luce", "thurstone-mosteller"])
def test_three_rounds_equal_openskill_called_directly(model: str) -> None:
    want = _openskill_three_rounds(
        PlackettLuce() if model == "plackett-luce" else ThurstoneMostellerFull()
    )
    board = ratings_frame(rate(round_contests(*_frames(ROUNDS)), model))
    got = {r["player"]: (r["mu"], r["sigma"]) for r in board.to_dicts()}
    for p in want:
        assert got[p] == pytest.approx(want[p], abs=1e-9)
    # the conservative rating is openskill's ordinal(): mu - 3 sigma
    for row in board.to_dicts():
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"])
    if model == "plackett-luce":
        assert {p: round(v[0], 4) for p, v in got.items()} == PINNED_MU


def test_fast_plackett_luce_equals_openskill_on_random_rounds() -> None:
    import random

    rng = random.Random(7)
    model = PlackettLuce()
    assert fast_path_agrees(model)
    assert not fast_path_agrees(PlackettLuce(beta=3.0))  # not its defaults: openskill's rate
    for _ in range(300):
        n = rng.randint(2, 6)
        players = [(rng.uniform(5, 45), rng.uniform(0.5, 9)) for _ in range(n)]
        ranks = sorted(rng.randint(0, n - 1) for _ in range(n))
        want = model.rate([[model.rating(m, s)] for m, s in players], ranks=ranks)
        mus, sigmas = [m for m, _ in players], [s for _, s in players]
        _plackett_luce(mus, sigmas, list(range(n)), ranks)
        assert mus == pytest.approx([t[0].mu for t in want], abs=1e-9)
        assert sigmas == pytest.approx([t[0].sigma for t in want], abs=1e-9)


def test_ties_move_tied_players_by_their_own_ratings_as_openskill_does() -> None:
    # round 2 alone: ana and cid tied behind ben, from equal ratings: equal updates
    board = ratings_frame(rate(round_contests(*_frames(ROUNDS[1:2]))))
    got = {r["player"]: (r["mu"], r["sigma"]) for r in board.to_dicts()}
    m = PlackettLuce()
    [[b], [a], [_c]] = m.rate([[m.rating()], [m.rating()], [m.rating()]], ranks=[0, 1, 1])
    assert got["ben"] == pytest.approx((b.mu, b.sigma))
    assert got["ana"] == pytest.approx((a.mu, a.sigma)) == got["cid"]
    assert got["ana"][0] < 25 < got["ben"][0]


def _match_frames() -> tuple[pl.LazyFrame, pl.LazyFrame]:
    games = pl.DataFrame(
        {
            "match_id": ["m1", "m1", "m2"],
            "game_id": ["m1-r1", "m1-r2", "m2-r1"],
            "started_at": ["2026-01-02T09:00:00Z", "2026-01-02T09:10:00Z", "2026-01-01T09:00:00Z"],
        }
    )
    totals = pl.List(pl.Struct({"player": pl.String, "total": pl.Int64}))
    matches = pl.DataFrame(
        {
            "match_id": ["m1", "m2"],
            "valid": [True, True],
            "ruleset": ["classic", "online-penalty"],
            "date": ["2026-01-02", "2026-01-01"],
            "winner": ["ben", "cid"],
            "totals": [
                [
                    {"player": "ana", "total": 40},
                    {"player": "ben", "total": 160},
                    {"player": "cid", "total": 40},
                ],
                [
                    {"player": "ana", "total": 120},
                    {"player": "ben", "total": 60},
                    {"player": "cid", "total": 30},
                ],
            ],
        },
        schema_overrides={"totals": totals},
    )
    return games.lazy(), matches.lazy()


def test_match_ranking_winner_then_final_total_in_the_rulesets_direction() -> None:
    df = match_contests(*_match_frames())
    got = [(r["contest"], r["player"], r["rank"]) for r in df.to_dicts()]
    # m2 first in time; online-penalty: the lowest total is best (ben 60 before ana 120);
    # classic (winner_collects): the winner, then ana and cid tied at 40
    assert got == [
        ("m2", "cid", 0),
        ("m2", "ben", 1),
        ("m2", "ana", 2),
        ("m1", "ben", 0),
        ("m1", "ana", 1),
        ("m1", "cid", 1),
    ]


def test_evaluate_shape_and_values_on_a_tiny_case() -> None:
    # ana beats ben four times, then once more: train on 4 (80% of 5), forecast 1
    rounds = [
        (f"g{i}", f"2026-01-01T10:0{i}:00Z", {"ana": (True, 0, 0), "ben": (False, 3, 20)})
        for i in range(5)
    ]
    contests = round_contests(*_frames(rounds))
    doc = evaluate(contests)
    assert set(doc) == {
        "model",
        "train_contests",
        "test_contests",
        "forecast_contests",
        "log_loss",
        "brier",
        "accuracy",
    }
    assert (doc["train_contests"], doc["test_contests"], doc["forecast_contests"]) == (4, 1, 1)
    for metric in ("log_loss", "brier", "accuracy"):
        assert set(doc[metric]) == {"rating", "equal", "win_rate"}
    assert doc["log_loss"]["equal"] == pytest.approx(math.log(2))
    assert doc["brier"]["equal"] == pytest.approx(0.5)  # (1/2)² twice
    assert doc["accuracy"]["equal"] == 0.5  # both share the top chance: half a hit
    # past win rate with Laplace's prior: ana 5/6, ben 1/6 (already summing to 1)
    assert doc["log_loss"]["win_rate"] == pytest.approx(-math.log(5 / 6))
    assert doc["brier"]["win_rate"] == pytest.approx(2 * (1 / 6) ** 2)
    assert doc["accuracy"]["win_rate"] == 1.0
    m = PlackettLuce()
    a, b = m.rating(), m.rating()
    for _ in range(4):
        [[a], [b]] = m.rate([[a], [b]], ranks=[0, 1])
    p = m.predict_win([[a], [b]])[0]
    assert doc["log_loss"]["rating"] == pytest.approx(-math.log(p))
    assert doc["brier"]["rating"] == pytest.approx(2 * (1 - p) ** 2)
    assert doc["accuracy"]["rating"] == 1.0


# --------------------------------------------------------------------- datasets, CLI


def _sim(path: Path, bots: list[str], games: int, seed: int) -> Path:
    with path.open("wb") as fh:
        write_games(simulate_seated("classic", bots, games, seed, start=_start()), fh)
    return path


def _start():  # type: ignore[no-untyped-def]
    import datetime as dt

    return dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_simulate_bots_names_rotation_and_bytes(tmp_path: Path) -> None:
    assert seat_names(["mc", "random"]) == ["mc", "random"]
    assert seat_names(["mc", "random", "mc"]) == ["mc-1", "random", "mc-2"]
    args = [
        "simulate",
        "--ruleset",
        "classic",
        "--players",
        "3",
        "--games",
        "4",
        "--bots",
        "random,greedy,random",
        "--start",
        "2026-01-01T00:00:00Z",
    ]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert runner.invoke(app, [*args, "--out", str(a)]).exit_code == 0
    assert runner.invoke(app, [*args, "--out", str(b)]).exit_code == 0
    assert a.read_bytes() == b.read_bytes()
    headers = [json.loads(x) for x in a.read_text().splitlines() if '"type":"game"' in x]
    assert [h["players"] for h in headers] == [
        ["random-1", "greedy", "random-2"],
        ["random-2", "random-1", "greedy"],  # each seat one place on
        ["greedy", "random-2", "random-1"],
        ["random-1", "greedy", "random-2"],
    ]
    assert [h["dealer"] for h in headers] == [h["players"][-1] for h in headers]
    assert [h["started_at"] for h in headers][:2] == [
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:01:00Z",
    ]
    bad = runner.invoke(app, ["simulate", "--out", str(a), "--players", "2", "--bots", "mc"])
    assert bad.exit_code == 2 and "--bots names 1 bots for 2 seats" in bad.output
    bad = runner.invoke(app, ["simulate", "--out", str(a), "--players", "2", "--bots", "mc,x"])
    assert bad.exit_code == 2 and "unknown bot 'x'" in bad.output


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("ratings")
    return (
        _sim(tmp / "gr.jsonl", ["greedy", "random"], 30, 1),
        _sim(tmp / "rr.jsonl", ["random", "random"], 30, 2),
    )


def _ratings(ds: Path, *extra: str) -> list[dict]:
    r = runner.invoke(app, ["ratings", str(ds), "--json", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["ratings"]


def test_same_ratings_whatever_file_order_and_jobs(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAUMAU_LOG_CACHE", "off")
    a, b = logs
    ingest([a, b], tmp_path / "one", jobs=1)
    ingest([b, a], tmp_path / "two", jobs=2, shard_bytes=20_000)
    first, second = _ratings(tmp_path / "one"), _ratings(tmp_path / "two")
    assert first == second
    assert {r["player"] for r in first} == {"greedy", "random", "random-1", "random-2"}
    assert {r["rounds"] for r in first} == {30}


def test_cli_table_json_and_evaluate(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAUMAU_LOG_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "80")
    ingest(list(logs), tmp_path / "ds")
    table = runner.invoke(app, ["ratings", str(tmp_path / "ds")])
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    title = " ".join(" ".join(lines[:2]).split())
    assert title == (
        "Ratings (plackett-luce, by round, classic), sorted by the conservative rating mu - 3 sigma"
    )
    assert max(len(x) for x in lines) <= 80
    assert "last" in table.stdout and "rounds" in table.stdout
    rows = _ratings(tmp_path / "ds")
    assert set(rows[0]) == {
        "player",
        "ruleset",
        "mu",
        "sigma",
        "rating",
        "rounds",
        "first_played",
        "last_played",
    }
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    one = _ratings(tmp_path / "ds", "--player", "greedy")
    assert [r["player"] for r in one] == ["greedy"]
    ev = runner.invoke(app, ["ratings", str(tmp_path / "ds"), "--evaluate", "--json"])
    doc = json.loads(ev.stdout)
    assert (doc["train_contests"], doc["test_contests"]) == (48, 12)
    assert doc["log_loss"]["equal"] == pytest.approx(math.log(2))
    until = _ratings(tmp_path / "ds", "--until", "2025-12-31")
    assert until == []
    bad = runner.invoke(app, ["ratings", str(tmp_path / "ds"), "--until", "2026-02-30"])
    assert bad.exit_code == 2 and "--until must be a date YYYY-MM-DD" in bad.output


def test_cache_is_read_back_and_keyed_by_the_manifest(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAUMAU_LOG_CACHE", str(tmp_path / "cache"))
    ds = tmp_path / "ds"
    ingest([logs[0]], ds)
    first = _ratings(ds)
    assert len(list((tmp_path / "cache").glob("*.parquet"))) == 1

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("rated again")

    monkeypatch.setattr(maumau_log.cli.ratings_cmds, "contests_of", boom)
    assert _ratings(ds) == first  # from the cache
    monkeypatch.undo()
    monkeypatch.setenv("MAUMAU_LOG_CACHE", str(tmp_path / "cache"))
    ingest([logs[1]], ds)  # a new dataset version: a new key
    assert len(_ratings(ds)) == 4
    # a damaged cache file is ignored and rewritten
    for f in (tmp_path / "cache").glob("*.parquet"):
        f.write_bytes(b"not parquet")
    assert len(_ratings(ds)) == 4
    assert rating_cache.load("0" * 64, pl.Schema({})) is None


def test_by_match_rates_whole_matches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAUMAU_LOG_CACHE", "off")
    log = tmp_path / "m.jsonl"
    r = runner.invoke(
        app,
        [
            "simulate",
            "--out",
            str(log),
            "--ruleset",
            "serbian",
            "--players",
            "3",
            "--matches",
            "3",
            "--seed",
            "4",
        ],
    )
    assert r.exit_code == 0
    ingest([log], tmp_path / "ds")
    rows = _ratings(tmp_path / "ds", "--by", "match")
    assert sorted(r["player"] for r in rows) == ["p1", "p2", "p3"]
    assert {r["rounds"] for r in rows} == {3}  # three matches each, not their rounds
    contests = match_contests(scan(tmp_path / "ds", "games"), scan(tmp_path / "ds", "matches"))
    assert contests.get_column("contest").n_unique() == 3
    want = rate(contests)
    got = {r["player"]: r["mu"] for r in rows}
    assert got == {k[1]: mu for k, mu in zip(want.keys, want.mu, strict=True)}


def test_stats_gains_rating_columns_and_until(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maumau_log.stats.ratings import player_ratings

    monkeypatch.setenv("MAUMAU_LOG_CACHE", "off")
    ds = tmp_path / "ds"
    ingest(list(logs), ds)
    r = runner.invoke(
        app, ["stats", str(ds), "--columns", "games,rating,mu,sigma", "--format", "json"]
    )
    assert r.exit_code == 0, r.output
    rows = {x["player"]: x for x in json.loads(r.stdout)}
    want = {x["player"]: x for x in player_ratings(str(ds)).to_dicts()}
    assert rows.keys() == want.keys()
    for p, x in rows.items():
        assert (x["rating"], x["mu"], x["sigma"]) == pytest.approx(
            (want[p]["rating"], want[p]["mu"], want[p]["sigma"])
        )
    # every simulated game is dated 2026-01-01: --until the day before keeps none
    none = runner.invoke(app, ["stats", str(ds), "--until", "2025-12-31", "--format", "json"])
    assert none.exit_code == 0 and json.loads(none.stdout) == []
    some = runner.invoke(app, ["stats", str(ds), "--until", "2026-01-01", "--format", "json"])
    assert sum(x["games"] for x in json.loads(some.stdout)) == 120  # 60 rounds, 2 seats
    bad = runner.invoke(app, ["stats", str(ds), "--until", "2026-13-01"])
    assert bad.exit_code == 2 and "--until must be a date YYYY-MM-DD" in bad.output


def test_chart_html_and_terminal_draw_the_histories(
    logs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAUMAU_LOG_CACHE", "off")
    ds = tmp_path / "ds"
    ingest([logs[0]], ds)
    page = tmp_path / "r.html"
    r = runner.invoke(app, ["ratings", str(ds), "--chart", "html", "--out", str(page)])
    assert r.exit_code == 0, r.output
    html = page.read_text("utf-8")
    assert '"name":"greedy"' in html and '"name":"random"' in html
    term = runner.invoke(app, ["ratings", str(ds), "--chart", "terminal", "--player", "greedy"])
    assert term.exit_code == 0
    assert "greedy" in term.stdout and "random" not in term.stdout
    [final] = _ratings(ds, "--player", "greedy")  # the last point is the rating now
    assert f"{final['mu']:.1f} ± {final['sigma']:.1f}" in term.stdout
    no_out = runner.invoke(app, ["ratings", str(ds), "--chart", "png"])
    assert no_out.exit_code == 2 and "--chart png needs --out FILE" in no_out.output
