"""The ``query`` sandbox: SQL may name the dataset's tables and nothing else (issue 15, item 1).

Polars SQL has table functions that read any file or URL the process can reach
(``read_csv``, ``read_parquet``, ``read_ipc``, ``read_json``, ``read_ndjson``, in FROM or in
a subquery, with a local path or an ``https://`` URL). A dataset is often queried by someone
other than its owner (a club site, an operator's dashboard), so ``query`` must not be a way
to read ``/etc/passwd``, another dataset or the network.

The check runs *before* Polars sees the query, on a parse by sqlglot (a maintained SQL
parser; Polars' own parser is not exposed, and Polars reads a file's schema as soon as it
plans a query, so a check of the plan would come too late). It is a whitelist, not a list of
forbidden names:

- exactly one statement, and it is a query (SELECT, WITH, UNION/INTERSECT/EXCEPT, VALUES):
  no CREATE, DROP, COPY, SHOW, EXPLAIN, SET, ...;
- every relation in FROM or JOIN (at any depth: subqueries, CTEs, set operations) is a
  plain name, without catalog or schema, that is one of the dataset's tables or a CTE
  defined in the query; a function call, a string or a quoted path there is refused;
- no function whose name starts with ``read_`` or ``scan_`` appears anywhere.

A query sqlglot cannot parse is refused too (with sqlglot's message): the sandbox never
lets through what it could not check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

FILE_FUNCTIONS: tuple[str, ...] = (
    "read_csv",
    "read_parquet",
    "read_ipc",
    "read_json",
    "read_ndjson",
)
"""The table functions Polars SQL offers for reading files and URLs (Polars 1.x/2.x); each is
refused (and tested), as is any other ``read_*`` or ``scan_*`` name."""

_QUERY_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)


class QueryRefused(ValueError):
    """A query that names something other than the dataset's tables, or is not a query.

    The message says what was refused and what is allowed, in one line.
    """


class BadQuery(QueryRefused):
    """Not a query over the dataset: unparseable SQL, several statements, a statement that
    is not a query, or a table name the dataset does not have."""


def _is_file_function(name: str) -> bool:
    low = name.lower()
    return low.startswith(("read_", "scan_"))


def _function_name(node: Any) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name)
    return str(node.sql_name())


def check_query(sql: str, tables: Iterable[str]) -> None:
    """Refuse a query that could read anything but the dataset's tables.

    Args:
        sql: the query text, as given to ``maumau-log query``.
        tables: the names the query may use as relations (the dataset's tables).
    Returns:
        None when the query is allowed.
    Raises:
        QueryRefused: a table function, a quoted path or a qualified name (something that
            could read outside the dataset).
        BadQuery: not exactly one query statement, SQL that cannot be parsed, or a table
            name that is neither one of ``tables`` nor a CTE of the query.
    """
    allowed = {t.lower() for t in tables}
    listing = ", ".join(sorted(allowed))
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except SqlglotError as exc:
        first = str(exc).strip().splitlines()
        raise BadQuery(
            f"cannot check the query, so it is not run: {first[0] if first else exc}"
        ) from exc
    if len(statements) != 1:
        raise BadQuery("give exactly one SELECT statement")
    root = statements[0]
    if not isinstance(root, _QUERY_ROOTS):
        raise BadQuery(
            f"only queries (SELECT ...) are run, not {root.key.upper()}; the dataset is read-only"
        )
    ctes = {str(c.alias_or_name).lower() for c in root.find_all(exp.CTE)}
    for node in root.walk():
        if isinstance(node, exp.Func) and _is_file_function(_function_name(node)):
            raise QueryRefused(
                f"{_function_name(node).lower()}() is not allowed: query reads only the "
                f"dataset's tables ({listing}), no files, URLs or table functions"
            )
        if isinstance(node, exp.Lateral | exp.TableFromRows):
            raise QueryRefused(
                "table functions are not allowed: query reads only the dataset's tables "
                f"({listing})"
            )
        if not isinstance(node, exp.Table):
            continue
        this = node.this
        if isinstance(this, exp.Func):
            raise QueryRefused(
                f"{_function_name(this).lower()}() is not allowed: query reads only the "
                f"dataset's tables ({listing}), no files, URLs or table functions"
            )
        if not isinstance(this, exp.Identifier):
            what = this.sql(dialect="duckdb") if isinstance(this, exp.Expression) else str(this)
            raise QueryRefused(
                f"{what[:80]} is not a table of the dataset: query reads only its tables "
                f"({listing}), no files, URLs or table functions"
            )
        name = str(this.this)
        if node.args.get("db") or node.args.get("catalog"):
            raise QueryRefused(
                f"{node.sql(dialect='duckdb')[:80]}: name a table without a schema or "
                f"catalog ({listing})"
            )
        if name.lower() not in allowed and name.lower() not in ctes:
            raise BadQuery(
                f"{name[:80]!r} is not a table of the dataset; the tables are: {listing}"
            )
