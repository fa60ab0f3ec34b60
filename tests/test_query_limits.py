"""``query`` asked the impossible: a clear "bad query" and exit 2, never an internal error.

The query text comes from the command line (a byte the locale cannot decode reaches
Python as a lone surrogate); Polars panics on a decimal type beyond 38 digits (a Rust
panic, printed with a backtrace on the stderr descriptor) and computes dates Python
cannot show (beyond year 9999). Each is the query's fault, told in one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # noqa: F401  (registers the commands)
from maumau_log.cli import app
from maumau_log.run.ingest import ingest

runner = CliRunner()


@pytest.fixture
def dataset(tmp_path: Path, logs: Path) -> Path:
    ds = tmp_path / "ds"
    ingest([logs], ds)
    return ds


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_undecodable_byte_in_the_query_is_a_bad_query_at_its_position(dataset: Path) -> None:
    # argv b"select '\xff'" decodes (surrogateescape) to "select '\udcff'"
    sql = b"select '\xff'".decode("utf-8", "surrogateescape")
    res = runner.invoke(app, ["query", str(dataset), sql])
    assert res.exit_code == 2
    assert _flat(res.output).startswith(
        "error: bad query: character 9 of the query is not text (the byte 0xff is not UTF-8)"
    )


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "select cast('1' as decimal(50,2)) as d",
            "error: bad query: assertion failed: dec128_verify_prec_scale(p, s).is_ok()",
        ),
        (
            "select cast(1 as decimal(38,40)) as d",
            "error: bad query: assertion failed: "
            "dec128_verify_prec_scale(to_precision, to_scale).is_ok()",
        ),
    ],
)
def test_polars_panic_is_a_bad_query_without_backtrace(
    dataset: Path, sql: str, message: str
) -> None:
    """Run as a process: the panic's backtrace goes to descriptor 2, past ``sys.stderr``."""
    res = subprocess.run(
        [sys.executable, "-m", "maumau_log", "query", str(dataset), sql],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    assert res.stderr.strip() == message
    assert "panicked" not in res.stderr and "backtrace" not in res.stderr


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_date_beyond_year_9999_is_a_bad_query_when_shown(dataset: Path, fmt: str) -> None:
    sql = "select now() + interval '9999999999 days' as t"
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", fmt])
    assert res.exit_code == 2
    assert _flat(res.output) == (
        "error: bad query: cannot show the result: year -92944 is out of range"
    )


def test_date_beyond_year_9999_as_csv_is_printed_as_polars_writes_it(dataset: Path) -> None:
    sql = "select cast(now() + interval '9999999999 days' as date) as t"
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "csv"])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == "t"
    assert res.stdout.splitlines()[1].startswith("-92944-")


def test_ordinary_query_still_answers(dataset: Path) -> None:
    res = runner.invoke(app, ["query", str(dataset), "select count(*) as n from games",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0 and res.stdout == '[{"n": 3}]\n'


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "select lpad('a', 100000000000, 'x') as s",
            "lpad() of 100,000,000,000 is over the limit of 1,000,000 characters",
        ),
        (
            "select rpad('a', 1000001, 'x') as s",
            "rpad() of 1,000,001 is over the limit of 1,000,000 characters",
        ),
        (
            "select repeat('a', 1e9) as s",
            "repeat() of 1,000,000,000 is over the limit of 1,000,000 characters",
        ),
        (
            "select range(1, 100000000000) as r",
            "range() of 99,999,999,999 is over the limit of 1,000,000 values",
        ),
        (
            "select generate_series(0, 20000000, 10) as r",
            "generate_series() of 2,000,000 is over the limit of 1,000,000 values",
        ),
    ],
)
def test_literal_size_over_the_limit_is_refused_before_running(
    dataset: Path, sql: str, message: str
) -> None:
    res = runner.invoke(app, ["query", str(dataset), sql])
    assert res.exit_code == 2
    assert _flat(res.output) == f"error: bad query: {message} a query may ask for"


def test_literal_size_at_the_limit_still_runs(dataset: Path) -> None:
    sql = "select length(rpad('a', 1000000, 'x')) as n"
    res = runner.invoke(app, ["query", str(dataset), sql, "--format", "json"])
    assert res.exit_code == 0 and res.stdout == '[{"n": 1000000}]\n'
