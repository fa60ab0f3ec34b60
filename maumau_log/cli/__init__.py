"""The ``maumau-log`` command line: a thin typer app over the library (issue 2, item 6).

Commands live in one module per area and register themselves on :data:`app`:
:mod:`.replay_cmds` (validate, simulate, rules) and :mod:`.data_cmds` (ingest, stats, game,
query, analyze). Domain errors become exit codes only here:

- 0: every game valid (or the command succeeded);
- 1: violations found (invalid games);
- 2: usage error or unreadable input (missing file, bad ruleset file, bad option), and the
  machine's or the data's faults: a full disk or file-size limit, a missing or damaged
  dataset file, a network or permission error (issue 15);
- 3: an internal error (a bug: reported in one line, never a traceback);
- 130: interrupted (Ctrl-C).

Data goes to stdout; messages, reports and progress bars to stderr.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

app = typer.Typer(
    name="maumau-log",
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


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from .. import __version__

        try:
            number = version("maumau-log")
        except PackageNotFoundError:  # run from a source tree without installing
            number = __version__
        typer.echo(f"maumau-log {number}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Replay, validate and analyse Mau-Mau family game logs (maumau-log/1 JSON Lines)."""


INTERRUPTED = ["interrupted"]
"""What Ctrl-C prints (a command that writes a dataset says it is as it was)."""


def on_interrupt(message: str) -> None:
    """Set the line Ctrl-C prints before exit 130 (e.g. that the dataset is as it was)."""
    INTERRUPTED[0] = message


def dataset_read_error(exc: BaseException, dataset: object) -> str:
    """One line for a dataset file Polars or pyarrow could not read (a damaged file, not a
    bug: exit 2), pointing at ``maumau-log verify``."""
    first = str(exc).strip().splitlines()
    text = first[0] if first else type(exc).__name__
    return f"{text} (maumau-log verify {dataset} checks every file)"


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``message`` to stderr and exit with ``code`` (2: usage or unreadable input)."""
    err.print(f"[bold red]error:[/] {safe(message)}", highlight=False)
    raise typer.Exit(code)


def main() -> None:
    """Console-script entry point: run the app, turning any stray exception into exit 3."""
    import signal

    try:
        from . import (  # noqa: F401  (register the commands)
            audit_cmds,
            data_cmds,
            import_cmds,
            replay_cmds,
            verify_cmds,
        )

        # a library imported above may take SIGINT over; Ctrl-C must stop the command (and
        # an interrupted ingest leaves the dataset as it was)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        err.print(INTERRUPTED[0], highlight=False)
        sys.exit(130)
    except OSError as exc:  # the machine's fault (disk, network, permission), not a bug
        where = f"{exc.filename}: " if exc.filename else ""
        err.print(
            f"[bold red]error:[/] {safe(where + (exc.strerror or str(exc)))}", highlight=False
        )
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # never a traceback for a user
        err.print(
            f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc))}",
            highlight=False,
        )
        err.print("please report this with the command and the input that caused it")
        sys.exit(EXIT_INTERNAL)
