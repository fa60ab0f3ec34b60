"""False flags of ``maumau-log audit`` on unbiased simulations (run by hand).

Simulates K datasets of fair play (seeded bots, fair shuffle), each of G games, audits each
and reports: how many reports flag anything (the family-wise false-flag rate, which Holm's
correction keeps at most alpha), and the share of raw p-values under alpha per section (a
calibrated test gives about alpha; a conservative one less).

    python bench/audit_false_flags.py --reports 100 --games 400 --players 4
"""

from __future__ import annotations

import argparse
import math
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from maumau_log.audit import audit
from maumau_log.bots.sim import _Table
from maumau_log.bots.sim_bias import add_times, simulate_with, write_jsonl
from maumau_log.engine import RuleViolation
from maumau_log.run.ingest import ingest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reports", type=int, default=100)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--min-games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args()
    flagged_reports = 0
    failed = 0
    tests = Counter[str]()
    raw_low = Counter[str]()
    flags = Counter[str]()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.reports):
            seed = args.seed + k
            games = simulate_with(_Table, args.ruleset, args.players, args.games, seed)
            try:
                log = write_jsonl(Path(tmp) / f"fair-{seed}.jsonl", add_times(games, seed))
            except RuleViolation as exc:  # a simulator bug: not a report
                print(f"seed {seed}: the simulator failed ({exc}); skipped")
                failed += 1
                continue
            ds = Path(tmp) / f"ds-{seed}"
            ingest([log], ds)
            report = audit(ds, alpha=args.alpha, min_games=args.min_games)
            if report.flags:
                flagged_reports += 1
            for f in report.tested:
                tests[f.section] += 1
                raw_low[f.section] += f.p_value is not None and f.p_value <= args.alpha
                flags[f.section] += f.flagged
            shutil.rmtree(ds)
            log.unlink()
    n = args.reports - failed
    rate = flagged_reports / n
    half = 1.96 * math.sqrt(max(rate * (1 - rate), 1e-9) / n)
    print(
        f"{n} reports of {args.games} fair {args.ruleset} games ({args.players} players), "
        f"alpha {args.alpha}, Holm: {flagged_reports} reports with a flag "
        f"({100 * rate:.1f}% +- {100 * half:.1f}), {time.perf_counter() - t0:.0f} s"
    )
    print(f"{'section':<14}{'tests':>8}{'raw p<=alpha':>14}{'share':>8}{'flags':>7}")
    for section in sorted(tests):
        share = raw_low[section] / tests[section]
        print(
            f"{section:<14}{tests[section]:>8}{raw_low[section]:>14}{share:>8.3f}"
            f"{flags[section]:>7}"
        )
    total = sum(tests.values())
    print(f"{'all':<14}{total:>8}{sum(raw_low.values()):>14}{sum(raw_low.values()) / total:>8.3f}")


if __name__ == "__main__":
    main()
