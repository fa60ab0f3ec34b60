"""``query`` asked the impossible: a clear "bad query" and exit 2, never an internal error.

The query text comes from the command line (a byte the locale cannot decode reaches
Python as a lone surrogate); Polars panics on a decimal type beyond 38 digits (a Rust
panic, printed with a backtrace on the stderr descriptor) and computes dates Python
cannot show (beyond year 9999). Each is the query's fault, told in one line.
"""

from __future__ import annotations

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


def test_ordinary_query_still_answers(dataset: Path) -> None:
    res = runner.invoke(app, ["query", str(dataset), "select count(*) as n from games",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0 and res.stdout == '[{"n": 3}]\n'
