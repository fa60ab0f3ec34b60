"""The OpenSpiel import from the command line (no ``pyspiel`` needed): the
input formats, located rejections, the shipped samples, the default ``--returns field``
against the ``--returns scores`` audit with hand-computed figures, and the start-up that
loads only the command named. The port and the differential against the real OpenSpiel are
in ``tests/test_openspiel.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import maumau_log.cli.import_cmds  # registers the import commands
import maumau_log.cli.replay_cmds  # noqa: F401  (registers validate)
from maumau_log.cli import app
from maumau_log.openspiel import OpenSpielImportError, convert_source, read_source

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs" / "openspiel"
runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, list(args))


# -- input files and the CLI (no pyspiel) ----------------------------------------------------


def test_read_both_formats() -> None:
    serialized = list(read_source(SAMPLES / "serialized.openspiel.txt"))
    lines = list(read_source(SAMPLES / "histories.openspiel.txt"))
    assert len(serialized) == 2 and len(lines) == 3
    for src in serialized + lines:
        assert not isinstance(src, OpenSpielImportError)
        events = convert_source(src, "x.txt", returns="field")
        assert events[-1]["type"] == "round_end"


def test_cli_import_samples(tmp_path: Path) -> None:
    out = tmp_path / "imported.jsonl.gz"
    res = _run("import", "openspiel", str(SAMPLES / "serialized.openspiel.txt"),
               "--returns", "field", "--out", str(out))  # fmt: skip
    assert res.exit_code == 0, res.output
    res = _run("validate", str(out), "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"], doc["invalid"]) == (2, 2, 0)  # the two histories


def test_shipped_imports_are_current(tmp_path: Path) -> None:
    out = tmp_path / "imported.jsonl"
    sources = [str(SAMPLES / "serialized.openspiel.txt"), str(SAMPLES / "histories.openspiel.txt")]
    res = _run("import", "openspiel", *sources, "--returns", "field", "--out", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_text() == (SAMPLES / "imported.jsonl").read_text()


def test_json_lines_read_as_json_reads_them(tmp_path: Path) -> None:
    """The JSON lines are decoded by msgspec, and what it refuses by json as before:
    a NaN or 1e400 in a field the import ignores still imports, trailing text
     and a tab inside a string are json's errors, word for word."""
    good = (SAMPLES / "histories.openspiel.txt").read_text().splitlines()[0]
    obj = json.loads(good)
    src = tmp_path / "in.ndjson"
    src.write_text("\n".join([
        good[:-1] + ', "note": NaN}', good[:-1] + ', "note": 1e400}', good + "x",
        good[:-1] + ', "note": "a\tb"}', json.dumps(dict(obj, game_id="g5")),
    ]) + "\n")  # fmt: skip
    games = list(read_source(src))
    assert [type(g).__name__ for g in games] == ["SourceGame", "SourceGame",
        "OpenSpielImportError", "OpenSpielImportError", "SourceGame"]  # fmt: skip
    assert str(games[2]) == f"{src}:3, game 3: not valid JSON: Extra data"
    assert str(games[3]) == f"{src}:4, game 4: not valid JSON: Invalid control character at"
    assert games[0].history == games[1].history == obj["history"]
    assert games[4].game_id == "g5"


def test_cli_rejects_with_located_errors(tmp_path: Path) -> None:
    good = (SAMPLES / "histories.openspiel.txt").read_text().splitlines()[0]
    obj = json.loads(good)
    bad_action = dict(obj, history=[*obj["history"][:30], 99, *obj["history"][31:]])
    src = tmp_path / "in.ndjson"
    src.write_text("\n".join([
        good, json.dumps(bad_action), json.dumps({"game": "go", "history": [1]}), "{oops",
    ]) + "\n")  # fmt: skip
    out = tmp_path / "out.jsonl"
    res = _run("import", "openspiel", str(src), "--out", str(out))
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert f"{src}:2, game 2, action 30:" in text and "not an action id" in text
    assert f"{src}:3, game 3: the game is 'go'" in text
    assert f"{src}:4, game 4: not valid JSON" in text
    assert "imported 1 game(s)" in text
    assert len(out.read_text().splitlines()) > 10  # the good game is still written
    serialized = tmp_path / "s.txt"
    lines = (SAMPLES / "serialized.openspiel.txt").read_text().splitlines()
    state_at = lines.index("[State]")
    lines[state_at + 12] = "banana"
    serialized.write_text("\n".join(lines) + "\n")
    res = _run("import", "openspiel", str(serialized), "--out", str(out))
    assert res.exit_code == 1
    assert f"{serialized}:{state_at + 13}, game 1, action 11" in " ".join(res.output.split())
    res = _run("import", "openspiel", str(tmp_path / "missing.txt"), "--out", str(out))
    assert res.exit_code == 2
    (tmp_path / "empty.txt").write_text("\n")
    res = _run("import", "openspiel", str(tmp_path / "empty.txt"), "--out", str(out))
    assert res.exit_code == 2 and "holds no game" in res.output


def test_cli_rejects_unencodable_and_markup_text(tmp_path: Path) -> None:
    """A game id with a lone surrogate (JSON ``"\\ud800"``) cannot go into a UTF-8 log: that
    game is rejected at its line, the good game beside it is written; a game string with
    rich markup is shown literally."""
    good = (SAMPLES / "histories.openspiel.txt").read_text().splitlines()[0]
    obj = json.loads(good)
    src = tmp_path / "in.ndjson"
    src.write_text(
        good + "\n" + json.dumps(dict(obj, game_id="\ud800x")) + "\n"
        + json.dumps({"game": "[bold]go[/bold]", "history": [1]}) + "\n"
    )  # fmt: skip
    out = tmp_path / "out.jsonl"
    res = _run("import", "openspiel", str(src), "--out", str(out))
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert f"{src}:2, game 2: the game id or the file name is not valid Unicode" in text
    assert "game 3: not an OpenSpiel game string: '[bold]go[/bold]'" in text
    assert "imported 1 game(s)" in text
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["game_id"] == "in-1" and len(lines) == 103


def test_cli_loads_only_the_named_command() -> None:
    """``main`` imports only the module of the command named (the table in
    ``maumau_log.cli``); every command registered when all are loaded is in the table, with
    the module that registers it."""
    import subprocess
    import sys

    from maumau_log import cli

    for module in cli._ALL_MODULES:
        __import__(f"maumau_log.cli.{module}")
    where: dict[str, str] = {}
    for cmd in cli.app.registered_commands:
        assert cmd.callback is not None
        where[cmd.name or cmd.callback.__name__] = cmd.callback.__module__
    for group in cli.app.registered_groups:
        assert group.typer_instance is not None and group.name is not None
        first = group.typer_instance.registered_commands[0].callback
        assert first is not None
        where[group.name] = first.__module__
    table = {k: f"maumau_log.cli.{v}" for k, v in cli._COMMAND_MODULES.items()}
    # a wrong entry would make its command unknown; a missing one only slows its start-up
    assert table == where, "keep maumau_log.cli._COMMAND_MODULES in step with the commands"
    code = (
        "import sys\n"
        "sys.argv = ['maumau-log', 'import', 'openspiel', '--help']\n"
        "from maumau_log.cli import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "heavy = sorted(m for m in ('polars', 'pyarrow', 'scipy', 'maumau_log.engine',"
        " 'maumau_log.cli.replay_cmds') if m in sys.modules)\n"
        "print('RESULT', code, heavy, file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert "RESULT 0 []" in res.stderr, res.stderr[-500:]


def test_default_import_validates_clean_and_scores_audit_flags(tmp_path: Path) -> None:
    """On the shipped histories (no pyspiel needed): by default the import
    keeps OpenSpiel's returns only as ``openspiel_returns`` and every correct game
    validates clean; ``--returns scores`` makes the same games fail with ``wrong_score`` at
    their ``round_end``, with the figures worked out by hand here:

    - ``histories-3`` (2 players; p0 went out): p1 holds 2H 5H 7H 10D 10H JH QS AH. Face
      value (the preset's ``points``, OpenSpiel's documentation): 2+5+7+10+10+10+10+10 = 64.
      OpenSpiel's ScoreUp, card id + 2 for a number card: 2H (id 2) 4, 5H (id 14) 16,
      7H (id 22) 24, 10D (id 33) 35, 10H (id 34) 36, J Q A 10 each: 4+16+24+35+36+30 = 145.
    - ``histories-1`` (2 players, no winner): p0 holds 3H 5C 6D 9D QC: face 3+5+6+9+10 = 33,
      OpenSpiel 8+14+19+31+10 = 82 (3H id 6, 5C id 12, 6D id 17, 9D id 29); p1 holds 7C:
      face 7, OpenSpiel 22 (id 20).
    - ``histories-2`` (5 players; p2 went out): p0 holds 2S 9S 10S JC AS: face
      2+9+10+10+10 = 41, OpenSpiel 5+33+37+10+10 = 95 (2S id 3, 9S id 31, 10S id 35).
    """
    src = SAMPLES / "histories.openspiel.txt"
    plain, audit = tmp_path / "plain.jsonl", tmp_path / "audit.jsonl"
    res = _run("import", "openspiel", str(src), "--out", str(plain))
    assert res.exit_code == 0, res.output
    ends = [json.loads(ln) for ln in plain.read_text().splitlines() if '"round_end"' in ln]
    assert [e.get("scores") for e in ends] == [None, None, None]
    assert ends[2]["openspiel_returns"] == {"p0": 0, "p1": -145}
    assert ends[0]["openspiel_returns"] == {"p0": -82, "p1": -22}
    res = _run("validate", "--json", str(plain))
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert (report["games"], report["valid"], report["violations"]) == (3, 3, [])

    res = _run("import", "openspiel", str(src), "--returns", "scores", "--out", str(audit))
    assert res.exit_code == 0, res.output
    games = audit.read_text().splitlines()
    starts = [i for i, ln in enumerate(games) if '"type":"game"' in ln]
    ends_at = [i for i, ln in enumerate(games) if '"round_end"' in ln]
    res = _run("validate", "--json", str(audit))
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    assert (report["games"], report["invalid"]) == (3, 3)
    found = {v["game_id"]: v for v in report["violations"]}
    assert set(found) == {"histories-1", "histories-2", "histories-3"}
    for k, gid in enumerate(("histories-1", "histories-2", "histories-3")):
        v = found[gid]
        assert v["code"] == "wrong_score"
        # the round_end event: its line in the file, its index in its game (header = 0)
        assert v["line"] == ends_at[k] + 1
        assert v["event_index"] == ends_at[k] - starts[k]
    assert found["histories-3"]["event_index"] == 56
    assert "p1 -145" in found["histories-3"]["message"]
    assert "-64" in found["histories-3"]["message"]
    assert found["histories-3"]["expected"] == "p0 0, p1 -64"
    assert "p0 -82" in found["histories-1"]["message"]
    assert "-33" in found["histories-1"]["message"]
    assert found["histories-1"]["expected"] == "p0 -33, p1 -7"
    assert "p0 -95" in found["histories-2"]["message"]
    assert "-41" in found["histories-2"]["message"]


def test_import_validate_in_one_process(tmp_path: Path) -> None:
    """``import openspiel --validate`` validates the written log in the same
    process: the same JSON document and exit code as ``validate LOG`` run after the import,
    and the larger of the two exit codes when the import rejected a game."""
    src = SAMPLES / "histories.openspiel.txt"
    plain, audit = tmp_path / "plain.jsonl", tmp_path / "audit.jsonl"
    res = _run("import", "openspiel", str(src), "--out", str(plain), "--validate")
    assert res.exit_code == 0, res.output
    assert "3 games: 3 valid, 0 invalid" in res.output
    res = _run("import", "openspiel", str(src), "--returns", "scores", "--out", str(audit),
               "--validate", "--json")  # fmt: skip
    assert res.exit_code == 1
    together = json.loads(res.stdout)
    alone = _run("validate", "--json", str(audit))
    assert alone.exit_code == 1
    assert together == json.loads(alone.stdout)
    assert (together["games"], together["valid"], together["invalid"]) == (3, 0, 3)
    assert [v["code"] for v in together["violations"]] == ["wrong_score"] * 3
    # the report, not the document: the same lines as validate's (3 wrong_score, by game)
    res = _run("import", "openspiel", str(src), "--returns", "scores", "--out", str(audit),
               "--validate")  # fmt: skip
    assert res.exit_code == 1
    assert "by code: wrong_score 3" in res.output
    assert "3 games: 0 valid, 3 invalid" in res.output
    # a rejected game (exit 1) beside valid ones (validate: 0) gives 1
    good = src.read_text().splitlines()[0]
    mixed = tmp_path / "mixed.ndjson"
    mixed.write_text(good + "\n" + json.dumps({"game": "go", "history": [1]}) + "\n")
    res = _run("import", "openspiel", str(mixed), "--out", str(plain), "--validate")
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert f"{mixed}:2, game 2: the game is 'go'" in text
    assert "1 game: 1 valid, 0 invalid" in text
    res = _run("import", "openspiel", str(src), "--out", str(plain), "--json")
    assert res.exit_code == 2 and "--json needs --validate" in res.output


def test_validation_from_memory_equals_the_files(tmp_path: Path) -> None:
    """``import --validate`` replays the log it has just written from memory:
    the document is the file's own, for a plain and a compressed log, violations (their
    lines, 1-3 in a 3-game file) included, and a second game id use is noted alike."""
    import gzip

    from maumau_log.cli.replay_cmds import ValidationRun

    src = SAMPLES / "histories.openspiel.txt"
    games = [convert_source(s, str(src), "scores") for s in read_source(src)]
    lines = [json.dumps(e, separators=(",", ":")) for g in games for e in g]
    blob = ("\n".join(lines + lines[: len(games[0])]) + "\n").encode()  # game 1 twice
    plain, packed = tmp_path / "a.jsonl", tmp_path / "a.jsonl.gz"
    plain.write_bytes(blob)
    packed.write_bytes(gzip.compress(blob))
    for log in (plain, packed):
        runs = []
        for data in (None, blob):
            run = ValidationRun()
            run.run(None, [log], progress=False, data=data)
            runs.append(run)
        assert runs[0].as_json() == runs[1].as_json()
        doc = runs[1].as_json()
        assert (doc["games"], doc["invalid"], runs[1].exit_code) == (4, 4, 1)
        assert doc["duplicate_game_ids"] == ["histories-1"]
        firsts = [1, 1 + len(games[0]), 1 + len(games[0]) + len(games[1])]
        assert [v["line"] for v in doc["violations"]][:3] == [
            f + len(g) - 1 for f, g in zip(firsts, games, strict=True)
        ]
