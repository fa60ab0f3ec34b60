"""The ``query`` sandbox: SQL may name the dataset's tables and nothing else, and Polars runs
only the SQL the sandbox checked.

Polars SQL has table functions that read any file or URL the process can reach
(``read_csv``, ``read_parquet``, ``read_ipc``, ``read_json``, ``read_ndjson``, in FROM or in
a subquery, with a local path or an ``https://`` URL). A dataset is often queried by someone
other than its owner (a club site, an operator's dashboard), so ``query`` must not be a way
to read ``/etc/passwd``, another dataset or the network. Polars offers no switch to turn its
table functions off: ``SQLContext`` takes only frames, ``register_globals`` and ``eager``, and
the Rust crate resolves the names in ``table_functions.rs`` with no option.

How a query is run (:func:`run_query`, the one path for the CLI and the Python API):

1. **Bounded depth.** Before anything is parsed, the query's tokens are counted: more than
   :data:`MAX_NESTING` levels of brackets, ``CASE`` or prefix operators (``NOT``, ``-``)
   is refused ("query too deeply nested"). sqlglot's parser recurses about 27 Python frames
   a level and Polars' parser stops at 47 parentheses or 23 nested subqueries; the parse
   runs on a fresh thread, so the whole recursion limit is there whatever the caller's
   depth. A syntax tree deeper than :data:`MAX_TREE_DEPTH` (a chain of hundreds of
   operators: Polars plans 1,000 chained ``+`` in 1.6 s, 3,000 in 60 s) is refused too.
2. **Parse and check** with sqlglot (a maintained SQL parser; Polars' own is not exposed).
   The check is a whitelist: exactly one query (SELECT, WITH, UNION/INTERSECT/EXCEPT,
   VALUES); every relation in FROM or JOIN, at any depth, a plain name that is one of the
   dataset's tables or a CTE of the query; no function named ``read_*`` or ``scan_*``
   anywhere; no statement that writes, no ``INTO``, no query parameters.
3. **Run only what was checked.** The SQL given to Polars is generated from the checked
   syntax tree, never the user's text: no comments, every identifier double-quoted, every
   string single-quoted with ``''`` for a quote. The two parsers disagreed on the user's
   text (a bare carriage return ends a ``--`` comment for sqlglot, not for Polars; dollar
   quotes and double quotes hid the rest of a line from one of them), so a query checked as
   harmless ran ``read_csv('/etc/passwd')``; the generated text has none of those
   constructs. It must pass a conservative character scan (outside its literals only ASCII
   letters, digits, spaces and operator characters, no ``--``, ``/*``, ``$``, backslash or
   backtick, no prefixed string such as ``E'...'``), and parsing it again must give a tree
   that passes the check and generates the same text (a fixed point).
4. **The plan, a second line.** After Polars plans the query and before anything is
   collected, every scan in the plan must be a scan of one of the dataset's tables. Polars
   reads a file's schema while it plans (the plan of ``read_csv('/x')`` opens ``/x``), so
   this only stops the rows from coming back if the first three steps ever failed.

The dialect is DuckDB's as sqlglot reads and writes it, with every function call kept as
written (``Parser.FUNCTIONS`` empty: sqlglot would otherwise rename ``REGEXP_LIKE`` to
``REGEXP_MATCHES`` or expand ``INITCAP``, which Polars does not run) and the few spellings
Polars reads differently from DuckDB written Polars' way (``FLOAT`` is 64-bit and
``DECIMAL`` has no default precision in Polars; ``TRIM(LEADING ... FROM ...)`` and ``~``
stay as written). ``tests/test_query_forms.py`` runs a corpus of Polars SQL forms both as
written and as generated and compares the answers.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

import polars as pl
from sqlglot import exp
from sqlglot.dialects.duckdb import DuckDB
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.generators.duckdb import DuckDBGenerator
from sqlglot.parsers.duckdb import DuckDBParser
from sqlglot.tokens import Token, TokenType

FILE_FUNCTIONS: tuple[str, ...] = (
    "read_csv",
    "read_parquet",
    "read_ipc",
    "read_json",
    "read_ndjson",
)
"""The table functions Polars SQL offers for reading files and URLs (Polars 1.x/2.x); each is
refused (and tested), as is any other ``read_*`` or ``scan_*`` name."""

MAX_NESTING = 32
"""Most levels of brackets (``(``, ``[``, ``{``), ``CASE`` and runs of prefix operators a query
may nest. A 32-level query needs about 900 of the 1,000 frames Python allows on sqlglot's
parser (measured: 37 nested scalar subqueries parse, 38 do not); Polars itself stops at 47
parentheses and 23 nested subqueries."""

MAX_TREE_DEPTH = 256
"""Most levels the parsed syntax tree may have: a chain of 256 ``+`` plans in 0.24 s in
Polars 2.1, 1,000 in 1.6 s and 3,000 in 60 s (the planning time grows with the cube)."""

MAX_LITERAL_SIZE = 1_000_000
"""Largest size a query may ask of ``repeat``, ``lpad``, ``rpad`` (characters) or
``generate_series``, ``range`` (values) with literal numbers: ``lpad('a', 100000000000)``
runs for minutes and then aborts for want of memory. A size computed from the data, or a
size repeated over many rows, is not bounded here (the operating system's limits are:
``ulimit -v``, ``timeout``)."""

_SIZED = ("repeat", "lpad", "rpad", "generate_series", "range")

_QUERY_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)
_WRITES = (exp.DML, exp.DDL, exp.Into, exp.Command, exp.Copy, exp.Pragma, exp.Use, exp.Set)
_OPENERS = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE, TokenType.CASE}
_CLOSERS = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE, TokenType.END}
_PREFIX = {
    TokenType.NOT,
    TokenType.DASH,
    TokenType.PLUS,
    TokenType.TILDE,
    TokenType.EXCLAMATION,
    TokenType.INTERVAL,
    TokenType.PARAMETER,
    TokenType.DAT,
    TokenType.PIPE_SLASH,
    TokenType.DPIPE_SLASH,
}
"""Tokens that may stand before an operand (each one a level of sqlglot's recursion)."""

_KEPT_FUNCTION_PARSERS = frozenset(
    {
        "CAST",
        "TRY_CAST",
        "EXTRACT",
        "POSITION",
        "SUBSTRING",
        "TRIM",
        "STRING_AGG",
        "LISTAGG",
        "GROUP_CONCAT",
        "STRINGAGG",
        "OVERLAY",
        "CONVERT",
        "NORMALIZE",
        "CEIL",
        "FLOOR",
    }
)
"""Functions with their own argument syntax (``CAST(x AS t)``, ``TRIM(LEADING c FROM s)``,
``EXTRACT(f FROM d)``, ...); every other call is kept as a plain call, as written."""


class QueryRefused(ValueError):
    """A query that names something other than the dataset's tables, or is not a query.

    The message says what was refused and what is allowed, in one line.
    """


class BadQuery(QueryRefused):
    """Not a query over the dataset: unparseable SQL, several statements, a statement that
    is not a query, or a table name the dataset does not have."""


class QueryTooDeep(BadQuery):
    """A query nested deeper than :data:`MAX_NESTING` levels, or whose syntax tree is deeper
    than :data:`MAX_TREE_DEPTH`; the message begins "query too deeply nested"."""


class _PolarsTokenizer(DuckDB.Tokenizer):
    # Polars: FLOAT is Float64 (DuckDB: 32-bit); REAL and FLOAT4 stay 32-bit. DIV is Polars'
    # integer division function DIV(a, b), not DuckDB's infix operator.
    KEYWORDS: ClassVar[dict[str, TokenType]] = {
        **{k: v for k, v in DuckDB.Tokenizer.KEYWORDS.items() if k != "DIV"},
        "FLOAT": TokenType.DOUBLE,
    }


class _PolarsParser(DuckDBParser):
    FUNCTIONS: ClassVar[dict[str, Callable[..., Any]]] = {}
    FUNCTION_PARSERS: ClassVar[dict[str, Callable[..., Any]]] = {
        k: v for k, v in DuckDBParser.FUNCTION_PARSERS.items() if k in _KEPT_FUNCTION_PARSERS
    }
    TYPE_CONVERTERS: ClassVar[dict[Any, Callable[..., Any]]] = {}  # no DECIMAL (18, 3)


class _PolarsGenerator(DuckDBGenerator):
    TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
        k: v for k, v in DuckDBGenerator.TRANSFORMS.items() if k not in (exp.RegexpILike, exp.Trim)
    }

    def trim_sql(self, expression: exp.Trim) -> str:
        this = self.sql(expression, "this")
        head = " ".join(
            part
            for part in (self.sql(expression, "position"), self.sql(expression, "expression"))
            if part
        )
        return f"TRIM({head} FROM {this})" if head else f"TRIM({this})"

    def regexplike_sql(self, expression: exp.RegexpLike) -> str:
        flag = expression.args.get("flag")
        if flag is not None or expression.args.get("full_match"):
            return self.func("REGEXP_LIKE", expression.this, expression.expression, flag)
        return self.binary(expression, "~")

    def regexpilike_sql(self, expression: exp.RegexpILike) -> str:
        return self.binary(expression, "~*")


class _PolarsSQL(DuckDB):
    """DuckDB's SQL as sqlglot reads it, written back the way Polars SQL reads it."""

    Tokenizer = _PolarsTokenizer
    Parser = _PolarsParser
    Generator = _PolarsGenerator


_DIALECT = _PolarsSQL()

_T = TypeVar("_T")


def _on_fresh_stack(work: Callable[[], _T]) -> _T:
    """Run ``work`` on a new thread and return its result (or raise its exception): the
    parser then has the whole recursion limit, whatever the caller's stack depth."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the caller, who decides
            box["error"] = exc

    thread = threading.Thread(target=target, name="sqlguard", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _too_deep(what: str) -> QueryTooDeep:
    return QueryTooDeep(f"query too deeply nested: {what}")


def nesting_depth(tokens: Iterable[Token]) -> int:
    """The deepest nesting of a token list, as :data:`MAX_NESTING` counts it.

    Args:
        tokens: a query's tokens (sqlglot's tokenizer, which does not recurse).
    Returns:
        The most levels open at any token: brackets and ``CASE`` still open, plus the run of
        prefix operators (``NOT NOT -x`` is three levels) just before it.
    """
    depth = deepest = run = 0
    for token in tokens:
        kind = token.token_type
        if kind in _OPENERS:
            depth += 1
        elif kind in _CLOSERS:
            depth = max(0, depth - 1)
        run = run + 1 if kind in _PREFIX else 0
        deepest = max(deepest, depth + run)
    return deepest


def _tree_depth(root: exp.Expr) -> int:
    deepest = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.iter_expressions())
    return deepest


def _is_file_function(name: str) -> bool:
    return name.lower().strip('"').startswith(("read_", "scan_"))


def _function_name(node: Any) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name)
    return str(node.sql_name())


def _number(node: Any) -> float | None:
    """The value of a numeric literal (``5``, ``-5``, ``1e9``), else None."""
    sign = 1.0
    while isinstance(node, exp.Neg | exp.Paren):
        sign = -sign if isinstance(node, exp.Neg) else sign
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return sign * float(node.this)
        except ValueError:
            return None
    return None


def _check_size(node: exp.Func) -> None:
    """Refuse a call of :data:`_SIZED` whose literal size exceeds :data:`MAX_LITERAL_SIZE`."""
    name = _function_name(node).lower()
    args = (
        node.expressions
        if isinstance(node, exp.Anonymous)
        else [a for a in node.args.values() if isinstance(a, exp.Expr)]
    )
    nums = [_number(a) for a in args]
    size: float | None = None
    if name in ("repeat", "lpad", "rpad"):
        size = nums[1] if len(nums) > 1 else None
    elif len(nums) > 1 and nums[0] is not None and nums[1] is not None:
        step = abs(nums[2] or 1.0) if len(nums) > 2 and nums[2] is not None else 1.0
        size = abs(nums[1] - nums[0]) / step
    if size is not None and size > MAX_LITERAL_SIZE:
        raise BadQuery(
            f"{name}() of {size:,.0f} is over the limit of {MAX_LITERAL_SIZE:,} "
            f"{'characters' if name in ('repeat', 'lpad', 'rpad') else 'values'} a query "
            "may ask for"
        )


def _check_tree(root: exp.Expr, allowed: set[str]) -> None:
    """Refuse a tree that is not one read-only query over ``allowed`` (see the module)."""
    listing = ", ".join(sorted(allowed))
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
        if isinstance(node, exp.Func) and _function_name(node).lower() in _SIZED:
            _check_size(node)
        if isinstance(node, exp.Lateral | exp.TableFromRows):
            raise QueryRefused(
                "table functions are not allowed: query reads only the dataset's tables "
                f"({listing})"
            )
        if isinstance(node, _WRITES):
            raise BadQuery(
                f"only queries (SELECT ...) are run, not {node.key.upper()}; the dataset "
                "is read-only"
            )
        if isinstance(node, exp.Placeholder | exp.Parameter):
            raise BadQuery("query parameters ($1, ?, :name) are not supported")
        if not isinstance(node, exp.Table):
            continue
        this = node.this
        if isinstance(this, exp.Func):
            raise QueryRefused(
                f"{_function_name(this).lower()}() is not allowed: query reads only the "
                f"dataset's tables ({listing}), no files, URLs or table functions"
            )
        if not isinstance(this, exp.Identifier):
            what = this.sql(dialect=_DIALECT) if isinstance(this, exp.Expr) else str(this)
            raise QueryRefused(
                f"{what[:80]} is not a table of the dataset: query reads only its tables "
                f"({listing}), no files, URLs or table functions"
            )
        name = str(this.this)
        if node.args.get("db") or node.args.get("catalog"):
            raise QueryRefused(
                f"{node.sql(dialect=_DIALECT)[:80]}: name a table without a schema or "
                f"catalog ({listing})"
            )
        if name.lower() not in allowed and name.lower() not in ctes:
            raise BadQuery(
                f"{name[:80]!r} is not a table of the dataset; the tables are: {listing}"
            )


def _parse(sql: str) -> exp.Expr:
    """Tokenize, measure the nesting, parse: one statement's tree (see :func:`check_query`)."""
    try:
        tokens = _DIALECT.tokenize(sql)
    except SqlglotError as exc:
        raise _cannot_check(exc) from exc
    depth = nesting_depth(tokens)
    if depth > MAX_NESTING:
        raise _too_deep(
            f"{depth} levels of brackets, CASE or prefix operators, at most {MAX_NESTING}"
        )
    try:
        statements = [s for s in _DIALECT.parser().parse(tokens, sql) if s is not None]
    except RecursionError:
        raise _too_deep(f"the parser ran out of stack (at most {MAX_NESTING} levels)") from None
    except SqlglotError as exc:
        raise _cannot_check(exc) from exc
    if len(statements) != 1:
        raise BadQuery("give exactly one SELECT statement")
    root = statements[0]
    depth = _tree_depth(root)
    if depth > MAX_TREE_DEPTH:
        raise _too_deep(
            f"a syntax tree {depth} levels deep, at most {MAX_TREE_DEPTH} (a long chain of "
            "AND, OR or +: use IN (...) or a CTE)"
        )
    return root


def _cannot_check(exc: Exception) -> BadQuery:
    first = str(exc).strip().splitlines()
    return BadQuery(f"cannot check the query, so it is not run: {first[0] if first else exc}")


_SAFE_OUTSIDE = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ (),.*+-/%<>=!|&~^:[]{}"
)
"""Characters the generated SQL may hold outside its string literals and quoted names."""


def unsafe_spot(sql: str) -> str | None:
    """Why generated SQL could read differently to another parser, or None when it cannot.

    A conservative scan, independent of either parser: outside ``'...'`` strings (``''`` is a
    quote) and ``"..."`` names (``""`` is a quote) it allows only :data:`_SAFE_OUTSIDE`, no
    comment marks (``--``, ``/*``, ``*/``), and no quote opened right after a letter, digit,
    ``_``, ``&`` or another quote (``E'...'``, ``U&'...'``, ``X'...'``). Every literal and
    name must be closed.

    Args:
        sql: SQL text, as generated from a checked syntax tree.
    Returns:
        None when the text passes; otherwise what failed, with its offset.
    """
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            before = sql[i - 1] if i else " "
            if before.isalnum() or before in "_&'\"":
                return f"a prefixed or adjacent quote at offset {i}"
            j = i + 1
            while True:
                j = sql.find(c, j)
                if j < 0:
                    return f"an unclosed quote at offset {i}"
                if sql.startswith(c * 2, j):
                    j += 2
                    continue
                break
            i = j + 1
            continue
        if c not in _SAFE_OUTSIDE:
            return f"the character {c!r} at offset {i}"
        if sql.startswith(("--", "/*", "*/"), i):
            return f"a comment mark {sql[i : i + 2]!r} at offset {i}"
        i += 1
    return None


def _generate(root: exp.Expr) -> str:
    # RAISE: a construct the writer would drop or approximate is refused, not logged
    return root.sql(
        dialect=_DIALECT,
        comments=False,
        identify=True,
        pretty=False,
        unsupported_level=ErrorLevel.RAISE,
    )


COUNT_NAME = "count"
"""The column name of an unnamed ``COUNT(*)`` (Polars would call it ``len``)."""


def _is_count_star(node: exp.Expr) -> bool:
    """``COUNT(*)`` as the parser reads it (every call kept as written: ``Anonymous``)."""
    if isinstance(node, exp.Anonymous):
        args = node.expressions
        return str(node.this).lower() == "count" and len(args) == 1 and type(args[0]) is exp.Star
    return isinstance(node, exp.Count) and type(node.this) is exp.Star


def _name_counts(root: exp.Expr) -> None:
    """Name every unnamed ``COUNT(*)`` of a select list :data:`COUNT_NAME`, as a reader
    expects (Polars names it ``len``, after its own function), unless that list already
    has a column of that name. Runs on the checked tree: it adds a quoted alias of fixed
    letters, nothing the check or the character scan could miss."""
    for select in root.find_all(exp.Select):
        items = select.expressions
        if any(item.output_name.lower() == COUNT_NAME for item in items):
            continue
        counts = [i for i, item in enumerate(items) if _is_count_star(item)]
        if len(counts) == 1:  # two would be two columns of one name
            items[counts[0]].replace(exp.alias_(items[counts[0]].copy(), COUNT_NAME))


def _checked_sql(sql: str, allowed: set[str]) -> str:
    root = _parse(sql)
    _check_tree(root, allowed)
    _name_counts(root)
    try:
        text = _generate(root)
    except RecursionError:
        raise _too_deep("the SQL writer ran out of stack") from None
    except SqlglotError as exc:
        raise _cannot_check(exc) from exc
    spot = unsafe_spot(text)
    if spot is not None:
        raise QueryRefused(f"the checked query cannot be written safely for Polars: {spot}")
    again = _parse(text)
    _check_tree(again, allowed)
    if _generate(again) != text:
        raise QueryRefused(
            "the checked query does not read back the same, so it is not run (a form the "
            "sandbox cannot write for Polars)"
        )
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_query(sql: str, tables: Iterable[str]) -> str:
    """Check a query and return the SQL to run: generated from the checked syntax tree.

    Args:
        sql: the query text, as given to ``maumau-log query``.
        tables: the names the query may use as relations (the dataset's tables).
    Returns:
        The query as Polars should run it: one line, no comments, every identifier quoted,
        a fixed point of parse-check-generate (see the module docstring).
    Raises:
        QueryTooDeep: more than :data:`MAX_NESTING` levels, or a syntax tree deeper than
            :data:`MAX_TREE_DEPTH` (a :class:`BadQuery`).
        QueryRefused: a table function, a quoted path or a qualified name (something that
            could read outside the dataset), or a form that cannot be written back safely.
        BadQuery: a character that is no text (a lone surrogate: a byte of the command
            line that is not UTF-8), not exactly one query statement, SQL that cannot be
            parsed (also when sqlglot itself fails on it), a statement that writes, query
            parameters, or a table name that is neither one of ``tables`` nor a CTE of the
            query.
    """
    allowed = {t.lower() for t in tables}
    bad = _SURROGATE.search(sql)
    if bad is not None:  # Python's stand-in for a byte of argv the locale did not decode
        raise BadQuery(
            f"character {bad.start() + 1} of the query is not text (the byte "
            f"0x{ord(bad.group()) & 0xFF:02x} is not UTF-8): write the query in UTF-8"
        )
    try:
        return _on_fresh_stack(lambda: _checked_sql(sql, allowed))
    except QueryRefused:
        raise
    except RecursionError:
        raise _too_deep(f"the checker ran out of stack (at most {MAX_NESTING} levels)") from None
    except Exception as exc:  # a fault inside sqlglot on odd input: refuse, never guess
        raise BadQuery(
            f"cannot check the query, so it is not run: the SQL parser failed "
            f"({type(exc).__name__}: {str(exc)[:120]})"
        ) from exc


_SCAN_LINE = re.compile(r"^[ \t]*(\S+ SCAN \[.*)$", re.MULTILINE)


def _scans(frame: pl.LazyFrame) -> set[str]:
    return set(_SCAN_LINE.findall(frame.explain(optimized=False)))


def _check_plan(result: pl.LazyFrame, tables: Mapping[str, pl.LazyFrame]) -> None:
    """Refuse a planned query that scans anything but the tables' own scans.

    Polars' plan names each scan on a line of its own (``Parquet SCAN [first, ... 9 other
    sources]``, ``Csv SCAN [/etc/passwd]``); every such line must be one of the tables'.
    """
    allowed: set[str] = set()
    for frame in tables.values():
        allowed |= _scans(frame)
    foreign = sorted(_scans(result) - allowed)
    if foreign:
        raise QueryRefused(
            f"the query's plan reads {foreign[0][:120]!r}, not a table of the dataset: query "
            f"reads only its tables ({', '.join(sorted(tables))})"
        )


def run_query(tables: Mapping[str, pl.LazyFrame], sql: str) -> pl.LazyFrame:
    """Check a query and plan it over the dataset's tables: the one way to run user SQL.

    Args:
        tables: table name to LazyFrame (``store.scan_all``'s answer).
        sql: the query text as the user wrote it.
    Returns:
        The lazy result; nothing is collected. Polars runs the SQL :func:`check_query`
        generated, never ``sql`` itself, and its plan scans only ``tables``.
    Raises:
        QueryRefused, BadQuery, QueryTooDeep: see :func:`check_query`; QueryRefused also when
            the plan scans anything but the tables (a second line behind the check).
        polars.exceptions.PolarsError: Polars cannot plan the checked query (an unknown
            column, a type error, an unsupported function).
    """
    checked = check_query(sql, tables)
    result = pl.SQLContext(frames=dict(tables), eager=False).execute(checked, eager=False)
    _check_plan(result, tables)
    return result
