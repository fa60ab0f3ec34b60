"""Bots that play every preset through the engine's legal actions.

- :mod:`.determinize`: copies of an engine and the hidden cards redrawn from one player's
  view (the one module that writes engine internals);
- :mod:`.table`: a round played by one policy per seat (events made and applied);
- :mod:`.policies`: the random bot (the simulator's habits) and the greedy heuristic;
- :mod:`.mc`: Monte Carlo evaluation with common random numbers, and the Monte Carlo bot;
- :mod:`.ladder`: bots against each other, win rates with Wilson intervals, the seat effect.
"""

from __future__ import annotations

from .mc import DEFAULT_ROLLOUTS, MonteCarloPolicy
from .policies import GreedyPolicy, MixedPolicy, RandomPolicy
from .table import BotTable, Policy, Result

BOTS = ("random", "greedy", "mc")
"""The bots' names, weakest first."""


def make_policy(name: str, seed: int = 0, rollouts: int = DEFAULT_ROLLOUTS) -> Policy:
    """A fresh bot by name.

    Args:
        name: ``random``, ``greedy``, ``mc`` (or ``mixed``: greedy half the time).
        seed: the Monte Carlo bot's own seed (the others use the table's generator).
        rollouts: the Monte Carlo bot's rollouts per alternative.
    Returns:
        A :class:`Policy`.
    Raises:
        ValueError: an unknown name.
    """
    if name == "random":
        return RandomPolicy()
    if name == "greedy":
        return GreedyPolicy()
    if name == "mc":
        return MonteCarloPolicy(rollouts=rollouts, seed=seed)
    if name == "mixed":
        return MixedPolicy()
    raise ValueError(f"unknown bot {name!r}: one of {', '.join(BOTS)}")


__all__ = [
    "BOTS",
    "DEFAULT_ROLLOUTS",
    "BotTable",
    "GreedyPolicy",
    "MixedPolicy",
    "MonteCarloPolicy",
    "Policy",
    "RandomPolicy",
    "Result",
    "make_policy",
]
