"""The dataset commands through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamebuilder import one_line_error
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401  (registers the commands)
from maumau_log.cli import app

runner = CliRunner()


@pytest.fixture
def valid_logs(tmp_path: Path) -> Path:
    return write_log(tmp_path / "valid.jsonl", hand_games()[:2])


@pytest.fixture
def dataset(tmp_path: Path, logs: Path) -> Path:
    ds = tmp_path / "ds"
    result = runner.invoke(app, ["ingest", str(logs), "--out", str(ds)])
    assert result.exit_code == 1, result.output  # g3 is invalid
    return ds


def test_ingest_reports_and_is_idempotent(tmp_path: Path, valid_logs: Path, logs: Path) -> None:
    ds = tmp_path / "ds"
    first = runner.invoke(app, ["ingest", str(valid_logs), "--out", str(ds)])
    assert first.exit_code == 0, first.output
    assert "2 games read (2 valid, 0 invalid): 2 added, 0 already stored, 0 conflicts" in (
        first.output
    )
    again = runner.invoke(app, ["ingest", str(valid_logs), "-o", str(ds)])
    assert again.exit_code == 0
    assert "0 added, 2 already stored" in again.output
    more = runner.invoke(app, ["ingest", str(logs), "-o", str(ds)])
    assert more.exit_code == 1  # g3 is invalid
    assert "1 added, 2 already stored" in more.output


def test_ingest_conflict_exit_1(tmp_path: Path, valid_logs: Path) -> None:
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(valid_logs), "--out", str(ds)]).exit_code == 0
    g1 = hand_games()[0]
    g1[-1] = {"type": "round_end", "winner": "ana"}
    other = write_log(tmp_path / "other.jsonl", [g1])
    result = runner.invoke(app, ["ingest", str(other), "--out", str(ds)])
    assert result.exit_code == 1
    assert "conflict:" in result.output and "'g1'" in result.output
    assert "0 added, 0 already stored, 1 conflict -> " in result.output  # not "1 conflicts"


def test_stats_csv_json_parquet(dataset: Path, tmp_path: Path) -> None:
    csv = runner.invoke(app, ["stats", str(dataset), "--format", "csv"])
    assert csv.exit_code == 0, csv.output
    lines = csv.stdout.strip().splitlines()
    assert lines[0].startswith("player,games,wins,win_rate,win_rate_low,win_rate_high")
    assert [ln.split(",")[:3] for ln in lines[1:]] == [["ana", "2", "1"], ["ben", "2", "1"]]
    js = runner.invoke(app, ["stats", str(dataset), "--format", "json", "--include-invalid"])
    rows = json.loads(js.stdout)
    assert [(r["player"], r["games"], r["wins"]) for r in rows] == [("ana", 3, 1), ("ben", 3, 1)]
    seat = runner.invoke(app, ["stats", str(dataset), "--format", "json", "--by", "seat"])
    assert {(r["player"], r["seat"]) for r in json.loads(seat.stdout)} == {
        ("ana", 0), ("ana", 1), ("ben", 0), ("ben", 1)
    }  # fmt: skip
    since = runner.invoke(
        app, ["stats", str(dataset), "--format", "json", "--since", "2024-05-01", "--player", "ben"]
    )
    assert [(r["player"], r["games"], r["wins"]) for r in json.loads(since.stdout)] == [
        ("ben", 1, 1)
    ]
    alias = runner.invoke(app, ["stats", str(dataset), "--format", "json", "--ruleset", "Classic"])
    assert len(json.loads(alias.stdout)) == 2
    pq = tmp_path / "lb.parquet"
    written = runner.invoke(app, ["stats", str(dataset), "--format", "parquet", "--out", str(pq)])
    assert written.exit_code == 0, written.output
    import pyarrow.parquet as papq

    board = papq.read_table(pq).to_pylist()
    assert [(r["player"], r["games"], r["wins"]) for r in board] == [("ana", 2, 1), ("ben", 2, 1)]
    out_csv = tmp_path / "lb.csv"
    res = runner.invoke(app, ["stats", str(dataset), "--format", "csv", "--out", str(out_csv)])
    assert res.exit_code == 0, res.output
    assert out_csv.read_text() == csv.stdout  # the same table, written to the file
    table = runner.invoke(app, ["stats", str(dataset)])
    assert table.exit_code == 0 and "Leaderboard" in table.stdout


def test_stats_bad_input(dataset: Path, tmp_path: Path) -> None:
    one_line_error(runner.invoke(app, ["stats", str(tmp_path / "nope")]), "no such dataset")
    (tmp_path / "plain").mkdir()
    one_line_error(runner.invoke(app, ["stats", str(tmp_path / "plain")]), "not a maumau-log")
    one_line_error(runner.invoke(app, ["stats", str(dataset), "--since", "yesterday"]), "YYYY")
    one_line_error(runner.invoke(app, ["stats", str(dataset), "--format", "xml"]), "csv")
    one_line_error(runner.invoke(app, ["stats", str(dataset), "--by", "colour"]), "seat")
    one_line_error(
        runner.invoke(app, ["stats", str(dataset), "--format", "parquet"]), "needs --out"
    )


def test_game_view(dataset: Path) -> None:
    result = runner.invoke(app, ["game", str(dataset), "g1", "--at", "13"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "State after event 13 of 0 to 22" in text and "play by ana QD" in text
    assert "10C AS 10S QS AC 7S" in text  # ben's hand, rebuilt
    # the result table says who won in words, not Python's True/False
    rows = [ln.split() for ln in text.splitlines() if ln.split()[1:2] in (["ana"], ["ben"])]
    assert [r[:3] for r in rows if r[0] in ("0", "1")] == [["0", "ana", "yes"], ["1", "ben", "no"]]
    assert "True" not in text and "False" not in text
    js = runner.invoke(app, ["game", str(dataset), "g1", "--at", "14", "--json"])
    doc = json.loads(js.stdout)
    assert doc["at"] == 14 and doc["event"]["type"] == "penalty"
    assert doc["state"]["hands"]["ana"] == ["QC", "9S", "10D"]
    assert doc["game"]["winner"] == "ana" and len(doc["results"]) == 2
    bad = runner.invoke(app, ["game", str(dataset), "g3", "--json"])
    doc = json.loads(bad.stdout)
    assert doc["violations"][0]["code"] == "card_not_in_hand" and doc["at"] == 2
    invalid_view = runner.invoke(app, ["game", str(dataset), "g3"])
    assert "card_not_in_hand" in invalid_view.stdout


def test_game_bad_input(dataset: Path, tmp_path: Path) -> None:
    one_line_error(runner.invoke(app, ["game", str(dataset), "nope"]), "no game 'nope'")
    one_line_error(
        runner.invoke(app, ["game", str(dataset), "g1", "--at", "99"]), "--at takes 0..22, not 99"
    )
    one_line_error(runner.invoke(app, ["game", str(tmp_path / "x"), "g1"]), "no such dataset")


def test_query(dataset: Path) -> None:
    sql = "SELECT player, SUM(cards_played) AS played FROM results GROUP BY player ORDER BY player"
    result = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {"player": "ana", "played": 8 + 5 + 1},
        {"player": "ben", "played": 5 + 5 + 0},
    ]
    csv = runner.invoke(
        app, ["query", str(dataset), "SELECT game_id, cards FROM events WHERE type = 'draw'",
              "--format", "csv"],
    )  # fmt: skip
    assert csv.exit_code == 0, csv.output
    assert "g1,AC 8D" in csv.stdout
    joined = runner.invoke(
        app,
        ["query", str(dataset),
         "SELECT g.game_id, v.code FROM games g JOIN violations v ON g.game_id = v.game_id"],
    )  # fmt: skip
    assert joined.exit_code == 0 and "card_not_in_hand" in joined.stdout
    limited = runner.invoke(app, ["query", str(dataset), "SELECT * FROM events", "--limit", "3"])
    assert "showing 3 of 44 rows" in limited.output


def test_query_bad_input(dataset: Path, tmp_path: Path) -> None:
    one_line_error(runner.invoke(app, ["query", str(dataset), "SELEC nothing"]), "bad query")
    one_line_error(
        runner.invoke(app, ["query", str(dataset), "SELECT nope FROM games"]), "bad query"
    )
    one_line_error(runner.invoke(app, ["query", str(dataset), "SELECT * FROM nope"]), "bad query")
    one_line_error(runner.invoke(app, ["query", str(tmp_path / "x"), "SELECT 1"]), "no such")


def test_analyze(
    tmp_path: Path, logs: Path, valid_logs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ok = runner.invoke(app, ["analyze", str(valid_logs)])
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "maumau-data" / "maumau-dataset.json").exists()
    assert "2 games: 2 valid, 0 invalid" in ok.output
    assert "Leaderboard" in ok.stdout and "ana" in ok.stdout
    bad = runner.invoke(app, ["analyze", str(logs), "--out", str(tmp_path / "other")])
    assert bad.exit_code == 1
    assert "card_not_in_hand" in bad.output and "3 games: 2 valid, 1 invalid" in bad.output


def test_analyze_bad_input(tmp_path: Path) -> None:
    one_line_error(runner.invoke(app, ["analyze", str(tmp_path / "missing.jsonl")]), "missing")
    assert not (tmp_path / "maumau-data").exists()
