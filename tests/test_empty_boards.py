"""An empty leaderboard (``stats``, ``stats --by match``, ``ratings``) says on stderr which
filters were given and what the dataset holds instead, never a silent empty table."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

import maumau_log.cli.ratings_cmds
import maumau_log.cli.stats_cmds  # noqa: F401  (register the commands)
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.events import Game
from maumau_log.run.ingest import ingest

HOLDS = (
    "the dataset holds classic (12 games, 2024-03-01 to 2024-03-02); standard (5 games, no dates)"
)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("empty")
    with open(tmp / "log.jsonl", "wb") as fh:
        for i, day in enumerate(("2024-03-01", "2024-03-02")):
            games = []
            for g in simulate("classic", 3, 6, seed=70 + i, id_prefix=f"c{i}"):
                assert isinstance(g[0], Game)
                g[0] = msgspec.structs.replace(g[0], started_at=f"{day}T09:00:00Z")
                games.append(g)
            write_games(iter(games), fh)
        write_games(simulate("standard", 2, 5, seed=72, id_prefix="s"), fh)
    ds = tmp / "ds"
    ingest([tmp / "log.jsonl"], ds, jobs=1)
    return ds


@pytest.mark.parametrize(
    ("args", "given"),  # given: the filters, or the note when there are none
    [
        (["stats", "--since", "2030-01-01"], "--since 2030-01-01"),
        (
            ["stats", "--ruleset", "prsi", "--until", "2024-03-02"],
            "--ruleset prsi, --until 2024-03-02",
        ),
        (["stats", "--by", "match"], "no valid matches"),
        (["ratings", "--ruleset", "prsi"], "--ruleset prsi"),
    ],
)
def test_an_empty_board_names_the_filters_and_what_the_dataset_holds(
    dataset: Path, args: list[str], given: str
) -> None:
    result = CliRunner().invoke(app, [args[0], str(dataset), *args[1:]])
    assert result.exit_code == 0
    what = given if given.startswith("no ") else f"nothing matches {given}"
    # the last line: a narrow terminal also lists the columns not shown before it
    assert result.stderr.strip().splitlines()[-1] == f"{what}: {HOLDS}"


def test_a_board_with_rows_has_no_note(dataset: Path) -> None:
    result = CliRunner().invoke(app, ["stats", str(dataset), "--ruleset", "classic"])
    assert result.exit_code == 0
    assert "nothing matches" not in result.stderr


def test_player_text_in_the_note_is_shown_as_typed_not_as_markup(dataset: Path) -> None:
    result = CliRunner().invoke(app, ["stats", str(dataset), "--player", "x[red]y"])
    assert result.stderr.strip().splitlines()[-1] == f"nothing matches --player x[red]y: {HOLDS}"
