"""Single-bit flips in a dataset's data files: error or silent change? Run by hand.

    python bench/bench_bitflips.py --flips 150 --seed 1

Ingests a small dataset (simulated ``standard`` games for three players and a few
``classic`` matches), records every answer (``stats --format json``, ``stats --by match``,
and ``query "SELECT * FROM <table>"`` of every table), then, ``--flips`` times: flips one
random bit of one random data file the manifest lists, runs every answer again and puts the
flip in one of four classes:

- ``error``: every answer that changed (and at least one did) is exit 2 naming a file;
- ``silent``: some answer came back (exit 0) with other data than before: the harm;
- ``same``: every command answered the same (the bit is one no answer reads);
- ``crash``: some command exited 3 (an internal error).

The file is restored after each flip. The commands run in this process (typer's runner),
so the 150 flips take a minute, not ten. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from typer.testing import CliRunner  # noqa: E402

import maumau_log.cli.data_cmds  # noqa: E402, F401  (registers the commands)
from maumau_log.bots.sim import simulate, simulate_matches, write_games  # noqa: E402
from maumau_log.cli import app  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.store import ALL_TABLES, iter_files  # noqa: E402

runner = CliRunner()


def make_dataset(folder: Path, games: int = 60, seed: int = 3) -> Path:
    """A small dataset: ``games`` standard games for three players and two classic
    matches (so every table has rows)."""
    log = folder / "games.jsonl"
    with open(log, "wb") as fh:
        write_games(simulate("standard", 3, games, seed=seed), fh)
        write_games(simulate_matches("classic", 2, 2, seed=seed), fh)
    ds = folder / "ds"
    ingest([log], ds)
    return ds


def commands(ds: Path) -> list[list[str]]:
    """The answers compared: both leaderboards and every table in full."""
    out = [
        ["stats", str(ds), "--format", "json", "--include-invalid"],
        ["stats", str(ds), "--by", "match", "--format", "json"],
    ]
    out += [["query", str(ds), f"SELECT * FROM {t}", "--format", "json"] for t in ALL_TABLES]
    return out


def answers(ds: Path) -> list[tuple[int, str]]:
    """(exit code, stdout or stderr) of every command of :func:`commands`."""
    res = []
    for args in commands(ds):
        try:
            r = runner.invoke(app, args)
        except BaseException as exc:  # a Rust panic is a BaseException
            if isinstance(exc, KeyboardInterrupt):
                raise
            res.append((3, f"{type(exc).__name__}: {exc}"))
            continue
        res.append((r.exit_code, r.stdout if r.exit_code == 0 else r.stderr))
    return res


def flip(path: Path, rng: random.Random) -> int:
    """Flip one random bit of ``path`` in place; returns the byte offset."""
    data = bytearray(path.read_bytes())
    at = rng.randrange(len(data))
    data[at] ^= 1 << rng.randrange(8)
    path.write_bytes(bytes(data))
    return at


def classify(before: list[tuple[int, str]], after: list[tuple[int, str]], name: str) -> str:
    """``error``, ``silent``, ``same`` or ``crash`` (see the module's docstring)."""
    if any(code == 3 for code, _ in after):
        return "crash"
    if any(code == 0 and a != b for (code, a), (_, b) in zip(after, before, strict=True)):
        return "silent"
    changed = [a for a, b in zip(after, before, strict=True) if a != b]
    if changed and all(code == 2 and name in text.replace("\n", "") for code, text in changed):
        return "error"
    return "same" if not changed else "error-unnamed"


def run(ds: Path, flips: int, seed: int) -> dict[str, object]:
    """Flip ``flips`` random bits one at a time; count the classes."""
    rng = random.Random(seed)
    before = answers(ds)
    assert all(code == 0 for code, _ in before), before
    files = [p for _, p in iter_files(ds)]
    counts: Counter[str] = Counter()
    silent: list[str] = []
    t0 = time.perf_counter()
    for _ in range(flips):
        path = rng.choice(files)
        original = path.read_bytes()
        at = flip(path, rng)
        try:
            kind = classify(before, answers(ds), path.name)
        finally:
            path.write_bytes(original)
        counts[kind] += 1
        if kind in ("silent", "crash", "error-unnamed"):
            silent.append(f"{kind}: {path.relative_to(ds)} byte {at} of {len(original)}")
    return {
        "flips": flips,
        "seed": seed,
        "files": len(files),
        "counts": dict(sorted(counts.items())),
        "not_errors": silent,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--flips", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ds = make_dataset(Path(tmp), args.games)
        print(json.dumps(run(ds, args.flips, args.seed), indent=1))


if __name__ == "__main__":
    main()
