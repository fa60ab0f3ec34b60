"""Impossible counts are located violations of their game, never a crash.

A draw of no cards (``"count": 0`` or ``"cards": []``) is no draw: ``wrong_draw_count``
(FORMAT.md Events (draw); PRESETS.md ruling 16: a draw the rules do not allow), wherever
it stands: an ordinary draw, a served draw, a ``draw_previous`` draw, and the Serbian cover
draw (``cover_draw = "until_suit"``, PRESETS.md ruling 20), which looked at the last card
drawn and raised IndexError. A hand count in the deal that is not the hand size is
``wrong_draw_count`` before any hidden card is made (a count of 10^15 raised MemoryError,
10^30 OverflowError). Counts of hundreds of digits are echoed shortened. The good games
around such a game are replayed and stored as usual.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gamebuilder import deal, game, play, report
from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # (registers the commands)
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event
from maumau_log.store import scan_all

SERBIAN_HANDS = {
    "a": ["AH", "5C", "6C", "7C", "8C", "9C"],
    "b": ["2D", "3D", "4D", "5D", "6D", "7D"],
}


def serbian_ace() -> list[dict[str, Any]]:
    """A Serbian game where a has just played the Ace of hearts and owes its cover, with
    no heart to cover it: a draws until a heart comes (ruling 20)."""
    return [
        game("serbian", ["a", "b"]),
        deal(SERBIAN_HANDS, "3H", preset="serbian"),
        play("a", "AH"),
    ]


def violation(events: list[dict[str, Any]]) -> tuple[str, int | None, str]:
    v = report(events).violation
    assert v is not None
    return v.code, v.event_index, v.message


@pytest.mark.parametrize(
    "fields", [{"count": 0}, {"cards": []}, {"cards": [], "count": 0}], ids=str
)
def test_a_cover_draw_of_no_cards_is_wrong_draw_count(fields: dict[str, Any]) -> None:
    draw = {"type": "draw", "player": "a", "reason": "cover", **fields}
    assert violation([*serbian_ace(), draw]) == ("wrong_draw_count", 3, "a draws no cards")


def test_a_draw_of_count_0_is_wrong_draw_count_wherever_it_stands() -> None:
    zero = {"count": 0}
    # an ordinary draw (a cannot play on 10C: no club, no 10, no Jack)
    hands = {"a": ["9H", "KD", "7S", "8D", "QH"], "b": ["9S", "10D", "AS", "JD", "8C"]}
    ordinary = [game("standard", ["a", "b"]), deal(hands, "10C")]
    got = violation([*ordinary, {"type": "draw", "player": "a", **zero}])
    assert got == ("wrong_draw_count", 2, "a draws no cards")
    # serving a pending draw (standard: the 7 makes the next player draw two)
    hands = {"a": ["9H", "KC", "7C", "8D", "QH"], "b": ["9S", "10D", "AS", "JD", "8C"]}
    served = [game("standard", ["a", "b"]), deal(hands, "10C"), play("a", "7C")]
    got = violation([*served, {"type": "draw", "player": "b", "reason": "effect", **zero}])
    assert got == ("wrong_draw_count", 3, "b draws no cards")
    # the draw_previous draw (Serbian: the 2 of clubs makes the previous player draw four)
    hands = {**SERBIAN_HANDS, "a": ["2C", "5C", "6C", "7C", "8C", "9C"]}
    prev = [game("serbian", ["a", "b"]), deal(hands, "3C", preset="serbian"), play("a", "2C")]
    got = violation([*prev, {"type": "draw", "player": "b", "reason": "effect", **zero}])
    assert got == ("wrong_draw_count", 3, "b draws no cards")


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (10**15, "1000000000000000"),  # was MemoryError
        (10**30, "100000000000...0000 (31 digits)"),  # was OverflowError
        (6, "6"),
    ],
)
def test_a_hand_count_that_is_not_the_hand_size_is_wrong_draw_count(count: int, shown: str) -> None:
    events = [
        game("standard", ["a", "b"]),
        {"type": "deal", "hands": {"a": ["9H", "KC", "7S", "8D", "QH"], "b": {"count": count}},
         "starter": "10H"},
    ]  # fmt: skip
    assert violation(events) == ("wrong_draw_count", 1, f"b is dealt {shown} cards; 5 are due")


def test_counts_of_hundreds_of_digits_are_echoed_shortened() -> None:
    huge = 10**400 + 7
    draw = {"type": "draw", "player": "a", "reason": "cover", "count": huge}
    code, index, message = violation([*serbian_ace(), draw])
    assert (code, index) == ("draw_not_from_stock_top", 3)
    assert message.startswith(
        "a's cover draw: 100000000000...0007 (401 digits) cards drawn but the stock holds only"
    )
    # a served draw of more than is owed
    hands = {"a": ["9H", "KC", "7C", "8D", "QH"], "b": ["9S", "10D", "AS", "JD", "8C"]}
    events = [game("standard", ["a", "b"]), deal(hands, "10C"), play("a", "7C")]
    got = violation([*events, {"type": "draw", "player": "b", "reason": "effect", "count": huge}])
    assert got == ("wrong_draw_count", 3, "b draws 100000000000...0007 (401 digits) but owes 2")


def _jsonl(games: list[list[bytes]]) -> bytes:
    return b"".join(line + b"\n" for g in games for line in g)


def test_the_games_around_a_cover_draw_of_count_0_are_kept(tmp_path: Path) -> None:
    good = [[encode_event(e) for e in g] for g in simulate("serbian", 2, 2, 5)]
    bad = [json.dumps(e).encode() for e in serbian_ace()]
    bad[0] = bad[0].replace(b'"game_id": "t"', b'"game_id": "bad-cover"')
    bad.append(b'{"type":"draw","player":"a","reason":"cover","count":0}')
    log = tmp_path / "serbian.jsonl"
    log.write_bytes(_jsonl([good[0], bad, good[1]]))
    res = CliRunner().invoke(app, ["validate", "--json", str(log)])
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"]) == (3, 2)
    [v] = doc["violations"]
    assert (v["game_id"], v["code"], v["event_index"], v["line"]) == (
        "bad-cover", "wrong_draw_count", 3, len(good[0]) + 4,
    )  # fmt: skip
    res = CliRunner().invoke(app, ["ingest", str(log), "--out", str(tmp_path / "ds")])
    assert res.exit_code == 1, res.output
    games = scan_all(tmp_path / "ds")["games"].collect()
    assert sorted(games["game_id"].to_list()) == sorted(
        ["bad-cover", "sim-serbian-2p-5-000000", "sim-serbian-2p-5-000001"]
    )
