"""The referee :class:`maumau_log.Table` against ``validate``: every game of the sample
logs and of the shared examples, fed event by event, stops at the same first violation
(event index and code) that ``validate --json`` reports; a rejected event leaves the table
as it was; only what is not an event at all raises."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

import maumau_log as m
from maumau_log.logs.lines import iter_lines
from maumau_log.logs.notation import BadLine, file_lines, is_notation

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "examples"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/examples")
LOGS = sorted(
    p
    for base in (ROOT / "sample_logs", SHARED)
    if base.is_dir()
    for p in base.rglob("*")
    if p.is_file() and (p.name.endswith((".jsonl", ".jsonl.gz", ".jsonl.zst")) or is_notation(p))
)

HEADER = {
    "type": "game",
    "format": "maumau-log/1",
    "game_id": "g1",
    "ruleset": "standard",
    "players": ["ana", "ben"],
}
DEAL = {
    "type": "deal",
    "hands": {"ana": ["7H", "KS", "9C", "QD", "8S"], "ben": ["10H", "JC", "AD", "7S", "8C"]},
    "starter": "9H",
}


def _objects(path: Path) -> list[tuple[int, object]] | None:
    """The file's lines as JSON values, or None when one line is no JSON object (a table
    takes dicts: bad JSON, an over-long line or a damaged file cannot reach it)."""
    lines = file_lines(path) if is_notation(path) else iter_lines(path)
    out: list[tuple[int, object]] = []
    try:
        for n, raw in lines:
            if isinstance(raw, BadLine):  # a .mm line the notation's grammar refuses
                return None
            try:
                obj = msgspec.json.decode(raw)
            except (msgspec.DecodeError, RecursionError):
                return None
            if not isinstance(obj, dict):
                return None
            out.append((n, obj))
    except m.replay.driver.LogReadError:
        return None
    return out


def _table_verdicts(objs: list[tuple[int, object]]) -> Iterator[tuple[int, str]]:
    """Each invalid game's first violation as a table finds it: (event index, code).

    One table per file, as a server keeps one per table; after a game's first violation
    the rest of that game is skipped (``validate`` checks no further either) and the next
    header starts a new table, since the rejected game never finished."""
    table = m.Table()
    failed = False
    for _, obj in objs:
        assert isinstance(obj, dict)
        if obj.get("type") == "game":
            if not failed:
                end = table.finish()
                if end is not None:
                    yield end.event_index or 0, end.code
            table, failed = (m.Table(), False) if failed or end is not None else (table, False)
        elif failed:
            continue
        v = table.apply(obj)
        if v is not None:
            yield v.event_index or 0, v.code
            failed = True
    if not failed:
        end = table.finish()
        if end is not None:
            yield end.event_index or 0, end.code


@pytest.mark.parametrize("path", LOGS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_table_finds_the_first_violation_validate_finds(path: Path) -> None:
    objs = _objects(path)
    if objs is None:
        pytest.skip("a line that is no JSON object: only a log can hold it")
    expected = [(v.event_index or 0, v.code) for v in m.validate(path).violations]
    assert list(_table_verdicts(objs)) == expected


def test_every_sample_log_but_the_unreadable_lines_is_compared() -> None:
    skipped = sorted(p.name for p in LOGS if _objects(p) is None)
    # a line that is no JSON (bad_json), a binary file, a .mm line the grammar refuses, a
    # file cut inside its compression: nothing a server could hand a table as a dict
    assert skipped == [
        "bad_json.jsonl", "bad_notation.mm", "not_a_log.jsonl", "truncated_file.jsonl.gz"
    ]  # fmt: skip
    assert len(LOGS) - len(skipped) >= 55


def test_a_rejected_event_leaves_the_table_as_it_was() -> None:
    t = m.Table()
    assert t.apply(HEADER) is None
    assert t.apply(DEAL) is None
    before = t.view()
    v = t.apply({"type": "play", "player": "ana", "cards": ["10H"]})
    assert v is not None
    assert (v.code, v.event_index, v.line, v.file) == ("card_not_in_hand", 2, 3, "<table>")
    assert v.legal == "ana plays 7H | ana plays 9C"
    assert t.view() == before
    assert t.apply({"type": "play", "player": "ana", "cards": ["7H"]}) is None
    assert t.view()["top"] == "7H"
    assert len(t.events) == 3


def test_check_answers_without_applying() -> None:
    t = m.Table()
    t.apply(HEADER)
    t.apply(DEAL)
    play = {"type": "play", "player": "ana", "cards": ["7H"]}
    assert t.check(play) is None
    assert t.view()["top"] == "9H"
    assert t.apply(play) is None
    replayed = t.check(play)
    assert replayed is not None and replayed.code == "wrong_player"


def test_bad_events_are_violations_and_only_non_events_raise() -> None:
    t = m.Table()
    v = t.apply({"type": "play", "player": "ana", "cards": ["7H"]})
    assert v is not None and (v.code, v.event_index) == ("missing_header", 0)
    t.apply(HEADER)
    v = t.apply({"type": "teleport"})
    assert v is not None and v.code == "schema_error"
    v = t.apply({"type": "deal", "hands": {"ana": {1, 2}}, "starter": "9H"})
    assert v is not None and v.code == "schema_error"
    v = t.apply({"type": "deal", "seq": 5, **{k: DEAL[k] for k in ("hands", "starter")}})
    assert v is not None and v.code == "bad_seq"
    for not_event in ("play", 7, None, ["play"]):
        with pytest.raises(TypeError, match="an event is a mapping"):
            t.apply(not_event)  # type: ignore[arg-type]
    assert t.apply(DEAL) is None


def test_a_players_view_hides_the_other_hands() -> None:
    t = m.Table()
    assert t.view() == {"phase": None}
    t.apply(HEADER)
    t.apply(DEAL)
    ana = t.view("ana")
    assert ana["hands"]["ana"] == ["7H", "KS", "9C", "QD", "8S"]
    assert ana["hands"]["ben"] == {"count": 5}
    assert t.view()["hands"]["ben"] == ["10H", "JC", "AD", "7S", "8C"]


def test_a_second_header_before_round_end_is_refused_with_the_open_round() -> None:
    t = m.Table()
    t.apply(HEADER)
    t.apply(DEAL)
    v = t.apply({**HEADER, "game_id": "g2"})
    assert v is not None
    assert (v.code, v.game_id, v.event_index) == ("round_not_finished", "g1", 2)
    assert t.view()["top"] == "9H"
