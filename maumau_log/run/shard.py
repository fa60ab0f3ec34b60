"""The unit of replay work: a shard (a file, or a byte range of a large file) in, Arrow out.

Every command that replays (``validate``, ``ingest``, ``analyze``, ``audit``'s inputs)
cuts its input into :class:`Shard` objects (:func:`plan_shards`) and turns each into a
:class:`ShardResult` with :func:`run_shard`: the games' outcomes (violations, ids, content
hashes) and, for an ingest, the dataset's tables as pyarrow Tables per partition. The
function is pure: it reads its shard, touches no dataset and shares no state, so shards run
in any process or on any machine (:mod:`maumau_log.run.runners`) and give the same result.

What crosses shard boundaries is put back by the one merging the results in shard order
(:func:`maumau_log.run.runners.merge_order`): match state (a shard whose matches began in an
earlier shard is replayed again with that state, :attr:`ShardResult.match_ids`) and the
game_id + content-hash rule of ingest (each outcome carries its hash; the merger drops the
rows of games already stored or seen).

Cut points: a plain (uncompressed) file larger than twice the shard size is cut before
``game`` header lines (the line decodes as a ``game`` event), preferring headers that do
not continue a match (no ``match_id``, or round 1), so shards rarely need the match replay,
and never before a line longer than the readers' limit (whether such a line starts a game
is the replay's decision from its first bytes, the same in every shard). The scan is
linear in the file's size whatever its line lengths. A compressed file is one shard (a
compressed stream cannot be entered in the middle).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import msgspec

from ..events import Game, decode_event, encode_event
from ..logs.lines import (
    LogReadError,
    is_plain,
    is_uri,
    iter_line_runs,
    line_limit,
    numbered,
)
from ..logs.lines import expand_inputs as expand_inputs  # re-exported (its home was here)
from ..logs.notation import file_lines as notation_lines
from ..logs.notation import is_notation, located_lines
from ..replay.driver import GameReport, Replayer
from ..replay.game_ids import orphan_key
from ..scoring.matches import MatchState
from ..violations import Violation

if TYPE_CHECKING:
    import pyarrow as pa

SHARD_BYTES = 32 * 1024 * 1024
"""Target size of a shard of a large plain log, in bytes (a file up to twice this size is
one shard)."""

MIN_SHARD_BYTES = 4 * 1024 * 1024
"""The smallest target of :func:`plan_shards` when it cuts finer to keep workers busy."""

SHARDS_PER_WORKER = 12
"""With several workers, :func:`plan_shards` aims at this many shards per worker (a
smaller target than :data:`SHARD_BYTES` where the input is small), so that the last
shards leave no worker idle for long (8 equal files on 2 workers left one idle
while the other finished its last file)."""

_SCAN = 1024 * 1024
_HEADER_HINT = b'"game"'


@dataclass(frozen=True)
class Shard:
    """One unit of replay work.

    Attributes:
        index: the shard's place in the input (results are merged in this order).
        path: the log file, as given (violations name it so).
        start, end: the byte range (``end`` None: to the end of the file); ``start`` is the
            first byte of a line.
        first_line: the line number at ``start``.
        data: the file's content when it was read already (Ray), else None.
    """

    index: int
    path: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    data: bytes | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """``path`` or ``path (bytes a-b, from line n)`` for messages."""
        if not self.start and self.end is None:
            return self.path
        end = "end" if self.end is None else str(self.end)
        return f"{self.path} (bytes {self.start}-{end}, from line {self.first_line})"


@dataclass(slots=True)
class GameOutcome:
    """What one replayed game leaves besides its rows (small, cheap to send between
    processes).

    Attributes:
        file, line: the game's source (header line, or first line of headerless events).
        game_id: the header's id, or None for events outside any game.
        key: the id the dataset stores the game under (``game_id``, or ``?path:line``).
        has_header: a header was read.
        events: events in the game, the header counted.
        violation: the first violation, or None.
        unchecked: checks a partial-information log did not allow.
        content_hash: :func:`~maumau_log.store.collector.content_hash` (only when collecting rows).
        match_id: the header's match id.
    """

    file: str
    line: int
    game_id: str | None
    key: str
    has_header: bool
    events: int
    violation: Violation | None
    unchecked: list[str]
    content_hash: int | None = None
    match_id: str | None = None

    @property
    def valid(self) -> bool:
        """No violation."""
        return self.violation is None

    def __reduce__(self) -> tuple[type[GameOutcome], tuple[Any, ...]]:
        """Pickle as the class and its field values (the workers send one per game: 40%
        fewer bytes and half the pickling time of the slots dataclass's default state)."""
        return GameOutcome, (
            self.file, self.line, self.game_id, self.key, self.has_header, self.events,
            self.violation, self.unchecked, self.content_hash, self.match_id,
        )  # fmt: skip


@dataclass
class ShardResult:
    """The result of :func:`run_shard`.

    Attributes:
        shard: the shard (without its data).
        games: one outcome per game, in file order.
        tables: (ruleset, date) to table name to pyarrow Table (``games``, ``results``,
            ``events``, ``violations``); empty when rows were not asked for.
        unreadable: the error when the file could not be opened at all.
        match_ids: the matches whose rounds this shard holds.
        matches: the match states at the end of the shard (for the next shard's replay).
        seeded: the shard was replayed with match state from earlier shards.
        staged: (table, ruleset, date) to (path relative to the staging folder, rows) of
            the tables the worker wrote itself (:func:`maumau_log.run.runners.stage_tables`).
    """

    shard: Shard
    games: list[GameOutcome] = field(default_factory=list)
    tables: dict[tuple[str, str], dict[str, pa.Table]] = field(default_factory=dict)
    unreadable: LogReadError | None = None
    match_ids: set[str] = field(default_factory=set)
    matches: dict[str, MatchState] = field(default_factory=dict)
    seeded: bool = False
    staged: dict[tuple[str, str, str], tuple[str, int]] = field(default_factory=dict)

    @property
    def events(self) -> int:
        """Events read (every game's count, headers included)."""
        return sum(g.events for g in self.games)


@dataclass
class ShardFailure:
    """A shard that could not be replayed (its worker died, or a bug).

    Attributes:
        shard: the shard.
        error: what went wrong, in one line.
        write: when a worker could not write a staged file
            (:func:`maumau_log.run.runners.stage_tables`): (the file's path relative to the
            dataset, errno, strerror); the ingest then stops with the dataset's write
            error (exit 2, nothing stored), as when the parent cannot write.
    """

    shard: Shard
    error: str
    write: tuple[str, int | None, str | None] | None = None

    def __str__(self) -> str:
        return f"{self.shard.describe()}: {self.error}"


def outcome(report: GameReport) -> GameOutcome:
    """The :class:`GameOutcome` of a replayed game's report."""
    gid = report.game_id
    header = report.header
    return GameOutcome(
        file=report.file,
        line=report.line,
        game_id=gid,
        key=gid if gid is not None else orphan_key(report),
        has_header=header is not None,
        events=report.events,
        violation=report.violation,
        unchecked=report.unchecked,
        content_hash=report.extra.get("content_hash"),
        match_id=header.match_id if header is not None else None,
    )


class ContentHasher:
    """A replay visitor for ``validate`` (which builds no rows): puts a 64-bit digest of
    each game's header, accepted lines and first violation into
    ``report.extra["content_hash"]``, so a game id used twice for one game can be told
    from one used by two different games. It takes the accepted lines
    from ``report.lines`` (``lines_only``: no Python call per event)."""

    lines_only = True

    def begin_game(self, report: GameReport) -> None:
        """Nothing to do: the digest is made at the game's end."""

    def event(self, report: GameReport, index: int, line: int, event: Any, raw: bytes) -> None:
        """Not called (``lines_only``); the lines arrive in ``report.lines``."""

    def end_game(self, report: GameReport) -> None:
        """The digest of the header, the lines, the event count and the first violation's
        code and place (the lines are released afterwards)."""
        h = hashlib.blake2b(digest_size=8)
        if report.header is not None:
            h.update(encode_event(report.header))
        if report.lines:
            h.update(b"\n".join(report.lines))
            h.update(b"\n")
            report.lines.clear()
        v = report.violation
        tail = f"{report.events}|{v.code if v else ''}|{v.event_index if v else ''}"
        h.update(tail.encode())
        report.extra["content_hash"] = int.from_bytes(h.digest(), "little", signed=True)


def run_shard(
    shard: Shard,
    rules_file_options: Mapping[str, Any] | None = None,
    collect: bool = False,
    ingested_at: datetime | None = None,
    matches: Mapping[str, MatchState] | None = None,
    *,
    max_line_bytes: int | None = None,
) -> ShardResult:
    """Replay one shard: the games' outcomes and, with ``collect``, the dataset's rows.

    A pure function: it reads the shard (or ``shard.data``) and nothing else.

    Args:
        shard: the shard.
        rules_file_options: options of a ``--rules`` file, or None.
        collect: build the dataset's tables (ingest); False for ``validate``.
        ingested_at: the ingest time stored in every ``games`` row (one per ingest, so every
            shard of it stores the same).
        matches: match states from the shards before (only when :attr:`ShardResult.match_ids`
            said the shard continues their matches); copied, not changed.
        max_line_bytes: the longest line read (None: :func:`~maumau_log.logs.lines.line_limit`);
            a longer one is reported ``line_too_long`` in place.
    Returns:
        The :class:`ShardResult`. Within the shard a game id met twice keeps only its first
        copy's rows (as ingest does); the merger applies the rule across shards and the
        dataset. A file that cannot be opened gives ``unreadable`` and no games.
    """
    import copy

    collector = None
    if collect:  # Arrow and Polars only when rows are wanted (not for validate: start-up)
        from ..store.collector import RecordCollector

        collector = RecordCollector(ingested_at=ingested_at)
    visitors: list[Any] = [collector] if collector else [ContentHasher()]
    replayer = Replayer(rules_file_options, visitors=visitors)
    if matches:
        replayer.matches = copy.deepcopy(dict(matches))
    result = ShardResult(shard=Shard(shard.index, shard.path, shard.start, shard.end,
                                     shard.first_line), seeded=bool(matches))  # fmt: skip
    lines: Iterable[tuple[int, bytes]]
    if is_notation(shard.path):  # the hand-written notation: one shard, converted as read
        lines = (
            located_lines(shard.data.decode("utf-8", "replace"))
            if shard.data is not None
            else notation_lines(shard.path)
        )
    else:
        lines = numbered(  # the lines, numbered in C
            iter_line_runs(
                Path(shard.path),
                start=shard.start,
                end=shard.end,
                first_line=shard.first_line,
                data=shard.data,
                max_line_bytes=max_line_bytes,
            )
        )
    try:
        for report in replayer.replay_lines(shard.path, lines):
            o = outcome(report)
            result.games.append(o)
            if o.match_id is not None:
                result.match_ids.add(o.match_id)
    except LogReadError as exc:
        result.unreadable = exc
        result.games = []
        return result
    if collector is not None:
        result.tables = collector.tables()
    result.matches = replayer.matches
    return result


# ---------------------------------------------------------------------------------------
# Planning


def _header_at(line: bytes, limit: int | None = None) -> tuple[bool, bool] | None:
    """(is a header, continues a match) for a line, or None when it is no ``game`` event.

    ``limit``: the readers' longest line (:func:`~maumau_log.logs.lines.line_limit` when
    None); a longer line is read as an over-long line, never as a header, so it is no cut
    point (the replay decides from its first bytes whether it starts a game)."""
    if _HEADER_HINT not in line[:300]:
        return None
    if len(line) - line.endswith(b"\r") > (line_limit() if limit is None else limit):
        return None
    try:
        ev = decode_event(line.rstrip(b"\r"))
    except (msgspec.DecodeError, RecursionError):
        return None
    if type(ev) is not Game:
        return None
    return True, ev.match_id is not None and ev.round not in (None, 1)


def _cuts(path: Path, target: int, limit: int | None = None) -> list[tuple[int, int]]:
    """(byte offset, line number) of each cut of a large plain file, after the first.

    A cut goes before the first header at or after every ``target`` bytes that does not
    continue a match; when only match rounds follow, before the first of them once
    ``target / 4`` more bytes have gone by without a better one. A line longer than
    ``limit`` (the readers' longest line, :func:`~maumau_log.logs.lines.line_limit` when None)
    is never a cut.

    One pass over the file in reads of :data:`_SCAN` bytes, linear in its size whatever
    its line lengths: the lines before a due cut are counted in C, and of a line that does
    not end in the read, only what can still make it a cut is kept (its pieces up to the
    limit while it may be a header; nothing when it starts before the due offset, its
    first 300 bytes name no ``game``, or it is too long), never the read buffer grown by
    every read (a 500 MB line took 109 s and 1.05 GB that way).
    """
    limit = line_limit() if limit is None else limit
    cuts: list[tuple[int, int]] = []
    want = target  # the next cut is due at or after this offset
    lines = 0  # newlines before the current line
    fallback: tuple[int, int] | None = None
    carry: list[bytes] = []  # the current line's pieces from earlier reads, while it may cut
    carried = 0  # their length
    skip = False  # the current line began in an earlier read and cannot be a cut
    base = 0  # file offset of the current read
    line_start = 0  # file offset of the current line

    def consider(start: int, line: bytes) -> None:
        nonlocal want, fallback
        head = _header_at(line, limit) if start >= want else None
        if head is not None and not head[1]:  # a header that continues no match
            cuts.append((start, lines + 1))
            want, fallback = start + target, None
        elif head is not None:  # a later round of a match
            if fallback is not None and start - fallback[0] > target // 4:
                cuts.append(fallback)
                want, fallback = fallback[0] + target, None
            if fallback is None and start >= want:
                fallback = (start, lines + 1)

    with open(path, "rb", buffering=0) as fh:
        while buf := fh.read(_SCAN):
            at = 0
            if carry or skip:  # a line begun in an earlier read
                nl = buf.find(b"\n")
                piece = buf if nl < 0 else buf[:nl]
                if not skip:
                    if len(carry[0]) < 300:  # the first piece holds the line's first 300 bytes
                        carry[0] += piece
                    else:
                        carry.append(piece)
                    carried += len(piece)
                    if not _may_cut(carry[0], carried, limit):
                        carry, carried, skip = [], 0, True
                if nl < 0:
                    base += len(buf)
                    continue
                if not skip:
                    consider(line_start, b"".join(carry))
                carry, carried, skip = [], 0, False
                lines += 1
                at = nl + 1
            while True:
                rel = want - base
                if rel > at:  # no cut before ``want``: skip those lines, counted in C
                    n = buf.find(b"\n", rel - 1)  # ends the line before the first at >= want
                    if n < 0:
                        last = buf.rfind(b"\n", at)
                        if last >= at:
                            lines += buf.count(b"\n", at, last + 1)
                            at = last + 1
                        break
                    lines += buf.count(b"\n", at, n + 1)
                    at = n + 1
                if (nl := buf.find(b"\n", at)) < 0:
                    break
                consider(base + at, buf[at:nl])
                lines += 1
                at = nl + 1
            if at < len(buf):  # a line that goes on in the next read
                line_start = base + at
                rest = buf[at:]
                if line_start >= want and _may_cut(rest, len(rest), limit):
                    carry, carried = [rest], len(rest)
                else:
                    skip = True
            base += len(buf)
    return cuts  # (a last line without a newline is no cut: nothing follows it)


def _may_cut(first: bytes, length: int, limit: int) -> bool:
    """Whether a line read so far (``first``: its first piece; ``length`` bytes in all)
    may still be a cut: it may name a ``game`` in its first 300 bytes and is not yet
    longer than ``limit`` (+1: a ``\\r`` may yet end it)."""
    return length <= limit + 1 and (len(first) < 300 or _HEADER_HINT in first[:300])


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def balanced_target(
    files: Sequence[str | os.PathLike[str]], workers: int, shard_bytes: int = SHARD_BYTES
) -> int:
    """The target shard size for ``workers`` processes: ``shard_bytes``, or less so that
    the local files give about :data:`SHARDS_PER_WORKER` shards per worker, never below
    :data:`MIN_SHARD_BYTES` (nor above ``shard_bytes``). One worker: ``shard_bytes``.

    Args:
        files: the log files.
        workers: worker processes.
        shard_bytes: the target without balancing, in bytes.
    Returns:
        The target in bytes.
    """
    if workers <= 1:
        return shard_bytes
    total = sum(_size(Path(f)) for f in files if not is_uri(str(f)))
    want = total // (SHARDS_PER_WORKER * workers)
    return max(min(shard_bytes, MIN_SHARD_BYTES), min(shard_bytes, want))


class ShardPlan(Sequence[Shard]):
    """The shards of :func:`plan_shards`, planned as they are asked for.

    The files' sizes and kinds are read at once (``stat`` and a sniff of the head); a
    large plain file is scanned for its cuts (:func:`_cuts`, about 0.06 s per 40 MB file)
    only when its first shard is wanted, so the pool's workers replay the first shards
    while the parent plans the rest (the parallel scan of every file before the
    first shard cost ``validate --jobs 2`` of 10^5 games 0.8 s of wall and 0.5 CPU s of
    two more processes). Iterating yields the shards in order; ``len`` and indexing plan
    as far as they need (``len``: everything).

    Args:
        files, shard_bytes, workers: as for :func:`plan_shards`.
        on_planned: called once with the number of shards when the last file is planned
            (at once when no file needs a scan), e.g. a progress bar's total.
    """

    def __init__(
        self,
        files: Sequence[str | os.PathLike[str]],
        shard_bytes: int = SHARD_BYTES,
        workers: int = 1,
        on_planned: Callable[[int], None] | None = None,
    ) -> None:
        shard_bytes = balanced_target(files, workers, shard_bytes)
        sizes = [0 if is_uri(str(f)) else _size(Path(f)) for f in files]
        tail_from = sum(sizes) - workers * shard_bytes if workers > 1 else None
        fine = max(min(shard_bytes, MIN_SHARD_BYTES), shard_bytes // 3)
        self._todo: list[tuple[str, int | None]] = []  # (name, cut target or None: whole)
        done = 0
        for f, size in zip(files, sizes, strict=True):
            path, name = Path(f), str(f)
            target = fine if tail_from is not None and done + size > tail_from else shard_bytes
            done += size
            whole = is_uri(name) or size <= 2 * target or not is_plain(path)
            self._todo.append((name, None if whole or is_notation(path) else target))
        self._todo.reverse()  # popped from the end, in input order
        self._shards: list[Shard] = []
        self._on_planned = on_planned
        self._more(-1)

    def _more(self, upto: int) -> None:
        """Plan files until shard ``upto`` exists (-1: the files that need no scan only)."""
        todo, shards = self._todo, self._shards
        while todo and (len(shards) <= upto or todo[-1][1] is None):
            name, target = todo.pop()
            start, line = 0, 1
            try:
                cuts = _cuts(Path(name), target) if target is not None else []
            except OSError:  # gone or unreadable since it was sized (a file rotated away
                # while the first shards ran): one whole shard, which run_shard reports as
                # unreadable with the file's name; the batch goes on
                cuts = []
            for off, ln in cuts:
                shards.append(Shard(len(shards), name, start, off, line))
                start, line = off, ln
            shards.append(Shard(len(shards), name, start, None, line))
        if not todo and self._on_planned is not None:
            self._on_planned(len(shards))
            self._on_planned = None

    def __iter__(self) -> Iterator[Shard]:
        i = 0
        while True:
            if i >= len(self._shards):
                self._more(i)
                if i >= len(self._shards):
                    return
            yield self._shards[i]
            i += 1

    def __len__(self) -> int:
        self._more(sys.maxsize)
        return len(self._shards)

    @overload
    def __getitem__(self, i: int) -> Shard: ...
    @overload
    def __getitem__(self, i: slice) -> list[Shard]: ...
    def __getitem__(self, i: int | slice) -> Shard | list[Shard]:
        if isinstance(i, slice) or i < 0:
            self._more(sys.maxsize)
        else:
            self._more(i)
        return self._shards[i]


def plan_shards(
    files: Sequence[str | os.PathLike[str]],
    shard_bytes: int = SHARD_BYTES,
    workers: int = 1,
    on_planned: Callable[[int], None] | None = None,
) -> ShardPlan:
    """Cut log files into shards, in input order (planned lazily: :class:`ShardPlan`).

    With several workers the target is :func:`balanced_target`, and the files that hold
    the last ``workers`` targets' bytes of the input are cut three times finer (never
    below :data:`MIN_SHARD_BYTES`), so that the workers finish together (one ~1.6 s shard
    left for one worker while the other idles was most of the tail of ``validate --jobs
    2`` at 10^5 games).

    Args:
        files: the log files (as :func:`~maumau_log.logs.lines.expand_paths` lists them).
        shard_bytes: target shard size of a large plain file.
        workers: the processes that will run the shards: more than one cuts finer where
            the input is small (:func:`balanced_target`); the results are the same.
        on_planned: called with the number of shards once all are planned.
    Returns:
        The shards, indexed from 0, as a :class:`ShardPlan` (a sequence). A file that
        cannot be read is one shard (its replay reports it).
    """
    return ShardPlan(files, shard_bytes, workers, on_planned)
