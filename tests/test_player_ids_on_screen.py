"""Player ids on the terminal: a long id stays on one line of the audit at 80 columns, and
an id like an emoji code (``:thumbs_up:``) is printed as written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

import maumau_log.cli.audit_cmds
import maumau_log.cli.replay_cmds  # noqa: F401
from maumau_log.bots.sim import simulate, write_games
from maumau_log.cli import app
from maumau_log.run.ingest import ingest

runner = CliRunner()
SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs" / "violations"
LONG_ID = "player-" + "x" * 60  # 67 characters: more than the old first column's 48


def test_audit_at_80_columns_keeps_a_long_player_id_on_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    with open(plain, "wb") as fh:
        write_games(simulate("classic", 4, 80, seed=5), fh)
    log = tmp_path / "long.jsonl"
    log.write_bytes(plain.read_bytes().replace(b'"p1"', f'"{LONG_ID}"'.encode()))
    ingest([log], tmp_path / "ds", jobs=1)
    res = runner.invoke(app, ["audit", str(tmp_path / "ds")], env={"COLUMNS": "80"})
    assert res.exit_code in (0, 1), res.output
    lines = [line.rstrip() for line in res.stdout.splitlines()]
    assert max(len(line) for line in lines) <= 80
    # the subject of p2's catches by the long-named player, whole on its line
    assert f"  p2 <- {LONG_ID}" in lines
    assert not any(line.strip() == LONG_ID[:48] for line in lines)  # never cut at 48
    # each check's numbers on the check's own line: 80 games, p, Holm p
    rows = [line for line in lines if line.startswith("  catches: never_caught ")]
    assert len(rows) == 12 and all(line.split()[2] == "80" for line in rows), rows


def test_a_player_id_like_an_emoji_code_is_printed_as_written(tmp_path: Path) -> None:
    """rich turned ``:thumbs_up:`` in player-supplied text into an emoji even when escaped
    (markup escaping does not cover emoji codes); the consoles now have emoji off."""
    log = tmp_path / "emoji.jsonl"
    text = (SAMPLE / "card_not_in_hand.jsonl").read_bytes().replace(b'"p1"', b'":thumbs_up:"')
    log.write_bytes(text)
    res = runner.invoke(app, ["validate", str(log)])
    assert res.exit_code == 1, res.output
    assert "card_not_in_hand: :thumbs_up: plays AD but holds JD" in res.output
    assert "legal: :thumbs_up: plays JD | :thumbs_up: draws 1 (voluntary)" in res.output
    assert "\N{THUMBS UP SIGN}" not in res.output
