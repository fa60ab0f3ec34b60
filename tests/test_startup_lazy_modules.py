"""The standard-library modules a short ``validate`` or ``import openspiel --validate``
does not load: each is start-up paid by every process (counted in instructions by
callgrind, beside ``import typer, msgspec``): hashlib (it loads OpenSSL's ``_hashlib``,
about 10 million instructions, 2.5% of a two-game validate) and pickle (6 million).
They load where they are used: a seeded game's fair shuffle (RULES.md, the provably fair
shuffle), a long variant label, an ingest that stages its outcomes. No timings here; each
check is of a value."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "sample_logs" / "valid" / "standard_2p.jsonl"
HISTORIES = ROOT / "sample_logs" / "openspiel" / "histories.openspiel.txt"

LAZY = ("_hashlib", "hashlib", "pickle")
"""Modules neither command loads for these inputs."""

_CHILD = r"""
import sys
sys.argv = ["maumau-log", *sys.argv[1:]]
from maumau_log.launch import run

try:
    run()
except SystemExit as exc:
    code = exc.code
print("RESULT", code, sorted(m for m in LAZY if m in sys.modules), file=sys.stderr)
"""


def _loaded(*argv: str) -> str:
    """Run ``maumau-log ARGV`` in a child process; its exit code and the modules of
    :data:`LAZY` it loaded, as ``"RESULT <code> [<modules>]"``."""
    code = f"LAZY = {LAZY!r}\n" + _CHILD
    res = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    line = [x for x in res.stderr.splitlines() if x.startswith("RESULT")]
    assert line, res.stderr[-800:]
    return line[0]


def test_validate_of_unseeded_games_loads_no_hashlib_nor_pickle() -> None:
    """``validate --jobs 1`` of two games without a shuffle seed: exit 0, none of
    :data:`LAZY` loaded (the game ids' content digest is blake2b from ``_blake2``, the
    same function as ``hashlib.blake2b``)."""
    assert _loaded("validate", "--jobs", "1", str(LOG)) == "RESULT 0 []"


def test_import_validate_loads_no_hashlib_nor_pickle(tmp_path: Path) -> None:
    """``import openspiel --validate`` of three histories: exit 0, none of :data:`LAZY`."""
    out = tmp_path / "o.jsonl"
    argv = ("import", "openspiel", str(HISTORIES), "--out", str(out), "--validate")
    assert _loaded(*argv) == "RESULT 0 []"


def test_content_digest_is_hashlibs_blake2b() -> None:
    """The digest :class:`~maumau_log.replay.report.ContentHasher` uses is the function
    ``hashlib.blake2b`` names, so the 64-bit content digests that tell a game id's
    copies apart (the same game, or two games) are unchanged."""
    import hashlib

    from maumau_log.replay import report

    assert report.blake2b is hashlib.blake2b
    digest = report.blake2b(b"game", digest_size=8).digest()
    assert digest == hashlib.blake2b(b"game", digest_size=8).digest()


def test_fair_shuffle_and_long_variant_label_still_hash() -> None:
    """hashlib loads on first use: a seed's commitment is its SHA-256 (the shuffle's test
    vector in ``schemas/shuffle-vectors.json`` style), and a long variant label ends with
    the first six hex digits of the SHA-256 of its options."""
    import hashlib
    import json

    from maumau_log.engine.shuffle import commitment
    from maumau_log.rules import variant_label

    want = hashlib.sha256(b"seed-1").hexdigest()
    assert commitment("seed-1") == want
    options = {f"o{i}": i for i in range(12)}
    label = variant_label("classic", json.dumps(options))
    digest = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:6]
    assert label.endswith(f"variant {digest})"), label


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``python -m maumau_log ARGV`` in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "maumau_log", *argv], capture_output=True, text=True
    )


def test_import_validate_of_unique_ids_reports_as_validate(tmp_path: Path) -> None:
    """Three histories, three game ids: ``import --validate --json`` (no content digests
    made) prints the same document as ``validate --json`` of the written log (digests
    made): 3 games, 3 valid, no duplicate or conflicting id."""
    out = tmp_path / "o.jsonl"
    imported = _cli("import", "openspiel", str(HISTORIES), "--out", str(out), "--validate",
                    "--json")  # fmt: skip
    plain = _cli("validate", "--json", str(out))
    assert imported.returncode == plain.returncode == 0
    assert imported.stdout == plain.stdout
    doc = json.loads(imported.stdout)
    assert (doc["games"], doc["valid"], doc["duplicate_game_ids"]) == (3, 3, [])
    assert doc["conflicting_game_ids"] == {}


def test_import_validate_of_repeated_ids_still_finds_conflicts(tmp_path: Path) -> None:
    """Two files of one name (``a/h.txt``: games 1, 2, 3; ``b/h.txt``: the same games in
    the order 2, 1, 3) give the ids ``h-1``, ``h-2``, ``h-3`` twice: ``h-3`` twice for one
    game (a duplicate), ``h-1`` and ``h-2`` for different games (conflicts, each with the
    first lines of its two copies), as ``validate --json`` of the written log says."""
    rows = HISTORIES.read_text().splitlines()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "h.txt", tmp_path / "b" / "h.txt"
    first.write_text("\n".join(rows) + "\n")
    second.write_text("\n".join([rows[1], rows[0], rows[2]]) + "\n")
    out = tmp_path / "o.jsonl"
    imported = _cli("import", "openspiel", str(first), str(second), "--out", str(out),
                    "--validate", "--json")  # fmt: skip
    plain = _cli("validate", "--json", str(out))
    assert imported.stdout == plain.stdout
    doc = json.loads(imported.stdout)
    assert doc["duplicate_game_ids"] == ["h-1", "h-2", "h-3"]
    assert sorted(doc["conflicting_game_ids"]) == ["h-1", "h-2"]
    assert all(len(places) == 2 for places in doc["conflicting_game_ids"].values())
