"""``import``: convert other programs' game records into canonical logs.

``maumau-log import openspiel FILE... --out LOG`` reads OpenSpiel ``crazy_eights`` histories
(the text of ``pyspiel.serialize_game_and_state``, or JSON lines of
``{"game": "<game string>", "history": [action ids]}``) and writes one log game per
history (:mod:`maumau_log.openspiel`). Exit codes:

- 0: every game imported;
- 1: a game was rejected (not crazy_eights, bad parameters, an action OpenSpiel would not
  allow, an unfinished history): each is reported with its file, line, game number and
  action index; the other games are still written;
- 2: usage error, an input file that cannot be read, or an output that cannot be written.

With ``--validate`` the written log is then validated in the same process, exactly as
``maumau-log validate LOG`` would (the same report, ``--json`` the same document:
one start-up instead of two), and the exit code is the larger of the import's and the
validation's (validate: 0 valid, 1 violations, 2 unreadable, 4 a failed shard).
"""

from __future__ import annotations

import gc
import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..logs.output import open_out
from . import EXIT_OK, EXIT_VIOLATIONS, app, colours, err, fail, out, safe

if TYPE_CHECKING:
    from ..openspiel import OpenSpielImportError

import_app = typer.Typer(
    name="import",
    help="Convert game records of other programs into maumau-log/1 logs.",
    no_args_is_help=True,
)
app.add_typer(import_app, name="import")


class Returns(StrEnum):
    """Where OpenSpiel's returns go in ``round_end``."""

    scores = "scores"
    field = "field"


@import_app.command("openspiel")
def openspiel_cmd(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="OpenSpiel crazy_eights histories: serialize_game_and_state text, or JSON "
            'lines of {"game": ..., "history": [...]}.'
        ),
    ],
    out_file: Annotated[
        Path, typer.Option("--out", help="Output log (.jsonl, .jsonl.gz or .jsonl.zst).")
    ],
    returns: Annotated[
        Returns,
        typer.Option(
            help="'field' (default): OpenSpiel's returns kept only as "
            "round_end.openspiel_returns, which validate ignores, so correct games validate "
            "clean; 'scores': also written as round_end.scores, which validate checks "
            "against the documented rule (the audit of OpenSpiel's scoring: its card id + 2 "
            "charge for number cards is reported as wrong_score)."
        ),
    ] = Returns.field,
    partial: Annotated[
        bool,
        typer.Option(
            help="Import a history that stops before the game is over as an abandoned round "
            "(abandon + round_end with no winner) instead of rejecting it."
        ),
    ] = False,
    validate: Annotated[
        bool,
        typer.Option(
            "--validate",
            help="Then validate the written log in this process, as `maumau-log validate "
            "LOG` does (same report and exit codes), without a second start-up.",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="With --validate: print validate's JSON document on stdout."),
    ] = False,
) -> None:
    """Convert OpenSpiel crazy_eights game histories into a canonical log (preset
    crazy-eights, the game parameters as options, full stock order).

    Exit 0 when every game was imported, 1 when a game was rejected (the others are written),
    2 for usage errors, unreadable input or an output that cannot be written. With
    --validate, the larger of that and validate's exit code for the written log.
    """
    if as_json and not validate:
        fail("--json needs --validate (the import itself prints no document)")
    # the conversion and the replay make many short-lived containers (a game's trace, its
    # events, the lines): the young objects are collected every YOUNG_ALLOCATIONS
    # allocations, not every 700 (2% of an import --validate; memory stays flat)
    threshold = gc.get_threshold()
    gc.set_threshold(YOUNG_ALLOCATIONS, *threshold[1:])
    try:
        code = _import(files, out_file, returns, partial, validate, as_json)
    finally:
        gc.set_threshold(*threshold)
    raise typer.Exit(code)


YOUNG_ALLOCATIONS = 20_000
"""The collector's first threshold while :func:`openspiel_cmd` runs (Python's default: 700)."""


def _import(
    files: list[Path], out_file: Path, returns: Returns, partial: bool, validate: bool,
    as_json: bool,
) -> int:  # fmt: skip
    """:func:`openspiel_cmd`'s work; returns its exit code (a usage error exits here)."""
    # the conversion's modules (msgspec, the events, the port) only when a command runs:
    # not for ``import openspiel --help`` (start-up)
    from ..openspiel import OpenSpielImportError, convert_source_lines_counted, read_source
    from ..openspiel.convert import log_game_id

    games: list[bytes] = []
    ids: set[str] = set()  # the games' ids: all different, validate needs no content digest
    n_events = 0  # the lines of the games: the conversion counts them
    rejected: list[OpenSpielImportError] = []
    for f in files:
        if not f.is_file():
            fail(f"{f}: no such file" if not f.exists() else f"{f}: not a file")
        try:
            for src in read_source(f):
                if isinstance(src, OpenSpielImportError):
                    rejected.append(src)
                    continue
                try:
                    lines, count = convert_source_lines_counted(src, str(f), returns.value, partial)
                    games.append(lines)
                    ids.add(log_game_id(src, str(f)))
                    n_events += count
                except OpenSpielImportError as bad:
                    rejected.append(bad)
                except UnicodeEncodeError:
                    # a lone surrogate (a JSON "\\ud800" escape in the game id, or an undecodable
                    # file name): no UTF-8 log can hold it
                    rejected.append(OpenSpielImportError(
                        "the game id or the file name is not valid Unicode text (a lone "
                        "surrogate), which a UTF-8 log cannot hold",
                        str(f), src.line, src.number,
                    ))  # fmt: skip
        except OpenSpielImportError as exc:
            fail(str(exc))
    for problem in rejected:
        err.print(f"[bold red]rejected:[/] {safe(str(problem))}", highlight=False)
    blob = b"".join(games)
    try:
        with open_out(out_file) as fh:
            fh.write(blob)
    except OSError as exc:
        fail(f"{out_file}: cannot write: {exc.strerror}")
    err.line(
        f"imported {len(games):,} game(s), {n_events:,} events, to {out_file}"
        + (f"; {len(rejected)} rejected" if rejected else ""),
        highlight=False,
    )
    code = EXIT_VIOLATIONS if rejected else EXIT_OK
    if validate:
        code = max(code, validate_log(out_file, as_json, blob, len(ids) == len(games)))
    return code


def validate_log(
    log: Path, as_json: bool = False, data: bytes | None = None, unique_ids: bool = False
) -> int:
    """Validate one log in this process exactly as ``maumau-log validate LOG [--json]``
    does (:class:`~maumau_log.cli.replay_cmds.ValidationRun` on this process, no progress
    bar): prints its report to stderr, or with ``as_json`` its JSON document to stdout.

    Args:
        log: the log file just written.
        as_json: print the ``validate --json`` document instead of the report.
        data: the log's content (uncompressed) as just written, replayed from memory
            instead of reading the file again (the same lines, so the same report).
        unique_ids: no two games of ``data`` share a game id (see
            :meth:`~maumau_log.api.validation.Report.run`).
    Returns:
        validate's exit code: 0 valid, 1 violations, 2 unreadable, 4 a failed shard.
    """
    from .replay_cmds import ValidationRun  # the replay's modules only when asked

    run = ValidationRun()
    run.run(None, [log], progress=False, data=data, unique_ids=unique_ids)
    if as_json:
        out.print_json(json.dumps(run.as_json()), highlight=colours(out))
    else:
        run.print_report()
    return run.exit_code


__all__ = ["import_app", "openspiel_cmd", "validate_log"]
