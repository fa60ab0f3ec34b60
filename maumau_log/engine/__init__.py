"""The rules engine as a package: game state and the transition
``Engine.apply(event)``. No I/O, no randomness.

``from maumau_log.engine import Engine, RuleViolation, Action, ...`` is the public API. The
modules, bottom to top of the one-way import graph (each names its RULES.md / PRESETS.md
sections; the README's "Architecture" section maps rules to modules):

- :mod:`.errors` - :class:`RuleViolation`, ``fail``
- :mod:`.state` - the round's state (every field declared, by mechanic), seats, turn order
- :mod:`.partial`, :mod:`.fair`, :mod:`.stock` - hidden hands, provably fair shuffles,
  card codes, draws from the stock, reshuffles
- :mod:`.legality` - pure questions, one source per legality decision
- :mod:`.actions` - :class:`Action`, ``legal_actions``, ``describe_legal`` (pure)
- :mod:`.turns` - whose event this is, pending skips, lapsing draws
- :mod:`.covers`, :mod:`.plays`, :mod:`.draws`, :mod:`.calls`, :mod:`.deal`,
  :mod:`.ending` - the event handlers of each mechanic
- :mod:`.core` - :class:`Engine`: construction, ``apply`` dispatch, questions, ``view``

An optional compiled build (mypyc, from the same source) is used when present:
:data:`COMPILED` says whether it is. ``MAUMAU_LOG_PURE_PYTHON=1`` in the environment makes
this import the pure-Python modules even where the compiled ones are installed.
"""

from __future__ import annotations

from . import _select
from .actions import Action
from .calls import normalize_call
from .core import Engine
from .errors import RuleViolation
from .state import CALL_REASONS, ENDED, FINISHED, HIDDEN, OUT, PLAY, SETUP, State

COMPILED: bool = _select.compiled()
"""True when the engine's modules run compiled (mypyc), False for pure Python."""

__all__ = [
    "CALL_REASONS",
    "COMPILED",
    "ENDED",
    "FINISHED",
    "HIDDEN",
    "OUT",
    "PLAY",
    "SETUP",
    "Action",
    "Engine",
    "RuleViolation",
    "State",
    "normalize_call",
]
