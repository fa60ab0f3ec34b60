"""The ``audit`` command: a thin wrapper over :mod:`maumau_log.audit`.

Exit codes: 0 the report was made and nothing is flagged; 1 at least one finding is
flagged; 2 a missing dataset, a folder that is not one, a bad option or an unwritable
``--out``; 4 a worker process died (killed, or out of memory): nothing is reported.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import polars as pl
import pyarrow as pa
import typer
from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ..api.dataset import audit
from ..audit import DEFAULT_ALPHA, DEFAULT_MIN_GAMES, AuditReport, _fmt_p, report_html
from ..audit.findings import Finding, counted
from ..audit.parts import WorkerDied
from ..store import DatasetError
from ..store.layout import DateWindow
from . import (
    EXIT_OK,
    EXIT_SHARD_FAILED,
    EXIT_VIOLATIONS,
    app,
    clean,
    dataset_read_error,
    err,
    fail,
    out,
)
from .date_opts import SinceOpt, UntilOpt
from .run_opts import ENGINES, AddressOpt, EngineOpt, JobsOpt

AUDIT_FORMATS = ("table", "json", "html")


def _print(table: Table) -> None:
    if out.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        out.print(table, soft_wrap=False)
    else:
        Console(width=200, soft_wrap=True, highlight=False, emoji=False).print(table)


def skipped_line(report: AuditReport) -> str | None:
    """One line saying why tests were skipped (not a row per skipped test):
    the count, grouped by reason with the numbers taken out."""
    skipped = [f for f in report.findings if f.skipped]
    if not skipped:
        return None
    reasons: Counter[str] = Counter()
    for f in skipped:
        text = str(f.skipped)
        if "fewer than the minimum" in text:
            reasons[f"fewer than {report.min_games:,} games (--min-games)"] += 1
        else:
            reasons[re.sub(r"\d[\d,]*(\.\d+)?", "N", text)] += 1
    why = "; ".join(f"{n} {r}" for r, n in reasons.most_common())
    return f"{len(skipped):,} tests skipped: {why}; see --format json"


GROUPED = ("ruleset", "players")
"""Columns of the audit's small tables shown in each table's title instead (one table per
ruleset label and table size), so a long ruleset label is never cut in a narrow column."""


def _evidence(f: Finding) -> str:
    games = [str(g) for g in f.evidence.get("games", [])]
    return " ".join(games[:5]) + (" ..." if len(games) > 5 else "")


def _number_line(first: Text, numbers: tuple[str, ...], widths: list[int]) -> Table:
    """One line: ``first`` on the left (folded only if it is longer than the line), the
    numbers right-aligned in columns of ``widths`` characters."""
    line = Table.grid(expand=True, padding=(0, 0, 0, 2))
    line.add_column(ratio=1, overflow="fold")
    for w in widths:
        line.add_column(justify="right", no_wrap=True, width=w + 2)  # with its padding
    line.add_row(first, *(Text(n) for n in numbers))
    return line


def _finding_table(
    title: str,
    heading: str,
    number_heads: tuple[str, ...],
    rows: list[tuple[Finding, str, str, tuple[str, ...]]],
) -> Table:
    """The flags or the tests: per finding, the check with its numbers on one line, then
    the subject, the finding and the evidence games on lines of the table's whole width
    (a long player id or ruleset label folds only where it is longer than the line,
    never inside a narrow column).

    Args:
        rows: ``(finding, prefix of its summary, evidence text, its numbers as text)``;
            the numbers go under ``number_heads``, one each.
    """
    widths = [
        max(len(head), *(len(numbers[i]) for *_, numbers in rows))
        for i, head in enumerate(number_heads)
    ]
    table = Table(title=title, box=box.SIMPLE_HEAD, highlight=False, expand=True)
    table.add_column(_number_line(Text(heading), number_heads, widths), overflow="fold")
    for f, prefix, evidence, numbers in rows:
        text = Text(clean(f.subject), style="cyan")
        summary = prefix + clean(f.summary or "")
        if summary:
            text.append("\n" + summary, style="red" if prefix else "")
        if evidence:
            text.append("\n" + clean(evidence), style="dim")
        check = Text(f"{f.section}: {f.check}", style="bold")
        table.add_row(Group(_number_line(check, numbers, widths), text))
    return table


def _decimals(values: list[object]) -> int:
    """The places a float column needs: the fewest (1 to 3) that show every value as it
    is (a value rounded to 1 place shows as ``26.6``, never ``26.600``)."""
    need = 1
    for v in values:
        if isinstance(v, float) and math.isfinite(v):
            need = max(need, next((d for d in (1, 2) if abs(round(v, d) - v) < 1e-9), 3))
    return need


def _table_cell(value: object, places: int = 3) -> Text:
    """A cell of the audit's small tables: a float to ``places`` places, a count with a
    comma between thousands (``9,341``, never ``9 341``), text with control characters
    shown."""
    if isinstance(value, float):
        return Text(f"{value:,.{places}f}")
    if isinstance(value, int) and not isinstance(value, bool):
        return Text(f"{value:,}")
    return Text(clean(str(value)))


def headline(report: AuditReport) -> str:
    """The audit's first line on stdout: how many flags, or that there are none.

    Returns:
        e.g. ``"no flags (3 tests run, alpha 0.05, Holm-corrected)"`` or
        ``"2 flags (59 tests run, alpha 0.05, Holm-corrected)"``.
    """
    n, tests = len(report.flags), len(report.tested)
    what = "no flags" if n == 0 else f"{n:,} flag{'' if n == 1 else 's'}"
    return (
        f"{what} ({tests:,} test{'' if tests == 1 else 's'} run, alpha {report.alpha}, "
        "Holm-corrected)"
    )


def _text_report(report: AuditReport) -> None:
    out.print(Text(headline(report), style="bold red" if report.flags else "bold green"))
    n_games = counted(report.games, "game")
    # two short lines, wrapped at the terminal's width (80 columns when it says none)
    err.print(
        f"{n_games}: {report.valid:,} valid, {report.replayed:,} "
        f"{'with facts from the ingest' if report.facts_from == 'ingest' else 'replayed'}",
        highlight=False,
        soft_wrap=False,
    )
    err.print(
        f"{len(report.tested):,} tests run, {len(report.findings) - len(report.tested):,} "
        f"skipped; Holm-corrected at alpha {report.alpha}, at least "
        f"{counted(report.min_games, 'game')} a test",
        highlight=False,
        soft_wrap=False,
    )
    if report.flags:
        _print(
            _finding_table(
                f"Flags ({len(report.flags):,})",
                "check, subject, finding, evidence games",
                ("p (Holm)",),
                [(f, "FLAG ", _evidence(f), (_fmt_p(f.p_adjusted),)) for f in report.flags],
            )
        )
    if report.tested:
        _print(
            _finding_table(
                "Tests run",
                "check, subject, result",
                ("games", "p", "p (Holm)"),
                [
                    (
                        f,
                        "FLAG " if f.flagged else "",
                        "",
                        (f"{f.games:,}", _fmt_p(f.p_value), _fmt_p(f.p_adjusted)),
                    )
                    for f in report.findings
                    if not f.skipped
                ],
            )
        )
    line = skipped_line(report)
    if line:
        err.print(line, highlight=False, soft_wrap=False)
    for name, title in (
        ("wins_by_seat", "Wins by seat (95% Wilson interval)"),
        ("wins_by_dealer_position", "Wins by position from the dealer (0 = dealer)"),
        ("invalid_by_code", "Invalid games by code"),
        ("invalid_by_client", "Games by client"),
    ):
        rows = report.tables.get(name, [])
        groups: dict[str, list[dict[str, object]]] = {}
        for r in rows:  # a table per ruleset and table size: its label whole in the title
            parts = [clean(str(r["ruleset"]))] if "ruleset" in r else []
            if "players" in r:
                parts.append(f"{r['players']} players")
            where = ", ".join(parts)
            groups.setdefault(where, []).append({k: v for k, v in r.items() if k not in GROUPED})
        for where, group in groups.items():
            t = Table(
                title=Text(f"{title}: {where}" if where else title),  # a label is no markup
                box=box.SIMPLE_HEAD,
                highlight=False,
            )
            places = {c: _decimals([r[c] for r in group]) for c in group[0]}
            for col in group[0]:  # two-line headers: the table fits 80 columns
                numeric = isinstance(group[0][col], int | float)
                t.add_column(col.replace("_", "\n"), justify="right", no_wrap=numeric)
            for r in group:
                t.add_row(*(_table_cell(v, places[c]) for c, v in r.items()))
            _print(t)


@app.command("audit")
def audit_cmd(
    dataset: Annotated[Path, typer.Argument(help="A dataset folder made by ingest.")],
    fmt: Annotated[
        str, typer.Option("--format", help="table (stdout), json, or html (one offline file).")
    ] = "table",
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the json or html report to FILE.")
    ] = None,
    alpha: Annotated[
        float, typer.Option("--alpha", help="False-flag rate per report (Holm-corrected).")
    ] = DEFAULT_ALPHA,
    min_games: Annotated[
        int, typer.Option("--min-games", help="No test runs on fewer games than this.")
    ] = DEFAULT_MIN_GAMES,
    bot_likeness: Annotated[
        bool,
        typer.Option(
            "--bot-likeness",
            help="Also test whether players leave the obvious move for the Monte Carlo bot's "
            "(costs rollouts).",
        ),
    ] = False,
    bot_rollouts: Annotated[
        int, typer.Option("--bot-rollouts", help="The bot-likeness reference's rollouts.")
    ] = 32,
    bot_decisions: Annotated[
        int,
        typer.Option("--bot-decisions", help="Departures from the obvious move valued per player."),
    ] = 200,
    bot_seed: Annotated[int, typer.Option("--bot-seed", help="The test's seed.")] = 0,
    replay: Annotated[
        bool,
        typer.Option(
            "--replay",
            help="Replay the stored events instead of reading the facts the ingest recorded "
            "(slow: a cross-check; datasets written before the facts tables always replay).",
        ),
    ] = False,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """Audit a dataset: fairness of the deal, seat advantage, suspicious play, invalid games.

    Exit 0 when nothing is flagged, 1 when something is.
    """
    if fmt not in AUDIT_FORMATS:
        raise typer.BadParameter(
            f"must be one of {', '.join(AUDIT_FORMATS)}", param_hint="--format"
        )
    if not 0 < alpha < 1:
        raise typer.BadParameter("must be between 0 and 1", param_hint="--alpha")
    if min_games < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--min-games")
    if fmt == "table" and out_file is not None:
        fail("--out is for --format json or html")
    if bot_rollouts < 1 or bot_decisions < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--bot-rollouts/--bot-decisions")
    settings = None
    if bot_likeness:  # its module loads the bots and scipy: a second of start-up
        from ..audit.botlike import BotLikeness

        settings = BotLikeness(bot_rollouts, bot_decisions, bot_seed)
    try:
        DateWindow(since, until)
    except ValueError as exc:
        fail(str(exc))
    if engine not in ENGINES:
        fail(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "ray" and importlib.util.find_spec("ray") is None:
        fail("--engine ray needs Ray: pip install 'maumau-log[ray]'")
    try:
        report = audit(
            dataset, alpha=alpha, min_games=min_games, bot_likeness=settings, replay=replay,
            jobs=jobs, engine=engine, address=address, since=since, until=until,
        )  # fmt: skip
    except DatasetError as exc:
        fail(str(exc))
    except WorkerDied as exc:
        fail(str(exc), EXIT_SHARD_FAILED)
    except (pl.exceptions.PolarsError, pa.ArrowException) as exc:
        fail(dataset_read_error(exc, dataset))
    if fmt == "table":
        _text_report(report)
    else:
        text = (
            json.dumps(report.to_dict(), default=str, indent=1)
            if fmt == "json"
            else report_html(report)
        )
        if out_file is None:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            sys.stdout.flush()
        else:
            try:
                out_file.write_text(text, "utf-8")
            except OSError as exc:
                fail(f"{out_file}: cannot write: {exc.strerror or exc}")
            err.print(f"wrote the audit to {out_file}: {headline(report)}", highlight=False)
    raise typer.Exit(EXIT_VIOLATIONS if report.flags else EXIT_OK)
