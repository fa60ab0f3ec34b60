"""``Table.legal_events()`` lists every event a valid game may hold next: over simulated
games of every preset (the simulator's bots choose among the engine's legal actions, make
call faults and catch them), the next logged event is always among the events listed, and
every event listed is accepted."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import maumau_log as m
from maumau_log.bots.sim import simulate, simulate_matches
from maumau_log.events import EVENT_DECODER, Event, encode_event
from maumau_log.rules import PRESET_NAMES, resolve

PRESETS = [p for p in PRESET_NAMES if not resolve(p).unsupported()]
MATCH_PRESETS = [p for p in PRESETS if resolve(p).options().get("match_target")
                 or resolve(p).options().get("match_rounds")
                 or resolve(p).options().get("loser_hand_shrink")]  # fmt: skip


def _as_event(d: dict[str, object]) -> Event:
    return EVENT_DECODER.decode(msgspec.json.encode(d))


def _referee(games: list[list[Event]]) -> int:
    """Feed the games to one table, checking ``legal_events()`` before every event after
    a header; returns the events checked."""
    table = m.Table()
    checked = 0
    for events in games:
        for i, ev in enumerate(events):
            if i > 0 and type(ev).__name__ != "Abandon":  # a server's decision, not a move
                listed = table.legal_events()
                assert ev in [_as_event(d) for d in listed], (ev, listed)
                checked += 1
            assert table.apply(msgspec.json.decode(encode_event(ev))) is None
    assert table.finish() is None
    return checked


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**31 - 1),
)
def test_the_next_event_of_a_simulated_game_is_always_listed(
    preset: str, players: int, seed: int
) -> None:
    try:
        games = list(simulate(preset, players, 1, seed))
    except ValueError:  # the pack does not hold that many players' hands
        return
    assert _referee(games) > 0


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(MATCH_PRESETS), seed=st.integers(0, 2**31 - 1))
def test_the_next_event_of_a_simulated_match_is_always_listed(preset: str, seed: int) -> None:
    games = list(simulate_matches(preset, 3, 1, seed))
    assert _referee(games) > 0


def test_every_preset_plays_a_whole_game_from_the_listed_events_alone() -> None:
    """Each preset once (3 players, seed 7): at least the deal, plays and the round_end."""
    for preset in PRESETS:
        games = list(simulate(preset, 3, 1, 7))
        assert _referee(games) >= 3, preset


def test_nothing_is_listed_before_a_header_or_after_a_valid_round() -> None:
    table = m.Table()
    assert table.legal_events() == []
    (game,) = simulate("standard", 2, 1, 3)
    for ev in game:
        table.apply(msgspec.json.decode(encode_event(ev)))
    assert table.legal_events() == []


def test_the_reshuffle_before_a_late_catch_is_listed_after_a_player_goes_out() -> None:
    """online-penalty, 3 players, match seed 18607: p1 goes out with the stock empty while
    p3 holds one card without having called ``mau``; p2's catch (ruling 10) draws from the
    stock, so the reshuffle of the discard pile comes first, after the going out and
    before the ``round_end``. The table lists that reshuffle and accepts it."""
    game = next(iter(simulate_matches("online-penalty", 3, 1, 18607)))
    names = [type(ev).__name__ for ev in game]
    at = names.index("Reshuffle", 1)
    assert names[at - 1 : at + 3] == ["Call", "Reshuffle", "Penalty", "RoundEnd"]
    table = m.Table()
    for ev in game[:at]:
        assert table.apply(msgspec.json.decode(encode_event(ev))) is None
    listed = table.legal_events()
    assert [d["type"] for d in listed if d["type"] in ("reshuffle", "round_end")] == [
        "round_end",
        "reshuffle",
    ]
    assert game[at] in [_as_event(d) for d in listed]
    assert table.apply(msgspec.json.decode(encode_event(game[at]))) is None
