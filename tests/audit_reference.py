"""The audit as it was before its accumulators: the reference the streaming
audit is compared with in ``test_audit_scale.py``, kept only here.

:func:`_in_memory_collect` read the whole ``events`` table, sorted and grouped it by game,
and kept every game's facts; the tests below are the list-based tests of that audit,
unchanged; :func:`reference_audit` runs them in the same order as ``audit.TESTS``.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import polars as pl
from scipy import stats as sps

from maumau_log.audit import _correct
from maumau_log.audit.collect import _client, _GameFacts, _replay
from maumau_log.audit.findings import (
    DRAW_REASONS,
    FAST_MS,
    MAX_EVIDENCE,
    MIN_EXPECTED,
    POWERS,
    AuditReport,
    Finding,
)
from maumau_log.audit.statistics import (
    binom_sum_tail,
    binom_tail,
    chi_square,
    fisher_greater,
    wilson,
)
from maumau_log.engine import RuleViolation
from maumau_log.rules import Ruleset, RulesetError, resolve, variant_label
from maumau_log.store import UNKNOWN, scan_all


@dataclass
class _Data:
    games: pl.DataFrame
    facts: list[_GameFacts]
    clients: dict[str, str]


def _in_memory_collect(dataset: str | os.PathLike[str]) -> _Data:
    tables = scan_all(dataset)
    games = (
        tables["games"]
        .select(
            "game_id",
            "match_id",
            "round",
            "players",
            "n_players",
            "dealer",
            "valid",
            "violation_code",
            "winner",
            "options",
            "options_hash",
            "ruleset",
            "date",
        )
        .collect()
    )
    events = (
        tables["events"]
        .select("game_id", "event_index", "raw")
        .sort("game_id", "event_index")
        .collect()
    )
    raws_by_game: dict[str, list[str]] = {}
    for gid, part in events.group_by("game_id", maintain_order=True):
        raws_by_game[str(gid[0])] = part["raw"].to_list()
    clients = {gid: _client(raws[0] if raws else None) for gid, raws in raws_by_game.items()}
    rules_cache: dict[tuple[str, str], Ruleset | None] = {}
    facts: list[_GameFacts] = []
    winners: dict[tuple[str, int], str | None] = {}
    for mid, rnd, won in games.select("match_id", "round", "winner").iter_rows():
        if mid is not None and rnd is not None:
            winners[(mid, rnd)] = won
    for row in games.filter(pl.col("valid")).iter_rows(named=True):
        key = (row["ruleset"], row["options"])
        if key not in rules_cache:
            try:
                rules_cache[key] = resolve(row["ruleset"], None, json.loads(row["options"]))
            except (RulesetError, ValueError, TypeError):
                rules_cache[key] = None
        rules = rules_cache[key]
        raws = raws_by_game.get(row["game_id"])
        if rules is None or not raws:
            continue
        label = variant_label(row["ruleset"], row["options"])
        g = _GameFacts(row["game_id"], label, rules, list(row["players"]), 0, row["winner"])
        prev = None
        if row["match_id"] is not None and row["round"] is not None:
            prev = winners.get((row["match_id"], row["round"] - 1))
        try:
            _replay(g, raws, prev)
        except (RuleViolation, msgspec.DecodeError, ValueError, KeyError):
            continue
        facts.append(g)
    return _Data(games, facts, clients)


# ---------------------------------------------------------------------------------------
# The tests


def _too_small(f: Finding, games: int, min_games: int) -> bool:
    f.games = games
    if games < min_games:
        noun = "game" if games == 1 else "games"
        f.skipped = f"{games:,} {noun}, fewer than the minimum {min_games:,}"
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


def _card_powers(rules: Ruleset, card: str) -> list[str]:
    info = rules.cards[card]
    out = []
    for power in POWERS:
        value = getattr(info, power)
        if value:
            out.append(power)
    return out


def _deal_tests(facts: list[_GameFacts], min_games: int) -> list[Finding]:
    out: list[Finding] = []
    by_group: dict[str, list[_GameFacts]] = defaultdict(list)
    for g in facts:
        if g.starter is not None:
            by_group[g.group].append(g)
    for group, games in sorted(by_group.items()):
        rules = games[0].rules
        pack = list(rules.pack)
        eligible = [c for c in pack if not rules.cards[c].redeal]
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
            if _too_small(f, len(games), min_games):
                continue
            weights = Counter(str(getattr(rules.cards[c], attr) or "joker") for c in eligible)
            seen = Counter(
                str(getattr(rules.cards[g.starter], attr) or "joker")  # type: ignore[index]
                for g in games
            )
            cells = sorted(weights)
            total = len(eligible)
            _chi_finding(
                f,
                cells,
                [seen[c] for c in cells],
                [len(games) * weights[c] / total for c in cells],
                len(cells) - 1,
            )
            f.summary = f"{len(games):,} starters; " + f.summary
        # power cards in the first hands, by seat and by position from the dealer
        by_size: dict[int, list[_GameFacts]] = defaultdict(list)
        for g in games:
            if len(g.hands) == len(g.players):
                by_size[len(g.players)].append(g)
        n_pack = len(pack)
        for size, sg in sorted(by_size.items()):
            powers = sorted({p for c in pack for p in _card_powers(rules, c)})
            for power in powers:
                kind = {c for c in pack if power in _card_powers(rules, c)}
                k = sum(1 for c in pack if c in kind)
                if k >= n_pack:
                    continue
                for keyname in ("seat", "dealer_position"):
                    f = Finding(
                        "deal",
                        f"power_by_{keyname}:{power}",
                        f"{group}/{size}p",
                        f"where the {k} {power} cards went in the first hands (by "
                        f"{keyname.replace('_', ' ')}, or elsewhere) against hand size / pack "
                        f"size; Pearson chi-square times (N-1)/(N-K) = "
                        f"{(n_pack - 1) / (n_pack - k):.3f} (multivariate hypergeometric "
                        f"cells), df = {size}",
                    )
                    out.append(f)
                    if _too_small(f, len(sg), min_games):
                        continue
                    obs = [0.0] * (size + 1)
                    exp = [0.0] * (size + 1)
                    per_game: list[tuple[str, list[int], list[float]]] = []
                    for g in sg:
                        counts = [0] * size
                        sizes = [0.0] * size
                        for seat, p in enumerate(g.players):
                            slot = seat if keyname == "seat" else (seat - g.dealer) % size
                            hand = g.hands.get(p, [])
                            counts[slot] = sum(1 for c in hand if c in kind)
                            sizes[slot] = len(hand) * k / n_pack
                        for i in range(size):
                            obs[i] += counts[i]
                            exp[i] += sizes[i]
                        obs[size] += k - sum(counts)
                        exp[size] += k - sum(sizes)
                        per_game.append((g.game_id, counts, sizes))
                    label = "seat" if keyname == "seat" else "position"
                    cells = [f"{label} {i}" for i in range(size)] + ["elsewhere"]
                    _chi_finding(f, cells, obs, exp, size, (n_pack - 1) / (n_pack - k))
                    if f.p_value is not None:
                        worst = max(range(size), key=lambda i: (obs[i] - exp[i]) / exp[i])
                        f.evidence["games"] = [
                            gid for gid, c, s in per_game if c[worst] > s[worst] + 1
                        ][:MAX_EVIDENCE]
                        f.summary = f"{len(sg):,} deals; " + f.summary
    return out


def _seat_tests(
    facts: list[_GameFacts], min_games: int, tables: dict[str, list[dict[str, Any]]]
) -> list[Finding]:
    out: list[Finding] = []
    groups: dict[tuple[str, int], list[_GameFacts]] = defaultdict(list)
    for g in facts:
        if g.winner is not None:
            groups[(g.group, len(g.players))].append(g)
    seat_rows: list[dict[str, Any]] = []
    pos_rows: list[dict[str, Any]] = []
    for (group, size), games in sorted(groups.items()):
        n = len(games)
        pos_wins = [0] * size
        seat_wins = [0] * size
        for g in games:
            seat = g.players.index(g.winner)  # type: ignore[arg-type]
            seat_wins[seat] += 1
            pos_wins[(seat - g.dealer) % size] += 1
        rate = [w / n for w in pos_wins]
        expected = [0.0] * size
        for g in games:
            for seat in range(size):
                expected[seat] += rate[(seat - g.dealer) % size]
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
            f.summary = f"{n:,} games won; " + f.summary
    tables["wins_by_seat"] = seat_rows
    tables["wins_by_dealer_position"] = pos_rows
    return out


def _players_games(facts: list[_GameFacts]) -> Counter[str]:
    c: Counter[str] = Counter()
    for g in facts:
        c.update(g.players)
    return c


def _catch_tests(facts: list[_GameFacts], min_games: int) -> list[Finding]:
    # the catch rate per fault and per other player, per (ruleset, table size)
    faults: Counter[tuple[str, int]] = Counter()
    catches: Counter[tuple[str, int]] = Counter()
    for g in facts:
        key = (g.group, len(g.players))
        faults[key] += len(g.faults)
        catches[key] += sum(1 for _, by, _ in g.catches if by in g.players)
    q = {key: catches[key] / (faults[key] * (key[1] - 1)) for key in faults if faults[key]}
    # per ordered pair: faults of A while B was at the table, and B's catches of A
    pair_faults: dict[tuple[str, str], Counter[tuple[str, int]]] = defaultdict(Counter)
    pair_games: Counter[tuple[str, str]] = Counter()
    pair_caught: Counter[tuple[str, str]] = Counter()
    pair_events: dict[tuple[str, str], list[list[Any]]] = defaultdict(list)
    for g in facts:
        key = (g.group, len(g.players))
        nf = Counter(p for p, _ in g.faults)
        caught_at = {(p, by, i) for p, by, i in g.catches}
        for a in g.players:
            for b in g.players:
                if a == b:
                    continue
                pair_games[(a, b)] += 1
                pair_faults[(a, b)][key] += nf[a]
        for p, by, _ in caught_at:
            pair_caught[(p, by)] += 1
        for p, i in g.faults:
            for b in g.players:
                if b != p:
                    pair_events[(p, b)].append([g.game_id, i])
    out: list[Finding] = []
    for (a, b), games in sorted(pair_games.items()):
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
        groups = [(n, q.get(key, 0.0)) for key, n in pair_faults[(a, b)].items()]
        n = sum(x for x, _ in groups)
        k = pair_caught[(a, b)]
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
        _set_evidence(f, pair_events[(a, b)])
    return out


def _head_to_head_tests(facts: list[_GameFacts], min_games: int) -> list[Finding]:
    won: Counter[str] = Counter()
    fair_share: defaultdict[str, float] = defaultdict(float)
    for g in facts:
        if g.winner is None:
            continue
        won[g.winner] += 1
        for p in g.players:
            fair_share[p] += 1 / len(g.players)
    strength = {p: (won[p] + 0.5) / (fair_share[p] + 0.5) for p in fair_share}
    shared: Counter[tuple[str, str]] = Counter()
    wins: Counter[tuple[str, str]] = Counter()
    ev_games: dict[tuple[str, str], list[str]] = defaultdict(list)
    for g in facts:
        ps = sorted(g.players)
        for i, a in enumerate(ps):
            for b in ps[i + 1 :]:
                shared[(a, b)] += 1
                if g.winner in (a, b):
                    wins[(a, b)] += g.winner == a
                    ev_games[(a, b)].append(g.game_id)
    out: list[Finding] = []
    for (a, b), games in sorted(shared.items()):
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
        m = len(ev_games[(a, b)])
        k = wins[(a, b)]
        p0 = strength[a] / (strength[a] + strength[b])
        f.n = m
        f.statistic = float(k)
        f.expected = m * p0
        if m == 0:
            f.skipped = "neither won a shared game"
            continue
        f.p_value = binom_tail(k, m, p0, "two-sided")
        f.summary = (
            f"{a} won {k:,} of the {m:,} shared games one of them won ({f.expected:,.1f} expected "
            "from their overall records)"
        )
        f.evidence["games"] = ev_games[(a, b)][:MAX_EVIDENCE]
    return out


def _draw_tests(
    facts: list[_GameFacts], min_games: int, rows: dict[str, dict[str, Any]]
) -> list[Finding]:
    n: Counter[tuple[str, str]] = Counter()
    k: Counter[tuple[str, str]] = Counter()
    evidence: dict[str, list[list[Any]]] = defaultdict(list)
    cells: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for g in facts:
        for p, reason, ok, i in g.draws:
            n[(p, reason)] += 1
            k[(p, reason)] += ok
            cell = cells[(g.game_id, p, reason)]
            cell[0] += 1
            cell[1] += ok
            if ok:
                evidence[p].append([g.game_id, i])
    games = _players_games(facts)
    tot_n = Counter[str]()
    tot_k = Counter[str]()
    for (_, r), v in n.items():
        tot_n[r] += v
    for (_, r), v in k.items():
        tot_k[r] += v
    out: list[Finding] = []
    for p in sorted(games):
        pn = sum(n[(p, r)] for r in DRAW_REASONS)
        pk = sum(k[(p, r)] for r in DRAW_REASONS)
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
            others_n = tot_n[r] - n[(p, r)]
            if n[(p, r)] and others_n:
                groups.append((n[(p, r)], (tot_k[r] - k[(p, r)]) / others_n))
        used = sum(x for x, _ in groups)
        kk = sum(k[(p, r)] for r in DRAW_REASONS if tot_n[r] - n[(p, r)] and n[(p, r)])
        f.n = used
        f.statistic = float(kk)
        f.expected = sum(x * q for x, q in groups)
        if not used:
            f.skipped = "no draws to compare"
            continue
        rate = {
            r: (tot_k[r] - k[(p, r)]) / (tot_n[r] - n[(p, r)])
            for r in DRAW_REASONS
            if tot_n[r] - n[(p, r)]
        }
        resid = var = 0.0
        for (_, q_player, r), (cn, ck) in cells.items():
            if q_player != p and r in rate:
                resid += (ck - cn * rate[r]) ** 2
                var += cn * rate[r] * (1 - rate[r])
        phi = resid / var if var else 1.0
        phi = max(1.0, phi)
        variance = sum(
            n[(p, r)] * rate[r] * (1 - rate[r]) * (1 + n[(p, r)] / (tot_n[r] - n[(p, r)]))
            for r in DRAW_REASONS
            if n[(p, r)] and r in rate
        )
        sd = math.sqrt(phi * variance) or 1e-12
        f.p_value = float(sps.norm.sf((kk - 0.5 - f.expected) / sd))
        f.summary = (
            f"{kk:,} of {used:,} drawn cards playable ({100 * kk / used:.0f}%), "
            f"{f.expected:,.1f} expected at the other players' rates (dispersion {phi:.2f})"
        )
        _set_evidence(f, evidence[p])
    return out


def _set_evidence(f: Finding, events: Sequence[Any]) -> None:
    """A finding's evidence: up to MAX_EVIDENCE ``[game_id, event_index, ...]`` entries and
    the games they come from."""
    f.evidence["events"] = list(events[:MAX_EVIDENCE])
    f.evidence["games"] = sorted({e[0] for e in events})[:MAX_EVIDENCE]


def _timing_tests(
    facts: list[_GameFacts], min_games: int, rows: dict[str, dict[str, Any]]
) -> list[Finding]:
    times: dict[str, list[float]] = defaultdict(list)
    fast_events: dict[str, list[list[Any]]] = defaultdict(list)
    timed_games: Counter[str] = Counter()
    for g in facts:
        seen = set()
        for p, ms, i in g.decisions:
            times[p].append(ms)
            seen.add(p)
            if ms < FAST_MS:
                fast_events[p].append([g.game_id, i])
        timed_games.update(seen)
    if not times:
        return []
    total_n = sum(len(v) for v in times.values())
    total_fast = sum(len(v) for v in fast_events.values())
    out: list[Finding] = []
    for p in sorted(times):
        spans = times[p]
        fast = len(fast_events[p])
        row = rows.setdefault(p, {"player": p})
        row["decisions_timed"] = len(spans)
        row["median_decision_ms"] = float(np.median(spans))
        row["fast_decisions"] = fast
        f = Finding(
            "timing",
            "fast_decisions",
            p,
            f"one-sided Fisher exact test (two proportions): the player's decisions faster "
            f"than {FAST_MS} ms (time since the previous event) against the other players'",
        )
        out.append(f)
        if _too_small(f, timed_games[p], min_games):
            continue
        others_n = total_n - len(spans)
        others_fast = total_fast - fast
        f.n = len(spans)
        f.statistic = float(fast)
        f.expected = len(spans) * others_fast / others_n if others_n else None
        f.p_value = fisher_greater(fast, len(spans), others_fast, others_n)
        if f.expected is None:
            f.expected = 0.0
        f.summary = (
            f"{fast:,} of {len(spans):,} decisions under {FAST_MS:,} ms (median "
            f"{row['median_decision_ms']:,.0f} ms), {f.expected:,.1f} expected at the other "
            "players' rate"
        )
        _set_evidence(f, fast_events[p])
    return out


def _abandon_tests(
    facts: list[_GameFacts], min_games: int, rows: dict[str, dict[str, Any]]
) -> list[Finding]:
    behind: Counter[str] = Counter()
    moments: Counter[str] = Counter()
    quits: dict[str, list[tuple[bool, str, int]]] = defaultdict(list)
    games = _players_games(facts)
    for g in facts:
        for p in g.players:
            behind[p] += g.behind[p]
            moments[p] += g.moments
        for p, was_behind, i in g.abandons:
            quits[p].append((was_behind, g.game_id, i))
    out: list[Finding] = []
    for p in sorted(quits):
        k = sum(1 for b, _, _ in quits[p] if b)
        n = len(quits[p])
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
        q = behind[p] / moments[p] if moments[p] else 0.5
        f.n = n
        f.statistic = float(k)
        f.expected = n * q
        f.p_value = binom_tail(k, n, q, "greater")
        f.summary = (
            f"{k:,} of {n:,} abandons while behind; {100 * q:.0f}% of the player's time is "
            "spent behind"
        )
        _set_evidence(f, [[gid, i] for b, gid, i in quits[p] if b])
    return out


def _invalid_tests(
    data: _Data, dataset: str | os.PathLike[str], min_games: int,
    tables: dict[str, list[dict[str, Any]]],
) -> list[Finding]:  # fmt: skip
    games = data.games.with_columns(
        pl.col("game_id")
        .map_elements(lambda g: data.clients.get(g, UNKNOWN), return_dtype=pl.String)
        .alias("client")
    )
    tables["invalid_by_code"] = (
        games.filter(~pl.col("valid"))
        .group_by("violation_code")
        .agg(pl.len().alias("games"))
        .sort("games", "violation_code", descending=[True, False])
        .to_dicts()
    )
    tables["invalid_by_date"] = (
        games.group_by("date")
        .agg(pl.len().alias("games"), (~pl.col("valid")).sum().alias("invalid"))
        .with_columns((pl.col("invalid") / pl.col("games")).alias("invalid_rate"))
        .sort("date")
        .to_dicts()
    )
    by_client = (
        games.group_by("client")
        .agg(pl.len().alias("games"), (~pl.col("valid")).sum().alias("invalid"))
        .sort("client")
    )
    tables["invalid_by_client"] = by_client.to_dicts()
    violations = scan_all(dataset)["violations"].select("game_id", "player").collect()
    blamed = Counter(p for p in violations["player"].to_list() if p is not None)
    played = Counter(p for ps in games["players"].to_list() if ps for p in ps)
    tables["invalid_by_player"] = [
        {"player": p, "games": played[p], "invalid": blamed[p]}
        for p in sorted(set(played) | set(blamed))
    ]
    bad_games: dict[str, list[str]] = defaultdict(list)
    for gid, p in violations.iter_rows():
        if p is not None:
            bad_games[p].append(gid)
    client_games: dict[str, list[str]] = defaultdict(list)
    for gid, client in games.filter(~pl.col("valid")).select("game_id", "client").iter_rows():
        client_games[client].append(gid)
    out: list[Finding] = []
    units = [
        ("client", {r["client"]: (r["invalid"], r["games"]) for r in by_client.to_dicts()},
         client_games),
        ("player", {p: (blamed[p], played[p]) for p in played}, bad_games),
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
            f.evidence["games"] = evidence[name][:MAX_EVIDENCE]
    return out


def reference_audit(dataset: str | os.PathLike[str], alpha: float = 0.05,
                    min_games: int = 50) -> AuditReport:  # fmt: skip
    """The in-memory audit of a dataset, as it was."""
    data = _in_memory_collect(dataset)
    report = AuditReport(dataset=str(dataset), alpha=alpha, min_games=min_games)
    report.games = data.games.height
    report.valid = int(data.games["valid"].sum()) if data.games.height else 0
    report.replayed = len(data.facts)
    facts, tables = data.facts, report.tables
    rows: dict[str, dict[str, Any]] = {}
    findings: list[Finding] = []
    findings += _deal_tests(facts, min_games)
    findings += _seat_tests(facts, min_games, tables)
    findings += _catch_tests(facts, min_games)
    findings += _head_to_head_tests(facts, min_games)
    findings += _draw_tests(facts, min_games, rows)
    findings += _timing_tests(facts, min_games, rows)
    findings += _abandon_tests(facts, min_games, rows)
    findings += _invalid_tests(data, dataset, min_games, tables)
    tables["players"] = [rows[p] for p in sorted(rows)]
    _correct(findings, alpha)
    report.findings = findings
    return report


def json_diffs(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Every leaf where two JSON values differ (type, length or value), as ``(path, a, b)``:
    the comparison the audit equivalence tests (test_audit_scale, test_audit_tables) use."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [(path, sorted(a), sorted(b))]
        return [d for k in a for d in json_diffs(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [(path, len(a), len(b))]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in json_diffs(x, y, f"{path}[{i}]")
        ]
    return [] if a == b and type(a) is type(b) else [(path, a, b)]
