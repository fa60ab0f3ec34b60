"""``legal_actions`` lists exactly what ``apply`` accepts (PRESETS.md ruling 25: one order
of checks for the question and the replay).

At every event of simulated games of every preset: each action ``legal_actions`` lists is
accepted by ``apply`` on a copy of the engine, and the logged next turn action (a play,
draw, pass, suit or round_end; calls, penalties and reshuffles are not listed) is among
the listed ones.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.disputes.hypothetical import try_action
from maumau_log.engine import Action, Engine
from maumau_log.events import Draw, Event, Game, Pass, Play, RoundEnd, SuitChoice
from maumau_log.rules import PRESET_NAMES, resolve

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def logged_action(ev: Event) -> tuple[object, ...] | None:
    """The logged event as the key of a listed action, or None for an event
    ``legal_actions`` does not list. A play's ``jump_in`` flag is a label (ruling 25), so
    it is left out; a draw is its player and count."""
    if isinstance(ev, Play):
        return ("play", ev.player, tuple(ev.cards))
    if isinstance(ev, Draw):
        n = len(ev.cards) if ev.cards is not None else ev.count or 1
        return ("draw", ev.player, n)
    if isinstance(ev, Pass):
        return ("pass", ev.player)
    if isinstance(ev, SuitChoice):
        return ("suit", ev.player, ev.suit)
    if isinstance(ev, RoundEnd):
        return ("round_end",)
    return None


def listed_action(a: Action) -> tuple[object, ...]:
    """A listed action as :func:`logged_action` keys it."""
    if a.kind == "play":
        return ("play", a.player, tuple(a.play_cards))
    if a.kind == "draw":
        return ("draw", a.player, a.count)
    if a.kind == "suit":
        return ("suit", a.player, a.card)
    if a.kind == "pass":
        return ("pass", a.player)
    return (a.kind,)


def check_game(preset: str, players: int, seed: int) -> tuple[int, int]:
    """Replay one simulated game checking both directions at every event; returns
    ``(listed actions accepted, logged actions found listed)``."""
    events = next(simulate(preset, players, 1, seed))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    accepted = found = 0
    for i, ev in enumerate(events[1:], start=1):
        if i > 1:  # from the deal on: before it only the deal is legal
            acts = engine.legal_actions()
            for a in acts:
                if a.kind == "round_end":
                    continue
                got = try_action(engine, str(a))
                assert got["legal"], (preset, players, seed, i, str(a), got)
                accepted += 1
            key = logged_action(ev)
            if key is not None:
                assert key in {listed_action(a) for a in acts}, (preset, seed, i, ev, acts)
                found += 1
        engine.apply(ev)
    return accepted, found


@SETTINGS
@given(
    preset=st.sampled_from(list(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_listed_actions_are_accepted_and_the_logged_one_is_listed(
    preset: str, players: int, seed: int
) -> None:
    accepted, found = check_game(preset, players, seed)
    assert accepted > 0 and found > 0


def test_every_preset_lists_what_apply_accepts() -> None:
    # the property samples presets; this pins each one, with 4 players, seed 3
    for preset in PRESET_NAMES:
        accepted, found = check_game(preset, 4, 3)
        assert accepted > 0 and found > 0, preset


def test_the_split_pending_draw_offers_only_its_rest() -> None:
    # classic, 4 players, seed 1122218197: the game of the split penalty (ruling 10) is
    # checked in both directions at every event
    accepted, found = check_game("classic", 4, 1122218197)
    assert accepted > 0 and found > 0


def test_a_draw_previous_draw_owed_lists_the_others_moves_too() -> None:
    # serbian, 4 players, seed 8690692: while p1 owes the 2C's four cards (ruling 8) the
    # player to move may still play (ruling 25 (3): the debtor's draw is out of turn)
    accepted, found = check_game("serbian", 4, 8690692)
    assert accepted > 0 and found > 0
