"""``audit --since/--until``: the audit of a date window is the audit of the games dated
inside it, counted as ``stats`` and ``ratings`` count them (a game's date is its ``date``
partition, from the header's ``started_at``; once a bound is given, a game with no known
date is left out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds  # noqa: F401  (registers the command)
from maumau_log.audit import audit
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.events import Game
from maumau_log.run.ingest import ingest
from maumau_log.store.layout import DateWindow

DAYS = ("2024-03-01", "2024-03-02")


def _dated(day: str, count: int, seed: int) -> list[list[Any]]:
    games = []
    for g in simulate("classic", 4, count, seed=seed, id_prefix=f"d{day}"):
        header = g[0]
        assert isinstance(header, Game)
        g[0] = msgspec.structs.replace(header, started_at=f"{day}T12:00:00Z")
        games.append(g)
    return games


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("auditdates")
    out = {}
    for i, day in enumerate(DAYS):
        with open(tmp / f"{day}.jsonl", "wb") as fh:
            write_games(iter(_dated(day, 80, 50 + i)), fh)
        out[day] = tmp / f"{day}.jsonl"
    with open(tmp / "undated.jsonl", "wb") as fh:  # date=unknown
        write_games(simulate("classic", 4, 30, seed=59, id_prefix="undated"), fh)
    out["undated"] = tmp / "undated.jsonl"
    return out


@pytest.fixture(scope="module")
def dataset(logs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("dates") / "ds"
    ingest(list(logs.values()), ds, jobs=1)
    return ds


def _doc(dataset: Path, **kw: Any) -> dict[str, Any]:
    return audit(dataset, min_games=50, jobs=1, **kw).to_dict()


def _same_but_window(windowed: dict[str, Any], alone: dict[str, Any]) -> None:
    for key in ("dataset", "since", "until"):
        windowed.pop(key, None)
        alone.pop(key, None)
    assert windowed == alone


def test_a_window_counts_only_the_games_dated_inside_it(dataset: Path) -> None:
    assert _doc(dataset)["games"] == 190
    assert _doc(dataset, since="2024-03-02")["games"] == 80
    assert _doc(dataset, until="2024-03-01")["games"] == 80
    assert _doc(dataset, since="2024-03-01", until="2024-03-02")["games"] == 160
    assert _doc(dataset, since="2024-03-03")["games"] == 0


def test_the_audit_of_a_window_is_the_audit_of_a_dataset_of_those_games_alone(
    dataset: Path, logs: dict[str, Path], tmp_path: Path
) -> None:
    alone = tmp_path / "alone"
    ingest([logs["2024-03-02"]], alone, jobs=1)
    windowed = _doc(dataset, since="2024-03-02")
    assert windowed["since"] == "2024-03-02" and "until" not in windowed
    _same_but_window(windowed, _doc(alone))
    # the replay path (no facts tables read) keeps to the window too
    _same_but_window(_doc(dataset, since="2024-03-02", replay=True), _doc(alone, replay=True))


def test_a_report_without_a_window_has_no_since_or_until(dataset: Path) -> None:
    doc = _doc(dataset)
    assert "since" not in doc and "until" not in doc


def test_a_bound_that_is_not_a_calendar_date_is_exit_2(dataset: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(dataset), "--since", "2024-02-30"])
    assert result.exit_code == 2
    assert "--since must be a date YYYY-MM-DD, not '2024-02-30'" in result.output
    result = CliRunner().invoke(app, ["audit", str(dataset), "--until", "March"])
    assert result.exit_code == 2
    assert "--until must be a date YYYY-MM-DD, not 'March'" in result.output


def test_the_json_report_of_the_command_names_its_window(dataset: Path) -> None:
    result = CliRunner().invoke(
        app, ["audit", str(dataset), "--format", "json", "--until", "2024-03-01", "-j", "1"]
    )
    assert result.exit_code in (0, 1)
    doc = json.loads(result.output)
    assert (doc["until"], doc["games"]) == ("2024-03-01", 80)


def test_a_window_keeps_files_by_their_date_partition() -> None:
    w = DateWindow("2024-03-02", None)
    files = {
        "games": [
            "games/ruleset=classic/date=2024-03-01/part-a.parquet",
            "games/ruleset=classic/date=2024-03-02/part-a.parquet",
            "games/ruleset=classic/date=unknown/part-a.parquet",
        ],
        "matches": ["matches/ruleset=classic/part-a.parquet"],
    }
    assert w.files(files) == {
        "games": ["games/ruleset=classic/date=2024-03-02/part-a.parquet"],
        "matches": ["matches/ruleset=classic/part-a.parquet"],
    }
    assert DateWindow().files(files) is files
