"""The fairness and suspicious-play audit of a dataset (issue 7, items 2 and 4).

:func:`audit` reads a dataset made by ``ingest``, replays its valid games' stored events
(the ``raw`` column of the ``events`` table) through the engine once more to measure what
the tables do not hold (first hands, catchable call faults and who caught them, whether a
drawn card could be played, decision times from ``t``, standings at an abandon), runs the
tests below and returns an :class:`AuditReport`.

Every test gives a p-value: how likely a result at least this far from fair play would be
if play were fair. All p-values of one report are corrected together by Holm's step-down
method, so the chance that a report on fair play flags anything at all (the family-wise
error rate) is at most ``alpha``; a finding is flagged when its Holm-adjusted p-value is at
most ``alpha``. A test is run only on a sample of at least ``min_games`` games (and, for
chi-square tests, expected counts of at least :data:`MIN_EXPECTED` in every cell); smaller
samples are listed as skipped with the reason, never flagged.

Tests (``section``: what is compared, how):

- ``deal``: the starter's rank and suit against the uniform draw from the pack (less the
  ``starter_redeal`` cards): Pearson chi-square goodness of fit. Power cards (each power
  of the ruleset: wild, draw, skip, reverse, cover, ...) in the first hands by seat and by
  position from the dealer: where the K cards of that power went (each seat or "elsewhere")
  against the expected share ``hand size / pack size``, Pearson chi-square times the finite
  population factor ``(N - 1) / (N - K)`` (the cells of one deal are multivariate
  hypergeometric, not multinomial), df = seats.
- ``seats``: wins by seat against what the turn order predicts (each game adds the win rate
  of the position that seat had from the dealer in it), chi-square with df = seats - 1.
  Wins by position from the dealer are shown with Wilson intervals and not tested: the
  turn order itself makes positions unequal under fair play.
- ``catches``: for each ordered pair (A faulted, B at the table), the number of A's
  catchable call faults that B caught against Binomial(faults, q), q the table's catch
  rate per fault and per other player (per ruleset and table size; several table sizes
  make it a sum of binomials); lower tail.
- ``head_to_head``: for each pair, in games one of them won, A's wins against
  Binomial(m, s_A / (s_A + s_B)), s the overall strength (wins over the wins expected from
  table sizes alone); two-sided.
- ``draws``: each player's cards drawn with reason ``no_play`` or ``voluntary`` that could
  be played on the pile right after the draw, against the other players' rate for the
  same reason: a two-proportion z-test stratified by reason (variance ``n q (1 - q)
  (1 + n / m)``, m the other players' draws, times their per-game dispersion when above
  1); upper tail.
- ``timing``: each player's decisions (a play, draw or pass starting their action, timed
  from the previous event's ``t``) faster than :data:`FAST_MS`, against the other players'
  share: one-sided Fisher exact test. Only where events carry ``t``.
- ``abandon``: each player's abandons while holding more cards than the best-placed other
  player, against the share of that player's event moments spent behind; upper tail.
- ``invalid``: each client's (header ``meta.client``, else ``meta.engine``) and each
  player's (the violation's player) invalid games against the other clients' / players'
  share: one-sided Fisher exact test.
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np
import polars as pl
from scipy import stats as sps

from .engine import Engine, RuleViolation
from .events import Abandon, Deal, Draw, Game, Pass, Penalty, Play, decode_event
from .matches import RoundContext
from .rules import Ruleset, RulesetError, resolve
from .store import UNKNOWN, scan_all

if TYPE_CHECKING:
    from .audit_botlike import BotLikeness

DEFAULT_ALPHA = 0.05
"""Family-wise false-flag rate per report (Holm-corrected)."""

DEFAULT_MIN_GAMES = 50
"""No test runs on fewer games than this (``--min-games``)."""

MIN_EXPECTED = 5.0
"""A chi-square test needs at least this expected count in every cell."""

FAST_MS = 300
"""A decision faster than this many milliseconds counts as inhumanly fast."""

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile (Wilson intervals)."""

MAX_EVIDENCE = 20
"""Game ids and events listed per finding at most."""

CALL_REASONS = ("missed_call", "wrong_call")
DRAW_REASONS = ("no_play", "voluntary")
POWERS = ("wild", "draw", "skip", "reverse", "cover", "play_again", "cancel", "draw_previous")
"""The card powers whose first-hand distribution is tested (those the ruleset has)."""

_DECISIONS = (Play, Draw, Pass)


# ---------------------------------------------------------------------------------------
# Statistics


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (``(0, 1)`` for n=0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def chi_square(
    observed: Sequence[float], expected: Sequence[float], df: int | None = None, scale: float = 1.0
) -> tuple[float, int, float]:
    """Pearson's goodness-of-fit statistic ``scale * sum((O - E)^2 / E)``.

    Args:
        observed, expected: counts per cell (every expected count > 0).
        df: degrees of freedom (default: cells - 1).
        scale: a variance correction (e.g. the finite population factor).
    Returns:
        ``(statistic, df, p)`` with ``p`` the chi-square upper tail.
    """
    o = np.asarray(observed, dtype=float)
    e = np.asarray(expected, dtype=float)
    stat = float(scale * np.sum((o - e) ** 2 / e))
    dof = len(o) - 1 if df is None else df
    return stat, dof, float(sps.chi2.sf(stat, dof))


def binom_tail(k: int, n: int, p: float, side: str) -> float:
    """Exact binomial p-value: ``"greater"`` P(X >= k), ``"less"`` P(X <= k), or
    ``"two-sided"`` (scipy's ``binomtest``: outcomes no more likely than k)."""
    if n == 0:
        return 1.0
    if side == "greater":
        return float(sps.binom.sf(k - 1, n, p))
    if side == "less":
        return float(sps.binom.cdf(k, n, p))
    return float(sps.binomtest(k, n, p, alternative="two-sided").pvalue)


def binom_sum_tail(k: int, groups: Sequence[tuple[int, float]], side: str) -> float:
    """P-value of ``k`` for a sum of independent binomials (a Poisson binomial with few
    distinct rates): ``groups`` holds ``(n_j, p_j)``; ``side`` is ``"greater"`` or
    ``"less"``. One group is the plain exact binomial; several are convolved exactly
    (a normal approximation with continuity correction beyond 10^7 cells)."""
    groups = [(n, p) for n, p in groups if n > 0]
    if not groups:
        return 1.0
    if len(groups) == 1:
        return binom_tail(k, groups[0][0], groups[0][1], side)
    total = sum(n for n, _ in groups)
    if total * total > 10**7 * len(groups):
        mean = sum(n * p for n, p in groups)
        sd = math.sqrt(sum(n * p * (1 - p) for n, p in groups)) or 1e-12
        if side == "greater":
            return float(sps.norm.sf((k - 0.5 - mean) / sd))
        return float(sps.norm.cdf((k + 0.5 - mean) / sd))
    pmf = np.array([1.0])
    for n, p in groups:
        pmf = np.convolve(pmf, sps.binom.pmf(np.arange(n + 1), n, p))
    tail = pmf[k:].sum() if side == "greater" else pmf[: k + 1].sum()
    return float(min(1.0, max(0.0, tail)))


def fisher_greater(k: int, n: int, k_other: int, n_other: int) -> float:
    """One-sided Fisher exact test that ``k / n`` exceeds ``k_other / n_other`` (the
    two-proportion test that conditions on the total of successes)."""
    if n == 0 or n_other == 0:
        return 1.0
    table = [[k, n - k], [k_other, n_other - k_other]]
    return float(sps.fisher_exact(table, alternative="greater").pvalue)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given), each at most 1.

    Flagging those with an adjusted p-value at most alpha keeps the chance of any false
    flag among all of them at most alpha, whatever their dependence.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


# ---------------------------------------------------------------------------------------
# The report


@dataclass
class Finding:
    """One test (run or skipped).

    Attributes:
        section: ``deal``, ``seats``, ``catches``, ``head_to_head``, ``draws``, ``timing``,
            ``abandon`` or ``invalid``.
        check: what was tested (e.g. ``power_by_seat:wild``).
        subject: who or what (``classic/4p``, ``p1 <- p2``, ``p3``, a client).
        method: how the p-value was computed.
        summary: the result in one sentence.
        games: games the sample comes from.
        n: trials (cards, faults, draws, decisions) or cells, as the method says.
        statistic: the test statistic (chi-square) or the observed count.
        df: chi-square degrees of freedom, else None.
        expected: the count expected under fair play (None for chi-square tests).
        p_value: the raw p-value (None when skipped).
        p_adjusted: the Holm-adjusted p-value over the whole report.
        flagged: ``p_adjusted <= alpha``.
        skipped: why the test was not run, or None.
        table: per-cell observed and expected counts (chi-square tests).
        evidence: ``games`` (ids) and ``events`` (``[game_id, event_index]``), at most
            :data:`MAX_EVIDENCE` each.
    """

    section: str
    check: str
    subject: str
    method: str
    summary: str = ""
    games: int = 0
    n: int = 0
    statistic: float | None = None
    df: int | None = None
    expected: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    flagged: bool = False
    skipped: str | None = None
    table: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, list[Any]] = field(default_factory=lambda: {"games": [], "events": []})


@dataclass
class AuditReport:
    """An audit: parameters, counts, findings and the descriptive tables.

    Attributes:
        dataset: the dataset folder.
        alpha: the family-wise significance level.
        min_games: the smallest sample tested.
        correction: ``"holm"``.
        games, valid, replayed: games in the dataset, valid ones, valid ones re-replayed
            (a valid game whose stored events do not replay alone, e.g. a match round that
            needs its earlier rounds, is left out of the play tests).
        findings: every test, run or skipped, in report order.
        tables: descriptive tables (name to rows): wins by seat and by dealer position with
            Wilson intervals, per-player rates, invalid games by code, player, client, date.
    """

    dataset: str
    alpha: float
    min_games: int
    correction: str = "holm"
    games: int = 0
    valid: int = 0
    replayed: int = 0
    findings: list[Finding] = field(default_factory=list)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def tested(self) -> list[Finding]:
        """The findings that were run (have a p-value)."""
        return [f for f in self.findings if f.p_value is not None]

    @property
    def flags(self) -> list[Finding]:
        """The flagged findings."""
        return [f for f in self.findings if f.flagged]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "dataset": self.dataset,
            "alpha": self.alpha,
            "min_games": self.min_games,
            "correction": self.correction,
            "games": self.games,
            "valid": self.valid,
            "replayed": self.replayed,
            "tests": len(self.tested),
            "flags": len(self.flags),
            "findings": [asdict(f) for f in self.findings],
            "tables": self.tables,
        }


# ---------------------------------------------------------------------------------------
# Collecting what the tests need (one replay of every valid game)


def _time_ms(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return dt.timestamp() * 1000.0
    return None


@dataclass
class _GameFacts:
    game_id: str
    group: str  # ruleset label (ruleset plus options when a ruleset has several)
    rules: Ruleset
    players: list[str]
    dealer: int
    winner: str | None
    hands: dict[str, list[str]] = field(default_factory=dict)
    starter: str | None = None
    faults: list[tuple[str, int]] = field(default_factory=list)  # (player, event index)
    catches: list[tuple[str, str, int]] = field(default_factory=list)  # (player, by, index)
    draws: list[tuple[str, str, bool, int]] = field(default_factory=list)
    decisions: list[tuple[str, float, int]] = field(default_factory=list)  # (player, ms, i)
    abandons: list[tuple[str, bool, int]] = field(default_factory=list)
    behind: Counter[str] = field(default_factory=Counter)  # event moments behind
    moments: int = 0


def _behind(hands: dict[str, list[str]], player: str) -> bool:
    mine = len(hands[player])
    return any(len(h) < mine for p, h in hands.items() if p != player)


def _replay(game: _GameFacts, raws: list[str], prev_winner: str | None = None) -> None:
    """Replay one valid game's stored events and fill in ``game``'s facts.

    A match round is replayed on its own: the ingest already checked it against its
    match, so its dealt hand sizes are taken from its deal and the previous round's winner
    (for ``first_player = "previous_winner"``) from the games table; match checks are off.
    """
    header = decode_event(raws[0])
    if not isinstance(header, Game):
        raise ValueError("event 0 is not a header")
    ctx = None
    if header.match_id is not None and len(raws) > 1:
        deal = decode_event(raws[1])
        sizes = (
            {p: len(h) if isinstance(h, list) else h.count for p, h in deal.hands.items()}
            if isinstance(deal, Deal)
            else None
        )
        ctx = RoundContext(
            header.match_id,
            header.round or 1,
            first_player=prev_winner,
            hand_sizes=sizes,
            checked=False,
        )
    engine = Engine(game.rules, header, ctx)
    game.dealer = engine.dealer
    prev_t = _time_ms(header.t)
    prev_player: str | None = None
    seen_faults: Counter[str] = Counter()
    for index, raw in enumerate(raws[1:], start=1):
        ev = decode_event(raw)
        t = _time_ms(ev.t)
        player = getattr(ev, "player", None)
        if (
            isinstance(ev, Penalty)
            and ev.reason in CALL_REASONS
            and ev.by is not None
            and engine.faults.get(ev.player) not in (None, "unverifiable")
        ):
            game.catches.append((ev.player, ev.by, index))
        if isinstance(ev, Abandon) and ev.player in engine.hands:
            game.abandons.append((ev.player, _behind(engine.hands, ev.player), index))
        if (
            isinstance(ev, _DECISIONS)
            and t is not None
            and prev_t is not None
            and player != prev_player
            and not (isinstance(ev, Draw) and ev.reason == "effect")
        ):
            game.decisions.append((player, t - prev_t, index))  # type: ignore[arg-type]
        engine.apply(ev)
        if isinstance(ev, Deal):
            game.hands = {p: list(h) for p, h in ev.hands.items() if isinstance(h, list)}
            game.starter = ev.starter
        elif isinstance(ev, Draw) and ev.reason in DRAW_REASONS and ev.cards:
            for card in ev.cards:
                if card in engine.cards:
                    game.draws.append((ev.player, ev.reason, engine.playable(card), index))
        for p, k in engine.call_faults.items():
            if k > seen_faults[p]:
                game.faults.extend([(p, index)] * (k - seen_faults[p]))
                seen_faults[p] = k
        if engine.hands and all(engine.hands.values()):
            game.moments += 1
            for p in game.players:
                if _behind(engine.hands, p):
                    game.behind[p] += 1
        prev_t = t if t is not None else prev_t
        prev_player = player


@dataclass
class _Data:
    games: pl.DataFrame
    facts: list[_GameFacts]
    clients: dict[str, str]


def _client(raw: str | None) -> str:
    if raw is None:
        return UNKNOWN
    try:
        meta = json.loads(raw).get("meta") or {}
    except (ValueError, AttributeError):
        return UNKNOWN
    if not isinstance(meta, dict):
        return UNKNOWN
    value = meta.get("client") or meta.get("engine")
    return str(value) if value else UNKNOWN


def _collect(dataset: str | os.PathLike[str]) -> _Data:
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
    # a label per (ruleset, options): the ruleset alone unless it appears with several
    variants: dict[str, set[str]] = defaultdict(set)
    for rs, oh in games.select("ruleset", "options_hash").unique().iter_rows():
        variants[rs].add(oh)
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
        label = row["ruleset"]
        if len(variants[label]) > 1:
            label = f"{label}#{(row['options_hash'] or '')[:6]}"
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
        f.skipped = f"{games} games, fewer than the minimum {min_games}"
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
        f.skipped = f"an expected count of {low:.1f} (< {MIN_EXPECTED:g}): too few games"
        return
    f.statistic, f.df, f.p_value = chi_square(observed, expected, df, scale)
    worst = max(range(len(cells)), key=lambda i: abs(observed[i] - expected[i]) / expected[i])
    f.summary = (
        f"chi2 = {f.statistic:.2f} (df {f.df}); largest gap: {cells[worst]} "
        f"{observed[worst]:g} vs {expected[worst]:.1f} expected"
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
            f.summary = f"{len(games)} starters; " + f.summary
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
                        f.summary = f"{len(sg)} deals; " + f.summary
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
            f.summary = f"{n} games won; " + f.summary
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
            f"{b} caught {k} of {a}'s {n} catchable call faults ({f.expected:.1f} expected "
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
            f"{a} won {k} of the {m} shared games one of them won ({f.expected:.1f} expected "
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
            f"{kk} of {used} drawn cards playable ({100 * kk / used:.0f}%), "
            f"{f.expected:.1f} expected at the other players' rates (dispersion {phi:.2f})"
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
            f"{fast} of {len(spans)} decisions under {FAST_MS} ms (median "
            f"{row['median_decision_ms']:.0f} ms), {f.expected:.1f} expected at the other "
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
            f"{k} of {n} abandons while behind; {100 * q:.0f}% of the player's time is spent behind"
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
            f.summary = f"{k} of {n} games invalid, {f.expected:.1f} expected"
            f.evidence["games"] = evidence[name][:MAX_EVIDENCE]
    return out


def audit(
    dataset: str | os.PathLike[str],
    alpha: float = DEFAULT_ALPHA,
    min_games: int = DEFAULT_MIN_GAMES,
    bot_likeness: BotLikeness | None = None,
) -> AuditReport:
    """Audit a dataset: deal fairness, seat advantage, suspicious play, invalid games.

    Args:
        dataset: a dataset folder made by ``ingest``.
        alpha: the family-wise false-flag rate of the report (Holm-corrected).
        min_games: the smallest number of games any test runs on.
        bot_likeness: run the bot-likeness test with these settings
            (:mod:`maumau_log.audit_botlike`; off when None: it costs rollouts).
    Returns:
        The :class:`AuditReport`.
    Raises:
        DatasetError: the folder is not a usable dataset.
        ValueError: ``alpha`` not in (0, 1) or ``min_games`` below 1.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    if min_games < 1:
        raise ValueError(f"min_games must be at least 1, not {min_games}")
    data = _collect(dataset)
    report = AuditReport(dataset=str(dataset), alpha=alpha, min_games=min_games)
    report.games = data.games.height
    report.valid = int(data.games["valid"].sum()) if data.games.height else 0
    report.replayed = len(data.facts)
    rows: dict[str, dict[str, Any]] = {}
    facts = data.facts
    findings: list[Finding] = []
    findings += _deal_tests(facts, min_games)
    findings += _seat_tests(facts, min_games, report.tables)
    findings += _catch_tests(facts, min_games)
    findings += _head_to_head_tests(facts, min_games)
    findings += _draw_tests(facts, min_games, rows)
    findings += _timing_tests(facts, min_games, rows)
    findings += _abandon_tests(facts, min_games, rows)
    findings += _invalid_tests(data, dataset, min_games, report.tables)
    if bot_likeness is not None:  # issue 14: the bot-likeness test lives in audit_botlike.py
        from .audit_botlike import bot_likeness_tests

        findings += bot_likeness_tests(dataset, min_games, bot_likeness)
    report.tables["players"] = [rows[p] for p in sorted(rows)]
    _correct(findings, alpha)
    report.findings = findings
    return report


def _correct(findings: Iterable[Finding], alpha: float) -> None:
    tested = [f for f in findings if f.p_value is not None]
    adjusted = holm([f.p_value for f in tested])  # type: ignore[misc]
    for f, adj in zip(tested, adjusted, strict=True):
        f.p_adjusted = adj
        f.flagged = adj <= alpha


# ---------------------------------------------------------------------------------------
# The HTML report


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return f"{p:.2g}" if p >= 1e-300 else "<1e-300"


def report_html(report: AuditReport) -> str:
    """The report as one self-contained HTML page: plotly charts with plotly.js embedded
    (no network needed to read it), the flags with their evidence, every test."""
    import html

    import plotly.graph_objects as go
    import plotly.io as pio

    figures: list[tuple[str, go.Figure]] = []
    tested = report.tested
    if tested:
        names = [f"{f.check} | {f.subject}" for f in tested]
        values = [-math.log10(max(f.p_adjusted or 1.0, 1e-300)) for f in tested]
        fig = go.Figure(
            go.Bar(
                x=values,
                y=names,
                orientation="h",
                marker_color=["crimson" if f.flagged else "steelblue" for f in tested],
            )
        )
        fig.add_vline(x=-math.log10(report.alpha), line_dash="dash", annotation_text="alpha")
        fig.update_layout(
            title="Every test: -log10(Holm-adjusted p); right of the line is flagged",
            height=max(300, 18 * len(tested) + 120),
            margin={"l": 320},
        )
        figures.append(("tests", fig))
    for name, key, title in (
        ("wins_by_seat", "seat", "Win rate by seat (95% Wilson interval)"),
        ("wins_by_dealer_position", "position", "Win rate by position from the dealer "
         "(0 = dealer; 95% Wilson interval; turn order, not tested)"),
    ):  # fmt: skip
        rows = report.tables.get(name, [])
        if not rows:
            continue
        fig = go.Figure()
        for label in sorted({f"{r['ruleset']}/{r['players']}p" for r in rows}):
            sub = [r for r in rows if f"{r['ruleset']}/{r['players']}p" == label]
            fig.add_trace(
                go.Bar(
                    name=label,
                    x=[str(r[key]) for r in sub],
                    y=[r["win_rate"] for r in sub],
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [r["ci_high"] - r["win_rate"] for r in sub],
                        "arrayminus": [r["win_rate"] - r["ci_low"] for r in sub],
                    },
                )
            )
        fig.update_layout(title=title, xaxis_title=key, yaxis_title="win rate")
        figures.append((name, fig))
    deal = [f for f in report.findings if f.section == "deal" and f.table]
    if deal:
        fig = go.Figure()
        for f in deal:
            fig.add_trace(
                go.Bar(
                    name=f"{f.check} {f.subject}",
                    x=[c["cell"] for c in f.table],
                    y=[c["observed"] / c["expected"] if c["expected"] else None for c in f.table],
                )
            )
        fig.add_hline(y=1.0, line_dash="dash")
        fig.update_layout(
            title="The deal: observed / expected count per cell (1 = exactly as expected)",
            barmode="group",
        )
        figures.append(("deal", fig))
    players = report.tables.get("players", [])
    if any(r.get("drawn") for r in players):
        fig = go.Figure(
            go.Bar(
                x=[r["player"] for r in players],
                y=[r.get("drawn_playable_rate") for r in players],
            )
        )
        fig.update_layout(title="Share of drawn cards (no_play, voluntary) playable at once")
        figures.append(("draws", fig))
    if any(r.get("decisions_timed") for r in players):
        fig = go.Figure(
            go.Bar(
                x=[r["player"] for r in players],
                y=[r.get("median_decision_ms") for r in players],
            )
        )
        fig.add_hline(y=FAST_MS, line_dash="dash", annotation_text=f"{FAST_MS} ms")
        fig.update_layout(title="Median decision time (ms)", yaxis_type="log")
        figures.append(("timing", fig))
    by_date = report.tables.get("invalid_by_date", [])
    if by_date:
        fig = go.Figure()
        fig.add_trace(go.Bar(name="games", x=[r["date"] for r in by_date],
                             y=[r["games"] for r in by_date]))  # fmt: skip
        fig.add_trace(go.Bar(name="invalid", x=[r["date"] for r in by_date],
                             y=[r["invalid"] for r in by_date]))  # fmt: skip
        fig.update_layout(title="Games and invalid games by date", barmode="group")
        figures.append(("invalid_by_date", fig))
    by_client = report.tables.get("invalid_by_client", [])
    if by_client:
        fig = go.Figure(
            go.Bar(
                x=[r["client"] for r in by_client],
                y=[r["invalid"] / r["games"] if r["games"] else 0 for r in by_client],
            )
        )
        fig.update_layout(title="Share of invalid games by client (meta.client / meta.engine)")
        figures.append(("invalid_by_client", fig))

    def esc(value: Any) -> str:
        return html.escape(str(value))

    def rows_table(rows: list[dict[str, Any]]) -> str:
        if not rows:
            return "<p>none</p>"
        cols = list(rows[0])
        head = "".join(f"<th>{esc(c)}</th>" for c in cols)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{esc(f'{r.get(c):.3f}' if isinstance(r.get(c), float) else r.get(c))}</td>"
                for c in cols
            )
            + "</tr>"
            for r in rows
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    flags = report.flags
    flag_html = (
        "".join(
            f"<div class='flag'><h3>{esc(f.section)}: {esc(f.check)} — {esc(f.subject)}</h3>"
            f"<p>{esc(f.summary)}</p><p>p = {_fmt_p(f.p_value)}, Holm-adjusted "
            f"{_fmt_p(f.p_adjusted)} (alpha {report.alpha}). Method: {esc(f.method)}.</p>"
            f"<p>Evidence games: {esc(', '.join(f.evidence.get('games', [])) or '-')}</p>"
            f"<p>Evidence events (game, event index): "
            f"{esc('; '.join(f'{g} #{i}' for g, i in f.evidence.get('events', [])) or '-')}</p>"
            "</div>"
            for f in flags
        )
        or "<p>No flags: nothing is unlikely enough under fair play at this alpha.</p>"
    )
    all_rows = [
        {
            "section": f.section, "check": f.check, "subject": f.subject, "games": f.games,
            "n": f.n, "statistic": f.statistic, "p": _fmt_p(f.p_value),
            "p (Holm)": _fmt_p(f.p_adjusted), "flagged": f.flagged,
            "result": f.summary or f.skipped or "", "method": f.method,
        }
        for f in report.findings
    ]  # fmt: skip
    parts = []
    for i, (_, fig) in enumerate(figures):
        parts.append(pio.to_html(fig, include_plotlyjs=(i == 0), full_html=False))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>maumau-log audit</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}
table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 5px}}
.flag{{border-left:4px solid crimson;padding-left:1em;margin:1em 0}}</style></head><body>
<h1>maumau-log audit of {esc(report.dataset)}</h1>
<p>{report.games} games ({report.valid} valid, {report.replayed} replayed for the play tests).
{len(tested)} tests run, {len(report.findings) - len(tested)} skipped (fewer than
{report.min_games} games, or expected counts under {MIN_EXPECTED:g}). Every p-value says how
likely a result this far from fair play would be under fair play; all are corrected together
by Holm's method, so a report on fair play flags anything with probability at most
{report.alpha}.</p>
<h2>Flags ({len(flags)})</h2>{flag_html}
<h2>Charts</h2>{"".join(parts)}
<h2>Wins by seat</h2>{rows_table(report.tables.get("wins_by_seat", []))}
<h2>Wins by position from the dealer</h2>
{rows_table(report.tables.get("wins_by_dealer_position", []))}
<h2>Players</h2>{rows_table(players)}
<h2>Invalid games by code</h2>{rows_table(report.tables.get("invalid_by_code", []))}
<h2>Invalid games by player</h2>{rows_table(report.tables.get("invalid_by_player", []))}
<h2>Invalid games by client</h2>{rows_table(by_client)}
<h2>Invalid games by date</h2>{rows_table(by_date)}
<h2>Every test</h2>{rows_table(all_rows)}
</body></html>
"""
