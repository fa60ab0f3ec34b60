"""Import OpenSpiel ``crazy_eights`` game histories as canonical logs (issue 4).

OpenSpiel users keep a game as its history: the list of action ids, chance actions
included, with the game string that loaded the game (``crazy_eights(players=3,...)``). This
module decodes those histories with its own code (``pyspiel`` is not needed at run time):
:class:`CrazyEightsState` is a line-by-line port of OpenSpiel's
``open_spiel/games/crazy_eights/crazy_eights.cc`` (open-spiel 2.0.2), checked against the
real ``pyspiel`` by ``tests/test_openspiel.py`` and ``bench/openspiel_diff.py``.

Action ids (OpenSpiel's, verified with ``State.action_to_string``):

- player actions: ``0``-``51`` play a card, card id = rank * 4 + suit with ranks 2..A
  (``0`` = 2C, ``1`` = 2D, ``4`` = 3C, ``51`` = AS) and suits C D H S; ``52`` draw;
  ``53`` pass; ``54``-``57`` nominate the suit C, D, H, S after an 8;
- chance actions: the first one, ``52 + p``, makes player ``p`` the dealer; every later one,
  ``0``-``51``, is the card dealt, turned as the starter, or drawn.

The stock order: OpenSpiel keeps the stock as a multiset and draws a card by a chance action,
so a history fixes the order of only the cards that are drawn. ``deal.stock`` (and each
``reshuffle.stock``) lists the cards in the order the later draws take them, then the cards
never drawn in canonical order (card id order: 2C 2D 2H 2S 3C ...). Every draw is then
checked against the stock top. Starters that were 8s go back into the stock (OpenSpiel
puts them back and turns again); they are listed in ``game.meta.openspiel_redealt``.

A game becomes one log game: the header (``ruleset: "crazy-eights"``, players ``p0`` ..
``p{n-1}`` = OpenSpiel's player ids, in OpenSpiel's order of play, the dealer, and the game
parameters as options), the deal, one event per player action (a draw action and the
chance cards it takes are one ``draw`` event; a draw of a pending sum that a reshuffle
splits is two), a ``reshuffle`` event where OpenSpiel reshuffles, and ``round_end`` with the
winner, every hand and OpenSpiel's returns (as ``scores``, or only as the extra field
``openspiel_returns``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .events import FORMAT_VERSION

# -- OpenSpiel's constants (crazy_eights.h / .cc) --------------------------------------------

NUM_CARDS = 52
DRAW = 52
PASS = 53
NOMINATE_BASE = 54
DEALER_BASE = 52
NUM_ACTIONS = 58
EIGHT_RANK = 6
SKIP_RANK = 10
REVERSE_RANK = 12
DRAW_TWO_RANK = 0
CHANCE = -1
TERMINAL = -4
MAX_PLAYERS = 15

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = "CDHS"
_RANK_CHARS = "23456789TJQKA"

_DEAL, _PLAY, _OVER = 0, 1, 2


def card_code(card: int) -> str:
    """The log's code of OpenSpiel card id ``card`` (``0`` -> ``"2C"``, ``51`` -> ``"AS"``)."""
    return RANKS[card // 4] + SUITS[card % 4]


def action_name(action: int, chance: bool, players: int = MAX_PLAYERS) -> str:
    """OpenSpiel's ``ActionToString`` for ``action`` (``"Play C2"``, ``"Deal HT"``, ...)."""
    if chance:
        if 0 <= action < NUM_CARDS:
            return f"Deal {SUITS[action % 4]}{_RANK_CHARS[action // 4]}"
        if DEALER_BASE <= action < DEALER_BASE + players:
            return f"Decide Player {action - DEALER_BASE} to be the dealer"
        return f"invalid chance action {action}"
    if 0 <= action < NUM_CARDS:
        return f"Play {SUITS[action % 4]}{_RANK_CHARS[action // 4]}"
    if action == DRAW:
        return "Draw"
    if action == PASS:
        return "Pass"
    if NOMINATE_BASE <= action < NUM_ACTIONS:
        return f"Nominate suit {SUITS[action - NOMINATE_BASE]}"
    return f"invalid action {action}"


# -- errors ----------------------------------------------------------------------------------


class OpenSpielImportError(ValueError):
    """A game that cannot be imported: not ``crazy_eights``, bad parameters, an action
    OpenSpiel would not allow, or unreadable input. ``str()`` gives the located message.

    Attributes:
        file: the input file as given.
        line: 1-based line of the offending text (the action's line in the serialized
            format, the JSON line), or None.
        game: 1-based number of the game in the file, or None.
        action_index: index of the offending action in the history (0 = the dealer
            choice), or None.
        reason: the plain explanation.
    """

    def __init__(
        self,
        reason: str,
        file: str = "<input>",
        line: int | None = None,
        game: int | None = None,
        action_index: int | None = None,
    ) -> None:
        self.reason = reason
        self.file = file
        self.line = line
        self.game = game
        self.action_index = action_index
        super().__init__(self._text())

    def _text(self) -> str:
        where = self.file + (f":{self.line}" if self.line is not None else "")
        parts = [where]
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.action_index is not None:
            parts.append(f"action {self.action_index}")
        return ", ".join(parts) + f": {self.reason}"

    def located(self, file: str, line: int | None, game: int | None) -> OpenSpielImportError:
        """The same error with its place filled in (the line only where none is known)."""
        return OpenSpielImportError(
            self.reason, file, self.line if self.line is not None else line, game,
            self.action_index,
        )  # fmt: skip


class IllegalAction(OpenSpielImportError):
    """An action that is not among OpenSpiel's legal actions in that state."""


# -- game parameters -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameParams:
    """The parameters of OpenSpiel's ``crazy_eights`` (its defaults)."""

    players: int = 5
    max_draw_cards: int = 5
    max_turns: int = 100
    use_special_cards: bool = False
    reshuffle: bool = False

    def game_string(self) -> str:
        """OpenSpiel's canonical game string: every parameter, sorted by name."""
        vals = {
            "max_draw_cards": str(self.max_draw_cards),
            "max_turns": str(self.max_turns),
            "players": str(self.players),
            "reshuffle": str(self.reshuffle),
            "use_special_cards": str(self.use_special_cards),
        }
        return "crazy_eights(" + ",".join(f"{k}={v}" for k, v in sorted(vals.items())) + ")"

    def options(self) -> dict[str, Any]:
        """The log header's ``options`` for these parameters (over the ``crazy-eights``
        preset; every mapped option is written, so a log says its rules by itself)."""
        opts: dict[str, Any] = {
            "max_draws": self.max_draw_cards,
            "empty_stock": "reshuffle" if self.reshuffle else "pass",
            "max_plays": self.max_turns,
        }
        if self.players > 5:
            opts["packs"] = 2
        if self.use_special_cards:
            opts.update(
                draw={"2": 2},
                draw_answer="same_rank",
                draw_ends_turn=True,
                skip=["Q"],
                reverse=["A"],
                reverse_two_players="noop",
            )
        return opts


_PARAM_TYPES: dict[str, type] = {
    "players": int,
    "max_draw_cards": int,
    "max_turns": int,
    "use_special_cards": bool,
    "reshuffle": bool,
}
_GAME_RE = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


def parse_game_string(text: str) -> GameParams:
    """Parse an OpenSpiel game string such as ``crazy_eights(players=3,reshuffle=True)``.

    Raises:
        OpenSpielImportError: another game, an unknown parameter, a value of the wrong type,
            or a value this importer cannot map (``players`` outside 2..15,
            ``max_draw_cards`` or ``max_turns`` below 1).
    """
    m = _GAME_RE.match(text)
    if m is None:
        raise OpenSpielImportError(f"not an OpenSpiel game string: {text.strip()[:80]!r}")
    name, body = m.group(1), m.group(2)
    if name != "crazy_eights":
        raise OpenSpielImportError(
            f"the game is {name!r}, not 'crazy_eights': only crazy_eights histories import"
        )
    values: dict[str, Any] = {}
    for item in (body or "").split(","):
        if not item.strip():
            continue
        key, sep, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not sep or key not in _PARAM_TYPES:
            raise OpenSpielImportError(
                f"unknown parameter {key!r} of crazy_eights; its parameters are "
                + ", ".join(sorted(_PARAM_TYPES))
            )
        if _PARAM_TYPES[key] is bool:
            if raw.lower() not in ("true", "false"):
                raise OpenSpielImportError(f"parameter {key} must be True or False, not {raw!r}")
            values[key] = raw.lower() == "true"
        else:
            if not re.fullmatch(r"-?\d+", raw):
                raise OpenSpielImportError(f"parameter {key} must be an integer, not {raw!r}")
            values[key] = int(raw)
    params = GameParams(**values)
    if not 2 <= params.players <= MAX_PLAYERS:
        raise OpenSpielImportError(
            f"players = {params.players}: crazy_eights takes 2 to {MAX_PLAYERS} players"
        )
    if params.max_draw_cards < 1:
        raise OpenSpielImportError(
            f"max_draw_cards = {params.max_draw_cards}: a player with no card to play would "
            "have no legal action; the importer needs at least 1"
        )
    if params.max_turns < 1:
        raise OpenSpielImportError(
            f"max_turns = {params.max_turns}: the importer needs at least 1 (max_plays >= 1)"
        )
    return params


# -- the port of CrazyEightsState ------------------------------------------------------------


class CrazyEightsState:
    """OpenSpiel's ``CrazyEightsState``, ported field by field (names follow the C++).

    :meth:`apply` refuses an action not in :meth:`legal_actions` (raising
    :class:`IllegalAction`), where OpenSpiel itself checks nothing. ``trace`` records what
    happened, for :func:`history_to_events`: ``("dealer", p)``, ``("deal", p, card)``,
    ``("starter_back", card)``, ``("starter", card)``, ``("play", p, card)``,
    ``("suit", p, suit)``, ``("draw", p, effect, voluntary)``, ``("drawn", p, card)``,
    ``("pass", p)``, ``("reshuffle", cards, over)``.
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
        self.trace: list[tuple[Any, ...]] = []
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

    def legal_actions(self) -> list[int]:
        """OpenSpiel's ``LegalActions()`` (chance outcomes at a chance node), sorted."""
        if self.phase == _DEAL:
            if not self.history:
                return [DEALER_BASE + p for p in range(self.n)]
            return [c for c in range(NUM_CARDS) if self.deck[c]]
        if self.phase == _PLAY:
            return self._play_legal()
        return []

    def _play_legal(self) -> list[int]:
        if self.nominate:
            return [NOMINATE_BASE + s for s in range(4)]
        out: list[int] = []
        if self.can_pass or not self.cards_left:
            out.append(PASS)
        hand = self.hands[self.current]
        if self.twos_left:
            out.append(DRAW)
            if not self.start_twos:
                out.extend(DRAW_TWO_RANK * 4 + s for s in range(4) if hand[DRAW_TWO_RANK * 4 + s])
        else:
            last_rank = self.last_card // 4
            for card in range(NUM_CARDS):
                if hand[card] and (
                    card // 4 == EIGHT_RANK or card % 4 == self.last_suit or card // 4 == last_rank
                ):
                    out.append(card)
            if self.cards_left and self.draws_before_play != self.max_draw:
                out.append(DRAW)
        return sorted(out)

    def why_illegal(self, action: int) -> str:
        """Why ``action`` is not legal now, in plain words (for error messages)."""
        player = self.current_player()
        chance = player == CHANCE
        name = action_name(action, chance, self.n)
        legal = self.legal_actions()
        if player == TERMINAL:
            return f"{name}: the game is already over (the history goes on past its end)"
        shown = ", ".join(action_name(a, chance, self.n) for a in legal[:8])
        if len(legal) > 8:
            shown += f", ... ({len(legal) - 8} more)"
        if chance:
            if not self.history:
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
            why = f"{player} does not hold {card_code(action)}"
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

        Raises:
            IllegalAction: the action is not legal here (``action_index`` set).
        """
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(self.why_illegal(action), action_index=len(self.history))
        if self.record_legal and self.phase == _PLAY:
            self.legal_log[len(self.history)] = legal
        if self.phase == _DEAL:
            self._apply_deal(action)
        else:
            self._apply_play(action)
        self.history.append(action)

    def _next(self) -> int:
        return (self.current + self.direction + self.n) % self.n

    def _do_reshuffle(self) -> None:
        cards: list[int] = []
        for card in range(NUM_CARDS):
            left = self.decks - sum(h[card] for h in self.hands)
            if card == self.last_card:
                left -= 1
            self.deck[card] = left
            self.cards_left += left
            cards.extend([card] * left)
        self.trace.append(("reshuffle", cards, self.phase == _OVER))

    def _apply_deal(self, action: int) -> None:
        if not self.history:
            self.dealer = action - DEALER_BASE
            self.current = (self.dealer + 1) % self.n
            self.trace.append(("dealer", self.dealer))
            return
        dealt = len(self.history)  # history_.size() before this action
        if self.redraw:
            kind = "starter"
        elif dealt <= self.n * self.initial:
            kind = "deal"
        else:
            kind = "drawn"
        if kind != "starter":
            self.trace.append((kind, self.current, action))
        self.cards_left -= 1
        self.deck[action] -= 1
        self.hands[self.current][action] += 1
        if not self.cards_left and self.reshuffle:
            self._do_reshuffle()
        if self.redraw:
            rank = action // 4
            if rank != EIGHT_RANK:
                self.trace.append(("starter", action))
                self.phase = _PLAY
                self.redraw = False
                self.last_card = action
                self.last_suit = action % 4
                self.hands[self.current][action] -= 1
                if self.special:
                    if rank == SKIP_RANK:
                        self.current = (self.current + 2) % self.n
                        return
                    if rank == REVERSE_RANK:
                        self.current = (self.current - 1 + self.n) % self.n
                        self.direction *= -1
                        return
                    if rank == DRAW_TWO_RANK:
                        self.twos_left += 2
                        self.current = (self.current + 1) % self.n
                        return
                self.current = (self.current + 1) % self.n
                return
            self.trace.append(("starter_back", action))
            self.deck[action] += 1
            self.cards_left += 1
            self.hands[self.current][action] -= 1
            return
        if dealt < self.n * self.initial:
            self.current = (self.current + 1) % self.n
            return
        if dealt == self.n * self.initial:
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
        if action == PASS:
            self.trace.append(("pass", player, len(self.history)))
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
            voluntary = not effect and any(a < NUM_CARDS for a in self._play_legal())
            self.trace.append(("draw", player, effect, voluntary, len(self.history)))
            self.phase = _DEAL
            if self.twos_left:
                self.start_twos = True
            return
        if self.nominate:
            self.trace.append(("suit", player, action - NOMINATE_BASE, len(self.history)))
            self.last_suit = action - NOMINATE_BASE
            self.current = self._next()
            self.nominate = False
            return
        self.trace.append(("play", player, action, len(self.history)))
        self.plays += 1
        self.can_pass = False
        self.draws_before_play = 0
        self.hands[player][action] -= 1
        if not any(self.hands[player]) or self.plays >= self.max_turns:
            self.phase = _OVER
            self._score_up()
        self.last_card = action
        self.last_suit = action % 4
        if not self.cards_left and self.reshuffle:
            self._do_reshuffle()
        rank = action // 4
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
        for number cards, where its documentation says face value."""
        for p in range(self.n):
            for card in range(NUM_CARDS):
                k = self.hands[p][card]
                if not k:
                    continue
                rank = card // 4
                if rank == EIGHT_RANK:
                    self.returns[p] -= 50 * k
                elif rank >= 9:
                    self.returns[p] -= 10 * k
                else:
                    self.returns[p] -= (card + 2) * k


def documented_penalty(hand: list[int] | Counter[int]) -> int:
    """A hand's points by OpenSpiel's documented rule (8 = 50, J Q K A = 10, others face
    value), from card ids."""
    items = hand.items() if isinstance(hand, Counter) else Counter(hand).items()
    total = 0
    for card, k in items:
        rank = card // 4
        total += k * (50 if rank == EIGHT_RANK else 10 if rank >= 9 else rank + 2)
    return total


# -- conversion ------------------------------------------------------------------------------


@dataclass
class _Segment:
    """One run of the stock: after the deal, or after a reshuffle (a multiset)."""

    cards: Counter[int]
    drawn: list[int] = field(default_factory=list)
    target: list[str] | None = None  # the event list to fill with the order

    def order(self) -> list[str]:
        rest = self.cards - Counter(self.drawn)
        return [card_code(c) for c in self.drawn] + [card_code(c) for c in sorted(rest.elements())]


def history_to_events(
    params: GameParams,
    history: list[int],
    game_id: str = "openspiel-1",
    returns: str = "scores",
    partial: bool = False,
    meta: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Convert one OpenSpiel ``crazy_eights`` history into log events (dicts, log order).

    Args:
        params: the game parameters.
        history: the action ids, chance actions included, from the dealer choice on.
        game_id: the header's ``game_id``.
        returns: ``"scores"`` writes OpenSpiel's returns as ``round_end.scores`` (and as
            ``openspiel_returns``); ``"field"`` only as the extra field ``openspiel_returns``,
            which the validator ignores.
        partial: a history that stops before the game is over ends with ``abandon`` and a
            ``round_end`` with no winner instead of being refused.
        meta: extra entries for ``game.meta``.
    Returns:
        The events, header first.
    Raises:
        OpenSpielImportError: an illegal action (``action_index`` set), an empty or
            unfinished history (unless ``partial``).
    """
    state = CrazyEightsState(params)
    for a in history:
        state.apply(a)
    if not state.history:
        raise OpenSpielImportError("the history is empty")
    if not state.is_terminal() and not partial:
        who = state.current_player()
        raise OpenSpielImportError(
            f"the history ends after {len(history)} actions before the game is over "
            f"({'a chance node' if who == CHANCE else f'player {who} to act'}); "
            "use --partial to import it as an abandoned round",
            action_index=len(history),
        )
    return _events_from_trace(state, game_id, returns, meta)[0]


def _events_from_trace(
    state: CrazyEightsState, game_id: str, returns: str, meta: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The events of a replayed port, and for each event the index of the player action
    that made it (None for the header, deal, reshuffles and the end)."""
    n = state.n
    names = [f"p{i}" for i in range(n)]
    events: list[dict[str, Any]] = []
    hands: list[list[str]] = [[] for _ in range(n)]
    redealt: list[str] = []
    starter: str | None = None
    segments: list[_Segment] = []
    seg: _Segment | None = None
    held: list[dict[str, Any]] = []  # a reshuffle waiting for the suit of the 8 just played
    awaiting_suit = False
    open_draw: dict[str, Any] | None = None
    origin: dict[int, int] = {}  # id(event) -> action index
    header: dict[str, Any] = {
        "type": "game",
        "format": FORMAT_VERSION,
        "game_id": game_id,
        "ruleset": "crazy-eights",
        "options": state.params.options(),
        "players": names,
        "dealer": names[state.dealer] if state.dealer >= 0 else None,
        "meta": {"source": "openspiel", "openspiel_game": state.params.game_string()},
    }
    if meta:
        header["meta"].update(meta)
    events.append(header)

    for entry in state.trace:
        kind = entry[0]
        if kind == "dealer":
            continue
        if kind == "deal":
            hands[entry[1]].append(card_code(entry[2]))
            continue
        if kind == "starter_back":
            redealt.append(card_code(entry[1]))
            continue
        if kind == "starter":
            starter = card_code(entry[1])
            # the stock after the deal: the pack less the hands and the starter
            pack = Counter({c: state.decks for c in range(NUM_CARDS)})
            for p in range(n):
                for code in hands[p]:
                    pack[_card_id(code)] -= 1
            pack[entry[1]] -= 1
            deal: dict[str, Any] = {
                "type": "deal",
                "hands": {names[p]: list(hands[p]) for p in range(n)},
                "starter": starter,
                "stock": [],
            }
            seg = _Segment(+pack, target=deal["stock"])
            segments.append(seg)
            events.append(deal)
            continue
        if kind == "play":
            open_draw = None
            card = card_code(entry[2])
            events.append({"type": "play", "player": names[entry[1]], "cards": [card]})
            origin[id(events[-1])] = entry[3]
            awaiting_suit = entry[2] // 4 == EIGHT_RANK
            continue
        if kind == "suit":
            events.append({"type": "suit", "player": names[entry[1]], "suit": SUITS[entry[2]]})
            origin[id(events[-1])] = entry[3]
            awaiting_suit = False
            events.extend(held)
            held = []
            continue
        if kind == "pass":
            open_draw = None
            events.append({"type": "pass", "player": names[entry[1]]})
            origin[id(events[-1])] = entry[2]
            continue
        if kind == "draw":
            reason = "effect" if entry[2] else ("voluntary" if entry[3] else "no_play")
            open_draw = {"type": "draw", "player": names[entry[1]], "cards": [], "reason": reason}
            events.append(open_draw)
            origin[id(open_draw)] = entry[4]
            continue
        if kind == "drawn":
            assert open_draw is not None and seg is not None
            open_draw["cards"].append(card_code(entry[2]))
            seg.drawn.append(entry[2])
            continue
        if kind == "reshuffle":
            cards, over = entry[1], entry[2]
            if not cards or over:
                continue  # nothing to reshuffle (the log needs none), or after the end
            seg = _Segment(Counter(cards), target=[])
            segments.append(seg)
            ev = {"type": "reshuffle", "stock": seg.target}
            if open_draw is not None and open_draw["cards"]:
                # the next cards of this draw come after the reshuffle: a new draw event
                open_draw = dict(open_draw, cards=[])
                events.append(ev)
                events.append(open_draw)
                continue
            if awaiting_suit:
                held.append(ev)
            else:
                events.append(ev)
            continue
    # drop a trailing draw event left empty (a split that took nothing after the reshuffle)
    events = [e for e in events if not (e["type"] == "draw" and not e["cards"])]
    for s in segments:
        assert s.target is not None
        s.target.extend(s.order())
    if redealt:
        header["meta"]["openspiel_redealt"] = redealt
    if starter is None:
        raise OpenSpielImportError("the history ends before the starter card is turned")
    final = [[card_code(c) for c in range(NUM_CARDS) for _ in range(h[c])] for h in state.hands]
    if not state.is_terminal():
        events.append({"type": "abandon", "reason": "the OpenSpiel history ends here"})
        events.append({"type": "round_end", "winner": None, "hands": _hands(names, final)})
        return events, [origin.get(id(e)) for e in events]
    winners = [names[p] for p in range(n) if not final[p]]
    end: dict[str, Any] = {
        "type": "round_end",
        "winner": winners[0] if winners else None,
        "hands": _hands(names, final),
    }
    rets = {names[p]: _num(state.returns[p]) for p in range(n)}
    if returns == "scores":
        end["scores"] = rets
    end["openspiel_returns"] = rets
    events.append(end)
    return events, [origin.get(id(e)) for e in events]


def _hands(names: list[str], final: list[list[str]]) -> dict[str, list[str]]:
    return {names[p]: final[p] for p in range(len(names))}


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


_CODE_TO_ID = {card_code(c): c for c in range(NUM_CARDS)}


def _card_id(code: str) -> int:
    return _CODE_TO_ID[code]


# -- input files -----------------------------------------------------------------------------


@dataclass
class SourceGame:
    """One game read from an input file, before decoding.

    Attributes:
        number: 1-based number of the game in the file.
        line: the line where the game starts.
        game: the game string.
        history: the action ids.
        lines: the line of each action (the same line for every action of a JSON line).
        game_id: an id given in the input (a JSON line's ``game_id`` or ``id``), or None.
    """

    number: int
    line: int
    game: str
    history: list[int]
    lines: list[int]
    game_id: str | None = None


def read_source(path: str | Path) -> Iterator[SourceGame | OpenSpielImportError]:
    """Read the games of one input file: the text of ``pyspiel.serialize_game_and_state``
    (one or several, each from its ``[Meta]`` or ``[Game]`` section), or JSON lines of
    ``{"game": "<game string>", "history": [action ids]}``.

    Yields:
        A :class:`SourceGame` per game, or a located :class:`OpenSpielImportError` for a
        game that cannot be read (the others are still read).
    Raises:
        OpenSpielImportError: the file cannot be opened or is not text.
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise OpenSpielImportError(f"cannot read: {exc.strerror}", name) from exc
    except UnicodeDecodeError as exc:
        raise OpenSpielImportError("not a UTF-8 text file", name) from exc
    lines = text.splitlines()
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if not first:
        raise OpenSpielImportError("the file holds no game", name)
    if first.startswith("{"):
        yield from _read_json_lines(name, lines)
    else:
        yield from _read_serialized(name, lines)


def _read_json_lines(name: str, lines: list[str]) -> Iterator[SourceGame | OpenSpielImportError]:
    number = 0
    for i, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        number += 1
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield OpenSpielImportError(f"not valid JSON: {exc.msg}", name, i, number)
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("game"), str):
            yield OpenSpielImportError(
                'expected an object {"game": "<game string>", "history": [<action ids>]}',
                name, i, number,
            )  # fmt: skip
            continue
        hist = obj.get("history")
        if not isinstance(hist, list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in hist
        ):
            yield OpenSpielImportError('"history" must be a list of integer action ids',
                                       name, i, number)  # fmt: skip
            continue
        gid = obj.get("game_id", obj.get("id"))
        yield SourceGame(number, i, obj["game"], list(hist), [i] * len(hist),
                         str(gid) if gid is not None else None)  # fmt: skip


def _read_serialized(name: str, lines: list[str]) -> Iterator[SourceGame | OpenSpielImportError]:
    """Parse ``SerializeGameAndState`` text: ``[Meta]`` (``Version: 1``), ``[Game]`` (one
    game string), ``[State]`` (one action id per line); ``#`` lines are comments."""
    number = 0
    section: str | None = None
    cur: SourceGame | None = None
    bad: OpenSpielImportError | None = None

    def close() -> Iterator[SourceGame | OpenSpielImportError]:
        if bad is not None:
            yield bad
        elif cur is not None:
            yield cur

    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        if s in ("[Meta]", "[Game]", "[State]"):
            if s == "[Meta]" or (s == "[Game]" and section != "[Meta]"):
                yield from close()
                number += 1
                cur, bad = None, None
            elif section is None and s == "[State]":
                number += 1
            section = s
            if s == "[State]" and cur is None and bad is None:
                bad = OpenSpielImportError("a [State] section with no [Game] before it",
                                           name, i, number)  # fmt: skip
            continue
        if section is None:
            bad = bad or OpenSpielImportError(
                "not an OpenSpiel serialization ([Meta] / [Game] / [State] sections) nor "
                "JSON lines",
                name, i, max(number, 1),
            )  # fmt: skip
            yield bad
            return
        if section == "[Meta]":
            if s.startswith("Version:") and s.split(":", 1)[1].strip() != "1":
                bad = bad or OpenSpielImportError(
                    f"serialization {s!r}: this importer reads version 1", name, i, number
                )
            continue
        if section == "[Game]":
            if cur is not None:
                bad = bad or OpenSpielImportError("[Game] holds more than one line",
                                                  name, i, number)  # fmt: skip
                continue
            cur = SourceGame(number, i, s, [], [])
            continue
        # [State]
        if bad is not None or cur is None:
            continue
        if not re.fullmatch(r"-?\d+", s):
            bad = OpenSpielImportError(
                f"[State] line {s[:40]!r} is not an action id",
                name, i, number, len(cur.history),
            )  # fmt: skip
            continue
        cur.history.append(int(s))
        cur.lines.append(i)
    yield from close()


def convert_source(
    src: SourceGame,
    file: str,
    returns: str = "scores",
    partial: bool = False,
) -> list[dict[str, Any]]:
    """Decode one :class:`SourceGame` into log events.

    Raises:
        OpenSpielImportError: located at the file, the game and (for an action) its line
            and index.
    """
    stem = Path(file).name.split(".")[0] or "openspiel"
    gid = src.game_id or f"{stem}-{src.number}"
    try:
        params = parse_game_string(src.game)
        return history_to_events(
            params, src.history, gid, returns, partial,
            meta={"openspiel_file": Path(file).name, "openspiel_game_number": src.number},
        )  # fmt: skip
    except OpenSpielImportError as exc:
        line = src.line
        if exc.action_index is not None and exc.action_index < len(src.lines):
            line = src.lines[exc.action_index]
        elif exc.action_index is not None and src.lines:
            line = src.lines[-1]
        raise exc.located(file, line, src.number) from None


def dumps_event(event: dict[str, Any]) -> str:
    """One event as a compact JSON line (``type`` first, as the log writer does)."""
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


# -- the differential check against the engine ----------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """Where the engine and OpenSpiel part ways on one game.

    Attributes:
        kind: ``"legal_actions"`` (the two allow different actions at a player's decision),
            ``"violation"`` (the engine rejects an event OpenSpiel played) or
            ``"not_finished"`` (the log ends while the engine's round goes on).
        event_index: the event's index in the log game (header = 0).
        action_index: the OpenSpiel history index of the player action, where there is one.
        message: what differs.
    """

    kind: str
    event_index: int | None
    action_index: int | None
    message: str

    def __str__(self) -> str:
        return (
            f"{self.kind} at event {self.event_index} (action {self.action_index}): {self.message}"
        )


def engine_disagreement(params: GameParams, history: list[int]) -> Disagreement | None:
    """Replay one OpenSpiel game through the engine, comparing at every player decision the
    engine's legal actions with OpenSpiel's (as this module's port computes them), then every
    event, then the end; return the first difference, or None when the two agree throughout.

    The scores are left out (``returns="field"``): OpenSpiel's returns break its documented
    rule (see :meth:`CrazyEightsState._score_up`); :func:`returns_explained` checks them.
    """
    from .engine import FINISHED, Engine, RuleViolation
    from .events import Game, decode_event
    from .rules import resolve

    state = CrazyEightsState(params)
    state.record_legal = True
    for a in history:
        state.apply(a)
    events, origins = _events_from_trace(state, "differential", "field", None)
    decoded = [decode_event(dumps_event(e)) for e in events]
    header = decoded[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    for i in range(1, len(decoded)):
        org = origins[i]
        if org is not None:
            want = set(state.legal_log[org])
            got = _engine_action_ids(engine)
            if want != got:
                return Disagreement(
                    "legal_actions", i, org,
                    f"OpenSpiel allows {_names(want)}; the engine allows {_names(got)}",
                )  # fmt: skip
        try:
            engine.apply(decoded[i])
        except RuleViolation as rv:
            return Disagreement("violation", i, org, f"{rv.code}: {rv.message}")
    if engine.phase != FINISHED:
        return Disagreement("not_finished", len(decoded), None, f"engine phase {engine.phase}")
    return None


def _engine_action_ids(engine: Any) -> set[int]:
    ids: set[int] = set()
    for act in engine.legal_actions():
        if act.kind == "play":
            ids.add(_card_id(act.card))
        elif act.kind == "draw":
            ids.add(DRAW)
        elif act.kind == "pass":
            ids.add(PASS)
        elif act.kind == "suit":
            ids.add(NOMINATE_BASE + SUITS.index(act.card))
        else:
            ids.add(-1)  # round_end / reshuffle: not a player decision
    return ids


def _names(ids: set[int]) -> str:
    return "{" + ", ".join(action_name(a, False) if a >= 0 else "end" for a in sorted(ids)) + "}"


def returns_explained(params: GameParams, history: list[int]) -> tuple[bool, bool]:
    """Check OpenSpiel's returns of a finished game against the documented rule.

    Returns:
        ``(documented, buggy)``: whether the returns equal minus the documented hand points
        (8 = 50, J Q K A = 10, others face value), and whether they equal OpenSpiel's code
        (``card id + 2`` for a number card); the second is always expected to hold.
    """
    state = CrazyEightsState(params)
    for a in history:
        state.apply(a)
    docs = [-documented_penalty(Counter({c: k for c, k in enumerate(h) if k})) for h in state.hands]
    buggy = [0.0] * state.n
    for p, h in enumerate(state.hands):
        for c, k in enumerate(h):
            r = c // 4
            buggy[p] -= k * (50 if r == EIGHT_RANK else 10 if r >= 9 else c + 2)
    return docs == state.returns, buggy == state.returns


def pyspiel_random_game(
    pyspiel: Any, params: GameParams, rng: Any, check: bool = True
) -> tuple[list[int], list[float]]:
    """Play one game with the real OpenSpiel, every action (chance ones too) drawn uniformly
    from its legal actions by ``rng`` (a ``random.Random``); for tests and the bench.

    Args:
        pyspiel: the ``pyspiel`` module (passed in: this module never imports it).
        params: the game parameters.
        rng: the random source.
        check: also replay the port beside it and compare, at every step, the current
            player and the legal actions, and at the end the returns.
    Returns:
        The history and OpenSpiel's returns.
    Raises:
        AssertionError: the port and OpenSpiel differ (``check``).
    """
    game = pyspiel.load_game(params.game_string())
    state = game.new_initial_state()
    port = CrazyEightsState(params) if check else None
    while not state.is_terminal():
        legal = state.legal_actions()
        if port is not None:
            cur = state.current_player()
            assert port.current_player() == cur, (state.history(), cur, port.current_player())
            assert port.legal_actions() == legal, (state.history(), legal, port.legal_actions())
        action = legal[rng.randrange(len(legal))]
        state.apply_action(action)
        if port is not None:
            port.apply(action)
    returns = list(state.returns())
    if port is not None:
        assert port.is_terminal(), state.history()
        assert port.returns == returns, (state.history(), returns, port.returns)
    return list(state.history()), returns
