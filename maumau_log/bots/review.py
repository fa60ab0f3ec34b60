"""Play review: was each decision good?

:func:`review_game` replays one game and, at every decision of the reviewed players, values
each legal alternative from the deciding player's information set with :func:`evaluate`
(determinized rollouts, common random numbers across the alternatives). A decision is:

- a turn: which card to play (or which group, where ``multi_play`` allows), or to draw,
  pass, or answer a pending draw or skip (``accept_skip`` stands for taking the skip);
- a suit: which suit to name after a wild card;
- a call: after a play that makes a call due (PRESETS.md ruling 9), saying the word or not.

A decision with one alternative is forced and not listed. Jump-ins (ruling 7) are not
reviewed. Values: ``value`` is the chance to win the round (share of rollouts won) with its
95% Wilson interval; ``score`` the expected round score (higher is better,
:func:`~maumau_log.bots.table.utility`) with a normal 95% interval, where the ruleset scores.

Loss and verdict: ``loss`` is the best alternative's value less the chosen one's, measured
on the same rollouts (paired differences ``d_k``). Its interval is ``loss +- z s /
sqrt(K + 2)``, ``s`` the standard deviation of the differences with two pseudo-differences
``+1`` and ``-1`` added (so that K equal differences still leave an interval), and ``z``
the two-sided 95% quantile Bonferroni-widened for the ``n - 1`` other alternatives the best
was picked from (:func:`z_for`: 1.96 for two alternatives, 2.24 for three). The verdict is
``mistake`` when the interval lies above 0 and the loss is at least :data:`MISTAKE`,
``inaccuracy`` when it lies above 0 and the loss is at least :data:`INACCURACY`, else
``ok``: a decision is never called a mistake when its loss is within the noise.

Seeds: decision at event i is valued from ``random.Random("review:{seed}:{game_id}:{i}:
{kind}")``: a review is repeatable and any one decision can be re-run alone.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from ..engine import PLAY, Action, Engine, RuleViolation, normalize_call
from ..events import Call, Deal, Draw, Event, Game, Pass, Penalty, Play, SuitChoice, decode_event
from ..rules import Ruleset, RulesetError, resolve
from ..scoring.matches import RoundContext
from .determinize import DeterminizeError, clone
from .mc import evaluate
from .table import due_call

DEFAULT_ROLLOUTS = 100
"""Rollouts per alternative (``--rollouts``)."""

MISTAKE = 0.10
"""A significant loss of at least this much win probability is a mistake."""

INACCURACY = 0.02
"""A significant loss of at least this much (below :data:`MISTAKE`) is an inaccuracy."""

Z95 = 1.959963984540054


class ReviewError(Exception):
    """The game cannot be reviewed (not found, unreadable, unknown ruleset, a player who is
    not at the table, a hidden hand)."""


@dataclass
class Alternative:
    """One alternative of a decision: ``action`` as text, ``value`` (chance to win) with
    its 95% Wilson interval, ``score`` (expected round score, higher is better) with its
    95% interval, None where the ruleset does not score."""

    action: str
    value: float
    ci_low: float
    ci_high: float
    score: float | None = None
    score_ci_low: float | None = None
    score_ci_high: float | None = None


@dataclass
class Decision:
    """One reviewed decision (the ``--json`` ``decisions`` list holds these).

    Attributes:
        event_index: the event of the decision (header = 0; for a call, the play after
            which the call was due).
        player: who decided; kind: ``turn``, ``suit`` or ``call``.
        chosen, best: the action taken and the best-valued one, as text.
        alternatives: every alternative, in the engine's order.
        loss, loss_ci_low, loss_ci_high: the chosen action's loss of win probability and
            its 95% interval.
        verdict: ``ok``, ``inaccuracy`` or ``mistake``.
    """

    event_index: int
    player: str
    kind: str
    chosen: str
    best: str
    alternatives: list[Alternative]
    loss: float
    loss_ci_low: float
    loss_ci_high: float
    verdict: str


@dataclass
class Review:
    """A reviewed game.

    Attributes:
        game_id, ruleset, players, rollouts, seed: what was reviewed, and how.
        decisions: the non-forced decisions, in game order.
        forced: decisions of the reviewed players that had one alternative.
        skipped: decisions not reviewed and why (``[event_index, reason]``).
        violation: the first rule violation when the game is invalid (the review stops
            there), else None.
    """

    game_id: str
    ruleset: str
    players: list[str]
    rollouts: int
    seed: int
    decisions: list[Decision] = field(default_factory=list)
    forced: int = 0
    skipped: list[list[Any]] = field(default_factory=list)
    violation: str | None = None

    def counts(self) -> dict[str, dict[str, int]]:
        """Per player: decisions and verdicts counted."""
        out: dict[str, dict[str, int]] = {}
        for d in self.decisions:
            row = out.setdefault(d.player, {"decisions": 0, "ok": 0, "inaccuracy": 0, "mistake": 0})
            row["decisions"] += 1
            row[d.verdict] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``{"game_id", ..., "decisions": [...], "summary": {...}}``."""
        d = asdict(self)
        d["summary"] = self.counts()
        return d


# ---------------------------------------------------------------------------------------
# Reading a game


def load_events(source: str | os.PathLike[str], game_id: str) -> tuple[list[Event], Ruleset]:
    """One game's events (header first) and its ruleset, from a log file or a dataset.

    Args:
        source: a log file (``.jsonl``, ``.gz``, ``.zst``) or a dataset folder.
        game_id: the game's ``game_id``.
    Returns:
        ``(events, rules)``.
    Raises:
        ReviewError: not found, unreadable, or an unknown ruleset (a located message).
    """
    path = Path(source)
    if path.is_dir():
        return _from_dataset(path, game_id)
    from ..logs.lines import LogReadError
    from ..replay.driver import read_games

    try:
        for _, events in read_games(path):
            header = events[0]
            assert isinstance(header, Game)
            if header.game_id == game_id:
                return events, _rules(header.ruleset, header.options, None, f"{path}")
    except LogReadError as exc:
        raise ReviewError(str(exc)) from exc
    raise ReviewError(f"{path}: no game with game_id {game_id!r}")


def _rules(
    preset: str, header: dict[str, Any] | None, stored: dict[str, Any] | None, where: str
) -> Ruleset:
    try:
        return resolve(preset, header, stored)
    except RulesetError as exc:
        raise ReviewError(f"{where}: {exc}") from exc


def _from_dataset(path: Path, game_id: str) -> tuple[list[Event], Ruleset]:
    import msgspec
    import polars as pl

    from ..store import DatasetError, scan_all

    try:
        tables = scan_all(path)
        row = tables["games"].filter(pl.col("game_id") == game_id).select("ruleset", "options")
        games = row.collect()
        raws = (
            tables["events"]
            .filter(pl.col("game_id") == game_id)
            .sort("event_index")
            .select("raw")
            .collect()["raw"]
            .to_list()
        )
    except (DatasetError, pl.exceptions.PolarsError, OSError) as exc:
        raise ReviewError(f"{path}: cannot read the dataset: {exc}") from exc
    if games.height == 0 or not raws:
        raise ReviewError(f"{path}: no game with game_id {game_id!r} (or no stored events)")
    try:
        events = [decode_event(r) for r in raws]
    except msgspec.DecodeError as exc:
        raise ReviewError(
            f"{path}: game {game_id!r}: a stored event does not decode: {exc}"
        ) from exc
    ruleset, options = games.row(0)
    return events, _rules(ruleset, None, json.loads(options or "null"), f"{path}: {game_id}")


def _engine(rules: Ruleset, events: Sequence[Event]) -> Engine:
    """An engine for the header; a match round is replayed alone (its dealt hand sizes from
    its deal, match checks off), as the audit does."""
    header = events[0]
    if not isinstance(header, Game):
        raise ReviewError("the game's first event is not a header")
    ctx = None
    if header.match_id is not None and len(events) > 1 and isinstance(events[1], Deal):
        sizes = {p: len(h) if isinstance(h, list) else h.count for p, h in events[1].hands.items()}
        ctx = RoundContext(header.match_id, header.round or 1, hand_sizes=sizes, checked=False)
    return Engine(rules, header, ctx)


# ---------------------------------------------------------------------------------------
# Decisions


def action_label(act: Action) -> str:
    """An action as review text: ``play 7H``, ``play 7H 7S``, ``draw 1``, ``pass``,
    ``name H``, ``call mau``, ``no call``, ``accept skip``."""
    if act.kind == "play":
        return "play " + " ".join(act.play_cards)
    if act.kind == "draw":
        return f"draw {act.count}"
    if act.kind == "suit":
        return f"name {act.card}"
    if act.kind == "call":
        return f"call {act.card}"
    return act.kind.replace("_", " ")


def turn_alternatives(engine: Engine, player: str) -> list[Action]:
    """``player``'s alternatives now: the suits when they name one, else their own legal
    actions (jump-ins left out), with ``accept_skip`` added for a skipped player who may
    answer the skip."""
    if engine.phase != PLAY:
        return []
    legal = [a for a in engine.legal_actions() if not a.jump]
    acts = [a for a in legal if a.player == player]
    if acts and engine.pending_skip and legal[0].player == player and legal[-1].player != player:
        acts.append(Action("accept_skip", player))
    return acts


def match_action(acts: Sequence[Action], ev: Event) -> Action | None:
    """The alternative a logged event took, or None."""
    for a in acts:
        if isinstance(ev, Play) and a.kind == "play":
            if sorted(a.play_cards) == sorted(ev.cards) and a.jump == bool(ev.jump_in):
                return a
        elif (
            (isinstance(ev, Draw) and a.kind == "draw")
            or (isinstance(ev, Pass) and a.kind == "pass")
            or (isinstance(ev, SuitChoice) and a.kind == "suit" and a.card == ev.suit)
        ):
            return a
    return None


def _called(events: Sequence[Event], start: int, player: str, word: str) -> bool:
    """Whether ``player`` says ``word`` before anyone else acts, from event ``start``."""
    for ev in events[start:]:
        actor = (ev.by or ev.player) if isinstance(ev, Penalty) else getattr(ev, "player", None)
        if actor is not None and actor != player:
            return False
        if isinstance(ev, Call) and ev.player == player:
            if normalize_call(ev.call) == normalize_call(word):
                return True
        elif actor == player and not isinstance(ev, Call):
            return False
    return False


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def _wilson(k: float, n: int) -> tuple[float, float]:
    p = k / n
    z2 = Z95 * Z95
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def z_for(alternatives: int) -> float:
    """The normal quantile of the loss interval: two-sided 95%, Bonferroni-widened for
    comparing the chosen action with each of the other ``alternatives - 1`` (the best is
    picked from the same rollouts): ``Phi^-1(1 - 0.025 / (n - 1))``, 1.96 for two."""
    return float(NormalDist().inv_cdf(1 - 0.025 / max(1, alternatives - 1)))


def loss_interval(
    best: Sequence[float], chosen: Sequence[float], z: float = Z95
) -> tuple[float, float, float]:
    """The loss ``mean(best - chosen)`` and its interval (module docstring).

    Args:
        best, chosen: per-rollout outcomes of the two alternatives (same rollouts).
        z: the normal quantile (:func:`z_for`).
    Returns:
        ``(loss, low, high)``.
    """
    d = [b - c for b, c in zip(best, chosen, strict=True)]
    loss = sum(d) / len(d)
    aug = [*d, 1.0, -1.0]
    m = sum(aug) / len(aug)
    sd = math.sqrt(sum((x - m) ** 2 for x in aug) / (len(aug) - 1))
    half = z * sd / math.sqrt(len(aug))
    return loss, loss - half, loss + half


def verdict(loss: float, low: float) -> str:
    """``mistake``, ``inaccuracy`` or ``ok`` from the loss and its interval's low end."""
    if low <= 0:
        return "ok"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return "ok"


def judge(
    engine: Engine,
    player: str,
    acts: Sequence[Action],
    chosen: Action,
    rollouts: int,
    rng: random.Random,
) -> tuple[list[Alternative], int, float, float, float]:
    """Value the alternatives and the chosen one's loss.

    Returns:
        ``(alternatives, best index, loss, loss low, loss high)``.
    Raises:
        DeterminizeError: as :func:`evaluate`.
    """
    out = evaluate(engine, player, acts, rollouts, rng)
    scored = engine.rules.scoring != "none"
    alts = []
    for act, w, s in zip(acts, out.wins, out.scores, strict=True):
        lo, hi = _wilson(sum(w), len(w))
        alt = Alternative(action_label(act), sum(w) / len(w), lo, hi)
        if scored:
            alt.score, alt.score_ci_low, alt.score_ci_high = _interval(s)
        alts.append(alt)
    best = out.best()
    c = list(acts).index(chosen)
    if out.mean_wins()[c] >= out.mean_wins()[best]:
        best = c  # the chosen action is as good as any: no loss
    loss, low, high = loss_interval(out.wins[best], out.wins[c], z_for(len(acts)))
    return alts, best, loss, low, high


def review_game(
    events: Sequence[Event],
    rules: Ruleset,
    player: str | None = None,
    rollouts: int = DEFAULT_ROLLOUTS,
    seed: int = 0,
) -> Review:
    """Review one game's decisions.

    Args:
        events: the game's events, header first.
        rules: its ruleset.
        player: review only this player (default: every player).
        rollouts: rollouts per alternative (K >= 1).
        seed: the review's seed (module docstring).
    Returns:
        The :class:`Review` (stopped at the first violation of an invalid game).
    Raises:
        ReviewError: no header, a player not at the table, a hidden hand, K < 1.
    """
    if rollouts < 1:
        raise ReviewError(f"rollouts must be at least 1, not {rollouts}")
    engine = _engine(rules, events)
    header = events[0]
    assert isinstance(header, Game)
    if player is not None and player not in engine.players:
        raise ReviewError(
            f"{player!r} is not a player of game {header.game_id!r} "
            f"(players: {', '.join(engine.players)})"
        )
    targets = set(engine.players) if player is None else {player}
    rev = Review(header.game_id, rules.preset, sorted(targets), rollouts, seed)

    def add(i: int, p: str, kind: str, state: Engine, acts: list[Action], chosen: Action) -> None:
        rng = random.Random(f"review:{seed}:{header.game_id}:{i}:{kind}")
        try:
            alts, best, loss, low, high = judge(state, p, acts, chosen, rollouts, rng)
        except DeterminizeError as exc:
            rev.skipped.append([i, str(exc)])
            return
        rev.decisions.append(
            Decision(
                i, p, kind, action_label(chosen), alts[best].action, alts, loss, low, high,
                verdict(loss, low),
            )
        )  # fmt: skip

    for i in range(1, len(events)):
        ev = events[i]
        p = getattr(ev, "player", None)
        reviewed = p in targets and isinstance(ev, Play | Draw | Pass | SuitChoice)
        if reviewed and isinstance(ev, Play) and ev.jump_in:
            rev.skipped.append([i, "jump-ins are not reviewed"])
            reviewed = False
        if reviewed:
            assert p is not None
            acts = turn_alternatives(engine, p)
            chosen = match_action(acts, ev)
            if chosen is None:
                reviewed = False  # an illegal event: apply() below reports it
            elif len(acts) == 1:
                rev.forced += 1
            else:
                kind = "suit" if chosen.kind == "suit" else "turn"
                add(i, p, kind, clone(engine), acts, chosen)
        try:
            engine.apply(ev)
        except RuleViolation as exc:
            rev.violation = f"event {i}: {exc}"
            break
        if p in targets and (
            (isinstance(ev, Play) and engine.awaiting_suit is None) or isinstance(ev, SuitChoice)
        ):
            assert p is not None
            word = due_call(engine, p)
            if word is not None:
                said = _called(events, i + 1, p, word)
                acts = [Action("call", p, word), Action("no_call", p)]
                add(i, p, "call", clone(engine), acts, acts[0] if said else acts[1])
    return rev
