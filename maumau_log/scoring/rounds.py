"""Round scores for every scoring system (RULESETS.md "Scoring systems", PRESETS.md ruling 13).

Pure functions of the final hands: no state, no I/O. This module scores one round, and adds
a round to a match's running totals and decides the match's end and winner (PRESETS.md
ruling 14: :func:`add_scores`, :func:`is_over`, :func:`match_winner`, named in
:mod:`maumau_log.scoring.matches` too; here because the engine calls them at every ``round_end``
and this module is compiled with it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..cards import Card
from ..rules import Ruleset

HIGH_WINS = ("winner_collects", "hand_penalty")
"""Scoring systems whose match winner has the highest total; the others, the lowest."""


def hand_points(rules: Ruleset, hand: Sequence[Card]) -> int:
    """Points of the cards left in a hand under ``rules.points`` (ruling 13).

    Args:
        rules: the ruleset (its ``points`` table and pack).
        hand: card codes.
    Returns:
        The sum, e.g. ``["7H", "JC"]`` under ``classic`` -> 7 + 20 = 27.
    """
    table = rules.cards
    return sum(table[c].points for c in hand)


def finish_multiplier(rules: Ruleset, last_play: Sequence[Card]) -> int:
    """The multiplier of a round won on a wild card (``wild_finish_multiplier``).

    ``serbian`` raises it to the power of the number of identical wild cards in the last
    play (one J: x2, two identical Js: x4); other systems apply it once.

    Args:
        rules: the ruleset.
        last_play: the cards of the play that emptied the hand.
    Returns:
        1 when the round was not won on a wild card.
    """
    if not last_play or not rules.cards[last_play[-1]].wild:
        return 1
    if rules.scoring == "serbian":
        wilds = sum(1 for c in last_play if c == last_play[-1])
        return int(rules.wild_finish_multiplier**wilds)
    return rules.wild_finish_multiplier


def round_scores(
    rules: Ruleset,
    players: Sequence[str],
    hands: Mapping[str, Sequence[Card]],
    winner: str | None,
    last_play: Sequence[Card],
) -> dict[str, int]:
    """Score one round (PRESETS.md ruling 13).

    Args:
        rules: the ruleset (``scoring``, ``points``, ``wild_finish_multiplier``).
        players: every player, in seat order.
        hands: the final hands.
        winner: who emptied the hand, or None (play limit, blocked stock, abandon).
        last_play: the cards of the winning play (for the wild-finish multiplier).
    Returns:
        Player to points this round, listing every player:
        ``winner_collects``: the winner scores the others' points, the others 0;
        ``penalty_points``: each other player the own points, the winner 0;
        ``serbian``: the winner -30 (times the multiplier), the others their own points
        (times it); ``hand_penalty``: minus the own points; ``none``: all 0.
        Without a winner, ``winner_collects`` scores nothing and the others score each
        player's own hand (signed as their system signs it).
    """
    own = {p: hand_points(rules, hands[p]) for p in players}
    mult = finish_multiplier(rules, last_play) if winner is not None else 1
    system = rules.scoring
    if system == "winner_collects":
        if winner is None:
            return dict.fromkeys(players, 0)
        return {p: (sum(own.values()) * mult if p == winner else 0) for p in players}
    if system == "penalty_points":
        return {p: (0 if p == winner else own[p] * mult) for p in players}
    if system == "serbian":
        return {p: (-30 * mult if p == winner else own[p] * mult) for p in players}
    if system == "hand_penalty":
        return {p: (0 if p == winner else -own[p] * mult) for p in players}
    return dict.fromkeys(players, 0)


def add_scores(totals: Mapping[str, int], scores: Mapping[str, int]) -> dict[str, int]:
    """Running totals after a round: ``totals + scores`` player by player."""
    out = dict(totals)
    for p, v in scores.items():
        out[p] = out.get(p, 0) + v
    return out


def is_over(rules: Ruleset, totals: Mapping[str, int], rounds: int, players_left: int) -> bool:
    """Whether a match is over after ``rounds`` rounds (ruling 14).

    Args:
        rules: ``match_target``, ``match_rounds``, ``scoring``, ``loser_hand_shrink``.
        totals: running totals after the last round.
        rounds: rounds played.
        players_left: players still in (``loser_hand_shrink``).
    Returns:
        True when a total reached the target (for ``hand_penalty``: fell to minus the
        target), the round count is reached, or one player is left.
    """
    if rules.loser_hand_shrink and players_left <= 1:
        return True
    if rules.match_rounds is not None and rounds >= rules.match_rounds:
        return True
    target = rules.match_target
    if target is not None and totals:
        if rules.scoring == "hand_penalty":
            return min(totals.values()) <= -target
        return max(totals.values()) >= target
    return False


def match_winner(
    rules: Ruleset,
    players: Sequence[str],
    totals: Mapping[str, int],
    rounds_won: Mapping[str, int],
    players_left: Sequence[str] | None = None,
) -> str | None:
    """The match winner, or None for a draw (ruling 14).

    The highest total wins under ``winner_collects`` and ``hand_penalty``, the lowest under
    ``penalty_points`` and ``serbian``; a tie goes to the tied player with most rounds won,
    and a tie on that too is a draw. Under ``loser_hand_shrink`` the last player left wins.
    """
    if rules.loser_hand_shrink and players_left is not None and len(players_left) == 1:
        return players_left[0]
    if not players:
        return None
    values = {p: totals.get(p, 0) for p in players}
    best = (max if rules.scoring in HIGH_WINS else min)(values.values())
    tied = [p for p in players if values[p] == best]
    if len(tied) == 1:
        return tied[0]
    most = max(rounds_won.get(p, 0) for p in tied)
    tied = [p for p in tied if rounds_won.get(p, 0) == most]
    return tied[0] if len(tied) == 1 else None
