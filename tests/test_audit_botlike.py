"""The audit's bot-likeness test: the statistic by hand, the hook."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from gamebuilder import call, deal, draw, engine_after, game, pass_, play, round_end
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds  # registers the commands
import maumau_log.cli.bots_cmds  # noqa: F401
from maumau_log.audit import audit
from maumau_log.audit.botlike import (
    BotLikeness,
    Sampled,
    agreement_test,
    obvious_move,
    sample_decisions,
    stratum,
)
from maumau_log.bots.review import turn_alternatives
from maumau_log.bots.season import club_pool, season
from maumau_log.bots.sim_bias import write_jsonl
from maumau_log.cli import app
from maumau_log.run.ingest import ingest


def _row(player: str, s: str, matched: bool) -> Sampled:
    return Sampled(player, "g", 1, s, matched)


def test_agreement_test_by_hand() -> None:
    rows = [_row("x", "2/close", m) for m in (True, True, True, False)]
    rows += [_row("y", "2/close", i < 5) for i in range(10)]
    rows += [_row("x", "3/clear", True)]  # nobody else decided there: left out
    n, k, expected, z, p = agreement_test(rows, "x")
    # q = 5/10; E = 4 * 0.5 = 2; var = 4 * 0.25 * (1 + 4/10) = 1.4; z = 1 / sqrt(1.4)
    assert (n, k, expected) == (4, 3, 2.0)
    assert z == pytest.approx(1 / math.sqrt(1.4))
    assert p == pytest.approx(0.19901, abs=1e-5)  # 1 - Phi(0.84515)
    assert agreement_test(rows, "nobody") == (0, 0, 0.0, 0.0, 1.0)


def test_stratum_buckets() -> None:
    assert [stratum(n) for n in (2, 3, 4, 5, 9)] == ["2", "3", "4", "5+", "5+"]


def test_departures_two_strata_by_hand() -> None:
    # x: 6 departures with 2 alternatives left (4 matched), 3 with 3 left (2 matched);
    # the others: 20 with 2 left (10 matched), 10 with 3 left (3 matched)
    rows = [_row("x", "2", i < 4) for i in range(6)] + [_row("x", "3", i < 2) for i in range(3)]
    rows += [_row("y", "2", i < 5) for i in range(10)] + [_row("z", "2", i < 5) for i in range(10)]
    rows += [_row("y", "3", i < 3) for i in range(10)]
    n, k, expected, z, p = agreement_test(rows, "x")
    # E = 6 * 0.5 + 3 * 0.3 = 3.9; var = 6 * .25 * (1 + 6/20) + 3 * .21 * (1 + 3/10)
    #     = 1.95 + 0.819 = 2.769; z = (6 - 3.9) / sqrt(2.769) = 1.26199
    assert (n, k) == (9, 6) and expected == pytest.approx(3.9)
    assert z == pytest.approx(2.1 / math.sqrt(2.769))
    assert p == pytest.approx(0.10348, abs=1e-4)  # 1 - Phi(1.26199)
    # y is compared with x and z (leave-one-out): q_2 = 9/16, q_3 = 2/3
    n, k, expected, _, _ = agreement_test(rows, "y")
    assert (n, k) == (20, 8) and expected == pytest.approx(10 * 9 / 16 + 10 * 2 / 3)


def test_obvious_move_and_a_departure_to_the_best_of_the_rest(tmp_path: Path) -> None:
    """a holds 8H QH on 10H (8 skips in classic): the obvious move is 8H (a sure win: it
    skips b, then QH goes out); a plays QH instead: a departure with two alternatives left
    (QH, draw), and the reference's best of those is QH (matched)."""
    events = [
        game("classic", options={"hand_size": 2}),
        deal({"a": ["8H", "QH"], "b": ["9C", "KC"]}, "10H", top=["7S", "7C", "7D"]),
    ]
    e = engine_after(events)
    acts = turn_alternatives(e, "a")
    assert obvious_move(e, "a", acts).card == "8H"
    log = tmp_path / "g.jsonl"
    full = [*events, play("a", "QH"), call("a", "mau"), draw("b", "7S"), pass_("b"),
            play("a", "8H"), call("a", "mau-mau"), round_end("a")]  # fmt: skip
    log.write_text("".join(json.dumps(ev) + "\n" for ev in full), encoding="utf-8")
    ingest([log], tmp_path / "ds")
    rows, games, counts = sample_decisions(tmp_path / "ds", BotLikeness(rollouts=16, seed=1))
    assert games == {"a": 1, "b": 1}
    assert (counts["a"].decisions, counts["a"].departures, counts["a"].informative) == (2, 1, 1)
    assert [(r.player, r.event_index, r.stratum, r.matched) for r in rows] == [("a", 2, "2", True)]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("botlike")
    pool = club_pool(2, planted="bot", rollouts=2)
    log = write_jsonl(tmp / "s.jsonl", season("classic", pool, 12, seed=3))
    ingest([log], tmp / "ds")
    return tmp / "ds"


def test_the_hook_adds_holm_corrected_findings(dataset: Path) -> None:
    settings = BotLikeness(rollouts=2, decisions=15, seed=1, min_decisions=5)
    rep = audit(dataset, min_games=1, bot_likeness=settings)
    found = [f for f in rep.findings if f.section == "bot_likeness"]
    assert [f.subject for f in found] == ["bot", "c01", "c02"]
    tested = [f for f in found if f.p_value is not None]
    assert tested, [f.skipped for f in found]
    m = len(rep.tested)  # Holm over the whole report: at most m * p, at least p
    for f in tested:
        assert 0 <= f.statistic <= f.n <= 15
        assert f.p_value <= f.p_adjusted <= min(1.0, m * f.p_value) + 1e-12
        assert "Monte Carlo" in f.summary
    again = audit(dataset, min_games=1, bot_likeness=settings)
    assert [f.p_value for f in again.findings if f.section == "bot_likeness"] == [
        f.p_value for f in found
    ]
    assert not [f for f in audit(dataset, min_games=1).findings if f.section == "bot_likeness"]


def test_cli_bot_likeness(dataset: Path) -> None:
    res = CliRunner().invoke(
        app,
        ["audit", str(dataset), "--format", "json", "--min-games", "1", "--bot-likeness",
         "--bot-rollouts", "2", "--bot-decisions", "5"],
    )  # fmt: skip
    assert res.exit_code in (0, 1), res.output
    found = [f for f in json.loads(res.stdout)["findings"] if f["section"] == "bot_likeness"]
    assert len(found) == 3 and all("fewer than 30" in f["skipped"] for f in found)
