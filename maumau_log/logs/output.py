"""Opening a command's output log for writing: plain, gzip or zstd by the file's name
(FORMAT.md: ``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``). A light module (no engine, no
progress bars), so ``import openspiel`` and ``simulate`` share it without loading each
other's command modules."""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO


def open_out(path: Path) -> Any:
    """Open ``path`` for writing bytes, compressed by its name (``.gz``: gzip with no time
    stamp or name, so the same log gives the same bytes; ``.zst``: zstd level 10).

    Returns:
        A context manager giving a binary writer.
    Raises:
        OSError: the file cannot be created.
    """
    name = path.name
    if name.endswith(".gz"):
        import gzip  # only for a .gz log (start-up of the others)

        raw = open(path, "wb")  # noqa: SIM115 - closed by the GzipFile wrapper below
        return _Closing(gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename=""), raw)
    if name.endswith(".zst"):
        import zstandard

        raw = open(path, "wb")  # noqa: SIM115
        return _Closing(zstandard.ZstdCompressor(level=10).stream_writer(raw), raw)
    return open(path, "wb")


class _Closing:
    """Close a compressing writer, then the file under it."""

    def __init__(self, writer: Any, raw: BinaryIO) -> None:
        self.writer, self.raw = writer, raw

    def __enter__(self) -> Any:
        return self.writer

    def __exit__(self, *exc: object) -> None:
        self.writer.close()
        self.raw.close()
