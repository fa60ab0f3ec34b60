"""The ingest's first-copy rule on game ids, decided in one place.

A game id names one game (FORMAT.md Files): the first copy an ingest meets of an id is
stored; a later copy with the same content hash is a duplicate, with other content a
conflict, and neither is stored. "Met" means stored in the dataset already or read
earlier in this ingest, in input order. :class:`FirstCopy` applies the rule to one part of
a shard's result at a time (the result itself, or one of its flushed chunks), in shard
order, and says what the part adds to the ingest's summary (:class:`PartMerge`): counts,
violations, conflicts, the games whose staged rows must go and the matches touched.

Two callers run it: the ingest's own process (:func:`~maumau_log.run.ingest.ingest`,
:class:`LocalMerges`) and, on Ray, the known-games keeper, an actor on the driver's
node (:mod:`maumau_log.run.ray_runner`), so that no game's outcome reaches the driver.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..store.known import KnownGames
from ..store.rows import Conflict
from ..violations import Violation
from .shard import GameOutcome, ShardResult, Staged

if TYPE_CHECKING:
    import pyarrow as pa

Tables = dict[tuple[str, str], dict[str, "pa.Table"]]
"""(ruleset, date) to table name to the rows a part holds (not staged)."""


@dataclass
class PartMerge:
    """What one part of a shard's result adds to an ingest (small: no per-game list but
    the invalid games' violations, the conflicts and the games dropped).

    Attributes:
        games: games read (valid or not, duplicates and conflicts included).
        events: their events (the header counted).
        invalid: games read with a violation.
        added: games stored (the first copy of their id).
        duplicates: games not stored: their id met before with the same content hash.
        violations: the first violation of every invalid game, in input order.
        conflicts: games not stored: their id met before with other content.
        drop: ids of games already in the dataset or in an earlier part whose rows this
            part holds (staged or not): they must not be stored again.
        touched: match ids of the games stored (their ``matches`` rows are updated).
        game_ids: every game's id in input order, when asked for (``keep_game_ids``).
    """

    games: int = 0
    events: int = 0
    invalid: int = 0
    added: int = 0
    duplicates: int = 0
    violations: list[Violation] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)
    touched: set[str] = field(default_factory=set)
    game_ids: list[str] = field(default_factory=list)


class FirstCopy:
    """The first-copy rule over the parts of an ingest, in input order (FORMAT.md Files).

    Args:
        known: the games stored or already taken by this ingest (loaded from the dataset
            by the caller); the games each part stores are added to it.
        keep_game_ids: list every game's id in :attr:`PartMerge.game_ids`.
        on_report: called with every game's outcome, in input order.
    """

    def __init__(
        self,
        known: KnownGames,
        keep_game_ids: bool = False,
        on_report: Callable[[GameOutcome], None] | None = None,
    ) -> None:
        self.known = known
        self.keep_game_ids = keep_game_ids
        self.on_report = on_report

    def merge(self, games: list[GameOutcome]) -> PartMerge:
        """Apply the rule to one part's games (in file order) and record the games it
        stores.

        A game whose id the dataset or an earlier part holds is dropped (its rows in this
        part go: ``drop``); one whose id an earlier game of the same part holds is not
        dropped, since the shard kept only that first copy's rows
        (:meth:`~maumau_log.store.collector.RecordCollector.end_game`).

        Args:
            games: the part's outcomes, each with its ``content_hash``.
        Returns:
            The :class:`PartMerge`.
        """
        out = PartMerge()
        stored = self.known.lookup(g.key for g in games)
        new: dict[str, tuple[int, str, int]] = {}
        for g in games:
            out.games += 1
            out.events += g.events
            if g.violation is not None:
                out.invalid += 1
                out.violations.append(g.violation)
            if self.keep_game_ids:
                out.game_ids.append(g.key)
            if self.on_report is not None:
                self.on_report(g)
            before = stored.get(g.key)  # in the dataset, or in an earlier part
            seen = before or new.get(g.key)
            if seen is not None:
                if seen[0] == g.content_hash:
                    out.duplicates += 1
                else:
                    out.conflicts.append(Conflict(g.key, g.file, g.line, seen[1], seen[2]))
                if before is not None:  # the part's rows of this id go
                    out.drop.add(g.key)
                continue
            assert g.content_hash is not None
            new[g.key] = (g.content_hash, g.file, g.line)
            out.added += 1
            if g.match_id is not None:
                out.touched.add(g.match_id)
        self.known.add(new)
        return out


def read_outcomes(stage: str | os.PathLike[str], rel: str) -> list[GameOutcome]:
    """The outcomes a shard staged (a flushed chunk's, or on Ray every shard's), read back
    from the staging folder ``stage`` and their file deleted (each is merged once).

    Args:
        stage: the ingest's staging folder.
        rel: the file's path relative to it (:attr:`~maumau_log.run.shard.Chunk.outcomes`).
    """
    path = os.path.join(stage, rel)
    with open(path, "rb") as fh:
        games: list[GameOutcome] = pickle.load(fh)
    os.unlink(path)
    return games


Part = tuple[PartMerge, Tables, Staged]
"""One merged part of a shard's result: what it adds, its tables held, its staged files."""


class Merges(Protocol):
    """Where an ingest's parts are merged: :class:`LocalMerges` (this process) or Ray's
    known-games keeper (:func:`~maumau_log.run.ray_runner.ray_runner`'s ``keeper``)."""

    def parts(self, res: ShardResult, stage: str | os.PathLike[str]) -> Iterator[Part]:
        """The merged parts of ``res`` in file order (merging a part records its games)."""
        ...

    def close(self) -> None:
        """Release what the merges hold (the keeper: the actor is ended)."""
        ...


class LocalMerges:
    """The merges in this process: the ingest's known games loaded from the dataset (on
    disk: memory flat in the games stored), each part's outcomes in this process.

    Args:
        dataset: the dataset folder (its ``games`` table is loaded).
        keep_game_ids, on_report: as for :class:`FirstCopy`.
    Raises:
        DatasetError: see :meth:`~maumau_log.store.known.KnownGames.load`.
    """

    def __init__(
        self,
        dataset: str | os.PathLike[str],
        keep_game_ids: bool = False,
        on_report: Callable[[GameOutcome], None] | None = None,
    ) -> None:
        self.known = KnownGames()
        try:
            self.known.load(dataset)
        except BaseException:
            self.known.close()
            raise
        self.rule = FirstCopy(self.known, keep_game_ids, on_report)

    def parts(self, res: ShardResult, stage: str | os.PathLike[str]) -> Iterator[Part]:
        """The parts of ``res``: the result itself, or each of its chunks with its outcomes
        read back from ``stage``, so this process holds one chunk's games at a time."""
        if not res.chunks:
            yield self.rule.merge(res.games), res.tables, res.staged
            return
        for chunk in res.chunks:
            yield self.rule.merge(read_outcomes(stage, chunk.outcomes)), {}, chunk.staged

    def close(self) -> None:
        """Delete the known games' temporary database."""
        self.known.close()


def merge_all(rule: FirstCopy, parts: Iterable[list[GameOutcome]]) -> list[PartMerge]:
    """:meth:`FirstCopy.merge` of each part in order (the keeper's call on one shard)."""
    return [rule.merge(games) for games in parts]
