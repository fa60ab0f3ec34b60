"""The ``maumau-log`` command line: a thin typer app over the library (issue 2, item 6).

Commands live in one module per area and register themselves on :data:`app`:
:mod:`.replay_cmds` (validate, simulate, rules) and :mod:`.data_cmds` (ingest, stats, game,
query, analyze), :mod:`.bots_cmds` (bots ladder, review). Domain errors become exit codes only here:

- 0: every game valid (or the command succeeded);
- 1: violations found (invalid games);
- 2: usage error or unreadable input (missing file, bad ruleset file, bad option);
- 3: an internal error (a bug: reported in one line, never a traceback);
- 4: a shard failed (its worker died): reported with its file; the other shards' results
  stand (an ingest stored them) and a re-run completes the work;
- 130: interrupted (Ctrl-C).

Data goes to stdout; messages, reports and progress bars to stderr.
"""

from __future__ import annotations

import re
import sys
from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_SHARD_FAILED = 4

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


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """Show control characters and bidi overrides from logs as ``\\uXXXX`` escapes, so a
    player id cannot move the cursor, colour or reorder the terminal."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def safe(text: str) -> str:
    """Log text made harmless for rich: control characters shown, markup escaped."""
    return escape(clean(text))


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``message`` to stderr and exit with ``code`` (2: usage or unreadable input)."""
    err.print(f"[bold red]error:[/] {safe(message)}", highlight=False)
    raise typer.Exit(code)


_COMMAND_MODULES = {
    "validate": "replay_cmds",
    "simulate": "replay_cmds",
    "rules": "replay_cmds",
    "compare": "replay_cmds",
    "ingest": "data_cmds",
    "stats": "data_cmds",
    "game": "data_cmds",
    "match": "data_cmds",
    "query": "data_cmds",
    "analyze": "data_cmds",
    "audit": "audit_cmds",
    "import": "import_cmds",
    "bots": "bots_cmds",
    "review": "bots_cmds",
    "view": "dispute_cmds",
    "convert": "dispute_cmds",
    "compact": "compact_cmds",
}
"""The module that registers each command. :func:`main` imports only the one the command
line names (the others load Polars, Arrow, SciPy: a second of start-up a short command
should not pay); any other command line (``--help``, a command missing here, a typo) loads
them all, so a command left out of this table still works, only slower to start."""

_ALL_MODULES = (
    "audit_cmds",
    "bots_cmds",
    "compact_cmds",
    "data_cmds",
    "dispute_cmds",
    "import_cmds",
    "replay_cmds",
)


def _register(argv: list[str]) -> None:
    """Import the command modules the command line ``argv`` (without the program) needs."""
    import importlib

    name = argv[0] if argv else ""
    wanted = _COMMAND_MODULES.get(name)
    for module in (wanted,) if wanted else _ALL_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def main() -> None:
    """Console-script entry point: run the app, turning any stray exception into exit 3."""
    import signal

    try:
        _register(sys.argv[1:])  # the commands register themselves on ``app``

        # a library imported above may take SIGINT over; Ctrl-C must stop the command (and
        # an interrupted ingest leaves the dataset as it was)
        signal.signal(signal.SIGINT, signal.default_int_handler)
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
