"""One-off differential run: the engine against OpenSpiel's ``crazy_eights``.

Run by hand (not in the tests; needs ``pip install open-spiel``):

    python bench/openspiel_diff.py --games 100000 --jobs 2

Every game is played by the real ``pyspiel`` with random legal actions (seeded: game ``i``
uses ``random.Random(seed * 1_000_003 + i)``), cycling through every parameter combination
(players 2-5, max_draw_cards 1/2/5, max_turns 30/100/1000, use_special_cards, reshuffle).
For each game it checks:

1. the importer's port of OpenSpiel against ``pyspiel`` at every step (current player,
   legal actions) and the returns (an AssertionError here is a port bug: counted apart);
2. :func:`maumau_log.openspiel.engine_disagreement`: the engine's legal actions at every
   player decision equal OpenSpiel's, the engine accepts every event, and the round ends
   where OpenSpiel's does with the same winner and hands;
3. OpenSpiel's returns against the documented rule (8 = 50, J Q K A = 10, others face value)
   and against OpenSpiel's code (``card id + 2``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

COMBOS = list(
    itertools.product((2, 3, 4, 5), (1, 2, 5), (30, 100, 1000), (False, True), (False, True))
)


def run_chunk(args: tuple[int, int, int]) -> dict[str, Any]:
    start, stop, seed = args
    import pyspiel

    from maumau_log.openspiel import (
        GameParams,
        engine_disagreement,
        pyspiel_random_game,
        returns_explained,
    )

    out: dict[str, Any] = {"games": 0, "port_errors": [], "disagreements": Counter(),
                           "examples": {}, "doc_returns": 0, "code_returns": 0,
                           "by_group": Counter()}  # fmt: skip
    for i in range(start, stop):
        players, draws, turns, special, reshuffle = COMBOS[i % len(COMBOS)]
        params = GameParams(players, draws, turns, special, reshuffle)
        rng = random.Random(seed * 1_000_003 + i)
        try:
            history, _ = pyspiel_random_game(pyspiel, params, rng, check=True)
        except AssertionError as exc:
            out["port_errors"].append((i, str(exc)[:300]))
            continue
        out["games"] += 1
        d = engine_disagreement(params, history)
        if d is not None:
            key = f"{d.kind} ({'special' if special else 'plain'}, " \
                  f"{'reshuffle' if reshuffle else 'no reshuffle'})"  # fmt: skip
            out["disagreements"][key] += 1
            out["examples"].setdefault(
                key, {"game": i, "params": params.game_string(), "history": history,
                      "where": str(d)},
            )  # fmt: skip
        doc, code = returns_explained(params, history)
        out["doc_returns"] += doc
        out["code_returns"] += code
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--examples", help="write one example history per disagreement kind here")
    a = ap.parse_args()
    t0 = time.perf_counter()
    step = 2000
    chunks = [(s, min(s + step, a.games), a.seed) for s in range(0, a.games, step)]
    total: dict[str, Any] = {"games": 0, "port_errors": [], "disagreements": Counter(),
                             "examples": {}, "doc_returns": 0, "code_returns": 0}  # fmt: skip
    with ProcessPoolExecutor(a.jobs) as pool:
        for res in pool.map(run_chunk, chunks):
            total["games"] += res["games"]
            total["port_errors"] += res["port_errors"]
            total["disagreements"].update(res["disagreements"])
            for k, v in res["examples"].items():
                total["examples"].setdefault(k, v)
            total["doc_returns"] += res["doc_returns"]
            total["code_returns"] += res["code_returns"]
            print(f"  {total['games']} games, {sum(total['disagreements'].values())} "
                  f"disagreements, {time.perf_counter() - t0:.0f}s", file=sys.stderr)  # fmt: skip
    n = total["games"]
    print(f"games played by pyspiel and replayed: {n} (seed {a.seed}, "
          "engine as is)")  # fmt: skip
    print("port vs pyspiel mismatches (legal actions, player, returns):",
          len(total["port_errors"]))  # fmt: skip
    print(f"games where the engine and OpenSpiel disagree: {sum(total['disagreements'].values())}")
    for k, v in total["disagreements"].most_common():
        print(f"  {v:6d}  {k}  e.g. {total['examples'][k]['where'][:160]}")
    print("OpenSpiel returns equal to its code's rule (card id + 2):",
          f"{total['code_returns']} of {n}")  # fmt: skip
    print(f"OpenSpiel returns equal to its documented rule (face value): {total['doc_returns']} "
          f"of {n}")  # fmt: skip
    print(f"time: {time.perf_counter() - t0:.0f}s")
    for i, err in total["port_errors"][:5]:
        print(f"  port error in game {i}: {err}")
    if a.examples:
        with open(a.examples, "w") as fh:
            json.dump(total["examples"], fh, indent=1)


if __name__ == "__main__":
    main()
