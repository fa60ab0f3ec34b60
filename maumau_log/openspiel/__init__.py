"""Import OpenSpiel ``crazy_eights`` game histories as canonical logs.

OpenSpiel users keep a game as its history: the list of action ids, chance actions
included, with the game string that loaded the game (``crazy_eights(players=3,...)``). This
package decodes those histories with its own code (``pyspiel`` is not needed at run time),
a line-by-line port of OpenSpiel's ``open_spiel/games/crazy_eights/crazy_eights.cc``
(open-spiel 2.0.2), checked against the real ``pyspiel`` by ``tests/test_openspiel.py`` and
``bench/openspiel_diff.py``. The games become logs of the ``crazy-eights`` preset
(RULES.md section 12, PRESETS.md ``crazy-eights``) with OpenSpiel's parameters as options.

Modules, in the order data flows (each imports only those above it):

- :mod:`.actions`: OpenSpiel's action and card ids, their names and log card codes;
- :mod:`.errors`: the located import errors;
- :mod:`.params`: game parameters, game strings, and their mapping onto options;
- :mod:`.port`: :class:`CrazyEightsState`, OpenSpiel's rules (legal actions, dealing,
  draws, 2s, skips, reverses, reshuffles, the end and ``ScoreUp``);
- :mod:`.sources`: reading serialized states and JSON lines of histories;
- :mod:`.lines`: the compact form of most events, written as JSON lines or made dicts;
- :mod:`.convert`: a replayed port's trace into canonical events, and their JSON lines;
- :mod:`.differential`: our engine against OpenSpiel, for the tests and ``bench/``.

Every public name is importable from this package, as before the split. :mod:`.port`,
:mod:`.lines` and :mod:`.convert` are compiled with the engine when the build can
(``hatch_build.py``): :data:`COMPILED`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _select
from .actions import (
    CARD_CODES,
    CHANCE,
    CODE_TO_ID,
    DEALER_BASE,
    DRAW,
    DRAW_TWO_RANK,
    EIGHT_RANK,
    MAX_PLAYERS,
    NOMINATE_BASE,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    RANKS,
    REVERSE_RANK,
    SKIP_RANK,
    SUITS,
    TERMINAL,
    action_name,
    card_code,
)
from .convert import (
    RETURNS_MODES,
    _events_from_trace,
    compact_events,
    convert_source,
    convert_source_lines,
    convert_source_lines_counted,
    dumps_event,
    encode_event,
    encode_game,
    events_from_trace,
    history_to_events,
    history_to_lines,
    history_to_lines_counted,
)
from .errors import IllegalAction, OpenSpielImportError
from .params import GameParams, parse_game_string
from .port import CrazyEightsState, documented_penalty
from .sources import SourceGame, read_source

if TYPE_CHECKING:  # mypy sees the real names (a typo is an error), the import does not
    from .differential import (
        Disagreement,
        engine_disagreement,
        pyspiel_random_game,
        returns_explained,
    )

_DIFFERENTIAL = ("Disagreement", "engine_disagreement", "pyspiel_random_game", "returns_explained")
"""Names of :mod:`.differential`, imported on first use (the tests and ``bench/`` use them,
the import never: start-up)."""


def __getattr__(name: str) -> Any:
    """:mod:`.differential`'s public names, imported when first asked for.

    Raises:
        AttributeError: ``name`` is no name of this package.
    """
    if name in _DIFFERENTIAL:
        from . import differential

        return getattr(differential, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


COMPILED: bool = _select.compiled(__name__ + ".port")
"""True when :mod:`.port` (and with it :mod:`.lines` and :mod:`.convert`) runs compiled
(mypyc, ``hatch_build.py``), False for pure Python (no C compiler at install, or
``MAUMAU_LOG_PURE_PYTHON=1``)."""

__all__ = [
    "CARD_CODES",
    "CHANCE",
    "CODE_TO_ID",
    "COMPILED",
    "DEALER_BASE",
    "DRAW",
    "DRAW_TWO_RANK",
    "EIGHT_RANK",
    "MAX_PLAYERS",
    "NOMINATE_BASE",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "PASS",
    "RANKS",
    "RETURNS_MODES",
    "REVERSE_RANK",
    "SKIP_RANK",
    "SUITS",
    "TERMINAL",
    "CrazyEightsState",
    "Disagreement",
    "GameParams",
    "IllegalAction",
    "OpenSpielImportError",
    "SourceGame",
    "_events_from_trace",
    "action_name",
    "card_code",
    "compact_events",
    "convert_source",
    "convert_source_lines",
    "convert_source_lines_counted",
    "documented_penalty",
    "dumps_event",
    "encode_event",
    "encode_game",
    "engine_disagreement",
    "events_from_trace",
    "history_to_events",
    "history_to_lines",
    "history_to_lines_counted",
    "parse_game_string",
    "pyspiel_random_game",
    "read_source",
    "returns_explained",
]
