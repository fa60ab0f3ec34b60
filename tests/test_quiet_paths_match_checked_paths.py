"""Every fast path of the engine gives the state its checked path gives.

The usual play (:func:`plays.quiet_play`, with one plain card's powers through
:func:`plays.plain_powers`) and the usual draw (:func:`draws.quiet_draw`) shortcut the
checked handlers (:func:`plays.checked_play` with :func:`plays.after_cards`,
:func:`draws.checked_draw`). At every play and draw of simulated games of every preset,
``apply`` on one copy of the engine and the checked handler on another must leave every
field of the state equal.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, draws, plays, state
from maumau_log.events import Draw, Game, Play
from maumau_log.rules import PRESET_NAMES, resolve

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fields(engine: Engine) -> dict[str, Any]:
    """Every field a copy of the state copies (the rest never changes in a round)."""
    return {name: getattr(engine, name) for name in state._COPIED}


def checked(engine: Engine, ev: Play | Draw) -> Engine:
    """A copy of ``engine`` after ``ev`` through the checked handler, with the dispatch's
    own steps first (the event's index, a new actor closing the call window)."""
    twin = engine.copy()
    twin.event_index += 1
    if ev.player != twin.last_actor:
        twin._new_actor(ev.player)
    if isinstance(ev, Play):
        plays.checked_play(twin, ev, ev.player, quick=False)
    else:
        draws.checked_draw(twin, ev)
    return twin


def compare_game(preset: str, players: int, seed: int) -> tuple[int, int]:
    """Replay one simulated game comparing both paths at every play and draw; returns how
    often each fast path was taken (plays, draws)."""
    events = next(simulate(preset, players, 1, seed))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    quick_plays = quick_draws = 0
    for i, ev in enumerate(events[1:], start=1):
        if isinstance(ev, (Play, Draw)) and engine.phase == "play":
            probe = engine.copy()
            if isinstance(ev, Play):
                quick_plays += len(ev.cards) == 1 and plays.quiet_play(probe, ev.player, ev.cards)
            else:
                quick_draws += draws.quiet_draw(probe, ev, ev.player, ev.count)
            twin = checked(engine, ev)
            engine.apply(ev)
            assert fields(engine) == fields(twin), (preset, players, seed, i, ev)
        else:
            engine.apply(ev)
    return quick_plays, quick_draws


@SETTINGS
@given(
    preset=st.sampled_from(list(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_fast_paths_agree_with_the_checked_paths(preset: str, players: int, seed: int) -> None:
    compare_game(preset, players, seed)


def test_every_preset_takes_both_fast_paths_and_agrees() -> None:
    # seed 3, 3 players: each preset's game has usual plays and usual draws
    for preset in PRESET_NAMES:
        quick_plays, quick_draws = compare_game(preset, 3, 3)
        assert quick_plays > 0 and quick_draws > 0, preset
