"""The audit's bot-likeness test on simulated seasons (run by hand).

A season: ``--games`` rounds of ``--ruleset`` at tables of 2, drawn from a pool of
``--club`` club players (greedy half the time, random otherwise) and one more player,
``bot``, who sits down less often (``--bot-weight``; about 80 of 2,000 rounds at 0.1).
In a *planted* season ``bot`` plays the Monte Carlo bot (``--bot-rollouts`` per
alternative); in an *unbiased* season ``bot`` is one more club player. Each season is
written as a log, ingested, and audited with ``--bot-likeness`` (the audit's own seed,
``--rollouts`` for its reference, ``--decisions`` departures from the obvious move valued
per player); the audit's Holm correction covers every test of the report. Cost: CPU
seconds of each season's worker (simulation, ingest, audit), printed per season and summed.

Reports: in how many planted seasons ``bot`` is flagged; over the unbiased seasons, how many
players are flagged (false flags, Holm) and the share of raw p-values under alpha (a
calibrated test gives about alpha).

    python bench/botlike_seasons.py --seasons 10 --unbiased 10 --games 2000 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from maumau_log.audit import audit
from maumau_log.audit.botlike import BotLikeness
from maumau_log.bots.mc import MonteCarloPolicy
from maumau_log.bots.policies import MixedPolicy
from maumau_log.bots.season import PolicyFactory, season
from maumau_log.bots.sim_bias import write_jsonl
from maumau_log.run.ingest import ingest


def one(args: tuple[str, int, argparse.Namespace]) -> dict[str, Any]:
    kind, seed, a = args
    pool: dict[str, PolicyFactory] = {
        f"c{i + 1:02d}": (lambda _s: MixedPolicy(0.5)) for i in range(a.club)
    }
    if kind == "planted":
        pool["bot"] = lambda s: MonteCarloPolicy(rollouts=a.bot_rollouts, seed=s)
    else:
        pool["bot"] = lambda _s: MixedPolicy(0.5)
    t0 = time.perf_counter()
    c0 = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        games = season(a.ruleset, pool, a.games, seed, weights={"bot": a.bot_weight})
        log = write_jsonl(Path(tmp) / "season.jsonl", games)
        t1 = time.perf_counter()
        c1 = time.process_time()
        ingest([log], Path(tmp) / "ds")
        settings = BotLikeness(rollouts=a.rollouts, decisions=a.decisions, seed=seed + 7919)
        report = audit(Path(tmp) / "ds", alpha=a.alpha, bot_likeness=settings)
    rows = [
        {
            "player": f.subject, "games": f.games, "n": f.n, "matches": f.statistic,
            "expected": f.expected, "p": f.p_value, "p_holm": f.p_adjusted,
            "flagged": f.flagged, "skipped": f.skipped,
        }
        for f in report.findings
        if f.section == "bot_likeness"
    ]  # fmt: skip
    return {
        "kind": kind, "seed": seed, "rows": rows, "tests": len(report.tested),
        "other_flags": [[f.section, f.check, f.subject] for f in report.flags
                        if f.section != "bot_likeness"],
        "sim_s": t1 - t0, "total_s": time.perf_counter() - t0,
        "sim_cpu_s": c1 - c0, "cpu_s": time.process_time() - c0, "summary": next(
            (f.summary for f in report.findings
             if f.section == "bot_likeness" and f.subject == "bot"), None),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seasons", type=int, default=10)
    ap.add_argument("--unbiased", type=int, default=10, help="unbiased seasons")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--club", type=int, default=5)
    ap.add_argument("--bot-weight", type=float, default=0.1)
    ap.add_argument("--ruleset", default="classic")
    ap.add_argument("--rollouts", type=int, default=32, help="the audit reference's")
    ap.add_argument("--bot-rollouts", type=int, default=64, help="the planted bot's")
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=14000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write every season's rows (JSON)")
    ap.add_argument("--summarize", type=Path, default=None, help="only summarize a --out file")
    ap.add_argument(
        "--resume", action="store_true",
        help="keep the seasons already in --out and run only the others (a season's figures "
        "depend only on its seed and the arguments, so a stopped run can be finished)",
    )  # fmt: skip
    a = ap.parse_args()
    if a.summarize:  # e.g. a run stopped early: its seasons so far
        summarize(json.loads(a.summarize.read_text()), a.alpha, 0.0, a.jobs)
        return
    planted_tasks = [("planted", a.seed + k, a) for k in range(a.seasons)]
    unbiased_tasks = [("unbiased", a.seed + 500 + k, a) for k in range(a.unbiased)]
    tasks = []  # two planted, one unbiased, ...: a run stopped early still has both kinds
    while planted_tasks or unbiased_tasks:
        tasks += planted_tasks[:2] + unbiased_tasks[:1]
        del planted_tasks[:2], unbiased_tasks[:1]
    results: list[dict[str, Any]] = []
    if a.resume and a.out and a.out.exists():
        results = json.loads(a.out.read_text())
        done = {(r["kind"], r["seed"]) for r in results}
        tasks = [t for t in tasks if (t[0], t[1]) not in done]
        print(f"resuming: {len(results)} seasons kept from {a.out}, {len(tasks)} to run")
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        for r in pool.map(one, tasks):
            results.append(r)
            if a.out:  # after every season: a run stopped early keeps what it measured
                a.out.write_text(json.dumps(results, indent=1))
            bot = next((x for x in r["rows"] if x["player"] == "bot"), None)
            print(
                f"{r['kind']:9s} seed {r['seed']}: bot {bot} {r['summary']} "
                f"({r['cpu_s']:.0f} CPU s, {r['sim_cpu_s']:.0f} of them simulating; "
                f"{r['total_s']:.0f} s wall)",
                flush=True,
            )
    summarize(results, a.alpha, time.perf_counter() - t0, a.jobs)


def summarize(results: list[dict[str, Any]], alpha: float, wall: float, jobs: int) -> None:
    """Print the planted bot's flags, the false flags and the cost of ``results``."""
    planted = [r for r in results if r["kind"] == "planted"]
    flagged = sum(1 for r in planted for x in r["rows"] if x["player"] == "bot" and x["flagged"])
    fair_rows = [
        x for r in results for x in r["rows"]
        if x["p"] is not None and (r["kind"] == "unbiased" or x["player"] != "bot")
    ]  # fmt: skip
    false_flags = sum(1 for x in fair_rows if x["flagged"])
    raw_low = sum(1 for x in fair_rows if x["p"] < alpha)
    print(f"planted bot flagged in {flagged} of {len(planted)} seasons")
    print(
        f"unbiased players (club players of every season, and 'bot' in unbiased ones): "
        f"{false_flags} of {len(fair_rows)} flagged after Holm; {raw_low} raw p < {alpha} "
        f"({raw_low / max(1, len(fair_rows)):.3f})"
    )
    only = [x for r in results if r["kind"] == "unbiased" for x in r["rows"] if x["p"] is not None]
    print(
        f"of them in unbiased seasons: {sum(1 for x in only if x['flagged'])} of {len(only)} "
        f"flagged; {sum(1 for x in only if x['p'] < alpha)} raw p < {alpha}"
    )
    cpu = sum(r["cpu_s"] for r in results)
    print(
        f"{len(results)} seasons in {wall:.0f} s wall (jobs {jobs}), "
        f"{cpu / 60:.1f} CPU minutes in the workers (planted "
        f"{sum(r['cpu_s'] for r in planted) / 60:.1f})"
    )


if __name__ == "__main__":
    main()
