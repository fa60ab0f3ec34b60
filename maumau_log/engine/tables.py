"""Per-ruleset tables: which cards may go on the discard pile, built once per ruleset
(RULES.md "What every system shares": a card matches the top card's suit or rank; RULES.md
1-2 and PRESETS.md ruling 1: wild cards, ``wild_on_wild``, a suit named by a wild card;
``wild_starter = "any"``).

python-chess builds its ``BB_*`` tables at import the same way: the question "may this card
go on the pile?" becomes one set look-up (:attr:`.state.State.pile_ok`), rebuilt only when
the pile's top, the named suit or the wild state changes (:func:`pile_cards`).
"""

from __future__ import annotations

from typing import Final, final

from ..cards import SUITS, Card
from ..rules import CardRule, Ruleset


@final
class CardInfo:
    """What one card does, as typed fields (the hot paths read these; the compiled build
    reads them as C struct fields, where a :class:`~maumau_log.rules.CardRule` tuple
    would be a dynamic attribute look-up). Built from the ruleset's ``CardRule``.

    Attributes:
        rank, suit, wild, draw, draw_previous, skip, reverse, play_again, cover, cancel:
            as :class:`~maumau_log.rules.CardRule`.
        plain: no wild, previous-player draw, cover or play-again power: after such a card
            alone the turn simply moves on (with its reverse, draw or skip).
        pile_after: the cards that may go on it right after it is played plainly (no
            suit named yet, no cover owed): :attr:`Tables.on_top` or ``on_top_wild``.
    """

    rank: Final[str]
    suit: Final[str | None]
    wild: Final[bool]
    draw: Final[int]
    draw_previous: Final[int]
    skip: Final[bool]
    reverse: Final[bool]
    play_again: Final[bool]
    cover: Final[bool]
    cancel: Final[bool]
    plain: Final[bool]
    pile_after: Final[frozenset[Card]]

    def __init__(self, rule: CardRule, pile_after: frozenset[Card]) -> None:
        self.rank = rule.rank
        self.suit = rule.suit
        self.wild = rule.wild
        self.draw = rule.draw
        self.draw_previous = rule.draw_previous
        self.skip = rule.skip
        self.reverse = rule.reverse
        self.play_again = rule.play_again
        self.cover = rule.cover
        self.cancel = rule.cancel
        self.plain = not (rule.wild or rule.draw_previous or rule.cover or rule.play_again)
        self.pile_after = pile_after


class Tables:
    """The pile tables of one ruleset.

    Attributes:
        wild: the wild cards.
        on_top: top card (played plainly) to the non-wild cards that match its suit or rank.
        of_suit: a named suit to the non-wild cards of that suit.
        plain: every non-wild card (``wild_starter = "any"``).
        with_suit: a suit (None for jokers) to every card of it, wild or not (the covers of
            ``cover_match = "suit"``, ruling 20).
        info: every card code to its :class:`CardInfo`.
    """

    wild: frozenset[Card]
    on_top: dict[Card, frozenset[Card]]
    on_top_wild: dict[Card, frozenset[Card]]
    of_suit: dict[str, frozenset[Card]]
    of_suit_wild: dict[str, frozenset[Card]]
    plain: frozenset[Card]
    plain_wild: frozenset[Card]
    with_suit: dict[str | None, frozenset[Card]]
    info: dict[Card, CardInfo]  # every card code of the pack to what it does

    def __init__(self, rules: Ruleset) -> None:
        cards = rules.cards
        self.wild = frozenset(c for c, i in cards.items() if i.wild)
        plain = [(c, i) for c, i in cards.items() if not i.wild]
        # the non-wild cards by suit and by rank: a card matches the top by one or the
        # other, so its set is the union of two groups (one pass over the pack, where a
        # scan of the pack per top card read 52 * 52 rules: 1.25M instructions per
        # ruleset compiled, 45M of an OpenSpiel import of 36 rulesets, callgrind)
        by_suit: dict[str | None, list[Card]] = {}
        by_rank: dict[str, list[Card]] = {}
        for c, i in plain:
            by_suit.setdefault(i.suit, []).append(c)
            by_rank.setdefault(i.rank, []).append(c)
        none: frozenset[Card] = frozenset()
        suit_set = {k: frozenset(v) for k, v in by_suit.items()}
        rank_set = {k: frozenset(v) for k, v in by_rank.items()}
        self.on_top = {}
        self.on_top_wild = {}
        for top, t in cards.items():
            ok = suit_set.get(t.suit, none) | rank_set.get(t.rank, none)
            self.on_top[top] = ok
            self.on_top_wild[top] = ok | self.wild
        self.of_suit = {}
        self.of_suit_wild = {}
        for suit in SUITS:
            ok = suit_set.get(suit, none)
            self.of_suit[suit] = ok
            self.of_suit_wild[suit] = ok | self.wild
        self.plain = frozenset(c for c, _ in plain)
        self.plain_wild = self.plain | self.wild
        self.with_suit = {}  # every card of a suit, wild or not (cover_match = "suit")
        for key in {i.suit for i in cards.values()}:
            self.with_suit[key] = frozenset(c for c, i in cards.items() if i.suit == key)
        # the pile after a card played plainly: state.update_pile with no suit named and
        # no cover owed (wild on wild only where wild_on_wild allows it)
        self.info = {
            c: CardInfo(
                i, self.on_top_wild[c] if rules.wild_on_wild or not i.wild else self.on_top[c]
            )
            for c, i in cards.items()
        }


_CACHE: dict[int, tuple[Ruleset, Tables]] = {}
_CACHE_SIZE = 64


def tables(rules: Ruleset) -> Tables:
    """The tables of ``rules``, built on first use (a small cache: memory stays flat)."""
    hit = _CACHE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    built = Tables(rules)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(rules)] = (rules, built)
    return built
