"""Do two revisions give the same outputs? ``validate``, ``ingest``, ``audit``, ``import``.

Usage::

    python bench/same_outputs.py REV_A REV_B [--keep DIR] [--examples DIR]

Each revision is checked out with ``git worktree add --detach`` into a temporary folder and
run as ``python -m maumau_log`` with ``PYTHONPATH`` pointing there and
``MAUMAU_LOG_PURE_PYTHON=1`` (a worktree has no compiled ``.so`` files; the pure build is the
reference the compiled one is tested against). Both revisions read the same inputs: a copy of
REV_A's ``sample_logs/`` and of the ``--examples`` folder (default
``/work/shared/examples/``, when present), run from that copy
with relative paths, so the file names in the outputs are the same.

What is compared, byte for byte unless said otherwise:

1. ``validate --json --jobs 1`` over ``sample_logs/`` and over the shared examples: exit
   code, stdout and stderr;
2. ``ingest sample_logs --jobs 1``: the exit code, stdout without the timing in its last
   line's parentheses, and the rows of every table of the dataset, read with pyarrow (the
   partition keys ``ruleset``/``date`` from the paths added), sorted, compared as Python
   values. The Parquet file names and the ingest's time stamps (``games.ingested_at``,
   ``matches.first_ingest``/``last_ingest``) differ from run to run and are left out;
3. ``audit --format json`` of that dataset: exit code and stdout;
4. ``import openspiel`` over every ``sample_logs/openspiel/*.openspiel.txt``, with the
   default returns and with ``--returns field``, and ``--validate --json``: exit code,
   stdout, stderr and the written log.

Prints one line per output (``same``, or ``DIFFERS`` with how many lines differ and the first
three, A's and B's side by side) and exits 0 when everything is the same, 1 when anything
differs, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = Path("/work/shared/examples")
_TIMING = re.compile(r" \([0-9,]+ events in [0-9.]+ s, [0-9,]+ events/s\)")
_VOLATILE = {"games": {"ingested_at"}, "matches": {"first_ingest", "last_ingest"}}
"""Columns that hold the time of the ingest: different in every run, never compared."""


def _checkout(rev: str, where: Path) -> Path:
    """A detached worktree of ``rev`` at ``where``; returns ``where``."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(where), rev],
        check=True,
    )
    return where


def _run(tree: Path, cwd: Path, *args: str) -> tuple[int, bytes, bytes]:
    """``python -m maumau_log ARGS`` on the code of ``tree``, in ``cwd``."""
    env = dict(os.environ, PYTHONPATH=str(tree), MAUMAU_LOG_PURE_PYTHON="1", COLUMNS="100")
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "maumau_log", *args], cwd=cwd, env=env, capture_output=True
    )
    return proc.returncode, proc.stdout, proc.stderr


def _table_rows(dataset: Path) -> dict[str, list[Any]]:
    """Every table's rows as sorted lists of Python values (partition keys included)."""
    import pyarrow.parquet as pq

    tables: dict[str, list[Any]] = {}
    for table_dir in sorted(p for p in dataset.iterdir() if p.is_dir()):
        rows: list[Any] = []
        for part in sorted(table_dir.rglob("*.parquet")):
            keys = dict(
                seg.split("=", 1) for seg in part.relative_to(table_dir).parts[:-1] if "=" in seg
            )
            for row in pq.read_table(part).to_pylist():
                for col in _VOLATILE.get(table_dir.name, ()):
                    row.pop(col, None)
                row.update(keys)
                rows.append(sorted(row.items()))
        tables[table_dir.name] = sorted(rows, key=repr)
    return tables


def _outputs(tree: Path, inputs: Path, scratch: Path) -> dict[str, object]:
    """Every compared output of the code in ``tree``, by name."""
    out: dict[str, object] = {}
    out["validate sample_logs"] = _run(
        tree, inputs, "validate", "sample_logs", "--json", "--jobs", "1", "--no-progress"
    )
    if (inputs / "examples").is_dir():
        out["validate examples"] = _run(
            tree, inputs, "validate", "examples", "--json", "--jobs", "1", "--no-progress"
        )
    dataset = scratch / "dataset"
    rc, stdout, stderr = _run(
        tree,
        inputs,
        "ingest",
        "sample_logs",
        "--out",
        str(dataset),
        "--jobs",
        "1",
        "--no-progress",
    )
    out["ingest (exit, stdout, stderr)"] = (
        rc,
        _TIMING.sub("", stdout.decode()),
        _TIMING.sub("", stderr.decode()),
    )
    for name, rows in _table_rows(dataset).items():  # a row per line: differences by row
        out[f"ingest table {name} ({len(rows)} rows)"] = "\n".join(map(repr, rows))
    out["audit --format json"] = _run(tree, inputs, "audit", str(dataset), "--format", "json")
    for src in sorted((inputs / "sample_logs" / "openspiel").glob("*.openspiel.txt")):
        rel = str(src.relative_to(inputs))
        for extra in ([], ["--returns", "field"], ["--validate", "--json"]):
            log = scratch / f"{src.stem}{'-'.join(extra)}.jsonl"
            res = _run(tree, inputs, "import", "openspiel", rel, "--out", str(log), *extra)
            written = log.read_bytes() if log.exists() else b"(no file)"
            out[f"import openspiel {rel} {' '.join(extra)}".rstrip()] = (*res, written)
    return out


def _differences(a: object, b: object, show: int = 3) -> str:
    """How many lines of two outputs' texts differ, and the first ``show`` of them (from a
    little before the first differing character)."""
    la, lb = repr(a).split("\\n"), repr(b).split("\\n")
    pairs = [(i, x, y) for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y]
    text = f"{len(pairs)} line(s) differ" + (
        f", and one is longer: {len(la)} against {len(lb)} lines" if len(la) != len(lb) else ""
    )
    for i, x, y in pairs[:show]:
        at = next((k for k, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), 0)
        lo = max(0, at - 60)
        text += (
            f"\n    line {i + 1}:\n      A: ...{x[lo : at + 120]}\n      B: ...{y[lo : at + 120]}"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    """Compare the outputs of two revisions; 0 when all are the same, 1 when any differs."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rev_a")
    ap.add_argument("rev_b")
    ap.add_argument("--keep", type=Path, help="keep the checkouts and outputs in this folder")
    ap.add_argument(
        "--examples", type=Path, default=EXAMPLES, help="more logs to validate (when present)"
    )
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="same-outputs-")) if args.keep is None else args.keep
    base.mkdir(parents=True, exist_ok=True)
    trees: list[Path] = []
    try:
        for label, rev in (("a", args.rev_a), ("b", args.rev_b)):
            trees.append(_checkout(rev, base / f"tree-{label}"))
        inputs = base / "inputs"
        shutil.copytree(trees[0] / "sample_logs", inputs / "sample_logs")
        if args.examples.is_dir():
            shutil.copytree(args.examples, inputs / "examples")
        results: list[dict[str, object]] = []
        for label, tree in zip("ab", trees, strict=True):
            scratch = base / "out"  # the same path for both: it shows in the outputs
            scratch.mkdir()
            results.append(_outputs(tree, inputs, scratch))
            scratch.rename(base / f"out-{label}")
        differs = 0
        show: Callable[[str], None] = print
        for name in sorted(set(results[0]) | set(results[1])):
            a, b = results[0].get(name), results[1].get(name)
            if a == b:
                show(f"same     {name}")
            else:
                differs += 1
                show(f"DIFFERS  {name}: {_differences(a, b)}")
        show(f"{args.rev_a} against {args.rev_b}: {len(results[0])} outputs, {differs} differ")
        return 1 if differs else 0
    finally:
        for tree in trees:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False
            )
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
