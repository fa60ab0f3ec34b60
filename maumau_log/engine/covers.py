"""Covers: drawing for a cover that cannot be made (option ``cover``, ``cover_draw``;
RULES.md 11, PRESETS.md ruling 5).

A cover card (Serbian Ace) makes its player lay another card legal on it. A player who
cannot (or, with ``voluntary_draw``, will not) draws: ``cover_draw = "one"`` takes one card,
then a drawn card that can cover must cover; ``"until_suit"`` draws until a card of the
cover card's suit comes, which must then be played, and the cards drawn before it may not
be played that turn (ruling 20). Under ``cover_match = "suit"`` only a card of the cover
card's suit covers (the pile's table, :func:`.state.update_pile`).
"""

from __future__ import annotations

from ..events import Draw
from .errors import fail, number_text
from .legality import playable
from .state import HIDDEN, State, drawable, end_turn, set_cover
from .stock import take


def cover_draw(s: State, player: str, ev: Draw, n: int) -> None:
    """Apply a draw for the owed cover (ruling 5).

    Raises:
        RuleViolation: ``wrong_draw_count`` (several cards under ``"one"``, drawing on past
            a card of the cover suit under ``"until_suit"``) or a stock error.
    """
    cover = s.cover_owed
    assert cover is not None
    suit = s.cards[cover].suit
    if s.rules.cover_draw == "one":
        if n != 1:
            fail(
                "wrong_draw_count",
                f"{player} draws {number_text(n)} cards to cover {cover}; cover_draw takes one",
                "option cover_draw = 'one'",
                "draw 1",
            )
        card = take(s, player, ev.cards, ev.count, "{}'s cover draw")[0]
        if card == HIDDEN:
            hidden_cover_draw(s)
        elif playable(s, card):
            s.must_play = card
        else:
            set_cover(s, None)
            if s.rules.play_after_draw == "none":
                end_turn(s)
            else:
                s.turn_over_after_draw = True
        return
    drawn = take(s, player, ev.cards, ev.count, "{}'s cover draw")
    if HIDDEN in drawn:
        hidden_cover_draw(s)
        return
    for i, c in enumerate(drawn):
        if s.cards[c].suit == suit and i != len(drawn) - 1:
            fail(
                "wrong_draw_count",
                f"{player} drew on past {c}, a card of the cover suit",
                "option cover_draw = 'until_suit'",
                f"stop at {c}",
            )
    s.cover_drawing = True
    s.cover_drawn.update(c for c in drawn if s.cards[c].suit != suit)  # ruling 20
    if s.cards[drawn[-1]].suit == suit:
        s.must_play = drawn[-1]
        s.cover_drawing = False
    elif drawable(s) == 0:
        set_cover(s, None)
        s.cover_drawing = False
        s.turn_over_after_draw = True


def hidden_cover_draw(s: State) -> None:
    """A cover drawn into a hidden hand: whether it covers cannot be seen, so the player
    may cover (with a card legal on the cover card) or end the turn."""
    s.unchecked.add("whether a hidden cover draw could cover")
    if s.rules.play_after_draw == "none":
        set_cover(s, None)
        end_turn(s)
        return
    s.cover_drawing = False
    s.draws_this_turn = s.rules.max_draws
    s.drawn_card = HIDDEN
