"""Opening log files: plain, gzip or zstd by their magic bytes, and byte ranges of a
plain file (FORMAT.md "Files"); the error that names a file and a line.

The layer under :mod:`maumau_log.logs.lines` (which finds the files and cuts them into lines,
and re-exports these names). Both decoders are written here on top of :mod:`zlib` and
``zstandard``'s ``decompressobj`` so that a cut-off stream is an error: ``zstandard``'s
``stream_reader`` ends silently at a truncated frame, and the buffered layers of
:mod:`gzip` drop the data decoded just before a failure.
"""

from __future__ import annotations

import io
import os
import zlib
from typing import TYPE_CHECKING, BinaryIO

import zstandard

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = [
    "BUFFER_SIZE",
    "GZIP_MAGIC",
    "ZSTD_MAGIC",
    "LogReadError",
    "open_log",
]

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SKIPPABLE_MAGIC_HIGH = b"\x2a\x4d\x18"  # bytes 1-3 of 0x184D2A50..5F, little-endian

BUFFER_SIZE = 1024 * 1024
"""Size of the file buffers."""

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
