"""Merging the audit's partial counts: the reduce step of the audit's map-reduce.

A part of a dataset (a few row groups of one ingest's files, or one partition) gives a
:class:`Partial`: every test's :class:`~maumau_log.audit.accumulators.Accumulators` and the
``invalid`` tests' :class:`InvalidAcc`. :func:`merge` adds one partial into another. Every
count and sum is an exact integer (the head-to-head fair shares an exact
:class:`~fractions.Fraction`), and every evidence list keeps the k smallest keys (games row,
event index) of both sides, so merging is associative and commutative: any split of the
games, merged in any order, gives the same counts as one pass. :func:`finish` then turns
the exact counts into the floats the tests read (in one fixed order: dicts sorted by key),
so the report is byte-identical whatever the number of workers.

Memory: a partial holds counts per cell (ruleset label, table size, seat, player, pair of
players, draw reason, distinct decision time per player) and at most
:data:`~maumau_log.audit.findings.MAX_EVIDENCE` evidence items per cell: it grows with the
players, pairs and rulesets, never with the games.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .accumulators import (
    AbandonCell,
    Accumulators,
    DealGroup,
    DealSize,
    DrawCell,
    EventEvidence,
    First,
    SeatCell,
    SmallestIds,
    TimingCell,
)
from .findings import MAX_EVIDENCE


@dataclass
class InvalidAcc:
    """The ``invalid`` tests' counts: invalid games by violation code, date, client and
    player, games per player, and the first invalid games (games-table order) per client
    and per blamed player."""

    by_code: Counter[str | None] = field(default_factory=Counter)
    by_date: dict[str, list[int]] = field(default_factory=dict)  # date -> [games, invalid]
    by_client: dict[str, list[int]] = field(default_factory=dict)  # client -> [games, invalid]
    played: Counter[str] = field(default_factory=Counter)
    blamed: Counter[str] = field(default_factory=Counter)
    client_games: dict[str, First] = field(default_factory=dict)  # key: games row
    player_games: dict[str, First] = field(default_factory=dict)  # key: (games row, row)


@dataclass
class Partial:
    """The audit's counts over a part of a dataset.

    Attributes:
        acc: the tests' accumulators.
        invalid: the ``invalid`` tests' counts.
        games: ``games`` rows; ``valid``: the valid ones; ``replayed``: valid games with
            facts (what the accumulators hold).
        complete: every game with a header has its ``audit_games`` row (else the audit
            replays the stored events).
        aligned: the part's facts rows all belong to its games (else the parts are
            planned again, a partition each).
    """

    acc: Accumulators = field(default_factory=Accumulators)
    invalid: InvalidAcc = field(default_factory=InvalidAcc)
    games: int = 0
    valid: int = 0
    replayed: int = 0
    complete: bool = True
    aligned: bool = True


def invalid_counts(games: pl.DataFrame, violations: pl.LazyFrame) -> InvalidAcc:
    """The ``invalid`` tests' counts over some games.

    Args:
        games: their ``games`` rows with ``at`` (the row in the whole table) and
            ``client``.
        violations: ``violations`` rows (of these games and maybe others: joined).
    Returns:
        The counts, the first invalid games per client (by ``at``) and per blamed player
        (by ``at``, then the violation's row).
    """
    inv = InvalidAcc()
    bad = games.filter(~pl.col("valid"))
    inv.by_code.update(dict(bad.group_by("violation_code").len().iter_rows()))
    for key, col in ((inv.by_date, "date"), (inv.by_client, "client")):
        rows = games.group_by(col).agg(pl.len(), (~pl.col("valid")).sum().alias("invalid"))
        for value, n, k in rows.iter_rows():
            key[value] = [n, k]
    played = games.select(pl.col("players").explode().alias("player")).drop_nulls()
    inv.played.update(dict(played.group_by("player").len().iter_rows()))
    for client, at, gid in bad.select("client", "at", "game_id").iter_rows():
        inv.client_games.setdefault(client, First()).add(at, gid)
    blamed = (
        violations.select("game_id", "player")
        .filter(pl.col("player").is_not_null())
        .with_row_index("row")
        .join(games.lazy().select("game_id", "at"), on="game_id", how="inner")
        .collect()
    )
    inv.blamed.update(dict(blamed.group_by("player").len().iter_rows()))
    for gid, player, row, at in blamed.select("game_id", "player", "row", "at").iter_rows():
        inv.player_games.setdefault(player, First()).add((at, row), gid)
    return inv


def merge_first(a: First, b: First) -> None:
    """``a`` becomes the first :data:`MAX_EVIDENCE` items of both (keys are distinct)."""
    a.items = sorted(a.items + b.items, key=lambda kv: kv[0])[:MAX_EVIDENCE]


def merge_ids(a: SmallestIds, b: SmallestIds) -> None:
    """``a`` becomes the :data:`MAX_EVIDENCE` smallest distinct ids of both."""
    a.ids = sorted(set(a.ids) | set(b.ids))[:MAX_EVIDENCE]


def merge_events(a: EventEvidence, b: EventEvidence) -> None:
    """Merge two event evidence lists (first events, smallest game ids)."""
    merge_first(a.events, b.events)
    merge_ids(a.games, b.games)


def _counters(a: Any, b: Any) -> None:
    for k, v in b.items():
        a[k] += v


def _deal(a: Accumulators, b: Accumulators) -> None:
    for label, gb in b.deal.groups.items():
        ga = a.deal.groups.get(label)
        if ga is None:
            ga = a.deal.groups[label] = DealGroup(gb.rules)
        ga.games += gb.games
        ga.starters.update(gb.starters)
        for size, sb in gb.sizes.items():
            sa = ga.sizes.get(size)
            if sa is None:
                sa = ga.sizes[size] = DealSize(0, [_empty_cell(c) for c in sb.cells])
            sa.games += sb.games
            for ca, cb in zip(sa.cells, sb.cells, strict=True):
                ca.got = [x + y for x, y in zip(ca.got, cb.got, strict=True)]
                ca.hand = [x + y for x, y in zip(ca.hand, cb.hand, strict=True)]
                for ea, eb in zip(ca.evidence, cb.evidence, strict=True):
                    merge_first(ea, eb)


def _empty_cell(c: Any) -> Any:
    from .accumulators import PowerCells

    size = len(c.got)
    return PowerCells(c.power, c.keyname, c.kind, c.k, [0.0] * (size + 1), [0.0] * (size + 1),
                      [First() for _ in range(size)], [0] * size, [0] * size)  # fmt: skip


def _play(a: Accumulators, b: Accumulators) -> None:
    pa, pb = a.play, b.play
    for name in ("games", "faults", "catches", "pair_games", "pair_caught", "won", "shared",
                 "wins", "decided", "fair_share"):  # fmt: skip
        _counters(getattr(pa, name), getattr(pb, name))
    for pair, c in pb.pair_faults.items():
        _counters(pa.pair_faults[pair], c)
    for pair, ev in pb.pair_events.items():
        merge_events(pa.pair_events[pair], ev)
    for pair, first in pb.ev_games.items():
        merge_first(pa.ev_games[pair], first)


def _rest(a: Accumulators, b: Accumulators) -> None:
    for skey, sb in b.seats.cells.items():
        sa = a.seats.cells.get(skey)
        if sa is None:
            sa = a.seats.cells[skey] = SeatCell([0] * len(sb.seat_wins), [0] * len(sb.pos_wins))
        sa.seat_wins = [x + y for x, y in zip(sa.seat_wins, sb.seat_wins, strict=True)]
        sa.pos_wins = [x + y for x, y in zip(sa.pos_wins, sb.pos_wins, strict=True)]
        sa.dealers.update(sb.dealers)
    for dkey, db in b.draws.cells.items():
        da = a.draws.cells[dkey]
        da.n, da.k, da.kk = da.n + db.n, da.k + db.k, da.kk + db.kk
        da.kn, da.nn = da.kn + db.kn, da.nn + db.nn
    for p, ev in b.draws.evidence.items():
        merge_events(a.draws.evidence[p], ev)
    for p, tb in b.timing.cells.items():
        ta = a.timing.cells[p]
        ta.times.update(tb.times)
        ta.n, ta.fast, ta.games = ta.n + tb.n, ta.fast + tb.fast, ta.games + tb.games
        merge_events(ta.evidence, tb.evidence)
    _counters(a.abandon.behind, b.abandon.behind)
    _counters(a.abandon.moments, b.abandon.moments)
    for p, qb in b.abandon.quits.items():
        qa = a.abandon.quits[p]
        qa.n, qa.behind = qa.n + qb.n, qa.behind + qb.behind
        merge_events(qa.evidence, qb.evidence)


def _invalid(a: InvalidAcc, b: InvalidAcc) -> None:
    a.by_code.update(b.by_code)
    a.played.update(b.played)
    a.blamed.update(b.blamed)
    for mine, theirs in ((a.by_date, b.by_date), (a.by_client, b.by_client)):
        for key, (n, k) in theirs.items():
            row = mine.setdefault(key, [0, 0])
            row[0] += n
            row[1] += k
    for mine_f, theirs_f in ((a.client_games, b.client_games), (a.player_games, b.player_games)):
        for key, first in theirs_f.items():
            merge_first(mine_f.setdefault(key, First()), first)


def merge(a: Partial, b: Partial) -> Partial:
    """Add ``b``'s counts into ``a`` (changed in place and returned; ``b`` is left as it is
    only where it shares nothing with ``a``: do not use it after).

    Associative and commutative: exact integer (and :class:`~fractions.Fraction`) sums,
    evidence lists that keep the k smallest keys.
    """
    _deal(a.acc, b.acc)
    _play(a.acc, b.acc)
    _rest(a.acc, b.acc)
    _invalid(a.invalid, b.invalid)
    a.games += b.games
    a.valid += b.valid
    a.replayed += b.replayed
    a.complete = a.complete and b.complete
    a.aligned = a.aligned and b.aligned
    return a


def _sorted(d: Any) -> None:
    """Re-insert a dict's items in key order (the tests' float sums follow dict order)."""
    items = sorted(d.items(), key=lambda kv: kv[0])
    d.clear()
    dict.update(d, items)  # a Counter's own update would count the pairs


def finish(acc: Accumulators) -> Accumulators:
    """The floats the tests read, from the exact counts, in one fixed order: every dict
    sorted by key, each deal cell's ``obs`` and ``exp``, the fair shares as floats.
    Call once, after the last merge."""
    deal = acc.deal.groups
    _sorted(deal)
    for group in deal.values():
        _sorted(group.sizes)
        group.starters = Counter(dict(sorted(group.starters.items())))
        n_pack = len(group.rules.pack)
        for ds in group.sizes.values():
            for cell in ds.cells:
                cell.finish(ds.games, n_pack)
    play = acc.play
    for name in ("games", "faults", "catches", "pair_games", "pair_caught", "won", "shared",
                 "wins", "decided", "pair_faults", "pair_events", "ev_games"):  # fmt: skip
        _sorted(getattr(play, name))
    for c in play.pair_faults.values():
        _sorted(c)
    shares = {p: float(v) for p, v in sorted(play.fair_share.items())}
    play.fair_share.clear()
    play.fair_share.update(shares)
    _sorted(acc.seats.cells)
    for seat_cell in acc.seats.cells.values():
        _sorted(seat_cell.dealers)
    _sorted(acc.draws.cells)
    _sorted(acc.draws.evidence)
    _sorted(acc.timing.cells)
    for tc in acc.timing.cells.values():
        _sorted(tc.times)
    for name in ("behind", "moments", "quits"):
        _sorted(getattr(acc.abandon, name))
    return acc


__all__ = [
    "AbandonCell",
    "DrawCell",
    "InvalidAcc",
    "Partial",
    "TimingCell",
    "finish",
    "invalid_counts",
    "merge",
    "merge_events",
    "merge_first",
    "merge_ids",
]
