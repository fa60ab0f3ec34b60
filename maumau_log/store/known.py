"""The games a dataset stores or an ingest is storing, keyed by id, on disk.

An ingest must know, for every game it reads, whether the dataset already holds a game of
that id and with which content (FORMAT.md Files: a game id names one game; a second copy
with the same content is a duplicate, with other content a conflict). Holding them in a dict
made an ingest's memory grow with the dataset; :class:`KnownGames` keeps them in a private
temporary SQLite database instead, with the same exact comparison of ids as
:class:`maumau_log.replay.game_ids.GameIdTally`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

_EXACT = ("utf-8", "surrogatepass")
"""How an id becomes its key, as :func:`~maumau_log.replay.game_ids._key` makes it (bytes
SQLite compares exactly, lone surrogates from JSON kept), spelt inline: one Python call
less per id and per look-up or insert on the ingest's driver."""

_KNOWN = (
    "CREATE TABLE known (id BLOB PRIMARY KEY, content INTEGER, file INTEGER, line INTEGER) "
    "WITHOUT ROWID"
)
"""Keyed by the id alone (``WITHOUT ROWID``: one B-tree, not a rowid table beside an index
of the ids, which every insert and look-up paid twice: about 10% of the ingest driver's
known-games CPU on 200,000 ids)."""


class KnownGames:
    """The games stored or being stored by an ingest, keyed by id, kept on disk: game_id to
    (content hash, source file, source line), like the dict :func:`~maumau_log.store.
    known_games` returns, in a private temporary SQLite database, so an ingest's memory
    does not grow with the games it has seen.

    Args:
        cache_kib: SQLite's page cache, KiB.
    """

    _CHUNK = 500  # ids per lookup query (well under SQLite's parameter limit)

    def __init__(self, cache_kib: int = 8_192) -> None:
        import sqlite3

        self._db = sqlite3.connect("", check_same_thread=False)
        self._db.execute(f"PRAGMA cache_size = -{int(cache_kib)}")
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute(_KNOWN)
        self._files: dict[str, int] = {}
        self._names: list[str] = []

    def _file(self, name: str) -> int:
        index = self._files.get(name)
        if index is None:
            index = self._files[name] = len(self._names)
            self._names.append(name)
        return index

    def add(self, games: Mapping[str, tuple[int, str, int]]) -> None:
        """Add games (an id already known takes the new entry, as a dict would).

        Args:
            games: game_id to (content hash, source file, source line).
        """
        file = self._file
        self._db.executemany(
            "INSERT OR REPLACE INTO known VALUES (?, ?, ?, ?)",
            [(g.encode(*_EXACT), h, file(f), line) for g, (h, f, line) in games.items()],
        )

    def lookup(self, ids: Iterable[str]) -> dict[str, tuple[int, str, int]]:
        """The known games among ``ids``: game_id to (content hash, source file, line)."""
        keys = list({g.encode(*_EXACT) for g in ids})
        found: dict[str, tuple[int, str, int]] = {}
        for start in range(0, len(keys), self._CHUNK):
            chunk = keys[start : start + self._CHUNK]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT id, content, file, line FROM known WHERE id IN ({marks})"
            for key, h, file, line in self._db.execute(query, chunk):
                found[key.decode(*_EXACT)] = (h, self._names[file], line)
        return found

    def load(self, dataset: str | os.PathLike[str]) -> None:
        """Add the games a dataset stores (its ``games`` table, file by file, in batches).

        Raises:
            DatasetError: see :func:`maumau_log.store.check_files`.
        """
        from .manifest import _manifest_path, check_files

        root = Path(dataset)
        if not _manifest_path(root).exists():
            return
        import pyarrow.parquet as pq

        manifest = check_files(root, tables=("games",))
        columns = ["game_id", "content_hash", "source_file", "source_line"]
        for f in manifest.files["games"]:
            with pq.ParquetFile(root / f) as pf:
                for batch in pf.iter_batches(batch_size=50_000, columns=columns):
                    ids, hashes, files, lines = (c.to_pylist() for c in batch.columns)
                    self.add(
                        {
                            g: (h, sf, sl)
                            for g, h, sf, sl in zip(ids, hashes, files, lines, strict=True)
                        }
                    )

    def close(self) -> None:
        """Delete the temporary database."""
        self._db.close()

    def __enter__(self) -> KnownGames:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
