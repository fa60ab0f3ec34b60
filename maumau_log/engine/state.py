"""The round's state and its turn order (RULES.md "What every system shares"; PRESETS.md
rulings 1, 6, 8 and 14 for who moves next).

One :class:`State` holds everything a replay of one round knows. Every field is declared on
the class, grouped by mechanic with one line of doc each (pokerkit ``state.py`` style); the
mechanics' modules (:mod:`.stock`, :mod:`.plays`, :mod:`.draws` ...) are functions of it.
This module is the bottom of the engine's import graph: it imports no other engine module.

Seats and turn order live here too: :func:`next_seat`, :func:`begin_turn`,
:func:`end_turn`, :func:`first_seat` (``first_player``; ruling 14 for matches).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any, Final

from ..cards import Card
from ..events import Game
from ..rules import CardRule, Ruleset
from ..scoring.matches import RoundContext
from .shuffle import ALGORITHM as FAIR_SHUFFLE
from .tables import CardInfo, Tables, tables

# Phases of a round.
SETUP: Final = "setup"  # header seen, no deal yet
PLAY: Final = "play"  # the round goes on
OUT: Final = "out"  # a player emptied the hand: calls, a catch or round_end may follow
ENDED: Final = "ended"  # over with no winner (play limit, blocked stock, abandon): round_end only
FINISHED: Final = "finished"  # round_end seen: match_end only

NO_LIMIT: Final = 1 << 60
"""``play_limit`` without ``max_plays``: never reached."""
CALL_REASONS: Final = ("missed_call", "wrong_call")
HIDDEN: Final = "?"
"""A card in a hand or the stock that a partial log does not show (FORMAT.md
"Information levels")."""


class State:
    """Everything the replay of one round knows (see the module doc).

    Args:
        rules: the resolved ruleset.
        header: the game's ``game`` event (players in seat order, dealer, shuffle).
        match: the round's place in its match, or None for a round on its own.
    """

    # --- the table (fixed for the round)
    rules: Ruleset  # the resolved ruleset
    header: Game  # the game's header event
    tables: Tables  # the ruleset's pile tables (tables.py)
    refills: bool  # empty_stock = "reshuffle": the discard pile refills the stock
    calls_last: bool  # a call is due for the last card (call_last_card or call_last_wild)
    cards: dict[Card, CardRule]  # what every card code of the pack does (rules.cards)
    info: dict[Card, CardInfo]  # the same as typed records for the hot paths (tables.info)
    jump_in: bool  # option jump_in (ruling 7)
    wild_on_pending: bool  # option wild_on_pending (rulings 2 and 6)
    skip_answer: bool  # option skip_answer (ruling 6)
    draw_ends_turn: bool  # option draw_ends_turn (ruling 3)
    after_draw: str  # option play_after_draw (ruling 16), read at every draw
    max_draws: int  # option max_draws (ruling 16), read at every draw
    reverse_skips: bool  # two players and reverse_two_players = "skip"
    play_limit: int  # option max_plays, or a count never reached when there is none
    players: list[str]  # in seat order
    n: int  # number of players
    seat: dict[str, int]  # player to seat index
    dealer: int  # the dealer's seat
    # --- the match (ruling 14)
    match: RoundContext | None  # the round's place in its match, None for a lone round
    match_totals: dict[str, int] | None  # totals after this round (set at round_end)
    match_rounds_won: dict[str, int]  # rounds won, this one counted
    match_over: bool  # an end condition is met after this round
    match_winner: str | None  # who wins the match if it ends here
    match_end_seen: bool  # a match_end event was replayed
    # --- provably fair shuffles (README "Provably fair shuffles")
    fair_seed: str | None  # maumau-sha256-fy/1 with its seed revealed
    reshuffles: int  # reshuffles so far (the k of the derived seed)
    # --- partial information (FORMAT.md "Information levels")
    unseen: Counter[Card] | None  # cards not shown anywhere; None for a full log
    unchecked: set[str]  # what the replay could not check, in words
    # --- cards (top card LAST in stock and discard pile)
    phase: str  # SETUP, PLAY, OUT, ENDED or FINISHED
    hands: dict[str, list[Card]]  # player to hand, HIDDEN for a card not shown
    stock: list[Card]  # the stock, top card last
    stock_ordered: bool  # the stock's order is known (logged)
    discard: list[Card]  # the discard pile, top card last
    # --- turn order
    current: int  # the seat whose turn it is
    direction: int  # 1 clockwise, -1 counter-clockwise
    # --- what may go on the pile (RULES.md 1-2; ruling 1)
    suit_to_follow: str | None  # suit named by the last wild card
    any_card: bool  # wild_starter = "any": the first play may be anything
    top_played_wild: bool  # the top card was played as a wild card
    pile_ok: frozenset[Card]  # the cards that may go on the pile in an ordinary turn
    awaiting_suit: str | None  # who must name a suit for the wild card just played
    # --- draw penalties (rulings 3, 8, 12)
    pending_draw: int  # cards the current player must draw (or answer)
    pending_rank: str | None  # the rank that set the pending draw
    pending_ends_turn: bool  # serving the pending draw ends the turn
    serving: bool  # the current player began serving the pending draw
    prev_owed: dict[str, int]  # draw_previous: player to cards owed (ruling 8)
    # --- skips (ruling 6)
    pending_skip: int  # players a skip card will skip unless answered
    skip_rank: str | None  # the rank that may answer the pending skip
    just_skipped: set[str]  # skipped by the last card
    # --- covers and play-again (rulings 4-5)
    cover_owed: Card | None  # the cover card the current player must cover
    cover_drawing: bool  # drawing until the cover suit comes (cover_draw = "until_suit")
    must_play: Card | None  # a drawn card that can cover must cover
    cover_drawn: Counter[Card]  # drawn for an until_suit cover before the suit came (ruling 20)
    play_again_owed: bool  # a play-again card owes a further card
    # --- the turn's draws (ruling 11)
    draws_this_turn: int  # non-effect draws this turn
    drawn_card: Card | None  # the last card drawn this turn
    turn_over_after_draw: bool  # a cover draw that cannot cover: pass next
    plays: int  # play events so far (max_plays)
    blocked_passes: int  # passes in a row on an empty stock (blocked_passes)
    # --- the end of the round
    out_player: str | None  # who emptied the hand
    last_play: list[Card]  # the cards of the last play
    ended_reason: str | None  # why the round ended with no winner
    winner: str | None  # the replayed winner (round_end)
    scores: dict[str, int] | None  # the replayed round scores (round_end)
    cut_taken: dict[str, list[Card]]  # cards kept at the cut (RULES.md 1 and 11)
    # --- calls and catches (rulings 9-10)
    last_actor: str | None  # who made the last event
    words: set[str]  # call words said since that player began acting
    window: tuple[str, str] | None  # an open call window: (player, "last" | "out")
    faults: dict[str, str]  # catchable call faults: player to reason
    caught: dict[str, int]  # player to the event index of the last catch
    penalty_owed: tuple[str, int] | None  # a penalty split by an empty stock
    suit_after_penalty: str | None  # a caught wild finish names its suit after the penalty
    phantom: tuple[str, set[str]] | None  # the turn and skips a winning card began
    # --- jump-in (ruling 7) and draws that hit the previous player (ruling 8)
    jump_open: bool  # the last action of the round was a play
    last_player: str | None  # who made that play
    last_turn_actor: str | None  # the last player who took a turn action
    prev_turn_actor: str | None  # the one before
    # --- the events so far
    event_index: int  # the index of the event being applied (header = 0)
    first_action_done: bool  # a turn action was made this round (ruling 23)
    # --- counters a replay's visitors read
    # (turn_count by seat: a list item, where a dict by name was two look-ups a turn;
    # skipped: a plain dict holding every player, 0 at the start)
    turn_count: list[int]  # turns begun, per seat (``turns`` gives them by player)
    skipped: dict[str, int]  # turns lost to a skip card, per player
    call_faults: Counter[str]  # calls missed or wrong (caught or not), per player

    def __init__(self, rules: Ruleset, header: Game, match: RoundContext | None = None) -> None:
        self.rules = rules
        self.header = header
        self.tables = tables(rules)
        self.refills = rules.empty_stock == "reshuffle"
        self.calls_last = bool(rules.call_last_card or rules.call_last_wild)
        self.cards = rules.cards
        self.info = self.tables.info
        self.jump_in = rules.jump_in
        self.wild_on_pending = rules.wild_on_pending
        self.skip_answer = rules.skip_answer
        self.draw_ends_turn = rules.draw_ends_turn
        # (a Ruleset field is an instance-dict look-up by name; these are read per event)
        self.after_draw = rules.play_after_draw
        self.max_draws = rules.max_draws
        self.players = list(header.players)
        self.n = len(self.players)
        self.reverse_skips = self.n == 2 and rules.reverse_two_players == "skip"
        self.play_limit = rules.max_plays if rules.max_plays is not None else NO_LIMIT
        self.seat = {p: i for i, p in enumerate(self.players)}
        self.match = match
        self.match_totals = None
        self.match_rounds_won = {}
        self.match_over = False
        self.match_winner = None
        self.match_end_seen = False
        shuffle = header.shuffle or {}
        seed = shuffle.get("seed")
        self.fair_seed = (
            seed if shuffle.get("algorithm") == FAIR_SHUFFLE and isinstance(seed, str) else None
        )
        self.reshuffles = 0
        self.unseen = None
        self.unchecked = set()
        dealer = header.dealer
        if dealer is None:
            dealer = match.dealer if match is not None and match.dealer else self.players[-1]
        self.dealer = self.seat[dealer]
        self.phase = SETUP
        self.hands = {p: [] for p in self.players}
        self.stock = []
        self.stock_ordered = True
        self.discard = []
        self.current = 0
        self.direction = 1
        self.suit_to_follow = None
        self.any_card = False
        self.top_played_wild = False
        self.pile_ok = frozenset()
        self.awaiting_suit = None
        self.pending_draw = 0
        self.pending_rank = None
        self.pending_ends_turn = False
        self.serving = False
        self.prev_owed = {}
        self.pending_skip = 0
        self.skip_rank = None
        self.just_skipped = set()
        self.cover_owed = None
        self.cover_drawing = False
        self.must_play = None
        self.cover_drawn = empty_counter()
        self.play_again_owed = False
        self.draws_this_turn = 0
        self.drawn_card = None
        self.turn_over_after_draw = False
        self.plays = 0
        self.blocked_passes = 0
        self.out_player = None
        self.last_play = []
        self.ended_reason = None
        self.winner = None
        self.scores = None
        self.cut_taken = {}
        self.last_actor = None
        self.words = set()
        self.window = None
        self.faults = {}
        self.caught = {}
        self.event_index = 0
        self.first_action_done = False
        self.penalty_owed = None
        self.suit_after_penalty = None
        self.phantom = None
        self.jump_open = False
        self.last_player = None
        self.last_turn_actor = None
        self.prev_turn_actor = None
        self.turn_count = [0] * self.n
        # (a comprehension: compiled, ``dict.fromkeys`` is a generic method call)
        self.skipped = {p: 0 for p in self.players}
        self.call_faults = empty_counter()

    @property
    def current_player(self) -> str:
        """The player whose turn it is."""
        return self.players[self.current]

    @property
    def turns(self) -> dict[str, int]:
        """Turns begun so far, player to count, every player (0 at the start), in seat
        order: a new dict built from :attr:`turn_count` (changing it changes nothing)."""
        return dict(zip(self.players, self.turn_count, strict=True))

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        """An independent copy (bots look ahead with ``copy.deepcopy(engine)``); the ruleset,
        its tables and the match context are shared, being read-only. Works the same for the
        compiled build, whose classes have no ``__dict__``."""
        new = type(self)(self.rules, self.header, self.match)
        for name in _COPIED:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickling (process pools, Ray): rebuilt from the ruleset, header and match, then
        every declared field; the same for both builds."""
        values = tuple(getattr(self, name) for name in _COPIED)
        return (_restore, (type(self), self.rules, self.header, self.match, values))


def _restore(
    cls: type[State],
    rules: Ruleset,
    header: Game,
    match: RoundContext | None,
    values: tuple[Any, ...],
) -> State:
    """Unpickle a :class:`State` (or :class:`~.core.Engine`) made by ``__reduce__``."""
    new = cls(rules, header, match)
    for name, value in zip(_COPIED, values, strict=True):
        setattr(new, name, value)
    return new


# the fields a deep copy copies: all declared on State but the read-only ones
# (_SHARED); tests/test_engine_layout.py keeps it complete
_SHARED = (
    "rules", "header", "tables", "refills", "calls_last", "cards", "info", "jump_in",
    "wild_on_pending", "skip_answer", "draw_ends_turn", "after_draw", "max_draws",
    "reverse_skips", "play_limit", "match",
)  # fmt: skip
_COPIED: tuple[str, ...] = (
    "players", "n", "seat", "dealer", "match_totals", "match_rounds_won", "match_over",
    "match_winner", "match_end_seen", "fair_seed", "reshuffles", "unseen", "unchecked", "phase",
    "hands", "stock", "stock_ordered", "discard", "current", "direction", "suit_to_follow",
    "any_card", "top_played_wild", "pile_ok", "awaiting_suit", "pending_draw", "pending_rank",
    "pending_ends_turn", "serving", "prev_owed", "pending_skip", "skip_rank", "just_skipped",
    "cover_owed", "cover_drawing", "must_play", "cover_drawn", "play_again_owed",
    "draws_this_turn", "drawn_card", "turn_over_after_draw", "plays", "blocked_passes",
    "out_player", "last_play", "ended_reason", "winner", "scores", "cut_taken", "last_actor",
    "words", "window", "faults", "caught", "penalty_owed", "suit_after_penalty", "phantom",
    "jump_open", "last_player", "last_turn_actor", "prev_turn_actor", "event_index",
    "first_action_done", "turn_count", "skipped", "call_faults",
)  # fmt: skip


def empty_counter() -> Counter[Any]:
    """A new empty :class:`~collections.Counter`, as ``Counter()`` makes it, without
    running ``Counter.__init__`` (Python code that, for no argument, does nothing: from
    the compiled build a call into the interpreter; each engine makes two)."""
    return Counter.__new__(Counter)


def update_pile(s: State) -> None:
    """Recompute :attr:`State.pile_ok` after the top card, the named suit or the wild state
    changed: the non-wild cards matching the top (or of the named suit, or all of them
    under ``wild_starter = "any"``), plus the wild cards unless a wild card played as one
    is on top and ``wild_on_wild`` is off (RULES.md 1-2; ruling 1). While a cover is owed
    under ``cover_match = "suit"``: the cards of the cover card's suit (ruling 20)."""
    t = s.tables
    if s.cover_owed is not None and s.rules.cover_match == "suit":  # ruling 20
        s.pile_ok = t.with_suit.get(s.cards[s.cover_owed].suit, frozenset())
        return
    wild_ok = s.rules.wild_on_wild or not s.top_played_wild
    if s.any_card:
        s.pile_ok = t.plain_wild if wild_ok else t.plain
    elif s.suit_to_follow is not None:
        named = (t.of_suit_wild if wild_ok else t.of_suit).get(s.suit_to_follow)
        s.pile_ok = named if named is not None else (t.wild if wild_ok else frozenset())
    elif s.discard:
        s.pile_ok = (t.on_top_wild if wild_ok else t.on_top)[s.discard[-1]]
    else:
        s.pile_ok = frozenset()


def set_cover(s: State, card: Card | None) -> None:
    """The cover owed changes (ruling 5): the pile's cards may change with it (ruling 20)."""
    s.cover_owed = card
    update_pile(s)


def next_seat(s: State, seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` in the direction of play."""
    return (seat + steps * s.direction) % s.n


def begin_turn(s: State, seat: int) -> None:
    """``seat`` begins a turn: the turn's draws and obligations start afresh."""
    s.current = seat
    s.draws_this_turn = 0
    s.drawn_card = None
    s.must_play = None
    if s.cover_drawn:
        s.cover_drawn = empty_counter()
    s.turn_over_after_draw = False
    s.serving = False
    # by seat: a list item, no look-up by name; typed (`+=` on an item is generic compiled)
    s.turn_count[seat] = s.turn_count[seat] + 1


def begin_turn_same(s: State, seat: int) -> None:
    """The same player goes on (a cover or play-again card; rulings 4-5): no new turn."""
    s.current = seat
    s.draws_this_turn = 0
    s.drawn_card = None
    s.must_play = None
    s.turn_over_after_draw = False


def end_turn(s: State) -> None:
    """The current player's turn ends with no card effect (after a draw or pass)."""
    begin_turn(s, (s.current + s.direction) % s.n)  # next_seat


def first_seat(s: State) -> int:
    """Who plays first: ``first_player`` (the dealer's left, the dealer, or the previous
    round's winner in a match; ruling 14)."""
    if s.rules.first_player == "previous_winner":
        prev = s.match.first_player if s.match is not None else None
        if prev is not None and prev in s.seat:
            return s.seat[prev]
    if s.rules.first_player == "dealer":
        return s.dealer
    return (s.dealer + 1) % s.n


def drawable(s: State) -> int:
    """Cards that can still be drawn: the stock, plus the reshufflable discard pile."""
    if s.refills and s.discard:
        return len(s.stock) + len(s.discard) - 1
    return len(s.stock)


def nothing_to_draw(s: State) -> bool:
    """True when no card is left anywhere to draw (the stock empty, no reshuffle possible):
    then a pending draw or an owed previous-player draw lapses, and a draw card draws
    nothing (PRESETS.md rulings 12 and 24). The one place that decides it."""
    return drawable(s) == 0


def note_turn_action(s: State, player: str) -> None:
    """``player`` took a turn action: remember the last two actors (ruling 8)."""
    if player != s.last_turn_actor:
        s.prev_turn_actor = s.last_turn_actor
        s.last_turn_actor = player
