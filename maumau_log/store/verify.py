"""``maumau-log verify DATASET``: a dataset that checks itself.

Two kinds of check:

1. Files. Every file the manifest lists exists, has the size and the SHA-256 the manifest
   recorded (``file_info``), is a Parquet file of the table it is listed under (the
   ``maumau_log.table`` key of its schema metadata) and of a version this maumau-log reads.
   A manifest written before checksums were recorded is accepted: its files are checked
   for presence and readability, and the report says their checksums were not recorded.
   Parquet files under the table folders that the manifest does not list and staging
   folders (``.tmp-*``), left by an interrupted ingest (the next ingest or ``verify
   --repair`` deletes them), are noted, not counted as damage.
2. Agreement between the tables (over the files that passed 1):

   - ``games``: each ``game_id`` once;
   - ``results``, ``events``, ``violations``: every row has its game in ``games``, in the
     same ``ruleset``/``date`` partition;
   - ``results``: a game whose ruleset resolved has one row per player, seats 0..n-1 in
     the header's order, with the game's ``valid``; the winner is a player of the game;
   - ``events``: a game's events are numbered 0..k-1 without gaps; a valid game stores all
     its events (k = ``games.events``), an invalid one those before its violation
     (k = ``violation_index``; when that is 0, a header fault, at most all of them: a
     game whose ``started_at`` is no date is still replayed);
   - ``violations``: a game is invalid exactly when it has a violation row, whose code is
     the game's ``violation_code``;
   - ``matches``: every ``match_id`` of ``games`` has one ``matches`` row and every row
     has its rounds (``rounds`` = the games stored with that id).

Every problem names the file or the game it is about. Nothing is repaired (``verify
--repair`` deletes leftovers first: :func:`maumau_log.store.writer.remove_leftovers`). A
dataset that cannot be checked safely is refused (exit 2) as every command refuses it: a
manifest entry that is not a plain path of its table, or a symbolic link inside the dataset
(:mod:`maumau_log.store.paths`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from . import (
    ALL_TABLES,
    DATASET_VERSION,
    MANIFEST,
    DatasetError,
    file_sha256,
    read_manifest,
    scan_paths,
)
from .paths import check_listed, check_tables, parquet_files

MAX_LISTED = 20
"""Examples listed per cross-table problem (the count is always given)."""


@dataclass
class Problem:
    """One thing wrong with a dataset.

    Attributes:
        check: ``"file"`` or the cross-table check's name (``"results.game"``, ...).
        where: the file (relative to the dataset) or the table.
        message: what is wrong, in one line.
    """

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class VerifyReport:
    """What :func:`verify` found.

    Attributes:
        dataset: the dataset folder.
        files: files the manifest lists.
        checksummed: of those, files whose checksum was recorded and matched.
        unrecorded: files listed without a recorded size and checksum (older version).
        unlisted: Parquet files under the table folders that the manifest does not list.
        staging: staging folders (``.tmp-*``) of ingests killed before their commit (or
            running now), with the files their workers staged.
        rows: rows read per table (from the files that passed the file checks).
        problems: every problem, files first.
    """

    dataset: str
    files: int = 0
    checksummed: int = 0
    unrecorded: int = 0
    unlisted: list[str] = field(default_factory=list)
    staging: list[str] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "dataset": self.dataset,
            "ok": self.ok,
            "files": self.files,
            "checksummed": self.checksummed,
            "checksums_not_recorded": self.unrecorded,
            "unlisted_files": self.unlisted,
            "staging_folders": self.staging,
            "rows": self.rows,
            "problems": [
                {"check": p.check, "where": p.where, "message": p.message} for p in self.problems
            ],
        }


def _check_file(
    root: Path, table: str, rel: str, info: dict[str, Any], checked: set[str]
) -> str | None:
    """What is wrong with one listed file, or None.

    Raises:
        DatasetError: the file or a folder on its way is a symbolic link (never followed).
    """
    path = root / rel
    try:
        st = check_listed(root, rel, checked)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if st is None:
        return "missing (listed in the manifest)"
    size = st.st_size
    want_size, want_sum = info.get("bytes"), info.get("sha256")
    if isinstance(want_size, int) and size != want_size:
        return f"changed: {size:,} bytes, the manifest recorded {want_size:,}"
    if isinstance(want_sum, str):
        try:
            got = file_sha256(path)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        if got != want_sum:
            return f"changed: SHA-256 {got[:16]}..., the manifest recorded {want_sum[:16]}..."
    try:
        meta = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as exc:
        first = str(exc).strip().splitlines()
        return f"not a readable Parquet file: {first[0] if first else type(exc).__name__}"
    stored = meta.get(b"maumau_log.table", b"").decode()
    if stored and stored != table:
        return f"a file of table {stored!r} listed under {table!r}"
    version = meta.get(b"maumau_log.dataset_version", b"").decode()
    if version.isdigit() and int(version) > DATASET_VERSION:
        return f"dataset version {version}; this maumau-log reads {DATASET_VERSION}"
    return None


def _examples(df: pl.DataFrame, column: str = "game_id") -> str:
    values = [str(v) for v in df[column].head(MAX_LISTED).to_list()]
    more = f" and {df.height - MAX_LISTED} more" if df.height > MAX_LISTED else ""
    return ", ".join(repr(v) for v in values) + more


def _cross_checks(frames: dict[str, pl.DataFrame], report: VerifyReport) -> None:
    games, results = frames["games"], frames["results"]
    events, violations, matches = frames["events"], frames["violations"], frames["matches"]

    def problem(check: str, where: str, bad: pl.DataFrame, what: str, col: str = "game_id") -> None:
        if bad.height:
            report.problems.append(
                Problem(check, where, f"{bad.height} {what}: {_examples(bad, col)}")
            )

    dup = games.group_by("game_id").len().filter(pl.col("len") > 1)
    problem("games.unique", "games", dup, "game ids stored more than once")
    keys = games.select("game_id", "ruleset", "date", "valid", "n_players", "players")
    for name, df in (("results", results), ("events", events), ("violations", violations)):
        ids = df.select("game_id", "ruleset", "date").unique()
        orphan = ids.join(keys, on="game_id", how="anti")
        problem(f"{name}.game", name, orphan, "game ids with no row in games")
        moved = ids.join(keys, on="game_id", how="inner").filter(
            (pl.col("ruleset") != pl.col("ruleset_right"))
            | (pl.col("date") != pl.col("date_right"))
        )
        problem(
            f"{name}.partition", name, moved, "game ids stored in another partition than their game"
        )

    # results: one row per seat, in the header's order, with the game's validity
    resolved = games.filter(pl.col("options").is_not_null())
    per_game = results.group_by("game_id").agg(
        pl.len().alias("rows"),
        pl.col("player").sort_by("seat").alias("seated"),
        pl.col("seat").sort().alias("seats"),
        pl.col("valid").alias("valids"),
    )
    joined = resolved.join(per_game, on="game_id", how="left")
    missing = joined.filter(pl.col("rows").is_null())
    problem("results.rows", "results", missing, "games whose ruleset resolved have no results rows")
    present = joined.filter(pl.col("rows").is_not_null())
    wrong = present.filter(
        (pl.col("rows") != pl.col("n_players").cast(pl.UInt32))
        | (pl.col("seated") != pl.col("players"))
        | (
            pl.col("seats")
            != pl.int_ranges(0, pl.col("n_players").cast(pl.Int64)).cast(pl.List(pl.Int32))
        )
    )
    problem(
        "results.seats",
        "results",
        wrong,
        "games whose results rows are not one per seat in the header's order",
    )
    flag = present.filter(
        pl.col("valids").list.any() & ~pl.col("valids").list.all()
        | (pl.col("valid") & ~pl.col("valids").list.all())
        | (~pl.col("valid") & pl.col("valids").list.any())
    )
    problem("results.valid", "results", flag, "games whose results rows disagree with games.valid")
    winners = games.filter(
        pl.col("winner").is_not_null() & ~pl.col("players").list.contains(pl.col("winner"))
    )
    problem("games.winner", "games", winners, "games whose winner is not one of their players")

    # events: 0..k-1, as many as the game's validity says
    ev = events.group_by("game_id").agg(
        pl.len().alias("stored"), pl.col("event_index").min().alias("lo"),
        pl.col("event_index").max().alias("hi"),
    )  # fmt: skip
    ge = games.join(ev, on="game_id", how="left").with_columns(
        pl.col("stored").fill_null(0).cast(pl.Int64)
    )
    gaps = ge.filter(
        (pl.col("stored") > 0)
        & ((pl.col("lo") != 0) | (pl.col("hi").cast(pl.Int64) != pl.col("stored") - 1))
    )
    problem("events.index", "events", gaps, "games whose events are not numbered 0..k-1")
    want = (
        pl.when(pl.col("valid"))
        .then(pl.col("events").cast(pl.Int64) == pl.col("stored"))
        .when(pl.col("violation_index").is_null())
        .then(pl.col("stored") == 0)
        .when(pl.col("violation_index") == 0)
        .then(pl.col("stored") <= pl.col("events").cast(pl.Int64))
        .otherwise(pl.col("violation_index").cast(pl.Int64) == pl.col("stored"))
    )
    problem(
        "events.count",
        "events",
        ge.filter(~want),
        "games whose stored events do not match games.events / violation_index",
    )

    # violations: exactly the invalid games, with their code
    vc = violations.group_by("game_id").agg(
        pl.col("code").first().alias("code"), pl.len().alias("n")
    )
    gv = games.join(vc, on="game_id", how="left")
    problem(
        "violations.valid",
        "violations",
        gv.filter(pl.col("valid") & pl.col("n").is_not_null()),
        "valid games with a violation row",
    )
    problem(
        "violations.missing",
        "violations",
        gv.filter(~pl.col("valid") & pl.col("n").is_null()),
        "invalid games without a violation row",
    )
    problem(
        "violations.code",
        "violations",
        gv.filter(
            ~pl.col("valid")
            & pl.col("n").is_not_null()
            & (pl.col("code") != pl.col("violation_code"))
        ),
        "games whose violation row has another code than games.violation_code",
    )

    # matches: one row per match id of games, with its rounds
    rounds = (
        games.filter(pl.col("match_id").is_not_null())
        .group_by("match_id")
        .agg(pl.len().alias("stored"))
    )
    mdup = matches.group_by("match_id").len().filter(pl.col("len") > 1)
    problem(
        "matches.unique", "matches", mdup, "match ids with more than one matches row", "match_id"
    )
    mj = rounds.join(matches.select("match_id", "rounds"), on="match_id", how="full", coalesce=True)
    problem(
        "matches.row",
        "matches",
        mj.filter(pl.col("rounds").is_null()),
        "match ids of games without a matches row",
        "match_id",
    )
    problem(
        "matches.rounds",
        "matches",
        mj.filter(pl.col("stored").is_null()),
        "matches rows without any stored round",
        "match_id",
    )
    problem(
        "matches.count",
        "matches",
        mj.filter(
            pl.col("stored").is_not_null()
            & pl.col("rounds").is_not_null()
            & (pl.col("stored").cast(pl.Int64) != pl.col("rounds").cast(pl.Int64))
        ),
        "matches whose rounds differ from the games stored with their id",
        "match_id",
    )


def verify(dataset: str | os.PathLike[str]) -> VerifyReport:
    """Check every file of a dataset against its manifest and the tables against each other.

    Args:
        dataset: the dataset folder.
    Returns:
        The :class:`VerifyReport` (``ok`` when nothing is wrong).
    Raises:
        DatasetError: the folder is not a dataset or its manifest is unreadable; the
            manifest lists a path that is not inside the dataset; a symbolic link inside
            the dataset (:mod:`maumau_log.store.paths`: never followed).
    """
    root = Path(dataset)
    manifest = read_manifest(root)
    check_tables(root)
    checked: set[str] = set()
    report = VerifyReport(dataset=str(root))
    good: dict[str, list[Path]] = {}
    damaged: set[str] = set()
    listed: set[str] = set()
    for table in ALL_TABLES:
        good[table] = []
        for rel in manifest.files[table]:
            listed.add(rel)
            report.files += 1
            info = manifest.file_info.get(rel, {})
            if "sha256" not in info:
                report.unrecorded += 1
            why = _check_file(root, table, rel, info, checked)
            if why is None:
                good[table].append(root / rel)
                report.checksummed += "sha256" in info
            else:
                damaged.add(table)
                report.problems.append(Problem("file", rel, why))
    report.unlisted = sorted(rel for rel in parquet_files(root) if rel not in listed)
    report.staging = sorted(p.name for p in root.iterdir() if p.name.startswith(".tmp-"))
    try:
        frames = {t: scan_paths(t, good[t]).collect() for t in ALL_TABLES}
    except (pl.exceptions.PolarsError, OSError) as exc:
        first = str(exc).strip().splitlines()
        report.problems.append(
            Problem("file", MANIFEST, f"the tables cannot be read: {first[0] if first else exc}")
        )
        return report
    report.rows = {t: df.height for t, df in frames.items()}
    _cross_checks(frames, report)
    if damaged:
        report.problems.append(
            Problem(
                "file",
                ", ".join(sorted(damaged)),
                "the table checks above ran without the damaged files, so some of their "
                "findings may follow from the damage",
            )
        )
    return report


__all__ = ["DatasetError", "Problem", "VerifyReport", "verify"]
