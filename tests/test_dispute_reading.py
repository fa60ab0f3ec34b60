"""What a person reads in the dispute tools: where the viewer opens, ``game`` on a log or
``.mm`` file, one way to number events (FORMAT.md: the header is event 0), who acts next
while a suit is owed, and the OpenSpiel importer's card notation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # (registers game, view)
import maumau_log.cli.dispute_cmds  # noqa: F401
from maumau_log.cli import app
from maumau_log.disputes.viewer import read_page_data
from maumau_log.openspiel.convert import history_to_events
from maumau_log.openspiel.errors import OpenSpielImportError
from maumau_log.openspiel.params import GameParams

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
WRONG_PLAYER = SAMPLES / "violations" / "wrong_player.jsonl"
MISSED_MAU = SAMPLES / "disputes" / "classic_missed_mau.mm"


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_view_opens_at_the_first_violation(tmp_path: Path) -> None:
    # sample-wrong_player: p2 plays out of turn at event 12 (14 lines: events 0 to 13)
    page = tmp_path / "w.html"
    r = runner.invoke(app, ["view", str(WRONG_PLAYER), "sample-wrong_player", "--out", str(page)])
    assert r.exit_code == 0, r.output
    assert read_page_data(page.read_text())["start"] == 12
    assert _flat(r.output) == (
        f"wrote {page}: game sample-wrong_player, events 0 to 13, wrong_player at event 12"
    )


def test_view_of_a_valid_game_opens_at_the_header(tmp_path: Path) -> None:
    page = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(MISSED_MAU), "club-2024-044", "--out", str(page)])
    assert r.exit_code == 0, r.output
    assert read_page_data(page.read_text())["start"] is None  # the page's first event: 0


def test_view_at_out_of_range_explains_why_game_takes_one_less(tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        ["view", str(WRONG_PLAYER), "sample-wrong_player", "--at", "99", "--out",
         str(tmp_path / "w.html")],
    )  # fmt: skip
    assert r.exit_code == 2
    assert _flat(r.output) == (
        "error: game 'sample-wrong_player': --at takes 0..13, not 99 (the page shows the "
        "game's lines up to its last, event 13; the replay stopped at event 12 "
        "(wrong_player), so game --at takes 0..12)"
    )
    r = runner.invoke(app, ["game", str(WRONG_PLAYER), "sample-wrong_player", "--at", "99"])
    assert r.exit_code == 2
    assert _flat(r.output).startswith("error: game 'sample-wrong_player': --at takes 0..12, not 99")


def test_game_reads_a_log_file_and_numbers_events_from_the_header() -> None:
    r = runner.invoke(app, ["game", str(WRONG_PLAYER), "sample-wrong_player", "--at", "11"])
    assert r.exit_code == 0, r.output
    lines = [ln.strip("│ ") for ln in r.output.splitlines()]
    assert "events         0 to 13" in lines
    assert "╭─ State after event 11 of 0 to 13 (line 12): draw by p2 JS 10S (effect) ─╮" in (
        r.output.splitlines()
    )


def test_game_reads_a_notation_file_as_json() -> None:
    r = runner.invoke(app, ["game", str(MISSED_MAU), "club-2024-044", "--at", "12", "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["at"] == 12
    assert doc["game"]["events"] == 30
    assert doc["state"]["awaiting_suit"] == "ben"


def test_game_file_without_the_game_names_the_file() -> None:
    r = runner.invoke(app, ["game", str(MISSED_MAU), "nosuch"])
    assert r.exit_code == 2
    assert _flat(r.output) == f"error: no game 'nosuch' in {MISSED_MAU}"


def test_game_under_an_owed_suit_marks_the_player_who_names_it() -> None:
    # event 12: ben plays JC (a wild card in classic) and owes the suit; cleo plays after
    r = runner.invoke(app, ["game", str(MISSED_MAU), "club-2024-044", "--at", "12"])
    assert r.exit_code == 0, r.output
    rows = [_flat(ln.strip("│ ")) for ln in r.output.splitlines()]
    assert "turn ben names a suit first, then it is cleo's turn" in rows
    assert "awaiting suit ben" in rows
    marked = [row for row in rows if "▶" in row]
    assert marked == ["1 │ ▶ ben │ 1 │ AS │ -"]


def test_game_header_without_a_ruleset_shows_a_dash() -> None:
    r = runner.invoke(
        app,
        ["game", str(SAMPLES / "violations" / "missing_header.jsonl"),
         "?" + str(SAMPLES / "violations" / "missing_header.jsonl") + ":1"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "ruleset        unknown (header: -)" in r.output
    assert "None" not in r.output


def _history() -> list[int]:
    text = (SAMPLES / "openspiel" / "histories.openspiel.txt").read_text().splitlines()[0]
    history: list[int] = json.loads(text)["history"]
    return history


def test_openspiel_rejection_names_cards_in_the_log_codes() -> None:
    # action 16 of the first sample history: player 1 facing 10C plays 5S (card id 15)
    with pytest.raises(OpenSpielImportError) as caught:
        history_to_events(GameParams(players=2), [*_history()[:16], 15], partial=True)
    assert str(caught.value) == (
        "<input>, action 16: player 1's action 15 (Play 5S) is not legal: 5S matches "
        "neither the suit C nor the rank of 10C; legal: Play 3C, Play 4C, Play JC, "
        "Play AC, Draw"
    )


def test_openspiel_rejection_of_a_card_not_held_names_the_player() -> None:
    with pytest.raises(OpenSpielImportError) as caught:
        history_to_events(GameParams(players=2), [*_history()[:17], 51], partial=True)
    assert "player 0 does not hold AS" in str(caught.value)
    assert "SA" not in str(caught.value)
