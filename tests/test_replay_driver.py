"""The replay driver's layout and fast path: modules, the ruleset look-up per
game, the content digest, blank lines and runs inside a game."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import msgspec

import maumau_log
from maumau_log.bots.sim import simulate
from maumau_log.events import Game, decode_event, encode_event
from maumau_log.replay.driver import GameReport, Replayer, ReplayVisitor, read_games, replay_events
from maumau_log.run.shard import ContentHasher

PACKAGE = Path(maumau_log.__file__).parent / "replay"
GAMES = [[encode_event(e) for e in g] for g in simulate("standard", 2, 3, 35)]


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_replay_modules_are_small_and_import_one_way() -> None:
    """report <- checks <- driver, each under 600 lines."""
    for name in ("driver", "checks", "report"):
        lines = (PACKAGE / f"{name}.py").read_text(encoding="utf-8").count("\n")
        assert lines < 600, (name, lines)
    assert not _imports("report") & {"driver", "checks"}
    assert "driver" not in _imports("checks")
    assert "report" in _imports("checks")
    assert {"report", "checks"} <= _imports("driver")
    # the public names stay where callers import them
    assert GameReport.__module__ == "maumau_log.replay.report"
    assert callable(replay_events) and callable(read_games) and ReplayVisitor is not None


def _with_options(lines: list[bytes], options: dict[str, object] | None) -> list[bytes]:
    header = decode_event(lines[0])
    assert isinstance(header, Game)
    return [encode_event(msgspec.structs.replace(header, options=options)), *lines[1:]]


def test_rulesets_looked_up_per_preset_and_options() -> None:
    """Equal (preset, options) give the same ruleset object; other options, or a value of
    another JSON type (1 against true), are resolved on their own; a rejected table does
    not stay in the look-up (the game after it with good options is valid)."""
    a, b, c = GAMES
    lines = [
        *a,
        *_with_options(b, None),
        *_with_options(c, {"hand_size": 7}),
        *_with_options(a, {"hand_size": True}),  # not a number: bad_option
        *_with_options(b, {"hand_size": 7}),
    ]
    numbered = list(enumerate(lines, 1))
    reports = list(Replayer().replay_lines("<memory>", numbered))
    assert len(reports) == 5
    assert reports[0].rules is reports[1].rules  # no options, one look-up
    assert reports[2].rules is not None and reports[2].rules.hand_size == 7
    assert reports[2].rules is reports[4].rules
    assert reports[3].violation is not None and reports[3].violation.code == "bad_option"
    assert [r.valid for r in (reports[0], reports[1])] == [True, True]


def test_content_digest_is_header_lines_and_tail() -> None:
    """validate's digest after the one-update-per-game change: blake2b-64
    of the header's encoding, every accepted line with its newline, then
    ``"{events}|{code}|{index}"``, computed here by hand."""
    game = GAMES[0]
    hasher = ContentHasher()
    (report,) = Replayer(visitors=[hasher]).replay_lines("<memory>", enumerate(game, 1))
    assert report.valid
    h = hashlib.blake2b(digest_size=8)
    h.update(encode_event(decode_event(game[0])))
    for line in game[1:]:
        h.update(line + b"\n")
    h.update(f"{len(game)}||".encode())
    assert report.extra["content_hash"] == int.from_bytes(h.digest(), "little", signed=True)


def test_blank_lines_and_crlf_inside_a_game_keep_their_numbers(tmp_path: Path) -> None:
    """A game cut by blank lines and CRLF endings replays as one game; a bad seq after the
    blank lines is reported at the line an editor shows."""
    game = GAMES[1]
    body = b"\n".join(game[:4]) + b"\n\n  \n" + b"\r\n".join(game[4:]) + b"\r\n"
    path = tmp_path / "g.jsonl"
    path.write_bytes(body)
    (report,) = Replayer().replay_file(path)
    assert report.valid and report.events == len(game)
    assert report.last_line == len(game) + 2  # two blank lines counted
    bad = decode_event(game[5])
    moved = encode_event(msgspec.structs.replace(bad, seq=99))
    path.write_bytes(body.replace(game[5] + b"\r\n", moved + b"\r\n"))
    (report,) = Replayer().replay_file(path)
    v = report.violation
    assert v is not None and v.code == "bad_seq" and v.line == 5 + 1 + 2 and v.event_index == 5


def test_packaged_presets_read_at_run_time_as_the_checked_reader_reads_them() -> None:
    """The run-time reading of the packaged presets skips the schema check; it must give
    what the checked reader gives (``read_ruleset_file``) for every preset file."""
    from maumau_log import rules

    files = sorted(rules._presets_dir().glob("*.toml"))
    assert len(files) > 5
    for path in files:
        assert rules._preset_options(path.stem) == rules.read_ruleset_file(path), path.name
