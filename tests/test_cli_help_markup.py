"""Help text goes through rich's markup: a ``[word]`` left unescaped is taken for a style
tag and silently dropped (``maumau-log[ray]`` printed as ``maumau-log``). Every command's
help and every option's help must escape it as ``\\[``."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent

_TAG = re.compile(r"(?<!\\)\[[a-z/]")


def test_no_help_text_holds_an_unescaped_bracket_that_rich_would_drop() -> None:
    # the docs hook imports every command module and builds the click tree typer shows
    pytest.importorskip("click")
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    try:
        import cli_reference as cli
    finally:
        sys.path.pop(0)
    root = cli.root_command()
    dropped = []
    for path, command in cli.walk(root):
        texts = [command.help or ""] + [getattr(p, "help", "") or "" for p in command.params]
        for text in texts:
            dropped += [(path, text) for _ in _TAG.finditer(text)]
    assert dropped == []


def test_engine_option_help_names_the_ray_extra() -> None:
    from maumau_log.cli import app

    result = CliRunner().invoke(app, ["validate", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "needs maumau-log[ray])." in result.output
