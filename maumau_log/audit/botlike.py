"""The audit's bot-likeness test: does a player decide like the Monte Carlo bot?

Online operators look for accounts played by a bot (or helped by one). Most decisions of a
card game give nothing away: any sensible player and any bot play the *obvious* move (the
greedy heuristic's choice, :class:`~maumau_log.bots.policies.GreedyPolicy`: go out, shed
cards, keep the wild card, ...), and matching a bot there says nothing. So the test looks
only where a player *left* the obvious move, as chess cheat detection looks at the moves
only an engine finds:

1. every non-forced decision of the player (a turn or a suit choice with at least two legal
   alternatives; jump-ins and calls left out) gets its obvious move; a *departure* is a
   decision where the player chose another alternative, and it is *informative* when at
   least two alternatives are left besides the obvious move (with one left, any departure
   lands on it);
2. a seeded sample of up to ``decisions`` informative departures per player is valued: the
   Monte Carlo reference (:func:`~maumau_log.bots.mc.mc_choice`, ``rollouts`` rollouts per
   alternative from that player's information set, the audit's own seed, not any bot's)
   picks the best of the alternatives other than the obvious move, and the departure
   *matches* when the player chose it;
3. a player helped by nobody who leaves the obvious move picks among the rest by habit, not
   by value; a bot leaves it for its own best move. Difficulty: the chance to match by luck
   depends on how many alternatives are left (stratum ``2``, ``3``, ``4``, ``5+``), so the
   player's matches ``k`` are compared with the other players' (leave-one-out) match rate
   ``q_s`` in the same stratum: expected ``E = sum_s n_s q_s``, variance
   ``sum_s n_s q_s (1 - q_s) (1 + n_s / m_s)`` (``m_s`` the others' departures there: the
   uncertainty of ``q_s`` counted), ``z = (k - E) / sqrt(var)``, one-sided (more bot-like)
   normal p-value. The null: the player's departures land on the reference's choice as
   often as the population's do at the same number of alternatives (players of one
   population, each departure independent). The p-values join the audit's others and are
   Holm-corrected with them.

What it finds (``bench/botlike_seasons.py``; docs/explanations/audit-statistics.md
"Bot-likeness"): a Monte Carlo bot whose choices follow its values (64 rollouts per
alternative) lands on the
reference's choice more often than club players by about 0.24 standard deviations per
square root of a valued departure, so with Holm over an audit of about 60 tests it needs
about 340 valued departures (some 170 rounds of its play) to be flagged 9 times in 10 (at
150 it was flagged in 1 of 4 seasons, raw p under 0.01 in all four); a bot at 16 rollouts leaves the
obvious move mostly on noise, lands on the reference's choice no more often than a club
player, and is not found (nor does it play better than the greedy heuristic on the
strength ladder).

Data: the valid games' stored events (the ``events`` table's ``raw`` column) and the
``games`` table (``valid``, ``ruleset``, ``options``), read lazily; two passes (the first
finds the departures, the second values the sampled ones), so memory does not grow with the
dataset. Cost: only departures are valued: about ``players x decisions x (alternatives - 1)
x rollouts`` short rollouts, so the test is off unless asked for (``audit --bot-likeness``).
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec
import polars as pl
from scipy import stats as sps

from ..bots.determinize import DeterminizeError, clone
from ..bots.mc import mc_choice
from ..bots.policies import GreedyPolicy
from ..bots.review import _engine, match_action, turn_alternatives
from ..bots.table import BotTable
from ..engine import Action, Engine, RuleViolation
from ..events import Draw, Event, Game, Pass, Play, SuitChoice, decode_event
from ..rules import Ruleset, RulesetError, resolve
from ..store import scan_all
from ..store.layout import DateWindow
from .findings import Finding, counted

MIN_DECISIONS = 30
"""A player with fewer sampled decisions is listed as skipped."""


@dataclass(frozen=True)
class BotLikeness:
    """Settings of the test (``audit --bot-likeness``).

    Attributes:
        rollouts: the Monte Carlo reference's rollouts per alternative.
        decisions: informative departures from the obvious move valued per player at most.
        seed: the audit's seed (sampling and the reference's determinizations).
        min_decisions: a player with fewer comparable valued departures is skipped.
    """

    rollouts: int = 32
    decisions: int = 200
    seed: int = 0
    min_decisions: int = MIN_DECISIONS


@dataclass(frozen=True)
class Sampled:
    """One valued departure: who, where, its stratum (alternatives left besides the obvious
    move), whether it landed on the reference's best of them."""

    player: str
    game_id: str
    event_index: int
    stratum: str
    matched: bool


_OBVIOUS = GreedyPolicy()


def obvious_move(engine: Engine, player: str, acts: list[Action]) -> Action:
    """The obvious move of a decision: the greedy heuristic's choice
    (:meth:`GreedyPolicy.choose`; a suit choice: the suit held most).

    Args:
        engine: the state of the decision (not changed).
        player: who decides; acts: the alternatives (two or more).
    Returns:
        One of ``acts``.
    """
    return _OBVIOUS.choose(BotTable(engine, {}, random.Random(0), record=False), player, acts)


def _games(
    dataset: str | os.PathLike[str], window: DateWindow | None
) -> Iterator[tuple[str, Ruleset, list[Event]]]:
    """The valid games dated inside ``window`` (sorted by id) with their rulesets and
    decoded events."""
    tables = scan_all(dataset, window)
    games = (
        tables["games"]
        .filter(pl.col("valid"))
        .select("game_id", "ruleset", "options")
        .sort("game_id")
        .collect()
    )
    rules_cache: dict[tuple[str, str], Ruleset | None] = {}
    events = tables["events"].select("game_id", "event_index", "raw")
    ids = games["game_id"].to_list()
    for start in range(0, len(ids), 500):
        part = ids[start : start + 500]
        raws = events.filter(pl.col("game_id").is_in(part)).sort("game_id", "event_index").collect()
        by_game = {str(k[0]): g["raw"].to_list() for k, g in raws.group_by("game_id")}
        for gid, rs, opts in games.slice(start, len(part)).iter_rows():
            key = (rs, opts)
            if key not in rules_cache:
                try:
                    rules_cache[key] = resolve(rs, None, json.loads(opts))
                except (RulesetError, ValueError, TypeError):
                    rules_cache[key] = None
            rules = rules_cache[key]
            if rules is None or gid not in by_game:
                continue
            try:
                yield gid, rules, [decode_event(r) for r in by_game[gid]]
            except msgspec.DecodeError:
                continue


def _decisions(
    rules: Ruleset, events: list[Event]
) -> Iterator[tuple[int, str, Engine, list[Action], Action]]:
    """Every non-forced turn or suit decision of the game: ``(index, player, state before,
    alternatives, chosen)``; the state is the live engine (clone it to keep it)."""
    engine = _engine(rules, events)
    for i in range(1, len(events)):
        ev = events[i]
        if isinstance(ev, Play | Draw | Pass | SuitChoice) and not (
            isinstance(ev, Play) and ev.jump_in
        ):
            p = ev.player
            acts = turn_alternatives(engine, p)
            chosen = match_action(acts, ev) if len(acts) > 1 else None
            if chosen is not None:
                yield i, p, engine, acts, chosen
        try:
            engine.apply(ev)
        except RuleViolation:
            return


def stratum(left: int) -> str:
    """The stratum of a departure: the alternatives left besides the obvious move, ``"2"``,
    ``"3"``, ``"4"`` or ``"5+"`` (module docstring)."""
    return "5+" if left >= 5 else str(left)


@dataclass
class Departures:
    """Per player: non-forced decisions, departures from the obvious move, informative
    departures (two or more alternatives left), and the games played."""

    decisions: int = 0
    departures: int = 0
    informative: int = 0


def sample_decisions(
    dataset: str | os.PathLike[str], settings: BotLikeness, window: DateWindow | None = None
) -> tuple[list[Sampled], dict[str, int], dict[str, Departures]]:
    """Find the departures, sample and value them (two passes over the dataset's games
    dated inside ``window``; None: every game).

    Returns:
        ``(valued departures, games per player, counts per player)``.
    """
    where: dict[str, list[tuple[str, int]]] = defaultdict(list)
    games_of: dict[str, set[str]] = defaultdict(set)
    counts: dict[str, Departures] = defaultdict(Departures)
    for gid, rules, events in _games(dataset, window):
        if isinstance(events[0], Game):
            for p in events[0].players:
                games_of[p].add(gid)
        for i, p, engine, acts, act in _decisions(rules, events):
            c = counts[p]
            c.decisions += 1
            if act == obvious_move(engine, p, acts):
                continue
            c.departures += 1
            if len(acts) >= 3:
                c.informative += 1
                where[p].append((gid, i))
    rng = random.Random(f"botlike:{settings.seed}")
    chosen: set[tuple[str, int]] = set()
    for p in sorted(where):
        spots = where[p]
        if len(spots) > settings.decisions:
            idx = list(range(len(spots)))
            for i in range(len(idx) - 1, 0, -1):
                j = int(rng.random() * (i + 1))
                idx[i], idx[j] = idx[j], idx[i]
            spots = [spots[i] for i in sorted(idx[: settings.decisions])]
        chosen.update(spots)
    wanted = {gid for gid, _ in chosen}
    out: list[Sampled] = []
    for gid, rules, events in _games(dataset, window):
        if gid not in wanted:
            continue
        for i, p, engine, acts, act in _decisions(rules, events):
            if (gid, i) not in chosen:
                continue
            obvious = obvious_move(engine, p, acts)
            rest = [a for a in acts if a != obvious]
            mc_rng = random.Random(f"botlike:{settings.seed}:{gid}:{i}")
            try:
                best, _ = mc_choice(clone(engine), p, rest, settings.rollouts, mc_rng)
            except DeterminizeError:
                continue
            out.append(Sampled(p, gid, i, stratum(len(rest)), rest[best] == act))
    return out, {p: len(g) for p, g in games_of.items()}, dict(counts)


def agreement_test(rows: list[Sampled], player: str) -> tuple[int, int, float, float, float]:
    """``player``'s matches against the others' at the same difficulty.

    Args:
        rows: every sampled decision.
        player: the player tested.
    Returns:
        ``(decisions, matches, expected, z, p)``; p is the one-sided upper normal tail (1.0
        when no stratum of the player's has other players' decisions).
    """
    mine: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    others: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        cell = (mine if r.player == player else others)[r.stratum]
        cell[0] += 1
        cell[1] += int(r.matched)
    n = k = 0
    expected = var = 0.0
    for s, (ns, ks) in mine.items():
        ms, js = others.get(s, [0, 0])
        if ms == 0:
            continue
        q = js / ms
        n += ns
        k += ks
        expected += ns * q
        var += ns * q * (1 - q) * (1 + ns / ms)
    if n == 0:
        return 0, 0, 0.0, 0.0, 1.0
    if var <= 0:
        z = math.inf if k > expected else 0.0
        return n, k, expected, z, 0.0 if k > expected else 1.0
    z = (k - expected) / math.sqrt(var)
    return n, k, expected, z, float(sps.norm.sf(z))


def bot_likeness_tests(
    dataset: str | os.PathLike[str],
    min_games: int,
    settings: BotLikeness,
    window: DateWindow | None = None,
) -> list[Finding]:
    """The audit's bot-likeness findings, one per player (section ``bot_likeness``).

    Args:
        dataset: a dataset folder made by ``ingest``.
        min_games: the audit's smallest sample (games the player played).
        settings: rollouts, departures valued per player, seed.
        window: only the games dated inside it (None: every game).
    Returns:
        Findings with raw p-values (``n`` valued departures, ``statistic`` their matches,
        ``expected`` E); the audit Holm-corrects them with its others.
    """
    rows, games, counts = sample_decisions(dataset, settings, window)
    out = []
    for p in sorted(games):
        f = Finding(
            "bot_likeness",
            "mc_agreement",
            p,
            "one-sided z-test: where the player left the obvious (greedy) move, how often "
            f"they chose the Monte Carlo reference's best of the rest ({settings.rollouts} "
            "rollouts), against the other players' rate at the same number of alternatives",
        )
        out.append(f)
        f.games = games[p]
        if games[p] < min_games:
            f.skipped = f"{counted(games[p], 'game')}, fewer than the minimum {min_games:,}"
            continue
        n, k, expected, z, pval = agreement_test(rows, p)
        if n < settings.min_decisions:
            f.skipped = (
                f"{counted(n, 'departure')} from the obvious move comparable with other "
                "players', "
                f"fewer than {settings.min_decisions}"
            )
            continue
        c = counts.get(p, Departures())
        f.n, f.statistic, f.expected, f.p_value = n, float(k), expected, pval
        f.summary = (
            f"left the obvious move in {c.departures:,} of {c.decisions:,} non-forced decisions; "
            f"{k:,} of {n:,} valued departures ({k / n:.0%}) chose the Monte Carlo reference's "
            f"best of the rest, {expected:,.1f} expected from the others (z = {z:.2f})"
        )
        mine = [r for r in rows if r.player == p and r.matched]
        f.evidence["events"] = [[r.game_id, r.event_index] for r in mine[:20]]
        f.evidence["games"] = sorted({r.game_id for r in mine})[:20]
    return out
