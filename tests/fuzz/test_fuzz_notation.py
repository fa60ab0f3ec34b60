"""Fuzzing the ``.mm`` reader and ``game --try``'s action strings.

The ``.mm`` texts are the sample disputes with hostile pieces spliced in (lone surrogates,
numbers of 5,000 digits, JSON nested thousands deep, NUL, BOM, brackets and quotes alone),
lines dropped, doubled or cut, and lines written from the grammar's words. Reading one
gives a ``NotationError`` with its line and column or events as UTF-8 JSON lines, never
another exception; the replay of what it gives raises nothing and reports every game.

The actions are the engine's legal actions at points of simulated games of every preset,
changed the same way, and lines from the grammar's words: ``try_action`` answers (its
answer JSON-ready and UTF-8) or raises ``NotationError`` (exit 2), and never changes the
engine it is asked about.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from fuzzing import FUZZ, base_games, hostile_text, presets, splice
from hypothesis import given
from hypothesis import strategies as st

from maumau_log.disputes.hypothetical import try_action
from maumau_log.engine import Engine
from maumau_log.events import Game, decode_event, has_lone_surrogate
from maumau_log.logs.notation import NotationError, from_notation, located_lines
from maumau_log.replay.driver import Replayer
from maumau_log.rules import resolve

DISPUTES = Path(__file__).resolve().parent.parent.parent / "sample_logs" / "disputes"
TEXTS = [p.read_text(encoding="utf-8") for p in sorted(DISPUTES.glob("*.mm"))]

WORDS = [
    "game", "g1", "ruleset:", "standard", "players:", "ana", "ben", "dealer:", "round:",
    "options:", "meta:", "json", "raw", "hand", "starter", "stock", "reshuffle", "end",
    "match_end", "abandon", "plays", "draws", "passes", "names", "calls", "pays", "jumps",
    "in", "with", "cuts", "by", "scores", "totals", "-", "7H", "JC", "10D", "X", "?", "?3",
    "3", "(effect)", "(missed_call)", "@5", "@2024-05-01", "{}", '{"t":1}', "mau", "H", "#",
]  # fmt: skip
word = st.one_of(st.sampled_from(WORDS), hostile_text)
grammar_line = st.lists(word, min_size=1, max_size=8).map(" ".join)


def _mutated(data: st.DataObject, text: str) -> str:
    lines = text.split("\n")
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(lines) - 1))
        how = data.draw(st.sampled_from(["splice", "splice", "drop", "double", "cut", "new"]))
        if how == "splice":
            at, cut = data.draw(st.integers(0, 200)), data.draw(st.integers(0, 4))
            lines[i] = splice(lines[i], at, data.draw(hostile_text), cut)
        elif how == "drop" and len(lines) > 1:
            del lines[i]
        elif how == "double":
            lines.insert(i, lines[i])
        elif how == "cut":
            lines[i] = lines[i][: data.draw(st.integers(0, max(0, len(lines[i]) - 1)))]
        else:
            lines.insert(i, data.draw(grammar_line))
    return "\n".join(lines)


@FUZZ
@given(data=st.data())
def test_the_mm_reader_locates_every_fault_and_the_replay_goes_on(data: st.DataObject) -> None:
    text = _mutated(data, data.draw(st.sampled_from(TEXTS)))
    try:
        lines = from_notation(text)
    except NotationError as exc:
        assert exc.line >= 1 and exc.column >= 1 and exc.message
        assert not has_lone_surrogate(exc.message)
    else:
        for _, raw in lines:
            raw.decode("utf-8")  # UTF-8, whatever was spliced in
    located = list(located_lines(text))
    for _, raw in located:
        raw.decode("utf-8")
    reports = list(Replayer().replay_lines("f.mm", located))
    for r in reports:
        v = r.violation
        assert v is None or not has_lone_surrogate(list(v.to_dict().values()))
    headers = sum(1 for line in text.split("\n") if line.startswith("game "))
    assert len(reports) >= min(headers, 1)


@cache
def _engines(preset: str) -> list[Engine]:
    """Engines after the deal, in the middle and near the end of a simulated game."""
    game = base_games(preset)[0]
    header = decode_event(json.dumps(game[0]))
    assert isinstance(header, Game)
    out = []
    for stop in (2, len(game) // 2, len(game) - 2):
        eng = Engine(resolve(header.ruleset, header.options), header)
        for e in game[1:stop]:
            eng.apply(decode_event(json.dumps(e)))
        out.append(eng)
    return out


def _action(data: st.DataObject, engine: Engine) -> str:
    legal = [str(a) for a in copy.deepcopy(engine).legal_actions()]
    if legal and data.draw(st.booleans()):
        text = data.draw(st.sampled_from(legal))
        if data.draw(st.booleans()):
            at, cut = data.draw(st.integers(0, 60)), data.draw(st.integers(0, 3))
            text = splice(text, at, data.draw(hostile_text), cut)
        return text
    return data.draw(grammar_line)


@FUZZ
@given(preset=presets, data=st.data())
def test_try_answers_or_locates_the_fault_and_changes_nothing(
    preset: str, data: st.DataObject
) -> None:
    engine = data.draw(st.sampled_from(_engines(preset)))
    text = _action(data, engine)
    view = engine.view()
    try:
        result: dict[str, Any] = try_action(engine, text)
    except NotationError as exc:
        assert exc.column >= 1 and exc.message
        assert not has_lone_surrogate(exc.message)
    else:
        assert set(result) >= {"legal", "code", "rule", "message", "expected", "event"}
        json.dumps(result, ensure_ascii=False).encode("utf-8")  # what --json writes
    assert engine.view() == view
