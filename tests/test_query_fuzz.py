"""Differential fuzzing of the ``query`` sandbox: whatever the text, Polars gets either nothing
(the sandbox refuses) or SQL that reads only the dataset's tables.

Longer by hand: ``MAUMAU_FUZZ_EXAMPLES=20000 pytest tests/test_query_fuzz.py -n 0``
(the suite runs a few hundred examples).

Generated queries mix comments (``--``, ``/* */``, nested), every line ending, every quote
(single, double, dollar, backtick, ``E''``, ``U&''``), unicode, and the file table functions
with paths to canary files outside the dataset. For each query the SQL that reaches Polars
(captured at ``SQLContext.execute``) is parsed again by sqlglot in three dialects and
scanned by a plain state machine; it is then run against a three-game dataset, and the
planned scans and the answer must show nothing of the canary files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
import sqlglot
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from sqlglot import exp
from test_records import hand_games, write_log
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401
from maumau_log.cli import app
from maumau_log.store import scan_all, sqlguard

EXAMPLES = int(os.environ.get("MAUMAU_FUZZ_EXAMPLES", "300"))
MARK = "CANARY7F3A"
"""The value every canary file holds: it must never come back in an answer."""

_EXECUTE = pl.SQLContext.execute


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    root = tmp_path_factory.mktemp("query_fuzz")
    logs = write_log(root / "hand.jsonl", hand_games())
    ds = root / "ds"
    assert CliRunner().invoke(app, ["ingest", str(logs), "--out", str(ds)]).exit_code == 1
    outside = root / "outside"
    outside.mkdir()
    frame = pl.DataFrame({"secret": [MARK]})
    frame.write_csv(outside / "canary.csv")
    frame.write_parquet(outside / "canary.parquet")
    frame.write_ipc(outside / "canary.ipc")
    frame.write_ndjson(outside / "canary.ndjson")
    own = {str(p) for p in ds.rglob("*.parquet")}
    yield {"ds": ds, "outside": outside, "tables": scan_all(ds), "own": own}


COMMENTS = ["--", "/*", "*/", "/* /* */", "/* /* */ */", "#", "//"]
EOLS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\x00", "\t"]
QUOTES = ["'", '"', "$$", "$x$", "`", "E'", "e'", "U&'", "N'", "X'", "''", '""', "\\", "\\'",
          "[", "]"]  # fmt: skip
FUNCS = ["read_csv", "READ_CSV", "read_parquet", "read_ipc", "read_json", "read_ndjson",
         "scan_csv", '"read_csv"', "`read_csv`", "Read_Csv", "main.read_csv"]  # fmt: skip
UNICODE = ["ü", "\u200b", "\ufeff", "\u00a0", "😀", "\u202e", "ı", "ſ"]
GLUE = [" ", ",", "SELECT", "SELECT *", "FROM", "games", "results", "(", ")", "UNION ALL",
        "AS x", ";", "1", "x", "WHERE", "=", "'a'", "*", "WITH x AS (SELECT 1)", "LATERAL",
        "JOIN", "ON TRUE", "VALUES (1)", "CASE WHEN", "END", "||", "::", "E"]  # fmt: skip
TARGETS = ["canary.csv", "canary.parquet", "canary.ipc", "canary.ndjson"]


def _call(func: str, target: str, quote: str = "'") -> str:
    return f"{func}({quote}{{out}}/{target}{quote})"


fragments = st.one_of(
    st.sampled_from(COMMENTS),
    st.sampled_from(EOLS),
    st.sampled_from(QUOTES),
    st.sampled_from(UNICODE),
    st.sampled_from(GLUE),
    st.builds(
        _call, st.sampled_from(FUNCS), st.sampled_from(TARGETS), st.sampled_from(["'", "$$", '"'])
    ),
    st.sampled_from(
        [
            "'{out}/canary.csv'",
            '"{out}/canary.parquet"',
            "'https://192.0.2.1/x'",
            "'file://{out}/canary.csv'",
        ]
    ),
    st.text(max_size=3),
)


@st.composite
def hiding(draw: st.DrawFn) -> str:
    """The shape of the known bypass: a comment one parser ends early, then a quote that
    hides the table function from the other."""
    return (
        f"SELECT {draw(st.sampled_from(['*', '1', 'count(*)', 'game_id']))} "
        f"{draw(st.sampled_from(COMMENTS))}{draw(st.sampled_from(EOLS))}"
        f"{draw(st.sampled_from(['', ', ', ' FROM games ', ' FROM games, ']))}"
        f"{draw(st.sampled_from(QUOTES))}{draw(st.sampled_from(EOLS))}"
        f"FROM {_call(draw(st.sampled_from(FUNCS)), draw(st.sampled_from(TARGETS)))} "
        f"{draw(st.sampled_from(COMMENTS))}{draw(st.sampled_from(QUOTES))}"
    )


hostile = st.lists(
    st.one_of(
        st.sampled_from(COMMENTS + EOLS + QUOTES + UNICODE),
        st.builds(_call, st.sampled_from(FUNCS), st.sampled_from(TARGETS)),
        st.text(max_size=3),
    ),
    max_size=6,
).map("".join)
"""Text for inside literals, names and comments: quotes, comment marks, line ends, calls."""

separators = st.one_of(
    st.just(" "),
    st.sampled_from(EOLS),
    st.builds(lambda t, e: f" --{t}{e}", hostile, st.sampled_from(EOLS)),
    st.builds(lambda t: f" /*{t}*/ ", hostile),
)


@st.composite
def literal(draw: st.DrawFn) -> str:
    text = draw(hostile)
    form = draw(st.sampled_from(["single", "dollar", "tagged", "escaped", "number"]))
    if form == "single":
        return "'" + text.replace("'", "''") + "'"
    if form == "dollar" and "$$" not in text:
        return f"$${text}$$"
    if form == "tagged" and "$q$" not in text:
        return f"$q${text}$q$"
    if form == "escaped":
        return "E'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "1"


@st.composite
def structured(draw: st.DrawFn) -> str:
    """A well-formed query with hostile text in every literal, name and comment, and any
    separator between its tokens: most of these pass the check and reach Polars."""
    sep = lambda: draw(separators)  # noqa: E731
    items = []
    for _ in range(draw(st.integers(1, 3))):
        value = draw(st.one_of(literal(), st.sampled_from(["game_id", "*", "count(*)"])))
        alias = '"' + (draw(hostile) or "x").replace('"', '""') + '"'  # Polars: no empty names
        items.append(value if value == "*" else f"{value}{sep()}AS{sep()}{alias}")
    table = draw(st.sampled_from(["games", "results", '"games"', "GAMES"]))
    sql = f"SELECT{sep()}{(',' + sep()).join(items)}{sep()}FROM{sep()}{table}"
    if draw(st.booleans()):
        sql += f"{sep()}WHERE{sep()}game_id{sep()}={sep()}{draw(literal())}"
    if draw(st.booleans()):
        sql += f"{sep()}LIMIT{sep()}1"
    return sql + draw(st.one_of(st.just(""), separators))


malformed = st.one_of(
    hiding(),
    st.lists(fragments, min_size=1, max_size=14).map("".join),
    st.lists(st.sampled_from(GLUE + COMMENTS + EOLS + QUOTES), max_size=20).map(" ".join),
)

_CALL = re.compile(r'(?i)("?)\b(read|scan)_\w*\1\s*\(')
"""A call of a read_/scan_ function, its name bare or quoted (``AS "read_x"(c)`` is an alias
with column names, not a call: the caller skips those)."""


def file_calls(bare: str) -> list[str]:
    return [m.group(0) for m in _CALL.finditer(bare) if not bare[: m.start()].endswith("AS ")]


def outside_literals(sql: str) -> str:
    """The text with every '...' literal as '_' and every "..." name as itself when it is a
    plain word, else "_" (a plain state machine: a doubled quote is a quote inside)."""
    out, i = [], 0
    while i < len(sql):
        quote = sql[i]
        if quote not in "'\"":
            out.append(quote)
            i += 1
            continue
        j = i + 1
        while True:
            j = sql.find(quote, j)
            assert j >= 0, f"unclosed quote in executed SQL: {sql!r}"
            if sql.startswith(quote * 2, j):
                j += 2
                continue
            break
        inner = sql[i + 1 : j]
        keep = quote == '"' and re.fullmatch(r"\w+", inner, re.ASCII) is not None
        out.append(f"{quote}{inner if keep else '_'}{quote}")
        i = j + 1
    return "".join(out)


def assert_reads_only_tables(sql: str, tables: set[str], outside: Path) -> None:
    """The executed SQL names no file function, no path and no other table, read by three
    sqlglot dialects and by the token scan."""
    assert sqlguard.unsafe_spot(sql) is None, sql
    bare = outside_literals(sql)
    assert not file_calls(bare), sql
    assert str(outside) not in bare and "://" not in bare, sql
    for dialect in (sqlguard._DIALECT, "duckdb", "postgres"):
        try:
            trees = [t for t in sqlglot.parse(sql, read=dialect) if t is not None]
        except sqlglot.errors.SqlglotError:
            continue  # that dialect cannot read it; the others still check
        assert len(trees) == 1, (dialect, sql)
        ctes = {str(c.alias_or_name).lower() for c in trees[0].find_all(exp.CTE)}
        for node in trees[0].walk():
            if isinstance(node, exp.Func):
                name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
                assert not str(name).lower().startswith(("read_", "scan_")), (dialect, sql)
            if isinstance(node, exp.Table):
                assert isinstance(node.this, exp.Identifier), (dialect, sql)
                assert node.name.lower() in tables | ctes, (dialect, sql)


def scanned_paths(frame: pl.LazyFrame) -> set[str] | None:
    """Every file the plan scans, from Polars' plan traverser (an internal API, so only here
    in the tests): None when this Polars has no traverser."""
    try:
        nt = frame._ldf.visit()
    except Exception:
        return None
    paths: set[str] = set()
    stack = [nt.get_node()]
    while stack:
        nt.set_node(stack.pop())
        node = nt.view_current_node()
        if type(node).__name__ == "Scan":
            paths.update(str(p) for p in node.paths)
        stack.extend(nt.get_inputs())
    return paths


FUZZ = settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(query=structured())
def test_well_formed_hostile_queries_reach_polars_only_as_checked(
    world: dict[str, object], query: str
) -> None:
    polars_gets_only_checked_sql(world, query)


@FUZZ
@given(query=malformed)
@example(query="SELECT * --\r, $$\nFROM read_csv('{out}/canary.csv') --$$")
@example(query="SELECT * --\r, \"\nFROM read_csv('{out}/canary.csv') --\"")
@example(query="SELECT * --\r FROM games, '\nFROM read_csv(''{out}/canary.csv'') --'")
@example(query="SELECT 1 --\u2028, 2 FROM read_csv('{out}/canary.csv')")
@example(query="SELECT 'a\\', ' FROM read_csv(''{out}/canary.csv'') --'")
@example(query="SELECT * FROM (read_csv('{out}/canary.csv'))")
def test_malformed_and_hiding_queries_reach_polars_only_as_checked(
    world: dict[str, object], query: str
) -> None:
    polars_gets_only_checked_sql(world, query)


def polars_gets_only_checked_sql(world: dict[str, object], query: str) -> None:
    """Either the sandbox refuses ``query``, or Polars is handed exactly the checked SQL,
    which reads only the dataset's tables, and its plan and answer show no canary file."""
    outside = world["outside"]
    tables = world["tables"]
    assert isinstance(outside, Path) and isinstance(tables, dict)
    sql = query.replace("{out}", str(outside))
    try:
        checked = sqlguard.check_query(sql, tables)
    except sqlguard.QueryRefused as exc:
        event(f"refused: {type(exc).__name__}")
        return
    assert_reads_only_tables(checked, set(tables), outside)
    seen: list[str] = []

    def spy(self: pl.SQLContext, query: str, **kwargs: object) -> object:
        seen.append(query)
        return _EXECUTE(self, query, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pl.SQLContext, "execute", spy)
        try:
            frame = sqlguard.run_query(tables, sql)
            paths = scanned_paths(frame)
            answer = frame.collect()
        except pl.exceptions.PolarsError:
            event("checked; Polars cannot plan it")
            assert seen == [checked]
            return
    event("checked and run")
    assert seen == [checked]
    if paths is not None:
        assert paths <= world["own"], paths  # type: ignore[operator]
    assert MARK not in str(answer.rows()), answer
