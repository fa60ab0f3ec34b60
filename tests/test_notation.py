"""The .mm notation: hand-checked parses, located syntax errors, the
round trip over every sample log and simulated games of every preset, ``convert`` both
ways and ``validate`` reading the notation directly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event
from maumau_log.logs.lines import LogReadError, iter_lines
from maumau_log.logs.notation import NotationError, from_notation, parse_action, to_notation
from maumau_log.replay.driver import Replayer
from maumau_log.rules import PRESET_NAMES

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
DISPUTES = SAMPLES / "disputes"
runner = CliRunner()
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def events_of(text: str) -> list[dict | str]:
    out: list[dict | str] = []
    for _, raw in from_notation(text):
        try:
            out.append(json.loads(raw))
        except ValueError:
            out.append(raw.decode())
    return out


def round_trip(lines: list[bytes]) -> None:
    text = to_notation(lines)
    back = from_notation(text)
    assert len(back) == len(lines), text
    for a, (_, b) in zip(lines, back, strict=True):
        try:
            want = json.loads(a)
        except ValueError:
            want = None
        if isinstance(want, dict):
            assert json.loads(b) == want, (a, b, text)
        else:
            assert b == a


# ---------------------------------------------------------------------------------------
# Hand-checked readings


GAME = """\
game t7-000123            # the FORMAT.md example
ruleset: classic
players: ana ben
dealer: ben
options: {"hand_size": 5}

hand ana 7H JS 9C 10D QD
hand ben ?5
starter 10H
stock KC 8C JD
ana plays 7H @1714591814000
ben draws KC 8C (effect)
ana plays JS
ana names D
ana calls last card
ben pays 2 (missed_call) by ana
ben draws ?1
ben passes
ben jumps 7H {"seq": 9}
reshuffle ?12
end ana scores ana 0 ben 23
match_end - totals ana 10 ben 10
abandon ben (disconnect)
"""


def test_a_transcription_reads_as_the_events_it_says() -> None:
    got = events_of(GAME)
    assert got == [
        {"type": "game", "format": "maumau-log/1", "game_id": "t7-000123",
         "ruleset": "classic", "players": ["ana", "ben"], "dealer": "ben",
         "options": {"hand_size": 5}},
        {"type": "deal", "hands": {"ana": ["7H", "JS", "9C", "10D", "QD"],
                                   "ben": {"count": 5}},
         "starter": "10H", "stock": ["KC", "8C", "JD"]},
        {"type": "play", "player": "ana", "cards": ["7H"], "t": 1714591814000},
        {"type": "draw", "player": "ben", "cards": ["KC", "8C"], "reason": "effect"},
        {"type": "play", "player": "ana", "cards": ["JS"]},
        {"type": "suit", "player": "ana", "suit": "D"},
        {"type": "mau", "player": "ana", "call": "last card"},
        {"type": "penalty", "player": "ben", "count": 2, "reason": "missed_call", "by": "ana"},
        {"type": "draw", "player": "ben", "count": 1},
        {"type": "pass", "player": "ben"},
        {"type": "play", "player": "ben", "cards": ["7H"], "jump_in": True, "seq": 9},
        {"type": "reshuffle", "count": 12},
        {"type": "round_end", "winner": "ana", "scores": {"ana": 0, "ben": 23}},
        {"type": "match_end", "winner": None, "totals": {"ana": 10, "ben": 10}},
        {"type": "abandon", "player": "ben", "reason": "disconnect"},
    ]  # fmt: skip


def test_the_deal_and_its_events_are_placed_at_their_lines() -> None:
    assert [n for n, _ in from_notation(GAME)] == [1, 7, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                                   20, 21, 22, 23]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "event"),
    [
        ("ben plays 7C", {"type": "play", "player": "ben", "cards": ["7C"]}),
        ("ben play 7C 7D", {"type": "play", "player": "ben", "cards": ["7C", "7D"]}),
        ("ben draws", {"type": "draw", "player": "ben"}),
        ("ben draws 2 (effect)", {"type": "draw", "player": "ben", "count": 2, "reason": "effect"}),
        ("ben draws ? ?", {"type": "draw", "player": "ben", "count": 2}),
        ("ben passes", {"type": "pass", "player": "ben"}),
        ("ben names H", {"type": "suit", "player": "ben", "suit": "H"}),
        ("ben suit H", {"type": "suit", "player": "ben", "suit": "H"}),
        ("ben calls mau-mau", {"type": "mau", "player": "ben", "call": "mau-mau"}),
        ("ben jumps in with 7C", {"type": "play", "player": "ben", "cards": ["7C"],
                                  "jump_in": True}),
        ('"ana maria" plays "10"', {"type": "play", "player": "ana maria", "cards": ["10"]}),
        ('"hand" passes', {"type": "pass", "player": "hand"}),
    ],
)  # fmt: skip
def test_short_forms(text: str, event: dict) -> None:
    assert parse_action(text) == event


@pytest.mark.parametrize(
    ("text", "line", "column", "says"),
    [
        ("game g\nruleset: classic\nplayers: a b\nhand a 7H\nstarter 8H\na flies", 6, 3,
         "expected what a did"),
        ("game g\nplayers: a b\na plays", 3, 8, "expected the card(s) a played"),
        ("game g\nplayers: a b\na draws 7H ? (no_play)", 3, 12, "known and unknown"),
        ("game g\nplayers: a b\na pays 2", 3, 9, "needs its reason"),
        ("game g\nplayers: a b\na plays 7H {\"t\": 1,}", 3, 20, "bad JSON object"),
        ("game g\nplayers: a b\na plays 7H (x", 3, 12, "'(' without its ')'"),
        ("game g\nround: two\n", 2, 8, "round is a whole number"),
        ("ruleset: classic", 1, 1, "outside a header"),
        ("game g\nplayers: a b\nstarter 7H", 3, 1, "belongs to a deal"),
        ("game g\nplayers: a b\nhand a 7H\na plays 7H", 3, 1, "need a 'starter CARD' line"),
    ],
)  # fmt: skip
def test_syntax_errors_are_located_and_explained(
    text: str, line: int, column: int, says: str
) -> None:
    with pytest.raises(NotationError) as info:
        from_notation(text)
    assert (info.value.line, info.value.column) == (line, column), info.value
    assert says in info.value.message


# ---------------------------------------------------------------------------------------
# Round trips


def sample_files() -> list[Path]:
    return sorted(
        p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix not in (".md", ".py", ".txt")
    )


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: str(p.relative_to(SAMPLES)))
def test_every_sample_log_round_trips(path: Path) -> None:
    if path.suffix == ".mm":  # a transcription: notation -> JSON -> notation -> same JSON
        if path.name == "bad_notation.mm":
            with pytest.raises(NotationError, match="expected what ben did"):
                from_notation(path.read_text())
            return
        lines = [raw for _, raw in from_notation(path.read_text())]
    else:
        try:
            lines = [raw for _, raw in iter_lines(path)]
        except LogReadError:
            pytest.skip("not readable as text lines (binary or truncated on purpose)")
    assert lines
    round_trip(lines)


@SETTINGS
@given(
    preset=st.sampled_from(list(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_simulated_games_of_every_preset_round_trip(preset: str, players: int, seed: int) -> None:
    lines = [encode_event(ev) for g in simulate(preset, players, 2, seed) for ev in g]
    round_trip(lines)


_text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
_names = st.one_of(
    st.sampled_from(["ana", "hand", "game", "-", "by", "scores", "?", "7", "a:b", "raw",
                     "<script>alert(1)</script>", "x y", '"q"', "(p)", "#c", "@t", ""]),
    _text,
)  # fmt: skip
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)


@SETTINGS
@given(
    data=st.data(),
    kind=st.sampled_from(["game", "deal", "play", "suit", "draw", "pass", "mau", "penalty",
                          "cut", "reshuffle", "round_end", "match_end", "abandon", "other"]),
)  # fmt: skip
def test_odd_events_round_trip(data: st.DataObject, kind: str) -> None:
    """Names with spaces, quotes, keywords; nulls; values of the wrong type; unknown
    fields: whatever a log holds comes back the same."""
    fields = {
        "player": _names,
        "by": _names,
        "cards": st.lists(_names, max_size=3) | _json,
        "count": st.integers(-1, 30) | _json,
        "reason": _names | _json,
        "suit": st.sampled_from(["C", "D", "H", "S"]) | _names,
        "call": _names,
        "winner": st.none() | _names,
        "scores": st.dictionaries(_names, st.integers(-200, 200), max_size=3) | _json,
        "t": st.integers(0, 2**45) | _names,
        "seq": st.integers(0, 99),
        "game_id": _names,
        "players": st.lists(_names, min_size=1, max_size=3),
        "format": st.just("maumau-log/1") | _names,
        "hands": st.dictionaries(_names, st.lists(_names, max_size=2), max_size=3),
        "starter": _names,
        "stock": st.lists(_names, max_size=3),
        "meta": _json,
        "extra": _json,
    }
    chosen = data.draw(st.lists(st.sampled_from(sorted(fields)), unique=True, max_size=6))
    ev: dict = {"type": kind}
    for k in chosen:
        ev[k] = data.draw(fields[k])
    lines = [json.dumps(ev).encode(), json.dumps(ev, ensure_ascii=False).encode()]
    round_trip(lines)


def test_a_line_that_is_not_json_comes_back_as_it_was() -> None:
    lines = [b'{"type":"play","player":"p1","cards":["JD"]', b"[1, 2]", b'  {"x": 1']
    text = to_notation(lines)
    assert text.splitlines()[0] == 'raw {"type":"play","player":"p1","cards":["JD"]'
    round_trip(lines)


# ---------------------------------------------------------------------------------------
# validate and convert


def test_validate_reads_the_sample_disputes() -> None:
    got = {}
    for f in sorted(DISPUTES.glob("*.mm")):
        for rep in Replayer().replay_file(f):
            v = rep.violation
            got[f.name] = (rep.game_id, v.code if v else None, v.event_index if v else None,
                           v.line if v else None)  # fmt: skip
    assert got == {
        "classic_missed_mau.mm": ("club-2024-044", None, None, None),
        "online_seat_view.mm": ("web-88123", "card_does_not_match", 8, 22),
        "standard_seven_on_seven.mm": ("club-2024-031", "missed_penalty", 6, 22),
    }


def test_a_bad_line_is_bad_notation_and_the_other_games_replay(tmp_path: Path) -> None:
    good = (DISPUTES / "classic_missed_mau.mm").read_text()
    bad = good.replace("game club-2024-044", "game broken-1").replace("ben plays KH", "ben flies")
    f = tmp_path / "two.mm"
    f.write_text(bad + "\n" + good)
    line = bad.splitlines().index("ben flies") + 1
    reports = list(Replayer().replay_file(f))
    assert [r.game_id for r in reports] == ["broken-1", "club-2024-044"]
    v = reports[0].violation
    assert v is not None
    assert (v.code, v.line, v.event_index) == ("bad_notation", line, 3)
    assert v.message.startswith("column 5: expected what ben did")
    assert reports[1].valid


def test_a_bad_header_is_reported_at_its_game(tmp_path: Path) -> None:
    f = tmp_path / "h.mm"
    f.write_text("game g1\nround: x\nplayers: a b\nhand a 7H\nstarter 8H\n")
    (rep,) = Replayer().replay_file(f)
    assert rep.game_id == "g1"
    assert rep.violation is not None
    assert (rep.violation.code, rep.violation.line, rep.violation.event_index) == (
        "bad_notation", 1, 0,
    )  # fmt: skip


def test_convert_both_ways(tmp_path: Path) -> None:
    src = SAMPLES / "valid" / "classic_2p_handwritten.jsonl"
    mm = tmp_path / "g.mm"
    back = tmp_path / "g.jsonl"
    r = runner.invoke(app, ["convert", str(src), "--out", str(mm)])
    assert r.exit_code == 0, r.output
    assert mm.read_text().startswith("game t7-000123\nruleset: classic\nplayers: ana ben\n")
    r = runner.invoke(app, ["convert", str(mm), "--out", str(back)])
    assert r.exit_code == 0, r.output
    want = [json.loads(x) for x in src.read_text().splitlines() if x.strip()]
    assert [json.loads(x) for x in back.read_text().splitlines()] == want
    r = runner.invoke(app, ["validate", str(mm)])
    assert r.exit_code == 0, r.output


def test_convert_reports_a_located_syntax_error(tmp_path: Path) -> None:
    mm = tmp_path / "bad.mm"
    mm.write_text("game g\nplayers: a b\nhand a 7H\nstarter 8H\na plays\n")
    out = tmp_path / "x.jsonl"
    r = runner.invoke(app, ["convert", str(mm), "--out", str(out)])
    assert r.exit_code == 2
    assert f"{mm}:5:8: expected the card(s) a played" in " ".join(r.output.split())
    assert not out.exists()


def test_a_partial_transcription_ingests(tmp_path: Path) -> None:
    """Found by ``analyze sample_logs/``: a hand still holding hidden cards has no known
    points (null), where the ingest used to stop with a KeyError."""
    import polars as pl

    from maumau_log.store import scan

    data = tmp_path / "data"
    r = runner.invoke(app, ["ingest", str(DISPUTES / "online_seat_view.mm"), "--out", str(data)])
    assert r.exit_code in (0, 1), r.output
    rows = scan(data, "results").select("player", "cards_left", "points_left").collect()
    got = {p: (c, pts) for p, c, pts in rows.sort("player").iter_rows()}
    # ana: 5H 2S KH KD 9C less 5H, KH, KD = 2S 9C, 2 + 9 points; ben: five unknown cards
    assert got == {"ana": (2, 11), "ben": (5, None)}
    assert isinstance(rows, pl.DataFrame)


def test_validate_reads_notation_in_parallel_too() -> None:
    """A .mm file is one shard, converted as it is read, with --jobs as without."""
    got = {}
    for jobs in ("1", "2"):
        r = runner.invoke(app, ["validate", "--json", "--jobs", jobs, str(DISPUTES)])
        assert r.exit_code == 1, r.output
        doc = json.loads(r.stdout)
        got[jobs] = [(v["game_id"], v["code"], v["event_index"], v["line"])
                     for v in doc["violations"]]  # fmt: skip
        assert doc["games"] == 3
    assert (
        got["1"]
        == got["2"]
        == [
            ("web-88123", "card_does_not_match", 8, 22),
            ("club-2024-031", "missed_penalty", 6, 22),
        ]
    )
