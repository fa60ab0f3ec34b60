"""What may happen next: :class:`Action`, :func:`legal_actions`, :func:`describe_legal`.

Pure queries (STYLE.md habit 13): they leave the state as they found it. A pending draw
with nothing left to draw is seen as lapsed, and a pending skip as taken for the next
player's options, without settling either. The simulator plays from :func:`legal_actions`
and every violation's "what was legal" text is :func:`describe_legal`; both come from the
decisions of :mod:`.legality` (RULES.md "What every system shares"; PRESETS.md rulings 5-8,
11-12).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import SUITS, Card
from .legality import (
    draw_problem,
    finish_allowed,
    jump_problem,
    legal_plays,
    owed_previous,
    pass_problem,
    pending_draw,
    turn_blocked,
    turn_plays,
)
from .state import ENDED, HIDDEN, OUT, PLAY, SETUP, State, drawable, next_seat


@dataclass(frozen=True, slots=True)
class Action:
    """A legal next step, as :func:`legal_actions` lists it.

    Attributes:
        kind: ``"play"``, ``"draw"``, ``"pass"``, ``"suit"`` or ``"round_end"``.
        player: who acts (None for round_end).
        card: the (first) card for a play, the suit for a suit choice.
        count: cards to draw, for a draw.
        reason: the draw reason.
        cards: all cards of a play of several cards (``multi_play``), else empty.
        jump: a jump-in (``jump_in``), out of turn.
    """

    kind: str
    player: str | None = None
    card: str | None = None
    count: int = 0
    reason: str | None = None
    cards: tuple[str, ...] = ()
    jump: bool = False

    @property
    def play_cards(self) -> list[str]:
        """The cards of a play action (several where ``multi_play`` allows)."""
        return list(self.cards) if self.cards else [self.card] if self.card else []

    def __str__(self) -> str:
        if self.kind == "play":
            how = " jumps in with" if self.jump else " plays"
            return f"{self.player}{how} {' '.join(self.play_cards)}"
        if self.kind == "draw":
            return f"{self.player} draws {self.count} ({self.reason})"
        if self.kind == "suit":
            return f"{self.player} names {self.card}"
        if self.kind == "pass":
            return f"{self.player} passes"
        return self.kind.replace("_", " ")


def legal_actions(s: State) -> list[Action]:
    """Every legal next action (calls and penalties aside), for bots and messages.

    Returns:
        A list of :class:`Action`: a round_end once a player is out or the round ended,
        the suits while one must be named, owed previous-player draws first (ruling 8),
        then jump-ins, then the player to move's plays, draw and pass; empty before the
        deal and once the round is finished.
    """
    if s.phase in (OUT, ENDED):
        return [Action("round_end")]
    if s.phase != PLAY:
        return []
    if s.awaiting_suit is not None:
        return [Action("suit", s.awaiting_suit, suit) for suit in SUITS]
    owed = owed_previous(s)
    acts: list[Action] = []
    if owed:  # owed previous-player draws, out of turn, come first (ruling 8)
        n_left = len(s.stock) or drawable(s)
        acts = [
            Action("draw", p, count=min(n, n_left), reason="effect")
            for p, n in sorted(owed.items())
        ]
    acts.extend(_jump_actions(s))
    player = s.players[s.current]
    # who may take a turn action: not while another player still owes the rest of a split
    # penalty (ruling 10), nor a player who owes a previous-player draw (ruling 8)
    if s.pending_skip:  # the skipped player's answers, then the skip taken
        if not turn_blocked(s, player):
            acts.extend(_play_actions(s, player, legal_plays(s, player)))
        after = s.players[next_seat(s, s.current, s.pending_skip)]
        if not turn_blocked(s, after):
            acts.extend(_turn_actions(s, after, skip=0))
        return acts
    if not turn_blocked(s, player):
        acts.extend(_turn_actions(s, player, skip=0))
    return acts


def _play_actions(s: State, player: str, plays: list[Card]) -> list[Action]:
    """Plays of one card, and (``multi_play``, ``multi_play_any_suit``: ruling 21) of each
    legal card with its fellows."""
    acts = []
    multi = s.rules.multi_play
    single_only = s.must_play is not None or bool(
        s.draws_this_turn and s.rules.play_after_draw == "drawn"
    )
    hand = s.hands[player]
    any_suit_ranks = s.rules.multi_play_any_suit
    for c in plays:
        acts.append(Action("play", player, c))
        rank = s.cards[c].rank
        any_suit = rank in any_suit_ranks  # ruling 21
        if (multi == "none" and not any_suit) or single_only:
            continue
        rest = list(hand)
        rest.remove(c)
        same = multi == "identical" and not any_suit
        fellows = [x for x in rest if (x == c if same else x != HIDDEN and s.cards[x].rank == rank)]
        group = [c, *fellows]
        if fellows and finish_allowed(s, player, group[-1], len(group)):
            acts.append(Action("play", player, c, cards=tuple(group)))
    return acts


def _jump_actions(s: State) -> list[Action]:
    """Jump-ins open to players other than the one to move (PRESETS.md ruling 7): the
    shown top card, where :func:`.legality.jump_problem` finds no problem."""
    if not (s.jump_in and s.jump_open and s.phase == PLAY):
        return []
    top = s.discard[-1]
    me = s.players[s.current]
    return [
        Action("play", p, top, jump=True)
        for p in s.players
        if p not in (s.last_player, me) and top in s.hands[p] and jump_problem(s, p, [top]) is None
    ]


def _turn_actions(s: State, player: str, skip: int) -> list[Action]:
    """The plays, draw and pass of ``player`` as the player to move."""
    acts = _play_actions(s, player, turn_plays(s, player))
    pending = pending_draw(s)
    if pending:
        n = min(pending, len(s.stock) or drawable(s))
        if n:
            acts.append(Action("draw", player, count=n, reason="effect"))
        return acts
    reason, _ = draw_problem(s, player)
    if reason:
        acts.append(Action("draw", player, count=1, reason=reason))
    if pass_problem(s, player, skip) is None:
        acts.append(Action("pass", player))
    return acts


def describe_legal(s: State, limit: int = 12) -> str:
    """The legal actions as one line, e.g. ``"ana plays 7H | ana draws 1 (no_play)"``.

    Args:
        limit: at most this many actions are listed, then ``"... (k more)"``.
    """
    if s.phase == SETUP:
        return "the deal"
    acts = legal_actions(s)
    if not acts and s.phase == PLAY and s.penalty_owed is not None:
        who, rest = s.penalty_owed  # ruling 10: nothing else until it is drawn
        return (
            f"a reshuffle, then {who}'s penalty draw"
            if not s.stock
            else f"{who}'s penalty draw of {rest} card(s)"
        )
    if not acts:
        return "nothing (the round is over)"
    hidden: set[str] = set()
    if s.unseen is not None and s.phase == PLAY:
        hidden = {a.player for a in acts if a.player and HIDDEN in s.hands[a.player]}
    parts = [
        # what a hidden hand may play, and so whether it may draw, is unknowable
        str(a) + " (if the hidden hand cannot play)"
        if a.player in hidden and a.kind in ("draw", "pass") and a.reason != "effect"
        else str(a)
        for a in acts[:limit]
    ]
    parts += [f"{p} plays a card of the hidden hand legal here" for p in sorted(hidden)]
    text = " | ".join(parts)
    return text + (f" | ... ({len(acts) - limit} more)" if len(acts) > limit else "")
