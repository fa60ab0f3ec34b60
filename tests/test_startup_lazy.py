"""What a short command-line process imports, seen from outside (``python -X importtime``
of the real entry point), and the consoles made on first use: the plain summary line is
byte for byte what rich writes, and rich still decides wherever styles may show."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from maumau_log.cli.lazy_console import LazyConsole, as_rich, plain, surely_plain

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "sample_logs" / "valid" / "standard_2p.jsonl"
HISTORIES = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"

UNUSED = ("rich", "polars", "pyarrow", "concurrent.futures", "multiprocessing", "scipy")
"""Packages a ``--jobs 1`` validate or an ``import openspiel --validate`` whose report goes to
a pipe never needs: the dataset and statistics libraries, the process pools, rich."""


def _imported(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str], list[str]]:
    """Run ``python -X importtime -m maumau_log ARGV`` (stderr a pipe, not a terminal, no
    ``FORCE_COLOR``); the process, the names of the modules its import log lists and the
    other lines of its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    res = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "maumau_log", *argv],
        capture_output=True, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in res.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "maumau_log.launch" in names and "typer" in names, res.stderr[-800:]
    return res, names, [x for x in res.stderr.splitlines() if not x.startswith("import time:")]


def _loaded(names: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in packages))


def test_validate_process_imports_no_rich_no_dataset_libraries_no_pools() -> None:
    """``maumau-log validate --jobs 1`` of a two-game log: exit 0, the report's one line on
    stderr, and none of :data:`UNUSED` in the import log."""
    res, names, lines = _imported("validate", "--jobs", "1", str(LOG))
    assert res.returncode == 0
    assert lines == ["2 games: 2 valid, 0 invalid"]
    assert _loaded(names, UNUSED) == []


def test_import_validate_process_imports_no_rich_no_dataset_libraries_no_pools(
    tmp_path: Path,
) -> None:
    """``import openspiel --validate`` of three histories: exit 0, its two summary lines (240
    events: the 240 lines of the written log),
    and none of :data:`UNUSED` in the import log."""
    out = tmp_path / "o.jsonl"
    res, names, lines = _imported(
        "import", "openspiel", str(HISTORIES), "--out", str(out), "--validate"
    )
    assert res.returncode == 0
    assert lines == [
        f"imported 3 game(s), 240 events, to {out}",
        "3 games: 3 valid, 0 invalid",
    ]
    assert _loaded(names, UNUSED) == []


def test_violations_report_still_printed_by_rich() -> None:
    """A report with violations is rich's (markup, escapes): rich is imported then."""
    bad = ROOT / "sample_logs" / "violations" / "bad_seq.jsonl"
    res, names, lines = _imported("validate", "--jobs", "1", str(bad))
    assert res.returncode == 1
    assert "rich.console" in names
    assert lines[-2:] == ["by code: bad_seq 1", "1 game: 0 valid, 1 invalid"]


def test_version_registers_no_command_module() -> None:
    """``maumau-log --version``: exit 0, one line, and no command's module imported (the
    eager option exits before any command is looked up)."""
    res, names, lines = _imported("--version")
    assert res.returncode == 0
    assert res.stdout.startswith("maumau-log ") and res.stdout.count("\n") == 1 and lines == []
    assert _loaded(names, ("maumau_log.cli.replay_cmds", "maumau_log.cli.data_cmds")) == []
    assert _loaded(names, UNUSED) == []


class _Pipe(io.StringIO):
    """A stream that is no terminal."""

    def isatty(self) -> bool:
        return False


class _Tty(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("text", "style"),
    [("2 games: 2 valid, 0 invalid", "bold green"), ("imported 3 game(s), to /tmp/o", "")],
)
def test_plain_line_is_what_rich_writes(text: str, style: str) -> None:
    """On a pipe, :meth:`LazyConsole.line` writes, without making the rich console, the
    bytes a rich console writes for the same markup."""
    lazy_stream, rich_stream = _Pipe(), _Pipe()
    lazy = LazyConsole(file=lazy_stream, soft_wrap=True, emoji=False)
    lazy.line(text, style)
    assert lazy._console is None
    markup = f"[{style}]{text}[/]" if style else text
    Console(file=rich_stream, soft_wrap=True, emoji=False).print(markup, highlight=False)
    assert lazy_stream.getvalue() == rich_stream.getvalue() == text + "\n"


def test_line_goes_through_rich_where_styles_may_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal, ``FORCE_COLOR`` or text rich would change (markup, a backslash, a
    non-ASCII character): the rich console prints the line, with its styles."""
    tty = _Tty()
    lazy = LazyConsole(file=tty, soft_wrap=True, emoji=False, color_system="standard")
    lazy.line("2 games: 2 valid, 0 invalid", "bold green")
    assert lazy._console is not None
    assert tty.getvalue().startswith("\x1b[1;32m2")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not surely_plain(_Pipe())
    monkeypatch.delenv("FORCE_COLOR")
    assert surely_plain(_Pipe()) and not surely_plain(_Tty()) and not surely_plain(None)
    for text in ("a [b] c", "a\\b", "wrote to ü.jsonl", "tab\there"):
        assert not plain(text)
        stream = _Pipe()
        LazyConsole(file=stream, soft_wrap=True).line(text)
        expected = _Pipe()
        Console(file=expected, soft_wrap=True).print(text, highlight=False)
        assert stream.getvalue() == expected.getvalue()


def test_is_terminal_answered_without_rich_on_a_pipe() -> None:
    """:attr:`LazyConsole.is_terminal`: False on a pipe without making the console; on a
    terminal, rich's answer (True); :func:`as_rich` gives the console itself."""
    pipe = LazyConsole(file=_Pipe())
    assert pipe.is_terminal is False and pipe._console is None
    tty = LazyConsole(file=_Tty())
    assert tty.is_terminal is True and isinstance(as_rich(tty), Console)
    real = Console(file=_Pipe())
    assert as_rich(real) is real
