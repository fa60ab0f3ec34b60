"""The rules engine: game state and the transition ``apply(event)`` (issue 2, item 4).

One :class:`Engine` replays one game (one round) under one :class:`~maumau_log.rules.Ruleset`.
It knows nothing of files, Parquet or terminals, and has no randomness: the same events give
the same states. Every check that fails raises :class:`RuleViolation` with a stable code
(:mod:`maumau_log.violations`), the rule it comes from, a plain message and what was legal.

The checks follow issue 2's order: the event's shape, the player's turn, the card's presence
in the hand, its legality. :meth:`Engine.legal_actions` lists what may happen next; the
simulator plays from it and the "what was legal" text is made from it (check, ask, do).

Rule sources, by topic: turn order and starter (RULES.md "What every system shares",
PRESETS.md ruling 1), draws (FORMAT.md "Conventions", PRESETS.md rulings 11-12), power cards
(RULES.md 1-2; rulings 2-6, 17-18, 20-21), calls and penalties (rulings 9-10, 19),
scoring (ruling 13), the first player of a match round (ruling 23).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import SUITS, Card, canonical, is_card_code, suggest_code
from .events import (
    Abandon,
    Call,
    Cut,
    Deal,
    Draw,
    Event,
    Game,
    HandCount,
    MatchEnd,
    Pass,
    Penalty,
    Play,
    Reshuffle,
    RoundEnd,
    SuitChoice,
)
from .matches import RoundContext, add_scores, is_over, match_winner
from .rules import CardRule, Ruleset
from .scoring import round_scores
from .shuffle import ALGORITHM as FAIR_SHUFFLE
from .shuffle import deal as fair_deal
from .shuffle import reshuffle_seed, shuffled

# Phases of a round.
SETUP = "setup"  # header seen, no deal yet
PLAY = "play"  # the round goes on
OUT = "out"  # a player emptied the hand: calls, a catch or round_end may follow
ENDED = "ended"  # over with no winner (play limit, blocked stock, abandon): round_end only
FINISHED = "finished"  # round_end seen: match_end only

CALL_REASONS = ("missed_call", "wrong_call")
HIDDEN = "?"
"""A card in a hand or the stock that a partial log does not show (FORMAT.md
"Information levels")."""


class RuleViolation(Exception):
    """An event the rules do not allow (python-chess ``IllegalMoveError`` style).

    Attributes:
        code: the stable violation code (``violations.CODES``).
        rule: where the rule comes from, e.g. ``"option draw_answer; RULES.md 2"``.
        message: a plain-language explanation naming the cards and players.
        expected: what was legal there instead (None when not meaningful).
    """

    def __init__(self, code: str, message: str, rule: str, expected: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.rule = rule
        self.expected = expected


@dataclass(frozen=True, slots=True)
class Action:
    """A legal next step, as :meth:`Engine.legal_actions` lists it.

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


def normalize_call(word: str) -> str:
    """Fold a call word for comparison: case, hyphens and spaces ignored (PRESETS.md ruling 9)."""
    return "".join(ch for ch in word.lower() if ch not in " -_")


class Engine:
    """Replays one round event by event and checks every event against the ruleset.

    Args:
        rules: the resolved ruleset.
        header: the game's ``game`` event (players in seat order, dealer).
        match: the round's place in its match (dealer, first player, hand sizes, totals
            before it), or None for a round on its own.

    Use :meth:`apply` for every event after the header; it raises :class:`RuleViolation`
    on the first illegal one (the replay stops there, so a failed event may leave the state
    partly changed). :meth:`view` returns the state a dispute needs.
    """

    def __init__(self, rules: Ruleset, header: Game, match: RoundContext | None = None) -> None:
        self.rules = rules
        self.cards: dict[Card, CardRule] = rules.cards
        self.players: list[str] = list(header.players)
        self.n = len(self.players)
        self.seat: dict[str, int] = {p: i for i, p in enumerate(self.players)}
        self.match = match
        self.match_totals: dict[str, int] | None = None  # after this round (round_end)
        self.match_rounds_won: dict[str, int] = {}
        self.match_over = False
        self.match_winner: str | None = None
        self.match_end_seen = False
        shuffle = header.shuffle or {}
        self.fair_seed: str | None = None  # maumau-sha256-fy/1 with its seed revealed
        if shuffle.get("algorithm") == FAIR_SHUFFLE and isinstance(shuffle.get("seed"), str):
            self.fair_seed = shuffle["seed"]
        self.reshuffles = 0
        # partial logs: cards not seen anywhere (hidden hands and stock), and what the
        # replay could therefore not check; None for a full-information log
        self.unseen: Counter[Card] | None = None
        self.unchecked: set[str] = set()
        dealer = header.dealer
        if dealer is None:
            dealer = match.dealer if match is not None and match.dealer else self.players[-1]
        self.dealer = self.seat[dealer]
        self.phase = SETUP
        self.hands: dict[str, list[Card]] = {p: [] for p in self.players}
        self.stock: list[Card] = []  # top card LAST
        self.stock_ordered = True
        self.discard: list[Card] = []  # top card LAST
        self.current = 0
        self.direction = 1
        self.suit_to_follow: str | None = None  # suit named by the last wild card
        self.any_card = False  # wild_starter = "any": the first play may be anything
        self.top_played_wild = False  # the top card was played as a wild card
        self.pending_draw = 0
        self.pending_rank: str | None = None
        self.pending_ends_turn = False
        self.serving = False  # the current player began serving the pending draw
        self.pending_skip = 0
        self.skip_rank: str | None = None
        self.awaiting_suit: str | None = None
        self.cover_owed: Card | None = None
        self.cover_drawing = False
        self.must_play: Card | None = None  # a drawn card that can cover must cover
        self.cover_drawn: Counter[Card] = Counter()  # drawn before the suit came (ruling 20)
        self.play_again_owed = False
        self.draws_this_turn = 0
        self.drawn_card: Card | None = None
        self.turn_over_after_draw = False  # cover draw that cannot cover: pass next
        self.plays = 0
        self.blocked_passes = 0
        self.out_player: str | None = None
        self.last_play: list[Card] = []
        self.cut_taken: dict[str, list[Card]] = {}
        # calls (PRESETS.md rulings 9-10)
        self.last_actor: str | None = None
        self.words: set[str] = set()
        self.window: tuple[str, str] | None = None  # (player, "last" | "out")
        self.faults: dict[str, str] = {}
        self.caught: dict[str, int] = {}  # player to the event index of the last catch
        self.event_index = 0  # the index of the event being applied (header = 0)
        self.first_action_done = False  # a turn action was made this round (ruling 23)
        self.penalty_owed: tuple[str, int] | None = None
        self.ended_reason: str | None = None
        # jump-in (ruling 7) and draws that hit the previous player (ruling 8)
        self.jump_open = False  # the last action of the round was a play
        self.last_player: str | None = None  # who made that play
        self.last_turn_actor: str | None = None
        self.prev_turn_actor: str | None = None
        self.prev_owed: dict[str, int] = {}
        self.just_skipped: set[str] = set()  # skipped by the last card (ruling 6)
        self._phantom: tuple[str, set[str]] | None = None
        self.suit_after_penalty: str | None = None  # a caught wild finish, penalty split
        # counters a replay's visitors read
        self.turns = Counter[str]()  # turns begun, per player
        self.skipped = Counter[str]()  # turns lost to a skip card, per player
        self.call_faults = Counter[str]()  # calls missed or wrong (caught or not), per player
        self.winner: str | None = None
        self.scores: dict[str, int] | None = None

    # ------------------------------------------------------------------ helpers

    def _fail(self, code: str, message: str, rule: str, expected: str | None = None) -> None:
        raise RuleViolation(code, message, rule, expected)

    @property
    def current_player(self) -> str:
        """The player whose turn it is."""
        return self.players[self.current]

    def _next_seat(self, seat: int, steps: int = 1) -> int:
        return (seat + steps * self.direction) % self.n

    def _begin_turn(self, seat: int) -> None:
        self.current = seat
        self.draws_this_turn = 0
        self.drawn_card = None
        self.must_play = None
        self.cover_drawn = Counter()
        self.turn_over_after_draw = False
        self.serving = False
        self.turns[self.players[seat]] += 1

    def _end_turn(self) -> None:
        """The current player's turn ends with no card effect (after a draw or pass)."""
        self._begin_turn(self._next_seat(self.current))

    def _check_card(self, card: str, where: str) -> Card:
        if card in self.cards:  # the fast path: a canonical code of this pack
            return card
        if not is_card_code(card):
            hint = suggest_code(card)
            self._fail(
                "unknown_card",
                f"{card!r} in {where} is not a card code"
                + (f" (did you mean {hint!r}?)" if hint else ""),
                "FORMAT.md Cards",
                "codes like '10H', 'JC', 'X'",
            )
        code = canonical(card)
        if code not in self.cards:
            self._fail(
                "unknown_card",
                f"{card} in {where} is not in this ruleset's pack "
                f"(ranks {', '.join(self.rules.ranks)}"
                + (f", {self.rules.jokers} joker(s)" if self.rules.jokers else "")
                + ")",
                "option ranks/jokers",
            )
        return code

    def _drawable(self) -> int:
        """Cards that can still be drawn: the stock, plus the reshufflable discard pile."""
        extra = len(self.discard) - 1 if self.rules.empty_stock == "reshuffle" else 0
        return len(self.stock) + max(extra, 0)

    def _take(
        self, player: str, cards: list[str] | None, count: int | None, what: str
    ) -> list[Card]:
        """Move cards from the stock top to ``player``'s hand, checking they are the top."""
        if cards is not None:
            drawn = [self._check_card(c, what) for c in cards]
            if count is not None and count != len(drawn):
                self._fail(
                    "wrong_draw_count",
                    f"{what} lists {len(drawn)} cards but says count {count}",
                    "FORMAT.md Events (draw)",
                )
        elif count is not None:
            drawn = []
        else:
            drawn = []
            count = 1
        n = len(drawn) if cards is not None else (count or 0)
        if n > len(self.stock):
            if not self.stock and self.rules.empty_stock == "reshuffle" and len(self.discard) > 1:
                self._fail(
                    "draw_not_from_stock_top",
                    f"{what}: the stock is empty; a reshuffle must be logged before drawing",
                    "FORMAT.md Conventions (reshuffle)",
                    "a reshuffle event",
                )
            refill = self.rules.empty_stock == "reshuffle" and len(self.discard) > 1
            self._fail(
                "draw_not_from_stock_top",
                f"{what}: {n} cards drawn but the stock holds only {len(self.stock)}"
                + (
                    f"; draw the {len(self.stock)} left, then a reshuffle must be logged "
                    "before drawing more"
                    if refill
                    else ""
                ),
                "FORMAT.md Conventions (draws)",
                f"draw at most {len(self.stock)}" + (", then a reshuffle event" if refill else ""),
            )
        if self.unseen is not None:
            return self._take_partial(player, drawn if cards is not None else None, n, what)
        if cards is None:
            if not self.stock_ordered:
                self._fail(
                    "unsupported_rule",
                    f"{what} gives only a count, and the stock order is not logged: "
                    "the drawn cards cannot be known (partial logs are not replayed yet)",
                    "FORMAT.md Information levels",
                )
            drawn = [self.stock[-1 - i] for i in range(n)]
            del self.stock[len(self.stock) - n :]
        elif self.stock_ordered:
            top = self.stock[len(self.stock) - n :][::-1]
            if top != drawn:
                self._fail(
                    "draw_not_from_stock_top",
                    f"{what}: drew {' '.join(drawn)} but the top of the stock is {' '.join(top)}",
                    "FORMAT.md Conventions (draws come from the stock top)",
                    f"draw {' '.join(top)}",
                )
            del self.stock[len(self.stock) - n :]
        else:
            pool = Counter(self.stock)
            for c in drawn:
                if pool[c] <= 0:
                    self._fail(
                        "draw_not_from_stock_top",
                        f"{what}: drew {c}, which is not in the stock",
                        "FORMAT.md Conventions (card conservation)",
                    )
                pool[c] -= 1
            for c in drawn:
                self.stock.remove(c)
        self.hands[player].extend(drawn)
        return drawn

    def _take_partial(self, player: str, drawn: list[Card] | None, n: int, what: str) -> list[Card]:
        """A draw in a partial log: shown cards must be among the unseen ones; the stock's
        order cannot be checked."""
        assert self.unseen is not None
        self.unchecked.add("draws come from the stock top (the stock is not shown)")
        if drawn is None:
            drawn = [HIDDEN] * n
        else:
            need = Counter(drawn)
            short = need - self.unseen
            if short:
                self._fail(
                    "draw_not_from_stock_top",
                    f"{what}: drew {' '.join(sorted(short.elements()))}, which is not among "
                    "the cards still unseen",
                    "FORMAT.md Information levels (conservation against the unseen cards)",
                )
            self.unseen -= need
        del self.stock[len(self.stock) - n :]
        self.hands[player].extend(drawn)
        return drawn

    # ------------------------------------------------------------------ legality (ask)

    def playable(self, card: Card) -> bool:
        """True when ``card`` may go on the discard pile in an ordinary turn (no pending draw
        or skip): it matches the suit to follow, or the top card's suit or rank, or it is a
        wild card (not on a wild card played as one unless ``wild_on_wild``). RULES.md
        "What every system shares"; PRESETS.md ruling 1.
        """
        info = self.cards[card]
        if self.cover_owed is not None and self.rules.cover_match == "suit":
            return info.suit == self.cards[self.cover_owed].suit  # ruling 20
        if info.wild:
            return self.rules.wild_on_wild or not self.top_played_wild
        if self.any_card:
            return True
        if self.suit_to_follow is not None:
            return info.suit == self.suit_to_follow
        top = self.cards[self.discard[-1]]
        return info.suit == top.suit or info.rank == top.rank

    def _answers_draw(self, card: Card) -> bool:
        info = self.cards[card]
        if info.cancel:
            return True
        if info.wild and self.rules.wild_on_pending:
            return True
        if info.draw <= 0:
            return False
        if self.rules.draw_answer == "same_rank":
            return info.rank == self.pending_rank
        return self.rules.draw_answer == "any_draw_card"

    def _answers_skip(self, card: Card) -> bool:
        info = self.cards[card]
        if info.wild and self.rules.wild_on_pending:
            return True
        return self.rules.skip_answer and info.skip and info.rank == self.skip_rank

    def _finish_allowed(self, player: str, card: Card, count: int = 1) -> bool:
        info = self.cards[card]
        return not (len(self.hands[player]) == count and info.no_finish and not info.cover)

    def _drawn_before_suit(self, card: Card) -> bool:
        """True when every ``card`` the current player holds was drawn for an until_suit
        cover before the suit came: such cards may not be played in that turn (ruling 20)."""
        return self.cover_drawn[card] >= self.hands[self.current_player].count(card)

    def can_play(self, player: str, card: Card) -> bool:
        """True when ``player`` may play ``card`` (held) now; the one-card form of
        :meth:`legal_plays`, kept in step with it by the property tests."""
        if self.phase != PLAY or self.awaiting_suit is not None:
            return False
        if self.pending_skip and player == self.current_player:
            return self._answers_skip(card)
        if player != self.current_player:
            return False
        if self.must_play is not None:
            return card == self.must_play
        if self.turn_over_after_draw or self.cover_drawing:
            return False
        if self.cover_drawn and self._drawn_before_suit(card):
            return False
        if self.pending_draw:
            return not self.serving and self._answers_draw(card)
        if self.draws_this_turn and self.rules.play_after_draw == "drawn":
            return (
                (card == self.drawn_card or self.drawn_card == HIDDEN)
                and self.playable(card)
                and self._finish_allowed(player, card)
            )
        return self.playable(card) and self._finish_allowed(player, card)

    def legal_plays(self, player: str) -> list[Card]:
        """The distinct cards ``player`` may play now (empty when it is not their move)."""
        if self.phase != PLAY or self.awaiting_suit is not None:
            return []
        hand = [c for c in self.hands[player] if c != HIDDEN]
        if self.pending_skip and player == self.current_player:
            return sorted({c for c in hand if self._answers_skip(c)})
        if player != self.current_player:
            return []
        if self.must_play is not None:
            return [self.must_play]
        if self.turn_over_after_draw or self.cover_drawing:
            return []
        if self.pending_draw:
            if self.serving:
                return []
            return sorted({c for c in hand if self._answers_draw(c)})
        if (
            self.draws_this_turn
            and self.rules.play_after_draw == "drawn"
            and (self.drawn_card != HIDDEN)
        ):
            card = self.drawn_card
            ok = card is not None and self.playable(card) and self._finish_allowed(player, card)
            return [card] if ok and card is not None else []
        if self.cover_drawn:
            hand = [c for c in hand if not self._drawn_before_suit(c)]
        return sorted({c for c in hand if self.playable(c) and self._finish_allowed(player, c)})

    def _can_draw(self, player: str) -> tuple[bool, str]:
        """Whether ``player`` may make a non-effect draw now, and the reason to log."""
        if self.pending_draw or self.must_play is not None or self.turn_over_after_draw:
            return False, ""
        if self._drawable() == 0:
            return False, ""
        if self.cover_owed is not None:
            if self.cover_drawing:
                return True, "cover"
            can_cover = any(
                self.playable(c) and not (self.cover_drawn and self._drawn_before_suit(c))
                for c in self.hands[player]
                if c != HIDDEN
            )
            if not can_cover and HIDDEN in self.hands[player]:
                self.unchecked.add("whether a hidden hand could cover before drawing")
            return (not can_cover or self.rules.voluntary_draw), "cover"
        if self.draws_this_turn >= self.rules.max_draws:
            return False, ""
        if self.draws_this_turn and self.rules.play_after_draw == "none":
            return False, ""
        has_play = any(self.can_play(player, c) for c in self.hands[player] if c != HIDDEN)
        if not has_play and HIDDEN in self.hands[player]:
            self.unchecked.add("whether a hidden hand could play before drawing or passing")
        if has_play and not self.rules.voluntary_draw:
            return False, ""
        return True, ("voluntary" if has_play else "no_play")

    def _can_pass(self, player: str) -> bool:
        """PRESETS.md ruling 11: pass after ``max_draws`` draws (or a draw that emptied the
        stock) where a drawn card may be played, or with nothing to draw."""
        if self.pending_draw or self.pending_skip or self.must_play is not None:
            return False
        if self.turn_over_after_draw:
            return True
        if (
            self.rules.play_after_draw != "none"
            and self.draws_this_turn
            and (self.draws_this_turn >= self.rules.max_draws or not self.stock)
        ):
            return True
        if self._drawable() == 0:
            if HIDDEN in self.hands[player] and not self.legal_plays(player):
                self.unchecked.add("whether a hidden hand could play before drawing or passing")
            return self.rules.voluntary_draw or not self.legal_plays(player)
        return False

    def legal_actions(self) -> list[Action]:
        """Every legal next action (calls and penalties aside), for bots and messages.

        Returns:
            A list of :class:`Action`; empty once the round is finished.
        """
        if self.phase in (OUT, ENDED):
            return [Action("round_end")]
        if self.phase != PLAY:
            return []
        if self.awaiting_suit is not None:
            return [Action("suit", self.awaiting_suit, s) for s in SUITS]
        self._settle()
        if self.prev_owed:  # an owed previous-player draw comes first (ruling 8)
            return [
                Action(
                    "draw", p, count=min(n, len(self.stock) or self._drawable()), reason="effect"
                )
                for p, n in sorted(self.prev_owed.items())
            ]
        acts = self._jump_actions()
        player = self.current_player
        if self.pending_skip:
            acts.extend(self._play_actions(player))
            saved = (self.current, self.pending_skip)
            self.current, self.pending_skip = self._next_seat(self.current, self.pending_skip), 0
            try:
                acts.extend(self._turn_actions(self.current_player))
            finally:
                self.current, self.pending_skip = saved
            return acts
        return acts + self._turn_actions(player)

    def _play_actions(self, player: str) -> list[Action]:
        """Plays of one card, and (``multi_play``) of each legal card with its fellows."""
        acts = []
        multi = self.rules.multi_play
        single_only = self.must_play is not None or (
            self.draws_this_turn and self.rules.play_after_draw == "drawn"
        )
        hand = self.hands[player]
        for c in self.legal_plays(player):
            acts.append(Action("play", player, c))
            rank = self.cards[c].rank
            any_suit = rank in self.rules.multi_play_any_suit  # ruling 21
            if (multi == "none" and not any_suit) or single_only:
                continue
            rest = list(hand)
            rest.remove(c)
            same = multi == "identical" and not any_suit
            fellows = [
                x for x in rest if (x == c if same else x != HIDDEN and self.cards[x].rank == rank)
            ]
            group = [c, *fellows]
            if fellows and self._finish_allowed(player, group[-1], len(group)):
                acts.append(Action("play", player, c, cards=tuple(group)))
        return acts

    def _jump_actions(self) -> list[Action]:
        """Jump-ins open to players other than the one to move (PRESETS.md ruling 7)."""
        if not (self.rules.jump_in and self.jump_open and self.phase == PLAY):
            return []
        if self.awaiting_suit is not None or self.cover_owed is not None or self.play_again_owed:
            return []
        top = self.discard[-1]
        acts = []
        for p in self.players:
            if p in (self.last_player, self.current_player) or top not in self.hands[p]:
                continue
            acts.append(Action("play", p, top, jump=True))
        return acts

    def _turn_actions(self, player: str) -> list[Action]:
        acts = self._play_actions(player)
        if self.pending_draw and not self.pending_skip:
            n = min(self.pending_draw, len(self.stock) or self._drawable())
            if n:
                acts.append(Action("draw", player, count=n, reason="effect"))
            return acts
        ok, reason = self._can_draw(player)
        if ok:
            acts.append(Action("draw", player, count=1, reason=reason))
        if self._can_pass(player):
            acts.append(Action("pass", player))
        return acts

    def describe_legal(self, limit: int = 12) -> str:
        """The legal actions as one line, e.g. ``"ana plays 7H | ana draws 1 (no_play)"``."""
        if self.phase == SETUP:
            return "the deal"
        acts = self.legal_actions()
        if not acts:
            return "nothing (the round is over)"
        hidden = set()
        if self.unseen is not None and self.phase == PLAY:
            hidden = {a.player for a in acts if a.player and HIDDEN in self.hands[a.player]}
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

    # ------------------------------------------------------------------ apply (do)

    def apply(self, event: Event) -> None:
        """Check one event against the rules and the state, then apply it.

        Args:
            event: any event but the ``game`` header.
        Raises:
            RuleViolation: the event breaks a rule; the code names the first failed check.
        """
        self.event_index += 1
        handler = _HANDLERS.get(type(event))
        count = getattr(event, "count", None)
        if count is not None and count < 0:
            self._fail(
                "schema_error",
                f"count must not be negative (got {count})",
                "schemas/ (FORMAT.md Events)",
            )
        if handler is None:  # a header inside a game is split off by the replay driver
            self._fail("schema_error", "unexpected event type", "FORMAT.md Events")
            return
        if self.phase == FINISHED and not isinstance(event, MatchEnd):
            self._fail(
                "play_after_round_end",
                f"a {_type_name(event)} event after round_end",
                "FORMAT.md Events (round_end)",
                "nothing but match_end, or the next game's header",
            )
        actor = (
            (event.by or event.player) if type(event) is Penalty else getattr(event, "player", None)
        )
        if actor is not None and actor != self.last_actor:
            self._close_window()
            self.last_actor = actor
            self.words = set()
        handler(self, event)

    def _known_player(self, player: str | None, what: str) -> str:
        if player is None or player not in self.seat:
            self._fail(
                "wrong_player",
                f"{what}: {player!r} is not a player of this game",
                "FORMAT.md Events (game.players)",
                f"one of {', '.join(self.players)}",
            )
        assert player is not None
        return player

    def _close_window(self) -> None:
        """Another player acted: settle the open call window (PRESETS.md ruling 9)."""
        if self.window is None:
            return
        player, kind = self.window
        self.window = None
        if kind == "last":
            hand = self.hands[player]
            if len(hand) != 1:
                return
            if hand[0] == HIDDEN:  # either word may be right: the card is not shown
                self.unchecked.add("which call word a hidden last card needs")
                words = {self.rules.call_last_card, self.rules.call_last_wild} - {None}
                said = [w for w in words if w and normalize_call(w) in self.words]
                if not words:
                    return
                if said and len(words) > 1:
                    # one of the words was said; whether it was the right one is hidden, so a
                    # catch is accepted but no fault is counted
                    self.faults[player] = "unverifiable"
                    return
                if said:
                    return
                self.faults[player] = "wrong_call" if self.words else "missed_call"
                self.call_faults[player] += 1
                return
            due = self._last_card_word(hand[0])
        else:
            due = self.rules.call_going_out
        if due is None or normalize_call(due) in self.words:
            return
        self.faults[player] = "wrong_call" if self.words else "missed_call"
        self.call_faults[player] += 1

    def _last_card_word(self, card: Card) -> str | None:
        if self.cards[card].wild and self.rules.call_last_wild is not None:
            return self.rules.call_last_wild
        return self.rules.call_last_card

    # --- before the round

    def _on_cut(self, ev: Cut) -> None:
        player = self._known_player(ev.player, "cut")
        if self.phase != SETUP:
            self._fail("missing_header", "a cut after the deal", "RULES.md 1 (cut before the deal)")
        taken = [self._check_card(c, "cut.taken") for c in ev.taken or []]
        if len(taken) > 3:
            self._fail(
                "wrong_draw_count",
                f"{player} keeps {len(taken)} cards from the cut; at most 3 may be kept",
                "RULES.md 1 and 11 (cut); PRESETS.md ruling 16",
            )
        self.cut_taken[player] = taken

    def _on_deal(self, ev: Deal) -> None:
        if self.phase != SETUP:
            self._fail(
                "missing_header",
                "a second deal in one game; every round starts with its own game header",
                "FORMAT.md Files",
            )
        rules = self.rules
        size = rules.hand_size_for(self.n)
        sizes = self.match.hand_sizes if self.match is not None else None
        for p in ev.hands:
            self._known_player(p, "deal.hands")
        seen: Counter[Card] = Counter()
        for p in self.players:
            hand = ev.hands.get(p)
            if hand is None:
                self._fail(
                    "wrong_draw_count",
                    f"the deal gives {p} no hand",
                    "option hand_size",
                    f"{size} cards for every player",
                )
            if isinstance(hand, HandCount):
                if hand.count < 0:
                    self._fail(
                        "schema_error",
                        f"{p}'s hand count must not be negative (got {hand.count})",
                        "schemas/defs.schema.json (hand)",
                    )
                cards = [HIDDEN] * hand.count
                self.unseen = Counter()  # a partial log (FORMAT.md "Information levels")
            else:
                cards = [self._check_card(c, f"{p}'s dealt hand") for c in hand or []]
            due = sizes.get(p, size) if sizes else size
            if len(cards) != due:
                self._fail(
                    "wrong_draw_count",
                    f"{p} is dealt {len(cards)} cards; {due} are due"
                    + (" (a loser's hand shrinks by one a round)" if sizes else ""),
                    f"option hand_size = {rules.hand_size}"
                    + ("; option loser_hand_shrink" if sizes else ""),
                    f"{due} cards",
                )
            self.hands[p] = cards
            seen.update(c for c in cards if c != HIDDEN)
        for p, taken in self.cut_taken.items():
            left = Counter(self.hands[p])
            for c in taken:
                if left[c] <= 0:
                    self._fail(
                        "card_not_in_hand",
                        f"{p} kept {c} at the cut but it is not in {p}'s dealt hand",
                        "RULES.md 1 (cut); the kept cards are part of the hand",
                    )
                left[c] -= 1
        starter = self._check_card(ev.starter, "deal.starter")
        seen[starter] += 1
        pack = rules.pack_counts
        if self.unseen is not None:
            self._deal_partial(seen, pack, starter)
            return
        if ev.stock is not None:
            stock = [self._check_card(c, "deal.stock") for c in ev.stock]
            seen.update(stock)
        over = sorted(c for c in seen if seen[c] > pack[c])
        if over:
            self._fail(
                "duplicate_card",
                "the deal holds "
                + "; ".join(self._copies(c, ev, seen[c], pack[c]) for c in over[:5]),
                "FORMAT.md Cards (card conservation)",
            )
        if ev.stock is not None:
            missing = sorted((pack - seen).elements())
            if missing:
                self._fail(
                    "duplicate_card",
                    f"the deal does not account for the whole pack: missing "
                    f"{', '.join(missing[:10])}" + (" ..." if len(missing) > 10 else ""),
                    "FORMAT.md Cards (card conservation)",
                )
            self.stock = stock[::-1]
            self.stock_ordered = True
        else:
            self.stock = sorted((pack - seen).elements())
            self.stock_ordered = False
        if self.fair_seed is not None and not self.cut_taken:
            self._check_fair_deal(ev, starter, sizes or {p: size for p in self.players})
        if self.cards[starter].redeal:
            self._fail(
                "wrong_starter",
                f"the starter {starter} should have gone back into the stock",
                f"option starter_redeal = {list(rules.starter_redeal)}",
                "another starter card",
            )
        self.discard = [starter]
        self.phase = PLAY
        self._start(starter)

    def _copies(self, card: Card, ev: Deal, held: int, allowed: int) -> str:
        """Where a card the deal holds too often is, e.g. ``"9H 2 times (in a's hand and as
        the starter); the pack holds it once"`` (for a ``duplicate_card`` message)."""
        places = []
        for p in self.players:
            k = self.hands[p].count(card)
            if k:
                places.append(f"{k} in {p}'s hand" if k > 1 else f"in {p}'s hand")
        if canonical(ev.starter) == card:
            places.append("as the starter")
        k = sum(1 for c in ev.stock or [] if is_card_code(c) and canonical(c) == card)
        if k:
            places.append(f"{k} in the stock" if k > 1 else "in the stock")
        times = {1: "once", 2: "twice"}.get(allowed, f"{allowed} times")
        where = ", ".join(places[:-1]) + " and " + places[-1] if len(places) > 1 else places[0]
        return f"{card} {held} times ({where}); the pack holds it {times}"

    def _deal_partial(self, seen: Counter[Card], pack: Counter[Card], starter: Card) -> None:
        """Finish a deal some hands of which are counts: the unseen cards are the pack but
        what is shown; the stock is hidden (FORMAT.md "Information levels")."""
        over = sorted(c for c in seen if seen[c] > pack[c])
        if over:
            self._fail(
                "duplicate_card",
                f"the deal shows {', '.join(over)} more often than the pack holds",
                "FORMAT.md Cards (card conservation)",
            )
        dealt = sum(len(h) for h in self.hands.values()) + 1
        if dealt > len(self.rules.pack):
            self._fail(
                "duplicate_card",
                f"the deal gives out {dealt} cards; the pack holds {len(self.rules.pack)}",
                "FORMAT.md Cards (card conservation)",
            )
        self.unseen = pack - seen
        self.stock = [HIDDEN] * (len(self.rules.pack) - dealt)
        self.stock_ordered = False
        self.unchecked.add("the other players' hands and draws (shown as counts)")
        if self.fair_seed is not None:
            self.unchecked.add("the deal against the shuffle seed (hands are hidden)")
        if self.cards[starter].redeal:
            self._fail(
                "wrong_starter",
                f"the starter {starter} should have gone back into the stock",
                f"option starter_redeal = {list(self.rules.starter_redeal)}",
            )
        self.discard = [starter]
        self.phase = PLAY
        self._start(starter)

    def _check_fair_deal(self, ev: Deal, starter: Card, sizes: Mapping[str, int]) -> None:
        """The deal must be what the revealed seed gives (``shuffle.py``; issue 7)."""
        assert self.fair_seed is not None
        redeal = self.rules.redeal_cards
        order = shuffled(self.rules.pack, self.fair_seed)
        try:
            hands, due_starter, stock = fair_deal(order, self.players, self.dealer, sizes, redeal)
        except ValueError as exc:
            self._fail("deal_not_from_seed", str(exc), "shuffle maumau-sha256-fy/1")
        rule = "shuffle maumau-sha256-fy/1 (README: provably fair shuffles)"
        for p in self.players:
            if sorted(hands[p]) != sorted(self.hands[p]):
                self._fail(
                    "deal_not_from_seed",
                    f"{p}'s hand {' '.join(self.hands[p])} is not what the seed deals",
                    rule,
                    f"{p}: {' '.join(hands[p])}",
                )
        if starter != due_starter:
            self._fail(
                "deal_not_from_seed",
                f"the starter {starter} is not what the seed turns up",
                rule,
                f"starter {due_starter}",
            )
        if ev.stock is not None and list(ev.stock) != stock:
            logged = list(ev.stock)
            at = next(
                (i for i, (a, b) in enumerate(zip(logged, stock, strict=False)) if a != b),
                min(len(logged), len(stock)),
            )
            self._fail(
                "deal_not_from_seed",
                f"the stock differs from the seed's order at position {at + 1} from the top",
                rule,
                f"stock top first: {' '.join(stock[:8])} ...",
            )
        self.stock = stock[::-1]
        self.stock_ordered = True

    def _first_seat(self) -> int:
        if self.rules.first_player == "previous_winner":
            prev = self.match.first_player if self.match is not None else None
            if prev is not None and prev in self.seat:
                return self.seat[prev]
        if self.rules.first_player == "dealer":
            return self.dealer
        return (self.dealer + 1) % self.n

    def _start(self, starter: Card) -> None:
        """Turn up the starter: its power applies as if the seat before the first player had
        played it (PRESETS.md ruling 1; ``starter_effect``, ``wild_starter``)."""
        first = self._first_seat()
        info = self.cards[starter]
        before = (first - 1) % self.n
        self.last_turn_actor = self.players[before]  # ruling 8: the seat before
        if info.wild and not (info.draw and self.rules.starter_effect):
            mode = self.rules.wild_starter
            self._begin_turn(first)
            if mode == "any":
                self.any_card = True
            elif mode == "first_player_names":
                self.awaiting_suit = self.players[first]
            return
        if not self.rules.starter_effect:
            self._begin_turn(first)
            return
        self.current = before
        self._after_cards(self.players[before], [starter], starter_card=True)
        if info.wild:  # ruling 17: a wild draw starter (Pesten Joker) keeps its draw
            if self.rules.wild_starter == "any":
                self.any_card = True
            elif self.rules.wild_starter == "first_player_names":
                self.awaiting_suit = self.current_player  # named first (ruling 24)

    # --- turn actions

    def _resolve_skip(self, player: str, answer: Card | None = None) -> None:
        """A pending skip that the skipped player does not answer is taken (ruling 6): an
        event by another player, or, where the skips come round to the skipped player
        again (several skip cards at a small table), one that is no answer."""
        if not self.pending_skip:
            return
        comes_back = self._next_seat(self.current, self.pending_skip) == self.current
        if player != self.current_player or (
            comes_back and (answer is None or not self._answers_skip(answer))
        ):
            self.turns[self.current_player] -= 1
            for k in range(self.pending_skip):
                self.skipped[self.players[self._next_seat(self.current, k)]] += 1
            steps = self.pending_skip
            self.pending_skip = 0
            self.skip_rank = None
            self._begin_turn(self._next_seat(self.current, steps))

    def _settle(self) -> None:
        """A pending draw with no card left anywhere lapses before its player draws
        anything; the player plays on, as after a draw card played on an empty stock
        (PRESETS.md ruling 12; OpenSpiel's crazy_eights agrees)."""
        if self.prev_owed and self._drawable() == 0:
            self.prev_owed.clear()
        if self.pending_draw and self.phase == PLAY and self._drawable() == 0:
            self.pending_draw = 0
            self.pending_rank = None
            self.serving = False

    def _turn_check(self, player: str, verb: str, cards: list[Card] | None = None) -> None:
        if self.pending_draw or self.prev_owed:
            self._settle()
        if self.phase != PLAY:
            self._not_in_play(player, verb, cards)
        if self.awaiting_suit is not None:
            starter = not self.plays and len(self.discard) == 1  # wild_starter names it
            self._fail(
                "missing_suit_choice",
                (
                    f"{self.awaiting_suit} names the suit for the wild starter "
                    f"{self.discard[-1]} first; {player} {_what(verb, cards)} instead"
                )
                if starter
                else f"{self.awaiting_suit} played a wild card and named no suit; "
                f"{player} {_what(verb, cards)} instead",
                "option wild_starter = 'first_player_names'; PRESETS.md ruling 24"
                if starter
                else "option wild_names_suit; FORMAT.md Conventions (suit right after the wild)",
                f"a suit event by {self.awaiting_suit}",
            )
        if self.penalty_owed is not None and self.penalty_owed[0] != player:
            owed_by = self.penalty_owed[0]
            self._fail(
                "missed_penalty",
                f"{owed_by} still owes {self.penalty_owed[1]} penalty card(s) "
                "(the stock ran out mid-penalty)",
                "PRESETS.md ruling 10",
                f"a reshuffle, then {owed_by}'s penalty draw",
            )
        owed = self.prev_owed.get(player) if self.prev_owed else None
        if owed:
            self._fail(
                "missed_penalty",
                f"{player} {_what(verb, cards)} but first owes an effect draw of {owed}",
                "option draw_previous; PRESETS.md ruling 8",
                f"{player} draws {owed} (effect)",
            )
        if self.pending_skip:
            self._resolve_skip(player)
        if player != self.players[self.current]:
            starts = self.match is not None and not self.first_action_done
            self._fail(
                "wrong_starter" if starts else "wrong_player",
                f"{player} {_what(verb, cards)} but it is {self.current_player}'s turn"
                + (
                    f": {self.current_player} makes the first turn action of round "
                    f"{self.match.round} of match {self.match.match_id}"
                    if starts and self.match is not None
                    else ""
                ),
                (f"option first_player = {self.rules.first_player!r}; PRESETS.md ruling 23")
                if starts
                else "turn order (FORMAT.md Conventions: Seats and turns)",
                self.describe_legal(),
            )
        self.first_action_done = True

    def _not_in_play(self, player: str, verb: str, cards: list[Card] | None) -> None:
        if self.phase in (OUT, ENDED):
            why = (
                f"{self.out_player} went out"
                if self.phase == OUT
                else f"the round ended ({self.ended_reason})"
            )
            self._fail(
                "play_after_round_end",
                f"{player} {_what(verb, cards)} after the round was over: {why}",
                "RULES.md (first player to empty the hand ends the round)",
                "round_end" if self.phase == ENDED else "a call, a catch, or round_end",
            )
        if self.phase == SETUP:
            self._fail(
                "missing_header",
                f"{player} {_what(verb, cards)} before the deal",
                "FORMAT.md Events",
            )

    def _on_play(self, ev: Play) -> None:
        player = ev.player
        if player not in self.seat:
            self._known_player(player, "play")
        cards = ev.cards
        if not cards:
            self._fail("schema_error", "play.cards is empty", "FORMAT.md Events (play)")
        table = self.cards
        if not all(c in table for c in cards):
            cards = [self._check_card(c, "play.cards") for c in cards]
        if ev.jump_in and not self.rules.jump_in:
            self._fail(
                "wrong_player",
                f"{player} jumps in with {' '.join(cards)}, but this ruleset has no jump-in",
                "option jump_in = false",
                self.describe_legal(),
            )
        if len(cards) > 1:
            self._check_multi(player, cards)
        if self.rules.jump_in and (
            ev.jump_in or (self.phase == PLAY and player != self.current_player)
        ):
            problem = self._jump_problem(player, cards)
            if problem is None:
                self._lay_down(player, cards, jump=True)
                return
            if ev.jump_in:
                self._fail(problem[0], f"{player} may not jump in: {problem[1]}", *problem[2:])
        card = cards[0]
        # the skipped player may answer a pending skip (ruling 6)
        if self.phase == PLAY and self.awaiting_suit is None:
            self._resolve_skip(player, card)
        answering_skip = bool(
            self.pending_skip and player == self.current_player and self.phase == PLAY
        )
        self._turn_check(player, "plays", cards)
        self._check_in_hand(player, cards)
        self._check_play_legal(player, card, answering_skip)
        if len(cards) > 1 and not self._finish_allowed(player, cards[-1], len(cards)):
            self._fail(
                "card_does_not_match",
                f"{player} may not go out on {cards[-1]}",
                f"option no_finish_on = {list(self.rules.no_finish_on)}; PRESETS.md ruling 19",
                self.describe_legal(),
            )
        self._lay_down(player, cards, answering_skip=answering_skip)

    def _check_in_hand(self, player: str, cards: list[Card]) -> None:
        hand = self.hands[player]
        if len(cards) == 1:
            if cards[0] in hand:
                return
            if self.unseen is not None and HIDDEN in hand and self.unseen[cards[0]] > 0:
                return  # from the hidden part of the hand
            missing = cards[0]
        else:
            short = Counter(cards) - Counter(hand)
            if self.unseen is not None and short:
                hidden = hand.count(HIDDEN)
                if sum(short.values()) <= hidden and not short - self.unseen:
                    return
            if not short:
                return
            missing = " ".join(sorted(short.elements()))
        if self.unseen is not None and HIDDEN in hand:
            # a hidden hand: say where the card is seen; what it could legally play is hidden
            need = Counter(missing.split())
            gone = [c for c in need if self.unseen[c] < need[c]]
            self._fail(
                "card_not_in_hand",
                f"{player} plays {missing} from a hidden hand, but "
                + (
                    "no such card is left unseen: " + "; ".join(self._seen_at(c) for c in gone)
                    if gone
                    else f"only {hand.count(HIDDEN)} of {player}'s cards are hidden"
                ),
                "FORMAT.md Information levels (conservation against the unseen cards)",
                f"a card still unseen that the rules allow here (which of them {player} "
                "holds is hidden), or a draw or pass where the hidden hand allows one",
            )
        self._fail(
            "card_not_in_hand",
            f"{player} plays {missing} but holds {' '.join(hand) or 'no cards'}",
            "FORMAT.md Conventions (card conservation)",
            self.describe_legal(),
        )

    def _seen_at(self, card: Card) -> str:
        """Where every copy of ``card`` is seen in a partial log, for a message."""
        places = []
        k = self.discard.count(card)
        if k:
            face_up = " (the face-up starter)" if self.discard == [card] else ""
            places.append(f"on the discard pile{face_up}")
        for p, h in self.hands.items():
            if card in h:
                places.append(f"in {p}'s hand")
        if not places:
            places.append("already played and not back in the stock")
        return f"{card} is " + " and ".join(places)

    def _check_multi(self, player: str, cards: list[Card]) -> None:
        """Several cards in one play (option ``multi_play``; RULES.md 8 and 11)."""
        mode = self.rules.multi_play
        rank = self.cards[cards[0]].rank
        if rank in self.rules.multi_play_any_suit and all(
            self.cards[c].rank == rank for c in cards
        ):
            return  # cards of one such rank, whatever their suits (ruling 21)
        if mode == "none":
            self._fail(
                "card_does_not_match",
                f"{player} plays {len(cards)} cards at once; one card per play here",
                "option multi_play = 'none'",
                "one card",
            )
        first = cards[0]
        if mode == "identical":
            ok = all(c == first for c in cards)
            what = "identical cards"
        else:
            rank = self.cards[first].rank
            ok = all(self.cards[c].rank == rank for c in cards)
            what = "cards of one rank"
        if not ok:
            self._fail(
                "card_does_not_match",
                f"{player} plays {' '.join(cards)} together; only {what} go down together",
                f"option multi_play = {mode!r}",
                "one card, or " + what,
            )

    def _jump_problem(self, player: str, cards: list[Card]) -> tuple[str, ...] | None:
        """Why ``player`` may not jump in with ``cards`` now, or None (PRESETS.md ruling 7)."""
        rule = "option jump_in; PRESETS.md ruling 7"
        if self.phase != PLAY:
            return ("play_after_round_end", "the round is over", rule)
        if self.awaiting_suit is not None:
            return (
                "missing_suit_choice",
                f"{self.awaiting_suit} has not named the suit yet",
                rule,
                f"a suit event by {self.awaiting_suit}",
            )
        if not self.jump_open:
            return (
                "wrong_player",
                "a jump-in comes only right after a play (not on the starter, not after a "
                "draw, a pass or a penalty)",
                rule,
            )
        if player == self.last_player:
            return ("wrong_player", "nobody jumps in on the own play", rule)
        if self.cover_owed is not None or self.play_again_owed:
            return ("wrong_player", "a cover or a play-again is owed", rule)
        if self.prev_owed.get(player):
            return (
                "missed_penalty",
                f"{player} owes {self.prev_owed[player]} card(s) to draw first",
                "option draw_previous; PRESETS.md ruling 8",
            )
        top = self.discard[-1]
        if any(c != top for c in cards):
            return (
                "card_does_not_match",
                f"{' '.join(cards)} is not identical to the top card {top}",
                rule,
            )
        short = Counter(cards) - Counter(self.hands[player])
        if (
            short
            and self.unseen is not None
            and sum(short.values()) <= self.hands[player].count(HIDDEN)
            and not (short - self.unseen)
        ):
            short = Counter()
        if short:
            return (
                "card_not_in_hand",
                f"{player} does not hold {' '.join(sorted(short.elements()))}",
                "FORMAT.md Conventions (card conservation)",
            )
        return None

    def _lay_down(
        self, player: str, cards: list[Card], answering_skip: bool = False, jump: bool = False
    ) -> None:
        """Move played cards to the discard pile and apply them (the checks are done)."""
        if self.just_skipped:
            self.just_skipped = set()
        hand = self.hands[player]
        for card in cards:
            if card in hand:
                hand.remove(card)
            else:  # a card shown from a hidden hand (checked by _check_in_hand)
                assert self.unseen is not None
                hand.remove(HIDDEN)
                self.unseen[card] -= 1
        if hand:  # a fault is caught before the next turn action, or right after going out
            self.faults.pop(player, None)
        self.plays += 1
        self.blocked_passes = 0
        self.discard.extend(cards)
        self.last_play = cards
        info = self.cards[cards[0]]
        last = self.cards[cards[-1]]
        cancels = False
        if self.pending_draw and (info.cancel or (info.wild and self.rules.wild_on_pending)):
            cancels = True
            self.pending_draw = 0
            self.pending_rank = None
        if answering_skip or jump:  # the answered skip lapses; a jumper's replaces it
            self.pending_skip = 0
            self.skip_rank = None
        if jump:
            self.turns[player] += 1
        self.cover_owed = None
        self.cover_drawing = False
        self.must_play = None
        self.play_again_owed = False
        self.any_card = False
        self.suit_to_follow = None
        self.top_played_wild = last.wild
        if len(hand) == 1 and (self.rules.call_last_card or self.rules.call_last_wild):
            self.window = (player, "last")
        self._after_cards(player, cards, cancels=cancels)
        if not hand and self.cover_owed is not None:
            # emptying the hand while a cover is owed is not going out (ruling 19): the call
            # window closes with no fault and a call fault of the player lapses
            self.window = None
            self.faults.pop(player, None)
        if player != self.last_turn_actor:
            self.prev_turn_actor = self.last_turn_actor
            self.last_turn_actor = player
        self.jump_open = True
        self.last_player = player
        if not hand and self.cover_owed is None:
            # a play-again card owes a further card only "if there is one" (ruling 4): an
            # empty hand ends the round; a cover is owed even then (ruling 5)
            self.play_again_owed = False
            self._go_out(player)
        elif self.rules.max_plays is not None and self.plays >= self.rules.max_plays:
            self.phase = ENDED  # a wild card that ends the round names no suit
            self.awaiting_suit = None
            self.prev_owed.clear()
            self.ended_reason = f"max_plays = {self.rules.max_plays} reached"

    def _note_turn_action(self, player: str) -> None:
        if player != self.last_turn_actor:
            self.prev_turn_actor = self.last_turn_actor
            self.last_turn_actor = player

    def _check_play_legal(self, player: str, card: Card, answering_skip: bool) -> None:
        if self.can_play(player, card):
            return
        info = self.cards[card]
        if answering_skip:
            self._fail(
                "card_does_not_match",
                f"{player} is skipped by a {self.skip_rank} and may only answer with a "
                f"{self.skip_rank}; {card} does not answer it",
                "option skip_answer; PRESETS.md ruling 6",
                self.describe_legal(),
            )
        if self.pending_draw and not self.serving:
            self._fail(
                "missed_penalty",
                f"{player} must draw {self.pending_draw} (pending from a {self.pending_rank}) "
                f"or answer it; {card} does not answer it",
                f"options draw, draw_answer = {self.rules.draw_answer!r}; PRESETS.md ruling 22",
                self.describe_legal(),
            )
        if self.must_play is not None:
            self._fail(
                "card_does_not_match",
                f"{player} drew {self.must_play}, which covers the "
                f"{self.discard[-1]}, and must play it",
                "option cover_draw; PRESETS.md ruling 5",
                self.describe_legal(),
            )
        cover = self.cover_owed
        cover_suit = self.cards[cover].suit if cover is not None else None
        if self.cover_drawing and cover is not None:
            self._fail(
                "card_does_not_match",
                f"{player} plays {card} while drawing to cover {cover}: the draw goes on "
                f"until a card of the suit {cover_suit} comes, and only that card covers",
                "option cover_draw = 'until_suit'; PRESETS.md ruling 20",
                self.describe_legal(),
            )
        if self.cover_drawn and self._drawn_before_suit(card):
            self._fail(
                "card_does_not_match",
                f"{player} drew {card} for a cover before a card of the cover suit came; "
                "such a card may not be played in that turn",
                "option cover_draw = 'until_suit'; PRESETS.md ruling 20",
                self.describe_legal(),
            )
        if self.turn_over_after_draw or self.serving:
            self._fail(
                "card_does_not_match",
                (
                    f"{player} drew for the cover and the card drawn does not cover: the turn "
                    "is over (pass)"
                    if self.turn_over_after_draw
                    else f"{player} may not play after that draw"
                ),
                (
                    f"option cover_draw = {self.rules.cover_draw!r}; PRESETS.md ruling 5"
                    if self.turn_over_after_draw
                    else "options draw_ends_turn / cover_draw"
                ),
                self.describe_legal(),
            )
        if (
            self.draws_this_turn
            and self.rules.play_after_draw == "drawn"
            and card != self.drawn_card
        ):
            self._fail(
                "card_does_not_match",
                f"after drawing, {player} may play only the drawn card ({self.drawn_card})",
                "option play_after_draw = 'drawn'",
                self.describe_legal(),
            )
        if self.draws_this_turn and self.rules.play_after_draw == "none":
            self._fail(
                "card_does_not_match",
                f"{player} may not play after drawing",
                "option play_after_draw = 'none'",
                self.describe_legal(),
            )
        if not self._finish_allowed(player, card):
            self._fail(
                "card_does_not_match",
                f"{player} may not go out on {card}",
                f"option no_finish_on = {list(self.rules.no_finish_on)}; PRESETS.md ruling 19",
                self.describe_legal(),
            )
        top = self.discard[-1]
        if cover is not None and self.rules.cover_match == "suit":
            why = f"{card} does not cover {cover}: only a card of the suit {cover_suit} covers"
            rule = "option cover_match = 'suit'; PRESETS.md ruling 20"
        elif info.wild:
            why = f"{card} is wild but may not go on the wild card {top}"
            rule = "option wild_on_wild = false"
        elif self.suit_to_follow is not None:
            why = (
                f"{card} does not follow the suit {self.suit_to_follow} named for the wild "
                f"card {top}"
            )
            rule = (
                f"options wild = {list(self.rules.wild)}, wild_names_suit; "
                "RULES.md (a named suit must be followed)"
            )
        elif self.cards[top].suit is None:
            why = (
                f"{top} lies with no suit named, so it has no suit or rank to match: only a "
                "joker or a wild card may go on it"
            )
            rule = "PRESETS.md ruling 18"
        else:
            why = f"{card} matches neither the suit nor the rank of {top}"
            rule = "RULES.md (a card matches the rank or suit of the top discard)"
        self._fail(
            "card_does_not_match", f"{player} plays {card}: {why}", rule, self.describe_legal()
        )

    def _after_cards(
        self,
        player: str,
        cards: list[Card],
        starter_card: bool = False,
        cancels: bool = False,
    ) -> None:
        """Apply the powers of the cards just played and move the turn (RULES.md 1-11;
        PRESETS.md rulings 1-8). Several cards in one play add up: draws sum, each skip
        card skips one more player, reverses flip the direction once each; the last card
        decides a wild's suit choice, a cover and a play-again."""
        rules = self.rules
        seat = self.seat[player]
        infos = [self.cards[c] for c in cards]
        last = infos[-1]
        if last.wild and rules.wild_names_suit and not starter_card and self.hands[player]:
            self.awaiting_suit = player
        if not starter_card and last.draw_previous:
            self._owe_previous(player, sum(i.draw_previous for i in infos))
        if not starter_card and last.cover:
            self.cover_owed = cards[-1]
            self._begin_turn_same(seat)
            return
        if not starter_card and last.play_again:
            self.play_again_owed = True
            self._begin_turn_same(seat)
            return
        steps = 1
        if last.reverse and (len(infos) == 1 or sum(i.reverse for i in infos) % 2):
            self.direction = -self.direction
            if self.n == 2 and rules.reverse_two_players == "skip":
                steps = 0
        if len(infos) == 1:
            draw = last.draw
            skips = 1 if last.skip and not last.draw else 0
        else:
            draw = sum(i.draw for i in infos)
            skips = sum(1 for i in infos if i.skip and not i.draw)
        if draw and not cancels:
            if self._drawable() > 0:
                self.pending_draw += draw
                self.pending_rank = last.rank
                self.pending_ends_turn = rules.draw_ends_turn or any(
                    i.skip for i in infos if i.draw
                )
            else:  # no card left anywhere: the draw card draws nothing (ruling 12)
                self.pending_draw = 0
                self.pending_rank = None
        elif skips:
            if rules.skip_answer or rules.wild_on_pending:
                # the skipped player may still answer (a skip card of the rank, or a wild
                # card that cancels it: ruling 2 and 6); the skip is taken when another
                # player acts
                self.pending_skip = skips
                self.skip_rank = last.rank
            else:
                for k in range(1, skips + 1):
                    skipped = self.players[self._next_seat(seat, k)]
                    self.skipped[skipped] += 1
                    self.just_skipped.add(skipped)
                steps += skips
        self._begin_turn(self._next_seat(seat, steps))

    def _owe_previous(self, player: str, count: int) -> None:
        """``draw_previous``: the last other player who took a turn action owes an effect
        draw before the own next turn action (PRESETS.md ruling 8)."""
        target = self.last_turn_actor if self.last_turn_actor != player else self.prev_turn_actor
        if target is not None and target != player:
            self.prev_owed[target] = self.prev_owed.get(target, 0) + count

    def _begin_turn_same(self, seat: int) -> None:
        self.current = seat
        self.draws_this_turn = 0
        self.drawn_card = None
        self.must_play = None
        self.turn_over_after_draw = False

    def _go_out(self, player: str) -> None:
        self.phase = OUT
        self.out_player = player
        self.awaiting_suit = None
        # the next turn (and any skip) the winning card began never happens, unless a catch
        # right after going out lets the round go on (then _reopen gives them back)
        self._phantom = (self.current_player, set(self.just_skipped))
        self.turns[self.current_player] -= 1
        for p in self.just_skipped:
            self.skipped[p] -= 1
        self.prev_owed.clear()  # the end of the round voids draws owed (ruling 8)
        if self.rules.call_going_out:
            self.window = (player, "out")

    def _on_suit(self, ev: SuitChoice) -> None:
        player = self._known_player(ev.player, "suit")
        if self.phase in (OUT, ENDED):
            self._fail(
                "play_after_round_end",
                f"{player} names a suit after the round was over",
                "FORMAT.md Conventions (a wild card that empties the hand names no suit)",
                "round_end",
            )
        if self.awaiting_suit is None:
            self._fail(
                "wrong_player",
                f"{player} names a suit but no wild card waits for one",
                "FORMAT.md Conventions (suit right after its wild card); PRESETS.md ruling 16",
                self.describe_legal(),
            )
        if player != self.awaiting_suit:
            self._fail(
                "wrong_player",
                f"{player} names a suit, but the wild card was {self.awaiting_suit}'s",
                "FORMAT.md Conventions (suit right after its wild card)",
                f"a suit event by {self.awaiting_suit}",
            )
        self.suit_to_follow = ev.suit
        self.awaiting_suit = None

    def _on_draw(self, ev: Draw) -> None:
        player = self._known_player(ev.player, "draw")
        if ev.cards is not None and ev.count is None and not ev.cards:
            self._fail("wrong_draw_count", f"{player} draws no cards", "FORMAT.md Events (draw)")
        if self.prev_owed.get(player) and ev.reason in (None, "effect"):
            self._serve_previous(player, ev)
            return
        self._turn_check(player, "draws")
        self.just_skipped = set()
        self.jump_open = False
        self._note_turn_action(player)
        if self.pending_skip:
            self._fail(
                "wrong_player",
                f"{player} is skipped and may not draw",
                "option skip; PRESETS.md ruling 6",
                self.describe_legal(),
            )
        n = _size(ev, 1)
        rules = self.rules
        if self.pending_draw:
            if ev.reason is not None and ev.reason != "effect":
                self._fail(
                    "missed_penalty",
                    f"{player} must serve the pending draw of {self.pending_draw}, "
                    f"not draw for {ev.reason!r}",
                    "option draw; FORMAT.md Conventions (effect draws); PRESETS.md ruling 22",
                    self.describe_legal(),
                )
            if n > self.pending_draw:
                self._fail(
                    "wrong_draw_count",
                    f"{player} draws {n} but owes {self.pending_draw}",
                    f"option draw = {dict(rules.draw)}",
                    f"draw {self.pending_draw}",
                )
            if n < self.pending_draw and n != len(self.stock):
                self._fail(
                    "wrong_draw_count",
                    f"{player} draws {n} but owes {self.pending_draw} and the stock holds "
                    f"{len(self.stock)}"
                    + (
                        ": a reshuffle must be logged before the draw"
                        if not self.stock and self._drawable()
                        else ""
                    ),
                    f"option draw = {dict(rules.draw)}; PRESETS.md ruling 12",
                    f"draw {min(self.pending_draw, len(self.stock))}",
                )
            self._take(player, ev.cards, ev.count, f"{player}'s draw")
            self.faults.pop(player, None)
            if (
                rules.emptying_draw_counts_as_pass
                and n == self.pending_draw
                and self._drawable() == 0
            ):
                self.blocked_passes += 1  # OpenSpiel counts it toward the blocked passes
            self.pending_draw -= n
            self.serving = True
            if self.pending_draw and self._drawable() == 0:
                self.pending_draw = 0  # nothing left anywhere: the rest lapses (ruling 12)
            if not self.pending_draw:
                self.pending_rank = None
                if self.pending_ends_turn:
                    self._end_turn()
                else:
                    self.serving = False
            return
        if ev.reason == "effect":
            self._fail(
                "wrong_draw_count",
                f"{player} draws for an effect but no draw is pending",
                "FORMAT.md Conventions (effect draws); PRESETS.md ruling 16",
                self.describe_legal(),
            )
        ok, _ = self._can_draw(player)
        if not ok:
            self._fail(
                "wrong_draw_count",
                f"{player} may not draw here: " + self._why_no_draw(player),
                (
                    "PRESETS.md rulings 11-12"
                    if not self._drawable()
                    else f"option cover_draw = {rules.cover_draw!r}; PRESETS.md ruling 5"
                    if self.must_play is not None or self.turn_over_after_draw
                    else self._draw_rule()
                ),
                self.describe_legal(),
            )
        if self.cover_owed is not None:
            self._cover_draw(player, ev, n)
            return
        if n != 1:
            self._fail(
                "wrong_draw_count",
                f"{player} draws {n} cards; a draw takes one card",
                "RULES.md (a player who cannot play draws one card)",
                "draw 1",
            )
        drawn = self._take(player, ev.cards, ev.count, f"{player}'s draw")
        self.faults.pop(player, None)
        self.draws_this_turn += 1
        self.drawn_card = drawn[0]
        if rules.play_after_draw == "none":
            self._end_turn()

    def _serve_previous(self, player: str, ev: Draw) -> None:
        """An out-of-turn effect draw for a ``draw_previous`` card (PRESETS.md ruling 8);
        a player who owes both this and a pending draw serves this one first."""
        if self.phase != PLAY:
            self._fail(
                "play_after_round_end",
                f"{player} draws after the round was over",
                "PRESETS.md ruling 8 (the end of the round voids it)",
            )
        if self.awaiting_suit is not None:
            self._fail(
                "missing_suit_choice",
                f"{self.awaiting_suit} played a wild card and named no suit; {player} draws",
                "FORMAT.md Conventions (suit right after the wild)",
                f"a suit event by {self.awaiting_suit}",
            )
        owed = self.prev_owed[player]
        n = _size(ev, owed)
        if n > owed or (n < owed and n != len(self.stock)):
            self._fail(
                "wrong_draw_count",
                f"{player} draws {n} but owes {owed} for the previous-player draw",
                f"option draw_previous = {dict(self.rules.draw_previous)}; PRESETS.md ruling 8",
                f"draw {min(owed, len(self.stock)) or owed}",
            )
        self._take(player, ev.cards, None if ev.cards is not None else n, f"{player}'s draw")
        self.jump_open = False
        left = owed - n
        if left and self._drawable():
            self.prev_owed[player] = left
        else:
            del self.prev_owed[player]

    def _why_no_draw(self, player: str) -> str:
        if self.must_play is not None:
            return f"the drawn {self.must_play} covers and must be played"
        if self.turn_over_after_draw:
            return "the turn is over after that draw; pass"
        if self._drawable() == 0:
            return (
                "nothing is left to draw (the stock is empty and the discard pile cannot be "
                "reshuffled); a player with no card to play passes"
            )
        if self.draws_this_turn >= self.rules.max_draws:
            return f"already drew {self.draws_this_turn} time(s) this turn"
        plays = self.legal_plays(player)
        if plays:
            return f"{player} can play ({' '.join(plays)}) and voluntary draws are not allowed"
        return "the rules do not allow a draw now"

    def _draw_rule(self) -> str:
        return (
            f"options voluntary_draw = {str(self.rules.voluntary_draw).lower()}, "
            f"max_draws = {self.rules.max_draws}; PRESETS.md ruling 16"
        )

    def _cover_draw(self, player: str, ev: Draw, n: int) -> None:
        """Draw for a cover that cannot be made (option ``cover_draw``; ruling 5)."""
        cover = self.cover_owed
        assert cover is not None
        suit = self.cards[cover].suit
        if self.rules.cover_draw == "one":
            if n != 1:
                self._fail(
                    "wrong_draw_count",
                    f"{player} draws {n} cards to cover {cover}; cover_draw takes one",
                    "option cover_draw = 'one'",
                    "draw 1",
                )
            card = self._take(player, ev.cards, ev.count, f"{player}'s cover draw")[0]
            if card == HIDDEN:
                self._hidden_cover_draw()
            elif self.playable(card):
                self.must_play = card
            else:
                self.cover_owed = None
                if self.rules.play_after_draw == "none":
                    self._end_turn()
                else:
                    self.turn_over_after_draw = True
            return
        drawn = self._take(player, ev.cards, ev.count, f"{player}'s cover draw")
        if HIDDEN in drawn:
            self._hidden_cover_draw()
            return
        for i, c in enumerate(drawn):
            if self.cards[c].suit == suit and i != len(drawn) - 1:
                self._fail(
                    "wrong_draw_count",
                    f"{player} drew on past {c}, a card of the cover suit",
                    "option cover_draw = 'until_suit'",
                    f"stop at {c}",
                )
        self.cover_drawing = True
        self.cover_drawn.update(c for c in drawn if self.cards[c].suit != suit)  # ruling 20
        if self.cards[drawn[-1]].suit == suit:
            self.must_play = drawn[-1]
            self.cover_drawing = False
        elif self._drawable() == 0:
            self.cover_owed = None
            self.cover_drawing = False
            self.turn_over_after_draw = True

    def _hidden_cover_draw(self) -> None:
        """A cover drawn into a hidden hand: whether it covers cannot be seen, so the player
        may cover (with a card legal on the cover card) or end the turn."""
        self.unchecked.add("whether a hidden cover draw could cover")
        if self.rules.play_after_draw == "none":
            self.cover_owed = None
            self._end_turn()
            return
        self.cover_drawing = False
        self.draws_this_turn = self.rules.max_draws
        self.drawn_card = HIDDEN

    def _on_pass(self, ev: Pass) -> None:
        player = self._known_player(ev.player, "pass")
        if player in self.just_skipped and player != self.current_player:
            self._fail(
                "illegal_pass",
                f"{player} is skipped: a skipped player logs nothing",
                "option skip; PRESETS.md ruling 6",
                self.describe_legal(),
            )
        self._turn_check(player, "passes")
        self.just_skipped = set()
        if self.pending_skip:
            self._fail(
                "illegal_pass",
                f"{player} is skipped: a skipped player logs nothing",
                "option skip; PRESETS.md ruling 6",
                self.describe_legal(),
            )
        if self.pending_draw and not self.serving:
            self._fail(
                "missed_penalty",
                f"{player} passes instead of drawing the pending {self.pending_draw}",
                "option draw; PRESETS.md ruling 22",
                self.describe_legal(),
            )
        self.jump_open = False
        self._note_turn_action(player)
        if not self._can_pass(player):
            if self.rules.play_after_draw == "none" and self.draws_this_turn:
                why = "the draw already ended the turn"
            elif self.must_play is not None:
                why = f"the drawn {self.must_play} covers and must be played"
            elif not self.stock and self._drawable():
                why = (
                    "the stock is empty but the discard pile can be reshuffled: a reshuffle "
                    "must be logged before the draw"
                )
            elif not self.draws_this_turn:
                why = "a player passes only after drawing, or when there is nothing to draw"
            else:
                why = f"drew {self.draws_this_turn} of {self.rules.max_draws} allowed draws"
            self._fail(
                "illegal_pass",
                f"{player} may not pass: {why}",
                "FORMAT.md Conventions (reshuffle); PRESETS.md ruling 11"
                if not self.stock and self._drawable() and not self.draws_this_turn
                else f"options play_after_draw = {self.rules.play_after_draw!r}, max_draws = "
                f"{self.rules.max_draws}; PRESETS.md ruling 11",
                self.describe_legal(),
            )
        if self._drawable() == 0:
            self.blocked_passes += 1
            limit = self.n + (1 if self.rules.blocked_passes == "players+1" else 0)
            if self.blocked_passes >= limit:
                self.phase = ENDED
                self.ended_reason = f"{limit} passes in a row on an empty stock"
                return
        self.faults.pop(player, None)
        self.cover_owed = None
        self.cover_drawing = False
        self._end_turn()

    def _on_call(self, ev: Call) -> None:
        player = self._known_player(ev.player, "mau")
        if self.phase == SETUP:
            self._fail("missing_header", f"{player} calls before the deal", "FORMAT.md Events")
        if self.phase == ENDED:
            self._fail(
                "play_after_round_end",
                f"{player} calls after the round ended ({self.ended_reason})",
                "FORMAT.md Events (round_end)",
                "round_end",
            )
        self.words.add(normalize_call(ev.call))

    def _on_penalty(self, ev: Penalty) -> None:
        player = self._known_player(ev.player, "penalty")
        rules = self.rules
        if self.phase in (SETUP, ENDED):
            self._fail(
                "wrong_penalty",
                f"a penalty for {player} outside play",
                "PRESETS.md ruling 10",
            )
        if self.awaiting_suit is not None:
            self._fail(
                "missing_suit_choice",
                f"{self.awaiting_suit} played a wild card and named no suit; "
                "a penalty came instead",
                "FORMAT.md Conventions (suit right after the wild)",
                f"a suit event by {self.awaiting_suit}",
            )
        owed = self.penalty_owed
        if owed is not None and owed[0] == player:
            need = owed[1]
        else:
            if ev.reason not in CALL_REASONS:
                self._fail(
                    "wrong_penalty",
                    f"penalty reason {ev.reason!r}: the only penalties this ruleset knows are "
                    "for a missed or wrong call",
                    "PRESETS.md ruling 10",
                )
            if rules.call_penalty == 0:
                self._fail(
                    "wrong_penalty",
                    f"{player} is penalized but this ruleset has no call penalty",
                    "option call_penalty = 0",
                )
            if ev.by is None or ev.by == player or ev.by not in self.seat:
                self._fail(
                    "wrong_penalty",
                    f"a call penalty must name the catcher, another player, in `by` "
                    f"(got {ev.by!r})",
                    "FORMAT.md Conventions (Calls); PRESETS.md ruling 10",
                )
            if player not in self.faults:
                caught = self.caught.get(player)
                self._fail(
                    "wrong_penalty",
                    f"{player} made no call fault that can be caught now"
                    + (
                        f" (the last call fault of {player} was already caught at event {caught})"
                        if caught is not None
                        else ""
                    ),
                    "PRESETS.md rulings 9-10 (calls and catches)",
                )
            need = rules.call_penalty
        n = _size(ev, need)
        if n > need or (n < need and n != len(self.stock)):
            self._fail(
                "wrong_penalty",
                f"{player} draws {n} penalty cards; the penalty is {need}",
                f"option call_penalty = {rules.call_penalty}",
                f"{need} cards",
            )
        self._take(player, ev.cards, None if ev.cards is not None else n, "the penalty")
        self.jump_open = False
        if self.faults.pop(player, None) is not None:
            self.caught[player] = self.event_index
        rest = need - n
        self.penalty_owed = (player, rest) if rest and self._drawable() else None
        if self.penalty_owed is None and self.suit_after_penalty is not None:
            self.awaiting_suit, self.suit_after_penalty = self.suit_after_penalty, None
        if self.phase == OUT and player == self.out_player:
            # caught right after going out: the round goes on (ruling 10)
            if self._phantom is not None:
                turn_of, skipped = self._phantom
                self.turns[turn_of] += 1
                for p in skipped:
                    self.skipped[p] += 1
                self._phantom = None
            self.phase = PLAY
            self.out_player = None
            self.window = None
            last = self.last_play[-1] if self.last_play else None
            if last is not None and self.cards[last].wild and rules.wild_names_suit:
                # the finishing wild card names its suit once the whole penalty is drawn
                if self.penalty_owed is None:
                    self.awaiting_suit = player
                else:
                    self.suit_after_penalty = player
            return
        if (
            rules.call_penalty_ends_turn
            and player == self.current_player
            and not self.pending_draw
            and not self.pending_skip
            and self.phase == PLAY
        ):
            self.cover_owed = None
            self.play_again_owed = False
            self._end_turn()

    def _on_reshuffle(self, ev: Reshuffle) -> None:
        if self.phase not in (PLAY, OUT):
            self._fail(
                "bad_reshuffle",
                "a reshuffle outside play",
                "FORMAT.md Conventions (reshuffle)",
            )
        if self.rules.empty_stock != "reshuffle":
            self._fail(
                "bad_reshuffle",
                "this ruleset never reshuffles: with an empty stock players pass",
                "option empty_stock = 'pass'",
            )
        if self.stock:
            self._fail(
                "bad_reshuffle",
                f"a reshuffle while the stock still holds {len(self.stock)} card(s)",
                "FORMAT.md Conventions (a reshuffle happens only when the stock is empty)",
            )
        under = self.discard[:-1]
        if not under:
            self._fail(
                "bad_reshuffle",
                "nothing to reshuffle: the discard pile holds only its top card",
                "FORMAT.md Conventions (reshuffle)",
            )
        if self.unseen is not None:  # a partial log: the new stock is hidden again
            if ev.count is not None and ev.count != len(under):
                self._fail(
                    "bad_reshuffle",
                    f"reshuffle.count is {ev.count} but the discard pile but its top holds "
                    f"{len(under)}",
                    "FORMAT.md Conventions (reshuffle)",
                )
            self.unseen.update(under)
            self.stock = [HIDDEN] * len(under)
            self.discard = self.discard[-1:]
            return
        if ev.stock is not None:
            new = [self._check_card(c, "reshuffle.stock") for c in ev.stock]
            if Counter(new) != Counter(under):
                extra = sorted((Counter(new) - Counter(under)).elements())
                missing = sorted((Counter(under) - Counter(new)).elements())
                self._fail(
                    "bad_reshuffle",
                    "the new stock is not the discard pile but its top card"
                    + (f"; not in the pile: {' '.join(extra)}" if extra else "")
                    + (f"; left out: {' '.join(missing)}" if missing else ""),
                    "FORMAT.md Conventions (reshuffle)",
                    f"a permutation of {len(under)} cards",
                )
            self.stock = new[::-1]
            self.stock_ordered = True
            if self.fair_seed is not None:
                self._check_fair_reshuffle(under, new)
        else:
            if ev.count is not None and ev.count != len(under):
                self._fail(
                    "bad_reshuffle",
                    f"reshuffle.count is {ev.count} but the discard pile but its top holds "
                    f"{len(under)}",
                    "FORMAT.md Conventions (reshuffle)",
                )
            self.stock = sorted(under)
            self.stock_ordered = False
            if self.fair_seed is not None:
                self._check_fair_reshuffle(under, None)
        self.discard = self.discard[-1:]

    def _check_fair_reshuffle(self, under: list[Card], logged: list[Card] | None) -> None:
        """The k-th reshuffle must be what the derived seed gives (``shuffle.py`` step 6)."""
        assert self.fair_seed is not None
        self.reshuffles += 1
        due = shuffled(under, reshuffle_seed(self.fair_seed, self.reshuffles))
        if logged is not None and logged != due:
            self._fail(
                "deal_not_from_seed",
                f"reshuffle {self.reshuffles}'s stock is not what the seed gives",
                "shuffle maumau-sha256-fy/1, step 6 (reshuffles)",
                f"stock top first: {' '.join(due[:8])} ...",
            )
        self.stock = due[::-1]
        self.stock_ordered = True

    def _on_abandon(self, ev: Abandon) -> None:
        if self.phase in (SETUP, PLAY, OUT):
            self.phase = ENDED
            self.ended_reason = f"abandoned ({ev.reason or 'no reason given'})"
            self.awaiting_suit = None
            return
        self._fail(
            "play_after_round_end",
            "abandon after the round was over",
            "FORMAT.md Events (abandon)",
        )

    def _on_round_end(self, ev: RoundEnd) -> None:
        self._close_window()
        if self.phase in (SETUP, PLAY):
            legal = self.describe_legal() if self.phase == PLAY else "the deal"
            self._fail(
                "round_not_finished",
                "round_end while the round goes on: no one has emptied the hand"
                + (f" (winner claimed: {ev.winner})" if ev.winner else ""),
                "RULES.md (the first player to empty the hand ends the round)",
                legal,
            )
        winner = self.out_player if self.phase == OUT else None
        if ev.winner != winner:
            self._fail(
                "wrong_winner",
                f"round_end names {ev.winner!r} as the winner, but "
                + (
                    f"{winner} emptied the hand"
                    if winner
                    else f"the round ended with no winner ({self.ended_reason})"
                ),
                "FORMAT.md Conventions (round_end.winner)",
                f"winner {winner!r}",
            )
        final = self.hands
        if ev.hands is not None:
            final = dict(self.hands)
            unseen = Counter(self.unseen) if self.unseen is not None else Counter()
            for p in self.players:
                claimed = ev.hands.get(p)
                if (
                    isinstance(claimed, list)
                    and self.unseen is None
                    and sorted(claimed) == sorted(self.hands[p])
                ):
                    continue  # the usual case: the hand as replayed, in any order
                held = Counter(self.hands[p])
                hidden = held.pop(HIDDEN, 0)
                if isinstance(claimed, HandCount):
                    ok = claimed.count == len(self.hands[p])
                elif claimed is None:
                    ok = False
                else:
                    shown = Counter(canonical(c) if is_card_code(c) else c for c in claimed)
                    extra = shown - held  # what the round end reveals of a hidden hand
                    ok = not (held - shown) and sum(extra.values()) == hidden
                    if ok and hidden:
                        ok = not (extra - unseen)
                        unseen -= extra
                        final[p] = list(shown.elements())
                if not ok:
                    self._fail(
                        "wrong_score",
                        f"round_end.hands gives {p} {claimed!r}, but {p} holds {self.hands[p]}",
                        "PRESETS.md ruling 16",
                        f"{p}: {self.hands[p]}",
                    )
        self.winner = winner
        if any(HIDDEN in h for h in final.values()):
            self.unchecked.add("the round's scores (hands still hidden at the end)")
            self.phase = FINISHED
            return
        scores = round_scores(self.rules, self.players, final, winner, self.last_play)
        self.scores = scores
        self._match_after_round(winner, scores)
        if ev.scores is not None and self.rules.scoring != "none":
            for p in self.players:
                if p not in ev.scores:
                    self._fail(
                        "wrong_score",
                        f"round_end.scores does not list {p}",
                        "PRESETS.md ruling 13 (scores list every player)",
                        str(scores),
                    )
                if ev.scores[p] != scores[p]:
                    self._fail(
                        "wrong_score",
                        f"round_end.scores gives {p} {ev.scores[p]}, the replay counts "
                        f"{scores[p]} ({self.rules.scoring})",
                        f"option scoring = {self.rules.scoring!r}; PRESETS.md ruling 13",
                        str(scores),
                    )
        self.phase = FINISHED

    def _match_after_round(self, winner: str | None, scores: dict[str, int]) -> None:
        """Running totals and the match's end after this round (ruling 14). A round with
        no match context counts as round 1 of a match of its own."""
        ctx = self.match
        before = ctx.totals if ctx is not None else {}
        won = dict(ctx.rounds_won) if ctx is not None else {}
        rounds = (ctx.rounds_before if ctx is not None else 0) + 1
        if winner is not None:
            won[winner] = won.get(winner, 0) + 1
        totals = add_scores(before, scores)
        left = list(self.players)
        if self.rules.loser_hand_shrink:
            sizes = ctx.hand_sizes if ctx is not None and ctx.hand_sizes else {}
            base = self.rules.hand_size_for(self.n)
            left = [p for p in self.players if sizes.get(p, base) - (p != winner) > 0]
        self.match_totals = totals
        self.match_rounds_won = won
        self.match_over = is_over(self.rules, totals, rounds, len(left))
        self.match_winner = match_winner(self.rules, self.players, totals, won, left)

    def _on_match_end(self, ev: MatchEnd) -> None:
        if self.phase != FINISHED:
            self._fail(
                "round_not_finished",
                "match_end before the round's round_end",
                "FORMAT.md Events (match_end)",
            )
        if self.match_end_seen:
            self._fail(
                "match_over_too_early",
                "a second match_end",
                "FORMAT.md Events (match_end)",
            )
        self.match_end_seen = True
        if self.match is not None and not self.match.checked:
            return  # earlier rounds are missing or invalid: nothing to recompute
        rules = self.rules
        end = (
            f"match_target = {rules.match_target}, match_rounds = {rules.match_rounds}, "
            f"scoring = {rules.scoring!r}; PRESETS.md ruling 14"
        )
        totals = self.match_totals or {}
        if not self.match_over:
            self._fail(
                "match_over_too_early",
                f"match_end after round {self.match.round if self.match else 1}, but no end "
                f"condition is met (totals {totals})",
                end,
                "another round",
            )
        if ev.totals is not None:
            for p in self.players:
                if ev.totals.get(p) != totals.get(p, 0):
                    self._fail(
                        "wrong_total",
                        f"match_end.totals gives {p} {ev.totals.get(p)!r}, the replay counts "
                        f"{totals.get(p, 0)}",
                        end,
                        str(totals),
                    )
        if ev.winner != self.match_winner:
            self._fail(
                "wrong_winner",
                f"match_end names {ev.winner!r} as the match winner; the replay finds "
                + (f"{self.match_winner}" if self.match_winner else "a draw")
                + f" (totals {totals}, rounds won {self.match_rounds_won})",
                end + " (highest or lowest total, then most rounds won, then a draw)",
                repr(self.match_winner),
            )

    def _on_game(self, ev: Game) -> None:  # pragma: no cover - split off by the replay
        self._fail("missing_header", "a header inside a game", "FORMAT.md Files")

    # ------------------------------------------------------------------ views

    def view(self) -> dict[str, Any]:
        """The state a dispute needs, JSON-ready.

        Returns:
            ``phase``, ``turn`` (whose turn), ``direction`` (1 clockwise, -1 counter),
            ``top`` (top discard), ``suit`` (suit to follow, named by a wild card),
            ``pending_draw``, ``pending_skip``, ``awaiting_suit``, ``cover_owed``,
            ``stock_size``, ``discard_size``, ``hands`` (player to cards),
            ``calls_due`` (catchable call faults, player to reason).
        """
        return {
            "phase": self.phase,
            "turn": self.current_player if self.phase == PLAY else None,
            "direction": self.direction,
            "top": self.discard[-1] if self.discard else None,
            "suit": self.suit_to_follow,
            "pending_draw": self.pending_draw,
            "pending_skip": self.pending_skip,
            "awaiting_suit": self.awaiting_suit,
            "cover_owed": self.cover_owed,
            "stock_size": len(self.stock),
            "discard_size": len(self.discard),
            "hands": {p: list(h) for p, h in self.hands.items()},
            "calls_due": dict(self.faults),
        }


def _size(ev: Draw | Penalty, default: int) -> int:
    """Cards a draw or penalty takes: its ``cards``, else its ``count``, else ``default``."""
    if ev.cards is not None:
        return len(ev.cards)
    return ev.count if ev.count is not None else default


def _what(verb: str, cards: list[Card] | None) -> str:
    """``"plays 7H 7D"`` for messages (built only when a check fails)."""
    return f"{verb} {' '.join(cards)}" if cards else verb


def _type_name(event: Event) -> str:
    return str(type(event).__struct_config__.tag)


_HANDLERS: dict[type, Any] = {
    Cut: Engine._on_cut,
    Deal: Engine._on_deal,
    Play: Engine._on_play,
    SuitChoice: Engine._on_suit,
    Draw: Engine._on_draw,
    Pass: Engine._on_pass,
    Call: Engine._on_call,
    Penalty: Engine._on_penalty,
    Reshuffle: Engine._on_reshuffle,
    RoundEnd: Engine._on_round_end,
    MatchEnd: Engine._on_match_end,
    Abandon: Engine._on_abandon,
    Game: Engine._on_game,
}
