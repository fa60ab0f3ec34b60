"""The port of OpenSpiel's ``CrazyEightsState`` (``open_spiel/games/crazy_eights/
crazy_eights.cc``, open-spiel 2.0.2): the rules by which OpenSpiel plays, action by action.

The rules it follows are OpenSpiel's, not ours: where they differ from the ``crazy-eights``
preset (RULES.md section 12, PRESETS.md ``crazy-eights``) the import maps the difference onto
options (:mod:`.params`), and ``tests/test_openspiel.py`` replays thousands of games played
by the real ``pyspiel`` through both this port (every step) and our engine (every decision's
legal actions). OpenSpiel's rules, as its code has them:

- dealing (``DoApplyAction`` at a chance node): the first chance action picks the dealer;
  7 cards each to 2 players, 5 to more, one at a time from the player left of the dealer;
  then the starter is turned; an 8 goes back into the stock and another is turned
  (RULES.md section 12, ``starter_redeal``); with ``use_special_cards`` a starter Q skips,
  A reverses, 2 makes the first player draw 2;
- a turn (``LegalActions``): a card of the suit or rank of the top card, or any 8 (wild);
  after an 8 its player nominates a suit; a draw while the stock has cards and fewer than
  ``max_draw_cards`` draws were made this turn; a pass after ``max_draw_cards`` draws or with
  an empty stock; facing 2s: draw them all, or (until the first of them is drawn) answer
  with a 2;
- the stock (``reshuffle``): when the last card is drawn, the discard pile except its top
  becomes the stock (``reshuffle = True``), or the stock stays empty;
- the end: a player with no card, ``max_turns`` plays, or ``players + 1`` passes in a row
  with an empty stock; ``ScoreUp`` charges each hand (see :meth:`CrazyEightsState._score_up`).

Legality has one source, :meth:`CrazyEightsState.is_legal`: :meth:`~CrazyEightsState.apply`
asks it about the one action given (constant time), :meth:`~CrazyEightsState.legal_actions`
lists the actions it allows, and :meth:`~CrazyEightsState.why_illegal` explains a refusal.

Compiled (``hatch_build.EXTRA``; ``MAUMAU_LOG_PURE_PYTHON=1`` runs this source as Python),
so written for the compiled build once here rather than per line: a card count is
lowered as ``deck[c] = deck[c] - 1`` (typed int arithmetic; ``-=`` on a list item is a
generic in-place call), :meth:`~CrazyEightsState.apply_all` calls the state's methods on
``self`` (direct C calls; a bound-method local boxes the arguments), and the test for a
playable card is a loop over four suits, not a slice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final

from .actions import (
    CHANCE,
    DEALER_BASE,
    DRAW,
    DRAW_TWO_RANK,
    EIGHT_RANK,
    NOMINATE_BASE,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    REVERSE_RANK,
    SKIP_RANK,
    SUITS,
    TERMINAL,
    action_label,
    card_code,
)
from .errors import IllegalAction
from .params import GameParams

_DEAL: Final = 0
_PLAY: Final = 1
_OVER: Final = 2

# The kinds of :attr:`CrazyEightsState.trace` entries (each entry: its kind, then the fields
# listed in the class doc). A flat list of ints, not a tuple per action with a string kind:
# compiled, an entry is a few appends of small ints and reading it no string comparison
# (the trace was a third of the conversion's instructions).
T_DEALER: Final = 0
T_DEAL: Final = 1
T_STARTER_BACK: Final = 2
T_STARTER: Final = 3
T_PLAY: Final = 4
T_SUIT: Final = 5
T_DRAW: Final = 6
T_DRAWN: Final = 7
T_PASS: Final = 8
T_RESHUFFLE: Final = 9


class CrazyEightsState:
    """OpenSpiel's ``CrazyEightsState``, ported field by field (names follow the C++).

    Hands and the stock are counts per card id (``hands[p][card]``, ``deck[card]``: 0, 1 or,
    with two packs, 2). :meth:`apply` refuses an action that is not legal (raising
    :class:`IllegalAction`), where OpenSpiel itself checks nothing. ``trace`` records what
    happened, for :func:`~maumau_log.openspiel.convert.history_to_events`, as one flat list
    of ints, each entry its kind (``T_*``) and then its fields: ``T_DEALER p``,
    ``T_DEAL p card``, ``T_STARTER_BACK card``, ``T_STARTER card``, ``T_PLAY p card``,
    ``T_SUIT p suit``, ``T_DRAW p effect voluntary`` (effect, voluntary: 0 or 1),
    ``T_DRAWN p card``, ``T_PASS p``, ``T_RESHUFFLE over total c0 ... c51`` (a reshuffle's
    ``total`` cards, ``c0 ... c51`` the copies of each card id that go back into the stock,
    ``over`` 1 when the game is over already). Every action of the history makes exactly one
    entry that is not ``T_RESHUFFLE`` (a reshuffle happens inside an action), so an entry's
    action index in the history is the number of such entries before it (no index
    stored per entry).

    Args:
        params: the game parameters.
    """

    def __init__(self, params: GameParams) -> None:
        n = params.players
        self.params = params
        self.n = n
        self.max_draw = params.max_draw_cards
        self.max_turns = params.max_turns
        self.special = params.use_special_cards
        self.reshuffle = params.reshuffle
        self.initial = 7 if n == 2 else 5
        self.decks = 2 if n > 5 else 1
        self.cards_left = self.decks * NUM_CARDS
        self.deck = [self.decks] * NUM_CARDS
        self.hands = [[0] * NUM_CARDS for _ in range(n)]
        self.hand_sizes = [0] * n  # not in the C++: the number of cards in each hand
        # not in the C++: the copies of each card id in all hands together, kept with the
        # hands (the reshuffle's count of the cards held, without a pass over every hand)
        self.in_hands = [0] * NUM_CARDS
        # not in the C++: the cards of each suit in each hand (``suit_held[p * 4 + suit]``),
        # kept with the hands (:meth:`any_card_playable` reads one count, not 13 cards)
        self.suit_held = [0] * (4 * n)
        self.returns = [0.0] * n
        self.phase = _DEAL
        self.current = -1
        self.dealer = -1
        self.redraw = False
        self.can_pass = False
        self.start_twos = False
        self.passes = 0
        self.twos_left = 0
        self.draws_before_play = 0
        self.plays = 0
        self.last_card = -1
        self.last_suit = -1
        self.nominate = False
        self.direction = 1
        self.history: list[int] = []
        self.applied = 0  # not in the C++: the actions applied (``len(history)``, see apply_all)
        self.trace: list[int] = []  # flat: see the class doc
        self.record_legal = False
        self.legal_log: dict[int, list[int]] = {}  # action index -> legal player actions

    # ask

    def current_player(self) -> int:
        """The player to act; ``CHANCE`` (-1) at a chance node, ``TERMINAL`` (-4) at the end."""
        if self.phase == _DEAL:
            return CHANCE
        if self.phase == _OVER:
            return TERMINAL
        return self.current

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase == _OVER

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is among OpenSpiel's ``LegalActions()`` now (constant time).

        The one statement of what OpenSpiel allows (``crazy_eights.cc``: ``DealLegalActions``,
        ``LegalActions``); :meth:`legal_actions` and :meth:`apply` use it.

        Args:
            action: an action id (any int; ids OpenSpiel does not know are never legal).
        Returns:
            True when OpenSpiel would list ``action`` as legal in this state.
        """
        phase = self.phase
        if phase == _PLAY:
            if self.nominate:  # an 8 was just played: its player names a suit
                return NOMINATE_BASE <= action < NUM_ACTIONS
            if 0 <= action < NUM_CARDS:
                if not self.hands[self.current][action]:
                    return False
                if self.twos_left:  # facing 2s: answer with a 2 until one of them is drawn
                    return not self.start_twos and action >> 2 == DRAW_TWO_RANK
                rank = action >> 2
                return (
                    rank == EIGHT_RANK
                    or action & 3 == self.last_suit
                    or rank == self.last_card >> 2
                )
            if action == DRAW:
                return bool(self.twos_left) or (
                    self.cards_left > 0 and self.draws_before_play != self.max_draw
                )
            if action == PASS:
                return self.can_pass or not self.cards_left
            return False
        if phase == _DEAL:
            if not self.applied:  # the first chance action picks the dealer
                return DEALER_BASE <= action < DEALER_BASE + self.n
            return 0 <= action < NUM_CARDS and self.deck[action] > 0
        return False

    def legal_actions(self) -> list[int]:
        """OpenSpiel's ``LegalActions()`` (chance outcomes at a chance node), sorted: every
        action :meth:`is_legal` allows (only the cards held, or left in the stock, can be)."""
        if self.phase == _DEAL:
            if not self.applied:
                return [DEALER_BASE + p for p in range(self.n)]
            candidates: Any = range(NUM_CARDS)
        elif self.phase == _PLAY:
            if self.nominate:
                candidates = range(NOMINATE_BASE, NUM_ACTIONS)
            else:
                hand = self.hands[self.current]
                candidates = [c for c in range(NUM_CARDS) if hand[c]]
                candidates += (DRAW, PASS)
        else:
            return []
        is_legal = self.is_legal
        return [a for a in candidates if is_legal(a)]

    def any_card_playable(self) -> bool:
        """Whether the player to act holds a card they may play now, outside a draw of 2s
        (the same answer as ``any(is_legal(c) for c in range(52))`` when ``twos_left`` is 0,
        in constant time: an 8, a card of the top card's rank, or of the suit to follow;
        the last from :attr:`suit_held`, the cards of each suit in each hand, kept with
        the hands)."""
        current = self.current
        if self.suit_held[current * 4 + self.last_suit]:  # a card of the suit to follow
            return True
        hand = self.hands[current]
        base = (self.last_card >> 2) * 4
        eights = EIGHT_RANK * 4
        # an 8, or a card of the top card's rank
        return any(hand[eights + k] or hand[base + k] for k in range(4))

    def why_illegal(self, action: int) -> str:
        """Why ``action`` is not legal now, in plain words (for error messages).

        Returns:
            ``"player 1's action 57 (Nominate suit S) is not legal: <why>; legal: <list>"``
            (or the chance action's equivalent); cards in the log's codes (``"Play AS"``,
            :func:`~maumau_log.openspiel.actions.action_label`), as ``<why>`` names them.
        """
        player = self.current_player()
        chance = player == CHANCE
        name = action_label(action, chance, self.n)
        legal = self.legal_actions()
        if player == TERMINAL:
            return f"{name}: the game is already over (the history goes on past its end)"
        shown = ", ".join(action_label(a, chance, self.n) for a in legal[:8])
        if len(legal) > 8:
            shown += f", ... ({len(legal) - 8} more)"
        if chance:
            if not self.applied:
                why = "the first chance action picks the dealer (52 + player)"
            elif not 0 <= action < NUM_CARDS:
                why = "a chance action here deals a card (0-51)"
            else:
                why = f"{card_code(action)} is not in the stock (it is in a hand or played)"
            return f"chance action {action} ({name}) is not legal: {why}; legal: {shown}"
        who = f"player {player}"
        if not 0 <= action < NUM_ACTIONS:
            why = "not an action id of crazy_eights (0-57)"
        elif self.nominate:
            why = "the 8 just played needs a suit nominated (54-57)"
        elif NOMINATE_BASE <= action < NUM_ACTIONS:
            why = "no 8 was just played, so there is no suit to nominate"
        elif action < NUM_CARDS and not self.hands[player][action]:
            why = f"{who} does not hold {card_code(action)}"
        elif self.twos_left and action != PASS:
            why = (
                f"facing {self.twos_left} cards to draw from 2s, only a 2 or a draw is allowed"
                if action < NUM_CARDS
                else "a draw already started"
            )
        elif action < NUM_CARDS:
            top = card_code(self.last_card)
            why = (
                f"{card_code(action)} matches neither the suit {SUITS[self.last_suit]} "
                f"nor the rank of {top}"
            )
        elif action == DRAW:
            why = (
                "the stock is empty"
                if not self.cards_left
                else f"already drew {self.draws_before_play} = max_draw_cards times this turn"
            )
        else:
            why = (
                "a player may pass only after max_draw_cards draws or with an empty stock "
                f"(drew {self.draws_before_play} of {self.max_draw}, stock {self.cards_left})"
                if not self.twos_left
                else "a pending draw from 2s must be drawn"
            )
        return f"{who}'s action {action} ({name}) is not legal: {why}; legal: {shown}"

    # do

    def apply(self, action: int) -> None:
        """Apply one action of the history (OpenSpiel's ``DoApplyAction``).

        Args:
            action: the next action id of the history.
        Raises:
            IllegalAction: the action is not legal here (``action_index`` set).
        """
        self.apply_all((action,))

    def apply_all(self, history: Sequence[int]) -> None:
        """Apply every action of ``history`` in turn, each as OpenSpiel's ``DoApplyAction``
        after :meth:`is_legal` allowed it.

        Args:
            history: action ids, continuing the history applied so far.
        Raises:
            IllegalAction: the first action that is not legal (``action_index`` set: its
                index in the whole history); the actions before it stay applied.
        """
        # the actions applied join ``history`` in one copy at the end (no append per
        # action); meanwhile ``applied`` is the history's length
        done, record = self.history, self.record_legal
        seq = history if isinstance(history, list) else list(history)
        size = len(seq)
        k = 0
        try:
            while k < size:
                action = seq[k]
                if not self.is_legal(action):
                    raise IllegalAction(self.why_illegal(action), action_index=self.applied)
                if self.phase == _PLAY:
                    if record:
                        self.legal_log[self.applied] = self.legal_actions()
                    self._apply_play(action)
                else:
                    self._apply_deal(action)
                self.applied += 1
                k += 1
        finally:
            done.extend(seq if k == size else seq[:k])

    def _next(self) -> int:
        return (self.current + self.direction + self.n) % self.n

    def _do_reshuffle(self) -> None:
        # every card not in a hand and not the top of the discard pile goes back (the C++
        # sums the hands here; ``in_hands`` is that sum, kept as the hands change)
        held = self.in_hands
        trace, deck, decks, top = self.trace, self.deck, self.decks, self.last_card
        trace.append(T_RESHUFFLE)
        trace.append(1 if self.phase == _OVER else 0)
        at = len(trace)
        trace.append(0)  # the total, set below
        total = shown = 0
        for card in range(NUM_CARDS):
            left = decks - held[card]
            if card == top:
                left -= 1
            deck[card] = left
            total += left
            if left > 0:
                shown += left
        if shown == total:  # no count below 0 (always, in a consistent state)
            trace.extend(deck)  # one copy of the 52 counts
        else:
            for left in deck:
                trace.append(left if left > 0 else 0)
        self.cards_left += total
        trace[at] = shown

    def _apply_deal(self, action: int) -> None:
        if not self.applied:
            self.dealer = action - DEALER_BASE
            self.current = (self.dealer + 1) % self.n
            self.trace.append(T_DEALER)
            self.trace.append(self.dealer)
            return
        dealt = self.applied  # history_.size() before this action
        current = self.current
        dealing = self.n * self.initial
        trace = self.trace
        if self.redraw:
            pass  # the starter: traced below, once it is known to stay
        elif dealt <= dealing:
            trace.append(T_DEAL)
            trace.append(current)
            trace.append(action)
        else:
            trace.append(T_DRAWN)
            trace.append(current)
            trace.append(action)
        deck, hand, sizes, held = self.deck, self.hands[current], self.hand_sizes, self.in_hands
        suits, suit = self.suit_held, current * 4 + (action & 3)
        self.cards_left -= 1
        deck[action] = deck[action] - 1
        hand[action] = hand[action] + 1
        sizes[current] = sizes[current] + 1
        held[action] = held[action] + 1
        suits[suit] = suits[suit] + 1
        if not self.cards_left and self.reshuffle:
            self._do_reshuffle()
        if self.redraw:
            hand[action] = hand[action] - 1
            sizes[current] = sizes[current] - 1
            held[action] = held[action] - 1
            suits[suit] = suits[suit] - 1
            rank = action >> 2
            if rank != EIGHT_RANK:
                trace.append(T_STARTER)
                trace.append(action)
                self.phase = _PLAY
                self.redraw = False
                self.last_card = action
                self.last_suit = action & 3
                if self.special:
                    if rank == SKIP_RANK:
                        self.current = (current + 2) % self.n
                        return
                    if rank == REVERSE_RANK:
                        self.current = (current - 1 + self.n) % self.n
                        self.direction *= -1
                        return
                    if rank == DRAW_TWO_RANK:
                        self.twos_left += 2
                        self.current = (current + 1) % self.n
                        return
                self.current = (current + 1) % self.n
                return
            trace.append(T_STARTER_BACK)
            trace.append(action)
            deck[action] = deck[action] + 1
            self.cards_left += 1
            return
        if dealt < dealing:
            self.current = (current + 1) % self.n
            return
        if dealt == dealing:
            self.redraw = True
            return
        if not self.cards_left:
            self.can_pass = True
        if self.start_twos:
            self.twos_left -= 1
            if not self.cards_left:
                if not self.twos_left:
                    self.passes += 1
                self.twos_left = 0
            if not self.twos_left:
                self.start_twos = False
                self.phase = _PLAY
                self.current = self._next()
            return
        self.draws_before_play += 1
        self.phase = _PLAY
        if not self.cards_left:
            self.draws_before_play = self.max_draw
        if self.draws_before_play == self.max_draw:
            self.can_pass = True

    def _apply_play(self, action: int) -> None:
        player = self.current
        trace = self.trace
        if action == PASS:
            trace.append(T_PASS)
            trace.append(player)
            self.passes = self.passes + 1 if not self.cards_left else 0
            if self.passes == self.n + 1:
                self.phase = _OVER
                self._score_up()
                return
            if self.max_draw == self.draws_before_play:
                self.draws_before_play = 0
            self.current = self._next()
            if self.cards_left:
                self.can_pass = False
            return
        self.passes = 0
        if action == DRAW:
            effect = self.twos_left > 0
            voluntary = not effect and self.any_card_playable()
            trace.append(T_DRAW)
            trace.append(player)
            trace.append(1 if effect else 0)
            trace.append(1 if voluntary else 0)
            self.phase = _DEAL
            if effect:
                self.start_twos = True
            return
        if self.nominate:
            trace.append(T_SUIT)
            trace.append(player)
            trace.append(action - NOMINATE_BASE)
            self.last_suit = action - NOMINATE_BASE
            self.current = self._next()
            self.nominate = False
            return
        trace.append(T_PLAY)
        trace.append(player)
        trace.append(action)
        self.plays += 1
        self.can_pass = False
        self.draws_before_play = 0
        hand, sizes, held, suits = (
            self.hands[player],
            self.hand_sizes,
            self.in_hands,
            self.suit_held,
        )
        hand[action] = hand[action] - 1
        left = sizes[player] - 1
        sizes[player] = left
        held[action] = held[action] - 1
        suit = player * 4 + (action & 3)
        suits[suit] = suits[suit] - 1
        if not left or self.plays >= self.max_turns:
            self.phase = _OVER
            self._score_up()
        self.last_card = action
        self.last_suit = action & 3
        if not self.cards_left and self.reshuffle:
            self._do_reshuffle()
        rank = action >> 2
        if rank == EIGHT_RANK:
            self.nominate = True
            return
        if self.special:
            if rank == SKIP_RANK:
                self.current = (self.current + 2 * self.direction + self.n) % self.n
                return
            if rank == REVERSE_RANK:
                self.direction *= -1
                self.current = self._next()
                return
            if rank == DRAW_TWO_RANK:
                if self.cards_left:
                    self.twos_left += 2
                self.current = self._next()
                return
        self.current = self._next()

    def _score_up(self) -> None:
        """OpenSpiel's ``ScoreUp``, verbatim: note ``card + 2`` (the card id, not the rank)
        for number cards, where its documentation says face value (3C, id 4, costs 6;
        10H, id 34, costs 36). :func:`documented_penalty` is the documented rule."""
        for p in range(self.n):
            hand = self.hands[p]
            charge = 0  # exact in an int, subtracted once (the same float: all are integers)
            for card in range(NUM_CARDS):
                k = hand[card]
                if not k:
                    continue
                rank = card // 4
                if rank == EIGHT_RANK:
                    charge += 50 * k
                elif rank >= 9:
                    charge += 10 * k
                else:
                    charge += (card + 2) * k
            if charge:
                self.returns[p] -= charge


def documented_penalty(hand: list[int] | Counter[int]) -> int:
    """A hand's points by OpenSpiel's documented rule (8 = 50, J Q K A = 10, others face
    value), which is also the ``crazy-eights`` preset's ``points`` (PRESETS.md).

    Args:
        hand: card ids (a list, one entry per card) or a Counter of card id -> copies.
    Returns:
        The points, >= 0 (3C + KD -> 13).
    """
    items = hand.items() if isinstance(hand, Counter) else Counter(hand).items()
    total = 0
    for card, k in items:
        rank = card // 4
        total += k * (50 if rank == EIGHT_RANK else 10 if rank >= 9 else rank + 2)
    return total
