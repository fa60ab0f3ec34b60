"""Duplicate and conflicting game ids of a run, in bounded memory (peak RSS of
``validate`` flat in the number of games).

``validate`` reports every game id used by more than one game (``duplicate_game_ids``) and
every id used by games of different content (``conflicting_game_ids``, with the place of
each different copy's first appearance). Holding every id of the run in a dict made the
parent's memory grow with the games (about 100 MiB at 10^5 games). :class:`GameIdTally`
instead appends one compact row per game to a private temporary SQLite database (Python's
``sqlite3``: a well-kept, always-present engine whose sort and group-by spill to disk
beyond a fixed page cache), in batches of ``batch`` rows; at the end one ``GROUP BY`` finds
the ids that repeat and only their rows are read back into Python. A run smaller than one
batch never opens the database (nor imports ``sqlite3``): its rows are grouped in memory.
Ids are compared as their exact UTF-8 bytes (never a hash), so two different ids can never
be taken for one.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..logs.lines import is_uri

if TYPE_CHECKING:
    import sqlite3

    from .driver import GameReport

_ROWS = "CREATE TABLE ids (id BLOB NOT NULL, content INTEGER, seq INTEGER NOT NULL, " \
    "file INTEGER NOT NULL, line INTEGER)"  # fmt: skip

_REPEATED = (
    "SELECT i.id, i.content, i.file, i.line FROM ids AS i "
    "JOIN (SELECT id FROM ids GROUP BY id HAVING COUNT(*) > 1) AS r ON i.id = r.id "
    "ORDER BY i.id, i.seq"
)


def _key(game_id: str) -> bytes:
    """An id as bytes SQLite compares exactly (lone surrogates from JSON kept)."""
    return game_id.encode("utf-8", "surrogatepass")


class GameIdTally:
    """The game ids of a run, in arrival order, kept on disk.

    Args:
        batch: rows held in memory before they are written to the database (the memory
            bound of the tally together with ``cache_kib``).
        cache_kib: SQLite's page cache, KiB (its sort spills to temporary files beyond it).
    """

    def __init__(self, batch: int = 20_000, cache_kib: int = 8_192) -> None:
        self._batch = max(1, batch)
        self._cache_kib = cache_kib
        self._rows: list[tuple[bytes, int | None, int, int, int | None]] = []
        self._files: dict[str, int] = {}
        self._db: sqlite3.Connection | None = None
        self._seq = 0
        self._result: tuple[list[str], dict[str, list[str]]] | None = None

    def add(self, game_id: str, content_hash: int | None, file: str, line: int | None) -> None:
        """Note one game.

        Args:
            game_id: the header's ``game_id``.
            content_hash: the game's content hash (a signed 64-bit int; None when the
                replay computed none: the game counts for duplicates, not conflicts).
            file, line: where the game starts (its place is shown as ``file:line``).
        """
        index = self._files.setdefault(file, len(self._files))
        self._rows.append((_key(game_id), content_hash, self._seq, index, line))
        self._seq += 1
        self._result = None
        if len(self._rows) >= self._batch:
            self._flush()

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            import sqlite3  # only once a batch is full: a small validate starts without it

            # "": a private temporary database on disk, deleted when closed
            # used by one thread at a time; the finalizer may run in another
            self._db = sqlite3.connect("", check_same_thread=False)
            self._db.execute(f"PRAGMA cache_size = -{int(self._cache_kib)}")
            self._db.execute("PRAGMA journal_mode = OFF")
            self._db.execute("PRAGMA synchronous = OFF")
            self._db.execute(_ROWS)
        return self._db

    def _flush(self) -> None:
        if self._rows:
            db = self._connect()
            db.executemany("INSERT INTO ids VALUES (?, ?, ?, ?, ?)", self._rows)
            self._rows = []

    def repeated(self) -> tuple[list[str], dict[str, list[str]]]:
        """The ids used more than once, and those among them used with different content.

        Returns:
            ``(duplicates, conflicts)``: the ids used by more than one game, sorted; and id
            to the sorted places (``file:line``) of the first appearance of each different
            content, for the ids with more than one content, in id order. The same as
            counting every id in memory (:func:`repeated_in_memory`).
        """
        if self._result is not None:
            return self._result
        rows: Iterable[tuple[bytes, int | None, int, int | None]]
        if self._db is None:  # nothing written yet: the batch alone, sorted like the query
            ordered = sorted(self._rows, key=lambda r: (r[0], r[2]))
            rows = ((key, h, file, line) for key, h, _seq, file, line in ordered)
        else:
            self._flush()
            rows = self._db.execute(_REPEATED)
        names = list(self._files)
        duplicates: list[str] = []
        conflicts: dict[str, list[str]] = {}
        current: bytes | None = None
        count = 0
        places: dict[int, str] = {}

        def close_group() -> None:
            if current is None or count < 2:
                return
            gid = current.decode("utf-8", "surrogatepass")
            duplicates.append(gid)
            if len(places) > 1:
                conflicts[gid] = sorted(places.values())

        for key, content, file, line in rows:
            if key != current:
                close_group()
                current, count, places = key, 0, {}
            count += 1
            if content is not None:
                places.setdefault(content, f"{names[file]}:{line}")
        close_group()
        duplicates.sort()
        self._result = duplicates, {gid: conflicts[gid] for gid in sorted(conflicts)}
        return self._result

    def close(self) -> None:
        """Delete the temporary database (also done when the tally is garbage-collected)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter exit, or in another thread
            self.close()


def repeated_in_memory(
    games: list[tuple[str, int | None, str, int | None]],
) -> tuple[list[str], dict[str, list[str]]]:
    """The reference :meth:`GameIdTally.repeated` is tested against: every id in a dict.

    Args:
        games: ``(game_id, content_hash, file, line)`` in arrival order.
    Returns:
        As :meth:`GameIdTally.repeated`.
    """
    count: dict[str, int] = {}
    content: dict[str, dict[Any, str]] = {}
    for gid, h, file, line in games:
        count[gid] = count.get(gid, 0) + 1
        if h is not None:
            content.setdefault(gid, {}).setdefault(h, f"{file}:{line}")
    duplicates = sorted(gid for gid, n in count.items() if n > 1)
    conflicts = {
        gid: sorted(places.values()) for gid, places in sorted(content.items()) if len(places) > 1
    }
    return duplicates, conflicts


def orphan_key(report: GameReport) -> str:
    """The key of events outside any game: the file's real path (or its URI) and line, so
    that another spelling of the same path names the same rows."""
    where = report.file if is_uri(report.file) else os.path.realpath(report.file)
    return f"?{where}:{report.line}"
