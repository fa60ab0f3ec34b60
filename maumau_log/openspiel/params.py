"""OpenSpiel's ``crazy_eights`` game parameters and game strings, and their mapping onto the
``crazy-eights`` preset's options (RULES.md section 12; RULESETS.md options ``max_draws``,
``empty_stock``, ``max_plays``, ``packs``, ``draw``, ``draw_answer``, ``draw_ends_turn``,
``skip``, ``reverse``, ``reverse_two_players``; PRESETS.md ``crazy-eights``).

OpenSpiel's parameters (``crazy_eights.cc``, ``kGameType``): ``players`` (2-15, default 5),
``max_draw_cards`` (5), ``max_turns`` (100), ``use_special_cards`` (False: 2 = draw two,
Q = skip, A = reverse), ``reshuffle`` (False).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .actions import MAX_PLAYERS
from .errors import OpenSpielImportError


@dataclass(frozen=True)
class GameParams:
    """The parameters of OpenSpiel's ``crazy_eights`` (its defaults)."""

    players: int = 5
    max_draw_cards: int = 5
    max_turns: int = 100
    use_special_cards: bool = False
    reshuffle: bool = False

    def game_string(self) -> str:
        """OpenSpiel's canonical game string: every parameter, sorted by name (made once
        per object: a parsed game string's parameters stand for many games)."""
        return self._canonical

    @cached_property
    def _canonical(self) -> str:
        # kept in this object's own __dict__ (cached_property writes there directly, past
        # the frozen __setattr__), so an equal object of other types keeps its own string:
        # GameParams(players=2.0) == GameParams(players=2)
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


_KEPT = 1024
"""At most this many game strings are kept parsed (:func:`parse_game_string`): an import
converts thousands of games of a few parameter mixes, each game parsing its string and
writing the canonical one (2% of an ``import openspiel --validate``). The
parameters are frozen, so one stands for many games."""
_PARSED: dict[str, GameParams] = {}


def parse_game_string(text: str) -> GameParams:
    """Parse an OpenSpiel game string such as ``crazy_eights(players=3,reshuffle=True)``.

    Raises:
        OpenSpielImportError: another game, an unknown parameter, a value of the wrong type,
            or a value this importer cannot map (``players`` outside 2..15,
            ``max_draw_cards`` or ``max_turns`` below 1).
    """
    params = _PARSED.get(text)
    if params is None:
        params = _parse(text)
        if len(_PARSED) < _KEPT:
            _PARSED[text] = params
    return params


def _parse(text: str) -> GameParams:
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
        if key in values:  # which one OpenSpiel would take is not the importer's guess
            raise OpenSpielImportError(
                f"parameter {key} is given twice in the game string; give it once"
            )
        if _PARAM_TYPES[key] is bool:
            if raw.lower() not in ("true", "false"):
                raise OpenSpielImportError(f"parameter {key} must be True or False, not {raw!r}")
            values[key] = raw.lower() == "true"
        else:
            if not re.fullmatch(r"-?\d+", raw):
                raise OpenSpielImportError(f"parameter {key} must be an integer, not {raw!r}")
            try:
                values[key] = int(raw)
            except ValueError:  # more digits than Python turns into an int (4,300)
                raise OpenSpielImportError(
                    f"parameter {key} = {raw[:12]}... ({len(raw.lstrip('-'))} digits) is out "
                    "of range"
                ) from None
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
