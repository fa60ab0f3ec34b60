"""Copies of an engine, and determinization: the hidden cards redrawn from one player's view.

THE ONE PLACE that writes engine internals. Everything else in :mod:`maumau_log.bots`,
:mod:`maumau_log.bots.review` and :mod:`maumau_log.audit.botlike` uses the engine's public API
only (``apply``, ``legal_actions``, ``can_play``, ``view``, and reading ``hands``,
``stock``, ``discard``, ``phase``, ``faults``, ``last_play``). When the engine's state layout
changes, update :func:`clone` and
:func:`determinize` here; ``tests/test_bots.py::test_determinize_*`` fail if they break.

A Monte Carlo decision is taken from a player's *information set*: the
player sees the own hand, the discard pile, the sizes of the other hands and of the stock,
but not which cards those hold. :func:`determinize` samples one full state consistent with
that view: the cards the player cannot see (the pack less the own hand and the discard pile)
are shuffled and dealt back to the other hands and the stock with the known sizes. Cards the
player saw go into the stock by a reshuffle are treated as unseen again (the usual
approximation of determinized search; it only widens the sample).
"""

from __future__ import annotations

import copy
import random
from collections import Counter

from ..engine import HIDDEN, Engine


class DeterminizeError(Exception):
    """The state cannot be determinized from this player's view (the own hand is not shown,
    or the card counts do not add up to the pack)."""


def clone(engine: Engine) -> Engine:
    """An independent copy of ``engine`` that shares only the (read-only) ruleset.

    Args:
        engine: any engine.
    Returns:
        A deep copy: applying events to it leaves ``engine`` unchanged.
    """
    rules = engine.rules
    memo = {id(rules): rules, id(rules.cards): rules.cards}
    return copy.deepcopy(engine, memo)


def shuffle_list(items: list[str], rng: random.Random) -> None:
    """Fisher-Yates in place through ``rng.random()`` only (repeatable across CPython
    versions, which ``random.shuffle`` does not promise)."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]


def unseen_cards(engine: Engine, player: str) -> Counter[str]:
    """The cards ``player`` cannot see: the pack less the own hand and the discard pile.

    Args:
        engine: a state after the deal.
        player: a player of the game.
    Returns:
        A multiset of card codes.
    Raises:
        DeterminizeError: the player's own hand holds hidden cards (a partial log).
    """
    own = engine.hands[player]
    if HIDDEN in own:
        raise DeterminizeError(f"the hand of {player} is not shown in the log")
    pool = Counter(engine.rules.pack_counts)
    pool.subtract(own)
    pool.subtract(engine.discard)
    if any(v < 0 for v in pool.values()):
        raise DeterminizeError("the hand and the discard pile hold more cards than the pack")
    return +pool


def determinize(engine: Engine, player: str, rng: random.Random) -> Engine:
    """A copy of ``engine`` whose hidden cards are redrawn as ``player`` might imagine them.

    The other players' hands and the stock keep their sizes and get the cards ``player``
    cannot see (:func:`unseen_cards`) in a random order drawn from ``rng``. The copy is a
    full-information state: its stock order is known, and it forgets the header's fair
    shuffle seed (a revealed seed would tell every future reshuffle), so reshuffles in the
    copy are free (a rollout draws them from its own generator).

    Args:
        engine: the true state (or a partial log's state with hidden cards).
        player: whose view is sampled.
        rng: the source of randomness (``random()`` only).
    Returns:
        A new engine; ``engine`` is unchanged.
    Raises:
        DeterminizeError: the own hand is hidden or the counts do not add up.
    """
    pool_counts = unseen_cards(engine, player)
    others = [p for p in engine.players if p != player]
    sizes = [len(engine.hands[p]) for p in others]
    need = sum(sizes) + len(engine.stock)
    pool = sorted(pool_counts.elements())
    if len(pool) != need:
        raise DeterminizeError(
            f"{len(pool)} cards unseen by {player}, but the other hands and the stock hold {need}"
        )
    shuffle_list(pool, rng)
    copy_ = clone(engine)
    # -- engine internals: the layout this function depends on -----------------------
    at = 0
    for p, size in zip(others, sizes, strict=True):
        copy_.hands[p] = pool[at : at + size]
        at += size
    copy_.stock = pool[at:]  # top card last, as the engine keeps it
    copy_.stock_ordered = True
    copy_.unseen = None  # a full-information state from here on
    copy_.fair_seed = None  # future reshuffles are not known to the player
    return copy_
