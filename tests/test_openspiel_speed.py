"""What the OpenSpiel import's speed-ups rely on (OpenSpiel target).

The written bytes are pinned elsewhere (``tests/test_openspiel.py``: digests of whole and cut
games, the lines against the events encoded; the differential against ``pyspiel``); these
tests pin the invariants and the process-level settings behind the speed: the port's count
of the cards held (the reshuffle's count), the layout of its flat trace, the kept game
strings, and the collector and start-up settings of the command.
"""

from __future__ import annotations

import gc
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import maumau_log.cli.import_cmds  # noqa: F401  (registers the import commands)
from maumau_log import rules
from maumau_log.cli import app
from maumau_log.cli.import_cmds import YOUNG_ALLOCATIONS
from maumau_log.events import schema
from maumau_log.openspiel import (
    CrazyEightsState,
    GameParams,
    OpenSpielImportError,
    parse_game_string,
)
from maumau_log.openspiel.actions import NUM_CARDS
from maumau_log.openspiel.port import (
    T_DEAL,
    T_DEALER,
    T_DRAW,
    T_DRAWN,
    T_PASS,
    T_PLAY,
    T_RESHUFFLE,
    T_STARTER,
    T_STARTER_BACK,
    T_SUIT,
)

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs" / "openspiel"
# the fields after the kind, per trace entry kind (T_RESHUFFLE: over, total, 52 copies)
FIELDS = {T_DEALER: 1, T_DEAL: 2, T_STARTER_BACK: 1, T_STARTER: 1, T_PLAY: 2, T_SUIT: 2,
          T_DRAW: 3, T_DRAWN: 2, T_PASS: 1, T_RESHUFFLE: 2 + NUM_CARDS}  # fmt: skip


def _entries(trace: list[int]) -> list[list[int]]:
    """The flat trace cut into its entries (kind first)."""
    out, i = [], 0
    while i < len(trace):
        size = 1 + FIELDS[trace[i]]
        out.append(trace[i : i + size])
        i += size
    assert i == len(trace)
    return out


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 8),
    draws=st.sampled_from([1, 2, 5]),
    turns=st.sampled_from([30, 100, 1000]),
    special=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_cards_held_and_reshuffles(
    players: int, draws: int, turns: int, special: bool, seed: int
) -> None:
    """After every action, ``in_hands`` is the sum of the hands (the count the C++ makes at
    a reshuffle); every reshuffle entry gives back, per card id, the copies neither held nor
    on top of the pile, and its total is their sum (one and two packs, reshuffle on)."""
    state = CrazyEightsState(GameParams(players, draws, turns, special, True))
    rng = random.Random(seed)
    seen = 0
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        held = [sum(h[c] for h in state.hands) for c in range(NUM_CARDS)]
        assert state.in_hands == held
        entries = _entries(state.trace)
        for entry in entries[seen:]:
            if entry[0] == T_RESHUFFLE:
                copies = entry[3:]
                want = [state.decks - held[c] - (c == state.last_card) for c in range(NUM_CARDS)]
                if entry[1] == 0:  # the game goes on: the stock as it is just after it
                    assert copies == want and entry[2] == sum(copies)
                assert min(copies) >= 0
        seen = len(entries)


def test_trace_entries_in_order() -> None:
    """A game's trace: the dealer first, the deal, the starter, then one entry per action of
    the history, in order (reshuffles besides): the k-th entry that is not a reshuffle is
    the history's action k (the entries hold no index, it is their count)."""
    for seed in range(20):
        state = CrazyEightsState(GameParams(3, 2, 100, True, bool(seed % 2)))
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        entries = _entries(state.trace)
        assert entries[0] == [T_DEALER, state.dealer]
        assert [e[0] for e in entries[1:16]] == [T_DEAL] * 15  # 5 cards each to 3 players
        actions = [e for e in entries if e[0] != T_RESHUFFLE]
        assert len(actions) == len(state.history)
        for k, e in enumerate(actions):
            action = state.history[k]
            if e[0] in (T_DEAL, T_DRAWN, T_STARTER):
                assert action == e[-1]  # the card dealt, drawn or turned
            elif e[0] == T_STARTER_BACK:
                assert action == e[1] and action >> 2 == 6  # an 8 turned, back in the stock
            elif e[0] == T_PLAY:
                assert action == e[2]
            elif e[0] == T_SUIT:
                assert action == 54 + e[2]
            elif e[0] == T_DRAW:
                assert action == 52
            elif e[0] == T_PASS:
                assert action == 53
            else:
                assert e[0] == T_DEALER and k == 0 and action == 52 + e[1]


def test_package_folders_without_importlib_resources() -> None:
    """The presets' and schemas' folders are where ``importlib.resources`` finds them."""
    package = Path(str(resources.files("maumau_log")))
    assert rules._presets_dir().resolve() == (package / "rules" / "presets").resolve()
    assert (rules._presets_dir() / "crazy-eights.toml").is_file()
    packaged = package / "_schemas"
    want = packaged if packaged.is_dir() else schema._SOURCE_TREE
    assert schema.schema_dir().resolve() == want.resolve()


def test_import_restores_the_collector_threshold(tmp_path: Path) -> None:
    """The import raises the collector's first threshold while it runs and restores it,
    also when it exits with a usage error."""
    before = gc.get_threshold()
    assert before[0] < YOUNG_ALLOCATIONS
    out = tmp_path / "out.jsonl"
    runner = CliRunner()
    res = runner.invoke(app, ["import", "openspiel", str(SAMPLES / "histories.openspiel.txt"),
                              "--out", str(out), "--validate"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert gc.get_threshold() == before
    res = runner.invoke(app, ["import", "openspiel", str(tmp_path / "missing"), "--out", str(out)])
    assert res.exit_code == 2
    assert gc.get_threshold() == before


def test_command_process_settings(tmp_path: Path) -> None:
    """One ``import openspiel --validate`` process: the collector is on while the command
    runs (start-up ran without it), and ``importlib.resources`` is never imported."""
    source, out = str(SAMPLES / "histories.openspiel.txt"), str(tmp_path / "o.jsonl")
    code = (
        "import gc, sys\n"
        f"sys.argv = ['maumau-log', 'import', 'openspiel', {source!r}, '--out', {out!r},"
        " '--validate']\n"
        "import maumau_log.cli.import_cmds as ic\n"
        "real, seen = ic._import, []\n"
        "def spy(*a):\n    seen.append((gc.isenabled(), gc.get_threshold()[0]))\n"
        "    return real(*a)\n"
        "ic._import = spy\n"
        "from maumau_log.cli import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "print('RESULT', code, seen, gc.isenabled(), 'importlib.resources' in sys.modules,"
        " file=sys.stderr)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert f"RESULT 0 [(True, {YOUNG_ALLOCATIONS})] True False" in res.stderr, res.stderr[-800:]


def test_game_strings_kept_parsed() -> None:
    """A game string is parsed once (the same frozen parameters again); a refused one is
    refused every time with the same words; the canonical string of an equal but other
    object is its own (``players=2.0`` is not ``players=2``)."""
    text = "crazy_eights(players=4,max_turns=30,reshuffle=True)"
    first = parse_game_string(text)
    assert parse_game_string(text) is first
    assert first == GameParams(4, 5, 30, False, True)
    assert first.game_string() == (
        "crazy_eights(max_draw_cards=5,max_turns=30,players=4,reshuffle=True,"
        "use_special_cards=False)"
    )
    for _ in range(2):
        with pytest.raises(OpenSpielImportError, match="not 'crazy_eights'"):
            parse_game_string("chess()")
    assert "players=2.0," in GameParams(2.0).game_string()  # type: ignore[arg-type]
    assert "players=2," in GameParams(2).game_string()
