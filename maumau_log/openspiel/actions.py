"""OpenSpiel ``crazy_eights``'s action ids, card ids and action names (open-spiel 2.0.2,
``open_spiel/games/crazy_eights/crazy_eights.h`` and ``.cc``), and their codes in the log
(FORMAT.md card codes; the ``crazy-eights`` preset, RULES.md section 12, PRESETS.md).

Action ids (OpenSpiel's, checked against ``State.action_to_string`` by the tests):

- player actions: ``0``-``51`` play a card, card id = rank * 4 + suit with ranks 2..A
  (``0`` = 2C, ``1`` = 2D, ``4`` = 3C, ``51`` = AS) and suits C D H S; ``52`` draw;
  ``53`` pass; ``54``-``57`` nominate the suit C, D, H, S after an 8;
- chance actions: the first one, ``52 + p``, makes player ``p`` the dealer; every later one,
  ``0``-``51``, is the card dealt, turned as the starter, or drawn.
"""

from __future__ import annotations

from typing import Final

NUM_CARDS: Final = 52
DRAW: Final = 52
PASS: Final = 53
NOMINATE_BASE: Final = 54
DEALER_BASE: Final = 52
NUM_ACTIONS: Final = 58
EIGHT_RANK: Final = 6
SKIP_RANK: Final = 10
REVERSE_RANK: Final = 12
DRAW_TWO_RANK: Final = 0
CHANCE: Final = -1
TERMINAL: Final = -4
MAX_PLAYERS: Final = 15

RANKS: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: Final = "CDHS"
_RANK_CHARS: Final = "23456789TJQKA"

CARD_CODES: Final[tuple[str, ...]] = tuple(RANKS[c // 4] + SUITS[c % 4] for c in range(NUM_CARDS))
"""The log's code of every OpenSpiel card id, indexed by the id (``CARD_CODES[4]`` = ``"3C"``)."""

CODE_TO_ID: Final[dict[str, int]] = {code: c for c, code in enumerate(CARD_CODES)}
"""The OpenSpiel card id of every log card code of the 52-card pack (``"AS"`` -> ``51``)."""


def card_code(card: int) -> str:
    """The log's code of OpenSpiel card id ``card`` (``0`` -> ``"2C"``, ``51`` -> ``"AS"``).

    Raises:
        IndexError: ``card`` is not a card id (0-51).
    """
    return CARD_CODES[card]


def action_name(action: int, chance: bool, players: int = MAX_PLAYERS) -> str:
    """OpenSpiel's ``ActionToString`` for ``action`` (``"Play C2"``, ``"Deal HT"``, ...).

    Args:
        action: the action id.
        chance: True for a chance action (dealer choice or card dealt), False for a player's.
        players: the number of players (which dealer choices exist).
    Returns:
        OpenSpiel's own text, or ``"invalid action N"`` for an id it does not know.
    """
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


def action_label(action: int, chance: bool, players: int = MAX_PLAYERS) -> str:
    """``action`` as the importer's messages name it: OpenSpiel's words with the card in
    the log's code (FORMAT.md Cards), so one message speaks one card notation
    (``51`` -> ``"Play AS"`` where :func:`action_name` says ``"Play SA"``).

    Args:
        action: the action id.
        chance: True for a chance action, False for a player's.
        players: the number of players (which dealer choices exist).
    Returns:
        ``"Play AS"``, ``"Deal 10H"``, or :func:`action_name`'s text for an action that
        names no card.
    """
    if 0 <= action < NUM_CARDS:
        return ("Deal " if chance else "Play ") + CARD_CODES[action]
    return action_name(action, chance, players)
