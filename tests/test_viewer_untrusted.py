"""The viewer page with strangers' games: player names that are also names of properties
every JavaScript object inherits, huge names, games of a hundred thousand events, and the
page limit (``viewer_data.PAGE_LIMIT``) with its windows (``view --at N``)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from test_viewer import assert_page_matches_engine, reference, runner

from maumau_log.bots.sim import Bot, SimTable, fair_shuffle, simulate
from maumau_log.bots.table import make_header
from maumau_log.cli import app
from maumau_log.disputes.timeline import build, find_game
from maumau_log.disputes.viewer import page_steps, read_page_data, render
from maumau_log.disputes.viewer_data import KEYFRAME_EVERY
from maumau_log.events import Abandon, RoundEnd, encode_event
from maumau_log.rules import resolve

PROTO_NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty"]
FRAME_KEYS = {"ph", "tu", "di", "to", "su", "pd", "ps", "as", "co", "ss", "ds", "st", "rd",
              "m", "c", "h", "l", "k"}  # fmt: skip


def proto_names_log(tmp: Path, seed: int = 5) -> tuple[Path, str]:
    """A simulated standard game of four players named after inherited properties."""
    events = next(simulate("standard", 4, 1, seed, bot=Bot(forget_call=0.5, catch=0.3)))
    text = b"".join(encode_event(e) + b"\n" for e in events).decode()
    for i, name in enumerate(PROTO_NAMES, start=1):
        text = text.replace(f'"p{i}"', json.dumps(name))
    path = tmp / "proto.jsonl"
    path.write_text(text)
    return path, json.loads(text.splitlines()[0])["game_id"]


def long_game(events: int, name: str = "p1", seed: int = 7) -> list[bytes]:
    """One valid classic game of about ``events`` events: two players who draw instead of
    playing nearly every turn, then an ``abandon`` and its ``round_end``
    (``bench/bench_viewer.py`` makes the same games)."""
    rules = resolve("classic")
    rng = random.Random(f"bench-viewer:{seed}")
    header = make_header(rules, f"long-{events}", [name, "p2"], "p2", fair_shuffle(rng))
    table = SimTable(rules, header, rng, Bot(voluntary_draw=0.95))
    table.deal()
    table.run(max(events - 4, 1))
    table.emit(Abandon(reason="long"))
    hands = {p: list(h) for p, h in table.engine.hands.items()}
    table.emit(RoundEnd(winner=None, scores=None, hands=hands))
    return [encode_event(ev) for ev in table.events]


def write_game(tmp: Path, lines: list[bytes], name: str = "long.jsonl") -> Path:
    path = tmp / name
    path.write_bytes(b"".join(x + b"\n" for x in lines))
    return path


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj).union(*(_keys(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(_keys(v) for v in obj))
    return set()


# ---------------------------------------------------------------------------------------
# player names that are inherited properties


def test_inherited_property_names_show_the_engine_state_at_every_step(tmp_path: Path) -> None:
    path, game_id = proto_names_log(tmp_path)
    data = assert_page_matches_engine(path, game_id)  # states, hands, faults, legal actions
    views, _ = reference(path, game_id)
    assert data["players"] == PROTO_NAMES
    assert list(data["steps"][1]["state"]["hands"]) == PROTO_NAMES
    faults = [s["state"]["calls_due"] for s in data["steps"] if s["state"] is not None]
    assert faults == [views[i]["calls_due"] for i in sorted(views)]
    assert any(faults) and not all(faults)  # some steps with a fault open, some without


def test_no_object_in_the_page_is_keyed_by_a_player(tmp_path: Path) -> None:
    path, game_id = proto_names_log(tmp_path)
    data = read_page_data(render(build(find_game(path, game_id), str(path))))
    # the frames name players by seat: their keys are the frame fields, nothing else
    assert _keys(data["frames"]) == FRAME_KEYS
    assert _keys(data["actions"]) == set()
    assert next(a for a in data["actions"] if a[0] is not None)[0] in range(4)
    assert set(data) == {"format", "tool", "sha256", "source", "file", "game_id", "header",
                         "ruleset", "violation", "unchecked", "start", "note", "unchecked_from",
                         "first", "total", "players", "actions", "lines", "raws", "texts",
                         "frames"}  # fmt: skip


def test_a_proto_key_survives_the_page_json(tmp_path: Path) -> None:
    path, game_id = proto_names_log(tmp_path)
    text = path.read_text().replace('"meta":{', '"meta":{"__proto__":{"polluted":1},', 1)
    path.write_text(text)
    data = read_page_data(render(build(find_game(path, game_id), str(path))))
    assert data["header"]["meta"]["__proto__"] == {"polluted": 1}
    assert (
        json.loads(data["raws"][1])["hands"]["__proto__"]
        == page_steps(data)[1]["state"]["hands"]["__proto__"]
    )


# ---------------------------------------------------------------------------------------
# size


def test_a_long_game_page_holds_the_events_once_and_the_changes(tmp_path: Path) -> None:
    lines = long_game(10_000)
    assert len(lines) == 11_321
    path = write_game(tmp_path, lines)
    page = render(build(find_game(path, "long-10000"), str(path)))
    data = read_page_data(page)
    # measured: 1.36 MiB (the log is 0.53 MiB); a whole state per event made it 6.48 MiB
    assert len(page.encode()) < 2.8 * path.stat().st_size
    whole = [f for f in data["frames"] if f.get("k")]
    assert len(whole) == -(-len(lines) // KEYFRAME_EVERY)  # one whole frame in 64
    steps = page_steps(data)
    views, _ = reference(path, "long-10000")
    for i in (0, 1, 63, 64, 65, 5_000, 11_320):
        assert {k: steps[i]["state"][k] for k in views[i]} == views[i], i


def test_a_huge_name_is_in_the_page_once_per_line_that_holds_it(tmp_path: Path) -> None:
    name = "n" * 1_000_000
    lines = long_game(60, name=name)
    path = write_game(tmp_path, lines)
    page = render(build(find_game(path, "long-60"), str(path)))
    with_name = sum(1 for x in lines if name.encode() in x)
    # each line as logged, the header object and the seat list: no copy per hand, turn or
    # legal action (a whole state per event made this page 266 MB for a 30 MB log)
    assert page.count(name) == with_name + 2
    assert len(page.encode()) < path.stat().st_size + 2 * len(name) + 200_000


# ---------------------------------------------------------------------------------------
# the page limit


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    import maumau_log.disputes.viewer_data

    limit = 200_000
    monkeypatch.setattr(maumau_log.disputes.viewer_data, "PAGE_LIMIT", limit)
    return limit


def test_a_game_over_the_page_limit_is_refused_with_what_to_do(
    tmp_path: Path, small_limit: int
) -> None:
    path = write_game(tmp_path, long_game(10_000))
    out = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(path), "long-10000", "--out", str(out)])
    assert r.exit_code == 2, r.output
    message = " ".join(r.output.split())
    fits = int(message.split("(at most ")[1].split(" of them fit)")[0].replace(",", ""))
    # refused before the replay, from the lines alone (about 60 bytes an event), so an
    # upper bound of what a page holds (about 120 bytes an event)
    held = build(find_game(path, "long-10000"), str(path), limit=small_limit, partial=True)
    assert 1_000 < len(held.steps) <= fits < 4_000
    assert message == (
        "error: game 'long-10000': too large for one page: its 11,321 events need over 200,000 "
        f"bytes of page data, the viewer's limit (at most {fits:,} of them fit); write a part "
        "of it with --at N: the page then holds event N-1 and as many after it as fit"
    )
    assert not out.exists()


def test_view_at_n_writes_the_window_from_n_minus_one(tmp_path: Path, small_limit: int) -> None:
    path = write_game(tmp_path, long_game(10_000))
    out = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(path), "long-10000", "--at", "5000", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = read_page_data(out.read_text())
    assert (data["first"], data["start"], data["total"]) == (4_999, 5_000, 11_321)
    last = data["first"] + len(data["frames"]) - 1
    assert " ".join(r.output.split()) == (
        f"wrote {out}: game long-10000, events 4,999 to {last:,} of 0 to 11,320 (the 200,000 "
        f"bytes page limit; --at {last + 2:,} writes the next part), valid"
    )
    assert len(out.read_text().encode()) <= small_limit + 40_000  # the script and the CSS
    assert data["frames"][0]["k"] == 1  # the window opens with a whole state
    views, _ = reference(path, "long-10000")
    for step in page_steps(data):
        i = step["index"]
        assert {k: step["state"][k] for k in views[i]} == views[i], i
    r = runner.invoke(app, ["view", str(path), "long-10000", "--at", "11320", "--out", str(out)])
    assert r.exit_code == 0, r.output
    tail = read_page_data(out.read_text())
    assert (tail["first"], len(tail["frames"])) == (11_319, 2)


def test_an_event_larger_than_the_page_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import maumau_log.disputes.viewer_data

    monkeypatch.setattr(maumau_log.disputes.viewer_data, "PAGE_LIMIT", 2**20)
    path = write_game(tmp_path, long_game(60, name="n" * 600_000))
    out = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(path), "long-60", "--at", "3", "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert " ".join(r.output.split()) == (
        "error: game 'long-60': event 2 does not fit one page with the game's header: it "
        "needs over 1 MiB of page data, the viewer's limit"
    )


# ---------------------------------------------------------------------------------------
# headers the replay refuses


@pytest.mark.parametrize(
    ("players", "code"),
    [("5", "schema_error"), ('["a\\ud800b","p2"]', "bad_json")],
    ids=["players-not-a-list", "lone-surrogate"],
)
def test_a_refused_header_still_gives_a_page(tmp_path: Path, players: str, code: str) -> None:
    events = next(simulate("standard", 2, 1, 3))
    text = b"".join(encode_event(e) + b"\n" for e in events).decode()
    head, rest = text.split("\n", 1)
    head = head.replace('"players":["p1","p2"]', f'"players":{players}')
    path = tmp_path / "bad.jsonl"
    path.write_text(head + "\n" + rest)
    out = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(path), "sim-standard-2p-3-000000", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = read_page_data(out.read_text(encoding="utf-8"))
    assert (data["violation"]["code"], data["violation"]["event_index"]) == (code, 0)
    assert data["players"] == [] and data["frames"] == [None] * len(events)
    assert data["raws"][0] == head  # the line as logged, a lone surrogate as its escape
