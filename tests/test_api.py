"""The public API against the commands it shares its work with: ``validate``'s report is
the ``validate --json`` document, a dataset's statistics are ``stats --format json``, the
audit is ``audit --format json``; the names import cheaply, carry their docstrings, and the
replay reads logs, ``.mm`` files and lines alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import maumau_log as m
import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
from maumau_log.cli import app
from maumau_log.logs.lines import LogReadError
from maumau_log.store import DatasetError
from maumau_log.store.sqlguard import QueryRefused

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
PUBLIC = [
    "AuditReport", "Dataset", "GameReplay", "IngestSummary", "LogWriter", "ReplayedEvent",
    "Report", "Table", "Violation", "audit", "ingest", "open_dataset", "replay", "validate",
]  # fmt: skip


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from maumau_log.bots.sim import simulate_matches, write_games

    base = tmp_path_factory.mktemp("api")
    with (base / "matches.jsonl").open("wb") as fh:
        rounds, _ = write_games(simulate_matches("classic", 3, 2, 11), fh)
    out = base / "data"
    summary = m.ingest([SAMPLES / "valid", base / "matches.jsonl"], out, jobs=1)
    assert (summary.games, summary.added, summary.exit_code) == (24 + rounds, 24 + rounds, 0)
    return out


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout


def test_the_public_names_are_exported_typed_and_documented() -> None:
    assert sorted(set(m.__all__) - {"__version__"}) == sorted(PUBLIC)
    assert (ROOT / "maumau_log" / "py.typed").exists()
    for name in PUBLIC:
        obj = getattr(m, name)
        if name in ("replay", "audit"):  # also the subpackages: the functions are in api
            obj = getattr(m.api, name)
        doc = obj.__doc__
        assert doc and len(doc) > 40, name


def test_replay_and_audit_are_also_the_subpackages_of_those_names() -> None:
    import maumau_log.audit as audit_package
    import maumau_log.replay.driver as driver

    assert audit_package is m.audit and driver.Replayer is m.replay.driver.Replayer
    game = next(m.replay(SAMPLES / "valid" / "standard_2p.jsonl"))
    assert (game.game_id, game.valid, game.result, len(game.events)) == (
        "sim-11-000000", True, {"winner": "p1", "scores": None}, 14
    )  # fmt: skip


def test_import_is_cheap() -> None:
    code = (
        "import sys, maumau_log as m; m.Table; m.validate; "
        "print(sorted(x for x in ('polars', 'pyarrow', 'typer', 'scipy') if x in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"


def test_validate_report_is_the_validate_json_document() -> None:
    paths = [str(SAMPLES / "valid"), str(SAMPLES / "violations")]
    report = m.validate(paths)
    code, stdout = _cli("validate", *paths, "--json")
    assert report.to_dict() == json.loads(stdout)
    assert (report.exit_code, code, report.ok) == (1, 1, False)
    first = report.violations[0]
    assert (first.code, first.file.endswith("bad_commitment.jsonl")) == ("bad_commitment", True)
    assert first.legal == first.expected
    assert m.validate([SAMPLES / "valid"]).ok
    assert m.validate(paths, jobs=2).to_dict() == report.to_dict()


def test_validate_raises_for_what_the_command_exits_2_for(tmp_path: Path) -> None:
    with pytest.raises(LogReadError, match="no such file"):
        m.validate([tmp_path / "missing.jsonl"])
    with pytest.raises(ValueError, match="jobs must be at least 1, not 0"):
        m.validate([SAMPLES / "valid"], jobs=0)


def test_the_rules_option_overrides_every_game() -> None:
    log = SAMPLES / "valid" / "standard_2p.jsonl"
    report = m.validate(log, rules={"hand_size": 7})
    assert m.validate(log).ok
    assert {v.code for v in report.violations} == {"wrong_draw_count"}


def test_replay_reads_notation_and_lines_alike() -> None:
    mm = SAMPLES / "disputes" / "classic_missed_mau.mm"
    games = list(m.replay(mm))
    assert games and all(g.header is not None for g in games)
    log = SAMPLES / "valid" / "standard_2p.jsonl"
    from_lines = list(m.replay(log.read_text("utf-8").splitlines()))
    from_file = list(m.replay(log))
    assert [g.events[-1].state for g in from_lines] == [g.events[-1].state for g in from_file]
    with pytest.raises(TypeError, match="line 1: a line is str, bytes or a dict, not int"):
        list(m.replay([1]))


def test_dataset_stats_are_the_stats_json_rows(dataset: Path) -> None:
    ds = m.open_dataset(dataset)
    for by in (None, "seat", "ruleset", "match"):
        args = ["stats", str(dataset), "--format", "json"] + (["--by", by] if by else [])
        code, stdout = _cli(*args)
        assert code == 0
        assert ds.stats(by=by).to_dicts() == json.loads(stdout), by
    assert ds.leaderboard(matches=True).equals(ds.stats(by="match"))
    assert isinstance(ds.events, pl.LazyFrame)
    assert ds.games.select(pl.len()).collect().item() > 24


def test_dataset_sql_goes_through_the_query_sandbox(dataset: Path) -> None:
    ds = m.open_dataset(dataset)
    assert (
        ds.sql("SELECT count(*) AS n FROM matches WHERE ended").item() == 3
    )  # 2 simulated, 1 sample
    with pytest.raises(QueryRefused, match="read_csv"):
        ds.sql("SELECT * FROM read_csv('/etc/passwd')")


def test_open_dataset_refuses_a_folder_that_is_no_dataset(tmp_path: Path) -> None:
    with pytest.raises(DatasetError):
        m.open_dataset(tmp_path)


def test_audit_is_the_audit_json_document(dataset: Path) -> None:
    report = m.audit(m.open_dataset(dataset))
    code, stdout = _cli("audit", str(dataset), "--format", "json")
    expected = json.loads(stdout)
    got = json.loads(json.dumps(report.to_dict(), default=str))
    assert got == expected
    assert code == (1 if report.flags else 0)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".jsonl.zst"])
def test_log_writer_writes_only_legal_events(tmp_path: Path, suffix: str) -> None:
    from maumau_log.bots.sim import simulate
    from maumau_log.events import encode_event

    path = tmp_path / f"t{suffix}"
    (game,) = simulate("classic", 3, 1, 5)
    events = [json.loads(encode_event(e)) for e in game]
    with m.LogWriter(path) as log:
        for ev in events[:5]:
            assert log.write(ev) is None
        bad = log.write({"type": "play", "player": "p1", "cards": ["XX"]})
        assert bad is not None and bad.code in ("unknown_card", "wrong_player")
        for ev in events[5:]:
            assert log.write(ev) is None
    report = m.validate(path)
    assert (report.ok, report.games) == (True, 1)
    assert [g.events[-1].event for g in m.replay(path)] == [events[-1]]


def test_a_strict_log_writer_raises_and_an_unchecked_one_writes_anything(tmp_path: Path) -> None:
    from maumau_log.api.writer import IllegalEvent

    with m.LogWriter(tmp_path / "a.jsonl", strict=True) as log, pytest.raises(IllegalEvent):
        log.write({"type": "pass", "player": "ana"})
    with m.LogWriter(tmp_path / "b.jsonl", check=False) as log:
        assert log.write({"type": "pass", "player": "ana"}) is None
    assert (tmp_path / "b.jsonl").read_text() == '{"type":"pass","player":"ana"}\n'
    assert [v.code for v in m.validate(tmp_path / "b.jsonl").violations] == ["missing_header"]
    with pytest.raises(ValueError, match="closed"):
        log.write({"type": "pass", "player": "ana"})


def test_the_readme_python_example_runs() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(block.splitlines()) <= 8
    exec(compile(block, "README.md", "exec"), {})


def test_the_tutorials_server_loop_refuses_the_illegal_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (ROOT / "docs" / "tutorials" / "embedding-the-referee.md").read_text("utf-8")
    program = page.split("```python\n", 1)[1].split("```", 1)[0]
    printed = page.split("```text\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(program, "embedding-the-referee.md", "exec"), {})
    assert capsys.readouterr().out == printed
    assert [v.code for v in m.validate(tmp_path / "table7.jsonl").violations] == [
        "round_not_finished"
    ]
