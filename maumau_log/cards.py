"""Cards, suits, ranks and packs (FORMAT.md "Cards").

Cards are plain strings in their canonical French code: a rank (``2``-``10``, ``J``,
``Q``, ``K``, ``A``) followed by a suit (``C``, ``D``, ``H``, ``S``), for example ``"10H"``
or ``"JC"``; jokers are ``"X"`` or ``"X1"``, ``"X2"``, ... Keeping the code itself as the
value makes parse and format round-trip trivially and keeps the replay fast: a card read
from a log is the card the engine works on.

German-suited packs use the same codes (Eichel=C, Schellen=D, Rot/Herz=H, Grün/Laub=S;
Unter=J, Ober=Q, König=K, Daus/Ass=A); :func:`german_name` renders a code the German way
and :func:`parse_card` also reads those names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

Card = str
"""A card code such as ``"10H"`` or ``"X1"`` (FORMAT.md "Cards")."""

Suit = str
"""One of ``"C"``, ``"D"``, ``"H"``, ``"S"``."""

Rank = str
"""One of ``"2"``-``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``, or ``"X"`` for a joker."""

SUITS: Final[tuple[Suit, ...]] = ("C", "D", "H", "S")
ALL_RANKS: Final[tuple[Rank, ...]] = (
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
)  # fmt: skip
JOKER: Final[Rank] = "X"

SUIT_NAMES: Final[dict[Suit, str]] = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
GERMAN_SUITS: Final[dict[Suit, str]] = {"C": "Eichel", "D": "Schellen", "H": "Rot", "S": "Grün"}
GERMAN_RANKS: Final[dict[Rank, str]] = {"J": "Unter", "Q": "Ober", "K": "König", "A": "Daus"}

_CARD_RE: Final = re.compile(r"^(?:(10|[2-9JQKA])([CDHS])|X[0-9]*)$")

_GERMAN_SUIT_WORDS: Final[dict[str, Suit]] = {
    "eichel": "C", "eicheln": "C", "kreuz": "C",
    "schellen": "D", "schelle": "D", "karo": "D",
    "rot": "H", "herz": "H",
    "grün": "S", "gruen": "S", "laub": "S", "blatt": "S", "pik": "S",
}  # fmt: skip
_GERMAN_RANK_WORDS: Final[dict[str, Rank]] = {
    "unter": "J", "bube": "J", "ober": "Q", "dame": "Q", "könig": "K", "koenig": "K",
    "daus": "A", "ass": "A", "sau": "A",
}  # fmt: skip


class CardError(ValueError):
    """A string that is not a card code (FORMAT.md "Cards"); the message names it."""


def is_card_code(text: str) -> bool:
    """Return True when ``text`` is a well-formed card code (any pack).

    Args:
        text: the candidate, e.g. ``"10H"``.
    Returns:
        True for ``"7H"``, ``"10C"``, ``"X"``, ``"X2"``; False for ``"7h"``, ``"1H"``.
    """
    return _CARD_RE.match(text) is not None


def rank_of(card: Card) -> Rank:
    """Return the rank of a well-formed code (``"10H"`` -> ``"10"``, ``"X1"`` -> ``"X"``)."""
    if card[0] == "X":
        return JOKER
    return card[:-1]


def suit_of(card: Card) -> Suit | None:
    """Return the suit of a well-formed code, or None for a joker."""
    if card[0] == "X":
        return None
    return card[-1]


def parse_card(text: str) -> Card:
    """Parse a card written as a French code or a German name into its canonical code.

    Accepts ``"10H"``, ``" 10h "`` (case and spaces are forgiven here, not in logs),
    ``"Eichel Unter"`` / ``"Unter Eichel"`` / ``"Grün-Ober"``.

    Args:
        text: what a person typed.
    Returns:
        The canonical code, e.g. ``"JC"``.
    Raises:
        CardError: when ``text`` names no card.
    """
    cleaned = text.strip()
    upper = cleaned.upper()
    if _CARD_RE.match(upper):
        return upper
    words = [w for w in re.split(r"[\s\-_]+", cleaned.lower()) if w]
    suit = next((_GERMAN_SUIT_WORDS[w] for w in words if w in _GERMAN_SUIT_WORDS), None)
    rank = next((_GERMAN_RANK_WORDS[w] for w in words if w in _GERMAN_RANK_WORDS), None)
    if rank is None:
        rank = next((w.upper() for w in words if w.upper() in ALL_RANKS), None)
    if suit is None or rank is None or len(words) != 2:
        raise CardError(f"{text!r} is not a card: expected a code like '10H', 'JC' or 'X'")
    return rank + suit


def german_name(card: Card) -> str:
    """Render a code the German way: ``"JC"`` -> ``"Eichel Unter"``, ``"7H"`` -> ``"Rot 7"``."""
    suit = suit_of(card)
    if suit is None:
        return "Joker"
    rank = rank_of(card)
    return f"{GERMAN_SUITS[suit]} {GERMAN_RANKS.get(rank, rank)}"


def suggest_code(text: str) -> str | None:
    """Guess the code a buggy client meant (``"7h"`` -> ``"7H"``, ``"1H"`` -> ``"10H"``).

    Returns:
        A well-formed code, or None when nothing close exists.
    """
    try:
        return parse_card(text)
    except CardError:
        pass
    upper = text.strip().upper()
    if upper.startswith("1") and _CARD_RE.match("10" + upper[1:]):
        return "10" + upper[1:]
    if len(upper) == 2 and _CARD_RE.match(upper[::-1]):
        return upper[::-1]
    return None


def make_pack(ranks: Sequence[Rank], packs: int = 1, jokers: int = 0) -> list[Card]:
    """Build the full pack in canonical order: pack by pack, suits C D H S, ranks low to high.

    Args:
        ranks: the ranks of one pack, low to high (RULESETS.md ``ranks``).
        packs: how many packs are shuffled together (``packs``).
        jokers: jokers added to the whole stock (``jokers``). All jokers are one kind of
            card (PRESETS.md ruling 15), so each is ``"X"``; logs may write ``"X1"``, ``"X2"``
            and :func:`canonical` folds them to ``"X"``.
    Returns:
        The list of card codes, ``len(ranks) * 4 * packs + jokers`` long.
    """
    cards = [rank + suit for _ in range(packs) for suit in SUITS for rank in ranks]
    cards.extend(JOKER for _ in range(jokers))
    return cards


def canonical(card: Card) -> Card:
    """Fold a well-formed code to the engine's form: jokers ``"X1"``, ``"X2"`` -> ``"X"``."""
    return JOKER if card[0] == "X" else card


def multiset(cards: Iterable[Card]) -> Counter[Card]:
    """Return the cards as a multiset (two packs hold each code twice)."""
    return Counter(cards)


def face_value(rank: Rank) -> int:
    """Return the face value of a number rank (``"7"`` -> 7), 0 for court cards and jokers."""
    return int(rank) if rank.isdigit() else 0
