"""Benchmark: OpenSpiel's C++ engine against our import and validate.

Run by hand (not in the tests; needs ``pip install open-spiel``, a dev dependency):

    python bench/bench_openspiel.py                  # 960 histories, 5 rounds
    python bench/bench_openspiel.py --baseline /tmp/old --profile 15

1. The histories: ``--games`` games (960) played by the real ``pyspiel`` with seeded random
   legal actions (game ``i`` uses ``random.Random(seed * 1_000_003 + i)``), cycling through
   every parameter mix of ``bench/openspiel_diff.py`` (players 2-5, max_draw_cards 1/2/5,
   max_turns 30/100/1000, use_special_cards, reshuffle: 144 mixes), as JSON lines
   ``{"game", "history"}``. Cached under ``bench/out/openspiel/`` (kept between runs).
2. Whole processes, run in turn (round robin, ``--runs`` rounds, so load from other work
   falls on all alike), each timed by wall clock and by its CPU time (user + sys, from
   ``getrusage``; steadier than wall time on a shared machine):
   - ``pyspiel``: a Python process that loads each game with ``pyspiel`` and re-applies
     every action with ``apply_action_with_legality_check`` (the C++ engine checks each
     action against its ``LegalActions()``);
   - ``import``: ``maumau-log import openspiel HISTORIES --out LOG``;
   - ``validate``: ``maumau-log validate LOG``;
   - ``import --validate``: ``maumau-log import openspiel HISTORIES --out LOG --validate``,
     the same two steps in one process (one start-up);
   - the start-up floors: ``python -c pass`` and ``maumau-log import openspiel --help``;
   - with ``--baseline DIR`` (another checkout of the project, e.g. ``git archive`` of an
     older commit), the import and validate of that code too, for before/after figures in
     one run.
3. The ratios: import / validate (target: below 1) and, for the target
   (at most 3), both ways: the two processes' sum (import + validate) / pyspiel, and the
   single process (import --validate) / pyspiel. pyspiel's figure is its whole process
   too: Python's start-up, ``import pyspiel`` (a 30 MB extension module) and the re-apply.

Which build runs is printed (``maumau_log.engine.COMPILED``, ``maumau_log.openspiel.COMPILED``:
``python hatch_build.py`` builds both; ``MAUMAU_LOG_PURE_PYTHON=1`` in the environment runs
the source).

``--profile N`` also prints the top N entries (by own time) of a cProfile of one whole
``import --validate`` process (start-up, conversion, replay), of this checkout and of the
baseline. Before timing, the bytecode caches of both checkouts are written (``compileall``),
as an install writes them: a shell with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise time
the compiling of every module at each start-up.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out" / "openspiel"
COMBOS = list(
    itertools.product((2, 3, 4, 5), (1, 2, 5), (30, 100, 1000), (False, True), (False, True))
)

PYSPIEL_REPLAY = """
import json, sys
import pyspiel
games = {}
n = 0
with open(sys.argv[1]) as fh:
    for line in fh:
        obj = json.loads(line)
        game = games.get(obj["game"])
        if game is None:
            game = games[obj["game"]] = pyspiel.load_game(obj["game"])
        state = game.new_initial_state()
        for action in obj["history"]:
            state.apply_action_with_legality_check(action)
        assert state.is_terminal()
        n += 1
print(n)
"""


def make_histories(games: int, seed: int) -> Path:
    """The cached history file (generated with pyspiel when missing)."""
    import pyspiel

    sys.path.insert(0, str(ROOT))
    from maumau_log.openspiel import GameParams, pyspiel_random_game

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"histories_{games}g_s{seed}.jsonl"
    if path.exists():
        return path
    t = time.perf_counter()
    tmp = path.with_suffix(".part")
    with tmp.open("w") as fh:
        for i in range(games):
            params = GameParams(*COMBOS[i % len(COMBOS)])
            rng = random.Random(seed * 1_000_003 + i)
            history, _ = pyspiel_random_game(pyspiel, params, rng, check=False)
            fh.write(json.dumps({"game": params.game_string(), "history": history}) + "\n")
    tmp.rename(path)
    print(f"generated {games} histories with pyspiel in {time.perf_counter() - t:.1f}s")
    return path


def run(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Run one whole process; return (wall seconds, CPU seconds user + sys)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    # run from the output folder: ``python -m`` puts the working directory first on
    # sys.path, which would let a checkout there win over the PYTHONPATH chosen
    res = subprocess.run(cmd, env=env, cwd=OUT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode not in ok:
        sys.exit(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.decode()[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def env_for(tree: Path) -> dict[str, str]:
    """The environment that makes ``python -m maumau_log`` run the code of ``tree``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


PROFILE = """
import cProfile, pstats, runpy, sys
top, argv = int(sys.argv[1]), sys.argv[2:]
sys.argv = ["maumau-log", *argv]
prof = cProfile.Profile()
prof.enable()
try:
    runpy.run_module("maumau_log", run_name="__main__")
except SystemExit:
    pass
prof.disable()
print(f"cProfile of the whole process (maumau-log {' '.join(argv[:2])} ... "
      f"{argv[-1]}), top {top} by own time:")
pstats.Stats(prof).strip_dirs().sort_stats("tottime").print_stats(top)
"""


def profile(histories: Path, top: int, tree: Path, label: str) -> None:
    """Print a cProfile of one whole ``import openspiel HISTORIES --validate`` process (or,
    for a checkout without ``--validate``, the import) of the code of ``tree``: start-up,
    the conversion and the replay, in the build that runs there."""
    source = tree / "maumau_log" / "cli" / "import_cmds.py"
    one = '"--validate"' in source.read_text(encoding="utf-8")
    args = ["import", "openspiel", str(histories), "--returns", "field",
            "--out", str(OUT / f"profile.{label.replace(' ', '_')}.jsonl")]  # fmt: skip
    res = subprocess.run(
        [sys.executable, "-c", PROFILE, str(top), *args, *(["--validate"] if one else [])],
        env=env_for(tree), cwd=OUT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = [ln for ln in res.stdout.splitlines() if ln.strip()]
    print(f"\n{label}: " + "\n".join(lines))


def byte_compile(tree: Path) -> None:
    """Write the bytecode caches of ``tree``'s package, as an install does: with
    ``PYTHONDONTWRITEBYTECODE`` set (this machine's shells set it), every timed process
    would otherwise compile each module from source at start-up (0.1 s of a
    0.3 s start-up)."""
    import compileall

    compileall.compile_dir(str(tree / "maumau_log"), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=960)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--runs", type=int, default=5, help="rounds of whole-process runs")
    ap.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print a profile")
    a = ap.parse_args()

    histories = make_histories(a.games, a.seed)
    n_games = n_actions = 0
    mixes = set()
    with histories.open() as fh:
        for line in fh:
            obj = json.loads(line)
            n_games += 1
            n_actions += len(obj["history"])
            mixes.add(obj["game"])
    logs = OUT / f"{histories.stem}.log.jsonl"
    py = sys.executable
    PS = "pyspiel re-apply + check"
    here = env_for(ROOT)
    cli = [py, "-m", "maumau_log"]
    jobs: dict[str, tuple[list[str], dict[str, str], tuple[int, ...]]] = {
        "python -c pass": ([py, "-c", "pass"], here, (0,)),
        PS: ([py, "-c", PYSPIEL_REPLAY, str(histories)], here, (0,)),
        "import --help (start-up)": ([*cli, "import", "openspiel", "--help"], here, (0,)),
        "import": (
            [*cli, "import", "openspiel", str(histories), "--returns", "field", "--out", str(logs)],
            here,
            (0,),
        ),
        "validate": ([*cli, "validate", str(logs)], here, (0,)),
    }
    one_logs = OUT / f"{histories.stem}.one.jsonl"
    jobs["import --validate"] = (
        [*cli, "import", "openspiel", str(histories), "--returns", "field", "--out",
         str(one_logs), "--validate"],
        here,
        (0,),
    )  # fmt: skip
    if a.baseline is not None:
        base = env_for(a.baseline.resolve())
        base_logs = OUT / f"{histories.stem}.baseline.jsonl"
        jobs["import (baseline)"] = (
            [
                *cli,
                "import",
                "openspiel",
                str(histories),
                "--returns",
                "field",
                "--out",
                str(base_logs),
            ],
            base,
            (0,),
        )
        jobs["validate (baseline)"] = ([*cli, "validate", str(base_logs)], base, (0,))
        source = a.baseline / "maumau_log" / "cli" / "import_cmds.py"
        if '"--validate"' in source.read_text(encoding="utf-8"):  # an older one has none
            jobs["import --validate (baseline)"] = (
                [*cli, "import", "openspiel", str(histories), "--returns", "field", "--out",
                 str(OUT / f"{histories.stem}.baseline.one.jsonl"), "--validate"],
                base,
                (0,),
            )  # fmt: skip
    byte_compile(ROOT)
    if a.baseline is not None:
        byte_compile(a.baseline.resolve())
    # one untimed round: caches warm, the logs exist before validate reads them
    for cmd, env, ok in jobs.values():
        run(cmd, env, ok)
    if a.baseline is not None and base_logs.read_bytes() != logs.read_bytes():
        print("note: the baseline's log differs from this checkout's")
    walls: dict[str, list[float]] = {k: [] for k in jobs}
    cpus: dict[str, list[float]] = {k: [] for k in jobs}
    for _ in range(a.runs):
        for name, (cmd, env, ok) in jobs.items():
            w, c = run(cmd, env, ok)
            walls[name].append(w)
            cpus[name].append(c)

    print(
        f"histories: {histories.name}: {n_games} games, {n_actions:,} actions, "
        f"{len(mixes)} parameter mixes; log {logs.stat().st_size / 2**20:.1f} MiB"
    )
    print(
        f"whole processes, {a.runs} rounds in turn; load average now "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine: noisy)"
    )
    builds = subprocess.run(
        [py, "-c", "import maumau_log.engine as e, maumau_log.openspiel as o; "
         "print(e.COMPILED, getattr(o, 'COMPILED', False))"],
        env=here, cwd=OUT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    print(f"this checkout: engine compiled {builds[0]}, openspiel port compiled {builds[1]}")
    print(f"{'process':28s} {'wall min':>9s} {'wall med':>9s} {'cpu min':>9s} {'cpu med':>9s}")
    for name in jobs:
        w, c = walls[name], cpus[name]
        print(
            f"{name:28s} {min(w):8.3f}s {statistics.median(w):8.3f}s "
            f"{min(c):8.3f}s {statistics.median(c):8.3f}s"
        )

    def ratio(num: list[str], den: list[str]) -> str:
        out = []
        for label, table in (("wall", walls), ("cpu", cpus)):
            top = sum(min(table[k]) for k in num)
            bottom = sum(min(table[k]) for k in den)
            out.append(f"{label} {top / bottom:5.2f}")
        return ", ".join(out)

    print("ratios (of the minima):")
    print(f"  import / validate               : {ratio(['import'], ['validate'])}  (below 1)")
    print(f"  (import + validate) / pyspiel   : {ratio(['import', 'validate'], [PS])}  (at most 3)")
    print(
        f"  (import --validate) / pyspiel   : {ratio(['import --validate'], [PS])}  "
        "(one process: at most 3)"
    )
    print(f"  import / pyspiel                : {ratio(['import'], [PS])}")
    print(f"  validate / pyspiel              : {ratio(['validate'], [PS])}")
    if a.baseline is not None:
        print(f"  import (baseline) / import      : {ratio(['import (baseline)'], ['import'])}")
        print(
            "  (import + validate) (baseline) / pyspiel: "
            f"{ratio(['import (baseline)', 'validate (baseline)'], [PS])}"
        )
        print(
            f"  import (baseline) / validate (b): "
            f"{ratio(['import (baseline)'], ['validate (baseline)'])}"
        )
    if a.profile:
        profile(histories, a.profile, ROOT, "this checkout")
        if a.baseline is not None:
            profile(histories, a.profile, a.baseline.resolve(), "baseline")


if __name__ == "__main__":
    main()
