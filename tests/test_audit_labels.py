"""The fresh tester's findings left from issue 15 (session 4), each with the value it must
give now: audit names never broken at 80 columns, ruleset variants that do not read like
their preset, one format for counts, CSV safe for a terminal and a spreadsheet, one range
for ``--at``."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.audit import audit
from maumau_log.audit.findings import Finding
from maumau_log.audit.stat_tests import _chi_finding
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.cli.frames import csv_text
from maumau_log.cli.tables import BOARD_COLUMNS, cell
from maumau_log.events import encode_event
from maumau_log.rules import resolve, variant_label
from maumau_log.run.ingest import ingest
from maumau_log.store.rows import options_json

runner = CliRunner()
SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "violations"
VARIANT = {"hand_size": 6}


@pytest.fixture(scope="module")
def two_variants(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """classic as preset (4 players) and classic with hand_size 6 (3 players), 120 each."""
    tmp = tmp_path_factory.mktemp("variants")
    log = tmp / "games.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 4, 120, seed=61), fh)
        write_games(simulate("classic", 3, 120, seed=62, options=VARIANT), fh)
    ds = tmp / "ds"
    ingest([log], ds, jobs=1)
    return ds


# 1. audit at 80 columns: check names, ids and ruleset labels whole on one line


def test_audit_at_80_columns_never_breaks_a_check_name(two_variants: Path) -> None:
    report = audit(two_variants)
    res = runner.invoke(app, ["audit", str(two_variants)], env={"COLUMNS": "80"})
    assert res.exit_code in (0, 1), res.output
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    names = {f"{f.section}: {f.check}" for f in report.findings if not f.skipped}
    assert "deal: power_by_dealer_position:reverse" in names  # the longest, 38 characters
    for name in names:
        assert any(name in line for line in lines), name
    # each tested row's numbers whole on the check's line: 120 games, p, Holm p
    rows = [line for line in lines if re.match(r"^  deal: power_by_seat:draw ", line)]
    assert len(rows) == 2 and all(re.search(r" 120 +\S+ +\S+\s*$", r) for r in rows), rows
    for subject in ("classic/4p", "classic (hand_size=6)/3p"):
        assert any(line.strip() == subject for line in lines), subject
    # the small tables: one per ruleset and table size, the label whole in the title
    titles = [" ".join(line.split()) for line in lines if "Wins by seat" in line]
    assert titles[0] == "Wins by seat (95% Wilson interval): classic, 4 players"
    assert "#" not in res.stdout and "…" not in res.stdout


# 2. variants named by what they change


def test_variant_label_names_the_changed_options() -> None:
    def label(**opts: object) -> str:
        return variant_label("classic", options_json(resolve("classic", opts)))

    assert label() == "classic"
    assert label(hand_size=5) == "classic"  # classic deals five anyway (PRESETS.md)
    assert label(hand_size=6) == "classic (hand_size=6)"
    assert label(hand_size=6, call_penalty=3) == "classic (call_penalty=3, hand_size=6)"
    many = {"hand_size": 6, "call_penalty": 3, "draw": {"7": 3}, "max_draws": 3, "wild": ["Q"]}
    digest = hashlib.sha256(options_json(resolve("classic", many)).encode()).hexdigest()[:6]
    # 'call_penalty=3, draw={7:3}, hand_size=6' is 39 characters, with max_draws 52 > 48
    assert label(**many) == (
        f"classic (call_penalty=3, draw={{7:3}}, hand_size=6, +2 more; variant {digest})"
    )


def test_audit_subjects_say_which_variant(two_variants: Path, tmp_path: Path) -> None:
    subjects = {f.subject for f in audit(two_variants).findings}
    assert {"classic", "classic/4p", "classic (hand_size=6)", "classic (hand_size=6)/3p"} <= (
        subjects
    )
    assert not any("#" in s for s in subjects)
    # a dataset of the variant alone: still named as the variant, not as the preset
    log = tmp_path / "v.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 3, 60, seed=63, options=VARIANT), fh)
    ingest([log], tmp_path / "ds", jobs=1)
    alone = {f.subject for f in audit(tmp_path / "ds").findings}
    assert "classic (hand_size=6)/3p" in alone and "classic/3p" not in alone


# 3. counts: one format, a comma between thousands


def test_largest_gap_and_counts_are_unambiguous() -> None:
    f = Finding("seats", "wins_by_seat", "classic/2p", "")
    _chi_finding(f, ["seat 0", "seat 1"], [9341, 8659], [9000.0, 9000.0], 1)
    # chi2 = 2 * 341^2 / 9000 = 25.84; both gaps are 341 / 9000: the first is named
    assert f.summary == "chi2 = 25.84 (df 1); largest gap: seat 0: 9,341 vs 9,000.0 expected"
    games = next(c for c in BOARD_COLUMNS if c.key == "games")
    assert cell(games, {"games": 9341}) == "9,341"


def test_ingest_and_simulate_counts(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    res = runner.invoke(
        app, ["simulate", "--out", str(log), "--ruleset", "classic", "--games", "1", "--seed", "2"]
    )
    n = len(log.read_bytes().splitlines())
    assert f"wrote 1 game, {n:,} events to {log}" in " ".join(res.output.split())
    res = runner.invoke(
        app,
        ["simulate", "--out", str(log), "--ruleset", "classic", "--games", "30", "--seed", "2"],
    )
    n = len(log.read_bytes().splitlines())
    assert n >= 1000  # 30 four-player games hold well over a thousand events
    assert f"wrote 30 games, {n:,} events" in res.output
    res = runner.invoke(app, ["ingest", str(log), "--out", str(tmp_path / "ds")])
    assert f"({n:,} events in " in " ".join(res.output.split())


# 4. CSV safe for a terminal and a spreadsheet

HOSTILE = {
    "p1": "\x1b[31mred",
    "p2": '=HYPERLINK("http://x","y")',
    "p3": "+1",
    "p4": "tab\there",
}
WRITTEN = {
    "\\u001b[31mred",
    '\'=HYPERLINK("http://x","y")',
    "'+1",
    "tab\\u0009here",
}


def test_csv_text_by_hand() -> None:
    assert csv_text("\x1b[31mred") == "\\u001b[31mred"
    assert csv_text("=1+1") == "'=1+1"
    assert csv_text("-2") == "'-2" and csv_text("@SUM(A1)") == "'@SUM(A1)"
    assert csv_text("line\nbreak\r") == "line\\u000abreak\\u000d"
    assert csv_text("\x9b2J") == "\\u009b2J"  # C1 CSI
    assert csv_text("\u202eevil") == "\\u202eevil"  # bidi override
    assert csv_text("\t=1") == "\\u0009=1"  # starts with a backslash now: no formula
    assert csv_text("ana-maria") == "ana-maria" and csv_text("Zoë") == "Zoë"


def test_stats_and_query_csv_escape_hostile_names(tmp_path: Path) -> None:
    log = tmp_path / "h.jsonl"
    with open(log, "wb") as fh:
        for game in simulate("classic", 4, 5, 17):
            for ev in game:
                line = encode_event(ev)
                for old, new in HOSTILE.items():
                    line = line.replace(f'"{old}"'.encode(), json.dumps(new).encode())
                fh.write(line + b"\n")
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 0
    res = runner.invoke(app, ["stats", str(ds), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.stdout and "\t" not in res.stdout
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert {r["player"] for r in rows} == WRITTEN
    assert all(r["games"] == "5" for r in rows)  # numbers stay numbers
    res = runner.invoke(
        app, ["query", str(ds), "select distinct player from results order by player", "--format",
              "csv"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert {r["player"] for r in csv.DictReader(io.StringIO(res.stdout))} == WRITTEN
    # JSON keeps the names exactly
    res = runner.invoke(app, ["stats", str(ds), "--format", "json"])
    assert {r["player"] for r in json.loads(res.stdout)} == set(HOSTILE.values())


# 5. --at: one range, stated the same by every message


def _wrong_player(tmp_path: Path) -> tuple[Path, Path]:
    log = SAMPLE / "wrong_player.jsonl"  # 14 lines: events 0..13, p2 plays out of turn at 12
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 1
    return log, ds


def _said(res: object) -> str:
    return " ".join(res.output.split())  # type: ignore[attr-defined]


@pytest.mark.parametrize("at, ok", [(-1, False), (0, True), (12, True), (13, False)])
def test_game_at_range(tmp_path: Path, at: int, ok: bool) -> None:
    _, ds = _wrong_player(tmp_path)
    res = runner.invoke(app, ["game", str(ds), "sample-wrong_player", "--at", str(at)])
    if ok:
        assert res.exit_code == 0, res.output
    else:
        assert res.exit_code == 2
        assert f"--at takes 0..12, not {at} (events 0..11 replayed; event 12 is where" in _said(res)


@pytest.mark.parametrize("at, code", [(-1, 2), (0, 0), (12, 0), (13, 2)])
def test_try_at_range(tmp_path: Path, at: int, code: int) -> None:
    log, ds = _wrong_player(tmp_path)
    for source in (log, ds):
        res = runner.invoke(
            app, ["game", str(source), "sample-wrong_player", "--at", str(at), "--try", "p2 draws"]
        )
        said = _said(res)
        if code == 2:
            assert res.exit_code == 2
            assert f"--at takes 0..12, not {at}" in said
        else:
            assert res.exit_code in (0, 1), res.output
            assert ("instead of event 12:" if at == 12 else f"after event {at}:") in said


@pytest.mark.parametrize("at, ok", [(-1, False), (0, True), (13, True), (14, False)])
def test_view_at_range(tmp_path: Path, at: int, ok: bool) -> None:
    res = runner.invoke(
        app,
        ["view", str(SAMPLE / "wrong_player.jsonl"), "sample-wrong_player", "--at", str(at),
         "--out", str(tmp_path / "v.html")],
    )  # fmt: skip
    if ok:
        assert res.exit_code == 0, res.output
    else:
        assert res.exit_code == 2
        assert f"--at takes 0..13, not {at}" in _said(res)


def test_valid_game_at_range(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("classic", 2, 1, seed=5), fh)
    last = len(log.read_bytes().splitlines()) - 1
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 0
    gid = json.loads(log.read_bytes().splitlines()[0])["game_id"]
    for source in (ds, log):
        for at, code in ((last, (0, 1)), (last + 1, (2,)), (-1, (2,))):
            args = ["game", str(source), gid, "--at", str(at), "--try", "p1 draws"]
            res = runner.invoke(app, args)
            assert res.exit_code in code, res.output
            if code == (2,):
                assert f"--at takes 0..{last}, not {at}" in _said(res)
    for at, code in ((last, 0), (last + 1, 2), (-1, 2)):
        res = runner.invoke(app, ["game", str(ds), gid, "--at", str(at)])
        assert res.exit_code == code, res.output
        if code == 2:
            assert f"--at takes 0..{last}, not {at}" in _said(res)
