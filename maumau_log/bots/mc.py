"""Monte Carlo evaluation of a decision, and the Monte Carlo bot.

:func:`evaluate` values each alternative of one player's decision from that player's
information set: ``rollouts`` times, it samples the hidden cards (:func:`determinize`), and
plays every alternative from that *same* sample with the *same* rollout seed (common random
numbers: the alternatives differ only by the action, so their differences are measured far
more precisely than their values), then plays the round out with the rollout policy.
Outcomes per rollout are 1 for a round the player wins, else 0, and the player's round score
(:func:`~maumau_log.bots.table.utility`, higher is better).

This is flat Monte Carlo over determinizations ("perfect information Monte Carlo"): a value
is the chance of winning when the rest of the round is played by the rollout policy, not by
perfect play; determinized search is known to overrate information it cannot have, and the
rollout policy's random play makes the values conservative.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import Action, Engine
from .determinize import clone, determinize
from .policies import GreedyPolicy, rollout_policy
from .table import ROLLOUT_EVENTS, BotTable, Policy, utility

DEFAULT_ROLLOUTS = 16
"""Rollouts per alternative of the Monte Carlo bot (``--rollouts`` of the ladder)."""


@dataclass
class Outcomes:
    """Per-rollout outcomes of the alternatives of one decision.

    Attributes:
        actions: the alternatives, in the order given.
        wins: ``wins[a][k]`` is 1.0 when alternative ``a`` won rollout ``k``, else 0.0.
        scores: ``scores[a][k]`` the player's round score (higher is better).
    """

    actions: list[Action]
    wins: list[list[float]]
    scores: list[list[float]]

    def mean_wins(self) -> list[float]:
        """Each alternative's share of rollouts won."""
        return [sum(w) / len(w) if w else 0.0 for w in self.wins]

    def mean_scores(self) -> list[float]:
        """Each alternative's mean round score."""
        return [sum(s) / len(s) if s else 0.0 for s in self.scores]

    def best(self) -> int:
        """The index of the best alternative: most wins, then the best score, then the
        first given."""
        w, s = self.mean_wins(), self.mean_scores()
        return max(range(len(self.actions)), key=lambda i: (w[i], s[i], -i))


def evaluate(
    engine: Engine,
    player: str,
    actions: Sequence[Action],
    rollouts: int,
    rng: random.Random,
    policy: Policy | None = None,
) -> Outcomes:
    """Value ``player``'s alternatives at ``engine``'s state by determinized rollouts.

    Args:
        engine: the state of the decision (not changed).
        player: who decides.
        actions: the alternatives (legal actions of ``player``, or the table's
            pseudo-actions ``call``, ``no_call``, ``accept_skip``).
        rollouts: samples per alternative (K >= 1).
        rng: draws the determinizations and the rollout seeds.
        policy: the rollout policy of every seat (default :func:`rollout_policy`).
    Returns:
        The :class:`Outcomes`.
    Raises:
        DeterminizeError: the state cannot be sampled from the player's view.
    """
    pol = policy or rollout_policy()
    rules = engine.rules
    policies = dict.fromkeys(engine.players, pol)
    acts = list(actions)
    wins: list[list[float]] = [[] for _ in acts]
    scores: list[list[float]] = [[] for _ in acts]
    for _ in range(rollouts):
        sample = determinize(engine, player, rng)
        seed = int(rng.random() * (1 << 53))
        for i, act in enumerate(acts):
            state = clone(sample) if i < len(acts) - 1 else sample
            table = BotTable(state, policies, random.Random(seed), record=False)
            table.do(act)
            table.run(ROLLOUT_EVENTS)
            result = table.result()
            wins[i].append(1.0 if result.winner == player else 0.0)
            scores[i].append(utility(rules, result.scores, player))
    return Outcomes(acts, wins, scores)


class MonteCarloPolicy(Policy):
    """The Monte Carlo bot: at each decision with several alternatives, :func:`evaluate`
    them with ``rollouts`` determinized rollouts each and play the best (most wins, then
    the best score, then the greedy bot's preference: with few rollouts many alternatives
    tie). It never forgets a call, catches every fault and jumps in whenever it
    can (jump-ins are not searched).

    Args:
        rollouts: rollouts per alternative.
        seed: seeds the bot's own generator (the determinizations), so a seeded game with
            a seeded bot is repeatable.
    """

    name = "mc"

    def __init__(self, rollouts: int = DEFAULT_ROLLOUTS, seed: int = 0) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, not {rollouts}")
        self.rollouts = rollouts
        self.rng = random.Random(seed)
        self.decisions = 0

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """The alternative with the best Monte Carlo value from ``player``'s view."""
        self.decisions += 1
        best, _ = mc_choice(table.engine, player, actions, self.rollouts, self.rng)
        return actions[best]


def mc_choice(
    engine: Engine,
    player: str,
    actions: Sequence[Action],
    rollouts: int,
    rng: random.Random,
) -> tuple[int, Outcomes]:
    """The Monte Carlo bot's choice at a decision: :func:`evaluate`, then the most wins,
    the best score, the greedy bot's preference (:class:`GreedyPolicy`), the first given.

    Returns:
        ``(index of the chosen action, outcomes)``.
    """
    out = evaluate(engine, player, actions, rollouts, rng)
    w, s = out.mean_wins(), out.mean_scores()
    table = BotTable(engine, {}, rng, record=False)
    prior = _PRIOR
    keys = [(w[i], s[i], prior.score(table, player, a), -i) for i, a in enumerate(actions)]
    return max(range(len(keys)), key=lambda i: keys[i]), out


_PRIOR = GreedyPolicy()
