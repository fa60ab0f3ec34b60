"""Tables that fit the terminal and the small things.

The screen tests run the real command in a pseudo-terminal of a fixed size (80 and 100
columns) and read what a terminal would show through pyte, a terminal emulator: a row that
wrapped would be split over two screen lines."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pyte
import pytest
from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.cli.tables import ci_text, short_name
from maumau_log.events import encode_event

runner = CliRunner()
LONG = "[red]<script>alert(1)</script>Grandmaster_Flash_2000"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("screen")
    log = tmp / "games.jsonl"
    with open(log, "wb") as fh:
        for game in simulate("classic", 4, 60, 11):
            for ev in game:
                fh.write(encode_event(ev).replace(b'"p1"', f'"{LONG}"'.encode()) + b"\n")
    ds = tmp / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 0
    return ds


def screen(args: list[str], columns: int, lines: int = 120) -> tuple[list[str], int]:
    """Run ``maumau-log ARGS`` on a terminal of ``columns`` x ``lines``; the screen's lines."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm"
    proc = subprocess.Popen(
        [sys.executable, "-m", "maumau_log", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    code = proc.wait()
    os.close(master)
    term = pyte.Screen(columns, lines)
    stream = pyte.ByteStream(term)
    stream.feed(data.replace(b"\n", b"\r\n"))
    return [line.rstrip() for line in term.display], code


@pytest.mark.parametrize("columns", [80, 100])
def test_stats_fits_the_terminal(dataset: Path, columns: int) -> None:
    shown, code = screen(["stats", str(dataset)], columns)
    assert code == 0
    text = "\n".join(shown)
    # every player row whole on one line: name, games, wins, win %, the CI, more numbers
    rows = [line for line in shown if re.match(r"^\s+(p[234]|\[red\])", line)]
    assert len(rows) == 4, text
    for line in rows:
        assert re.search(r" 60 +\d+ +\d+\.\d +\d+\.\d-\d+\.\d +\d+\.\d\d", line), line
    # the long, hostile name: escaped (no markup applied), cut with an ellipsis
    assert "[red]<script>alert(…" in text  # 19 characters and the ellipsis
    assert "Grandmaster" not in text
    # labelled: per game and totals
    assert "/game" in text
    if columns == 80:
        flat = " ".join(text.split())
        assert "not shown at 80 columns:" in flat and "--wide shows every column" in flat
        assert "tot." not in text.split("not shown")[0]  # totals did not fit at 80
    else:
        assert "calls tot." in text


def test_stats_wide_and_columns(dataset: Path) -> None:
    shown, _ = screen(["stats", str(dataset), "--columns", "games,ci,wild_played"], 80)
    header = next(line for line in shown if "games" in line)
    assert header.split() == ["player", "games", "(Wilson)", "cards", "tot."]
    wide, _ = screen(["stats", str(dataset), "--wide"], 80, 60)
    assert not any("not shown" in line for line in wide)
    bad = runner.invoke(app, ["stats", str(dataset), "--columns", "nope"])
    assert bad.exit_code == 2 and "unknown column 'nope'" in bad.output


@pytest.mark.parametrize("columns", [80, 100])
def test_audit_fits_and_says_in_one_line_why_tests_were_skipped(
    dataset: Path, columns: int
) -> None:
    few, _ = screen(["audit", str(dataset), "--min-games", "100"], columns, 300)
    skipped = [line for line in few if "tests skipped" in line]
    assert len(skipped) == 1, "\n".join(few)
    # 60 games, fewer than 100: every test is skipped, said once (it was a row per test)
    assert skipped[0].startswith("37 tests skipped: 37 fewer than 100 games (--min-games)")
    assert not any("fewer than the minimum" in line for line in few)
    shown, code = screen(["audit", str(dataset)], columns, 300)
    assert code in (0, 1)
    # numbers are never split: each test's first line is its check, whole, then its games,
    # p and Holm p whole (the subject and result follow on their own lines)
    rows = [line for line in shown if re.match(r"^  (deal|seats|invalid|calls|play)\w*:", line)]
    assert rows, "\n".join(shown)
    for line in rows:
        assert re.match(r"^  \w+: [\w:]+ +60 +(\d\.\d+|1|<\S+|\d\.\de-\d+) +\S+$", line), line


def test_confidence_interval_digits_at_a_million_games() -> None:
    # 500,000 wins of 1,000,000: Wilson 95% is 0.49902..0.50098; at 0 decimals "50-50"
    assert ci_text(0.4990201, 0.5, 0.5009799) == "49.9-50.1"
    # 500,200 of 1,000,000 (50.02%): one decimal is not enough to differ from 50.0
    assert ci_text(0.5000400, 0.5002, 0.5003999) == "50.00-50.04"
    assert ci_text(0.0, 0.0, 0.793) == "0.0-79.3"  # a bound equal to the estimate is fine
    assert short_name("x" * 30) == "x" * 19 + "…"


def test_version_help_and_ctrl_c(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from maumau_log import cli

    def run(*argv: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["maumau-log", *argv])
        monkeypatch.setenv("COLUMNS", "100")
        with pytest.raises(SystemExit) as stop:
            cli.main()
        got = capsys.readouterr()
        return int(stop.value.code or 0), got.out, got.err

    code, out, _ = run("--version")
    assert (code, out.strip()) == (0, "maumau-log 0.1.0")
    code, out, _ = run("validate", "--help")
    assert code == 0
    assert "Usage: maumau-log validate [OPTIONS] PATH..." in out
    flat = " ".join(out.replace("│", " ").split())
    assert "A TOML ruleset file whose [options] table overrides every game's preset" in flat
    for bad in ("{paths}", "<list[Path]>", "<bool>", "<path>", "whose  override"):
        assert bad not in out, bad
    _, out, _ = run("game", "--help")
    assert "Usage: maumau-log game [OPTIONS] SOURCE [GAME_ID]" in out and "--at          N" in out


def test_ctrl_c_during_ingest_says_the_dataset_is_as_it_was(tmp_path: Path) -> None:
    import signal
    import time

    log = tmp_path / "big.jsonl"
    with open(log, "wb") as fh:
        for game in simulate("classic", 4, 3000, 3):
            for ev in game:
                fh.write(encode_event(ev) + b"\n")
    ds = tmp_path / "ds"
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"\n".join(encode_event(e) for e in next(simulate("classic", 2, 1, 1))))
    assert runner.invoke(app, ["ingest", str(first), "--out", str(ds)]).exit_code == 0
    before = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "maumau_log", "ingest", str(log), "--out", str(ds)],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".tmp-") for p in ds.iterdir()):  # it is writing
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"interrupted; the dataset is as it was ({ds} was not changed)" in err
    after = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


runner = CliRunner()


def test_ingest_and_simulate_counts(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    res = runner.invoke(
        app, ["simulate", "--out", str(log), "--ruleset", "classic", "--games", "1", "--seed", "2"]
    )
    n = len(log.read_bytes().splitlines())
    assert f"wrote 1 game, {n:,} events to {log}" in " ".join(res.output.split())
    res = runner.invoke(
        app,
        ["simulate", "--out", str(log), "--ruleset", "classic", "--games", "30", "--seed", "2"],
    )
    n = len(log.read_bytes().splitlines())
    assert n >= 1000  # 30 four-player games hold well over a thousand events
    assert f"wrote 30 games, {n:,} events" in res.output
    res = runner.invoke(app, ["ingest", str(log), "--out", str(tmp_path / "ds")])
    assert f"({n:,} events in " in " ".join(res.output.split())
