"""Reading log files: bytes in, located lines out (FORMAT.md "Files").

A log is JSON Lines, plain or compressed with gzip or zstd. This module finds the log files
named on a command line, opens them whatever their compression, and cuts them into numbered
lines. It does not parse JSON: lines stay ``bytes`` for the replay's decoder.

Logs come from buggy clients, so bad input is normal input here. Every failure is a
:class:`LogReadError` that names the file and, where it can, the line: a missing or unreadable
file, a binary file, a truncated or corrupt compressed stream. Lines read before a damaged
spot are still delivered, and an overlong line is reported in place (:class:`Overlong`)
without being held in memory.

Compression is picked by magic bytes, not by the name: :mod:`maumau_log.logs.opener` opens the
files and decodes them (its names are re-exported here); this module finds the files (and
the logs a pyarrow filesystem URI names, for Ray) and cuts the bytes into lines
(:func:`iter_lines`, and :func:`iter_line_runs` with :func:`numbered` for the replay's fast
path).
"""

from __future__ import annotations

import io
import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from .opener import (
    _DAMAGE,
    _DAMAGE_OR_OS,
    BUFFER_SIZE,
    GZIP_MAGIC,
    ZSTD_MAGIC,
    LogReadError,
    _open,
    _open_range,
    _os_reason,
    _wrap,
    open_log,
)

__all__ = [
    "BUFFER_SIZE",
    "GZIP_MAGIC",
    "LOG_SUFFIXES",
    "MAX_LINE_BYTES",
    "MAX_LINE_ENV",
    "OVERLONG",
    "ZSTD_MAGIC",
    "LogReadError",
    "Overlong",
    "expand_inputs",
    "expand_paths",
    "is_plain",
    "is_uri",
    "iter_line_runs",
    "iter_lines",
    "limit_text",
    "line_limit",
    "numbered",
    "open_log",
]

LOG_SUFFIXES: tuple[str, ...] = (
    ".jsonl",
    ".jsonl.gz",
    ".jsonl.zst",
    ".ndjson",
    ".ndjson.gz",
    ".ndjson.zst",
    ".mm",
)
"""Names picked up when a directory is walked (compared case-insensitively); ``.mm`` is
the hand-written notation (:mod:`maumau_log.logs.notation`), converted as it is read.

``.json`` is deliberately absent: such a file usually holds one JSON document (a schema, a
config), not a log. A file named explicitly is read whatever its name.
"""

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest line read by default, in bytes (64 MiB, its line ending not counted)."""

MAX_LINE_ENV = "MAUMAU_LOG_MAX_LINE_BYTES"
"""An environment variable that sets another limit than :data:`MAX_LINE_BYTES` (a whole
number of bytes, at least 1; see :func:`line_limit`)."""

OVERLONG: bytes = b"\x00overlong"
"""The bytes of every :class:`Overlong` line (a NUL first: they never decode as JSON)."""

OVERLONG_HEAD = 1024
"""How many leading bytes of an over-long line :class:`Overlong` keeps."""


class Overlong(bytes):
    """Yielded by :func:`iter_lines` in place of a line longer than ``max_line_bytes``.

    Its bytes are :data:`OVERLONG` (so it never decodes as an event); tell it apart by its
    type, ``type(line) is Overlong``, as a real line could hold the same bytes. ``head``
    holds the line's first :data:`OVERLONG_HEAD` bytes, so that the replay can tell a line
    that looks like a ``game`` header (it starts a new game) and guess its game id; the
    rest of the line is never held in memory. ``limit`` is the limit it broke, in bytes.
    """

    head: bytes
    limit: int


def _overlong(head: bytes, limit: int) -> Overlong:
    line = Overlong(OVERLONG)
    line.head = head[:OVERLONG_HEAD]
    line.limit = limit
    return line


def _head_of(pieces: list[bytes]) -> bytes:
    """The first :data:`OVERLONG_HEAD` bytes of a line held in pieces (not joined whole)."""
    head = b""
    for piece in pieces:
        head += piece[: OVERLONG_HEAD - len(head)]
        if len(head) >= OVERLONG_HEAD:
            break
    return head


def line_limit() -> int:
    """The longest line the readers accept, in bytes: :data:`MAX_LINE_BYTES`, or the value
    of the environment variable :data:`MAX_LINE_ENV` when it holds a whole number of at
    least 1 (anything else there is ignored).

    Read when a file or a shard is opened and when shards are planned: the planner (which
    never cuts before an over-long line) and every reader of a run must use the same limit,
    so the runners pass the parent's value to their workers
    (:attr:`maumau_log.run.runners.ShardTask.max_line_bytes`).
    """
    text = os.environ.get(MAX_LINE_ENV, "").strip()
    if text.isdigit() and len(text) < 20 and int(text) >= 1:
        return int(text)
    return MAX_LINE_BYTES


def limit_text(limit: int) -> str:
    """A line-length limit in words: ``"64 MiB"``, or ``"1,000 bytes"``."""
    if limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024):,} MiB"
    return f"{limit:,} bytes"


UTF8_BOM = b"\xef\xbb\xbf"

READ_CHUNK = BUFFER_SIZE
"""Most bytes :func:`iter_lines` reads at a time before cutting them into lines."""
SNIFF_BYTES = 8 * 1024
"""A NUL byte within this many leading (decompressed) bytes marks a binary file."""

# ---------------------------------------------------------------------------------------
# Finding the files


def _is_log_name(name: str) -> bool:
    return name.lower().endswith(LOG_SUFFIXES)


def expand_paths(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """Turn command-line arguments into the list of log files to read.

    A file is taken as given, whatever its name. A directory is walked recursively for files
    whose names end with one of :data:`LOG_SUFFIXES`; its files come sorted by path
    (component by component, so a directory's contents stay together), and symlinked
    directories are not followed. Arguments keep their order. A file reached twice (named twice,
    or named and also found in a walked directory) is listed once, where first seen.

    Args:
        paths: files and directories, as typed by the user.

    Returns:
        The files, in the order described. A directory holding no log contributes nothing, so
        the list may be empty; the caller decides whether that is an error.

    Raises:
        LogReadError: a path does not exist, or a directory cannot be listed (no line number).
    """
    result: list[Path] = []
    seen: set[str] = set()

    def add(path: Path) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            result.append(path)

    for arg in paths:
        path = Path(arg)
        try:
            is_dir = path.is_dir()
            exists = is_dir or path.exists()
        except OSError as exc:  # e.g. a name too long
            raise LogReadError(path, None, _os_reason(exc)) from exc
        if not exists:
            kind = "broken symbolic link" if path.is_symlink() else "no such file or directory"
            raise LogReadError(path, None, kind)
        if not is_dir:
            add(path)
            continue
        found: list[Path] = []

        def fail(exc: OSError, top: Path = path) -> None:
            where = exc.filename if exc.filename is not None else top
            raise LogReadError(where, None, f"cannot list directory: {_os_reason(exc)}") from exc

        for dirpath, _dirnames, filenames in os.walk(path, onerror=fail):
            base = Path(dirpath)
            for name in filenames:
                # no FIFO or device: reading one in a walked folder would block (a broken
                # link is kept, to be reported as unreadable)
                entry = base / name
                if _is_log_name(name) and (entry.is_file() or not entry.exists()):
                    found.append(entry)
        for candidate in sorted(found):
            add(candidate)
    return result


def is_uri(path: str | os.PathLike[str]) -> bool:
    """A pyarrow filesystem URI (``s3://bucket/logs/``, ``file:///data/logs``), not a path."""
    return "://" in str(path)


def _expand_uri(uri: str) -> list[str]:
    """The log files a URI names: itself, or a folder's logs (recursively, sorted)."""
    import pyarrow.fs as pafs

    scheme = uri.split("://", 1)[0] + "://"
    try:
        fs, root = pafs.FileSystem.from_uri(uri)
        info = fs.get_file_info(root)
        if info.type == pafs.FileType.NotFound:
            raise LogReadError(uri, None, "no such file or directory")
        if info.type != pafs.FileType.Directory:
            return [uri]
        found = fs.get_file_info(pafs.FileSelector(root, recursive=True))
    except (OSError, ValueError) as exc:
        raise LogReadError(uri, None, f"cannot list: {exc}") from exc
    names = sorted(
        f.path
        for f in found
        if f.type == pafs.FileType.File and f.base_name.lower().endswith(LOG_SUFFIXES)
    )
    return [scheme + ("/" + n.lstrip("/") if scheme == "file://" else n) for n in names]


def expand_inputs(paths: Sequence[str | os.PathLike[str]]) -> list[str | Path]:
    """:func:`~maumau_log.logs.lines.expand_paths`, plus pyarrow filesystem URIs (for Ray).

    Args:
        paths: files, folders and URIs, as typed.
    Returns:
        The log files in order (each once): local ones as paths, URIs as URIs.
    Raises:
        LogReadError: a path or URI that does not exist or cannot be listed.
    """
    if not any(is_uri(p) for p in paths):
        return list(expand_paths(paths))
    out: list[str | Path] = []
    seen: set[str] = set()
    for p in paths:
        for f in _expand_uri(str(p)) if is_uri(p) else expand_paths([p]):
            key = str(f) if is_uri(f) else os.path.realpath(f)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def is_plain(path: Path) -> bool:
    """A plain text log: not gzip or zstd, no NUL byte in its head (binary files are one
    shard, reported by the replay)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError:
        return False
    if head.startswith(GZIP_MAGIC) or head[:4] == ZSTD_MAGIC or b"\x00" in head:
        return False
    return not (len(head) >= 4 and head[0] & 0xF0 == 0x50 and head[1:4] == b"\x2a\x4d\x18")


def _plain_chunks(fh: io.BufferedReader) -> Iterator[bytes]:
    """The content of a shard that does not start the file: read as it is."""
    while chunk := fh.read1(READ_CHUNK):
        yield chunk


def _chunks(fh: io.BufferedReader, name: str) -> Iterator[bytes]:
    """Yield the decompressed content in chunks: BOM stripped, binary content refused.

    Each chunk comes from one ``read1``, so a damaged stream first yields everything decoded
    before the damage, then raises.
    """
    read1 = fh.read1
    head = b""
    delayed: Exception | None = None
    try:
        while len(head) < SNIFF_BYTES:
            more = read1(READ_CHUNK)
            if not more:
                break
            head += more
    except _DAMAGE_OR_OS as exc:
        delayed = exc
    nul = head.find(b"\x00", 0, SNIFF_BYTES)
    # a binary file, not a log with a stray NUL byte in one line (that line is then a
    # located bad_json and the games around it are kept): NUL bytes and, in the first 8 KiB,
    # more than 1% of bytes that are not UTF-8 or more than one NUL per 1000 bytes; or a
    # UTF-16 byte-order mark
    utf16 = head.startswith((b"\xff\xfe", b"\xfe\xff"))
    if nul >= 0:
        sniff = head[:SNIFF_BYTES]
        not_utf8 = sniff.decode("utf-8", "replace").count("\ufffd")
        binary = utf16 or not_utf8 * 100 > len(sniff) or sniff.count(b"\x00") * 1000 > len(sniff)
    if nul >= 0 and binary:
        hint = " (UTF-16 text? logs must be UTF-8)" if utf16 else ""
        raise LogReadError(
            name, 1, f"not a text log: binary content (NUL bytes) at byte offset {nul}{hint}"
        )
    if head.startswith(UTF8_BOM):
        head = head[len(UTF8_BOM) :]
    if head:
        yield head
    if delayed is not None:
        raise delayed
    while chunk := read1(READ_CHUNK):
        yield chunk


def iter_lines(
    path: str | os.PathLike[str],
    max_line_bytes: int | None = None,
    *,
    start: int = 0,
    end: int | None = None,
    first_line: int = 1,
    data: bytes | None = None,
) -> Iterator[tuple[int, bytes]]:
    """Read a log file (plain, gzip or zstd) and yield its numbered, non-blank lines.

    Lines are split on ``\\n``; a ``\\r`` before it is dropped too. Blank and whitespace-only
    lines are skipped (FORMAT.md: "Blank lines are ignored") but counted, so line numbers are
    the ones an editor shows. A UTF-8 BOM at the start is dropped. Lines stay ``bytes``. A last
    line without a newline is yielded like the others.

    A line longer than ``max_line_bytes`` (not counting its line ending) is yielded as an
    :class:`Overlong` line (its first bytes kept) at its line number, and the rest of it is
    skipped without being kept in memory; the following lines come as usual.

    The file is opened on the first ``next()`` and closed when the iteration ends or the
    iterator is closed.

    Args:
        path: the log file (with ``data``: only the name the errors give).
        max_line_bytes: the longest line accepted, in bytes (None: :func:`line_limit`).
        start, end: read only bytes ``start`` to ``end`` (exclusive; None: to the end) of
            a plain (uncompressed) file: a shard of a large log (:mod:`maumau_log.run.shard`).
            ``start`` must be the first byte of a line; a shard that does not start at 0
            skips the binary check and the BOM (the first shard made them).
        first_line: the line number of the line at ``start`` (1 for a whole file).
        data: the file's whole content, already read (plain or compressed: as from
            ``ray.data.read_binary_files``), instead of opening ``path``.

    Yields:
        ``(line_number, line)``: line numbers start at 1; ``line`` has no line ending and is
        either non-blank content or an :class:`Overlong` line.

    Raises:
        LogReadError: the file cannot be opened (no line number); it is binary (a NUL byte in
            its first 8 KiB: line 1, raised before any line is yielded); its compressed stream
            is truncated or corrupt, or reading fails part-way (raised after every complete
            line before the damage has been yielded, at the line after the last one read).
        ValueError: ``max_line_bytes`` is less than 1.
    """
    for first, run in iter_line_runs(
        path, max_line_bytes, start=start, end=end, first_line=first_line, data=data
    ):
        yield from zip(itertools.count(first), run)


def iter_line_runs(
    path: str | os.PathLike[str],
    max_line_bytes: int | None = None,
    *,
    start: int = 0,
    end: int | None = None,
    first_line: int = 1,
    data: bytes | None = None,
) -> Iterator[tuple[int, list[bytes]]]:
    """:func:`iter_lines` in runs: ``(first_line_number, lines)``, where ``lines`` are
    consecutive lines numbered from ``first_line_number`` (a blank line ends a run).

    The replay's fast path: ``zip(itertools.count(first), lines)`` gives
    :func:`iter_lines`'s items, and :func:`numbered` chains them, with no Python frame and
    no new tuple per line. A run holds complete lines of one read (up to
    :data:`READ_CHUNK` bytes). The arguments, the lines, the order of lines and errors,
    and the laziness are :func:`iter_lines`'s: a damaged stream raises after the run of
    every line before the damage.
    """
    limit = line_limit() if max_line_bytes is None else max_line_bytes
    if limit < 1:
        raise ValueError(f"max_line_bytes must be at least 1, not {max_line_bytes}")
    name = os.fspath(path)
    n = first_line - 1  # lines completed so far
    pend: list[bytes] = []  # start of the current line: no newline seen yet
    pend_len = 0
    skipping = False  # the current line is overlong: already reported, discard until newline
    if data is not None:
        fh = _wrap(io.BufferedReader(io.BytesIO(data), buffer_size=BUFFER_SIZE))
    elif start or end is not None:
        fh = _open_range(path, start, end)
    else:
        fh = _open(path)
    with fh:
        try:
            for chunk in _chunks(fh, name) if not start else _plain_chunks(fh):
                parts = chunk.split(b"\n")
                tail = parts.pop()
                if parts:
                    # the common case: no "\r" anywhere, no line that can be too long
                    plain = (
                        b"\r" not in chunk
                        and pend_len + len(chunk) <= limit
                        and not (pend and not skipping and pend[-1].endswith(b"\r"))
                    )
                    if skipping:
                        n += 1
                        skipping = False
                        del parts[0]
                    elif pend:
                        pend.append(parts[0])
                        parts[0] = b"".join(pend)
                    # and no blank line: every line starts above b" " (the smallest line
                    # does); ASCII whitespace is at most b" ", so an empty or
                    # whitespace-only line would be the smallest
                    if plain and parts and min(parts)[:1] > b" ":
                        yield n + 1, parts
                        n += len(parts)
                    else:
                        run: list[bytes] = []
                        for line in parts:
                            n += 1
                            if line.endswith(b"\r"):
                                line = line[:-1]
                            if len(line) > limit:
                                line = _overlong(line, limit)
                            elif not line or line.isspace():
                                if run:
                                    yield n - len(run), run
                                    run = []
                                continue
                            run.append(line)
                        if run:
                            yield n + 1 - len(run), run
                    pend = [tail] if tail else []
                    pend_len = len(tail)
                elif not skipping:
                    pend.append(tail)
                    pend_len += len(tail)
                # + 1: a "\r" at the end may yet turn out to be part of a "\r\n"
                if pend_len > limit + 1:
                    yield n + 1, [_overlong(_head_of(pend), limit)]
                    skipping = True
                    pend = []
                    pend_len = 0
        except _DAMAGE as exc:
            where = f"after line {n}" if n else "before the first line"
            detail = str(exc) or type(exc).__name__
            raise LogReadError(
                name, n + 1, f"the compressed stream is truncated or corrupt {where}: {detail}"
            ) from exc
        except OSError as exc:
            where = f"after line {n}" if n else "before the first line"
            raise LogReadError(name, n + 1, f"read error {where}: {_os_reason(exc)}") from exc
    if pend:
        line = b"".join(pend)
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > limit:
            yield n + 1, [_overlong(line, limit)]
        elif line and not line.isspace():
            yield n + 1, [line]


def numbered(runs: Iterable[tuple[int, list[bytes]]]) -> Iterator[tuple[int, bytes]]:
    """Flatten :func:`iter_line_runs` into :func:`iter_lines`'s ``(line_number, line)``
    items, in C (``itertools.chain`` over ``zip`` with ``count``: ``zip`` reuses its
    tuple when the consumer unpacks it at once, as the replay does)."""
    return itertools.chain.from_iterable(zip(itertools.count(first), run) for first, run in runs)
