"""Lone surrogates: text that is no Unicode never loses a game or crashes an output.

A lone surrogate reaches a Python string from a JSON ``"\\ud800"`` escape read by
:mod:`json` (msgspec refuses it: the line is ``bad_json``, but a header-looking line's game
id is guessed with :mod:`json`) or from a file name whose bytes are not UTF-8. UTF-8 (a
JSON document, a Parquet string, a terminal) cannot hold it.
The rule: where such text is reported or stored it becomes U+FFFD; the terminal shows it as
a ``\\udXXX`` escape; the game it belongs to is reported with a located violation and the
games around it are replayed and stored as usual.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.data_cmds  # (registers the commands)
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app, clean
from maumau_log.events import encode_event, has_lone_surrogate, valid_json, valid_text
from maumau_log.store import scan_all

ROOT = Path(__file__).resolve().parent.parent
GOOD = [[encode_event(e) for e in g] for g in simulate("standard", 2, 4, 77)]
IDS = [f"sim-standard-2p-77-{k:06d}" for k in range(4)]
BAD_HEADER = (
    b'{"type":"game","format":"maumau-log/1","game_id":"bad\\ud800","ruleset":"standard",'
    b'"players":["a","b"]}'
)


def jsonl(*parts: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for p in parts for line in p)


def test_valid_text_replaces_only_lone_surrogates() -> None:
    assert valid_text("ana \U0001f600") == "ana \U0001f600"
    assert valid_text("a\ud800b\udcffc") == "a\ufffdb\ufffdc"
    assert valid_json({"k\ud800": ["\udc00", 1, None, ("x",)]}) == {
        "k\ufffd": ["\ufffd", 1, None, ["x"]]
    }
    deep: list[object] = ["\ud800"]
    for _ in range(5000):  # walked with a stack: no recursion limit
        deep = [deep]
    assert has_lone_surrogate(deep) and not has_lone_surrogate([[["ok"]], {"a": 1}])
    assert clean("bad\udcffname") == "bad\\udcffname"


def test_a_lone_surrogate_in_a_header_line_fails_that_game_only(tmp_path: Path) -> None:
    # was: validate --json exit 3 with no JSON; ingest exit 4, 0 games stored, every re-run
    log = tmp_path / "surrogate.jsonl"
    log.write_bytes(jsonl(GOOD[0], GOOD[1], [BAD_HEADER, b'{"type":"pass","player":"a"}'],
                          GOOD[2], GOOD[3]))  # fmt: skip
    line = len(GOOD[0]) + len(GOOD[1]) + 1
    res = CliRunner().invoke(app, ["validate", "--json", str(log)])
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["valid"], doc["failed_shards"]) == (5, 4, [])
    [v] = doc["violations"]
    assert (v["game_id"], v["line"], v["event_index"], v["code"]) == (
        "bad\ufffd", line, 0, "bad_json",
    )  # fmt: skip
    assert v["message"] == (
        "not valid JSON: JSON is malformed: unexpected end of escaped utf-16 surrogate pair "
        "(byte 59)"
    )
    res = CliRunner().invoke(app, ["validate", str(log)])  # the readable report
    assert res.exit_code == 1 and "game bad\ufffd, event 0" in res.stderr
    data = tmp_path / "ds"
    for added in (5, 0):  # the re-run finds them all stored
        res = CliRunner().invoke(app, ["ingest", str(log), "--out", str(data)])
        assert res.exit_code == 1, res.output
        assert f"5 games read (4 valid, 1 invalid): {added} added" in res.stderr
    ids = scan_all(data)["games"].collect()["game_id"].to_list()
    assert sorted(ids) == sorted([*IDS, "bad\ufffd"])


def test_a_lone_surrogate_anywhere_in_a_line_is_a_located_violation(tmp_path: Path) -> None:
    bad_lines = [
        b'{"type":"play","player":"p1\\udc00","cards":["7H"]}',  # a player
        b'{"type":"play","player":"p1","cards":["7H\\ud800"]}',  # a card
        b'{"type":"mau","player":"p1","call":"mau","meta":{"\\ud800":1}}',  # an unknown key
        b'{"type":"play","player":5,"cards":["\\ud800"]}',  # a schema error first
    ]
    for k, bad in enumerate(bad_lines):
        log = tmp_path / f"line{k}.jsonl"
        g = list(GOOD[1])
        g.insert(3, bad)
        log.write_bytes(jsonl(GOOD[0], g, GOOD[2]))
        res = CliRunner().invoke(app, ["validate", "--json", str(log)])
        assert res.exit_code == 1, res.output
        doc = json.loads(res.stdout)
        assert (doc["games"], doc["valid"]) == (3, 2)
        [v] = doc["violations"]
        assert (v["game_id"], v["line"], v["event_index"]) == (IDS[1], len(GOOD[0]) + 4, 3)
        assert v["code"] == ("schema_error" if k == 3 else "bad_json")
        assert not has_lone_surrogate(v)


def test_a_file_name_that_is_not_utf8_is_reported_and_stored(tmp_path: Path) -> None:
    # was: ingest exit 4 (the Parquet writer refused the name), nothing stored
    folder = tmp_path / "logs"
    folder.mkdir()
    raw_name = os.fsencode(folder) + b"/bad\xffname.jsonl"
    g = list(GOOD[1])
    g.insert(3, b'{"type":"pass"}')
    with open(raw_name, "wb") as fh:
        fh.write(jsonl(GOOD[0], g))
    res = CliRunner().invoke(app, ["validate", "--json", str(folder)])
    assert res.exit_code == 1, res.output
    [v] = json.loads(res.stdout)["violations"]
    assert v["file"] == str(folder / "bad\ufffdname.jsonl")
    res = CliRunner().invoke(app, ["ingest", str(folder), "--out", str(tmp_path / "ds")])
    assert res.exit_code == 1, res.output
    games = scan_all(tmp_path / "ds")["games"].collect()
    assert sorted(games["game_id"].to_list()) == IDS[:2]
    assert set(games["source_file"].to_list()) == {str(folder / "bad\ufffdname.jsonl")}


def test_the_command_writes_valid_utf8_whatever_the_names(tmp_path: Path) -> None:
    # the real program on a UTF-8 terminal (strict encoding): a binary file whose name is
    # not UTF-8 is listed unreadable (escaped on the terminal, U+FFFD in JSON), the header
    # with a lone surrogate is a violation; exit 1, never 3
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(jsonl(GOOD[0], [BAD_HEADER]))
    with open(os.fsencode(folder) + b"/bin\xfe.jsonl", "wb") as fh:
        fh.write(b"\x00\x01\x02" * 100)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8:strict"}
    run = [sys.executable, "-m", "maumau_log", "validate", str(folder)]
    human = subprocess.run(run, env=env, capture_output=True, timeout=120)
    assert human.returncode == 1, human.stderr
    text = human.stderr.decode("utf-8")  # valid UTF-8
    assert f"unreadable: {folder}/bin\\udcfe.jsonl:" in text
    assert "game bad\ufffd, event 0" in text
    as_json = subprocess.run([*run, "--json"], env=env, capture_output=True, timeout=120)
    assert as_json.returncode == 1, as_json.stderr
    doc = json.loads(as_json.stdout.decode("utf-8"))
    assert doc["unreadable"] == [
        f"{folder}/bin\ufffd.jsonl: not a text log: binary content (NUL bytes) at byte offset 0"
    ]
    assert [v["game_id"] for v in doc["violations"]] == ["bad\ufffd"]
