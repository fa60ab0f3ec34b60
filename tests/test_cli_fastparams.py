"""The direct converter of plain command-line values (``maumau_log/cli/fastparams.py``, issue
12): the same values and the same refusals as typer's own (pydantic) converter, and a
command that needs nothing else starts without importing pydantic."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from maumau_log.cli import _register, app
from maumau_log.cli.fastparams import direct_values

ROOT = Path(__file__).resolve().parent.parent
_coercion = pytest.importorskip("typer._coercion")  # typer 0.2x: the hook exists


def _command() -> Any:
    _register([])  # every command module
    command = typer.main.get_command(app)
    assert direct_values(command) > 20
    return command


def _params(command: Any) -> list[Any]:
    out = list(command.params)
    for sub in getattr(command, "commands", {}).values():
        out += _params(sub)
    return out


def _both(param: Any, value: Any) -> tuple[Any, Any]:
    """(direct result or its error text, typer's result or its error text)."""
    ctx = typer.Context(typer.main.get_command(app))
    results = []
    for conv in (param._runtime_param, _coercion.build_runtime_param(param.type_descriptor)):
        try:
            results.append(("ok", conv.coerce(value, param=param, ctx=ctx)))
        except Exception as exc:  # the refusal: its type and message
            results.append((type(exc).__name__, str(exc)))
    return results[0], results[1]


def test_direct_values_equal_typers(tmp_path: Path) -> None:
    command = _command()
    given = [p for p in _params(command) if type(p._runtime_param).__name__ == "_Direct"]
    kinds = {p._runtime_param.kind for p in given}
    assert kinds == {"str", "path", "int", "enum", "bool"}
    real = tmp_path / "log.jsonl"
    real.write_text("{}\n")
    samples: dict[str, list[Any]] = {
        "str": ["abc", "", "ü x", None, 5],
        "bool": [True, False, None, "yes"],
        "path": [str(real), str(tmp_path), "no/such/file", "-", "", None],
        "int": ["0", "1", "2", "10", "11", "012", "-3", "abc", "1.5", " 4", "٣", 7, None],
        "enum": ["field", "scores", "SCORES", "bogus", "local", "ray", None],
    }
    checked = 0
    for param in given:
        conv = param._runtime_param
        for value in samples[conv.kind]:
            if conv.many and value is not None:
                value = (value, value)
            direct, typers = _both(param, value)
            assert direct == typers, (param.name, value)
            checked += 1
    assert checked > 100


def test_bad_values_keep_typers_message() -> None:
    """The refusal is typer's own, word for word (here: --players 1 below min 2)."""
    command = _command()
    sim = command.commands["simulate"]
    players = next(p for p in sim.params if p.name == "players")
    direct, typers = _both(players, "1")
    assert direct == typers
    assert direct[0] == "BadParameter"
    assert "greater than or equal to 2" in direct[1]


def test_import_validate_starts_without_pydantic(tmp_path: Path) -> None:
    src = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"
    code = (
        "import sys\n"
        f"sys.argv = ['maumau-log', 'import', 'openspiel', {str(src)!r}, '--out', "
        f"{str(tmp_path / 'o.jsonl')!r}, '--validate']\n"
        "from maumau_log.cli import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "print(code, 'pydantic' in sys.modules)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=tmp_path)  # fmt: skip
    assert res.stdout.split() == ["0", "False"]
