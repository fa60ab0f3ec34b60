"""Tests for maumau_log.logs.lines: finding log files and cutting them into located lines."""

from __future__ import annotations

import gzip
import os
import random
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.logs import lines as logfile
from maumau_log.logs.lines import (
    LOG_SUFFIXES,
    OVERLONG,
    LogReadError,
    Overlong,
    expand_paths,
    iter_line_runs,
    iter_lines,
    numbered,
    open_log,
)

Line = tuple[int, bytes]


def _plain(data: bytes) -> bytes:
    return data


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _zstd(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(write_checksum=True).compress(data)


CODECS: dict[str, tuple[str, Callable[[bytes], bytes]]] = {
    "plain": (".jsonl", _plain),
    "gzip": (".jsonl.gz", _gzip),
    "zstd": (".jsonl.zst", _zstd),
}


def write_log(directory: Path, codec: str, data: bytes, stem: str = "log") -> Path:
    suffix, compress = CODECS[codec]
    path = directory / f"{stem}{suffix}"
    path.write_bytes(compress(data))
    return path


def read_until_error(path: Path, **kwargs: int) -> tuple[list[Line], LogReadError]:
    """Collect the lines yielded before iter_lines raises, and the error."""
    got: list[Line] = []
    with pytest.raises(LogReadError) as info:
        for item in iter_lines(path, **kwargs):
            got.append(item)
    return got, info.value


# --- same content, three encodings -------------------------------------------------------

CONTENT = (
    b'{"type":"game","id":"g1"}\n'
    b"\n"
    b'{"type":"deal","seq":1}\r\n'
    b"   \t \n"
    b'{"type":"play","card":"H\xc3\xa9"}\n'
    b"\r\n"
    b'{"type":"end"}'  # no newline at the end
)
CONTENT_LINES: list[Line] = [
    (1, b'{"type":"game","id":"g1"}'),
    (3, b'{"type":"deal","seq":1}'),
    (5, b'{"type":"play","card":"H\xc3\xa9"}'),
    (7, b'{"type":"end"}'),
]


@pytest.mark.parametrize("codec", list(CODECS))
def test_same_lines_whatever_the_compression(tmp_path: Path, codec: str) -> None:
    path = write_log(tmp_path, codec, CONTENT)
    assert list(iter_lines(path)) == CONTENT_LINES


@pytest.mark.parametrize("codec", list(CODECS))
def test_compression_is_picked_by_magic_not_by_name(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "misnamed.txt"
    path.write_bytes(CODECS[codec][1](CONTENT))
    assert list(iter_lines(path)) == CONTENT_LINES
    with open_log(path) as fh:
        assert fh.read() == CONTENT


def test_multi_member_gzip_and_multi_frame_zstd(tmp_path: Path) -> None:
    first, second = b"A\nB", b"C\nD\n"  # the line "BC" spans the boundary
    gz = tmp_path / "multi.jsonl.gz"
    gz.write_bytes(_gzip(first) + b"\x00\x00\x00" + _gzip(second))  # zero padding allowed
    zst = tmp_path / "multi.jsonl.zst"
    zst.write_bytes(_zstd(first) + _zstd(second))
    expected = [(1, b"A"), (2, b"BC"), (3, b"D")]
    assert list(iter_lines(gz)) == expected
    assert list(iter_lines(zst)) == expected


def test_crlf(tmp_path: Path) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"a\r\nb\r\n\r\nc\rd\r\ne\r")
    assert list(iter_lines(path)) == [(1, b"a"), (2, b"b"), (4, b"c\rd"), (5, b"e")]


def test_blank_lines_are_skipped_but_counted(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n\nA\n\nB\n \t \nC\n\n\n")
    assert list(iter_lines(path)) == [(3, b"A"), (5, b"B"), (7, b"C")]
    path.write_bytes(b"A\n\nB\n")
    assert list(iter_lines(path)) == [(1, b"A"), (3, b"B")]


@pytest.mark.parametrize("codec", list(CODECS))
def test_utf8_bom_is_stripped_at_the_start_only(tmp_path: Path, codec: str) -> None:
    path = write_log(tmp_path, codec, b"\xef\xbb\xbf{}\n\xef\xbb\xbf[]\n")
    assert list(iter_lines(path)) == [(1, b"{}"), (2, b"\xef\xbb\xbf[]")]


@pytest.mark.parametrize("codec", list(CODECS))
def test_empty_file_yields_nothing(tmp_path: Path, codec: str) -> None:
    assert list(iter_lines(write_log(tmp_path, codec, b""))) == []
    assert list(iter_lines(write_log(tmp_path, codec, b"\xef\xbb\xbf\n \n", "blank"))) == []


# --- damaged compressed streams ----------------------------------------------------------

TEN_LINES = b"".join(b"line %03d\n" % i for i in range(1, 11))  # 9 bytes a line


def test_truncated_gzip_yields_the_good_lines_then_raises(tmp_path: Path) -> None:
    # Level 0 stores the data as is, so what survives the cut is exact: the last 20 bytes are
    # the 8-byte trailer and the last 12 bytes of data, that is line 10 and 3 bytes of line 9.
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(TEN_LINES, compresslevel=0, mtime=0)[:-20])
    got, err = read_until_error(path)
    assert got == [(i, b"line %03d" % i) for i in range(1, 9)]
    assert err.line == 9
    assert err.message == (
        "the compressed stream is truncated or corrupt after line 8: "
        "the data ends in the middle of the stream (cut off)"
    )
    assert str(err) == f"{path}:9: {err.message}"


def test_truncated_compressed_gzip_keeps_a_prefix(tmp_path: Path) -> None:
    data = b"".join(
        b'{"type":"play","seq":%d,"r":%d}\n' % (i, i * 7919 % 1000) for i in range(5000)
    )
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(data, mtime=0)[:-20])
    got, err = read_until_error(path)
    expected = [(i + 1, line) for i, line in enumerate(data.split(b"\n")[:-1])]
    assert len(got) > 4900
    assert got == expected[: len(got)]
    assert err.line == len(got) + 1
    assert err.message.startswith(
        f"the compressed stream is truncated or corrupt after line {len(got)}:"
    )


def test_truncated_zstd_yields_the_good_lines_then_raises(tmp_path: Path) -> None:
    # Two frames; the second loses its last 20 bytes. A compressed zstd block is decoded whole
    # or not at all, so exactly the first frame's lines come out.
    first = b"".join(b'{"type":"play","seq":%d}\n' % i for i in range(3))
    second = b"".join(b'{"type":"play","seq":%d}\n' % i for i in range(3, 60))
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(_zstd(first) + _zstd(second)[:-20])
    got, err = read_until_error(path)
    assert got == [(i + 1, b'{"type":"play","seq":%d}' % i) for i in range(3)]
    assert err.line == 4
    assert err.message == (
        "the compressed stream is truncated or corrupt after line 3: "
        "the data ends in the middle of a frame (cut off)"
    )


def test_truncated_zstd_right_after_the_frame_header(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(_zstd(TEN_LINES)[:8])
    got, err = read_until_error(path)
    assert got == []
    assert err.line == 1
    assert "truncated or corrupt before the first line: " in err.message


def test_corrupt_gzip_data_check(tmp_path: Path) -> None:
    blob = bytearray(gzip.compress(TEN_LINES, compresslevel=0, mtime=0))
    blob[-8 - 9 - 4] ^= 0x01  # a byte of line 9 ("line 009" -> "line 008"): CRC mismatch
    path = tmp_path / "crc.jsonl.gz"
    path.write_bytes(bytes(blob))
    got, err = read_until_error(path)
    assert [n for n, _ in got] == list(range(1, 11))  # damage is only known at the end
    assert err.line == 11
    assert "incorrect data check" in err.message


def test_corrupt_zstd_checksum(tmp_path: Path) -> None:
    blob = bytearray(_zstd(TEN_LINES))
    blob[-1] ^= 0xFF  # the frame's content checksum
    path = tmp_path / "crc.jsonl.zst"
    path.write_bytes(bytes(blob))
    _, err = read_until_error(path)
    assert err.line is not None
    assert "checksum" in err.message


def test_zstd_cut_inside_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(_zstd(TEN_LINES)[:-3])
    got, err = read_until_error(path)
    assert [n for n, _ in got] == list(range(1, 11))  # the data itself is all there
    assert err.line == 11
    assert err.message == (
        "the compressed stream is truncated or corrupt after line 10: "
        "the data ends in the middle of a frame (cut off)"
    )


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_garbage_after_the_compressed_stream(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "tail.jsonl.x"
    path.write_bytes(CODECS[codec][1](b"A\nB\n") + b"garbage!")
    got, err = read_until_error(path)
    assert got == [(1, b"A"), (2, b"B")]
    assert err.line == 3
    assert "truncated or corrupt after line 2: " in err.message


def test_gzip_magic_then_nonsense(tmp_path: Path) -> None:
    path = tmp_path / "fake.jsonl.gz"
    path.write_bytes(b"\x1f\x8bthis is not deflate at all")
    got, err = read_until_error(path)
    assert got == []
    assert err.line == 1
    assert err.message.startswith("the compressed stream is truncated or corrupt before the first")


# --- binary files ------------------------------------------------------------------------


@pytest.mark.parametrize("codec", list(CODECS))
def test_binary_file_is_refused_at_line_1(tmp_path: Path, codec: str) -> None:
    noise = random.Random(7).randbytes(20000)
    data = b'{"type":"game"}\n' + b"\x00" + noise  # first NUL at offset 16
    got, err = read_until_error(write_log(tmp_path, codec, data))
    assert got == []  # nothing yielded before the error
    assert err.line == 1
    assert err.message == "not a text log: binary content (NUL bytes) at byte offset 16"


def test_utf16_gets_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "utf16.jsonl"
    path.write_bytes('{"type":"game"}\n'.encode("utf-16"))
    _, err = read_until_error(path)
    assert err.line == 1
    assert err.message.endswith("(UTF-16 text? logs must be UTF-8)")


def test_nul_after_the_first_8_kib_is_left_to_the_decoder(tmp_path: Path) -> None:
    path = tmp_path / "late.jsonl"
    filler = b"{}\n" * 3000  # 9000 bytes
    path.write_bytes(filler + b'{"a":"\x00"}\n')
    lines = list(iter_lines(path))
    assert lines[-1] == (3001, b'{"a":"\x00"}')


# --- overlong lines ----------------------------------------------------------------------


@pytest.mark.parametrize("codec", list(CODECS))
def test_overlong_line_gives_the_sentinel_and_reading_goes_on(tmp_path: Path, codec: str) -> None:
    data = (
        b"first\n"
        + b"x" * 101
        + b"\n"
        + b"second\n"
        + b"y" * 100  # exactly the limit: fine
        + b"\r\n"
        + b"z" * 3_000_000  # spans several read chunks
        + b"\n\n"
        + b"last\n"
        + b"w" * 500  # overlong, no newline at the end
    )
    got = list(iter_lines(write_log(tmp_path, codec, data), max_line_bytes=100))
    assert got == [
        (1, b"first"),
        (2, OVERLONG),
        (3, b"second"),
        (4, b"y" * 100),
        (5, OVERLONG),
        (7, b"last"),
        (8, OVERLONG),
    ]
    # each an Overlong line with its first bytes (at most OVERLONG_HEAD) and the limit
    over = {n: line for n, line in got if n in (2, 5, 8)}
    assert all(type(line) is Overlong and line.limit == 100 for line in over.values())
    assert [over[n].head for n in (2, 5, 8)] == [b"x" * 101, b"z" * 1024, b"w" * 500]


def test_max_line_bytes_must_be_positive(tmp_path: Path) -> None:
    path = write_log(tmp_path, "plain", b"a\n")
    with pytest.raises(ValueError):
        list(iter_lines(path, max_line_bytes=0))


# --- files that cannot be read -----------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    _, err = read_until_error(path)
    assert err.line is None
    assert str(err) == f"{path}: cannot open: no such file or directory"


def test_directory_given_to_iter_lines(tmp_path: Path) -> None:
    _, err = read_until_error(tmp_path)
    assert err.line is None
    assert err.message == "cannot open: is a directory"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_permission_denied(tmp_path: Path) -> None:
    path = write_log(tmp_path, "plain", b"a\n")
    path.chmod(0)
    try:
        _, err = read_until_error(path)
    finally:
        path.chmod(0o644)
    assert err.message == "cannot open: permission denied"


def test_permission_denied_whoever_runs_the_tests(tmp_path: Path) -> None:
    path = write_log(tmp_path, "plain", b"a\n")
    denied = PermissionError(13, "Permission denied")
    with mock.patch.object(logfile.io, "FileIO", side_effect=denied):
        _, err = read_until_error(path)
    assert str(err) == f"{path}: cannot open: permission denied"


def test_log_read_error_formats() -> None:
    err = LogReadError(Path("a/b.jsonl"), 3, "bad")
    assert (err.path, err.line, err.message) == ("a/b.jsonl", 3, "bad")
    assert str(err) == "a/b.jsonl:3: bad"
    assert str(LogReadError("x.jsonl", None, "gone")) == "x.jsonl: gone"


# --- expand_paths ------------------------------------------------------------------------


def test_expand_paths_walks_directories_sorted(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    files = [
        "b.jsonl",
        "a.jsonl.gz",
        "C.JSONL",  # suffixes match case-insensitively
        "notes.txt",
        "schema.json",
        "sub/d.jsonl.zst",
        "sub/deeper/e.ndjson",
        "sub/deeper/f.jsonl.bak",
        "sub-x.jsonl",
        ".hidden/g.jsonl",
    ]
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"{}\n")
    (root / "empty").mkdir()
    (root / "dir.jsonl").mkdir()  # a directory with a log's name is walked, not listed

    assert expand_paths([root]) == [
        root / ".hidden/g.jsonl",
        root / "C.JSONL",
        root / "a.jsonl.gz",
        root / "b.jsonl",
        root / "sub/d.jsonl.zst",
        root / "sub/deeper/e.ndjson",
        root / "sub-x.jsonl",
    ]
    # explicit files are taken whatever their name; arguments keep their order; duplicates go
    assert expand_paths([root / "notes.txt", str(root / "sub"), root / "sub/./d.jsonl.zst"]) == [
        root / "notes.txt",
        root / "sub/d.jsonl.zst",
        root / "sub/deeper/e.ndjson",
    ]
    assert expand_paths([root / "empty"]) == []
    assert expand_paths([]) == []
    assert ".jsonl" in LOG_SUFFIXES and ".jsonl.gz" in LOG_SUFFIXES and ".jsonl.zst" in LOG_SUFFIXES


def test_expand_paths_missing_path(tmp_path: Path) -> None:
    with pytest.raises(LogReadError) as info:
        expand_paths([tmp_path, tmp_path / "missing.jsonl"])
    assert info.value.line is None
    assert str(info.value) == f"{tmp_path / 'missing.jsonl'}: no such file or directory"


# --- properties --------------------------------------------------------------------------

line_text = st.text(
    alphabet=st.characters(blacklist_characters="\n\r\x00\ufeff", blacklist_categories=["Cs"]),
    max_size=40,
)


def _expected(lines: list[bytes], limit: int | None = None) -> list[Line]:
    out: list[Line] = []
    for number, line in enumerate(lines, start=1):
        if limit is not None and len(line) > limit:
            out.append((number, OVERLONG))
        elif line.strip():
            out.append((number, line))
    return out


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(
    texts=st.lists(st.one_of(line_text, st.sampled_from(["", " ", "\t "])), max_size=30),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    codec=st.sampled_from(list(CODECS)),
)
def test_round_trip_property(
    tmp_path: Path, texts: list[str], crlf: bool, final_newline: bool, codec: str
) -> None:
    lines = [t.encode() for t in texts]
    eol = b"\r\n" if crlf else b"\n"
    data = eol.join(lines) + (eol if final_newline and lines else b"")
    path = write_log(tmp_path, codec, data)
    assert list(iter_lines(path)) == _expected(lines)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(
    texts=st.lists(st.one_of(line_text, st.text(alphabet="ab ", max_size=30)), max_size=30),
    chunk=st.integers(min_value=1, max_value=17),
    limit=st.integers(min_value=1, max_value=25),
    codec=st.sampled_from(list(CODECS)),
)
def test_tiny_chunks_and_limits_property(
    tmp_path: Path, texts: list[str], chunk: int, limit: int, codec: str
) -> None:
    """Lines cut across read chunks of any size, with any limit, come out right."""
    lines = [t.encode() for t in texts]
    path = write_log(tmp_path, codec, b"\r\n".join(lines))
    with mock.patch.object(logfile, "READ_CHUNK", chunk):
        got = list(iter_lines(path, max_line_bytes=limit))
    assert got == _expected(lines, limit)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=200)
@given(
    texts=st.lists(
        st.one_of(line_text, st.sampled_from(["", " ", "\t", "\x0c", "\r", "a\rb"])), max_size=40
    ),
    chunk=st.integers(min_value=1, max_value=40),
    limit=st.one_of(st.none(), st.integers(min_value=1, max_value=25)),
    final_newline=st.booleans(),
)
def test_line_runs_property(
    tmp_path: Path, texts: list[str], chunk: int, limit: int | None, final_newline: bool
) -> None:
    """The replay's fast path: ``iter_line_runs`` gives runs of consecutively
    numbered lines which, flattened by ``numbered``, are exactly ``iter_lines``'s items,
    whatever the read size, blank lines and line limit (LF endings: the all-at-once path)."""
    lines = [t.encode() for t in texts]
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = write_log(tmp_path, "plain", data)
    kwargs = {} if limit is None else {"max_line_bytes": limit}
    with mock.patch.object(logfile, "READ_CHUNK", chunk):
        runs = list(iter_line_runs(path, **kwargs))
        flat = list(numbered(iter_line_runs(path, **kwargs)))
        expected = list(iter_lines(path, **kwargs))
    assert all(run for _, run in runs)  # no empty run
    starts = [first for first, _ in runs]
    assert starts == sorted(starts)
    assert flat == expected
    # a stripped "\r" at the end aside, the reference reading of the same bytes
    ref = _expected([ln[:-1] if ln.endswith(b"\r") else ln for ln in lines], limit)
    assert flat == ref


def test_line_runs_number_blank_lines_and_keep_one_tuple_per_line(tmp_path: Path) -> None:
    """Blank and whitespace-only lines end a run and are counted; a run is consecutive."""
    path = write_log(tmp_path, "plain", b'{"a":1}\n{"b":2}\n\n  \n{"c":3}\n\t\n{"d":4}')
    assert list(iter_line_runs(path)) == [
        (1, [b'{"a":1}', b'{"b":2}']),
        (5, [b'{"c":3}']),
        (7, [b'{"d":4}']),
    ]
    assert list(numbered(iter_line_runs(path))) == [
        (1, b'{"a":1}'), (2, b'{"b":2}'), (5, b'{"c":3}'), (7, b'{"d":4}'),
    ]  # fmt: skip
