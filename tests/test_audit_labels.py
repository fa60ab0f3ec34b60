"""The audit's labels: check names never broken at 80 columns, ruleset variants that do not
read like their preset, subjects that say which variant, and unambiguous counts."""

from __future__ import annotations

import hashlib
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
from maumau_log.cli.tables import BOARD_COLUMNS, cell
from maumau_log.rules import resolve, variant_label
from maumau_log.run.ingest import ingest
from maumau_log.store.rows import options_json

runner = CliRunner()
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
