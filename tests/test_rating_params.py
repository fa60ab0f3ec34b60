"""``ratings --tau/--beta``: the openskill model's dynamics factor and performance spread.
The ratings with them equal openskill called directly with the same parameters on the
three-round example of ``test_ratings`` (the fast Plackett-Luce path is for the default
parameters only); bad values are exit 2 with the option named."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce, ThurstoneMostellerFull
from test_ratings import ROUNDS, _frames, _openskill_three_rounds
from typer.testing import CliRunner

import maumau_log.cli.ratings_cmds  # noqa: F401  (registers the command)
from maumau_log.cli import app
from maumau_log.stats.rating_eval import evaluate
from maumau_log.stats.ratings import RatingModel, rate, ratings_frame, round_contests


@pytest.mark.parametrize(
    ("spec", "model"),
    [
        (RatingModel(tau=0.5), PlackettLuce(tau=0.5)),
        (RatingModel(beta=2.0), PlackettLuce(beta=2.0)),
        (
            RatingModel("thurstone-mosteller", tau=0.0, beta=6.0),
            ThurstoneMostellerFull(tau=0.0, beta=6.0),
        ),
    ],
)
def test_ratings_with_tau_or_beta_equal_openskill_called_directly(
    spec: RatingModel, model: object
) -> None:
    want = _openskill_three_rounds(model)
    board = ratings_frame(rate(round_contests(*_frames(ROUNDS)), spec))
    got = {r["player"]: (r["mu"], r["sigma"]) for r in board.to_dicts()}
    assert got.keys() == want.keys()
    for p in want:
        assert got[p] == pytest.approx(want[p], abs=1e-9)
    default = ratings_frame(rate(round_contests(*_frames(ROUNDS)), spec.name))
    assert default.get_column("sigma").to_list() != board.get_column("sigma").to_list()


def test_the_evaluation_names_the_parameters() -> None:
    doc = evaluate(round_contests(*_frames(ROUNDS)), RatingModel(tau=0.1, beta=3))
    assert doc["model"] == "plackett-luce, tau 0.1, beta 3"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tau", "-0.5"], "--tau must be a number of at least 0, not -0.5"),
        (["--tau", "inf"], "--tau must be a number of at least 0, not inf"),
        (["--beta", "0"], "--beta must be a number above 0, not 0"),
        (["--beta", "nan"], "--beta must be a number above 0, not nan"),
    ],
)
def test_a_bad_tau_or_beta_is_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["ratings", "no-such-dataset", *args])
    assert result.exit_code == 2
    assert message in result.stderr
