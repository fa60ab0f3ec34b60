"""The ``maumau-log`` command line: a thin typer app over the library (issue 2, item 6).

Commands live in one module per area and register themselves on :data:`app`:
:mod:`.replay_cmds` (validate, simulate, rules) and :mod:`.data_cmds` (ingest, stats, game,
query, analyze). Domain errors become exit codes only here:

- 0: every game valid (or the command succeeded);
- 1: violations found (invalid games);
- 2: usage error or unreadable input (missing file, bad ruleset file, bad option);
- 3: an internal error (a bug: reported in one line, never a traceback).

Data goes to stdout; messages, reports and progress bars to stderr.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

app = typer.Typer(
    name="maumau-log",
    help="Replay, validate and analyse Mau-Mau family game logs (maumau-log/1 JSON Lines).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out = Console(soft_wrap=True)
"""stdout: data and reports asked for."""
err = Console(stderr=True, soft_wrap=True)
"""stderr: messages, summaries, progress."""


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``message`` to stderr and exit with ``code`` (2: usage or unreadable input)."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(code)


def main() -> None:
    """Console-script entry point: run the app, turning any stray exception into exit 3."""
    from . import audit_cmds, data_cmds, import_cmds, replay_cmds  # noqa: F401  (register)

    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # never a traceback for a user
        err.print(
            f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))}",
            highlight=False,
        )
        err.print("please report this with the command and the input that caused it")
        sys.exit(EXIT_INTERNAL)
