"""``query`` sees the dataset and nothing else (issue 15, item 1): every file or URL table
function of Polars SQL is refused with exit 2 before anything is read."""

from __future__ import annotations

import json
import time
from pathlib import Path

import polars as pl
import pytest
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401
from maumau_log.cli import app
from maumau_log.sqlguard import FILE_FUNCTIONS, QueryRefused, check_query

runner = CliRunner()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    logs = write_log(tmp_path / "hand.jsonl", hand_games())
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(logs), "--out", str(ds)]).exit_code == 1
    return ds


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.csv"
    path.write_text("user,password\nroot,hunter2\n")
    return path


def test_polars_sql_does_read_files_without_the_guard(secret: Path) -> None:
    # the reason for the sandbox: plain Polars SQL returns the file
    df = pl.SQLContext().execute(f"select * from read_csv('{secret}')", eager=True)
    assert df["password"].to_list() == ["hunter2"]


@pytest.mark.parametrize("function", FILE_FUNCTIONS)
@pytest.mark.parametrize(
    "template",
    [
        "select * from {f}('{p}')",
        "select * from games join {f}('{p}') as x on true",
        "with x as (select * from {f}('{p}')) select * from x",
        "select game_id from games where game_id in (select * from {f}('{p}'))",
        "select (select count(*) from {f}('{p}')) as n",
        "select * from games union all select * from {F}('{p}')",
        "select * from \"{f}\"('{p}')",
    ],
)
def test_every_file_function_is_refused(
    dataset: Path, secret: Path, function: str, template: str
) -> None:
    sql = template.format(f=function, F=function.upper(), p=secret)
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 2, res.output
    assert "hunter2" not in res.output
    assert f"query refused: {function}() is not allowed" in res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("function", FILE_FUNCTIONS)
def test_urls_are_refused_without_touching_the_network(dataset: Path, function: str) -> None:
    t0 = time.perf_counter()
    res = runner.invoke(
        app, ["query", str(dataset), f"select * from {function}('https://192.0.2.1/x')"]
    )
    assert res.exit_code == 2
    assert "query refused" in res.output
    assert time.perf_counter() - t0 < 2.0  # a network attempt would take seconds


def test_other_datasets_and_paths_are_refused(dataset: Path, tmp_path: Path) -> None:
    other = next((dataset / "games").rglob("*.parquet"))
    for sql, why in (
        (f"select * from read_parquet('{other}')", "read_parquet() is not allowed"),
        (f"select * from '{other}'", "bad query: '/"),
        (f'select * from "{other}"', "bad query: '/"),
        ("select * from main.games", "without a schema or catalog"),
        ("select * from passwd", "'passwd' is not a table of the dataset"),
        ("drop table games", "not DROP"),
        ("show tables", "not SHOW"),
        ("select 1; select 2", "exactly one SELECT"),
    ):
        res = runner.invoke(app, ["query", str(dataset), sql])
        assert res.exit_code == 2, (sql, res.output)
        assert why in res.output, (sql, res.output)


def test_dataset_queries_still_run(dataset: Path) -> None:
    res = runner.invoke(
        app,
        [
            "query",
            str(dataset),
            "with w as (select player, cast(won as int) as won from results where valid) "
            "select player, sum(won) as wins from w join games on true "
            "where games.game_id = 'g1' group by player order by player",
            "--format",
            "json",
        ],
    )
    assert res.exit_code == 0, res.output
    # g1 and g2 valid, each won once by ana and ben; joined with the one game g1
    assert json.loads(res.stdout) == [{"player": "ana", "wins": 1}, {"player": "ben", "wins": 1}]
    upper = runner.invoke(app, ["query", str(dataset), "select count(*) as n from GAMES"])
    assert upper.exit_code == 0 and "3" in upper.stdout


def test_check_query_unit() -> None:
    check_query("select * from games g join results r using (game_id)", ["games", "results"])
    with pytest.raises(QueryRefused, match="cannot check the query"):
        check_query("select * from from", ["games"])
    with pytest.raises(QueryRefused, match="table functions are not allowed"):
        check_query("select * from games, lateral read_csv('x')", ["games"])
