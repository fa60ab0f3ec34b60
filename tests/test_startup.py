"""The start-up of a command-line process: what the hot commands
(``validate``, ``import openspiel --validate``) do not load or build, the collector off
during the CLI's imports, and highlighting skipped only where it cannot show. No timings
(the figures are in the session notes); each check is of a value."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from maumau_log.cli import colours
from maumau_log.logs import notation

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "sample_logs" / "valid" / "standard_2p.jsonl"
HISTORIES = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"

NOT_LOADED = (
    "rich",
    "maumau_log.logs.notation.lexer",
    "maumau_log.logs.notation.reader",
    "maumau_log.logs.notation.writer",
    "polars",
    "pyarrow",
    "scipy",
    "multiprocessing",
    "concurrent.futures",
    "ray",
    "tomli",
    "rich.markdown",
    "rich.traceback",
    "typer.rich_utils",
    "jsonschema",
    "pydantic",
)
"""Modules a ``--jobs 1`` validate or an ``import openspiel --validate`` of JSON Lines logs
never needs (the notation's parser, the dataset and statistics libraries, the process pools,
typer's help renderer, the schema validator, typer's pydantic converters), nor rich: their
report to a file or a pipe is one plain line (:class:`maumau_log.cli.lazy_console.LazyConsole`)."""

_CHILD = r"""
import builtins, gc, sys
seen, built = {}, []

class Spy:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in ("typer", "rich"):
            seen.setdefault(name, gc.isenabled())
        return None

def get_command(app, real=[]):
    command = real[0](app)
    built.append(sorted(getattr(command, "commands", {})))
    return command

real_import = builtins.__import__

def spying_import(*a, **k):
    module = real_import(*a, **k)
    tm = sys.modules.get("typer.main")
    if hasattr(tm, "get_command") and not get_command.__defaults__[0]:
        get_command.__defaults__[0].append(tm.get_command)
        tm.get_command = get_command
    return module

sys.meta_path.insert(0, Spy)
builtins.__import__ = spying_import
sys.argv = ["maumau-log", *sys.argv[1:]]
from maumau_log.launch import run

try:
    run()
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in NOT_LOADED if m in sys.modules)
print("RESULT", code, seen, built, heavy, gc.isenabled(), file=sys.stderr)
"""


def _start(*argv: str) -> str:
    """Run ``maumau-log ARGV`` through :func:`maumau_log.launch.run` in a child process;
    its ``RESULT`` line (exit code, gc state at typer's and rich's import, the commands
    built, the heavy modules loaded, gc state at the end)."""
    code = f"NOT_LOADED = {NOT_LOADED!r}\n" + _CHILD
    res = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    )
    line = [x for x in res.stderr.splitlines() if x.startswith("RESULT")]
    assert line, res.stderr[-800:]
    return line[0]


def test_validate_start_up_loads_and_builds_only_what_it_uses() -> None:
    """``validate --jobs 1`` of a JSON Lines log: exit 0; the collector was off when typer
    was imported and is on at the end; only ``validate``'s click command was built; none
    of :data:`NOT_LOADED` (rich included) was imported."""
    result = _start("validate", "--jobs", "1", str(LOG))
    assert result == "RESULT 0 {'typer': False} [['validate']] [] True", result


def test_import_validate_start_up_loads_and_builds_only_what_it_uses(tmp_path: Path) -> None:
    """``import openspiel --validate``: the same, with only the ``import`` group built."""
    out = tmp_path / "o.jsonl"
    result = _start("import", "openspiel", str(HISTORIES), "--out", str(out), "--validate")
    assert result == "RESULT 0 {'typer': False} [['import']] [] True", result


def test_ingest_of_games_outside_matches_loads_no_polars(tmp_path: Path) -> None:
    """``ingest --jobs 1`` of a log without matches into a new dataset: exit 0, only the
    ``ingest`` command built, and Polars never imported (it is for reading a dataset back:
    about 0.2 CPU s of every ingest's start-up before), nor scipy, ray or the process
    pools; pyarrow, which writes the files, is loaded."""
    code = f"NOT_LOADED = {(*NOT_LOADED, 'pyarrow.parquet')!r}\n" + _CHILD
    argv = ["ingest", "--jobs", "1", "--no-progress", str(LOG), "-o", str(tmp_path / "ds")]
    res = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    result = next((x for x in res.stderr.splitlines() if x.startswith("RESULT")), "")
    assert result.startswith("RESULT 0 ") and "[['ingest']]" in result, res.stderr[-800:]
    # the modules of NOT_LOADED imported: the writer's (and the summary's rich) alone
    assert result.endswith("[['ingest']] ['pyarrow', 'pyarrow.parquet', 'rich'] True"), result


def test_help_still_builds_every_command() -> None:
    """A command line naming no command (``--help``) builds the whole tree."""
    result = _start("--help")
    built = result.split("[[", 1)[1].split("]]", 1)[0]
    for name in ("validate", "import", "ingest", "stats", "rules", "simulate"):
        assert f"'{name}'" in built, result


def test_notation_names_load_on_first_use() -> None:
    """The notation package's lazy names are its modules' own objects."""
    from maumau_log.logs.notation import lexer, reader, writer

    assert notation.NotationError is lexer.NotationError
    assert notation.to_notation is writer.to_notation
    assert notation.parse_action is reader.parse_action
    assert notation.BadLine is lexer.BadLine
    assert list(notation.located_lines("game g1\nbogus line\n")) == list(
        reader.located_lines("game g1\nbogus line\n")
    )


def test_highlighting_skipped_only_where_it_cannot_show() -> None:
    """:func:`maumau_log.cli.colours`: False on a console without colours, where the text
    printed with and without highlighting is the same; True on a colour terminal, where
    highlighting shows (so it stays on there)."""
    line = "[bold green]960 games: 960 valid, 0 invalid[/] 'x' 1.5 None"
    plain = [Console(file=io.StringIO(), soft_wrap=True, emoji=False) for _ in range(2)]
    assert not colours(plain[0])
    for console, highlight in zip(plain, (True, False), strict=True):
        console.print(line, highlight=highlight)
    texts = [c.file.getvalue() for c in plain]  # type: ignore[attr-defined]
    assert texts[0] == texts[1] == "960 games: 960 valid, 0 invalid 'x' 1.5 None\n"
    tty = [
        Console(file=io.StringIO(), force_terminal=True, color_system="truecolor") for _ in range(2)
    ]
    assert colours(tty[0])
    for console, highlight in zip(tty, (True, False), strict=True):
        console.print(line, highlight=highlight)
    shown = [c.file.getvalue() for c in tty]  # type: ignore[attr-defined]
    assert shown[0] != shown[1]


def test_card_tables_shared_between_rulesets_that_agree_on_the_cards() -> None:
    """Rulesets that differ only in options no card depends on share the work of their
    ``cards`` table (36 OpenSpiel game strings, 2 tables), each getting its own
    dict equal to the table made afresh; a Ruleset made by hand with lists still works."""
    import msgspec

    from maumau_log.rules import _card_table, resolve

    two = resolve("crazy-eights", {"max_draws": 1})
    five = resolve("crazy-eights", {"max_draws": 5})
    assert two is not five and two.cards == five.cards and two.cards is not five.cards
    fresh = _card_table(
        five.pack, five.wild, tuple(sorted(five.draw.items())),
        tuple(sorted(five.draw_previous.items())), five.skip, five.reverse, five.play_again,
        five.cover, five.no_finish_on, five.draw_cancel, five.starter_redeal,
        tuple(sorted(five.points.items())),
    )  # fmt: skip
    assert five.cards == fresh and list(five.cards) == list(fresh)
    by_hand = msgspec.structs.replace(resolve("classic"), wild=["J"])
    assert by_hand.cards["JS"].wild and not by_hand.cards["7S"].wild


def test_quick_exit_keeps_exit_codes_and_output() -> None:
    """``python -m maumau_log validate`` (a :data:`maumau_log.launch.QUICK_EXIT` command,
    ended without the interpreter's teardown): the exit codes 0, 1 and 2, and the whole
    ``--json`` document on stdout."""
    import json

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "maumau_log", *argv], capture_output=True, text=True
        )

    assert run("validate", "--jobs", "1", str(LOG)).returncode == 0
    bad = run("validate", "--jobs", "1", "--json", str(ROOT / "sample_logs" / "violations"))
    assert bad.returncode == 1
    document = json.loads(bad.stdout)
    assert document["invalid"] > 0 and len(document["violations"]) >= document["invalid"]
    missing = run("validate", "--jobs", "1", str(ROOT / "no-such-file.jsonl"))
    assert missing.returncode == 2 and "no-such-file" in missing.stderr


def test_import_help_loads_no_conversion() -> None:
    """``import openspiel --help`` registers the command without the conversion's modules
    (the OpenSpiel port, msgspec, the events): they load when the command runs."""
    result = _start("import", "openspiel", "--help")
    # help is rendered by typer's rich_utils (rich, rich.markdown, rich.traceback): nothing
    # else; rich is first imported there, after start-up (the collector is on again)
    helpers = "['rich', 'rich.markdown', 'rich.traceback', 'typer.rich_utils']"
    assert result == f"RESULT 0 {{'typer': False, 'rich': True}} [['import']] {helpers} True"
    code = (
        "import sys\n"
        "sys.argv = ['maumau-log', 'import', 'openspiel', '--help']\n"
        "from maumau_log.launch import run\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in ('maumau_log.openspiel', 'msgspec',"
        " 'maumau_log.events') if m in sys.modules), file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "LOADED []" in res.stderr, res.stderr[-800:]
