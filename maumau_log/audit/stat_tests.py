"""The audit's tests: each turns its accumulated counts (:mod:`maumau_log.audit.accumulators`) into
:class:`Finding` objects.

The methods are described in :mod:`maumau_log.audit`'s docstring and in every finding's
``method``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .accumulators import (
    AbandonAcc,
    DealAcc,
    DrawAcc,
    DrawCell,
    EventEvidence,
    PlayAcc,
    SeatAcc,
    TimingAcc,
)
from .findings import (
    DRAW_REASONS,
    FAST_MS,
    MAX_EVIDENCE,
    MIN_EXPECTED,
    Finding,
    counted,
)
from .merge import InvalidAcc
from .statistics import binom_sum_tail, binom_tail, chi_square, fisher_greater, wilson

# ---------------------------------------------------------------------------------------
# The tests


def _too_small(f: Finding, games: int, min_games: int) -> bool:
    f.games = games
    if games < min_games:
        f.skipped = f"{counted(games, 'game')}, fewer than the minimum {min_games:,}"
        return True
    return False


def _chi_finding(
    f: Finding,
    cells: Sequence[str],
    observed: Sequence[float],
    expected: Sequence[float],
    df: int,
    scale: float = 1.0,
) -> None:
    f.table = [
        {"cell": c, "observed": o, "expected": round(e, 3)}
        for c, o, e in zip(cells, observed, expected, strict=True)
    ]
    f.n = len(cells)
    if df < 1:
        f.skipped = "a single cell: nothing to compare"
        return
    low = min(expected)
    if low < MIN_EXPECTED:
        f.skipped = f"an expected count of {low:,.1f} (< {MIN_EXPECTED:g}): too few games"
        return
    f.statistic, f.df, f.p_value = chi_square(observed, expected, df, scale)
    worst = max(range(len(cells)), key=lambda i: abs(observed[i] - expected[i]) / expected[i])
    f.summary = (
        f"chi2 = {f.statistic:.2f} (df {f.df}); largest gap: {cells[worst]}: "
        f"{observed[worst]:,g} vs {expected[worst]:,.1f} expected"
    )


def _deal_tests(acc: DealAcc, min_games: int) -> list[Finding]:
    out: list[Finding] = []
    for group, grp in sorted(acc.groups.items()):
        rules = grp.rules
        pack = list(rules.pack)
        eligible = [c for c in pack if not rules.cards[c].redeal]
        n_games = grp.games
        # the starter: uniform over the pack less the redeal cards
        for attr, what in (("rank", "rank"), ("suit", "suit")):
            f = Finding(
                "deal",
                f"starter_{what}",
                group,
                f"Pearson chi-square goodness of fit of the starter's {what} against the "
                "uniform draw from the pack (less starter_redeal cards)",
            )
            out.append(f)
            if _too_small(f, n_games, min_games):
                continue
            weights = Counter(str(getattr(rules.cards[c], attr) or "joker") for c in eligible)
            seen: Counter[str] = Counter()
            for card, times in grp.starters.items():
                seen[str(getattr(rules.cards[card], attr) or "joker")] += times
            cells = sorted(weights)
            total = len(eligible)
            _chi_finding(
                f,
                cells,
                [seen[c] for c in cells],
                [n_games * weights[c] / total for c in cells],
                len(cells) - 1,
            )
            f.summary = f"{n_games:,} starters; " + f.summary
        # power cards in the first hands, by seat and by position from the dealer
        n_pack = len(pack)
        for size, ds in sorted(grp.sizes.items()):
            for cell in ds.cells:
                k, keyname = cell.k, cell.keyname
                f = Finding(
                    "deal",
                    f"power_by_{keyname}:{cell.power}",
                    f"{group}/{size}p",
                    f"where the {k} {cell.power} cards went in the first hands (by "
                    f"{keyname.replace('_', ' ')}, or elsewhere) against hand size / pack "
                    f"size; Pearson chi-square times (N-1)/(N-K) = "
                    f"{(n_pack - 1) / (n_pack - k):.3f} (multivariate hypergeometric "
                    f"cells), df = {size}",
                )
                out.append(f)
                if _too_small(f, ds.games, min_games):
                    continue
                obs, exp = cell.obs, cell.exp
                label = "seat" if keyname == "seat" else "position"
                cells = [f"{label} {i}" for i in range(size)] + ["elsewhere"]
                _chi_finding(f, cells, obs, exp, size, (n_pack - 1) / (n_pack - k))
                if f.p_value is not None:
                    worst = max(range(size), key=lambda i: (obs[i] - exp[i]) / exp[i])
                    f.evidence["games"] = cell.evidence[worst].values()
                    f.summary = f"{ds.games:,} deals; " + f.summary
    return out


def _seat_tests(
    acc: SeatAcc, min_games: int, tables: dict[str, list[dict[str, Any]]]
) -> list[Finding]:
    out: list[Finding] = []
    seat_rows: list[dict[str, Any]] = []
    pos_rows: list[dict[str, Any]] = []
    for (group, size), cell in sorted(acc.cells.items()):
        n = cell.games
        pos_wins, seat_wins = cell.pos_wins, cell.seat_wins
        rate = [w / n for w in pos_wins]
        # each game adds the win rate of the position its seat had: games per dealer seat
        expected = [
            sum(times * rate[(seat - d) % size] for d, times in sorted(cell.dealers.items()))
            for seat in range(size)
        ]
        for i in range(size):
            lo, hi = wilson(seat_wins[i], n)
            seat_rows.append(
                {"ruleset": group, "players": size, "seat": i, "games": n,
                 "wins": seat_wins[i], "win_rate": seat_wins[i] / n, "ci_low": lo,
                 "ci_high": hi, "expected_wins": round(expected[i], 2)}
            )  # fmt: skip
            lo, hi = wilson(pos_wins[i], n)
            pos_rows.append(
                {"ruleset": group, "players": size, "position": i,
                 "role": "dealer" if i == 0 else ("first to play" if i == 1 else ""),
                 "games": n, "wins": pos_wins[i], "win_rate": pos_wins[i] / n,
                 "ci_low": lo, "ci_high": hi}
            )  # fmt: skip
        f = Finding(
            "seats",
            "wins_by_seat",
            f"{group}/{size}p",
            "Pearson chi-square of wins by seat against the wins the turn order predicts "
            "(each game adds the win rate of the position the seat had from the dealer), "
            f"df = {size - 1}",
        )
        out.append(f)
        if _too_small(f, n, min_games):
            continue
        _chi_finding(f, [f"seat {i}" for i in range(size)], seat_wins, expected, size - 1)
        if f.p_value is not None:
            f.summary = f"{counted(n, 'game')} won; " + f.summary
    tables["wins_by_seat"] = seat_rows
    tables["wins_by_dealer_position"] = pos_rows
    return out


def _catch_tests(acc: PlayAcc, min_games: int) -> list[Finding]:
    # the catch rate per fault and per other player, per (ruleset, table size)
    faults, catches = acc.faults, acc.catches
    q = {key: catches[key] / (faults[key] * (key[1] - 1)) for key in faults if faults[key]}
    out: list[Finding] = []
    for (a, b), games in sorted(acc.pair_games.items()):
        f = Finding(
            "catches",
            "never_caught",
            f"{a} <- {b}",
            "lower tail of Binomial(faults, q): the call faults of the first player that "
            "the second could catch, q = catches / (faults x other players) over every "
            "game of the same ruleset and table size (a sum of binomials across sizes)",
        )
        out.append(f)
        if _too_small(f, games, min_games):
            continue
        groups = [(n, q.get(key, 0.0)) for key, n in acc.pair_faults[(a, b)].items()]
        n = sum(x for x, _ in groups)
        k = acc.pair_caught[(a, b)]
        f.n = n
        f.statistic = float(k)
        f.expected = sum(x * p for x, p in groups)
        if n == 0:
            f.skipped = f"{a} made no catchable call fault with {b} at the table"
            continue
        f.p_value = binom_sum_tail(k, groups, "less")
        f.summary = (
            f"{b} caught {k:,} of {a}'s {n:,} catchable call faults ({f.expected:,.1f} expected "
            f"at the table's catch rate)"
        )
        _set_evidence(f, acc.pair_events.get((a, b)))
    return out


def _head_to_head_tests(acc: PlayAcc, min_games: int) -> list[Finding]:
    strength = {p: (acc.won[p] + 0.5) / (acc.fair_share[p] + 0.5) for p in acc.fair_share}
    out: list[Finding] = []
    for (a, b), games in sorted(acc.shared.items()):
        f = Finding(
            "head_to_head",
            "head_to_head",
            f"{a} vs {b}",
            "two-sided exact binomial test of the first player's wins among the games one of "
            "the two won, against s_a / (s_a + s_b), s = (wins + 0.5) / (wins expected from "
            "table sizes + 0.5) over all their games",
        )
        out.append(f)
        if _too_small(f, games, min_games):
            continue
        m = acc.decided[(a, b)]
        k = acc.wins[(a, b)]
        if m == 0:  # neither ever won: no strength to compare
            f.n = 0
            f.statistic = float(k)
            f.expected = 0.0
            f.skipped = "neither won a shared game"
            continue
        p0 = strength[a] / (strength[a] + strength[b])
        f.n = m
        f.statistic = float(k)
        f.expected = m * p0
        f.p_value = binom_tail(k, m, p0, "two-sided")
        f.summary = (
            f"{a} won {k:,} of the {m:,} shared games one of them won ({f.expected:,.1f} expected "
            "from their overall records)"
        )
        f.evidence["games"] = acc.ev_games[(a, b)].values()
    return out


def _draw_tests(
    acc: DrawAcc, play: PlayAcc, min_games: int, rows: dict[str, dict[str, Any]]
) -> list[Finding]:
    from scipy import stats as sps  # when the tests run (see statistics.py)

    cells = acc.cells
    zero = DrawCell()
    total = {r: DrawCell() for r in DRAW_REASONS}
    for (_, r), c in cells.items():
        t = total.setdefault(r, DrawCell())
        t.n += c.n
        t.k += c.k
        t.kk += c.kk
        t.kn += c.kn
        t.nn += c.nn
    games = play.games
    out: list[Finding] = []
    for p in sorted(games):
        mine = {r: cells.get((p, r), zero) for r in DRAW_REASONS}
        pn = sum(mine[r].n for r in DRAW_REASONS)
        pk = sum(mine[r].k for r in DRAW_REASONS)
        row = rows.setdefault(p, {"player": p, "games": games[p]})
        row["drawn"] = pn
        row["drawn_playable"] = pk
        row["drawn_playable_rate"] = pk / pn if pn else None
        f = Finding(
            "draws",
            "drawn_playable",
            p,
            "two-proportion test stratified by draw reason: the player's drawn cards "
            "(reasons no_play and voluntary) that could be played on the pile right after "
            "the draw against n q per reason, q = the other players' rate (m draws); "
            "one-sided normal tail with variance phi * sum n q (1 - q) (1 + n / m), phi = "
            "max(1, the other players' per-game Pearson dispersion), continuity-corrected",
        )
        out.append(f)
        if _too_small(f, games[p], min_games):
            continue
        groups = []
        for r in DRAW_REASONS:
            others_n = total[r].n - mine[r].n
            if mine[r].n and others_n:
                groups.append((mine[r].n, (total[r].k - mine[r].k) / others_n))
        used = sum(x for x, _ in groups)
        kk = sum(mine[r].k for r in DRAW_REASONS if total[r].n - mine[r].n and mine[r].n)
        f.n = used
        f.statistic = float(kk)
        f.expected = sum(x * q for x, q in groups)
        if not used:
            f.skipped = "no draws to compare"
            continue
        # the other players' per-game dispersion: sum over their (game, reason) cells of
        # (k - n r)^2 over sum of n r (1 - r), r = K / N their rate, in exact integers
        resid = var = Fraction(0)
        rate: dict[str, float] = {}
        for r in DRAW_REASONS:
            big_n = total[r].n - mine[r].n
            if not big_n:
                continue
            big_k = total[r].k - mine[r].k
            rate[r] = big_k / big_n
            s_kk = total[r].kk - mine[r].kk
            s_kn = total[r].kn - mine[r].kn
            s_nn = total[r].nn - mine[r].nn
            resid += Fraction(s_kk * big_n**2 - 2 * big_k * big_n * s_kn + big_k**2 * s_nn,
                              big_n**2)  # fmt: skip
            var += Fraction(big_k * (big_n - big_k) * big_n, big_n**2)
        phi = float(resid / var) if var else 1.0
        phi = max(1.0, phi)
        variance = sum(
            mine[r].n * rate[r] * (1 - rate[r]) * (1 + mine[r].n / (total[r].n - mine[r].n))
            for r in DRAW_REASONS
            if mine[r].n and r in rate
        )
        sd = math.sqrt(phi * variance) or 1e-12
        f.p_value = float(sps.norm.sf((kk - 0.5 - f.expected) / sd))
        f.summary = (
            f"{kk:,} of {used:,} drawn cards playable ({100 * kk / used:.0f}%), "
            f"{f.expected:,.1f} expected at the other players' rates (dispersion {phi:.2f})"
        )
        _set_evidence(f, acc.evidence.get(p))
    return out


def _set_evidence(f: Finding, evidence: EventEvidence | None) -> None:
    """A finding's evidence: up to MAX_EVIDENCE ``[game_id, event_index]`` entries (the
    first in games-table order) and the smallest ids of the games they come from."""
    if evidence is None:
        f.evidence["events"] = []
        f.evidence["games"] = []
        return
    f.evidence["events"] = evidence.events.values()
    f.evidence["games"] = list(evidence.games.ids)


def _timing_tests(acc: TimingAcc, min_games: int, rows: dict[str, dict[str, Any]]) -> list[Finding]:
    cells = acc.cells
    if not cells:
        return []
    total_n = sum(c.n for c in cells.values())
    total_fast = sum(c.fast for c in cells.values())
    out: list[Finding] = []
    for p in sorted(cells):
        cell = cells[p]
        fast = cell.fast
        row = rows.setdefault(p, {"player": p})
        row["decisions_timed"] = cell.n
        row["median_decision_ms"] = cell.median()
        row["fast_decisions"] = fast
        f = Finding(
            "timing",
            "fast_decisions",
            p,
            f"one-sided Fisher exact test (two proportions): the player's decisions faster "
            f"than {FAST_MS} ms (time since the previous event) against the other players'",
        )
        out.append(f)
        if _too_small(f, cell.games, min_games):
            continue
        others_n = total_n - cell.n
        others_fast = total_fast - fast
        f.n = cell.n
        f.statistic = float(fast)
        f.expected = cell.n * others_fast / others_n if others_n else None
        f.p_value = fisher_greater(fast, cell.n, others_fast, others_n)
        if f.expected is None:
            f.expected = 0.0
        f.summary = (
            f"{fast:,} of {cell.n:,} decisions under {FAST_MS:,} ms (median "
            f"{row['median_decision_ms']:,.0f} ms), {f.expected:,.1f} expected at the other "
            "players' rate"
        )
        _set_evidence(f, cell.evidence)
    return out


def _abandon_tests(
    acc: AbandonAcc, play: PlayAcc, min_games: int, rows: dict[str, dict[str, Any]]
) -> list[Finding]:
    games = play.games
    out: list[Finding] = []
    for p in sorted(acc.quits):
        cell = acc.quits[p]
        k, n = cell.behind, cell.n
        row = rows.setdefault(p, {"player": p, "games": games[p]})
        row["abandons"] = n
        row["abandons_behind"] = k
        f = Finding(
            "abandon",
            "abandons_when_behind",
            p,
            "upper tail of Binomial(abandons, q): abandons while holding more cards than the "
            "best-placed other player, q = the share of the player's own event moments spent "
            "so behind",
        )
        out.append(f)
        if _too_small(f, games[p], min_games):
            continue
        moments = acc.moments[p]
        q = acc.behind[p] / moments if moments else 0.5
        f.n = n
        f.statistic = float(k)
        f.expected = n * q
        f.p_value = binom_tail(k, n, q, "greater")
        f.summary = (
            f"{k:,} of {n:,} abandons while behind; {100 * q:.0f}% of the player's time is "
            "spent behind"
        )
        _set_evidence(f, cell.evidence)
    return out


def _invalid_tests(
    inv: InvalidAcc, min_games: int, tables: dict[str, list[dict[str, Any]]]
) -> list[Finding]:
    """``inv``: the merged counts of :func:`~maumau_log.audit.merge.invalid_counts`."""
    codes = sorted(inv.by_code.items(), key=lambda kv: (-kv[1], kv[0] is not None, kv[0] or ""))
    tables["invalid_by_code"] = [{"violation_code": c, "games": n} for c, n in codes if n]
    tables["invalid_by_date"] = [
        {"date": d, "games": n, "invalid": k, "invalid_rate": k / n}
        for d, (n, k) in sorted(inv.by_date.items(), key=lambda kv: (kv[0] is not None, kv[0]))
    ]
    by_client = sorted(inv.by_client.items(), key=lambda kv: (kv[0] is not None, kv[0]))
    tables["invalid_by_client"] = [
        {"client": c, "games": n, "invalid": k} for c, (n, k) in by_client
    ]
    blamed, played = inv.blamed, inv.played
    tables["invalid_by_player"] = [
        {"player": p, "games": played.get(p, 0), "invalid": blamed.get(p, 0)}
        for p in sorted(set(played) | set(blamed))
    ]
    bad_games = {p: f.values() for p, f in inv.player_games.items()}
    client_games = {c: f.values() for c, f in inv.client_games.items()}
    out: list[Finding] = []
    units = [
        ("client", {c: (k, n) for c, (n, k) in by_client}, client_games),
        ("player", {p: (blamed.get(p, 0), played[p]) for p in played}, bad_games),
    ]  # fmt: skip
    for unit, counts, evidence in units:
        if len(counts) < 2:
            continue
        all_k = sum(k for k, _ in counts.values())
        all_n = sum(n for _, n in counts.values())
        for name, (k, n) in sorted(counts.items()):
            f = Finding(
                "invalid",
                f"invalid_by_{unit}",
                name,
                f"one-sided Fisher exact test (two proportions): invalid games of this "
                f"{unit} against the other {unit}s'",
            )
            out.append(f)
            if _too_small(f, n, min_games):
                continue
            f.n = n
            f.statistic = float(k)
            f.expected = n * (all_k - k) / (all_n - n) if all_n > n else 0.0
            f.p_value = fisher_greater(k, n, all_k - k, all_n - n)
            f.summary = f"{k:,} of {n:,} games invalid, {f.expected:,.1f} expected"
            f.evidence["games"] = list(evidence.get(name, []))[:MAX_EVIDENCE]
    return out
