"""One game's located lines, found in a log file or a notation file (the viewer's and
``game --try``'s source; :func:`maumau_log.disputes.timeline.find_game` adds datasets).

A game is its header line and the lines up to the next header; the earlier rounds of the
same match in the same file come with it, so its replay gets the match's context as in
``validate``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..logs.lines import LogReadError, iter_lines
from ..logs.notation import BadLine, is_notation, located_lines, read_text


class SourceError(ValueError):
    """The source or the game cannot be found or read (the CLI's exit code 2)."""


@dataclass
class GameLines:
    """The located lines of one game, and of the earlier rounds of its match in its file.

    Attributes:
        file: where the lines are from; game_id: the game's id.
        lines: the game's located lines, header first; prior: the earlier rounds' lines.
        texts: a ``.mm`` file's lines by number (empty for a JSON log).
        from_store: the lines are a dataset's stored events (the accepted ones): the
            violating line is then not among them and the violation is the stored one.
        stored_violation: the stored violation row (with ``raw``, the line as logged, cut
            to the dataset's limit), for ``from_store``.
        total: the game's events where ``lines`` holds fewer (stored events end before a
            violation), else None.
        check: what a dataset stores of the game, when the lines are read from the source
            file the dataset names: the replay checks the lines against it and shows the
            stored game instead when they differ (the file changed since the ingest).
        note: why a dataset's game is shown from its stored events, or None.
        options: a dataset's game: the effective options the ingest stored for it
            (``games.options``), replayed with them unless ``--rules`` is given, so the
            ruleset is the one the dataset's game was checked with.
    """

    file: str
    game_id: str
    lines: list[tuple[int, bytes]]
    prior: list[tuple[int, bytes]] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    from_store: bool = False
    stored_violation: dict[str, Any] | None = None
    total: int | None = None
    check: StoredCheck | None = None
    note: str | None = None
    options: dict[str, Any] | None = None


@dataclass
class StoredCheck:
    """What a dataset stores of a game, to check the lines of its source file against.

    Attributes:
        content_hash: ``games.content_hash`` (:func:`maumau_log.store.rows.content_hash`:
            the accepted events, the number of events, the violation's code and index).
        violation_raw: ``violations.raw`` (the violating line as logged, cut to the
            dataset's limit), or None (a valid game, or a dataset that did not keep it).
        load: reads the game from the stored events (raises SourceError when they cannot
            be used).
    """

    content_hash: int
    violation_raw: str | None
    load: Callable[[], GameLines]


def _header_of(raw: bytes) -> dict[str, Any] | None:
    if type(raw) is BadLine:
        return {"game_id": raw.game_id} if raw.header else None
    if b'"game"' not in raw[:400]:
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) and obj.get("type") == "game" else None


def _located(path: Path) -> tuple[Iterable[tuple[int, bytes]], dict[int, str]]:
    if is_notation(path):
        text = read_text(path)
        texts = dict(enumerate(text.split("\n"), start=1))
        return located_lines(text), texts
    return iter_lines(path), {}


def find_in_file(
    path: str | os.PathLike[str], game_id: str, at_line: int | None = None
) -> GameLines:
    """The lines of game ``game_id`` in one log or notation file (the first game with
    that id, or the one whose header is at ``at_line``).

    Raises:
        SourceError: no such game; the file cannot be read.
    """
    p = Path(path)
    by_match: dict[str, list[tuple[int, bytes]]] = {}
    found: GameLines | None = None
    current: list[tuple[int, bytes]] | None = None
    current_match: str | None = None
    try:
        lines, texts = _located(p)
        for n, raw in lines:
            head = _header_of(raw)
            if head is not None:
                if found is not None:
                    break
                if current is not None and current_match is not None:
                    by_match.setdefault(current_match, []).extend(current)
                current = [(n, raw)]
                mid = head.get("match_id")
                current_match = mid if isinstance(mid, str) else None
                if head.get("game_id") == game_id and (at_line is None or at_line == n):
                    prior = by_match.get(current_match, []) if current_match else []
                    found = GameLines(str(path), game_id, current, prior, texts)
                continue
            if current is not None:
                current.append((n, raw))
    except LogReadError as exc:
        if found is None or exc.line is None:
            raise SourceError(str(exc)) from None
    except (OSError, UnicodeError) as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from None
    if found is None:
        raise SourceError(f"{path}: no game {game_id!r}")
    return found


def game_ids_in_file(path: str | os.PathLike[str]) -> tuple[list[str], int]:
    """The game ids of a log or notation file's games, for a command given no game id.

    Args:
        path: the log or ``.mm`` file.
    Returns:
        ``(ids, games)``: the distinct ids in file order (at most :data:`SHOWN_IDS` + 1,
        enough to tell "one", "several" and "more than shown") and the number of games.
    Raises:
        SourceError: the file cannot be read (a line error after the first game is not
            one: the ids before it are returned).
    """
    ids: dict[str, None] = {}
    games = 0
    try:
        lines, _texts = _located(Path(path))
        for _n, raw in lines:
            head = _header_of(raw)
            if head is None:
                continue
            games += 1
            gid = head.get("game_id")
            if isinstance(gid, str) and len(ids) <= SHOWN_IDS:
                ids.setdefault(gid, None)
    except LogReadError as exc:
        if not games:
            raise SourceError(str(exc)) from None
    except (OSError, UnicodeError) as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from None
    return list(ids), games


SHOWN_IDS = 20
"""The game ids a "which game?" message lists (the rest are counted)."""
