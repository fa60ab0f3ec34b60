"""The per-player counters of a game's ``results`` row and the per-ruleset tables that
fill them (split out of :mod:`maumau_log.store.collector`, which counts them per event).

Compiled with the collector (``hatch_build.EXTRA``): the slot numbers are ``Final``
literals, which the compiled collector inlines as C constants instead of reading a
module global per event.
"""

from __future__ import annotations

import hashlib
from typing import Final

from ..rules import Ruleset
from .rows import options_json

# per-player counter slots (results columns, in RESULTS_SCHEMA order after round_score)
PLAYED: Final = 0
NO_PLAY: Final = 1
VOLUNTARY: Final = 2
EFFECT: Final = 3
COVER: Final = 4
PEN: Final = 5
PEN_MC: Final = 6
PEN_WC: Final = 7
PEN_OTHER: Final = 8
CALLS: Final = 9
WILD: Final = 10
SUITS: Final = 11
DRAWP: Final = 12
SKIPP: Final = 13
REVP: Final = 14
COVP: Final = 15
N_SLOTS: Final = 16

DRAW_SLOT: Final = {"no_play": NO_PLAY, "voluntary": VOLUNTARY, "effect": EFFECT, "cover": COVER}
"""A draw's reason (FORMAT.md, ``draw``) to the slot counting its cards."""
PEN_SLOT: Final = {"missed_call": PEN_MC, "wrong_call": PEN_WC}
"""A penalty's reason to the slot counting its cards (any other reason: ``PEN_OTHER``)."""
RESULT_COUNTERS: Final = (
    ("cards_played", PLAYED),
    ("drawn_no_play", NO_PLAY),
    ("drawn_voluntary", VOLUNTARY),
    ("drawn_effect", EFFECT),
    ("drawn_cover", COVER),
    ("penalties", PEN),
    ("penalty_cards_missed_call", PEN_MC),
    ("penalty_cards_wrong_call", PEN_WC),
    ("penalty_cards_other", PEN_OTHER),
    ("calls_made", CALLS),
    ("wild_played", WILD),
    ("suits_named", SUITS),
    ("draw_cards_played", DRAWP),
    ("skip_cards_played", SKIPP),
    ("reverse_cards_played", REVP),
    ("cover_cards_played", COVP),
)
"""The ``results`` counter columns and their slots, in the table's order."""


class RulesInfo:
    """Per-ruleset tables the collector needs, computed once per distinct ruleset.

    Args:
        rules: the resolved ruleset.

    Attributes:
        options, options_hash: the effective options as canonical JSON and the first 16
            hex digits of its SHA-256 (the ``games`` columns).
        points: card to its points (RULES.md, scoring).
        scored: the ruleset scores rounds (``scoring`` is not ``none``).
        kinds: card to the slots its play counts besides ``cards_played`` (wild, draw,
            skip, reverse, cover cards).
    """

    __slots__ = ("kinds", "options", "options_hash", "points", "scored")

    def __init__(self, rules: Ruleset) -> None:
        self.options = options_json(rules)
        self.options_hash = hashlib.sha256(self.options.encode()).hexdigest()[:16]
        self.points = {c: r.points for c, r in rules.cards.items()}
        self.scored = rules.scoring != "none"
        kinds: dict[str, tuple[int, ...]] = {}
        for card, r in rules.cards.items():
            slots = []
            if r.wild:
                slots.append(WILD)
            if r.draw:
                slots.append(DRAWP)
            if r.skip:
                slots.append(SKIPP)
            if r.reverse:
                slots.append(REVP)
            if r.cover:
                slots.append(COVP)
            kinds[card] = tuple(slots)
        self.kinds = kinds
