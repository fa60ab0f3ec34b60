"""Numbers of thousands of digits, JSON nested a thousand deep, lone surrogates: in a
``--try`` action, a ``.mm`` file, a ``--rules`` file or an OpenSpiel history they are
located usage errors (exit 2), rejections (exit 1) or the violation ``bad_notation`` of
their game; never an internal error (exit 3) or a lost file (exit 4).

Python turns at most 4,300 digits into an int (``sys.get_int_max_str_digits``; ``int()``
and :mod:`json` raise ValueError beyond) and its parsers (json, tomllib) recurse per
nesting level (RecursionError at about 1,000).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import maumau_log.cli.bots_cmds  # (registers the commands)
import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds
import maumau_log.cli.import_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.events import encode_event
from maumau_log.logs.notation import NotationError, from_notation, parse_action

ROOT = Path(__file__).resolve().parent.parent
DISPUTE = ROOT / "sample_logs" / "disputes" / "standard_seven_on_seven.mm"
HISTORIES = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"
runner = CliRunner()

BIG = "9" * 5000
DEEP = "[" * 5000 + "]" * 5000
NOT_TEXT = (
    "a lone surrogate is no character (the notation and the log are UTF-8 text): a "
    "'\\ud800'-style escape without its pair, or a byte that is not UTF-8"
)
HINT = ' (e.g. "ben plays 7C", "ben draws")'


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("action", "column", "why"),
    [
        ('ana plays 7H {"x": "\\ud800"}', 14, f"bad JSON object: {NOT_TEXT}"),
        ("ana plays 7H\udcff", 13, NOT_TEXT),  # an argument that is not UTF-8
        (f'ana plays 7H {{"x": {DEEP}}}', 14, "bad JSON object: nested too deeply to read"),
        (
            f'ana plays 7H {{"x": {BIG}}}',
            14,
            "bad JSON object: a number of more than 4,300 digits",
        ),
        (f"ana draws {BIG}", 11, "the count: a number of more than 4,300 digits"),
        (f"ana draws ?{BIG}", 12, "the count: a number of more than 4,300 digits"),
        (f"ana plays 7H @{BIG}", 15, "the time: a number of more than 4,300 digits"),
    ],
    ids=["surrogate escape", "surrogate argument", "deep", "big json", "count", "?count", "time"],
)
def test_try_refuses_text_python_cannot_read_with_its_column(
    action: str, column: int, why: str
) -> None:
    with pytest.raises(NotationError) as info:
        parse_action(action)
    assert (info.value.column, info.value.message) == (column, why)
    r = runner.invoke(app, ["game", str(DISPUTE), "club-2024-031", "--at", "5", "--try", action])
    assert r.exit_code == 2, r.output
    assert one_line(r.stderr) == one_line(f"error: --try: column {column}: {why}{HINT}")


MM_HEAD = "game g1\nruleset: standard\nplayers: a b\n"
MM_DEAL = "hand a 7H 8H 9H 10H JH\nhand b 7C 8C 9C 10C JC\nstarter 7D\n"


@pytest.mark.parametrize(
    ("text", "line", "column", "why"),
    [
        (f"{MM_HEAD}meta: {DEEP}\n{MM_DEAL}", 4, 7, "meta takes a JSON value (nested too deeply "
         "to read)"),
        (f"{MM_HEAD}round: {BIG}\n{MM_DEAL}", 4, 8, "round: a number of more than 4,300 digits"),
        (f'{MM_HEAD}{MM_DEAL}a plays 7H {{"x": "\\udc00"}}\n', 7, 12, f"bad JSON object: "
         f"{NOT_TEXT}"),
        (f"{MM_HEAD}{MM_DEAL}end a scores a {BIG}\n", 7, 16, "a's points: a number of more "
         "than 4,300 digits"),
    ],
    ids=["deep header", "big round", "surrogate", "big points"],
)  # fmt: skip
def test_a_mm_file_python_cannot_read_is_a_located_error(
    tmp_path: Path, text: str, line: int, column: int, why: str
) -> None:
    # convert: exit 2 with FILE:LINE:COLUMN (was exit 3); validate: the game's bad_notation
    # and the next game replayed (was exit 4, the file lost)
    with pytest.raises(NotationError) as info:
        from_notation(text)
    assert (info.value.line, info.value.column, info.value.message) == (line, column, why)
    mm = tmp_path / "bad.mm"
    mm.write_text(text + "\n" + DISPUTE.read_text(encoding="utf-8"), encoding="utf-8")
    r = runner.invoke(app, ["convert", str(mm), "--out", str(tmp_path / "out.jsonl")])
    assert r.exit_code == 2, r.output
    assert one_line(r.stderr) == one_line(f"error: {mm}:{line}:{column}: {why}")
    r = runner.invoke(app, ["validate", "--json", str(mm)])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["games"] == 2 and doc["failed_shards"] == []
    first = doc["violations"][0]
    assert (first["game_id"], first["code"]) == ("g1", "bad_notation")
    assert first["message"] == f"column {column}: {why}"
    assert [v["game_id"] for v in doc["violations"]][1:] == ["club-2024-031"]  # its own fault


def test_convert_keeps_a_log_line_with_a_lone_surrogate_as_raw(tmp_path: Path) -> None:
    # was exit 3: the line's JSON was read with the surrogate and written into the notation
    lines = [
        b'{"type":"game","format":"maumau-log/1","game_id":"g\\ud800","ruleset":"standard",'
        b'"players":["a","b"]}',
        b'{"type":"pass","player":"a\\udc00"}',
        b'{"type":"pass","player":"b"}',
    ]
    log = tmp_path / "s.jsonl"
    log.write_bytes(b"".join(x + b"\n" for x in lines))
    mm = tmp_path / "s.mm"
    r = runner.invoke(app, ["convert", str(log), "--out", str(mm)])
    assert r.exit_code == 0, r.output
    assert mm.read_text(encoding="utf-8") == (
        f"raw {lines[0].decode()}\nraw {lines[1].decode()}\nb passes\n"
    )
    back = tmp_path / "back.jsonl"
    assert runner.invoke(app, ["convert", str(mm), "--out", str(back)]).exit_code == 0
    assert back.read_bytes() == log.read_bytes()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (f"[options]\nhand_size = {DEEP}\n".encode(), "not valid TOML: nested too deeply to read"),
        (
            ("[options]\n" + "x = {" * 3000 + "}" * 3000 + "\n").encode(),
            "not valid TOML: nested too deeply to read",
        ),
        (
            f"[options]\nhand_size = {BIG}\n".encode(),
            "not valid TOML: a number of more than 4,300 digits",
        ),
        (
            b'[options]\ncall_last_card = "\xff"\n',
            "not valid TOML: not UTF-8 text (byte 28: invalid start byte)",
        ),
    ],
    ids=["deep array", "deep table", "big int", "not utf-8"],
)
def test_a_rules_file_python_cannot_read_is_a_usage_error(
    tmp_path: Path, content: bytes, why: str
) -> None:
    rules = tmp_path / "bad.toml"
    rules.write_bytes(content)
    r = runner.invoke(app, ["validate", str(DISPUTE), "--rules", str(rules)])
    assert r.exit_code == 2, r.output
    assert one_line(r.stderr) == one_line(f"error: {rules}: {why}")


def test_openspiel_action_ids_and_parameters_of_5000_digits_are_rejected(tmp_path: Path) -> None:
    # was exit 3 (ValueError from int()); now the history is rejected (exit 1) and the
    # other histories are imported
    good = HISTORIES.read_text(encoding="utf-8").splitlines()[0]
    src = tmp_path / "h.jsonl"
    src.write_text(
        f'{{"game": "crazy_eights(players=2)", "history": [{BIG}]}}\n'
        f'{{"game": "crazy_eights(players={BIG})", "history": [1]}}\n{good}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    r = runner.invoke(app, ["import", "openspiel", str(src), "--out", str(out)])
    assert r.exit_code == 1, r.output
    assert one_line(r.stderr).startswith(
        one_line(
            f"rejected: {src}:1, game 1: not valid JSON: a number of more than 4,300 digits "
            f"rejected: {src}:2, game 2: parameter players = 999999999999... (5000 digits) is "
            f"out of range imported 1 game(s)"
        )
    )
    ser = tmp_path / "h.txt"
    ser.write_text(f"[Meta]\nVersion: 1\n[Game]\ncrazy_eights()\n[State]\n{BIG}\n", "utf-8")
    r = runner.invoke(app, ["import", "openspiel", str(ser), "--out", str(out)])
    assert r.exit_code == 1, r.output
    assert one_line(r.stderr).startswith(
        f"rejected: {ser}:6, game 1, action 0: [State] line 999999999999... (5000 digits) is "
        "not an action id"
    )


def test_compare_and_review_locate_a_line_nested_too_deeply(tmp_path: Path) -> None:
    # they read the whole log strictly (read_games): a line msgspec cannot read for its
    # depth was exit 3 (RecursionError); now the file's located error, exit 2
    [game] = [[encode_event(e) for e in g] for g in simulate("standard", 2, 1, 3)]
    deep = b'{"type":"mau","player":"p1","call":"mau","x":' + DEEP.encode() + b"}"
    log = tmp_path / "deep.jsonl"
    log.write_bytes(b"".join(x + b"\n" for x in [*game[:2], deep, *game[2:]]))
    want = f"error: {log}:3: not a valid event: nested too deeply"
    r = runner.invoke(app, ["compare", str(log), str(log), "--seat", "p1"])
    assert (r.exit_code, one_line(r.stderr)) == (2, want)
    r = runner.invoke(app, ["review", str(log), "sim-standard-2p-3-000000"])
    assert (r.exit_code, one_line(r.stderr)) == (2, want)
