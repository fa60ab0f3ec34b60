"""The shard planner looks at a line only when it names ``"game"`` in its first 300 bytes
(no other line can start a shard): a log of blank or other lines is scanned in C, not one
Python call per line (30 MB of blank lines cost 25 CPU s at ``--jobs 2`` that way)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import maumau_log.run.plan as shard_mod

HEADER = (
    b'{"type":"game","format":"maumau-log/1","game_id":"g%d","ruleset":"classic",'
    b'"players":["a","b"]}'
)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    real = shard_mod._header_at

    def spy(line: bytes, limit: Any = None) -> Any:
        seen.append(line)
        return real(line, limit)

    monkeypatch.setattr(shard_mod, "_header_at", spy)
    return seen


def test_blank_lines_are_never_looked_at_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _counting(monkeypatch)
    log = tmp_path / "blank.jsonl"
    log.write_bytes(b"\n" * 200_000 + b" \t\n" * 1000)
    assert shard_mod._cuts(log, 1000) == []
    assert seen == []


def test_only_lines_naming_game_are_looked_at_and_the_cuts_are_the_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _counting(monkeypatch)
    play = b'{"type":"pass","player":"a"}\n' * 40  # 1,160 bytes
    say = b'{"type":"say","player":"a","text":"game"}\n'
    data = b"".join(HEADER % i + b"\n" + play + say for i in range(3))
    log = tmp_path / "log.jsonl"
    log.write_bytes(data)
    block = len(HEADER % 0) + 1 + len(play) + len(say)
    # every target bytes a cut is due: before the next header, at line 43 and line 85
    assert shard_mod._cuts(log, 1000) == [(block, 43), (2 * block, 85)]
    # past each due offset: each game's last line (a "say" naming "game", no header)
    # and the headers of games 1 and 2; no "pass" line, none before a due offset
    said = say.rstrip(b"\n")
    assert seen == [said, HEADER % 1, said, HEADER % 2, said]
