"""Matches in the dataset: the ``matches`` table, the running totals in
``results``, ``stats --by match`` and the ``match`` command, against a score sheet counted
by hand.

The match is ``simulate_matches("classic", 3, 1, seed=3)``: three rounds of classic
(``winner_collects``, first to 150). Its ``round_end`` scores, copied into :data:`SCORES`
(and checked against the log by :func:`test_the_log_is_the_one_counted`), give by hand:

    round  dealer  winner   p1  p2  p3   running totals p1  p2   p3
      1    p1      p1       61   0   0                  61   0    0
      2    p2      p2        0  87   0                  61  87    0
      3    p3      p2        0  64   0                  61 151    0   p2 reaches 150: over

so p2 wins the match with 151, and the log's ``match_end`` says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq
import pytest
from gamebuilder import one_line_error
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401  (registers the commands)
from maumau_log.bots.sim import simulate_matches
from maumau_log.cli import app
from maumau_log.events import Event, MatchEnd, RoundEnd, encode_event
from maumau_log.run.ingest import ingest, load_match
from maumau_log.stats.players import filter_matches, match_stats
from maumau_log.store import MANIFEST, scan
from maumau_log.store import matches as match_records

runner = CliRunner()

MID = "sim-classic-3p-3-m00000"  # ruleset and players in simulated ids
GIDS = [f"{MID}-r00{k}" for k in (1, 2, 3)]
PLAYERS = ["p1", "p2", "p3"]
SCORES = [  # round_end.scores of rounds 1, 2, 3
    {"p1": 61, "p2": 0, "p3": 0},
    {"p1": 0, "p2": 87, "p3": 0},
    {"p1": 0, "p2": 64, "p3": 0},
]
TOTALS = [  # by hand: the running sums of SCORES
    {"p1": 61, "p2": 0, "p3": 0},
    {"p1": 61, "p2": 87, "p3": 0},  # 0 + 87
    {"p1": 61, "p2": 151, "p3": 0},  # 87 + 64
]
DEALERS = ["p1", "p2", "p3"]
WINNERS = ["p1", "p2", "p2"]

MATCH_ROW = {
    "match_id": MID,
    "players": PLAYERS,
    "rounds": 3,
    "valid_rounds": 3,
    "totals": [
        {"player": "p1", "total": 61},
        {"player": "p2", "total": 151},
        {"player": "p3", "total": 0},
    ],
    "over": True,
    "ended": True,
    "valid": True,
    "winner": "p2",
    "draw": False,
    "ruleset": "classic",
    "date": "unknown",
}


def _rounds() -> list[list[Event]]:
    return list(simulate_matches("classic", 3, 1, 3))


def _write(path: Path, rounds: list[list[Event]]) -> Path:
    with open(path, "wb") as fh:
        for r in rounds:
            for ev in r:
                fh.write(encode_event(ev) + b"\n")
    return path


def _match_row(ds: Path) -> dict[str, Any]:
    rows = scan(ds, "matches").filter(pl.col("match_id") == MID).collect()
    assert rows.height == 1
    row = rows.row(0, named=True)
    assert row.pop("first_ingest") is not None and row.pop("last_ingest") is not None
    return row


def _totals_after(ds: Path) -> dict[tuple[str, str], tuple[str | None, int | None, int | None]]:
    df = scan(ds, "results").select("game_id", "player", "match_id", "round", "total_after")
    return {(g, p): (m, r, t) for g, p, m, r, t in df.collect().iter_rows()}


def _expected_after(known: tuple[bool, bool, bool] = (True, True, True)) -> dict:
    return {
        (GIDS[k], p): (MID, k + 1, TOTALS[k][p] if known[k] else None)
        for k in range(3)
        for p in PLAYERS
    }


def test_the_log_is_the_one_counted() -> None:
    rounds = _rounds()
    assert [r[0].game_id for r in rounds] == GIDS  # type: ignore[union-attr]
    assert [r[0].dealer for r in rounds] == DEALERS  # type: ignore[union-attr]
    ends = [next(e for e in r if isinstance(e, RoundEnd)) for r in rounds]
    assert [e.scores for e in ends] == SCORES
    assert [e.winner for e in ends] == WINNERS
    last = rounds[-1][-1]
    assert isinstance(last, MatchEnd)
    assert (last.totals, last.winner) == (TOTALS[-1], "p2")


def test_matches_row_and_running_totals(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    summary = ingest([_write(tmp_path / "m.jsonl", _rounds())], ds)
    assert summary.exit_code == 0 and summary.rows["matches"] == 1
    assert _match_row(ds) == MATCH_ROW
    assert _totals_after(ds) == _expected_after()
    manifest = json.loads((ds / MANIFEST).read_text())
    assert len(manifest["files"]["results"]) == 1  # in order: nothing rewritten
    # games outside any match keep the match columns null
    ingest([write_log(tmp_path / "hand.jsonl", hand_games())], ds)
    after = _totals_after(ds)
    assert {after[(g, p)] for g in ("g1", "g2", "g3") for p in ("ana", "ben")} == {
        (None, None, None)
    }
    assert _match_row(ds) == MATCH_ROW and scan(ds, "matches").collect().height == 1


def test_a_match_split_across_two_ingests(tmp_path: Path) -> None:
    rounds = _rounds()
    in_order = tmp_path / "in-order"
    ingest([_write(tmp_path / "a.jsonl", rounds[:1])], in_order)
    row = _match_row(in_order)
    assert (row["rounds"], row["over"], row["valid"], row["winner"], row["draw"]) == (
        1, False, False, None, None
    )  # fmt: skip
    ingest([_write(tmp_path / "b.jsonl", rounds[1:])], in_order)
    assert _match_row(in_order) == MATCH_ROW
    assert _totals_after(in_order) == _expected_after()

    # the later rounds first: their totals are unknown until round 1 arrives
    late = tmp_path / "late"
    ingest([_write(tmp_path / "c.jsonl", rounds[1:])], late)
    row = _match_row(late)
    assert row["rounds"] == 2 and row["ended"] and not row["over"] and not row["valid"]
    assert row["totals"] == [
        {"player": "p1", "total": 0},
        {"player": "p2", "total": 151},  # 87 + 64, the valid rounds stored
        {"player": "p3", "total": 0},
    ]
    after = _totals_after(late)
    assert all(
        after[(g, p)] == (MID, k, None) for k, g in ((2, GIDS[1]), (3, GIDS[2])) for p in PLAYERS
    )
    ingest([_write(tmp_path / "d.jsonl", rounds[:1])], late)
    assert _match_row(late) == MATCH_ROW
    assert _totals_after(late) == _expected_after()
    # the replaced files are gone from the manifest and the disk
    manifest = json.loads((late / MANIFEST).read_text())
    listed = {f for fs in manifest["files"].values() for f in fs}
    on_disk = {p.relative_to(late).as_posix() for p in late.rglob("*.parquet")}
    assert listed == on_disk and len(manifest["files"]["matches"]) == 1

    # idempotent: the same logs again change nothing
    before = {p: p.read_bytes() for p in late.rglob("*") if p.is_file() and p.name != ".lock"}
    again = [ingest([tmp_path / f], late) for f in ("c.jsonl", "d.jsonl", "b.jsonl")]
    assert [(s.added, s.duplicates) for s in again] == [(0, 2), (0, 1), (0, 2)]
    after_files = {p: p.read_bytes() for p in late.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after_files == before


def test_an_invalid_round_makes_the_match_invalid(tmp_path: Path) -> None:
    rounds = _rounds()
    end = rounds[1][-1]
    assert isinstance(end, RoundEnd)
    rounds[1][-1] = RoundEnd(winner="p2", scores={"p1": 0, "p2": 88, "p3": 0}, hands=end.hands)
    ds = tmp_path / "ds"
    summary = ingest([_write(tmp_path / "bad.jsonl", rounds)], ds)
    assert summary.invalid == 1 and summary.violations[0].code == "wrong_score"
    row = _match_row(ds)
    assert row == {
        **MATCH_ROW,
        "valid_rounds": 2,
        "totals": [
            {"player": "p1", "total": 61},  # round 1
            {"player": "p2", "total": 64},  # round 3 (round 2 is invalid: no score)
            {"player": "p3", "total": 0},
        ],
        "over": False,
        "valid": False,
        "winner": None,
        "draw": None,
    }
    assert _totals_after(ds) == _expected_after((True, False, False))


def test_stats_by_match(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "m.jsonl", _rounds())], ds)
    got = match_stats(filter_matches(scan(ds, "matches"))).collect().to_dicts()
    lows = {r["player"]: r.pop("match_win_rate_low") for r in got}
    highs = {r["player"]: r.pop("match_win_rate_high") for r in got}
    assert got == [
        {"player": "p2", "matches": 1, "match_wins": 1, "match_draws": 0,
         "match_win_rate": 1.0, "avg_final_total": 151.0, "rounds_per_match": 3.0},
        {"player": "p1", "matches": 1, "match_wins": 0, "match_draws": 0,
         "match_win_rate": 0.0, "avg_final_total": 61.0, "rounds_per_match": 3.0},
        {"player": "p3", "matches": 1, "match_wins": 0, "match_draws": 0,
         "match_win_rate": 0.0, "avg_final_total": 0.0, "rounds_per_match": 3.0},
    ]  # fmt: skip
    # Wilson with n = 1, z = 1.96: 1 win -> (0.2065, 1); 0 wins -> (0, 0.7935)
    assert lows["p2"] == pytest.approx(0.20654931, abs=1e-6) and highs["p2"] == 1.0
    assert lows["p1"] == 0.0 and highs["p1"] == pytest.approx(0.79345069, abs=1e-6)

    cli = runner.invoke(app, ["stats", str(ds), "--by", "match", "--format", "json"])
    assert cli.exit_code == 0, cli.output
    rows = json.loads(cli.stdout)
    assert [(r["player"], r["matches"], r["match_wins"], r["avg_final_total"]) for r in rows] == [
        ("p2", 1, 1, 151.0), ("p1", 1, 0, 61.0), ("p3", 1, 0, 0.0)
    ]  # fmt: skip
    one = runner.invoke(
        app, ["stats", str(ds), "--by", "match", "--format", "json", "--player", "p1"]
    )
    assert [r["player"] for r in json.loads(one.stdout)] == ["p1"]
    table = runner.invoke(app, ["stats", str(ds), "--by", "match"])
    assert table.exit_code == 0 and "Match leaderboard" in table.stdout
    # only valid matches count unless --include-invalid
    bad = tmp_path / "bad"
    rounds = _rounds()
    ingest([_write(tmp_path / "cut.jsonl", rounds[:2])], bad)  # not over yet: not valid
    none = runner.invoke(app, ["stats", str(bad), "--by", "match", "--format", "json"])
    assert json.loads(none.stdout) == []
    some = runner.invoke(
        app, ["stats", str(bad), "--by", "match", "--format", "json", "--include-invalid"]
    )
    got = [
        (r["player"], r["avg_final_total"], r["rounds_per_match"]) for r in json.loads(some.stdout)
    ]
    assert got == [("p1", 61.0, 2.0), ("p2", 87.0, 2.0), ("p3", 0.0, 2.0)]  # no wins: by id


def test_match_command_json(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "m.jsonl", _rounds())], ds)
    result = runner.invoke(app, ["match", str(ds), MID, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    match = doc["match"]
    assert match.pop("first_ingest") == match.pop("last_ingest")
    assert match == {**MATCH_ROW, "totals": {"p1": 61, "p2": 151, "p3": 0}}
    assert doc["rounds"] == [
        {
            "round": k + 1,
            "game_id": GIDS[k],
            "dealer": DEALERS[k],
            "winner": WINNERS[k],
            "valid": True,
            "scores": SCORES[k],
            "totals": TOTALS[k],
        }
        for k in range(3)
    ]
    assert load_match(ds, MID).rounds == doc["rounds"]
    sheet = runner.invoke(app, ["match", str(ds), MID])
    assert sheet.exit_code == 0 and "Score sheet" in sheet.stdout and "151" in sheet.stdout


def test_charts(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "m.jsonl", _rounds())], ds)
    png = tmp_path / "totals.png"
    r = runner.invoke(app, ["match", str(ds), MID, "--chart", "png", "--out", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 5000
    html = tmp_path / "totals.html"
    r = runner.invoke(app, ["match", str(ds), MID, "--chart", "html", "--out", str(html), "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["match"]["winner"] == "p2"  # the JSON is still the output
    text = html.read_text("utf-8")
    assert '<script src="http' not in text and "<script src='http" not in text
    assert "Plotly.newPlot" in text and len(text) > 1_000_000  # plotly.js is embedded
    term = runner.invoke(app, ["match", str(ds), MID, "--chart", "terminal"])
    assert term.exit_code == 0 and "Running totals" in term.stdout and "█" in term.stdout


def test_match_bad_input(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "m.jsonl", _rounds())], ds)
    one_line_error(runner.invoke(app, ["match", str(ds), "nope"]), "no match 'nope'")
    one_line_error(runner.invoke(app, ["match", str(tmp_path / "x"), MID]), "no such dataset")
    one_line_error(runner.invoke(app, ["match", str(ds), MID, "--chart", "svg"]), "--chart must")
    one_line_error(runner.invoke(app, ["match", str(ds), MID, "--chart", "png"]), "needs --out")
    one_line_error(
        runner.invoke(app, ["match", str(ds), MID, "--out", str(tmp_path / "a.png")]), "--out is"
    )
    one_line_error(
        runner.invoke(app, ["match", str(ds), MID, "--chart", "terminal", "--json"]), "--json"
    )
    unwritable = tmp_path / "no-such-dir" / "a.png"
    one_line_error(
        runner.invoke(app, ["match", str(ds), MID, "--chart", "png", "--out", str(unwritable)]),
        "cannot write",
    )
    assert not unwritable.exists()
    plain = tmp_path / "plain"
    games = tmp_path / "g.jsonl"
    rounds = _rounds()
    for r in rounds:  # the same games without match ids: no matches table
        r[0] = r[0].__class__(**{**_fields(r[0]), "match_id": None, "round": None})
    ingest([_write(games, [[e for e in r if not isinstance(e, MatchEnd)] for r in rounds])], plain)
    one_line_error(runner.invoke(app, ["match", str(plain), MID]), "no matches table")


def _fields(ev: Event) -> dict[str, Any]:
    return {f: getattr(ev, f) for f in ev.__struct_fields__}


def test_a_dataset_written_before_matches(tmp_path: Path) -> None:
    """A dataset without the matches table and the results match columns still reads, and
    the next ingest of a round of its match fills both."""
    rounds = _rounds()
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "a.jsonl", rounds[:2])], ds)
    manifest = json.loads((ds / MANIFEST).read_text())
    for rel in manifest["files"]["results"]:  # as an older maumau-log wrote them
        table = pq.read_table(ds / rel, partitioning=None)
        pq.write_table(table.drop_columns(["match_id", "round", "total_after"]), ds / rel)
    for rel in manifest["files"].pop("matches"):
        (ds / rel).unlink()
    manifest.pop("file_info")  # an older maumau-log recorded no sizes or checksums
    manifest["version"] = 1  # (version 2 records them and lists every table)
    (ds / MANIFEST).write_text(json.dumps(manifest))

    assert set(_totals_after(ds).values()) == {(None, None, None)}
    assert scan(ds, "matches").collect().height == 0
    board = runner.invoke(app, ["stats", str(ds), "--format", "json"])
    assert board.exit_code == 0 and len(json.loads(board.stdout)) == 3
    assert (
        json.loads(
            runner.invoke(app, ["stats", str(ds), "--by", "match", "--format", "json"]).stdout
        )
        == []
    )
    one_line_error(runner.invoke(app, ["match", str(ds), MID]), "no matches table")

    ingest([_write(tmp_path / "b.jsonl", rounds[2:])], ds)
    assert _match_row(ds) == MATCH_ROW
    assert _totals_after(ds) == _expected_after()


def test_a_crash_while_recomputing_leaves_the_dataset_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rounds = _rounds()
    ds = tmp_path / "ds"
    ingest([_write(tmp_path / "late.jsonl", rounds[1:])], ds)
    before = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}

    def crash(*args: object) -> None:
        raise KeyboardInterrupt

    # round 1 makes the stored results file of rounds 2-3 be replaced; crash after that
    monkeypatch.setattr(match_records, "_replace_matches", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest([_write(tmp_path / "first.jsonl", rounds[:1])], ds)
    after = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before
    monkeypatch.undo()
    ingest([tmp_path / "first.jsonl"], ds)
    assert _match_row(ds) == MATCH_ROW and _totals_after(ds) == _expected_after()
    csv = runner.invoke(app, ["query", str(ds), "select totals from matches", "--format", "csv"])
    assert (
        json.loads(csv.stdout.splitlines()[1].strip('"').replace('""', '"'))
        == (MATCH_ROW["totals"])
    )
