"""Partial-information logs and `compare` (FORMAT.md "Information
levels"): a seat's view derived from a full log replays clean and says what it could not
check; a view that contradicts itself or the server's log is caught at the right event."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.disputes.compare import compare, seat_view
from maumau_log.events import Deal, Draw, Event, Game, HandCount, Play, Reshuffle, encode_event
from maumau_log.replay.driver import replay_events

runner = CliRunner()
PRESETS = ["standard", "classic", "pesten", "serbian", "crazy-eights", "faraon"]


@pytest.mark.parametrize("preset", PRESETS)
def test_every_seat_view_replays_clean(preset: str) -> None:
    for events in simulate(preset, 3, 8, 21):
        header = events[0]
        assert isinstance(header, Game)
        for seat in header.players:
            (report,) = replay_events(seat_view(events, seat))
            assert report.violation is None, report.violation
            assert "the other players' hands and draws (shown as counts)" in report.unchecked
            assert report.winner == replay_events(events)[0].winner


def test_the_view_hides_exactly_the_other_hands_and_draws() -> None:
    events = next(simulate("classic", 3, 1, 4))
    view = seat_view(events, "p2")
    deal = view[1]
    assert isinstance(deal, Deal) and deal.stock is None
    assert isinstance(deal.hands["p1"], HandCount) and deal.hands["p1"].count == 5
    full = events[1]
    assert isinstance(full, Deal)
    assert deal.hands["p2"] == full.hands["p2"]
    for ev in view:
        if isinstance(ev, Draw):
            assert (ev.cards is None) == (ev.player != "p2")


def _view_with_a_draw_by_the_seat() -> tuple[list[Event], int]:
    for seed in range(50):
        events = next(simulate("classic", 3, 1, seed))
        view = seat_view(events, "p1")
        for i, ev in enumerate(view):
            if isinstance(ev, Draw) and ev.player == "p1" and ev.cards:
                return view, i
    raise AssertionError("no draw by p1")


def test_a_view_that_contradicts_itself_is_caught() -> None:
    view, _ = _view_with_a_draw_by_the_seat()
    deal = view[1]
    assert isinstance(deal, Deal)
    mine = deal.hands["p1"]
    assert isinstance(mine, list)
    # another player plays a card the seat holds: impossible, whatever was hidden
    i = next(k for k, ev in enumerate(view) if isinstance(ev, Play) and ev.player != "p1")
    ev = view[i]
    assert isinstance(ev, Play)
    held = next(c for c in mine if c not in ev.cards)
    bad = [*view[:i], msgspec.structs.replace(ev, cards=[held]), *view[i + 1 :]]
    (report,) = replay_events(bad)
    assert report.violation is not None
    assert report.violation.event_index <= i  # type: ignore[operator]
    if report.violation.event_index == i:
        assert report.violation.code in ("card_not_in_hand", "card_does_not_match")


def test_compare_finds_the_first_disagreement() -> None:
    events = next(simulate("classic", 3, 1, 9))
    view = seat_view(events, "p3")
    assert compare(events, view, "p3") is None
    i = next(k for k, ev in enumerate(view) if isinstance(ev, Draw) and ev.player != "p3")
    ev = view[i]
    assert isinstance(ev, Draw) and ev.count is not None
    lied = [*view[:i], msgspec.structs.replace(ev, count=ev.count + 1), *view[i + 1 :]]
    diff = compare(events, lied, "p3")
    assert diff is not None and diff.index == i
    assert diff.server is not None and diff.seat is not None
    assert (diff.server["count"], diff.seat["count"]) == (ev.count, ev.count + 1)
    shorter = compare(events, view[:-1], "p3")
    assert shorter is not None and shorter.index == len(view) - 1 and shorter.seat is None


def write(path: Path, events: list[Event]) -> None:
    path.write_bytes(b"".join(encode_event(ev) + b"\n" for ev in events))


def test_compare_command(tmp_path: Path) -> None:
    events = next(simulate("standard", 2, 1, 3))
    write(tmp_path / "server.jsonl", events)
    view = seat_view(events, "p1")
    write(tmp_path / "seat.jsonl", view)
    res = runner.invoke(app, ["compare", str(tmp_path / "server.jsonl"),
                              str(tmp_path / "seat.jsonl"), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games"][0]["agree"] is True
    i = next(k for k, ev in enumerate(view) if isinstance(ev, Play))
    ev = view[i]
    assert isinstance(ev, Play)
    write(tmp_path / "seat.jsonl", [*view[:i], msgspec.structs.replace(ev, player="p9"),
                                    *view[i + 1 :]])  # fmt: skip
    res = runner.invoke(app, ["compare", str(tmp_path / "server.jsonl"),
                              str(tmp_path / "seat.jsonl"), "--json"])  # fmt: skip
    assert res.exit_code == 1
    row = json.loads(res.stdout)["games"][0]
    assert (row["agree"], row["event_index"], row["seat_line"]) == (False, i, i + 1)
    res = runner.invoke(
        app, ["compare", str(tmp_path / "nope.jsonl"), str(tmp_path / "seat.jsonl")]
    )
    assert res.exit_code == 2


def test_a_seat_log_may_leave_out_the_reshuffle_count() -> None:
    # FORMAT.md: `reshuffle` has optional `stock` and `count`; a seat that did not see the
    # new stock may log neither, and that is no disagreement with the server
    for seed in range(60):
        events = next(simulate("classic", 2, 1, seed))
        view = seat_view(events, "p1")
        i = next((k for k, ev in enumerate(view) if isinstance(ev, Reshuffle)), None)
        if i is None:
            continue
        bare = [*view[:i], Reshuffle(), *view[i + 1 :]]
        assert compare(events, bare, "p1") is None
        (report,) = replay_events(bare)
        assert report.violation is None
        return
    raise AssertionError("no simulated game with a reshuffle")
