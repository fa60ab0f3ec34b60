"""``view``, ``convert`` and ``game --try``: the dispute tools.

- ``view SOURCE [GAME_ID] [--at N] --out FILE.html``: the offline replay viewer.
- ``convert FILE --out FILE``: a ``.mm`` transcription to JSON Lines, or a log to ``.mm``.
- :func:`run_try`: ``game SOURCE [GAME_ID] --at N --try "ben plays 7C"``.

GAME_ID may be left out when SOURCE holds one game (:func:`one_game_id`).

SOURCE is a log file (``.jsonl``, ``.gz``, ``.zst``), a ``.mm`` file or a dataset folder.
Exit codes: 0 done (``--try``: the action is legal), 1 (``--try``: illegal), 2 usage
error or unreadable input (a missing source or game, a syntax error in ``--try``, a game
too large for one page without ``--at``, a dataset whose stored events do not match their
content hash).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from ..disputes.timeline import SourceError, build, engine_after, find_game, last_replayed
from ..logs.lines import LogReadError, iter_lines
from ..logs.notation import NotationError, from_notation, is_notation, read_text, to_notation
from . import EXIT_OK, EXIT_VIOLATIONS, app, err, fail, out, safe
from .replay_cmds import RulesOpt, load_rules_file

SourceArg = Annotated[
    Path,
    typer.Argument(help="A log file, a .mm notation file or a dataset folder."),
]
GameIdArg = Annotated[
    str | None,
    typer.Argument(help="The game's id; may be left out when SOURCE holds one game."),
]


def one_game_id(source: Path, game_id: str | None) -> str:
    """The game a dispute command looks at: ``game_id`` when given, else the id of
    ``source``'s only game (a log or ``.mm`` file, or a dataset). A source with several
    games exits 2 listing their ids (the first 20, escaped), one with none exits 2."""
    if game_id is not None:
        return game_id
    from ..disputes.gamelines import SHOWN_IDS, game_ids_in_file

    if not source.exists():
        fail(f"{source}: no such file or dataset")
    if source.is_dir():
        ids, games = _dataset_game_ids(source, SHOWN_IDS + 1)
    else:
        try:
            ids, games = game_ids_in_file(source)
        except SourceError as exc:
            fail(str(exc))
    if games == 1 and len(ids) == 1:
        return ids[0]
    if not ids:
        fail(f"{source}: holds no game")
    more = "\n  ... and more" if len(ids) > SHOWN_IDS else ""
    # one id a line: a line break inside an id is shown as its escape, as clean() shows
    # the other control characters
    listed = "".join("\n  " + gid.replace("\n", "\\u000a") for gid in ids[:SHOWN_IDS])
    held = f"{games:,} games" if games else "several games"
    fail(f"{source}: holds {held}: name one with GAME_ID:{listed}{more}")


def _dataset_game_ids(dataset: Path, limit: int) -> tuple[list[str], int]:
    """The first ``limit`` game ids a dataset stores, and its number of games."""
    import polars as pl

    from ..api.dataset import Dataset
    from ..store import DatasetError

    try:
        games = Dataset(dataset).games.select("game_id")
        count = int(games.select(pl.len()).collect().item())
        ids = games.sort("game_id").head(limit).collect().to_series().to_list()
    except DatasetError as exc:
        fail(str(exc))
    except pl.exceptions.PolarsError as exc:
        from . import dataset_read_error

        fail(dataset_read_error(exc, dataset))
    return [str(i) for i in ids], count


@app.command("view")
def view_cmd(
    source: SourceArg,
    game_id: GameIdArg = None,
    *,
    out_file: Annotated[
        Path, typer.Option("--out", help="The HTML file to write.", metavar="FILE.html")
    ],
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            help="Open the page at event N (default: the first violation, or the header of a "
            "valid game). For a game too large for one page: the page holds event N-1 and "
            "as many after it as fit.",
            metavar="N",
        ),
    ] = None,
    rules: RulesOpt = None,
) -> None:
    """Write one self-contained HTML page that steps through a game event by event.

    The page needs no network: its states come from the engine, embedded as JSON, with
    the tool version, the resolved ruleset and the SHA-256 of the game's lines. A page
    holds at most 64 MiB of game data; a larger game is refused (exit 2) unless --at N
    asks for the part from event N-1 on. From a dataset, the page shows the game the
    dataset stores (its source file only while it still holds that game).
    """
    file_options = load_rules_file(rules)
    game_id = one_game_id(source, game_id)
    from ..disputes.timeline import PageTooLarge
    from ..disputes.viewer import render
    from ..disputes.viewer_data import PAGE_LIMIT

    limit = f"{PAGE_LIMIT // 2**20} MiB" if PAGE_LIMIT % 2**20 == 0 else f"{PAGE_LIMIT:,} bytes"

    def too_large(big: PageTooLarge) -> NoReturn:
        if big.fits == 0:
            fail(
                f"game {game_id!r}: event {big.first} does not fit one page with the game's "
                f"header: it needs over {limit} of page data, the viewer's limit"
            )
        fail(
            f"game {game_id!r}: too large for one page: its {big.total:,} events need over "
            f"{limit} of page data, the viewer's limit (at most {big.fits:,} of them fit); "
            "write a part of it with --at N: the page then holds event N-1 and as many "
            "after it as fit"
        )

    try:
        gl = find_game(source, game_id)
        try:
            tl = build(gl, str(source), file_options, limit=PAGE_LIMIT)
        except PageTooLarge as big:
            if at is None or (big.fits == 0 and big.first >= max(0, at - 1)):
                too_large(big)
            if not 0 <= at < big.total:
                fail(f"game {game_id!r}: --at takes 0..{big.total - 1}, not {at}")
            tl = build(
                gl, str(source), file_options, first=max(0, at - 1), limit=PAGE_LIMIT,
                partial=True,
            )  # fmt: skip
    except PageTooLarge as big:
        too_large(big)
    except SourceError as exc:
        fail(str(exc))
    last = tl.first + len(tl.steps) - 1
    if at is not None and not tl.first <= at <= last:
        why = ""
        bad = tl.violation.event_index if tl.violation is not None else None
        if tl.violation is not None and bad is not None:
            # the page also shows the lines after the violation (not replayed), so its range
            # ends one or more events later than the range ``game --at`` takes
            why = (
                f" (the page shows the game's lines up to its last, event {tl.total - 1:,}; "
                f"the replay stopped at event {bad:,} ({tl.violation.code}), so game --at "
                f"takes 0..{bad:,})"
            )
        fail(f"game {game_id!r}: --at takes {tl.first}..{last}, not {at}{why}")
    start = at
    bad_at = tl.violation.event_index if tl.violation is not None else None
    if start is None and bad_at is not None and tl.first <= bad_at <= last:
        # the page opens where the dispute is: at the violating event, the state right
        # before it (the header shows every hand empty and no legal action)
        start = bad_at
    try:
        # a lone surrogate (an undecodable file name) outside the JSON block becomes "?"
        out_file.write_text(render(tl, start), encoding="utf-8", errors="replace")
    except OSError as exc:
        fail(f"{out_file}: cannot write: {exc.strerror}")
    status = "valid" if tl.violation is None else f"{tl.violation.code} at event "
    if tl.violation is not None:
        status += str(tl.violation.event_index)
    held = f"events 0 to {tl.total - 1:,}"
    if tl.first > 0 or last < tl.total - 1:
        held = f"events {tl.first:,} to {last:,} of 0 to {tl.total - 1:,}"
    if tl.cut:
        held += f" (the {limit} page limit; --at {last + 2:,} writes the next part)"
    err.print(
        f"wrote {safe(str(out_file))}: game {safe(game_id)}, {held}, {safe(status)}",
        highlight=False,
    )
    if tl.note:
        err.print(f"note: {safe(tl.note)}", highlight=False)


@app.command("convert")
def convert_cmd(
    source: Annotated[Path, typer.Argument(help="A .mm file, or a log (.jsonl, .gz, .zst).")],
    out_file: Annotated[
        Path,
        typer.Option(
            "--out", help="Output: .jsonl from a .mm file, .mm from a log.", metavar="FILE"
        ),
    ],
) -> None:
    """Convert the hand-written notation (.mm) to a JSON Lines log, or a log to notation.

    The direction follows FILE's name: a .mm file becomes JSON Lines, anything else is
    read as a log and written as notation. A syntax error is reported with its line and column
    (exit 2); nothing is written then.
    """
    try:
        if is_notation(source):
            lines = from_notation(read_text(source))
            data = b"".join(raw + b"\n" for _, raw in lines)
            count = len(lines)
        else:
            raws = [raw for _, raw in iter_lines(source)]
            text = to_notation(raws)
            data = text.encode("utf-8")
            count = len(raws)
    except NotationError as exc:
        fail(f"{source}:{exc.line}:{exc.column}: {exc.message}")
    except LogReadError as exc:
        fail(str(exc))
    try:
        out_file.write_bytes(data)
    except OSError as exc:
        fail(f"{out_file}: cannot write: {exc.strerror}")
    err.print(f"wrote {count:,} events to {safe(str(out_file))}", highlight=False)


def run_try(
    source: Path, game_id: str, at: int | None, action: str, as_json: bool, rules: Path | None
) -> None:
    """``game SOURCE GAME_ID --at N --try ACTION``: would ACTION have been legal right
    after event N (default: the last replayed event), or, at the game's violating event,
    instead of it (the same N as ``game --at``)? Exit 0 legal, 1 illegal, 2 usage."""
    file_options = load_rules_file(rules)
    try:
        gl = find_game(source, game_id)
        if at is None:
            at = last_replayed(gl, file_options)
        engine, bad = engine_after(gl, at, file_options)
    except SourceError as exc:
        fail(str(exc))
    from ..disputes.hypothetical import try_action

    try:
        result = try_action(engine, action)
    except NotationError as exc:
        fail(f'--try: column {exc.column}: {exc.message} (e.g. "ben plays 7C", "ben draws")')
    before = bad is not None and bad == at
    result = {"at": at, "state_is": "before" if before else "after", **result}
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    else:
        colour, verdict = ("green", "legal") if result["legal"] else ("red", "not legal")
        out.print(
            f"{'instead of' if before else 'after'} event {at}: [bold {colour}]{verdict}[/]: "
            f"{safe(action.strip())}",
            highlight=False,
        )
        if not result["legal"]:
            out.print(
                f"  [bold red]{result['code']}[/]: {safe(result['message'])}", highlight=False
            )
            out.print(f"  [dim]rule:[/]  {safe(result['rule'] or '')}", highlight=False)
        out.print(f"  [dim]legal there:[/] {safe(result['expected'] or '-')}", highlight=False)
    raise typer.Exit(EXIT_OK if result["legal"] else EXIT_VIOLATIONS)
