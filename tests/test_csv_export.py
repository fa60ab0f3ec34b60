"""CSV safe for a terminal and a spreadsheet: a player's text that a terminal or a spreadsheet
would run (escape sequences, formulas, tabs) is written escaped or quoted, in stats and
query output alike."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.cli.frames import csv_text
from maumau_log.events import encode_event

runner = CliRunner()


# 4. CSV safe for a terminal and a spreadsheet

HOSTILE = {
    "p1": "\x1b[31mred",
    "p2": '=HYPERLINK("http://x","y")',
    "p3": "+1",
    "p4": "tab\there",
}
WRITTEN = {
    "\\u001b[31mred",
    '\'=HYPERLINK("http://x","y")',
    "'+1",
    "tab\\u0009here",
}


def test_csv_text_by_hand() -> None:
    assert csv_text("\x1b[31mred") == "\\u001b[31mred"
    assert csv_text("=1+1") == "'=1+1"
    assert csv_text("-2") == "'-2" and csv_text("@SUM(A1)") == "'@SUM(A1)"
    assert csv_text("line\nbreak\r") == "line\\u000abreak\\u000d"
    assert csv_text("\x9b2J") == "\\u009b2J"  # C1 CSI
    assert csv_text("\u202eevil") == "\\u202eevil"  # bidi override
    assert csv_text("\t=1") == "\\u0009=1"  # starts with a backslash now: no formula
    assert csv_text("ana-maria") == "ana-maria" and csv_text("Zoë") == "Zoë"


def test_stats_and_query_csv_escape_hostile_names(tmp_path: Path) -> None:
    log = tmp_path / "h.jsonl"
    with open(log, "wb") as fh:
        for game in simulate("classic", 4, 5, 17):
            for ev in game:
                line = encode_event(ev)
                for old, new in HOSTILE.items():
                    line = line.replace(f'"{old}"'.encode(), json.dumps(new).encode())
                fh.write(line + b"\n")
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["ingest", str(log), "--out", str(ds)]).exit_code == 0
    res = runner.invoke(app, ["stats", str(ds), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.stdout and "\t" not in res.stdout
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert {r["player"] for r in rows} == WRITTEN
    assert all(r["games"] == "5" for r in rows)  # numbers stay numbers
    res = runner.invoke(
        app, ["query", str(ds), "select distinct player from results order by player", "--format",
              "csv"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert {r["player"] for r in csv.DictReader(io.StringIO(res.stdout))} == WRITTEN
    # JSON keeps the names exactly
    res = runner.invoke(app, ["stats", str(ds), "--format", "json"])
    assert {r["player"] for r in json.loads(res.stdout)} == set(HOSTILE.values())
