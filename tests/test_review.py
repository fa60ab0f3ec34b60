"""Play review: hand-made games with hand-checked verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gamebuilder import call, deal, draw, game, pass_, play, round_end
from typer.testing import CliRunner

import maumau_log.cli.bots_cmds  # noqa: F401  (registers the commands)
from maumau_log.bots.review import (
    ReviewError,
    load_events,
    loss_interval,
    review_game,
    verdict,
    z_for,
)
from maumau_log.cli import app
from maumau_log.events import decode_event
from maumau_log.rules import resolve
from maumau_log.run.ingest import ingest

RULES = resolve("classic", {"hand_size": 2})

# classic, hands of 2: a holds 8H QH on 10H. 8 skips, so 8H then QH is a sure win; a plays
# QH (event 2) instead, calls, b cannot play QH's suit or rank and draws 7D, passes, and a
# goes out with 8H anyway (event 6). Winner collects b's 9C KC 7D: 9 + 10 + 7 = 26 points.
THROWN_AWAY = [
    game("classic", options={"hand_size": 2}),
    deal({"a": ["8H", "QH"], "b": ["9C", "KC"]}, "10H", top=["7D"]),
    play("a", "QH"),
    call("a", "mau"),
    draw("b", "7D"),
    pass_("b"),
    play("a", "8H"),
    round_end("a", {"a": 26, "b": 0}),
]


def _events(evs: list[dict]) -> list:
    return [decode_event(json.dumps(e)) for e in evs]


def _write(tmp_path: Path, evs: list[dict]) -> Path:
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in evs), encoding="utf-8")
    return path


def test_the_thrown_away_sure_win_is_the_one_mistake() -> None:
    rev = review_game(_events(THROWN_AWAY), RULES, rollouts=40)
    assert rev.violation is None
    flagged = [(d.event_index, d.kind) for d in rev.decisions if d.verdict != "ok"]
    assert flagged == [(2, "turn")]
    d = rev.decisions[0]
    assert (d.player, d.chosen, d.best, d.verdict) == ("a", "play QH", "play 8H", "mistake")
    assert [a.action for a in d.alternatives] == ["play 8H", "play QH", "draw 1"]
    sure = d.alternatives[0]
    assert sure.value == 1.0 and sure.ci_high == 1.0
    assert d.loss == pytest.approx(1.0 - d.alternatives[1].value)
    assert d.loss_ci_low > 0
    # winner_collects: the sure win scores b's hand, which a does not see: two of the 29
    # cards a cannot see (points 308 in all), so 2 * 308 / 29 = 21.24 expected
    assert sure.score_ci_low < 2 * 308 / 29 < sure.score_ci_high
    # the other decisions of a: the call after QH (made: ok) and 8H at the end (ok);
    # b's draw and pass were forced
    assert [(x.event_index, x.kind, x.chosen, x.verdict) for x in rev.decisions[1:]] == [
        (2, "call", "call mau", "ok"),
        (6, "turn", "play 8H", "ok"),
    ]
    assert rev.forced == 2
    assert rev.counts() == {"a": {"decisions": 3, "ok": 2, "inaccuracy": 0, "mistake": 1}}


def test_a_missed_call_is_a_mistake_and_the_review_is_repeatable() -> None:
    evs = [e for e in THROWN_AWAY if e.get("type") != "mau"]
    rev = review_game(_events(evs), RULES, player="a", rollouts=30, seed=4)
    call_dec = next(d for d in rev.decisions if d.kind == "call")
    assert (call_dec.event_index, call_dec.chosen, call_dec.best) == (2, "no call", "call mau")
    # in the rollouts b catches the fault (2 penalty cards): a cannot win in fewer turns
    assert call_dec.verdict == "mistake"
    again = review_game(_events(evs), RULES, player="a", rollouts=30, seed=4)
    assert again.to_dict() == rev.to_dict()
    assert rev.forced == 0  # b is not reviewed


def test_loss_interval_and_verdict_by_hand() -> None:
    # 4 rollouts, differences 1 1 1 1: loss 1; with +1 and -1 added: mean 4/6, sample sd
    # sqrt((4 (1/3)^2 + (5/3)^2) / 5) = sqrt(3.333/5) = 0.8165; half = 1.96 * 0.8165 / sqrt(6)
    loss, low, high = loss_interval([1, 1, 1, 1], [0, 0, 0, 0])
    assert loss == 1.0
    assert 1.0 - low == pytest.approx(1.959964 * 0.816497 / 6**0.5, rel=1e-5)
    assert high - loss == pytest.approx(loss - low)
    # three alternatives: z = Phi^-1(1 - 0.025 / 2) = 2.2414
    assert z_for(2) == pytest.approx(1.959964, rel=1e-6)
    assert z_for(3) == pytest.approx(2.241403, rel=1e-6)
    _, low3, _ = loss_interval([1, 1, 1, 1], [0, 0, 0, 0], z_for(3))
    assert 1.0 - low3 == pytest.approx(2.241403 * 0.816497 / 6**0.5, rel=1e-5)
    assert verdict(0.5, 0.01) == "mistake"
    assert verdict(0.05, 0.01) == "inaccuracy"
    assert verdict(0.01, 0.001) == "ok"
    assert verdict(0.5, -0.01) == "ok"  # within the noise: never a mistake


def test_review_cli_json_from_a_log_and_a_dataset(tmp_path: Path) -> None:
    log = _write(tmp_path, THROWN_AWAY)
    runner = CliRunner()
    res = runner.invoke(
        app, ["review", str(log), "t", "--player", "a", "--rollouts", "20", "--json"]
    )
    assert res.exit_code == 1, res.output  # a mistake was found
    doc = json.loads(res.stdout)
    assert doc["game_id"] == "t" and doc["rollouts"] == 20
    first = doc["decisions"][0]
    assert set(first) >= {"event_index", "player", "chosen", "alternatives", "loss", "verdict"}
    assert set(first["alternatives"][0]) >= {"action", "value", "ci_low", "ci_high"}
    assert (first["event_index"], first["verdict"]) == (2, "mistake")
    ingest([log], tmp_path / "ds")
    events, rules = load_events(tmp_path / "ds", "t")
    assert len(events) == len(THROWN_AWAY) and rules.preset == "classic"
    res2 = runner.invoke(app, ["review", str(tmp_path / "ds"), "t", "--rollouts", "20", "--json"])
    assert json.loads(res2.stdout)["decisions"][0]["event_index"] == 2
    table = runner.invoke(app, ["review", str(log), "t", "--rollouts", "20"])
    assert table.exit_code == 1 and "review of t (classic, 20 rollouts" in table.stdout


def test_review_errors_are_located(tmp_path: Path) -> None:
    log = _write(tmp_path, THROWN_AWAY)
    runner = CliRunner()
    res = runner.invoke(app, ["review", str(log), "nope"])
    assert res.exit_code == 2 and "no game with game_id 'nope'" in res.output
    res = runner.invoke(app, ["review", str(log), "t", "--player", "zed"])
    assert res.exit_code == 2 and "'zed' is not a player" in res.output
    res = runner.invoke(app, ["review", str(tmp_path / "missing.jsonl"), "t"])
    assert res.exit_code == 2 and "no such file" in res.output
    res = runner.invoke(app, ["review", str(log), "t", "--rollouts", "0"])
    assert res.exit_code == 2
    with pytest.raises(ReviewError, match="rollouts"):
        review_game(_events(THROWN_AWAY), RULES, rollouts=0)


def test_an_invalid_game_is_reviewed_up_to_its_violation() -> None:
    evs = [*THROWN_AWAY[:2], play("a", "QH"), play("b", "9C")]  # 9C on QH: illegal
    rev = review_game(_events(evs), RULES, rollouts=5)
    assert rev.violation is not None and rev.violation.startswith("event 3:")
    assert [d.event_index for d in rev.decisions] == [2, 2]


def test_the_monte_carlo_bots_own_decisions_are_rarely_flagged() -> None:
    """On games the Monte Carlo bot played (the default 16 rollouts,
    seat p1, against the random bot), review (K = 100, its own seed) flags fewer than 5% of
    the bot's decisions; counted on two seeded rounds (bench/bench_review.py measures more)."""
    import random

    from maumau_log.bots import BotTable, MonteCarloPolicy, RandomPolicy
    from maumau_log.bots.sim import fair_shuffle
    from maumau_log.bots.table import make_header

    rules = resolve("classic")
    verdicts: list[str] = []
    for g in range(2):
        rng = random.Random(f"test-review-mc:{g}")
        header = make_header(rules, f"t-{g}", ["p1", "p2"], "p2", fair_shuffle(rng))
        pol = {"p1": MonteCarloPolicy(16, seed=g), "p2": RandomPolicy()}
        table = BotTable.new_round(rules, header, pol, rng)
        table.play_round()
        rev = review_game(table.events, rules, player="p1", rollouts=100, seed=14)
        verdicts += [d.verdict for d in rev.decisions]
    assert len(verdicts) >= 10
    assert verdicts.count("mistake") < 0.05 * len(verdicts)  # "flagged": judged a mistake
