"""The audit's accumulators from the facts the ingest recorded, no replay.

:func:`collect_from_tables` fills the same :class:`~maumau_log.audit.accumulators.Accumulators` that
the replay path (:func:`maumau_log.audit.accumulators.collect`) fills game by game, but from the
``audit_games``, ``audit_seats`` and ``audit_events`` tables, with Polars lazy queries run
on the streaming engine: group-bys per cell (ruleset label, table size, seat, player, pair
of players, draw reason) and bounded top-k evidence, so what is held is the per-cell
counts, the ``games`` columns and one index per replayed game (``at``, ``label``), never
the events. The findings and p-values equal the replay path's (up to the last bits of a
float where a sum is taken in another order: the deal test's expected counts, the head-to-
head fair shares); ``tests/test_audit_tables.py`` compares the two.

A dataset written before these tables (or one where an older ingest left games without
facts) has no facts for some game with a header: :func:`collect_from_tables` returns None
and the audit falls back to the replay path (the report says which it used).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from ..rules import Ruleset, RulesetError, resolve, variant_label
from ..store import AUDIT_POWERS, UNKNOWN, scan_all
from .accumulators import (
    Accumulators,
    DealAcc,
    DealGroup,
    DealSize,
    DrawCell,
    EventEvidence,
    First,
    SeatCell,
    SmallestIds,
    TimingCell,
    _Data,
)
from .collect import _GAME_COLUMNS
from .findings import DRAW_REASONS, FAST_MS, MAX_EVIDENCE
from .merge import Partial, finish, invalid_counts

_K = MAX_EVIDENCE
_SHIFT = 1 << 32


def _run(*queries: pl.LazyFrame) -> list[pl.DataFrame]:
    """Collect lazy queries one by one on the streaming engine (together, Polars would
    cache their shared sub-plans in memory: the seats joined with every game)."""
    return [q.collect(engine="streaming") for q in queries]


def _ek() -> pl.Expr:
    """The evidence order of a fact: (games row, event index) as one integer."""
    return pl.col("at").cast(pl.UInt64) * _SHIFT + pl.col("event_index").cast(pl.UInt64)


def _smallest_ids() -> list[pl.Expr]:
    """The smallest game ids of a group's rows (``ids``, with repeats) and its row count:
    :func:`_distinct_ids` takes the distinct ones (a bounded top-k, no set of all ids)."""
    return [pl.col("game_id").bottom_k(_K * 8).alias("ids"), pl.len().alias("rows")]


def _distinct_ids(ids: list[str], rows: int, source: pl.LazyFrame, key: pl.Expr) -> list[str]:
    """The :data:`MAX_EVIDENCE` smallest distinct ids of a group: from its smallest rows
    when they hold that many distinct ids (or are all its rows), else exactly from
    ``source`` filtered by ``key`` (a group whose games repeat many times)."""
    distinct = sorted(set(ids))
    if len(distinct) >= _K or rows <= len(ids):
        return distinct[:_K]
    exact = source.filter(key).select(pl.col("game_id").unique().sort().head(_K))
    return exact.collect(engine="streaming")["game_id"].to_list()


def _games_index(
    games: pl.DataFrame, options: pl.DataFrame, facts: pl.DataFrame
) -> tuple[pl.DataFrame, dict[str, Ruleset]]:
    """One row per replayed valid game: ``game_id``, ``at`` (its games row), ``label``,
    ``size``, ``winner`` and its ``audit_games`` facts; and each label's ruleset.
    ``options``: the distinct (ruleset, options_hash, options) of the valid games."""
    rules: dict[str, Ruleset] = {}
    labels = []
    for rs, oh, opts in options.iter_rows():
        label = variant_label(rs, opts) if opts is not None else rs
        try:
            rules[label] = resolve(rs, None, json.loads(opts))
        except (RulesetError, ValueError, TypeError):
            continue  # the replay path skips such games too
        labels.append((rs, oh, label))
    lab = pl.DataFrame(
        labels, schema={"ruleset": pl.String, "options_hash": pl.String, "label": pl.String},
        orient="row",
    )  # fmt: skip
    gi = (
        games.select("game_id", "at", "valid", "ruleset", "options_hash", "players", "winner")
        .filter(pl.col("valid"))
        .join(lab, on=["ruleset", "options_hash"], how="inner", nulls_equal=True)
        .join(facts.filter(pl.col("dealer").is_not_null()), on="game_id", how="inner")
        .select(
            "game_id",
            "at",
            "label",
            pl.col("players").list.len().cast(pl.Int32).alias("size"),
            "winner",
            pl.col("dealer").cast(pl.Int32),
            "starter",
            "hands_known",
            "moments",
        )
        .sort("at")
    )
    return gi, rules


def collect_from_tables(dataset: str | os.PathLike[str]) -> _Data | None:
    """The audit's input from the facts tables, or None when some game lacks facts.

    One part: the whole dataset at once (:mod:`maumau_log.audit.parts` splits it).

    Args:
        dataset: the dataset folder.
    Returns:
        What :func:`maumau_log.audit.accumulators.collect` returns (the ``games`` rows with
        ``client``, the accumulators, the number of valid games with facts), or None when
        a game with a header has no ``audit_games`` row (a dataset, or part of one, written
        before the facts tables: then replay).
    Raises:
        DatasetError: see :func:`~maumau_log.store.read_manifest`.
    """
    tables = scan_all(Path(dataset))
    cols = [c for c in _GAME_COLUMNS if c != "options"]
    games = tables["games"].select(cols).collect().with_row_index("at")
    part = partial_from_frames(tables, games)
    if not part.complete:
        return None
    return _Data(None, finish(part.acc), part.replayed, part.invalid, part.games, part.valid)


def partial_from_frames(tables: dict[str, pl.LazyFrame], games: pl.DataFrame) -> Partial:
    """The audit's counts over some games: a :class:`~maumau_log.audit.merge.Partial`.

    Args:
        tables: the ``games`` (for the variants' options), ``audit_games``,
            ``audit_seats``, ``audit_events`` and ``violations`` rows of these games (and
            maybe of others: every facts row is joined with ``games``).
        games: their ``games`` rows (the columns the tests use), with ``at``: each one's
            row in the whole ``games`` table (the evidence order).
    Returns:
        The counts; ``complete`` False when a game with a header has no ``audit_games``
        row, ``aligned`` False when ``tables`` hold facts of games not in ``games``.
    """
    options = (
        tables["games"]
        .filter(pl.col("valid"))
        .select("ruleset", "options_hash", "options")
        .unique()
        .sort("ruleset", "options_hash", nulls_last=True)
        .collect(engine="streaming")
    )
    facts = (
        tables["audit_games"]
        .select("game_id", "client", "dealer", "starter", "hands_known", "moments")
        .collect()
    )
    part = Partial(games=games.height, valid=int(games["valid"].sum()) if games.height else 0)
    headed = games.filter(pl.col("players").is_not_null()).select("game_id")
    if headed.join(facts.select("game_id"), on="game_id", how="anti").height:
        part.complete = False
        return part
    ids = games.lazy().select("game_id")
    if facts.join(games.select("game_id"), on="game_id", how="anti").height or any(
        tables[t].select("game_id").join(ids, on="game_id", how="anti").select(pl.len())
        .collect().item()
        for t in ("audit_seats", "audit_events")
    ):  # fmt: skip
        part.aligned = False
        return part
    with_client = games.join(
        facts.select("game_id", "client"), on="game_id", how="left", maintain_order="left"
    ).with_columns(pl.col("client").fill_null(UNKNOWN))
    gi, rules = _games_index(games, options, facts)
    del facts
    if gi.height:
        _fill(part.acc, tables, gi, rules)
    part.replayed = gi.height
    part.invalid = invalid_counts(with_client, tables["violations"])
    return part


def _fill(acc: Accumulators, tables: dict[str, pl.LazyFrame], gi: pl.DataFrame,
          rules: dict[str, Ruleset]) -> None:  # fmt: skip
    g = gi.lazy()
    seats = (
        tables["audit_seats"]
        .select(
            "game_id",
            "seat",
            "player",
            "hand_size",
            *(f"hand_{p}" for p in AUDIT_POWERS),
            "faults",
            "behind",
            *(f"{x}_{r}" for r in DRAW_REASONS for x in ("drawn", "playable")),
            "timed",
        )
        .join(g, on="game_id", how="inner")
    )
    facts = (
        tables["audit_events"]
        .select("game_id", "event_index", "kind", "player", "by", "reason", "flag", "ms")
        .join(g.select("game_id", "at", "label", "size"), on="game_id", how="inner")
    )
    gid_of: dict[int, str] = {}
    want: set[int] = set()
    _deal(acc.deal, gi, seats, rules, want)
    _seats(acc, gi, seats)
    _play(acc, seats, facts, want)
    _draws_timing_abandons(acc, seats, facts, want)
    if want:
        rows = gi.filter(pl.col("at").is_in(sorted(want))).select("at", "game_id")
        gid_of = dict(rows.iter_rows())
    _resolve_evidence(acc, gid_of)


# -- deal


def _deal(acc: DealAcc, gi: pl.DataFrame, seats: pl.LazyFrame, rules: dict[str, Ruleset],
          want: set[int]) -> None:  # fmt: skip
    started = gi.filter(pl.col("starter").is_not_null())
    for label, n in started.group_by("label").len().sort("label").iter_rows():
        acc.groups[label] = DealGroup(rules[label], games=n)
    for label, starter, n in started.group_by("label", "starter").len().iter_rows():
        acc.groups[label].starters[starter] = n
    known = started.filter(pl.col("hands_known"))
    sizes = known.group_by("label", "size").len().sort("label", "size")
    if not sizes.height:
        return
    # what each (label, power) has: k cards of n in the pack (DealAcc._size's cells)
    kinds: list[tuple[str, str, int, int]] = []
    for label, size, n_games in sizes.iter_rows():
        ds = DealAcc._size(rules[label], size)
        ds.games = n_games
        acc.groups[label].sizes[size] = ds
        n_pack = len(rules[label].pack)
        for cell in ds.cells:
            if cell.keyname == "seat":
                kinds.append((label, cell.power, cell.k, n_pack))
    kinds = sorted(set(kinds))
    base = seats.filter(pl.col("starter").is_not_null() & pl.col("hands_known")).with_columns(
        (((pl.col("seat").cast(pl.Int32) - pl.col("dealer")) % pl.col("size") + pl.col("size"))
         % pl.col("size")).alias("pos")
    )  # fmt: skip
    power_cols = [f"hand_{p}" for p in AUDIT_POWERS]
    sums = [pl.col(c).cast(pl.Int64).sum().alias(c) for c in [*power_cols, "hand_size"]]
    by_seat = base.group_by("label", "size", pl.col("seat").cast(pl.Int32).alias("slot")).agg(sums)
    by_pos = base.group_by("label", "size", pl.col("pos").alias("slot")).agg(sums)
    # per label: n (pack size) and k_<power> (that power's cards; null: no cell)
    wide: dict[str, dict[str, int | None]] = {}
    for label, power, k, n in kinds:
        row = wide.setdefault(label, {"n": n, **{f"k_{p}": None for p in AUDIT_POWERS}})
        row[f"k_{power}"] = k
    kf = pl.DataFrame(
        [{"label": lb, **row} for lb, row in sorted(wide.items())],
        schema={"label": pl.String, "n": pl.Int64, **{f"k_{p}": pl.Int64 for p in AUDIT_POWERS}},
    ).lazy()
    cand = base.join(kf, on="label", how="inner")
    n, hand = pl.col("n"), pl.col("hand_size").cast(pl.Int64)

    def firsts(p: str) -> pl.Expr:
        # count > hand * k / n + 1, exactly in integers
        over = pl.col(f"hand_{p}").cast(pl.Int64) * n > hand * pl.col(f"k_{p}") + n
        return pl.col("at").filter(over).bottom_k(_K).alias(p)

    present = sorted({power for _, power, _, _ in kinds})
    ev_seat = cand.group_by("label", "size", pl.col("seat").cast(pl.Int32).alias("slot")).agg(
        [firsts(p) for p in present]
    )
    ev_pos = cand.group_by("label", "size", pl.col("pos").alias("slot")).agg(
        [firsts(p) for p in present]
    )
    s_seat, s_pos, e_seat, e_pos = _run(by_seat, by_pos, ev_seat, ev_pos)
    slot_sums = {
        "seat": {(r["label"], r["size"], r["slot"]): r for r in s_seat.to_dicts()},
        "dealer_position": {(r["label"], r["size"], r["slot"]): r for r in s_pos.to_dicts()},
    }
    evid: dict[str, dict[tuple[str, int, str, int], list[int]]] = {}
    for keyname, frame in (("seat", e_seat), ("dealer_position", e_pos)):
        evid[keyname] = {
            (r["label"], r["size"], p, r["slot"]): r[p] or []
            for r in frame.iter_rows(named=True)
            for p in present
        }
    for label, grp in acc.groups.items():
        n_pack = len(grp.rules.pack)
        for size, ds in grp.sizes.items():
            _fill_cells(label, size, ds, n_pack, slot_sums, evid, want)


def _fill_cells(label: str, size: int, ds: DealSize, n_pack: int,
                slot_sums: dict[str, dict[tuple[str, int, int], dict[str, Any]]],
                evid: dict[str, dict[tuple[str, int, str, int], list[int]]],
                want: set[int]) -> None:  # fmt: skip
    for cell in ds.cells:
        sums = slot_sums[cell.keyname]
        for i in range(size):
            row = sums.get((label, size, i))
            got = row[f"hand_{cell.power}"] if row else 0
            hand = row["hand_size"] if row else 0
            cell.got[i] = got
            cell.hand[i] = hand
            for at in sorted(evid[cell.keyname].get((label, size, cell.power, i), [])):
                cell.evidence[i].items.append((at, at))
                want.add(at)


# -- seats


def _seats(acc: Accumulators, gi: pl.DataFrame, seats: pl.LazyFrame) -> None:
    (won,) = _run(
        seats.filter(pl.col("player") == pl.col("winner"))
        .group_by("label", "size", pl.col("seat").cast(pl.Int32), "dealer")
        .len()
        .sort("label", "size", "seat", "dealer")
    )
    cells = acc.seats.cells
    for label, size, seat, dealer, n in won.iter_rows():
        cell = cells.get((label, size))
        if cell is None:
            cell = cells[(label, size)] = SeatCell([0] * size, [0] * size)
        cell.seat_wins[seat] += n
        cell.pos_wins[(seat - dealer) % size] += n
        cell.dealers[dealer % size] += n


# -- catches and head to head


def _play(acc: Accumulators, seats: pl.LazyFrame, facts: pl.LazyFrame, want: set[int]) -> None:
    play = acc.play
    a = seats.select("game_id", "label", "size", "winner", "at",
                     pl.col("player").alias("a"), pl.col("faults").alias("fa"))  # fmt: skip
    b = seats.select("game_id", pl.col("player").alias("b"))
    pairs = a.join(b, on="game_id", how="inner").filter(pl.col("a") != pl.col("b"))
    by_pair = pairs.group_by("a", "b", "label", "size").agg(
        pl.len().alias("games"),
        pl.col("fa").cast(pl.Int64).sum().alias("faults"),
        (pl.col("winner") == pl.col("a")).sum().alias("won_a"),
        (pl.col("winner") == pl.col("b")).sum().alias("won_b"),
    )
    decided = (
        pairs.filter((pl.col("a") < pl.col("b"))
                     & ((pl.col("winner") == pl.col("a")) | (pl.col("winner") == pl.col("b"))))
        .group_by("a", "b")
        .agg(pl.col("at").bottom_k(_K))
    )  # fmt: skip
    per_player = seats.group_by("player").len()
    shares = seats.filter(pl.col("winner").is_not_null()).group_by("player", "size").len()
    wins = seats.filter(pl.col("player") == pl.col("winner")).group_by("player").len()
    cell_faults = seats.group_by("label", "size").agg(pl.col("faults").cast(pl.Int64).sum())
    catches = facts.filter(pl.col("kind") == "catch")
    caught_at_table = (
        catches.join(seats.select("game_id", pl.col("player").alias("by")), on=["game_id", "by"],
                     how="semi")
        .group_by("label", "size")
        .len()
    )  # fmt: skip
    pair_caught = catches.group_by("player", "by").agg(
        pl.struct("game_id", "event_index").n_unique().alias("n")
    )
    faults = facts.filter(pl.col("kind") == "fault").select(
        "game_id", "at", "event_index", pl.col("player").alias("a")
    )
    fault_ev = (
        faults.join(b, on="game_id", how="inner")
        .filter(pl.col("a") != pl.col("b"))
        .group_by("a", "b")
        .agg(_ek().bottom_k(_K).alias("keys"), *_smallest_ids())
    )
    (r_pair, r_dec, r_pp, r_sh, r_wins, r_cf, r_cat, r_pc, r_fev) = _run(
        by_pair, decided, per_player, shares, wins, cell_faults, caught_at_table, pair_caught,
        fault_ev,
    )  # fmt: skip
    for p, n in r_pp.sort("player").iter_rows():
        play.games[p] = n
    for p, size, n in r_sh.sort("player", "size").iter_rows():
        play.fair_share[p] += Fraction(n, size)  # the wins fair play gives: 1 / size a game
    for p, n in r_wins.sort("player").iter_rows():
        play.won[p] = n
    for label, size, n in r_cf.sort("label", "size").iter_rows():
        play.faults[(label, size)] = n
    for label, size, n in r_cat.sort("label", "size").iter_rows():
        play.catches[(label, size)] = n
    for ra, rb, label, size, games, nf, won_a, won_b in r_pair.sort(
        "a", "b", "label", "size"
    ).iter_rows():
        play.pair_games[(ra, rb)] += games
        play.pair_faults[(ra, rb)][(label, size)] += nf
        if ra < rb:
            play.shared[(ra, rb)] += games
            play.wins[(ra, rb)] += won_a
            play.decided[(ra, rb)] += won_a + won_b
    for p, by, n in r_pc.sort("player", "by").iter_rows():
        play.pair_caught[(p, by)] = n
    for ra, rb, ats in r_dec.iter_rows():
        first = play.ev_games[(ra, rb)]
        for at in sorted(ats):
            first.items.append((at, at))
            want.add(at)
    fault_src = faults.join(b, on="game_id", how="inner").filter(pl.col("a") != pl.col("b"))
    for ra, rb, keys, ids, rows in r_fev.iter_rows():
        key = (pl.col("a") == ra) & (pl.col("b") == rb)
        _event_evidence(play.pair_events[(ra, rb)], keys,
                        _distinct_ids(ids, rows, fault_src, key), want)  # fmt: skip


def _event_evidence(ev: EventEvidence, keys: list[int], ids: list[str], want: set[int]) -> None:
    """Fill an :class:`EventEvidence` from sorted-able (at, index) keys and smallest ids;
    the items get their game ids in :func:`_resolve_evidence`."""
    for key in sorted(keys):
        at, index = divmod(key, _SHIFT)
        ev.events.items.append(((at, index), [at, index]))
        want.add(at)
    ev.games.ids = list(ids)


# -- draws, timing, abandons


def _draws_timing_abandons(acc: Accumulators, seats: pl.LazyFrame, facts: pl.LazyFrame,
                           want: set[int]) -> None:  # fmt: skip
    draws = facts.filter(pl.col("kind") == "draw")
    cell_aggs = []
    for r in DRAW_REASONS:
        n, k = pl.col(f"drawn_{r}").cast(pl.Int64), pl.col(f"playable_{r}").cast(pl.Int64)
        cell_aggs += [n.sum().alias(f"n_{r}"), k.sum().alias(f"k_{r}"),
                      (k * k).sum().alias(f"kk_{r}"), (k * n).sum().alias(f"kn_{r}"),
                      (n * n).sum().alias(f"nn_{r}")]  # fmt: skip
    draw_cells = seats.group_by("player").agg(cell_aggs)
    draw_ev = (
        draws.filter(pl.col("flag"))
        .group_by("player")
        .agg(_ek().bottom_k(_K).alias("keys"), *_smallest_ids())
    )
    dec = facts.filter(pl.col("kind") == "decision")
    times = dec.group_by("player", "ms").len()
    timing = dec.group_by("player").agg(
        pl.len().alias("n"), (pl.col("ms") < FAST_MS).sum().alias("fast")
    )
    timed_games = seats.filter(pl.col("timed") > 0).group_by("player").len()
    fast_ev = (
        dec.filter(pl.col("ms") < FAST_MS)
        .group_by("player")
        .agg(_ek().bottom_k(_K).alias("keys"), *_smallest_ids())
    )
    quits = facts.filter(pl.col("kind") == "abandon")
    quit_n = quits.group_by("player").agg(
        pl.len().alias("n"), pl.col("flag").cast(pl.Int64).sum().alias("behind")
    )
    quit_ev = (
        quits.filter(pl.col("flag"))
        .group_by("player")
        .agg(_ek().bottom_k(_K).alias("keys"), *_smallest_ids())
    )
    behind = seats.group_by("player").agg(
        pl.col("behind").cast(pl.Int64).sum(), pl.col("moments").cast(pl.Int64).sum()
    )
    (r_dc, r_dev, r_times, r_tim, r_tg, r_fev, r_qn, r_qev, r_beh) = _run(
        draw_cells, draw_ev, times, timing, timed_games, fast_ev, quit_n, quit_ev, behind
    )
    for row in r_dc.sort("player").iter_rows(named=True):
        for r in DRAW_REASONS:
            if row[f"n_{r}"]:
                acc.draws.cells[(row["player"], r)] = DrawCell(
                    *(row[f"{x}_{r}"] for x in ("n", "k", "kk", "kn", "nn"))
                )
    for p, keys, ids, rows in r_dev.sort("player").iter_rows():
        ids = _distinct_ids(ids, rows, draws.filter(pl.col("flag")), pl.col("player") == p)
        _event_evidence(acc.draws.evidence[p], keys, ids, want)
    tcells: dict[str, TimingCell] = {}
    timed = dict(r_tg.iter_rows())
    for p, n, fast in r_tim.sort("player").iter_rows():
        tcells[p] = TimingCell(Counter(), n, fast, timed.get(p, 0))
    for p, ms, n in r_times.sort("player", "ms").iter_rows():
        tcells[p].times[ms] = n
    for p, keys, ids, rows in r_fev.iter_rows():
        ids = _distinct_ids(ids, rows, dec.filter(pl.col("ms") < FAST_MS), pl.col("player") == p)
        _event_evidence(tcells[p].evidence, keys, ids, want)
    acc.timing.cells.update(tcells)
    for p, n, k in r_qn.sort("player").iter_rows():
        cell = acc.abandon.quits[p]
        cell.n, cell.behind = n, k
    for p, keys, ids, rows in r_qev.iter_rows():
        ids = _distinct_ids(ids, rows, quits.filter(pl.col("flag")), pl.col("player") == p)
        _event_evidence(acc.abandon.quits[p].evidence, keys, ids, want)
    for p, b, m in r_beh.sort("player").iter_rows():
        acc.abandon.behind[p] = b
        acc.abandon.moments[p] = m


# -- evidence: games rows to game ids


def _resolve_evidence(acc: Accumulators, gid_of: dict[int, str]) -> None:
    """Turn the ``at`` placeholders of every evidence list into game ids."""

    def first_games(first: First) -> None:
        first.items = [(at, gid_of[at]) for at, _ in first.items]

    def events(ev: EventEvidence) -> None:
        ev.events.items = [(key, [gid_of[key[0]], key[1]]) for key, _ in ev.events.items]

    for grp in acc.deal.groups.values():
        for ds in grp.sizes.values():
            for cell in ds.cells:
                for first in cell.evidence:
                    first_games(first)
    for first in acc.play.ev_games.values():
        first_games(first)
    for ev in acc.play.pair_events.values():
        events(ev)
    for ev in acc.draws.evidence.values():
        events(ev)
    for tc in acc.timing.cells.values():
        events(tc.evidence)
    for qc in acc.abandon.quits.values():
        events(qc.evidence)


__all__ = ["SmallestIds", "collect_from_tables"]
