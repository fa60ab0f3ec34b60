"""The audit's bot-likeness test (issue 14, item 4): the statistic by hand, the hook."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds  # registers the commands
import maumau_log.cli.bots_cmds  # noqa: F401
from maumau_log.audit import audit
from maumau_log.audit_botlike import BotLikeness, Sampled, agreement_test, stratum
from maumau_log.bots.season import club_pool, season
from maumau_log.cli import app
from maumau_log.records import ingest
from maumau_log.sim_bias import write_jsonl


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
    assert stratum(2, 0.0) == "2/close"
    assert stratum(3, 0.10) == "3/moderate"
    assert stratum(7, 0.25) == "4+/clear"


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
