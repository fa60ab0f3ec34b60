"""Review speed and the Monte Carlo bot's own mistakes (run by hand).

Plays ``--games`` seeded rounds of ``--ruleset`` between the Monte Carlo bot (seat p1,
``--mc-rollouts``) and the random bot (p2), then reviews every decision with K = 100
rollouts per alternative (the review's seed is not the bot's), and the first ``--k1000``
decisions of p1 with K = 1,000. Reports
decisions reviewed per second at each K (one process, one run, so the two rates compare),
and the share of decisions judged mistakes, for the Monte Carlo bot (the issue asks for
under 5%) and for the random bot.

    python bench/bench_review.py --games 10
"""

from __future__ import annotations

import argparse
import random
import time

from maumau_log.bots import BotTable, MonteCarloPolicy, RandomPolicy
from maumau_log.bots.review import review_game
from maumau_log.bots.sim import fair_shuffle
from maumau_log.bots.table import make_header
from maumau_log.rules import resolve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--mc-rollouts", type=int, default=100)
    ap.add_argument("--k1000", type=int, default=10, help="decisions reviewed at K = 1,000")
    ap.add_argument("--seed", type=int, default=14)
    a = ap.parse_args()
    rules = resolve(a.ruleset)
    games = []
    for g in range(a.games):
        rng = random.Random(f"bench-review:{a.seed}:{g}")
        header = make_header(rules, f"br-{g}", ["p1", "p2"], "p2", fair_shuffle(rng))
        pol = {"p1": MonteCarloPolicy(a.mc_rollouts, seed=g), "p2": RandomPolicy()}
        t = BotTable.new_round(rules, header, pol, rng)
        t.play_round()
        games.append(t.events)
    verdicts: dict[str, list[str]] = {"p1": [], "p2": []}
    n100 = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for events in games:
        rev = review_game(events, rules, rollouts=100, seed=a.seed)
        n100 += len(rev.decisions)
        for d in rev.decisions:
            verdicts[d.player].append(d.verdict)
    dt100, cpu100 = time.perf_counter() - t0, time.process_time() - c0
    n1000 = 0
    t1, c1 = time.perf_counter(), time.process_time()
    for events in games:
        if n1000 >= a.k1000:
            break
        rev = review_game(events, rules, player="p1", rollouts=1000, seed=a.seed)
        n1000 += len(rev.decisions)
    dt1000, cpu1000 = time.perf_counter() - t1, time.process_time() - c1
    print(f"{a.ruleset}: {a.games} games, mc ({a.mc_rollouts} rollouts) as p1 against random")
    print(
        f"K=100:  {n100} decisions in {dt100:.1f} s wall, {cpu100:.1f} s CPU = "
        f"{n100 / dt100:.2f} decisions/s wall, {n100 / cpu100:.2f} per CPU second"
    )
    print(
        f"K=1000: {n1000} decisions in {dt1000:.1f} s wall, {cpu1000:.1f} s CPU = "
        f"{n1000 / dt1000:.3f} decisions/s wall, {n1000 / cpu1000:.3f} per CPU second"
    )
    for p, name in (("p1", "mc"), ("p2", "random")):
        v = verdicts[p]
        mistakes = v.count("mistake")
        inacc = v.count("inaccuracy")
        print(
            f"{name}: {len(v)} decisions, {mistakes} mistakes ({mistakes / max(1, len(v)):.1%}), "
            f"{inacc} inaccuracies ({inacc / max(1, len(v)):.1%}) at K=100"
        )


if __name__ == "__main__":
    main()
