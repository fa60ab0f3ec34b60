"""The ``maumau-log`` command line: a thin typer app over the library.

Commands live in one module per area and register themselves on :data:`app`:
:mod:`.replay_cmds` (validate, simulate, rules), :mod:`.ingest_cmds` (ingest),
:mod:`.data_cmds` (game, query, analyze), :mod:`.stats_cmds` (stats), :mod:`.ratings_cmds`
(ratings), :mod:`.bots_cmds` (bots ladder, review). Domain errors become exit codes only
here:

- 0: every game valid (or the command succeeded);
- 1: violations found (invalid games);
- 2: usage error or unreadable input (missing file, bad ruleset file, bad option), and the
  machine's or the data's faults: a full disk or file-size limit, a missing or damaged
  dataset file, a network or permission error;
- 3: an internal error (a bug: reported in one line, never a traceback);
- 4: a shard failed (its worker died): reported with its file; the other shards' results
  stand (an ingest stored them) and a re-run completes the work;
- 130: interrupted (Ctrl-C).

Data goes to stdout; messages, reports and progress bars to stderr.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, get_args, get_origin

import typer

from .lazy_console import LazyConsole

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK = 0
EXIT_VIOLATIONS = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_SHARD_FAILED = 4

app = typer.Typer(
    name="maumau-log",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out: Any = LazyConsole(soft_wrap=True, emoji=False)
"""stdout: data and reports asked for (a rich console, made on first use: start-up)."""
err: Any = LazyConsole(stderr=True, soft_wrap=True, emoji=False)
"""stderr: messages, summaries, progress (a rich console, made on first use)."""


_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
"""The characters :func:`clean` escapes (a pattern compiled by ``re`` on its first use, not
at start-up: most commands print no log text)."""


def clean(text: str) -> str:
    """Show control characters and bidi overrides from logs as ``\\uXXXX`` escapes, so a
    player id cannot move the cursor, colour or reorder the terminal; and lone surrogates
    (a file name that is not UTF-8), which no terminal encoding can write."""
    return re.sub(_CONTROL, lambda m: f"\\u{ord(m.group()):04x}", text)


def safe(text: str) -> str:
    """Log text made harmless for rich: control characters shown, markup escaped."""
    from rich.markup import escape

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


class Interrupted(BaseException):
    """Ctrl-C, raised by the SIGINT handler of :func:`main`: a BaseException that the
    command-line framework does not catch (it turns KeyboardInterrupt into a silent exit),
    so :func:`main` prints what happened; ``with`` blocks unwind on the way (an interrupted
    ingest removes what it wrote)."""


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted


INTERRUPTED = ["interrupted"]
"""What Ctrl-C prints (a command that writes a dataset says it is as it was)."""


def on_interrupt(message: str) -> None:
    """Set the line Ctrl-C prints before exit 130 (e.g. that the dataset is as it was)."""
    INTERRUPTED[0] = message


def dataset_read_error(exc: BaseException, dataset: object) -> str:
    """The whole one-line message for a dataset Polars or pyarrow could not read (exit 2).

    A result too large for Polars (``maximum length reached``, e.g. a cross join) is the
    query's fault and says so. Otherwise the dataset's files are checked cheaply, footer by
    footer (:func:`maumau_log.store.unreadable_file`), so the damaged file is named; the
    message points at ``maumau-log verify``.

    Args:
        exc: the error Polars or pyarrow raised.
        dataset: the dataset's folder as the user gave it.
    Returns:
        ``"DATASET: ..."`` without a trailing newline.
    """
    first = str(exc).strip().splitlines()
    text = first[0] if first else type(exc).__name__
    if "maximum length reached" in text:
        return (
            f"{dataset}: the result is too large for Polars ({text}); the dataset is fine: "
            "narrow the query (a filter, fewer joins, a LIMIT)"
        )
    from ..store import unreadable_file

    bad = unreadable_file(str(dataset))
    where = f"{bad[0]}: {bad[1]}; " if bad else ""
    return (
        f"{dataset}: cannot read the dataset: {where}{text} "
        f"(maumau-log verify {dataset} checks every file)"
    )


def colours(console: Console | LazyConsole) -> bool:
    """Whether ``console`` shows styles: its default highlighting (numbers, quoted text...)
    changes nothing on a console without colours but costs its regular expressions, compiled
    on first use (start-up); ``highlight=colours(err)`` keeps it where it shows."""
    return getattr(console, "rich", console).color_system is not None


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``message`` to stderr and exit with ``code`` (2: usage or unreadable input)."""
    err.print(f"[bold red]error:[/] {safe(message)}", highlight=False)
    raise typer.Exit(code)


_METAVARS = {
    "paths": "PATH",
    "since": "DATE",
    "until": "DATE",
    "fmt": "FORMAT",
    "game_id": "GAME_ID",
    "match_id": "MATCH_ID",
    "sql": "SQL",
    "files": "FILE",
    "dataset": "DATASET",
    "source": "SOURCE",
    "out": "PATH",
    "rules": "FILE",
    "out_file": "FILE",
    "dest": "FILE",
    "server_log": "SERVER_LOG",
    "seat_log": "SEAT_LOG",
}
"""Placeholders a person can read, by parameter name."""


def _base_type(annotation: Any) -> tuple[Any, bool]:
    """The element type of a parameter annotation and whether it takes several values."""
    many = False
    while True:
        origin = get_origin(annotation)
        args = [a for a in get_args(annotation) if a is not type(None)]
        if origin is list:
            many, annotation = True, args[0]
        elif origin is not None and args and len(args) == 1:  # X | None
            annotation = args[0]
        else:
            return annotation, many


_LIST_ITEM = re.compile(r"\s|[-*] |\d+[.)] ")
"""A line that starts a list item or an example (indented, ``- ``, ``* ``, ``1. ``)."""


def reflow(text: str) -> str:
    """A command's help text with each prose paragraph on one line, so rich wraps it to the
    terminal's width: a docstring's hard line breaks (made for the source's 100 columns)
    would otherwise cut every line short at 80 columns. Paragraphs stay apart (blank
    lines); a paragraph marked ``\\b`` (click's "keep as is") stays as written, and a line
    that starts a list item or an example (indented, ``- ``, ``* ``, ``1. ``) keeps its
    line break.

    Args:
        text: the help text, as ``inspect.cleandoc`` leaves a docstring.
    Returns:
        The text reflowed.
    """
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if paragraph.startswith("\b"):
            paragraphs.append(paragraph)
            continue
        lines: list[str] = []
        for line in paragraph.split("\n"):
            if lines and line and not _LIST_ITEM.match(line):
                lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
            else:
                lines.append(line)
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def readable_metavars(command: Any) -> Any:
    """Give every argument and option of the command tree a readable placeholder
    (``PATH...``, ``DATASET``, ``FILE``, ``N``), never ``{paths}`` or ``<list[Path]>``;
    flags get none. Returns the command."""
    for param in getattr(command, "params", []):
        if param.metavar is not None or param.name is None:
            continue
        if getattr(param, "is_flag", False):
            param.metavar = ""
            continue
        desc = getattr(param, "type_descriptor", None)
        annotation, many = _base_type(desc.annotation if desc is not None else str)
        many = many or param.nargs == -1
        name = param.name
        if name in _METAVARS:
            word = _METAVARS[name]
        elif annotation is int:
            word = "N"
        elif annotation is float:
            word = "X"
        elif annotation is Path:
            word = "FILE"
        else:
            word = name.upper()
        param.metavar = word + ("..." if many else "")
        if getattr(param, "param_type_name", "") == "argument":
            shown = param.metavar if param.required else f"[{param.metavar}]"
            param._usage_display_name = lambda shown=shown: shown  # not {paths}...
            param.display_type_rich = lambda ctx: None  # not <list[Path]>
    if getattr(command, "help", None):
        command.help = reflow(command.help)
    make_help = getattr(command, "get_help_option", None)
    if make_help is not None:

        def help_option(ctx: Any, make_help: Any = make_help) -> Any:
            option = make_help(ctx)
            if option is not None:
                option.metavar = ""  # not --help <bool>
            return option

        command.get_help_option = help_option
    for sub in getattr(command, "commands", {}).values():
        readable_metavars(sub)
    _group_commands(command)
    return command


HELP_PANELS: dict[str, tuple[str, ...]] = {
    "Check logs": ("validate", "convert", "compare", "rules", "simulate"),
    "Settle a dispute": ("game", "view", "review"),
    "Datasets": ("ingest", "analyze", "stats", "ratings", "match", "query", "verify", "compact"),
    "Audit, bots and other programs": ("audit", "bots", "import"),
}
"""The panels ``maumau-log --help`` lists the commands in, in this order: the first thing a
person does with a log first; a command missing here is listed last, in its own panel."""


def _group_commands(command: Any) -> None:
    """Put the app's commands into :data:`HELP_PANELS`, in that order (``--help``)."""
    commands = getattr(command, "commands", None)
    if not isinstance(commands, dict) or "validate" not in commands:
        return
    order = [name for names in HELP_PANELS.values() for name in names if name in commands]
    panel_of = {name: panel for panel, names in HELP_PANELS.items() for name in names}
    for name in [*order, *(n for n in commands if n not in order)]:
        sub = commands.pop(name)
        sub.rich_help_panel = panel_of.get(name, "Other commands")
        commands[name] = sub


_COMMAND_MODULES = {
    "validate": "replay_cmds",
    "simulate": "replay_cmds",
    "rules": "replay_cmds",
    "compare": "replay_cmds",
    "ingest": "ingest_cmds",
    "stats": "stats_cmds",
    "ratings": "ratings_cmds",
    "game": "data_cmds",
    "match": "match_cmds",
    "query": "data_cmds",
    "analyze": "data_cmds",
    "audit": "audit_cmds",
    "import": "import_cmds",
    "bots": "bots_cmds",
    "review": "bots_cmds",
    "view": "dispute_cmds",
    "convert": "dispute_cmds",
    "compact": "compact_cmds",
    "verify": "verify_cmds",
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
    "ingest_cmds",
    "match_cmds",
    "ratings_cmds",
    "replay_cmds",
    "stats_cmds",
    "verify_cmds",
)


def _register(argv: list[str]) -> None:
    """Import the command modules the command line ``argv`` (without the program) needs."""
    import importlib

    name = argv[0] if argv else ""
    if name == "--version":  # the root's eager option: it prints and exits before any
        return  # command is looked up, and a parse error names only the root's options
    wanted = _COMMAND_MODULES.get(name)
    for module in (wanted,) if wanted else _ALL_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def _named_only(argv: list[str]) -> typer.Typer:
    """:data:`app` with only the command or group the command line ``argv`` names, or the
    whole app when it names none of them (``--help``, a typo). Typer builds a click command
    (its parameters, types, help, converters) for every command registered: the siblings a
    module registers beside the one named are start-up no command line uses (4% of
    a short ``validate``). A shallow copy: :data:`app` keeps every command for the next
    :func:`main` in this process."""
    import copy

    name = argv[0] if argv else ""
    commands = [
        c
        for c in app.registered_commands
        if c.callback is not None
        and (c.name or typer.main.get_command_name(c.callback.__name__)) == name
    ]
    groups = [g for g in app.registered_groups if g.name == name]
    if not name or not (commands or groups):
        return app
    view = copy.copy(app)
    view.registered_commands, view.registered_groups = commands, groups
    return view


def main() -> None:
    """Console-script entry point: run the app, turning any stray exception into exit 3."""
    import contextlib
    import gc
    import signal

    for stream in (sys.stdout, sys.stderr):  # the last guard: text no encoding can write
        # (a lone surrogate that escaped every check) is written as an escape, not an error
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    try:
        # start-up makes only objects that live to the end (modules, the command tree): no
        # collection while it runs (2-4% of an import --validate), frozen below
        gc.disable()
        _register(sys.argv[1:])  # the commands register themselves on ``app``

        # a library imported above may take SIGINT over; Ctrl-C must stop the command (and
        # an interrupted ingest leaves the dataset as it was)
        signal.signal(signal.SIGINT, _interrupt)
        command = readable_metavars(typer.main.get_command(_named_only(sys.argv[1:])))
        # plain values without pydantic (start-up); on a typer whose private hook
        # changed, typer's own converters stay (the same values, only slower to start)
        with contextlib.suppress(Exception):
            from .fastparams import direct_values

            direct_values(command)
        # what start-up made lives to the end: the collector need not walk it again at every
        # full collection (5-10% of an import --validate's CPU time)
        gc.freeze()
        gc.enable()
        command.main(prog_name="maumau-log")
    except SystemExit:
        raise
    except (KeyboardInterrupt, Interrupted):
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
            f"[bold red]internal error:[/] {type(exc).__name__}: {safe(str(exc))}",
            highlight=False,
        )
        err.print("please report this with the command and the input that caused it")
        sys.exit(EXIT_INTERNAL)
    except BaseException as exc:
        # a Rust library's panic (Polars: pyo3's PanicException) is a BaseException: a
        # damaged Parquet file can cause one where no checksum was recorded to catch it
        if type(exc).__name__ != "PanicException":
            raise
        from rich.markup import escape

        first = (str(exc).strip().splitlines() or [""])[0][:300]
        err.print(f"[bold red]internal error:[/] {type(exc).__name__}: {escape(first)}",
                  highlight=False)  # fmt: skip
        err.print(
            "a library stopped while reading data; if a dataset was read, maumau-log verify "
            "DATASET checks its files; else please report this with the command and the input"
        )
        sys.exit(EXIT_INTERNAL)
