"""Whether a player may draw (:func:`legality.draw_problem`: a draw for ``no_play`` when the
hand holds no card to play; PRESETS.md rulings 11 and 16) asks the play's legality
(:func:`legality.turn_play_problem`) only of the cards that may go on the pile
(``pile_ok``): where no drawn card must be played and no draw is pending, a card the
play's rules allow is one of them. At every event of simulated games, for the player to
move and every card of every hand, that holds, and ``draw_problem`` says ``no_play``
exactly when no card of the hand passes ``turn_play_problem``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine import HIDDEN, PLAY, Engine, legality
from maumau_log.events import Game
from maumau_log.rules import PRESET_NAMES, resolve

PRESETS = [p for p in PRESET_NAMES if not resolve(p).unsupported()]


def _asked_before_the_hand(engine: Engine) -> bool:
    """``draw_problem`` answers before looking at the hand's plays."""
    s = engine
    return bool(
        legality.pending_draw(s)
        or s.must_play is not None
        or s.turn_over_after_draw
        or (not s.stock and legality.nothing_to_draw(s))
        or s.cover_owed is not None
        or s.draws_this_turn >= s.max_draws
        or (s.draws_this_turn and s.after_draw == "none")
    )


def _compare(preset: str, players: int, seed: int) -> int:
    """Check every state of one game; returns the states where the hand was asked."""
    try:
        events = next(simulate(preset, players, 1, seed))
    except ValueError:  # the pack does not hold that many players' hands
        return 0
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    asked = 0
    for ev in events[1:]:
        if engine.phase == PLAY and not _asked_before_the_hand(engine):
            mover = engine.current_player
            for player, hand in engine.hands.items():
                for card in hand:
                    if card != HIDDEN and legality.turn_play_problem(engine, player, card) is None:
                        assert card in engine.pile_ok, (preset, seed, player, card)
            plays = [
                c
                for c in engine.hands[mover]
                if c != HIDDEN and legality.turn_play_problem(engine, mover, c) is None
            ]
            reason, _ = legality.draw_problem(engine, mover)
            assert (reason == "no_play") == (not plays), (preset, seed, mover, plays, reason)
            asked += 1
        engine.apply(ev)
    return asked


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_only_cards_on_the_pile_table_can_be_played_when_a_draw_is_asked(
    preset: str, players: int, seed: int
) -> None:
    _compare(preset, players, seed)


def test_the_hand_is_asked_at_most_turns_of_classic() -> None:
    # 10 classic games of three players: the hand is asked at hundreds of states
    assert sum(_compare("classic", 3, seed) for seed in range(10)) > 300
