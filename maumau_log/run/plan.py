"""Planning: which shards (:class:`Shard`) a list of log files is cut into.

Cut points: a plain (uncompressed) file larger than twice the shard size is cut before
``game`` header lines (the line decodes as a ``game`` event), preferring headers that do
not continue a match (no ``match_id``, or round 1), so shards rarely need the match replay,
and never before a line longer than the readers' limit (whether such a line starts a game
is the replay's decision from its first bytes, the same in every shard). The scan is
linear in the file's size whatever its line lengths. A compressed file is one shard (a
compressed stream cannot be entered in the middle).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import msgspec

from ..events import Game, decode_event
from ..logs.lines import is_plain, is_uri, line_limit
from ..logs.notation import is_notation

Cuts = list[tuple[int, int]]
"""(byte offset, line number) of each cut of a file after the first (:func:`scan_cuts`)."""

StartScan = Callable[[str, int, int], Callable[[], Cuts]]
"""Starts the cut scan of one file elsewhere (:meth:`ShardPlan.scan_with`):
``start(path, target, limit)`` returns ``wait()``, which gives
``scan_cuts(path, target, limit)``'s cuts once they are needed."""

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
                        skipped, at = _whole_lines(buf, at)
                        lines += skipped
                        break
                    lines += buf.count(b"\n", at, n + 1)
                    at = n + 1
                # only a line naming "game" in its first 300 bytes may cut: jump to the
                # next one (a call per line: 25 CPU s for 30 MB of blank lines)
                hint = buf.find(_HEADER_HINT, at)
                if hint < 0:
                    skipped, at = _whole_lines(buf, at)
                    lines += skipped
                    break
                line_at = max(buf.rfind(b"\n", at, hint) + 1, at)
                lines += buf.count(b"\n", at, line_at)
                at = line_at
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


def scan_cuts(path: str, target: int, limit: int) -> Cuts:
    """The cuts of one large plain file (:func:`_cuts`), for a scan run elsewhere
    (:meth:`ShardPlan.scan_with`: a Ray task), with the planning process's ``limit``.

    Args:
        path: the file.
        target: the shard size in bytes.
        limit: the readers' longest line (:func:`~maumau_log.logs.lines.line_limit` of the
            planning process, so the cuts are its cuts).
    Returns:
        (byte offset, line number) of each cut after the first.
    Raises:
        OSError: the file cannot be read.
    """
    return _cuts(Path(path), target, limit)


def _whole_lines(buf: bytes, at: int) -> tuple[int, int]:
    """(the lines that end in ``buf`` from ``at`` on, the offset after the last of them),
    counted in C; ``(0, at)`` when none ends there."""
    last = buf.rfind(b"\n", at)
    if last < at:
        return 0, at
    return buf.count(b"\n", at, last + 1), last + 1


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

    Attributes:
        paths: the files, as given (known before any is scanned).
    """

    def __init__(
        self,
        files: Sequence[str | os.PathLike[str]],
        shard_bytes: int = SHARD_BYTES,
        workers: int = 1,
        on_planned: Callable[[int], None] | None = None,
    ) -> None:
        self.paths = [str(f) for f in files]
        shard_bytes = balanced_target(files, workers, shard_bytes)
        sizes = [0 if is_uri(str(f)) else _size(Path(f)) for f in files]
        tail_from = sum(sizes) - workers * shard_bytes if workers > 1 else None
        fine = max(min(shard_bytes, MIN_SHARD_BYTES), shard_bytes // 3)
        # (name, cut target or None: whole, the scan started elsewhere or None: scan here)
        self._todo: list[tuple[str, int | None, Callable[[], Cuts] | None]] = []
        done = 0
        for f, size in zip(files, sizes, strict=True):
            path, name = Path(f), str(f)
            target = fine if tail_from is not None and done + size > tail_from else shard_bytes
            done += size
            whole = is_uri(name) or size <= 2 * target or not is_plain(path)
            self._todo.append((name, None if whole or is_notation(path) else target, None))
        self._todo.reverse()  # popped from the end, in input order
        self._shards: list[Shard] = []
        self._on_planned = on_planned
        self._limit: int | None = None  # a scan's line limit (None: line_limit())
        self._more(-1)

    def _more(self, upto: int) -> None:
        """Plan files until shard ``upto`` exists (-1: the files that need no scan only)."""
        todo, shards = self._todo, self._shards
        while todo and (len(shards) <= upto or todo[-1][1] is None):
            name, target, wait = todo.pop()
            start, line = 0, 1
            cuts: Cuts | None = [] if target is None else None
            if wait is not None:  # scanned elsewhere (None: it failed there)
                cuts = _waited(wait)
            if cuts is None and target is not None:  # scanned here
                try:
                    limit = () if self._limit is None else (self._limit,)
                    cuts = _cuts(Path(name), target, *limit)
                except OSError:  # gone or unreadable since it was sized (a file rotated
                    # away while the first shards ran): one whole shard, which run_shard
                    # reports as unreadable with the file's name; the batch goes on
                    cuts = []
            for off, ln in cuts or ():
                shards.append(Shard(len(shards), name, start, off, line))
                start, line = off, ln
            shards.append(Shard(len(shards), name, start, None, line))
        if not todo and self._on_planned is not None:
            self._on_planned(len(shards))
            self._on_planned = None

    def scan_with(self, start: StartScan, limit: int | None = None) -> None:
        """Scan the large plain files not yet planned elsewhere (e.g. a Ray task per file,
        so the planning process reads no log): ``start(path, target, limit)`` is called at
        once for each, in input order; its ``wait()`` is called when the file's
        first shard is wanted. The shards are exactly those of a scan here
        (:func:`scan_cuts` is :func:`_cuts`); a scan that fails elsewhere (``wait`` raises:
        a lost node, the file unseen there) is done here instead.

        Args:
            start: starts one file's scan (:data:`StartScan`).
            limit: the readers' longest line (default: this process's
                :func:`~maumau_log.logs.lines.line_limit`); a scan here uses it too.
        """
        limit = self._limit = line_limit() if limit is None else limit
        self._todo = [
            (name, target, start(name, target, limit) if target is not None else wait)
            for name, target, wait in reversed(self._todo)  # started in input order
        ][::-1]

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


def _waited(wait: Callable[[], Cuts]) -> Cuts | None:
    """A scan's cuts from elsewhere, or None when it failed there (the file is then
    scanned here, giving the same cuts or its read error's one shard)."""
    try:
        return wait()
    except Exception:  # a lost node, a file unseen there: scanned here instead
        return None


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
