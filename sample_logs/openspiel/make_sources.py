"""Rebuild the OpenSpiel source histories here (needs ``pip install open-spiel``).

    python sample_logs/openspiel/make_sources.py

Each game is played by the real ``pyspiel`` with seeded random legal actions. The imported
logs are then made with the CLI (see README.md beside this file).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyspiel

HERE = Path(__file__).resolve().parent


def play(game_string: str, seed: int) -> tuple[object, object]:
    game = pyspiel.load_game(game_string)
    state = game.new_initial_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return game, state


def main() -> None:
    # serialize_game_and_state text: two games, one after the other
    text = ""
    for gs, seed in (
        ("crazy_eights(players=3,use_special_cards=True,reshuffle=True)", 3),
        ("crazy_eights(players=4,max_draw_cards=2)", 8),
    ):
        game, state = play(gs, seed)
        text += pyspiel.serialize_game_and_state(game, state)
    (HERE / "serialized.openspiel.txt").write_text(text)
    # JSON lines of {"game", "history"}
    lines = []
    for gs, seed in (
        ("crazy_eights(players=2)", 1),
        ("crazy_eights(players=5,use_special_cards=True)", 2),
        ("crazy_eights(players=2,use_special_cards=True,reshuffle=True,max_draw_cards=1)", 5),
    ):
        game, state = play(gs, seed)
        lines.append(json.dumps({"game": str(game), "history": state.history()}))
    (HERE / "histories.openspiel.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
