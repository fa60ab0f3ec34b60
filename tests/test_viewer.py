"""The HTML replay viewer without a browser: the embedded states equal
the engine's view at every event for a dispute of every preset, player text is escaped,
and the page carries its provenance."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

import maumau_log.cli.dispute_cmds  # noqa: F401  (registers the commands)
from maumau_log import __version__
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.disputes.timeline import build, find_game
from maumau_log.disputes.viewer import page_steps, read_page_data, render
from maumau_log.events import Event, Game, Play, encode_event
from maumau_log.replay.driver import GameReport, Replayer
from maumau_log.rules import PRESET_NAMES

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
runner = CliRunner()


class Views:
    """The reference: the engine's own view after every accepted event, as the ordinary
    replay computes it (no viewer code involved)."""

    def __init__(self, game_id: str, legal: bool = False) -> None:
        self.game_id = game_id
        self.views: dict[int, dict[str, Any]] = {}
        self.legal: dict[int, list[str]] = {}
        self.with_legal = legal
        self.on = False

    def _keep(self, index: int, engine: Any) -> None:
        self.views[index] = engine.view()
        # asked of a copy: the replay's own engine is never asked, so a page whose states
        # equal these also shows that asking the legal actions changed nothing
        if self.with_legal:
            self.legal[index] = [str(a) for a in copy.deepcopy(engine).legal_actions()]

    def begin_game(self, report: GameReport) -> None:
        self.on = report.game_id == self.game_id and not self.views
        if self.on and report.engine is not None:
            self._keep(0, report.engine)

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        if self.on and report.engine is not None:
            self._keep(index, report.engine)

    def end_game(self, report: GameReport) -> None:
        self.on = False


def reference(path: Path, game_id: str) -> tuple[dict[int, dict[str, Any]], Any]:
    views, _, violation = reference_with_legal(path, game_id, legal=False)
    return views, violation


def reference_with_legal(
    path: Path, game_id: str, legal: bool = True
) -> tuple[dict[int, dict[str, Any]], dict[int, list[str]], Any]:
    ref = Views(game_id, legal)
    reports = [r for r in Replayer(visitors=[ref]).replay_file(path) if r.game_id == game_id]
    return ref.views, ref.legal, reports[0].violation


def steps_of(page: str) -> list[dict[str, Any]]:
    """The page's steps with their states rebuilt from its frames."""
    return page_steps(read_page_data(page))


def dispute(preset: str, tmp: Path) -> tuple[Path, str, int]:
    """A simulated game of ``preset`` with one play handed to a player whose turn it is
    not, two thirds of the way in: a dispute (wrong_player, or the rule that card breaks)."""
    events = next(simulate(preset, 3, 1, 7))
    plays = [i for i, ev in enumerate(events) if isinstance(ev, Play) and not ev.jump_in]
    i = plays[len(plays) * 2 // 3]
    ev = events[i]
    assert isinstance(ev, Play)
    header = events[0]
    assert isinstance(header, Game)
    others = [p for p in header.players if p != ev.player]
    events[i] = msgspec.structs.replace(ev, player=others[0])
    path = tmp / f"{preset}.jsonl"
    path.write_bytes(b"".join(encode_event(e) + b"\n" for e in events))
    return path, header.game_id, i


def assert_page_matches_engine(path: Path, game_id: str) -> dict[str, Any]:
    tl = build(find_game(path, game_id), str(path))
    data = read_page_data(render(tl))
    data["steps"] = page_steps(data)
    views, legal, violation = reference_with_legal(path, game_id)
    assert views, "the reference replay saw no event"
    assert len(data["steps"]) == data["total"]
    for step in data["steps"]:
        i = step["index"]
        if i in views:
            state = step["state"]
            assert {k: state[k] for k in views[i]} == views[i], (path, i)
            assert state["hand_sizes"] == {p: len(h) for p, h in views[i]["hands"].items()}
            assert step["legal"] == legal[i], (path, i)
        else:
            assert step["state"] is None
    want = None if violation is None else violation.to_dict()
    assert data["violation"] == want
    return data


@pytest.mark.parametrize("preset", list(PRESET_NAMES))
def test_a_dispute_of_every_preset_shows_the_engine_view_at_every_event(
    preset: str, tmp_path: Path
) -> None:
    path, game_id, at = dispute(preset, tmp_path)
    data = assert_page_matches_engine(path, game_id)
    assert data["violation"] is not None
    assert data["violation"]["event_index"] == at
    assert data["steps"][at]["state"] is None  # the replay stopped there
    assert data["steps"][at - 1]["legal"]  # what was legal right before it


@pytest.mark.parametrize(
    ("rel", "game_id"),
    [
        ("valid/classic_2p_match.jsonl", None),
        ("valid/classic_2p_handwritten.jsonl", "t7-000123"),
        ("disputes/standard_seven_on_seven.mm", "club-2024-031"),
        ("disputes/classic_missed_mau.mm", "club-2024-044"),
        ("disputes/online_seat_view.mm", "web-88123"),
    ],
)
def test_sample_games_show_the_engine_view(rel: str, game_id: str | None) -> None:
    path = SAMPLES / rel
    if game_id is None:  # the match's second round: it needs the first one's totals
        heads = [json.loads(x) for x in path.read_text().splitlines() if '"type":"game"' in x]
        game_id = heads[1]["game_id"]
    data = assert_page_matches_engine(path, game_id)
    if rel.endswith("match.jsonl"):
        first = data["steps"][1]["state"]
        assert first["round"] == 2
        assert first["match_totals"] and any(v != 0 for v in first["match_totals"].values())


def test_the_stock_top_and_partial_hands() -> None:
    path = SAMPLES / "disputes" / "standard_seven_on_seven.mm"
    steps = steps_of(render(build(find_game(path, "club-2024-031"), str(path))))
    deal = steps[1]
    assert deal["state"]["stock_top"] == "KC"  # the stock line's first card
    assert deal["state"]["stock_size"] == 21
    assert deal["text"].splitlines() == [
        "hand ana 9H 7H KS QC 10D",
        "hand ben 9C 7C 8S JD AH",
        "starter 10H",
        "stock KC QS 9D 8C AS 10C 7D JH QD 8H KD 9S AC 10S 7S 8D QH JC KH AD JS",
    ]
    seat = SAMPLES / "disputes" / "online_seat_view.mm"
    page = render(build(find_game(seat, "web-88123"), str(seat)))
    st = steps_of(page)[1]["state"]
    assert st["hands"]["ben"] == ["?"] * 5 and st["stock_top"] is None
    assert read_page_data(page)["unchecked"]


def test_provenance_tool_ruleset_and_sha256() -> None:
    path = SAMPLES / "valid" / "classic_2p_handwritten.jsonl"  # one game, LF lines
    page = render(build(find_game(path, "t7-000123"), str(path)))
    data = read_page_data(page)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert data["sha256"] == digest
    assert f'<code id="sha256">{digest}</code>' in page
    assert data["tool"] == f"maumau-log {__version__}"
    assert data["ruleset"]["preset"] == "classic"
    assert data["ruleset"]["options"]["call_penalty"] == 2
    assert "&quot;call_penalty&quot;: 2" in page


def test_the_page_needs_no_network() -> None:
    path = SAMPLES / "disputes" / "classic_missed_mau.mm"
    page = render(build(find_game(path, "club-2024-044"), str(path)))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert script is not None
    import base64

    digest = base64.b64encode(hashlib.sha256(script.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in page  # only this script may run


HOSTILE = ['</script><script>window.pwned=1</script>', '<img src=x onerror="window.pwned=2">',
           "x&amp;y", "\u2028line"]  # fmt: skip


def hostile_log(tmp: Path) -> Path:
    events = next(simulate("standard", 2, 1, 3))
    text = b"".join(encode_event(e) + b"\n" for e in events).decode()
    text = text.replace('"p1"', json.dumps(HOSTILE[0])).replace('"p2"', json.dumps(HOSTILE[1]))
    text = text.replace('"meta":{', '"meta":{"note":' + json.dumps(HOSTILE[2] + HOSTILE[3]) + ",")
    path = tmp / "hostile.jsonl"
    path.write_text(text)
    return path


def test_player_text_is_escaped(tmp_path: Path) -> None:
    path = hostile_log(tmp_path)
    game_id = json.loads(path.read_text().splitlines()[0])["game_id"]
    page = render(build(find_game(path, game_id), str(path)))
    assert "<script>window.pwned" not in page
    assert "<img src=x" not in page
    assert page.count("<script") == 2  # the data block and the viewer's own script
    data = read_page_data(page)
    assert data["header"]["players"] == HOSTILE[:2]
    assert data["header"]["meta"]["note"] == HOSTILE[2] + HOSTILE[3]


def test_view_command(tmp_path: Path) -> None:
    out = tmp_path / "v.html"
    f = SAMPLES / "disputes" / "standard_seven_on_seven.mm"
    r = runner.invoke(app, ["view", str(f), "club-2024-031", "--at", "6", "--out", str(out)])
    assert r.exit_code == 0, r.output
    data = read_page_data(out.read_text())
    assert data["start"] == 6
    assert data["violation"]["code"] == "missed_penalty"
    r = runner.invoke(app, ["view", str(f), "nope", "--out", str(out)])
    assert r.exit_code == 2 and "no game 'nope'" in r.output
    r = runner.invoke(app, ["view", str(f), "club-2024-031", "--at", "99", "--out", str(out)])
    assert r.exit_code == 2 and "--at takes 0..8, not 99" in r.output
    r = runner.invoke(app, ["view", str(tmp_path / "missing.jsonl"), "g", "--out", str(out)])
    assert r.exit_code == 2


def test_view_of_a_dataset_with_and_without_its_source_file(tmp_path: Path) -> None:
    import shutil

    import maumau_log.cli.data_cmds  # noqa: F401  (ingest)

    src = tmp_path / "g.mm"
    shutil.copyfile(SAMPLES / "disputes" / "standard_seven_on_seven.mm", src)
    data = tmp_path / "data"
    r = runner.invoke(app, ["ingest", str(src), "--out", str(data)])
    assert r.exit_code in (0, 1), r.output
    from_file = steps_of(render(build(find_game(src, "club-2024-031"), str(src))))
    with_src = steps_of(render(build(find_game(data, "club-2024-031"), str(data))))
    assert with_src == from_file  # read from the source file: all 9 lines
    src.unlink()
    page = read_page_data(render(build(find_game(data, "club-2024-031"), str(data))))
    stored = page_steps(page)
    assert page["violation"]["code"] == "missed_penalty"
    assert page["violation"]["event_index"] == 6
    assert (
        page["note"]
        == f"its source file {src} is not found: shown from the dataset's stored events"
    )
    assert [s["state"] for s in stored[:6]] == [s["state"] for s in from_file[:6]]
    assert len(stored) == 7 and page["total"] == 9  # the events after the violation: not stored
    assert stored[6]["state"] is None
    assert stored[6]["raw"] == '{"type":"play","player":"ana","cards":["7H"]}'  # as logged
