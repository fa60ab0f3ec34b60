"""The differential check of our engine against OpenSpiel
(docs/tutorials/openspiel-import.md): a game OpenSpiel played must replay through the engine
under the
``crazy-eights`` preset with OpenSpiel's parameters as options (RULES.md section 12,
PRESETS.md ``crazy-eights``), with the same legal actions at every player decision, every
event accepted, and the round ending where OpenSpiel's does.

Also OpenSpiel's returns against its documented rule (:func:`returns_explained`) and a
random game played by the real ``pyspiel`` with the port checked beside it at every step
(:func:`pyspiel_random_game`), for the tests and ``bench/``. ``pyspiel`` and the engine are
imported only when these run, never by the importer.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import msgspec

from .actions import CODE_TO_ID, DRAW, EIGHT_RANK, NOMINATE_BASE, PASS, SUITS, action_name
from .convert import events_from_trace
from .params import GameParams
from .port import CrazyEightsState, documented_penalty


@dataclass(frozen=True)
class Disagreement:
    """Where the engine and OpenSpiel part ways on one game.

    Attributes:
        kind: ``"legal_actions"`` (the two allow different actions at a player's decision),
            ``"violation"`` (the engine rejects an event OpenSpiel played) or
            ``"not_finished"`` (the log ends while the engine's round goes on).
        event_index: the event's index in the log game (header = 0).
        action_index: the OpenSpiel history index of the player action, where there is one.
        message: what differs.
    """

    kind: str
    event_index: int | None
    action_index: int | None
    message: str

    def __str__(self) -> str:
        return (
            f"{self.kind} at event {self.event_index} (action {self.action_index}): {self.message}"
        )


def engine_disagreement(params: GameParams, history: list[int]) -> Disagreement | None:
    """Replay one OpenSpiel game through the engine, comparing at every player decision the
    engine's legal actions with OpenSpiel's (as this module's port computes them), then every
    event, then the end; return the first difference, or None when the two agree throughout.

    The scores are left out (``returns="field"``): OpenSpiel's returns break its documented
    rule (see :meth:`CrazyEightsState._score_up`); :func:`returns_explained` checks them.
    """
    from ..engine import FINISHED, Engine, RuleViolation
    from ..events import Event, Game
    from ..rules import resolve

    state = CrazyEightsState(params)
    state.record_legal = True
    state.apply_all(history)
    events, origins = events_from_trace(state, "differential", "field", None)
    # the events straight into their structs, checked as the decoder checks a line (no
    # JSON text in between)
    decoded = msgspec.convert(events, list[Event])
    header = decoded[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    for i in range(1, len(decoded)):
        org = origins[i]
        if org is not None:
            want = set(state.legal_log[org])
            got = _engine_action_ids(engine)
            if want != got:
                return Disagreement(
                    "legal_actions", i, org,
                    f"OpenSpiel allows {_names(want)}; the engine allows {_names(got)}",
                )  # fmt: skip
        try:
            engine.apply(decoded[i])
        except RuleViolation as rv:
            return Disagreement("violation", i, org, f"{rv.code}: {rv.message}")
    if engine.phase != FINISHED:
        return Disagreement("not_finished", len(decoded), None, f"engine phase {engine.phase}")
    return None


def _engine_action_ids(engine: Any) -> set[int]:
    ids: set[int] = set()
    for act in engine.legal_actions():
        if act.kind == "play":
            ids.add(CODE_TO_ID[act.card])
        elif act.kind == "draw":
            ids.add(DRAW)
        elif act.kind == "pass":
            ids.add(PASS)
        elif act.kind == "suit":
            ids.add(NOMINATE_BASE + SUITS.index(act.card))
        else:
            ids.add(-1)  # round_end / reshuffle: not a player decision
    return ids


def _names(ids: set[int]) -> str:
    return "{" + ", ".join(action_name(a, False) if a >= 0 else "end" for a in sorted(ids)) + "}"


def returns_explained(params: GameParams, history: list[int]) -> tuple[bool, bool]:
    """Check OpenSpiel's returns of a finished game against the documented rule.

    Returns:
        ``(documented, buggy)``: whether the returns equal minus the documented hand points
        (8 = 50, J Q K A = 10, others face value), and whether they equal OpenSpiel's code
        (``card id + 2`` for a number card); the second is always expected to hold.
    """
    state = CrazyEightsState(params)
    state.apply_all(history)
    docs = [-documented_penalty(Counter({c: k for c, k in enumerate(h) if k})) for h in state.hands]
    buggy = [0.0] * state.n
    for p, h in enumerate(state.hands):
        for c, k in enumerate(h):
            r = c // 4
            buggy[p] -= k * (50 if r == EIGHT_RANK else 10 if r >= 9 else c + 2)
    return docs == state.returns, buggy == state.returns


def pyspiel_random_game(
    pyspiel: Any, params: GameParams, rng: Any, check: bool = True
) -> tuple[list[int], list[float]]:
    """Play one game with the real OpenSpiel, every action (chance ones too) drawn uniformly
    from its legal actions by ``rng`` (a ``random.Random``); for tests and the bench.

    Args:
        pyspiel: the ``pyspiel`` module (passed in: this module never imports it).
        params: the game parameters.
        rng: the random source.
        check: also replay the port beside it and compare, at every step, the current
            player and the legal actions, and at the end the returns.
    Returns:
        The history and OpenSpiel's returns.
    Raises:
        AssertionError: the port and OpenSpiel differ (``check``).
    """
    game = pyspiel.load_game(params.game_string())
    state = game.new_initial_state()
    port = CrazyEightsState(params) if check else None
    while not state.is_terminal():
        legal = state.legal_actions()
        if port is not None:
            cur = state.current_player()
            assert port.current_player() == cur, (state.history(), cur, port.current_player())
            assert port.legal_actions() == legal, (state.history(), legal, port.legal_actions())
        action = legal[rng.randrange(len(legal))]
        state.apply_action(action)
        if port is not None:
            port.apply(action)
    returns = list(state.returns())
    if port is not None:
        assert port.is_terminal(), state.history()
        assert port.returns == returns, (state.history(), returns, port.returns)
    return list(state.history()), returns
