"""``query`` sees the dataset and nothing else: every file or URL table function of Polars SQL
is refused with exit 2 before anything is read, Polars runs only the SQL the sandbox
generated from the tree it checked, and nesting is bounded (``maumau_log/store/sqlguard.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401
from maumau_log.cli import app
from maumau_log.store import sqlguard
from maumau_log.store.sqlguard import (
    FILE_FUNCTIONS,
    MAX_NESTING,
    BadQuery,
    QueryRefused,
    QueryTooDeep,
    check_query,
    nesting_depth,
    run_query,
    unsafe_spot,
)

runner = CliRunner()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    logs = write_log(tmp_path / "hand.jsonl", hand_games())
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(logs), "--out", str(ds)]).exit_code == 1
    return ds


@pytest.fixture
def executed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL text handed to Polars (``SQLContext.execute``) while the test runs."""
    seen: list[str] = []
    real = pl.SQLContext.execute

    def spy(self: pl.SQLContext, query: str, **kwargs: object) -> object:
        seen.append(query)
        return real(self, query, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pl.SQLContext, "execute", spy)
    return seen


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


# A bare carriage return ends a "--" comment for sqlglot and not for Polars: sqlglot read
# the quote after it as opening a literal that hid the rest, Polars read a comment to the
# line feed and then the table function. The query was checked as harmless and Polars
# returned the file (exit 0, "hunter2" printed).


def test_a_carriage_return_comment_cannot_hide_a_file_read_in_a_dollar_string(
    dataset: Path, secret: Path, executed: list[str]
) -> None:
    sql = f"SELECT * --\r, $$\nFROM read_csv('{secret}') --$$"
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "hunter2" not in res.output
    # what sqlglot checked is what ran: the select list and one string literal
    assert executed == [f"SELECT *, '\nFROM read_csv(''{secret}'') --'"]
    assert json.loads(res.stdout) == [{"literal": f"\nFROM read_csv('{secret}') --"}]


def test_a_carriage_return_comment_cannot_hide_a_file_read_in_a_quoted_name(
    dataset: Path, secret: Path, executed: list[str]
) -> None:
    sql = f"SELECT * --\r, \"\nFROM read_csv('{secret}') --\""
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 2, res.output
    assert "hunter2" not in res.output
    assert executed == [f"SELECT *, \"\nFROM read_csv('{secret}') --\""]  # a column name
    assert res.output.startswith('error: bad query: unable to find column "\\nFROM read_csv(')


def test_other_line_ends_and_quotes_cannot_hide_a_file_read(
    dataset: Path, secret: Path, executed: list[str]
) -> None:
    for sql in (
        f"SELECT * --\u2028, $$\nFROM read_csv('{secret}') --$$",
        f"SELECT * --\x0b FROM games, $$\nFROM read_csv('{secret}') --$$",
        f"SELECT * /* \r */ FROM games, $q$\nFROM read_csv('{secret}') --$q$",
        f"SELECT E'\\' FROM read_csv(''{secret}'') --' AS x",
        f"SELECT * FROM (read_csv('{secret}'))",
        f"SELECT * FROM games, `read_csv`('{secret}')",
    ):
        res = runner.invoke(app, ["query", str(dataset), sql, "--format", "csv"])
        assert res.exit_code in (0, 2), (sql, res.output)
        assert "hunter2" not in res.output, sql
        assert all("read_csv(" not in q.replace(f"''{secret}''", "") for q in executed), sql


def test_polars_runs_the_generated_sql_not_the_users_text(
    dataset: Path, executed: list[str]
) -> None:
    sql = (
        "select player, count(*) as n -- the count\r\n"
        "from results /* all */ group by player order by player"
    )
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 0, res.output
    # three games, two seats each: one results row per seat
    assert json.loads(res.stdout) == [{"player": "ana", "n": 3}, {"player": "ben", "n": 3}]
    assert executed == [
        'SELECT "player", COUNT(*) AS "n" FROM "results" GROUP BY "player" ORDER BY "player"'
    ]


def test_checked_sql_is_a_fixed_point() -> None:
    tables = ["games", "results"]
    checked = check_query("select g.game_id from games g --\r\n where g.valid", tables)
    assert checked == 'SELECT "g"."game_id" FROM "games" AS "g" WHERE "g"."valid"'
    assert check_query(checked, tables) == checked
    # U+2028 is no line end for either parser: the rest of the line is a comment
    assert check_query("SELECT 1 AS x --\u2028, 2 AS y", tables) == 'SELECT 1 AS "x"'


def test_writes_and_parameters_are_refused(dataset: Path) -> None:
    for sql, why in (
        ("SELECT * INTO x FROM games", "bad query: only queries (SELECT ...) are run, not INTO"),
        ("SELECT $1", "bad query: query parameters ($1, ?, :name) are not supported"),
        ("SELECT ?", "bad query: query parameters ($1, ?, :name) are not supported"),
    ):
        res = runner.invoke(app, ["query", str(dataset), sql])
        assert res.exit_code == 2, (sql, res.output)
        assert res.output == f"error: {why}; the dataset is read-only\n" or (
            res.output == f"error: {why}\n"
        ), res.output


DEEP = [
    ("SELECT " + "(" * 60 + "1" + ")" * 60, 60),
    ("SELECT " + "(" * 1000 + "1" + ")" * 1000, 1000),
    ("SELECT * FROM " + "(SELECT * FROM " * 60 + "games" + ") AS s" * 60, 60),
    ("SELECT 1 WHERE 1 IN " + "(SELECT 1 WHERE 1 IN " * 40 + "(1)" + ")" * 40, 41),
    ("SELECT " + "NOT " * 100 + "TRUE", 100),
    ("SELECT " + "CASE WHEN TRUE THEN " * 40 + "1" + " END" * 40, 40),
    ("SELECT " + "abs(" * 33 + "1" + ")" * 33, 33),
]


@pytest.mark.parametrize(
    ("sql", "levels"), DEEP, ids=[f"{n}-levels-{i}" for i, (_, n) in enumerate(DEEP)]
)
def test_deep_nesting_is_refused_with_exit_2(dataset: Path, sql: str, levels: int) -> None:
    res = runner.invoke(app, ["query", str(dataset), sql])
    assert res.exit_code == 2, res.output
    assert res.output == (
        f"error: bad query: query too deeply nested: {levels} levels of brackets, CASE or "
        f"prefix operators, at most {MAX_NESTING}\n"
    )


def test_deep_nesting_is_exit_2_from_the_installed_command(dataset: Path, secret: Path) -> None:
    # the command maps an uncaught error to exit 3 ("internal error"): 60 parentheses did
    for sql, expected in (
        ("SELECT " + "(" * 60 + "1" + ")" * 60, "query too deeply nested: 60 levels"),
        (f"SELECT * --\r, $$\nFROM read_csv('{secret}') --$$", None),
    ):
        res = subprocess.run(
            [sys.executable, "-m", "maumau_log", "query", str(dataset), sql, "--format", "csv"],
            capture_output=True,
            text=True,
        )
        assert "hunter2" not in res.stdout + res.stderr
        assert "internal error" not in res.stderr
        if expected is None:
            assert res.returncode == 0, res.stderr
            # the string literal, its line feed escaped as the CSV output does
            assert res.stdout == f"literal\n\\u000aFROM read_csv('{secret}') --\n"
        else:
            assert res.returncode == 2, res.stderr
            assert expected in res.stderr


def test_a_long_operator_chain_is_refused_with_exit_2(dataset: Path) -> None:
    sql = "SELECT " + " + ".join(["1"] * 300) + " AS x"
    res = runner.invoke(app, ["query", str(dataset), sql])
    assert res.exit_code == 2, res.output
    # 299 additions nest 299 deep, under the select and its alias
    assert res.output.startswith(
        "error: bad query: query too deeply nested: a syntax tree 302 levels deep, at most 256"
    )


def test_the_nesting_limit_itself_runs(dataset: Path) -> None:
    sql = "SELECT " + "(" * MAX_NESTING + "1" + ")" * MAX_NESTING + " AS x"
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"x": 1}]
    chain = "SELECT " + " + ".join(["1"] * 250) + " AS x"
    res = runner.invoke(app, ["query", str(dataset), chain, "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"x": 250}], res.output


def test_nesting_depth_counts_brackets_case_and_prefix_runs() -> None:
    def depth(sql: str) -> int:
        return nesting_depth(sqlguard._DIALECT.tokenize(sql))

    assert depth("SELECT 1") == 0
    assert depth("SELECT (1 + (2)) + [3]") == 2
    assert depth("SELECT CASE WHEN (a) THEN 1 END") == 2
    assert depth("SELECT NOT NOT x, - - -1") == 3
    assert depth("SELECT ')))((('") == 0  # brackets inside a literal are text


def test_unsafe_spot_scans_outside_literals() -> None:
    assert unsafe_spot('SELECT "a--b" FROM "t" WHERE "s" = \'it\'\'s -- /* $\'') is None
    assert unsafe_spot("SELECT 1 --x") == "a comment mark '--' at offset 9"
    assert unsafe_spot("SELECT 1 /* x */") == "a comment mark '/*' at offset 9"
    assert unsafe_spot("SELECT E'x'") == "a prefixed or adjacent quote at offset 8"
    assert unsafe_spot("SELECT 'a''b''c'") is None
    assert unsafe_spot("SELECT 'a' 'b'") is None
    assert unsafe_spot("SELECT 'a''b'") is None
    assert unsafe_spot("SELECT \"a\"'b'") == "a prefixed or adjacent quote at offset 10"
    assert unsafe_spot("SELECT $$x$$") == "the character '$' at offset 7"
    assert unsafe_spot("SELECT 'x") == "an unclosed quote at offset 7"
    assert unsafe_spot("SELECT\r1") == "the character '\\r' at offset 6"
    assert unsafe_spot("SELECT `a`") == "the character '`' at offset 7"


def test_the_plan_check_stops_a_file_read_the_first_line_missed(
    dataset: Path, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as if parsing and checking had let a table function through
    monkeypatch.setattr(
        sqlguard, "check_query", lambda sql, tables: f"SELECT * FROM read_csv('{secret}')"
    )
    res = runner.invoke(app, ["query", str(dataset), "select 1", "--format", "json"])
    assert res.exit_code == 2, res.output
    assert "hunter2" not in res.output
    assert res.output.startswith(
        f"error: query refused: the query's plan reads 'Csv SCAN [{secret}]', not a table of "
        "the dataset"
    )


def test_run_query_is_the_lazy_checked_query(dataset: Path) -> None:
    from maumau_log.store import scan_all

    frame = run_query(scan_all(dataset), "select count(*) as n from games where valid")
    assert isinstance(frame, pl.LazyFrame)
    assert frame.collect().to_dicts() == [{"n": 2}]  # g1 and g2 valid, g3 not
    with pytest.raises(QueryTooDeep, match="query too deeply nested"):
        run_query(scan_all(dataset), "SELECT " + "(" * 40 + "1" + ")" * 40)
    with pytest.raises(BadQuery, match="'nope' is not a table of the dataset"):
        run_query(scan_all(dataset), "select * from nope")


def test_a_fault_inside_the_parser_refuses_the_query(
    dataset: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(sql: str, allowed: set[str]) -> str:
        raise TypeError("unhashable type: 'list'")

    monkeypatch.setattr(sqlguard, "_checked_sql", broken)
    res = runner.invoke(app, ["query", str(dataset), "select 1"])
    assert res.exit_code == 2, res.output
    assert res.output == (
        "error: bad query: cannot check the query, so it is not run: the SQL parser failed "
        "(TypeError: unhashable type: 'list')\n"
    )
