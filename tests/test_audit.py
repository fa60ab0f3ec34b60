"""The audit: known-answer statistics, planted biases, false flags.

Pipeline: simulate (``sim_bias``) -> a .jsonl in tmp_path -> ``records.ingest`` -> ``audit``.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds  # registers the command
import maumau_log.cli.data_cmds
import maumau_log.cli.replay_cmds  # noqa: F401  (the full app, as main() builds it)
from maumau_log.audit import (
    AuditReport,
    Finding,
    audit,
    binom_sum_tail,
    binom_tail,
    chi_square,
    fisher_greater,
    holm,
    report_html,
    wilson,
)
from maumau_log.bots.sim import _Table
from maumau_log.bots.sim_bias import (
    CollusionTable,
    PeekingTable,
    QuitterTable,
    RiggedDealTable,
    add_times,
    simulate_with,
    table,
    write_jsonl,
)
from maumau_log.cli import app
from maumau_log.events import Event, Game, RoundEnd
from maumau_log.run.ingest import ingest

GAMES = 400
"""Games per planted-bias dataset (and per unbiased dataset of the same size)."""


def _dataset(tmp: Path, name: str, games: Iterator[list[Event]]) -> Path:
    log = write_jsonl(tmp / f"{name}.jsonl", games)
    ds = tmp / f"ds-{name}"
    summary = ingest([log], ds)
    assert summary.games > 0
    return ds


def _flagged(report: AuditReport) -> set[tuple[str, str, str]]:
    return {(f.section, f.check, f.subject) for f in report.flags}


def _one(report: AuditReport, section: str, check: str, subject: str) -> Finding:
    (found,) = [
        f
        for f in report.findings
        if f.section == section and f.check == check and f.subject == subject
    ]
    return found


# ---------------------------------------------------------------------------------------
# Known answers


def test_wilson_known_counts() -> None:
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_chi_square_hand_computed() -> None:
    # (10-20)^2/20 + 0 + (30-20)^2/20 = 10, df 2: p = exp(-10/2)
    stat, df, p = chi_square([10, 20, 30], [20, 20, 20])
    assert (stat, df) == (10.0, 2)
    assert p == pytest.approx(math.exp(-5), rel=1e-12)
    stat, df, p = chi_square([10, 20, 30], [20, 20, 20], df=2, scale=0.5)
    assert stat == 5.0 and p == pytest.approx(math.exp(-2.5), rel=1e-12)
    ref = sps.chisquare([10, 20, 30], [20, 20, 20])
    assert p == pytest.approx(math.exp(-2.5)) and ref.pvalue == pytest.approx(math.exp(-5))


def test_binomial_tails_against_scipy_and_by_hand() -> None:
    assert binom_tail(0, 10, 0.2, "less") == pytest.approx(0.8**10)
    assert binom_tail(10, 10, 0.5, "greater") == pytest.approx(0.5**10)
    for k, n, p in ((3, 20, 0.3), (15, 40, 0.25), (0, 7, 0.1)):
        for side in ("less", "greater", "two-sided"):
            assert binom_tail(k, n, p, side) == pytest.approx(
                sps.binomtest(k, n, p, alternative=side).pvalue, rel=1e-9
            )
    assert binom_tail(0, 0, 0.3, "greater") == 1.0


def test_sum_of_binomials_by_enumeration() -> None:
    groups = [(3, 0.2), (4, 0.5)]
    pmf = [0.0] * 8
    for bits in itertools.product((0, 1), repeat=7):
        prob = 1.0
        for i, b in enumerate(bits):
            q = 0.2 if i < 3 else 0.5
            prob *= q if b else 1 - q
        pmf[sum(bits)] += prob
    for k in range(8):
        assert binom_sum_tail(k, groups, "less") == pytest.approx(sum(pmf[: k + 1]))
        assert binom_sum_tail(k, groups, "greater") == pytest.approx(sum(pmf[k:]))
    # one group is the plain binomial
    assert binom_sum_tail(2, [(9, 0.4)], "less") == pytest.approx(sps.binom.cdf(2, 9, 0.4))


def test_fisher_two_proportions_hand_computed() -> None:
    # 3 of 3 against 0 of 3: the 3 successes all in the first row, 1 / C(6, 3)
    assert fisher_greater(3, 3, 0, 3) == pytest.approx(1 / 20)
    assert fisher_greater(2, 10, 30, 40) == pytest.approx(
        sps.fisher_exact([[2, 8], [30, 10]], alternative="greater").pvalue
    )
    assert fisher_greater(0, 0, 3, 5) == 1.0


def test_holm_hand_computed() -> None:
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.04*1, 0.06) = 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


# ---------------------------------------------------------------------------------------
# Planted biases, each against an unbiased dataset of the same size


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit")


@pytest.fixture(scope="module")
def fair(tmp: Path) -> AuditReport:
    games = add_times(simulate_with(_Table, "classic", 4, GAMES, 11), 11)
    return audit(_dataset(tmp, "fair", games))


def test_unbiased_simulation_is_not_flagged(fair: AuditReport) -> None:
    assert fair.games == fair.valid == fair.replayed == GAMES
    assert fair.flags == []
    assert not [f for f in fair.findings if f.skipped]
    assert len(fair.tested) == 41
    # the deal table holds the exact expectation: 400 deals x 5 cards x 4 Jacks / 32 cards
    wild = _one(fair, "deal", "power_by_seat:wild", "classic/4p")
    assert [c["expected"] for c in wild.table] == [250.0] * 4 + [600.0]
    assert sum(c["observed"] for c in wild.table) == GAMES * 4
    assert wild.df == 4
    ranks = _one(fair, "deal", "starter_rank", "classic")
    assert [c["expected"] for c in ranks.table] == [50.0] * 8


def test_rigged_deal_gives_seat_1_more_jacks(tmp: Path) -> None:
    games = simulate_with(RiggedDealTable, "classic", 4, GAMES, 12, fair=False)
    report = audit(_dataset(tmp, "rigged", games))
    wild = _one(report, "deal", "power_by_seat:wild", "classic/4p")
    assert wild.flagged and wild.p_value is not None and wild.p_value < 1e-100
    seat1 = wild.table[1]
    assert seat1["cell"] == "seat 1" and seat1["observed"] > 3 * seat1["expected"]
    assert wild.evidence["games"]
    # seat 1 wins more than the turn order predicts
    assert _one(report, "seats", "wins_by_seat", "classic/4p").flagged


@pytest.fixture(scope="module")
def collusion(tmp: Path) -> Path:
    return _dataset(tmp, "collusion", simulate_with(CollusionTable, "classic", 4, GAMES, 13))


@pytest.fixture(scope="module")
def small(tmp: Path) -> Path:
    games = simulate_with(RiggedDealTable, "classic", 4, 40, 18, fair=False)
    return _dataset(tmp, "small", games)


def test_colluding_pair_never_catch_each_other(collusion: Path) -> None:
    report = audit(collusion)
    flagged = {f.subject for f in report.flags if f.section == "catches"}
    assert flagged == {"p1 <- p2", "p2 <- p1"}
    f = _one(report, "catches", "never_caught", "p1 <- p2")
    assert f.statistic == 0 and f.n > 50 and f.expected is not None and f.expected > 15
    assert f.p_value is not None and f.p_value < 1e-8
    assert f.evidence["events"] and f.evidence["games"]
    assert {s[0] for s in _flagged(report)} == {"catches"}


def test_bot_that_sees_the_stock(tmp: Path) -> None:
    games = simulate_with(PeekingTable, "classic", 4, GAMES, 14)
    report = audit(_dataset(tmp, "peek", games))
    f = _one(report, "draws", "drawn_playable", "p3")
    assert f.flagged and f.p_value is not None and f.p_value < 1e-50
    assert f.statistic is not None and f.expected is not None and f.statistic > 1.5 * f.expected
    assert not [g for g in report.flags if g.section == "draws" and g.subject != "p3"]
    rates = {r["player"]: r["drawn_playable_rate"] for r in report.tables["players"]}
    assert rates["p3"] > 0.6 > 0.45 > max(rates[p] for p in ("p1", "p2", "p4"))


def test_inhumanly_fast_player(tmp: Path) -> None:
    games = add_times(simulate_with(_Table, "classic", 4, GAMES, 15), 15, bots={"p4"})
    report = audit(_dataset(tmp, "fast", games))
    assert _flagged(report) == {("timing", "fast_decisions", "p4")}
    row = {r["player"]: r for r in report.tables["players"]}["p4"]
    assert row["median_decision_ms"] < 300


def test_player_who_abandons_when_behind(tmp: Path) -> None:
    games = simulate_with(QuitterTable, "classic", 4, GAMES, 16)
    report = audit(_dataset(tmp, "quit", games), min_games=50)
    assert ("abandon", "abandons_when_behind", "p1") in _flagged(report)
    assert not [f for f in report.flags if f.section == "abandon" and f.subject != "p1"]


def test_rig_strength_and_seat_are_parameters(tmp: Path) -> None:
    make = table(RiggedDealTable, seat=2, strength=1.0)
    games = simulate_with(make, "classic", 3, 60, 17, fair=False)
    report = audit(_dataset(tmp, "rig2", games), min_games=30)
    wild = _one(report, "deal", "power_by_seat:wild", "classic/3p")
    assert wild.flagged and wild.table[2]["observed"] > 200  # nearly all 4 Jacks, 60 deals


# ---------------------------------------------------------------------------------------
# False flags: Holm keeps the chance that a fair report flags anything at alpha


def test_false_flag_rate_on_unbiased_seeds(tmp: Path) -> None:
    k, alpha = 12, 0.05
    flagged = 0
    raw_low = tests = 0
    for seed in range(100, 100 + k):
        report = audit(_dataset(tmp, f"null{seed}", simulate_with(_Table, "classic", 4, 250, seed)))
        flagged += bool(report.flags)
        tests += len(report.tested)
        raw_low += sum(1 for f in report.tested if f.p_value is not None and f.p_value <= alpha)
    # flagged reports ~ Binomial(12, <= 0.05): P(>= 3) = 0.02
    assert flagged <= 2
    # the raw p-values are calibrated or conservative: about alpha of them fall under it
    assert raw_low / tests <= 2 * alpha


# ---------------------------------------------------------------------------------------
# Small samples, invalid games, the command


def test_no_test_below_min_games(small: Path) -> None:
    report = audit(small)  # default minimum 50 games: a rigged deal, but too few games
    assert report.tested == [] and report.flags == []
    assert all("fewer than the minimum 50" in (f.skipped or "") for f in report.findings)
    with pytest.raises(ValueError):
        audit(small, alpha=1.5)


def _client_games() -> Iterator[list[Event]]:
    """120 games from client "good" and 120 from "buggy", whose every third game lacks its
    round_end (round_not_finished)."""
    for i, events in enumerate(simulate_with(_Table, "classic", 3, 240, 19)):
        header = events[0]
        assert isinstance(header, Game)
        client = "buggy" if i % 2 else "good"
        events = [msgspec.structs.replace(header, meta={"client": client}), *events[1:]]
        if client == "buggy" and i % 3 == 0:
            assert isinstance(events[-1], RoundEnd)
            events = events[:-1]
        yield events


def test_invalid_games_by_client_and_code(tmp: Path) -> None:
    report = audit(_dataset(tmp, "clients", _client_games()))
    assert report.games == 240 and report.valid == 200
    assert report.tables["invalid_by_code"] == [
        {"violation_code": "round_not_finished", "games": 40}
    ]
    by_client = {r["client"]: r for r in report.tables["invalid_by_client"]}
    assert (by_client["buggy"]["invalid"], by_client["good"]["invalid"]) == (40, 0)
    f = _one(report, "invalid", "invalid_by_client", "buggy")
    assert f.flagged and len(f.evidence["games"]) == 20
    # Fisher: all 40 invalid games fell to buggy's 120 of 240 games: C(120,40) / C(240,40)
    assert f.p_value == pytest.approx(math.comb(120, 40) / math.comb(240, 40), rel=1e-9)
    assert not _one(report, "invalid", "invalid_by_client", "good").flagged


def test_cli_formats_and_exit_codes(tmp: Path, fair: AuditReport, collusion: Path) -> None:
    runner = CliRunner()
    ds = tmp / "ds-fair"
    result = runner.invoke(app, ["audit", str(ds), "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["games"] == GAMES and doc["flags"] == 0 and doc["correction"] == "holm"
    assert doc["tests"] == len(doc["findings"]) == 41
    page = tmp / "fair.html"
    result = runner.invoke(app, ["audit", str(ds), "--format", "html", "--out", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Plotly.newPlot" in text
    assert "<script src=" not in text and len(text) > 1_000_000  # plotly.js is embedded
    result = runner.invoke(app, ["audit", str(collusion), "--alpha", "0.01"])
    assert result.exit_code == 1 and "never_caught" in result.stdout
    for args, text in [
        (["audit", str(tmp / "missing")], "no such dataset (the folder does not exist)"),
        (["audit", str(ds), "--format", "xml"], "must be one of table, json, html"),
        (["audit", str(ds), "--out", str(page)], "--out is for --format json or html"),
    ]:
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert text in res.output and "Traceback" not in res.output


def test_html_without_tests_still_renders(small: Path) -> None:
    report = audit(small)
    assert "Nothing flagged" in report_html(report)
