"""Integer columns wide enough for every value a log can give (dataset version 2,
:data:`maumau_log.store.layout.COLUMNS`); one game too large for a column never loses the
games around it.

Each log holds the odd game between g2 (valid) and g3 (invalid at event 3) of
:func:`test_records.hand_games`. Before, each of them failed its whole shard (exit 4, 0
games stored, on every re-run): 128 players overflowed ``n_players`` (int8), 40,002
calls ``calls_made`` (int16), a 7 drawing 40,000 ``pending_draw`` (int16), a header of
40,000 players the interned string codes (int16), a partial deal of 40,000 hidden cards
``cards_left`` (int16), a ``round`` of 2^40 ``games.round`` (int32).
"""

from __future__ import annotations

import json
from array import array
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from test_records import hand_games, write_log

from maumau_log.run.ingest import ingest
from maumau_log.store import scan
from maumau_log.store.rows import raw_column
from maumau_log.store.verify import verify

M = 2**31 - 1  # the largest number an option may hold (rules.OPTION_INT_MAX)


def _around(tmp_path: Path, odd: list[dict[str, Any]]) -> Path:
    """Ingest g2, the odd game, g3 (one file, one shard); the dataset."""
    _, g2, g3 = hand_games()
    ds = tmp_path / "ds"
    summary = ingest([write_log(tmp_path / "log.jsonl", [g2, odd, g3])], ds)
    assert (summary.games, summary.added, summary.failed) == (3, 3, [])
    assert set(scan(ds, "games").collect()["game_id"]) == {"g2", odd[0]["game_id"], "g3"}
    report = verify(ds)
    assert report.ok, report.problems
    return ds


def _game(ds: Path, gid: str) -> dict[str, Any]:
    return scan(ds, "games").filter(pl.col("game_id") == gid).collect().row(0, named=True)


def _g1(**header: Any) -> list[dict[str, Any]]:
    g1 = [dict(e) for e in hand_games()[0]]
    g1[0] = {**g1[0], **header}
    return g1


def test_header_with_128_players_is_stored_with_the_games_around_it(tmp_path: Path) -> None:
    players = [f"p{i}" for i in range(128)]
    ds = _around(tmp_path, [_g1(game_id="crowd", players=players, dealer="p127")[0]])
    game = _game(ds, "crowd")
    # no deal follows: the round never finishes (event 1, after the header)
    assert (game["n_players"], game["valid"], game["violation_code"]) == (
        128, False, "round_not_finished"
    )  # fmt: skip
    seats = scan(ds, "results").filter(pl.col("game_id") == "crowd").collect()
    assert seats["seat"].to_list() == list(range(128))
    assert seats["player"].to_list() == players


def test_header_with_40000_players_fits_the_interned_codes(tmp_path: Path) -> None:
    players = [f"p{i}" for i in range(40_000)]
    ds = _around(tmp_path, [_g1(game_id="stadium", players=players, dealer="p0")[0]])
    assert _game(ds, "stadium")["n_players"] == 40_000
    rows = scan(ds, "results").filter(pl.col("game_id") == "stadium").collect()
    assert rows.height == 40_000 and rows["player"][39_999] == "p39999"


def test_valid_game_with_40002_calls_is_stored(tmp_path: Path) -> None:
    g1 = _g1(game_id="long")
    calls = [{"type": "mau", "player": "ana", "call": "mau"}] * 40_000  # no call is due
    long = g1[:2] + calls + g1[2:]
    ds = _around(tmp_path, long)
    game = _game(ds, "long")
    assert (game["valid"], game["events"], game["winner"]) == (True, 23 + 40_000, "ana")
    ana = (
        scan(ds, "results")
        .filter((pl.col("game_id") == "long") & (pl.col("player") == "ana"))
        .collect()
        .row(0, named=True)
    )
    # g1's own two calls (events 8 and 19) and the 40,000
    assert (ana["calls_made"], ana["won"], ana["round_score"]) == (40_002, True, 27)
    assert scan(ds, "events").filter(pl.col("game_id") == "long").collect().height == 40_023


def test_draw_option_beyond_16_bits_is_stored_as_the_pending_draw(tmp_path: Path) -> None:
    ds = _around(tmp_path, _g1(game_id="seven", options={"draw": {"7": 40_000}}))
    pending = (
        scan(ds, "events")
        .filter(pl.col("game_id") == "seven")
        .sort("event_index")
        .collect()["pending_draw"]
        .to_list()
    )
    # ana's 7H (event 2) leaves 40,000 owed; ben then draws 2: wrong_draw_count at event 3
    assert pending == [0, 0, 40_000]
    assert _game(ds, "seven")["violation_code"] == "wrong_draw_count"


def test_partial_deal_of_40000_hidden_cards_keeps_the_shard(tmp_path: Path) -> None:
    header = _g1(game_id="hidden", options={"hand_size": 40_000})[0]
    deal = {"type": "deal", "hands": {"ana": {"count": 40_000}, "ben": {"count": 40_000}},
            "starter": "7H"}  # fmt: skip
    ds = _around(tmp_path, [header, deal])
    game = _game(ds, "hidden")
    assert (game["violation_code"], game["violation_index"]) == ("duplicate_card", 1)
    left = scan(ds, "results").filter(pl.col("game_id") == "hidden").collect()["cards_left"]
    assert left.to_list() == [40_000, 40_000]


def test_header_round_beyond_32_bits_is_a_schema_error_and_stored_as_null(tmp_path: Path) -> None:
    ds = _around(tmp_path, _g1(game_id="far", match_id="m", round=2**40))
    game = _game(ds, "far")
    assert (game["match_id"], game["round"]) == ("m", None)
    assert (game["violation_code"], game["violation_index"]) == ("schema_error", 0)


def test_round_score_beyond_64_bits_makes_that_game_invalid(tmp_path: Path) -> None:
    """ben wins g2 on a wild Jack; with every card of ana's last hand (AC 9H 10H KH AH)
    worth 2,147,483,647 points and the wild finish multiplying by as much, ben's round
    score is 5 * (2^31 - 1)^2 = 23,058,430,070,662,103,045 (winner_collects): beyond 64
    bits. The game is stored invalid from its round_end (event 17); the others as usual."""
    _, g2, _ = hand_games()
    huge = [dict(e) for e in g2]
    points = dict.fromkeys(("A", "K", "10", "9"), M)
    huge[0] = {**huge[0], "game_id": "huge",
               "options": {"points": points, "wild_finish_multiplier": M}}  # fmt: skip
    huge[-1] = {"type": "round_end", "winner": "ben"}  # no claimed scores
    _, _, g3 = hand_games()
    g1 = _g1()
    ds = tmp_path / "ds"
    summary = ingest([write_log(tmp_path / "log.jsonl", [g1, huge, g3])], ds)
    assert (summary.games, summary.added, summary.invalid, summary.failed) == (3, 3, 2, [])
    assert 5 * M * M == 23_058_430_070_662_103_045 > 2**63
    game = _game(ds, "huge")
    assert (game["valid"], game["violation_code"], game["violation_index"]) == (
        False, "schema_error", 17
    )  # fmt: skip
    (v,) = scan(ds, "violations").filter(pl.col("game_id") == "huge").collect().to_dicts()
    assert v["line"] == 23 + 18  # g1's 23 lines, then g2's event 17
    assert v["message"] == (
        "ben's round score 23058430070662103045 does not fit the dataset's 64-bit column; "
        "the game is stored as invalid from this event"
    )
    assert json.loads(v["raw"]) == {"type": "round_end", "winner": "ben"}
    rows = scan(ds, "results").filter(pl.col("game_id") == "huge").collect()
    assert rows["round_score"].to_list() == [None, None] and not rows["won"].any()
    assert scan(ds, "events").filter(pl.col("game_id") == "huge").collect().height == 17
    assert _game(ds, "g1")["valid"] and verify(ds).ok


def test_raw_lines_beyond_one_string_array_are_split() -> None:
    """A shard of long lines (a line may hold 64 MiB) passes 2 GiB of ``raw``: the column
    is cut into arrays whose 32-bit offsets do not wrap (here cut at 5 bytes)."""
    raws = [b"ab", b"cde", b"", b"fghi", b"j"]
    col = raw_column(raws, array("i", map(len, raws)), chunk=5)
    assert [c.to_pylist() for c in col.chunks] == [["ab", "cde", ""], ["fghi", "j"]]
    whole = raw_column(raws, array("i", map(len, raws)))
    assert whole.num_chunks == 1 and whole.to_pylist() == ["ab", "cde", "", "fghi", "j"]


@pytest.mark.parametrize("line", [2**31 + 5])
def test_line_numbers_beyond_32_bits_are_stored(tmp_path: Path, line: int) -> None:
    """A file may hold more than 2^31 lines (blank ones are skipped): the line columns
    are 64-bit. The collector is fed one game reported at such a line."""
    from maumau_log.replay.driver import Replayer
    from maumau_log.store.collector import RecordCollector

    log = write_log(tmp_path / "g.jsonl", [hand_games()[2]])
    collector = RecordCollector()
    replayer = Replayer(visitors=[collector])
    lines = [(line + k, raw) for k, raw in enumerate(log.read_bytes().splitlines())]
    reports = list(replayer.replay_lines(str(log), iter(lines)))
    assert [r.line for r in reports] == [line]
    (tables,) = collector.tables().values()
    assert tables["games"].column("source_line").to_pylist() == [line]
    assert tables["events"].column("line").to_pylist() == [line, line + 1, line + 2]
    assert tables["violations"].column("line").to_pylist() == [line + 3]
