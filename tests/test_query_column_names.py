"""The columns ``query`` answers with are named as the query reads: an unnamed COUNT(*) is
``count`` (Polars alone would call it ``len``, after its own function)."""

from __future__ import annotations

import polars as pl

from maumau_log.store.sqlguard import check_query, run_query

TABLES = {"games": pl.LazyFrame({"ruleset": ["classic", "classic", "standard"], "n": [1, 2, 3]})}


def columns(sql: str) -> tuple[list[str], list[tuple[object, ...]]]:
    answer = run_query(TABLES, sql).collect()
    return answer.columns, sorted(answer.rows(), key=repr)


def test_an_unnamed_count_star_is_named_count() -> None:
    assert columns("SELECT COUNT(*) FROM games") == (["count"], [(3,)])
    assert columns("select ruleset, count(*) from games group by ruleset") == (
        ["ruleset", "count"],
        [("classic", 2), ("standard", 1)],
    )


def test_the_name_count_is_what_polars_runs_and_a_fixed_point() -> None:
    checked = check_query("select count(*) from games", TABLES)
    assert checked == 'SELECT COUNT(*) AS "count" FROM "games"'
    assert check_query(checked, TABLES) == checked


def test_a_count_in_a_subquery_is_read_by_its_name() -> None:
    assert columns("select count from (select count(*) from games)") == (["count"], [(3,)])


def test_a_count_star_the_query_named_keeps_its_name() -> None:
    assert columns("select count(*) as games from games") == (["games"], [(3,)])


def test_count_star_beside_a_column_named_count_is_left_to_polars() -> None:
    # naming it count too would give two columns of one name
    assert columns("select count(*), max(ruleset) as count from games") == (
        ["len", "count"],
        [(3, "standard")],
    )
