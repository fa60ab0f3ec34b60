"""Matches: rounds that share a ``match_id``, their running totals and their end
(RULESETS.md "Scoring systems"; PRESETS.md rulings 13-14).

Pure data and functions: :class:`MatchState` is what the replay remembers of a match
between rounds, :class:`RoundContext` what the engine needs to replay one round of it (who
deals, who starts, hand sizes, the totals before it). No I/O, no engine import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..rules import Ruleset

# the per-round arithmetic of a match lives with the round scores (compiled with the
# engine, which calls it at every round_end); named here as before
from .rounds import HIGH_WINS as HIGH_WINS
from .rounds import add_scores as add_scores
from .rounds import is_over as is_over
from .rounds import match_winner as match_winner


@dataclass(frozen=True)
class RoundContext:
    """What the engine needs to replay round ``round`` of a match (ruling 14).

    Attributes:
        match_id: the match.
        round: this round's number (from 1).
        dealer: who must deal (the next seat after the last dealer), None for round 1.
        first_player: who must start under ``first_player = "previous_winner"``, or None.
        hand_sizes: cards dealt per player (``loser_hand_shrink``), or None for the ruleset's.
        totals: running totals before this round (player to points).
        rounds_won: rounds won before this round.
        rounds_before: rounds played before this one.
        checked: False when earlier rounds are missing or invalid: the round is then
            replayed on its own and match checks are skipped.
    """

    match_id: str
    round: int
    dealer: str | None = None
    first_player: str | None = None
    hand_sizes: Mapping[str, int] | None = None
    totals: Mapping[str, int] = field(default_factory=dict)
    rounds_won: Mapping[str, int] = field(default_factory=dict)
    rounds_before: int = 0
    checked: bool = True


@dataclass
class MatchState:
    """A match as the replay remembers it between rounds.

    Attributes:
        match_id: the match.
        players: every player of round 1, in seat order.
        ruleset_key: the resolved ruleset's key (every round must use the same).
        rounds: valid rounds replayed.
        totals: running totals.
        rounds_won: rounds won per player.
        lost: rounds lost per player (for ``loser_hand_shrink``).
        last_dealer: who dealt the last round.
        last_winner: who won the last round that had a winner.
        over: the match has reached its end (target, round count, one player left).
        ended: a ``match_end`` was seen.
        broken: why the match can no longer be checked (an invalid or missing round).
    """

    match_id: str
    players: tuple[str, ...]
    ruleset_key: str
    rounds: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    rounds_won: Counter[str] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)
    last_dealer: str | None = None
    last_winner: str | None = None
    over: bool = False
    ended: bool = False
    broken: str | None = None

    def record_round(
        self,
        players: Sequence[str],
        dealer: str,
        winner: str | None,
        totals: Mapping[str, int],
        rounds_won: Mapping[str, int],
        over: bool,
        ended: bool,
    ) -> None:
        """Remember a valid round: its dealer and winner, the totals after it, whether the
        match is over and whether its ``match_end`` was seen."""
        self.rounds += 1
        self.totals = dict(totals)
        self.rounds_won = Counter(rounds_won)
        for p in players:
            if p != winner:
                self.lost[p] += 1
        self.last_dealer = dealer
        if winner is not None:
            self.last_winner = winner
        self.over = over
        self.ended = ended

    def players_left(self, rules: Ruleset) -> list[str]:
        """Players still in the match (``loser_hand_shrink`` puts out who reaches 0 cards)."""
        if not rules.loser_hand_shrink:
            return list(self.players)
        base = {p: rules.hand_size_for(len(self.players)) for p in self.players}
        return [p for p in self.players if base[p] - self.lost[p] > 0]

    def next_context(self, rules: Ruleset, round_no: int) -> RoundContext:
        """The context of the next round (ruling 14: the next seat deals; the previous
        winner starts under ``first_player = "previous_winner"``)."""
        left = self.players_left(rules)
        dealer = None
        if self.last_dealer is not None and left:
            seat = self.players.index(self.last_dealer)
            for k in range(1, len(self.players) + 1):
                cand = self.players[(seat + k) % len(self.players)]
                if cand in left:
                    dealer = cand
                    break
        sizes = None
        if rules.loser_hand_shrink:
            base = rules.hand_size_for(len(self.players))
            sizes = {p: base - self.lost[p] for p in left}
        first = self.last_winner if rules.first_player == "previous_winner" else None
        return RoundContext(
            match_id=self.match_id,
            round=round_no,
            dealer=dealer,
            first_player=first if first in left else None,
            hand_sizes=sizes,
            totals=dict(self.totals),
            rounds_won=dict(self.rounds_won),
            rounds_before=self.rounds,
        )
