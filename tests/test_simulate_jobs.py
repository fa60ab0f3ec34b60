"""``simulate --jobs N``: blocks of games, each from its own seeded generator, played by N
processes and written in order: the same file byte for byte whatever N."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.bots.sim as sim
import maumau_log.cli.replay_cmds  # noqa: F401  (registers simulate)
from maumau_log.bots.sim import simulate, simulate_matches, write_games, write_simulated
from maumau_log.cli import app


def _bytes(**kw: object) -> bytes:
    buf = io.BytesIO()
    write_simulated(buf, **kw)  # type: ignore[arg-type]
    return buf.getvalue()


def test_any_number_of_jobs_writes_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim, "SIM_BLOCK", 7)  # 30 games: blocks of 7, 7, 7, 7 and 2
    one = _bytes(ruleset="classic", players=3, count=30, seed=9, jobs=1)
    assert _bytes(ruleset="classic", players=3, count=30, seed=9, jobs=2) == one
    assert _bytes(ruleset="classic", players=3, count=30, seed=9, jobs=3) == one
    buf = io.BytesIO()
    assert write_games(simulate("classic", 3, 30, seed=9), buf) == (30, one.count(b"\n"))
    assert buf.getvalue() == one


def test_the_first_block_is_the_seed_s_one_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    # block 0 is random.Random(seed): a simulation shorter than a block is what the seed
    # always gave; later blocks start from their own generator
    monkeypatch.setattr(sim, "SIM_BLOCK", 5)
    long = list(simulate("standard", 2, 12, seed=4))
    short = list(simulate("standard", 2, 5, seed=4))
    assert [e[0].game_id for e in long[:5]] == [e[0].game_id for e in short]
    assert long[:5] == short
    assert long[5][0].game_id == "sim-standard-2p-4-000005"
    rng = sim.block_rng(4, 1)
    assert long[5][0].dealer == f"p{int(rng.random() * 2) + 1}"  # the dealer, then the seed
    assert long[5][0].shuffle == sim.fair_shuffle(rng)


def test_matches_in_blocks_write_the_same_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim, "SIM_BLOCK", 300)  # 3 matches a block (SIM_BLOCK // 100)
    one = _bytes(ruleset="classic", players=2, count=7, seed=2, matches=True, jobs=1)
    assert _bytes(ruleset="classic", players=2, count=7, seed=2, matches=True, jobs=2) == one
    buf = io.BytesIO()
    write_games(simulate_matches("classic", 2, 7, seed=2), buf)
    assert buf.getvalue() == one


def test_simulate_cli_jobs(tmp_path: Path) -> None:
    runner = CliRunner()
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"s{jobs}.jsonl"
        res = runner.invoke(app, ["simulate", "--ruleset", "classic", "--games", "40",
                                  "--seed", "3", "--jobs", jobs, "--out", str(out)])  # fmt: skip
        assert res.exit_code == 0, res.output
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    res = runner.invoke(app, ["simulate", "--jobs", "0", "--out", str(tmp_path / "x.jsonl")])
    assert res.exit_code == 2
