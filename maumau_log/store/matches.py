"""Matches in the dataset: the ``matches`` table and the ``results`` running totals.

:func:`match_rows` computes a match's row from its stored rounds; :func:`update_matches`
rewrites what an ingest changed, through the ingest's writer (so it is published with the
ingest, atomically, or not at all).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from ..rules import Ruleset, RulesetError, resolve
from ..scoring.matches import MatchState, add_scores, is_over, match_winner
from . import (
    SCHEMAS,
    UNKNOWN,
    DatasetWriter,
    polars_schema,
    scan_paths,
)

if TYPE_CHECKING:  # Polars loads where the rounds of a match are read: an ingest of
    # games outside matches never imports it (about 0.2 CPU s)
    import polars as pl

# ---------------------------------------------------------------------------------------
# Matches: the matches table and the running totals


@dataclass
class MatchRound:
    """One stored round of a match, as :func:`match_rows` reads it.

    Attributes:
        game_id, round, valid, winner, dealer, players: from the ``games`` row (``round``
            as the replay numbered it where the header gave none).
        scores: player to round score (the ``results`` rows), None where the round is
            invalid or unscored.
        match_end: the round's accepted ``match_end`` (its raw JSON decoded), or None.
    """

    game_id: str
    round: int | None
    valid: bool
    winner: str | None
    dealer: str | None
    players: list[str]
    scores: dict[str, int] | None
    match_end: dict[str, Any] | None = None


def _match_rules(ruleset: str | None, options: str | None) -> Ruleset | None:
    if ruleset is None or options is None or ruleset == UNKNOWN:
        return None
    try:
        return resolve(ruleset, None, json.loads(options))
    except (RulesetError, ValueError):
        return None


def match_rows(
    match_id: str, rules: Ruleset | None, rounds: list[MatchRound]
) -> tuple[dict[str, Any], dict[str, dict[str, int] | None]]:
    """A match's ``matches`` row and every round's running totals, from its stored rounds.

    The rounds are taken in order of ``round`` (then game id). The running totals are
    known from round 1 on while each round is the next number, valid and scored, and the
    match was not over before it (PRESETS.md ruling 14, :func:`maumau_log.scoring.matches.is_over`);
    from the first round that breaks this on they are unknown (None). Under ``scoring =
    "none"`` (a match decided by ``loser_hand_shrink``) every round scores 0 for the match's
    end and winner, and the running totals are None.

    Returns:
        ``(row, totals)``: ``row`` has the ``matches`` columns (without the ingest times):

        - ``players``: the seats of the first stored round.
        - ``rounds``: rounds stored; ``valid_rounds``: of them valid.
        - ``totals``: per player of ``players``, the sum of the scores of the valid rounds
          stored (the final totals when the match is valid).
        - ``over``: the stored rounds reach the match's end (target or round count).
        - ``ended``: a ``match_end`` was accepted in a stored round.
        - ``valid``: rounds 1..n all stored and valid, the match over exactly after round
          n, whose ``match_end`` (the only one) claims those totals and that winner.
        - ``winner``: the match winner once over (highest or lowest total, then most
          rounds won), None for a draw or a match not over; ``draw``: True for a draw,
          False for a match won, None while not over.

        ``totals`` maps each round's game id to the running totals after it (None when
        not known).
    """
    order = sorted(rounds, key=lambda r: (r.round is None, r.round or 0, r.game_id))
    players = list(order[0].players) if order else []
    st = MatchState(match_id, tuple(players), rules.key if rules is not None else "")
    running: dict[str, int] = dict.fromkeys(players, 0)
    sums: dict[str, int] = dict.fromkeys(players, 0)
    known = rules is not None
    expected = 1
    over_at: int | None = None
    winner: str | None = None
    valid_rounds = 0
    after: dict[str, dict[str, int] | None] = {}
    scored = rules is not None and rules.scoring != "none"
    for r in order:
        scores = r.scores if scored else dict.fromkeys(r.players, 0)
        if r.valid:
            valid_rounds += 1
            if scores is not None:
                sums = add_scores(sums, scores)
        ok = known and r.round == expected and r.valid and scores is not None
        if ok and over_at is None and rules is not None and scores is not None:
            running = add_scores(running, scores)
            won = Counter(st.rounds_won)
            if r.winner is not None:
                won[r.winner] += 1
            st.record_round(r.players, r.dealer or "", r.winner, running, won, False, False)
            left = st.players_left(rules)
            if is_over(rules, running, expected, len(left)):
                over_at = expected
                winner = match_winner(rules, players, running, won, left)
            after[r.game_id] = dict(running) if scored and _fit(running.values()) else None
        else:
            known = False
            after[r.game_id] = None
        expected = (r.round if r.round is not None else expected) + 1
    ends = [r for r in order if r.match_end is not None]
    last = order[-1] if order else None
    proper = (
        known
        and last is not None
        and over_at == last.round
        and len(ends) == 1
        and ends[0] is last
        and _claims_hold(last.match_end, running, winner)
    )
    row = {
        "match_id": match_id,
        "players": players,
        "rounds": len(order),
        "valid_rounds": valid_rounds,
        "totals": [
            {"player": p, "total": sums.get(p, 0) if _fit([sums.get(p, 0)]) else None}
            for p in players
        ],
        "over": over_at is not None,
        "ended": bool(ends),
        "valid": bool(proper),
        "winner": winner,
        "draw": (winner is None) if over_at is not None else None,
    }
    return row, after


def _fit(totals: Any) -> bool:
    """Whether every total fits the 64-bit columns (``total_after``, ``matches.totals``);
    a sum beyond is stored as null (not known), not as a wrapped number."""
    return all(-(2**63) <= t <= 2**63 - 1 for t in totals)


def _claims_hold(end: dict[str, Any] | None, totals: Mapping[str, int], winner: str | None) -> bool:
    """Whether a ``match_end`` claims these totals (where it gives any) and this winner."""
    if end is None:
        return False
    claimed = end.get("totals")
    if isinstance(claimed, dict) and any(
        claimed.get(p) != totals.get(p, 0) for p in set(claimed) | set(totals)
    ):
        return False
    return end.get("winner") == winner


_ROUND_GAME_COLUMNS = (
    "game_id", "match_id", "round", "players", "dealer", "valid", "winner", "options",
    "ingested_at", "ruleset", "date",
)  # fmt: skip
_ROUND_RESULT_COLUMNS = (
    "game_id", "player", "seat", "round_score", "match_id", "round", "total_after", "_file",
)  # fmt: skip


def _partition(rel: str) -> str:
    """``ruleset=R/date=D`` of a file ``<table>/ruleset=R/date=D/<name>``."""
    return "/".join(rel.split("/")[1:3])


def _read_rounds(
    writer: DatasetWriter, match_ids: set[str]
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, dict[str, Any]]]:
    """The stored rounds of some matches: games rows, results rows (with ``_file``, the
    file each comes from) and each round's accepted ``match_end``.

    What these rows decide is written back (results running totals, matches rows), so
    every published file read is first checked against its recorded SHA-256
    (:meth:`DatasetWriter.check`); ``results`` and ``events`` only in the partitions of
    the matches' rounds.
    """
    import polars as pl

    ids = sorted(match_ids)
    games_files = writer.files("games")
    writer.check([rel for rel, _ in games_files])
    games = (
        scan_paths("games", [p for _, p in games_files])
        .filter(pl.col("match_id").is_in(ids))
        .select(_ROUND_GAME_COLUMNS)
        .collect()
    )
    if games.height == 0:
        return games, pl.DataFrame(), {}
    gids = games["game_id"].to_list()
    folders = {f"ruleset={r}/date={d}" for r, d in games.select("ruleset", "date").iter_rows()}

    def in_parts(table: str) -> list[Path]:
        """The table's files in the rounds' partitions, checked."""
        files = [(rel, p) for rel, p in writer.files(table) if _partition(rel) in folders]
        writer.check([rel for rel, _ in files])
        return [p for _, p in files]

    parts = pl.col("game_id").is_in(gids)
    results = (
        scan_paths("results", in_parts("results"), include_file_paths="_file")
        .filter(parts)
        .select(_ROUND_RESULT_COLUMNS)
        .collect()
    )
    ends = (
        scan_paths("events", in_parts("events"))
        .filter(parts & (pl.col("type") == "match_end"))
        .select("game_id", "raw")
        .collect()
    )
    match_end = {gid: json.loads(raw) for gid, raw in ends.iter_rows()}
    return games, results, match_end


def update_matches(writer: DatasetWriter, match_ids: set[str]) -> None:
    """Recompute the ``matches`` rows and the ``results`` running totals of some matches.

    Called by :func:`ingest` with the matches it added rounds to, after its rows are
    written: every stored round of those matches (published or just written) is read
    back, :func:`match_rows` computes the match and the running totals, and every file
    whose rows differ is replaced through the writer (so the change is published with the
    ingest, atomically, or not at all). Rounds of one match may so arrive in any ingest and
    any order.

    Args:
        writer: the open ingest's writer (its files are closed here).
        match_ids: the matches to recompute.
    """
    if not match_ids:
        return
    writer.close_files()
    games, results, ends = _read_rounds(writer, match_ids)
    if games.height == 0:
        return
    scores: dict[str, dict[str, int] | None] = {}
    result_round: dict[str, int] = {}
    if results.height:
        for gid, player, score, rnd in results.select(
            "game_id", "player", "round_score", "round"
        ).iter_rows():
            cur = scores.setdefault(gid, {})
            if cur is not None:
                scores[gid] = None if score is None else {**cur, player: score}
            if rnd is not None:
                result_round[gid] = rnd
    rows: list[dict[str, Any]] = []
    fixes: dict[str, tuple[str, int | None, dict[str, int] | None]] = {}
    for (mid,), part in games.sort("round", "game_id", nulls_last=True).group_by(
        "match_id", maintain_order=True
    ):
        first = part.row(0, named=True)
        rounds = []
        for g in part.iter_rows(named=True):
            rnd = g["round"] if g["round"] is not None else result_round.get(g["game_id"])
            rounds.append(
                MatchRound(
                    game_id=g["game_id"],
                    round=rnd,
                    valid=bool(g["valid"]),
                    winner=g["winner"],
                    dealer=g["dealer"],
                    players=list(g["players"] or []),
                    scores=scores.get(g["game_id"]) if g["valid"] else None,
                    match_end=ends.get(g["game_id"]),
                )
            )
            fixes[g["game_id"]] = (str(mid), rnd, None)
        row, after = match_rows(str(mid), _match_rules(first["ruleset"], first["options"]), rounds)
        for gid, totals in after.items():
            fixes[gid] = (fixes[gid][0], fixes[gid][1], totals)
        times = part["ingested_at"]
        row["first_ingest"] = times.min()
        row["last_ingest"] = times.max()
        row["_part"] = (first["ruleset"], first["date"])
        rows.append(row)
    _fix_results(writer, results, fixes)
    _replace_matches(writer, {str(r["match_id"]) for r in rows}, rows)


def _fix_results(
    writer: DatasetWriter,
    results: pl.DataFrame,
    fixes: Mapping[str, tuple[str, int | None, dict[str, int] | None]],
) -> None:
    """Rewrite the ``results`` files whose match columns differ from ``fixes``."""
    import polars as pl

    if results.height == 0:
        return
    rows = []
    for gid, p in results.select("game_id", "player").iter_rows():
        fix = fixes.get(gid)
        if fix is not None:
            mid, rnd, totals = fix
            rows.append((gid, p, mid, rnd, totals.get(p) if totals is not None else None))
    want = pl.DataFrame(
        rows,
        schema={
            "game_id": pl.String,
            "player": pl.String,
            "_mid": pl.String,
            "_round": pl.Int32,
            "_total": pl.Int64,
        },
        orient="row",
    )
    cmp = results.join(want, on=["game_id", "player"], how="inner")
    differs = cmp.filter(
        pl.col("match_id").ne_missing(pl.col("_mid"))
        | pl.col("round").ne_missing(pl.col("_round"))
        | pl.col("total_after").ne_missing(pl.col("_total"))
    )
    if differs.height == 0:
        return
    where = {str(path): rel for rel, path in writer.files("results")}
    for file in differs["_file"].unique().sort().to_list():
        rel = where[file]
        df = pl.from_arrow(writer.read(rel))  # a published file: checked, then read
        assert isinstance(df, pl.DataFrame)
        for name, dtype in polars_schema("results").items():
            if name not in df.columns:
                df = df.with_columns(pl.lit(None, dtype).alias(name))
        df = (
            df.join(want, on=["game_id", "player"], how="left", maintain_order="left")
            .with_columns(
                pl.when(pl.col("_mid").is_not_null()).then(pl.col(c)).otherwise(pl.col(o)).alias(o)
                for c, o in (("_mid", "match_id"), ("_round", "round"), ("_total", "total_after"))
            )
            .select(SCHEMAS["results"].names)
        )
        writer.replace("results", rel, df.to_arrow())


def _replace_matches(writer: DatasetWriter, ids: set[str], rows: list[dict[str, Any]]) -> None:
    """Drop the old ``matches`` rows of ``ids`` and write ``rows`` in their place."""
    import polars as pl

    files = writer.files("matches")
    if files:
        writer.check([rel for rel, _ in files])
        old = (
            scan_paths("matches", [p for _, p in files], include_file_paths="_file")
            .filter(pl.col("match_id").is_in(sorted(ids)))
            .select("_file")
            .unique()
            .collect()
        )
        where = {str(path): rel for rel, path in files}
        for file in sorted(old["_file"].to_list()):
            table = writer.read(where[file])
            keep = pc.invert(pc.is_in(table.column("match_id"), pa.array(sorted(ids))))
            writer.replace("matches", where[file], table.filter(keep))
    by_part: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_part.setdefault(row.pop("_part"), []).append(row)
    for (ruleset, date), part_rows in sorted(by_part.items()):
        table = pa.Table.from_pylist(part_rows, schema=SCHEMAS["matches"])
        writer.write(ruleset, date, {"matches": table})
