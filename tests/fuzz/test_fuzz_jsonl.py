"""Fuzzing the JSON Lines reader: one hostile line among good games, and the runners.

A good line is changed into a hostile one (cut short, a hostile piece spliced in: a lone
surrogate, a number of 5,000 digits, JSON nested thousands deep, NUL, BOM, CR; or made
longer than the line limit, which is 2,000 bytes here through ``MAUMAU_LOG_MAX_LINE_BYTES``)
and put in place of a line or after it. The properties: reading the file as one shard and
as shards cut every few hundred bytes raises nothing and gives the same games (every runner
reads the same games); only the game the line falls in (and a game the line starts when it
looks like a header) changes, every other game replays exactly as in the clean file; no
report holds text that UTF-8 cannot write. Whole-file changes that FORMAT.md says change
nothing (a BOM, CRLF line ends, blank lines, no final newline) change no outcome.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from unittest import mock

from fuzzing import FUZZ, hostile_text, splice
from hypothesis import given
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import encode_event, has_lone_surrogate
from maumau_log.logs.lines import MAX_LINE_ENV
from maumau_log.run.runners import ShardTask, local_results
from maumau_log.run.shard import ShardFailure, plan_shards

LIMIT = 2000
GAMES: list[list[bytes]] = [
    *([encode_event(e) for e in g] for g in simulate("standard", 2, 3, 11, id_prefix="fz-a")),
    *([encode_event(e) for e in g] for g in simulate("classic", 3, 2, 12, id_prefix="fz-b")),
    *([encode_event(e) for e in g] for g in simulate("pesten", 2, 2, 13, id_prefix="fz-c")),
]


def outcomes(path: Path, shard_bytes: int) -> list[tuple[Any, ...]]:
    """(id, events, first violation's code and event) per game, read as planned shards."""
    got = []
    with mock.patch.dict(os.environ, {MAX_LINE_ENV: str(LIMIT)}):
        task = ShardTask()
        for res in local_results(plan_shards([path], shard_bytes), task, 1):
            assert not isinstance(res, ShardFailure), res
            assert res.unreadable is None, res.unreadable
            for g in res.games:
                v = g.violation
                assert not has_lone_surrogate(
                    [g.file, g.game_id, g.key, *(v.to_dict().values() if v else [])]
                )
                got.append((g.key, g.events, v and v.code, v and v.event_index))
    return got


def hostile(data: st.DataObject, line: bytes) -> bytes:
    """A hostile version of a good line."""
    text = line.decode()
    how = data.draw(st.sampled_from(["cut", "splice", "splice", "long", "header", "nul"]))
    if how == "cut":
        return line[: data.draw(st.integers(0, max(0, len(line) - 1)))]
    if how == "long":  # over the limit: padding in a string near the start or the end
        pad = "x" * data.draw(st.integers(LIMIT - len(text) - 5, LIMIT + 50))
        return splice(text, data.draw(st.sampled_from([1, len(text) - 1])), pad, 0).encode(
            errors="surrogatepass"
        )
    if how == "header":  # looks like a header, is not a good one
        piece = data.draw(hostile_text)
        return ('{"type":"game","game_id":"h' + piece + '","players":' + piece).encode(
            errors="surrogatepass"
        )
    if how == "nul":
        return splice(text, data.draw(st.integers(0, len(text))), "\x00", 0).encode()
    piece = data.draw(hostile_text)
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 3))
    return splice(text, at, piece, cut).encode(errors="surrogatepass")


@FUZZ
@given(data=st.data())
def test_one_hostile_line_changes_only_its_game(data: st.DataObject, tmp_path: Path) -> None:
    k = data.draw(st.integers(0, len(GAMES) - 1))
    game = list(GAMES[k])
    i = data.draw(st.integers(0, len(game) - 1))
    bad = hostile(data, game[data.draw(st.integers(0, len(game) - 1))])
    replace = data.draw(st.booleans())
    if replace:
        game[i] = bad
    else:
        game.insert(i + 1, bad)
    # a game runs to the next header (FORMAT.md Files): with its header gone, its events
    # are the game's before it (unless the hostile line still looks like a header)
    first = k - 1 if replace and i == 0 and k > 0 else k
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"".join(x + b"\n" for g in GAMES for x in g))
    log = tmp_path / "hostile.jsonl"
    log.write_bytes(b"".join(x + b"\n" for g in [*GAMES[:k], game, *GAMES[k + 1 :]] for x in g))
    want = outcomes(clean, 10**9)
    got = outcomes(log, 10**9)
    # every runner reads the same games: cuts every few hundred bytes change nothing
    assert outcomes(log, data.draw(st.integers(200, 3000))) == got
    # the games before the changed one and after it (and a game the line may start) stay
    assert got[:first] == want[:first]
    assert got[len(got) - (len(GAMES) - k - 1) :] == want[k + 1 :]
    assert len(got) - len(want) in ((-1, 0, 1) if first < k else (0, 1))


@FUZZ
@given(
    bom=st.booleans(),
    crlf=st.booleans(),
    blanks=st.lists(st.integers(0, 200), max_size=5),
    final_newline=st.booleans(),
)
def test_what_the_format_ignores_changes_no_game(
    tmp_path: Path, bom: bool, crlf: bool, blanks: list[int], final_newline: bool
) -> None:
    lines = [x for g in GAMES for x in g]
    want_file = tmp_path / "plain.jsonl"
    want_file.write_bytes(b"".join(x + b"\n" for x in lines))
    for at in sorted(blanks, reverse=True):
        lines.insert(at % (len(lines) + 1), b"  \t")
    end = b"\r\n" if crlf else b"\n"
    data = end.join(lines) + (end if final_newline else b"")
    log = tmp_path / "changed.jsonl"
    log.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    want = [(o[0].split(":")[0], *o[1:]) for o in outcomes(want_file, 10**9)]
    for shard_bytes in (10**9, 700):
        got = [(o[0].split(":")[0], *o[1:]) for o in outcomes(log, shard_bytes)]
        assert got == want
