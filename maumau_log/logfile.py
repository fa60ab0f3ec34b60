"""Reading log files: bytes in, located lines out (FORMAT.md "Files").

A log is JSON Lines, plain or compressed with gzip or zstd. This module finds the log files
named on a command line, opens them whatever their compression, and cuts them into numbered
lines. It does not parse JSON: lines stay ``bytes`` for the replay's decoder.

Logs come from buggy clients, so bad input is normal input here. Every failure is a
:class:`LogReadError` that names the file and, where it can, the line: a missing or unreadable
file, a binary file, a truncated or corrupt compressed stream. Lines read before a damaged
spot are still delivered, and an overlong line is reported in place (:data:`OVERLONG`) without
being held in memory.

Compression is picked by magic bytes, not by the name. Both decoders are written here on top
of :mod:`zlib` and ``zstandard``'s ``decompressobj`` so that a cut-off stream is an error:
``zstandard``'s ``stream_reader`` ends silently at a truncated frame, and the buffered layers
of :mod:`gzip` drop the data decoded just before a failure.
"""

from __future__ import annotations

import io
import itertools
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import zstandard

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = [
    "LOG_SUFFIXES",
    "OVERLONG",
    "LogReadError",
    "expand_paths",
    "iter_line_runs",
    "iter_lines",
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
the hand-written notation (:mod:`maumau_log.notation`), converted as it is read.

``.json`` is deliberately absent: such a file usually holds one JSON document (a schema, a
config), not a log. A file named explicitly is read whatever its name.
"""

OVERLONG: bytes = b"\x00overlong"
"""Yielded by :func:`iter_lines` in place of a line longer than ``max_line_bytes``.

Compare with ``is``: a real line could in principle hold the same bytes.
"""

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SKIPPABLE_MAGIC_HIGH = b"\x2a\x4d\x18"  # bytes 1-3 of 0x184D2A50..5F, little-endian
UTF8_BOM = b"\xef\xbb\xbf"

BUFFER_SIZE = 1024 * 1024
"""Size of the file buffers."""
READ_CHUNK = BUFFER_SIZE
"""Most bytes :func:`iter_lines` reads at a time before cutting them into lines."""
SNIFF_BYTES = 8 * 1024
"""A NUL byte within this many leading (decompressed) bytes marks a binary file."""

_COMPRESSED_IN = 64 * 1024  # compressed bytes read from the file at a time
_GZIP_OUT = 256 * 1024  # most bytes one zlib call may produce
_ZSTD_PIECE = 4 * 1024  # compressed bytes fed to zstd per call (bounds a call's output)

# What a decoder raises for a damaged stream. OSError from the file itself is told apart.
_DAMAGE: tuple[type[Exception], ...] = (EOFError, zlib.error, zstandard.ZstdError)
_DAMAGE_OR_OS: tuple[type[Exception], ...] = (*_DAMAGE, OSError)


class LogReadError(Exception):
    """A log file could not be read (or not all of it), located as ``path:line``.

    Attributes:
        path: the file, as given or as found in a walked directory.
        line: the 1-based line number the problem is at, or ``None`` when it concerns the
            whole file (missing, unreadable).
        message: what went wrong, in words meant for the user.
    """

    def __init__(self, path: str | os.PathLike[str], line: int | None, message: str) -> None:
        """Build the error.

        Args:
            path: the file concerned.
            line: 1-based line number, or ``None``.
            message: the explanation shown to the user.
        """
        super().__init__(os.fspath(path), line, message)
        self.path: str = os.fspath(path)
        self.line: int | None = line
        self.message: str = message

    def __str__(self) -> str:
        """Return ``"path:line: message"``, or ``"path: message"`` without a line."""
        if self.line is None:
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}: {self.message}"


def _os_reason(exc: OSError) -> str:
    """The OS's own words for an error ("Permission denied"), lower-cased at the start."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    return reason[:1].lower() + reason[1:]


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


# ---------------------------------------------------------------------------------------
# Opening: decompression by magic bytes


class _Decoder(io.RawIOBase):
    """Raw stream of decompressed bytes that hands out good data before reporting damage.

    ``readinto`` fills the caller's buffer as far as it can. When decoding fails, the bytes
    decoded before the failure are returned first; the error is raised by the next call (and
    by every call after it). One ``read1`` of a :class:`io.BufferedReader` on top therefore
    never loses data decoded before the damage.
    """

    def __init__(self, source: io.BufferedReader) -> None:
        super().__init__()
        self._source = source
        self._out: memoryview = memoryview(b"")
        self._error: Exception | None = None
        self._at_eof = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        wanted = len(view)
        got = 0
        while got < wanted:
            if self._out:
                n = min(wanted - got, len(self._out))
                view[got : got + n] = self._out[:n]
                self._out = self._out[n:]
                got += n
                continue
            if self._error is not None:
                if got:
                    break
                raise self._error
            if self._at_eof:
                break
            try:
                self._out = memoryview(self._decode_more())
            except _DAMAGE as exc:
                self._error = exc
            except OSError as exc:  # from the file underneath
                self._error = exc
        return got

    def _decode_more(self) -> bytes:
        """Return the next decoded bytes; ``b""`` only at the clean end (set ``_at_eof``)."""
        raise NotImplementedError

    def _read_source(self) -> bytes:
        return self._source.read(_COMPRESSED_IN)

    def close(self) -> None:
        try:
            self._source.close()
        finally:
            super().close()


class _GzipDecoder(_Decoder):
    """gzip (RFC 1952), including multi-member files and zero padding between members."""

    def __init__(self, source: io.BufferedReader) -> None:
        super().__init__(source)
        self._input = b""
        self._member: zlib._Decompress | None = None
        self._salvaged_error: zlib.error | None = None

    def _decode_more(self) -> bytes:
        while True:
            if self._salvaged_error is not None:
                raise self._salvaged_error
            if not self._input:
                self._input = self._read_source()
                if not self._input:
                    if self._member is not None:
                        raise EOFError("the data ends in the middle of the stream (cut off)")
                    self._at_eof = True
                    return b""
            if self._member is None:
                data = self._input.lstrip(b"\x00")  # padding after a member, as gzip allows
                self._input = data
                if not data:
                    continue
                self._member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            member = self._member
            backup = member.copy()
            try:
                out = member.decompress(self._input, _GZIP_OUT)
            except zlib.error as exc:
                out = self._salvage(backup, self._input)
                self._input = b""
                if not out:
                    raise
                self._salvaged_error = exc
                return out
            if member.eof:
                self._input = member.unused_data
                self._member = None
            else:
                self._input = member.unconsumed_tail
            if out:
                return out

    @staticmethod
    def _salvage(member: zlib._Decompress, data: bytes) -> bytes:
        """Decode ``data`` again byte by byte, keeping whatever decodes before the error.

        Only run after an error; ``data`` is at most one read of compressed input.
        """
        saved: list[bytes] = []
        for start in range(len(data)):
            try:
                saved.append(member.decompress(data[start : start + 1]))
            except zlib.error:
                break
            if member.eof:
                break
        return b"".join(saved)


class _ZstdDecoder(_Decoder):
    """zstd (RFC 8878): any number of frames, skippable frames included."""

    def __init__(self, source: io.BufferedReader) -> None:
        super().__init__(source)
        self._dctx = zstandard.ZstdDecompressor()
        self._input = b""
        self._pos = 0
        self._frame: zstandard.ZstdDecompressionObj | None = None

    def _decode_more(self) -> bytes:
        while True:
            if self._pos >= len(self._input):
                self._input = self._read_source()
                self._pos = 0
                if not self._input:
                    if self._frame is not None:
                        raise EOFError("the data ends in the middle of a frame (cut off)")
                    self._at_eof = True
                    return b""
            if self._frame is None:
                self._frame = self._dctx.decompressobj()
            frame = self._frame
            end = self._pos + _ZSTD_PIECE
            out = frame.decompress(memoryview(self._input)[self._pos : end])
            self._pos = end
            if frame.eof:
                rest = frame.unused_data
                self._input = rest + self._input[self._pos :]
                self._pos = 0
                self._frame = None
            if out:
                return out


def open_log(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a log file for reading its decompressed bytes.

    The compression is picked by the first bytes, not by the name: gzip (``1f 8b``), zstd
    (``28 b5 2f fd``, or a skippable frame), anything else is read as it is. A damaged
    compressed stream surfaces while reading: :class:`EOFError` when it is cut off,
    :class:`zlib.error` or :class:`zstandard.ZstdError` when it is corrupt, after every byte
    decoded before the damage has been returned (read with ``read1`` to get them all).

    Args:
        path: the file.

    Returns:
        A binary :class:`io.BufferedReader` with a large buffer; the caller closes it.

    Raises:
        LogReadError: the file cannot be opened or read (missing, a directory, permission
            denied...), with the OS's reason and no line number.
    """
    return _open(path)


def _open(path: str | os.PathLike[str]) -> io.BufferedReader:
    """:func:`open_log`, typed as the concrete class (``read1``, ``peek``)."""
    try:
        fh: io.BufferedReader = io.BufferedReader(io.FileIO(path, "rb"), buffer_size=BUFFER_SIZE)
    except OSError as exc:
        raise LogReadError(path, None, f"cannot open: {_os_reason(exc)}") from exc
    try:
        fh.peek(4)
    except OSError as exc:
        fh.close()
        raise LogReadError(path, None, f"cannot read: {_os_reason(exc)}") from exc
    return _wrap(fh)


def _wrap(fh: io.BufferedReader) -> io.BufferedReader:
    """``fh`` itself for plain content, else a decompressing reader over it (magic bytes)."""
    magic = fh.peek(4)[:4]
    decoder: _Decoder
    if magic.startswith(GZIP_MAGIC):
        decoder = _GzipDecoder(fh)
    elif magic == ZSTD_MAGIC or (
        len(magic) == 4 and magic[0] & 0xF0 == 0x50 and magic[1:] == ZSTD_SKIPPABLE_MAGIC_HIGH
    ):
        decoder = _ZstdDecoder(fh)
    else:
        return fh
    return io.BufferedReader(decoder, buffer_size=BUFFER_SIZE)


# ---------------------------------------------------------------------------------------
# Cutting into lines


class _Range(io.RawIOBase):
    """Bytes ``start`` to ``end`` of a file (a shard of a large plain log)."""

    def __init__(self, raw: io.FileIO, start: int, end: int | None) -> None:
        super().__init__()
        self._raw = raw
        raw.seek(start)
        self._left = None if end is None else max(0, end - start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        view = memoryview(buffer).cast("B")
        if self._left is not None:
            view = view[: self._left]
        n = self._raw.readinto(view) or 0
        if self._left is not None:
            self._left -= n
        return n

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


def _open_range(path: str | os.PathLike[str], start: int, end: int | None) -> io.BufferedReader:
    """Bytes ``start`` to ``end`` of a plain file, buffered (see :func:`iter_lines`)."""
    try:
        raw = io.FileIO(path, "rb")
    except OSError as exc:
        raise LogReadError(path, None, f"cannot open: {_os_reason(exc)}") from exc
    return io.BufferedReader(_Range(raw, start, end), buffer_size=BUFFER_SIZE)


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
    max_line_bytes: int = 64 * 1024 * 1024,
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

    A line longer than ``max_line_bytes`` (not counting its line ending) is yielded as the
    :data:`OVERLONG` sentinel at its line number, and the rest of it is skipped without being
    kept in memory; the following lines come as usual.

    The file is opened on the first ``next()`` and closed when the iteration ends or the
    iterator is closed.

    Args:
        path: the log file (with ``data``: only the name the errors give).
        max_line_bytes: the longest line accepted, in bytes.
        start, end: read only bytes ``start`` to ``end`` (exclusive; None: to the end) of
            a plain (uncompressed) file: a shard of a large log (:mod:`maumau_log.shard`).
            ``start`` must be the first byte of a line; a shard that does not start at 0
            skips the binary check and the BOM (the first shard made them).
        first_line: the line number of the line at ``start`` (1 for a whole file).
        data: the file's whole content, already read (plain or compressed: as from
            ``ray.data.read_binary_files``), instead of opening ``path``.

    Yields:
        ``(line_number, line)``: line numbers start at 1; ``line`` has no line ending and is
        either non-blank content or :data:`OVERLONG`.

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
    max_line_bytes: int = 64 * 1024 * 1024,
    *,
    start: int = 0,
    end: int | None = None,
    first_line: int = 1,
    data: bytes | None = None,
) -> Iterator[tuple[int, list[bytes]]]:
    """:func:`iter_lines` in runs: ``(first_line_number, lines)``, where ``lines`` are
    consecutive lines numbered from ``first_line_number`` (a blank line ends a run).

    The replay's fast path (issue 12): ``zip(itertools.count(first), lines)`` gives
    :func:`iter_lines`'s items, and :func:`numbered` chains them, with no Python frame and
    no new tuple per line. A run holds complete lines of one read (up to
    :data:`READ_CHUNK` bytes). The arguments, the lines, the order of lines and errors,
    and the laziness are :func:`iter_lines`'s: a damaged stream raises after the run of
    every line before the damage.
    """
    if max_line_bytes < 1:
        raise ValueError(f"max_line_bytes must be at least 1, not {max_line_bytes}")
    name = os.fspath(path)
    limit = max_line_bytes
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
                                line = OVERLONG
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
                    yield n + 1, [OVERLONG]
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
            yield n + 1, [OVERLONG]
        elif line and not line.isspace():
            yield n + 1, [line]


def numbered(runs: Iterable[tuple[int, list[bytes]]]) -> Iterator[tuple[int, bytes]]:
    """Flatten :func:`iter_line_runs` into :func:`iter_lines`'s ``(line_number, line)``
    items, in C (``itertools.chain`` over ``zip`` with ``count``: ``zip`` reuses its
    tuple when the consumer unpacks it at once, as the replay does)."""
    return itertools.chain.from_iterable(zip(itertools.count(first), run) for first, run in runs)
