"""Tables a person reads at 80 columns, and the small texts around them: ``review`` and the
leaderboard fit ``COLUMNS`` (also into a pipe), the left-out columns are named in wrapped
lines, the leaderboard says its order, ``audit`` opens with a headline, counts agree in
number, floats show the places they have, and ``--help`` lists the commands in panels."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.bots_cmds
import maumau_log.cli.data_cmds  # noqa: F401  (registers the commands)
from maumau_log.audit.html import short_float
from maumau_log.bots.review import z_for
from maumau_log.cli import HELP_PANELS, app
from maumau_log.cli.audit_cmds import _decimals

runner = CliRunner()
SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
CLASSIC_3P = SAMPLES / "valid" / "classic_3p.jsonl"  # one game, sim-83-000000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("fit") / "ds"
    r = runner.invoke(app, ["ingest", str(SAMPLES / "valid"), "--out", str(ds)])
    assert r.exit_code == 0, r.output
    return ds


def test_review_fits_80_columns_into_a_pipe() -> None:
    r = runner.invoke(
        app,
        ["review", str(CLASSIC_3P), "sim-83-000000", "--rollouts", "4", "--player", "p1"],
        env={"COLUMNS": "80"},
    )
    assert r.exit_code in (0, 1), r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    # the review's seed (0) makes the rollouts, and so every value, repeatable
    assert [line.rstrip() for line in lines[2:7]] == [
        "  event   player   kind   chosen    best      loss          95% CI   verdict",
        " " + "─" * 76,
        "      2   p1       turn   play AC   play AC   0.00   -0.58 to 0.58   ok",
        "      4   p1       turn   play 9D   play 9H   0.25   -0.49 to 0.99   ok",
        "      9   p1       turn   draw 1    play 9H   0.50   -0.25 to 1.25   ok",
    ]
    assert (
        "not shown at 80 columns: alternatives: win chance (--json lists them, or a wider\nCOLUMNS)"
    ) in r.stderr


def test_review_counts_agree_in_number() -> None:
    r = runner.invoke(
        app,
        ["review", str(CLASSIC_3P), "sim-83-000000", "--rollouts", "4", "--player", "p3"],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code in (0, 1), r.output
    assert "p3: 3 decisions, 0 mistakes, 0 inaccuracies" in r.stderr


def test_review_interval_is_widened_for_the_choice_of_the_best() -> None:
    # Phi^-1(1 - 0.025 / (n - 1)): 1.96 for two alternatives, 2.24 for three, 2.39 for four
    assert [round(z_for(n), 4) for n in (2, 3, 4)] == [1.96, 2.2414, 2.394]


def test_leaderboard_title_names_its_order_and_footnote_wraps(dataset: Path) -> None:
    r = runner.invoke(app, ["stats", str(dataset)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0].strip() == (
        "Leaderboard, by the lower end of the win rate's 95% CI, then wins"
    )
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    note = r.stderr.splitlines()
    assert note == [
        "not shown at 80 columns: missed calls tot., turns to win /win, power cards tot.,",
        "wild cards tot., points left /game, round score /game (--wide shows every ",
        "column, --columns chooses)",
    ]


def test_audit_opens_with_its_headline(dataset: Path) -> None:
    r = runner.invoke(app, ["audit", str(dataset)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "no flags (0 tests run, alpha 0.05, Holm-corrected)"


def test_audit_html_says_nothing_flagged_without_a_chart_of_empty_bars(
    dataset: Path, tmp_path: Path
) -> None:
    page = tmp_path / "a.html"
    r = runner.invoke(app, ["audit", str(dataset), "--format", "html", "--out", str(page)])
    assert r.exit_code == 0, r.output
    text = page.read_text()
    assert (
        "<p class='headline'>Nothing flagged: 0 tests run, none unlikely enough under fair "
        "play at alpha 0.05 (Holm-corrected).</p>"
    ) in text
    assert "Every test: -log10" not in text
    assert " ".join(r.output.split()) == (
        f"wrote the audit to {page}: no flags (0 tests run, alpha 0.05, Holm-corrected)"
    )


def test_floats_show_the_places_they_have() -> None:
    assert _decimals([26.6, 1.0]) == 1  # round(x, 1): "26.6", never "26.600"
    assert _decimals([1.67, 0.67, 0.0]) == 2
    assert _decimals([1 / 3, 1.0]) == 3
    assert _decimals([float("nan"), 2.5]) == 1
    assert [short_float(x) for x in (26.6, 1 / 3, 9341.25)] == ["26.6", "0.333", "9,341.25"]


def _main_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """``maumau-log --help`` as the program prints it (through :func:`maumau_log.cli.main`,
    which groups the commands)."""
    from maumau_log import cli

    monkeypatch.setattr(sys, "argv", ["maumau-log", "--help"])
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        cli.main()
    return capsys.readouterr().out


def test_help_lists_the_commands_in_panels(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _main_help(monkeypatch, capsys)
    panels = re.findall(r"╭─ ([A-Za-z ,/]+?) ─", text)
    assert panels == ["Options", *HELP_PANELS]
    names = re.findall(r"^│ ([a-z]+) ", text, re.MULTILINE)
    assert names == [name for group in HELP_PANELS.values() for name in group]


@pytest.mark.parametrize(
    ("line", "after"),
    [
        ("query     Run SQL (Polars SQL) over the dataset's tables.", "verify"),
        ("match     A match's score sheet round by round, and a chart of the running", "totals."),
        ("verify    Check a dataset's files against its manifest and its tables", "against"),
    ],
)
def test_help_descriptions_are_whole_sentences(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], line: str, after: str
) -> None:
    rows = [row.strip("│ ").rstrip() for row in _main_help(monkeypatch, capsys).splitlines()]
    assert line in rows
    assert rows[rows.index(line) + 1].startswith(after)
