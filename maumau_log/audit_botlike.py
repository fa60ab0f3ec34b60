"""The audit's bot-likeness test: does a player decide like the Monte Carlo bot? (issue 14,
item 4)

Online operators look for accounts played by a bot (or helped by one). For each player,
:func:`bot_likeness_tests` takes a seeded sample of the player's non-forced decisions (a
turn or a suit choice with at least two legal alternatives; jump-ins and calls left out),
asks the Monte Carlo bot (:func:`~maumau_log.bots.mc.mc_choice`, the audit's own seed, not
any bot's) what it would have done from that player's information set, and counts the
matches. Matching is easier on some decisions than others, so each decision gets a
*difficulty*: its number of alternatives (2, 3, 4 or more) and the gap between the bot's best
and second-best win-probability estimates (``clear`` >= 0.25, ``moderate`` >= 0.10, else
``close``). The player's matches are compared with the other players' match rate at the same
difficulty: expected ``E = sum_s n_s q_s`` with ``q_s`` the others' rate in stratum s, and
variance ``sum_s n_s q_s (1 - q_s) (1 + n_s / m_s)`` (``m_s`` the others' decisions there:
the uncertainty of ``q_s`` counted), a one-sided normal test (more bot-like). The p-values
join the audit's others and are Holm-corrected with them.

Data: the valid games' stored events (the ``events`` table's ``raw`` column) and the
``games`` table (``valid``, ``ruleset``, ``options``), read lazily; two passes (the first
lists the decisions, the second values the sampled ones), so memory does not grow with the
dataset. Cost: about ``players x decisions x alternatives x rollouts`` short rollouts, so the
test is off unless asked for (``audit --bot-likeness``).
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

from .audit import Finding
from .bots.determinize import DeterminizeError, clone
from .bots.mc import mc_choice
from .engine import Action, Engine, RuleViolation
from .events import Draw, Event, Pass, Play, SuitChoice, decode_event
from .review import _engine, match_action, turn_alternatives
from .rules import Ruleset, RulesetError, resolve
from .store import scan_all

MIN_DECISIONS = 30
"""A player with fewer sampled decisions is listed as skipped."""


@dataclass(frozen=True)
class BotLikeness:
    """Settings of the test (``audit --bot-likeness``).

    Attributes:
        rollouts: the Monte Carlo bot's rollouts per alternative.
        decisions: decisions sampled per player at most.
        seed: the audit's seed (sampling and the bot's determinizations).
        min_decisions: a player with fewer comparable sampled decisions is skipped.
    """

    rollouts: int = 32
    decisions: int = 200
    seed: int = 0
    min_decisions: int = MIN_DECISIONS


@dataclass(frozen=True)
class Sampled:
    """One valued decision: who, where, its difficulty stratum, whether it matched."""

    player: str
    game_id: str
    event_index: int
    stratum: str
    matched: bool


def _games(dataset: str | os.PathLike[str]) -> Iterator[tuple[str, Ruleset, list[Event]]]:
    """The valid games (sorted by id) with their rulesets and decoded events."""
    tables = scan_all(dataset)
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


def stratum(n_alternatives: int, gap: float) -> str:
    """The difficulty stratum of a decision, e.g. ``"3/close"`` (module docstring)."""
    n = min(n_alternatives, 4)
    level = "clear" if gap >= 0.25 else "moderate" if gap >= 0.10 else "close"
    return f"{n}{'+' if n == 4 else ''}/{level}"


def sample_decisions(
    dataset: str | os.PathLike[str], settings: BotLikeness
) -> tuple[list[Sampled], dict[str, int]]:
    """Sample and value the decisions (two passes over the dataset).

    Returns:
        ``(sampled decisions, games per player)``.
    """
    where: dict[str, list[tuple[str, int]]] = defaultdict(list)
    games_of: dict[str, set[str]] = defaultdict(set)
    for gid, rules, events in _games(dataset):
        for i, p, _e, _a, _c in _decisions(rules, events):
            where[p].append((gid, i))
            games_of[p].add(gid)
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
    for gid, rules, events in _games(dataset):
        if gid not in wanted:
            continue
        for i, p, engine, acts, act in _decisions(rules, events):
            if (gid, i) not in chosen:
                continue
            mc_rng = random.Random(f"botlike:{settings.seed}:{gid}:{i}")
            try:
                best, outcome = mc_choice(clone(engine), p, acts, settings.rollouts, mc_rng)
            except DeterminizeError:
                continue
            values = sorted(outcome.mean_wins(), reverse=True)
            gap = values[0] - values[1]
            out.append(Sampled(p, gid, i, stratum(len(acts), gap), acts[best] == act))
    return out, {p: len(g) for p, g in games_of.items()}


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
    dataset: str | os.PathLike[str], min_games: int, settings: BotLikeness
) -> list[Finding]:
    """The audit's bot-likeness findings, one per player (section ``bot_likeness``).

    Args:
        dataset: a dataset folder made by ``ingest``.
        min_games: the audit's smallest sample (games the player played).
        settings: rollouts, decisions per player, seed.
    Returns:
        Findings with raw p-values; the audit Holm-corrects them with its others.
    """
    rows, games = sample_decisions(dataset, settings)
    out = []
    for p in sorted(games):
        f = Finding(
            "bot_likeness",
            "mc_agreement",
            p,
            f"one-sided z-test: the player's matches with the Monte Carlo bot's choice "
            f"({settings.rollouts} rollouts) against the other players' match rate at the "
            "same difficulty (alternatives, value gap)",
        )
        out.append(f)
        f.games = games[p]
        if games[p] < min_games:
            f.skipped = f"{games[p]} games, fewer than the minimum {min_games}"
            continue
        n, k, expected, z, pval = agreement_test(rows, p)
        if n < settings.min_decisions:
            f.skipped = (
                f"{n} decisions comparable with other players', fewer than {settings.min_decisions}"
            )
            continue
        f.n, f.statistic, f.expected, f.p_value = n, float(k), expected, pval
        f.summary = (
            f"{k} of {n} decisions as the Monte Carlo bot chose ({k / n:.0%}); "
            f"{expected:.1f} expected from the others at the same difficulty (z = {z:.2f})"
        )
        mine = [r for r in rows if r.player == p and r.matched]
        f.evidence["events"] = [[r.game_id, r.event_index] for r in mine[:20]]
        f.evidence["games"] = sorted({r.game_id for r in mine})[:20]
    return out
