"""Property tests on the engine: every simulated game replays clean,
and a single corrupted event is caught at that event or at a later one it makes impossible.

The simulator plays by our own engine, so the first property proves consistency between
``Engine.legal_actions`` and ``Engine.apply``, not correctness (the hand-checked tests and
the other engines' logs do that).
"""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, normalize_call
from maumau_log.events import Call, Draw, Event, Game, Pass, Penalty, Play, RoundEnd, SuitChoice
from maumau_log.replay.driver import replay_events
from maumau_log.rules import PRESET_NAMES, resolve

CORE_PRESETS = ["standard", "classic"]
REPLAYED_PRESETS = list(PRESET_NAMES)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def one_game(preset: str, players: int, seed: int) -> list[Event]:
    return next(simulate(preset, players, 1, seed))


@SETTINGS
@given(
    preset=st.sampled_from(REPLAYED_PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_simulated_games_replay_clean(preset: str, players: int, seed: int) -> None:
    events = one_game(preset, players, seed)
    (report,) = replay_events(events)
    assert report.violation is None, report.violation
    assert report.events == len(events)
    # the winner the log claims is the one the replay finds
    end = events[-1]
    assert isinstance(end, RoundEnd)
    assert report.winner == end.winner


def _replace(ev: Event, **changes: object) -> Event:
    return msgspec.structs.replace(ev, **changes)


@SETTINGS
@given(
    preset=st.sampled_from(CORE_PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_changed_player_is_caught_at_that_event(
    preset: str, players: int, seed: int, data: st.DataObject
) -> None:
    events = one_game(preset, players, seed)
    turn_events = [
        i for i, ev in enumerate(events) if isinstance(ev, (Play, Draw, Pass, SuitChoice))
    ]
    i = data.draw(st.sampled_from(turn_events), label="event")
    ev = events[i]
    header = events[0]
    assert isinstance(header, Game)
    actor = ev.player  # type: ignore[union-attr]
    other = data.draw(st.sampled_from([p for p in header.players if p != actor]), label="to")
    corrupted = [*events[:i], _replace(ev, player=other), *events[i + 1 :]]
    (report,) = replay_events(corrupted)
    assert report.violation is not None
    assert report.violation.event_index == i
    assert report.violation.code in {
        "wrong_player", "card_not_in_hand", "missing_suit_choice", "illegal_pass",
        "card_does_not_match",
    }  # fmt: skip


@SETTINGS
@given(
    preset=st.sampled_from(CORE_PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_swapped_card_is_caught(preset: str, players: int, seed: int, data: st.DataObject) -> None:
    events = one_game(preset, players, seed)
    plays = [i for i, ev in enumerate(events) if isinstance(ev, (Play, Draw)) and ev.cards]
    i = data.draw(st.sampled_from(plays), label="event")
    ev = events[i]
    assert isinstance(ev, (Play, Draw)) and ev.cards
    pack = resolve(preset).pack
    new = data.draw(st.sampled_from([c for c in pack if c != ev.cards[0]]), label="card")
    corrupted = [*events[:i], _replace(ev, cards=[new, *ev.cards[1:]]), *events[i + 1 :]]
    (report,) = replay_events(corrupted)
    assert report.violation is not None
    # a play of a card the player does not hold, or a draw of a card that is not the stock
    # top, is impossible at once; a swap to another legal card of the same hand shows later
    assert report.violation.event_index is not None
    assert report.violation.event_index >= i
    if isinstance(ev, Draw):
        assert report.violation.event_index == i
        assert report.violation.code == "draw_not_from_stock_top"


@SETTINGS
@given(
    preset=st.sampled_from(CORE_PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_removed_event_is_caught(preset: str, players: int, seed: int, data: st.DataObject) -> None:
    events = one_game(preset, players, seed)
    # a call that nobody caught may be left out of a log without breaking a rule (a missed
    # call is only a fault when caught); every other event is needed
    removable = [i for i, ev in enumerate(events) if i > 0 and not isinstance(ev, Call)]
    i = data.draw(st.sampled_from(removable), label="event")
    corrupted = events[:i] + events[i + 1 :]
    (report,) = replay_events(corrupted)
    assert report.violation is not None, f"removing event {i} ({events[i]}) went unnoticed"
    assert report.violation.event_index is not None
    assert report.violation.event_index >= i


def test_penalty_after_a_right_call_is_wrong() -> None:
    """A catch inserted right after a correct "mau", for a player with no earlier fault
    still open, is a penalty with no fault behind it (rulings 9-10)."""
    checked = 0
    for seed in range(100):
        events = one_game("classic", 3, seed)
        header = events[0]
        assert isinstance(header, Game)
        engine = Engine(resolve("classic"), header)
        for i, ev in enumerate(events[1:], start=1):
            engine.apply(ev)
            if not (isinstance(ev, Call) and normalize_call(ev.call) == "mau"):
                continue
            if ev.player in engine.faults:
                continue  # an older fault may still be caught here
            hand = engine.hands[ev.player]
            if len(hand) != 1 or hand[0].startswith("J"):
                continue  # "mau" is the right word for one card left that is no Jack
            by = next(p for p in header.players if p != ev.player)
            catch = Penalty(player=ev.player, reason="missed_call", by=by, count=2)
            (report,) = replay_events([*events[: i + 1], catch, *events[i + 1 :]])
            assert report.violation is not None
            assert (report.violation.code, report.violation.event_index) == (
                "wrong_penalty",
                i + 1,
            )
            checked += 1
            break
    assert checked > 50
