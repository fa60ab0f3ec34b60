"""A dataset's game for the viewer and ``game --try``: the game the dataset stores.

The ``games`` table names the file and line a game was ingested from and its content hash
(:func:`maumau_log.store.rows.content_hash`). The source file is read only when it is
still there and holds a game at that line; the replay then recomputes the hash with the
ingest's own collector and uses the file only when the hashes agree and the violating
line is the one the dataset kept (the file gives the lines after the violation and a
``.mm`` file's text, which the dataset does not keep; those lines are shown as not
checked). Otherwise the game is rebuilt from the stored events (``events.raw``: every
accepted event's line, the header re-encoded), after checking that they hash to the
stored content hash; the violation is then the stored one, with its line as the dataset
keeps it (``violations.raw``, cut to its limit). A source path is stored as the ingest was
given it, so from another working folder it may name no file or another file: either way
the stored events are shown, never a different game. Either way the game is replayed with
the effective options the ingest stored for it (``games.options``: an ingest's ``--rules``
file included), unless the command is given ``--rules``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..violations import Violation
from .gamelines import GameLines, SourceError, StoredCheck, find_in_file


def _options(game: dict[str, Any]) -> dict[str, Any] | None:
    """The effective options the ingest stored for ``game`` (None when its ruleset did not
    resolve, or the stored text is not an object of options)."""
    text = game.get("options")
    try:
        opts = json.loads(text) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        return None
    return opts if isinstance(opts, dict) else None


def _violation(row: dict[str, Any]) -> Violation:
    fields = {k: row.get(k) for k in Violation.__struct_fields__}
    return Violation(**fields)  # type: ignore[arg-type]


def _stored(root: Path, game: dict[str, Any]) -> GameLines:
    """The stored events of ``game`` (a ``games`` row), checked against its content hash,
    with the stored earlier rounds of its match before it.

    Raises:
        SourceError: no stored events, they do not hash to the stored content hash, or the
            dataset cannot be read.
    """
    import polars as pl

    from ..store import DatasetError, scan_all
    from ..store.rows import content_hash

    game_id = game["game_id"]

    def events_of(g: dict[str, Any]) -> tuple[list[tuple[int, bytes]], dict[str, Any] | None]:
        mine = (
            (pl.col("ruleset") == g["ruleset"])
            & (pl.col("date") == g["date"])
            & (pl.col("game_id") == g["game_id"])
        )
        ev = tables["events"].filter(mine).sort("event_index").select("line", "raw").collect()
        viol = tables["violations"].filter(mine).collect()
        lines = [(int(n or 0), str(r).encode()) for n, r in ev.iter_rows()]
        return lines, (viol.row(0, named=True) if viol.height else None)

    try:
        tables = scan_all(root)
        lines, stored_violation = events_of(game)
        prior: list[tuple[int, bytes]] = []
        mid, rnd = game.get("match_id"), game.get("round")
        if mid is not None and isinstance(rnd, int):
            earlier = (
                tables["games"]
                .filter((pl.col("match_id") == mid) & (pl.col("round") < rnd))
                .sort("round")
                .collect()
            )
            for g in earlier.iter_rows(named=True):
                prior.extend(events_of(g)[0])
    except DatasetError as exc:
        raise SourceError(str(exc)) from None
    except pl.exceptions.PolarsError as exc:
        raise SourceError(f"{root}: cannot read the dataset: {exc}") from None
    if not lines:
        raise SourceError(f"{root}: game {game_id!r} has no stored events")
    v = _violation(stored_violation) if stored_violation is not None else None
    events = game.get("events")
    if content_hash((raw for _, raw in lines), v, int(events or 0)) != game["content_hash"]:
        raise SourceError(
            f"{root}: the stored events of game {game_id!r} do not match its stored content "
            f"hash: the dataset was damaged or changed (maumau-log verify {root})"
        )
    # the replay finds the game by its header's line: an earlier round from another file
    # with a line at that number would be taken for it, so such rounds are left out
    if any(n == lines[0][0] for n, _ in prior):
        prior = []
    total = int(events) if isinstance(events, int) and events > len(lines) else None
    return GameLines(
        str(game.get("source_file") or root),
        game_id,
        lines,
        prior,
        from_store=True,
        stored_violation=stored_violation,
        total=total,
        options=_options(game),
    )


def from_dataset(root: Path, game_id: str) -> GameLines:
    """The lines of the game ``game_id`` as the dataset at ``root`` stores it (see the
    module docstring).

    Returns:
        The source file's lines with ``check`` set (the replay checks them), or the
        stored events with ``note`` saying why the file is not read.
    Raises:
        SourceError: no such game, the dataset cannot be read, or the stored events are
            needed and do not match the stored content hash.
    """
    import polars as pl

    from ..store import DatasetError, scan_all

    try:
        tables = scan_all(root)
        games = tables["games"].filter(pl.col("game_id") == game_id).collect()
        viol = tables["violations"].filter(pl.col("game_id") == game_id).select("raw").collect()
    except DatasetError as exc:
        raise SourceError(str(exc)) from None
    except pl.exceptions.PolarsError as exc:
        raise SourceError(f"{root}: cannot read the dataset: {exc}") from None
    if games.height == 0:
        raise SourceError(f"no game {game_id!r} in {root}")
    game = games.row(0, named=True)
    src, line = game.get("source_file"), game.get("source_line")
    shown = "shown from the dataset's stored events"
    if not src:
        return replace(_stored(root, game), note=f"the dataset names no source file: {shown}")
    try:
        is_file = Path(src).is_file()
    except (OSError, ValueError):  # a name the system cannot look up
        is_file = False
    if not is_file:
        return replace(_stored(root, game), note=f"its source file {src} is not found: {shown}")
    try:
        gl = find_in_file(src, game_id, line)
    except SourceError:
        why = f"{src} no longer holds the game at line {line}: {shown}"
        return replace(_stored(root, game), note=why)
    logged = viol.item(0, 0) if viol.height else None
    gl.options = _options(game)
    gl.check = StoredCheck(
        int(game["content_hash"]),
        logged if isinstance(logged, str) else None,
        lambda: _stored(root, game),
    )
    return gl
