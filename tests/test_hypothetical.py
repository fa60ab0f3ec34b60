"""``game --try``: hypothetical moves agree with the engine's legal
actions at every event of simulated games of every preset, and the sample disputes get
the answers worked out by hand from the rules."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import maumau_log.cli.data_cmds
import maumau_log.cli.dispute_cmds  # noqa: F401
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.disputes.hypothetical import try_action
from maumau_log.engine import Engine
from maumau_log.events import Game
from maumau_log.logs.notation import NotationError
from maumau_log.rules import PRESET_NAMES, resolve

DISPUTES = Path(__file__).resolve().parent.parent / "sample_logs" / "disputes"
runner = CliRunner()
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _illegal_play(engine: Engine, rng: random.Random) -> str | None:
    """A play the engine does not list: a held card of the player to move that is not
    among the legal plays, or a play by a player whose turn it is not."""
    probe = copy.deepcopy(engine)
    acts = probe.legal_actions()
    legal = {(a.player, tuple(a.play_cards)) for a in acts if a.kind == "play"}
    movers = {a.player for a in acts}
    options = []
    for p, hand in engine.view()["hands"].items():
        for c in hand:
            if c != "?" and (p, (c,)) not in legal:
                options.append(f"{p} plays {c}")
        if p not in movers:
            options.append(f"{p} passes")
    return rng.choice(sorted(options)) if options else None


@SETTINGS
@given(
    preset=st.sampled_from(list(PRESET_NAMES)),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_try_agrees_with_the_legal_actions_at_every_event(
    preset: str, players: int, seed: int
) -> None:
    assert _agree(preset, players, seed) > 0


def test_every_preset_agrees_with_the_legal_actions() -> None:
    # the property above samples presets; this pins each one at least once
    for preset in PRESET_NAMES:
        assert _agree(preset, 3, 7) > 0, preset


def _agree(preset: str, players: int, seed: int) -> int:
    """Replay one simulated game; at every event, each action legal_actions offers must be
    accepted by apply (on a copy), and a play it does not offer rejected with a located
    violation. Returns the actions checked."""
    events = next(simulate(preset, players, 1, seed))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    rng = random.Random(seed)
    checked = 0
    for ev in events[1:]:
        engine.apply(ev)
        acts = copy.deepcopy(engine).legal_actions()
        for a in acts:
            if a.kind == "round_end":
                continue
            got = try_action(engine, str(a))
            assert got["legal"], (str(a), got)
            assert got["code"] is None
            checked += 1
        bad = _illegal_play(engine, rng)
        if bad is not None and acts and acts[0].kind != "round_end":
            got = try_action(engine, bad)
            assert not got["legal"], (bad, got)
            assert got["code"] and got["rule"] and got["message"], got
            assert got["expected"]
    return checked


def _engine_after(path: Path, at: int) -> Engine:
    from maumau_log.disputes.timeline import engine_after, find_game

    gl = find_game(path, json.loads(_first_json(path))["game_id"])
    engine, _ = engine_after(gl, at)
    return engine


def _first_json(path: Path) -> str:
    from maumau_log.logs.notation import from_notation

    return from_notation(path.read_text())[0][1].decode()


def test_a_seven_on_a_seven_is_not_an_answer_in_standard() -> None:
    """standard: draw_answer = none, so after ben's 7C ana owes two and may only draw."""
    engine = _engine_after(DISPUTES / "standard_seven_on_seven.mm", 5)
    got = try_action(engine, "ana plays 7H")
    assert got["legal"] is False
    assert got["code"] == "missed_penalty"
    assert got["rule"] == "options draw, draw_answer = 'none'; PRESETS.md ruling 22"
    assert got["expected"] == "ana draws 2 (effect)"
    ok = try_action(engine, "ana draws")
    assert ok["legal"] is True
    # the short form is completed from the stock the log shows: its top two, top first
    assert ok["event"] == {"type": "draw", "player": "ana", "cards": ["KC", "QS"],
                           "reason": "effect"}  # fmt: skip
    assert try_action(engine, "ana draws 1")["code"] == "wrong_draw_count"
    assert try_action(engine, "ben plays 8S")["code"] == "wrong_player"


def test_a_hidden_hand_may_still_not_play_a_card_that_does_not_match() -> None:
    engine = _engine_after(DISPUTES / "online_seat_view.mm", 7)
    got = try_action(engine, "ben plays 4C")
    assert (got["legal"], got["code"]) == (False, "card_does_not_match")
    assert try_action(engine, "ben plays 4D")["legal"] is True  # a diamond on KD
    assert try_action(engine, "ben plays KS")["legal"] is True  # a king on KD


def test_calls_suits_and_penalties() -> None:
    path = DISPUTES / "classic_missed_mau.mm"
    after_jack = _engine_after(path, 12)  # ben played JC: he owes a suit
    assert try_action(after_jack, "ben names H")["legal"] is True
    assert try_action(after_jack, "cleo names H")["code"] == "wrong_player"
    assert try_action(after_jack, "ben names Z")["code"] == "schema_error"
    after_suit = _engine_after(path, 13)  # ben holds AS and said nothing
    assert try_action(after_suit, "ben calls mau")["legal"] is True
    got = try_action(after_suit, "ben pays 2 (missed_call) by cleo")
    assert got["legal"] is True
    assert got["event"]["cards"] == ["JS", "QH"]
    assert try_action(after_suit, "ben pays 1 (missed_call) by cleo")["code"] == "wrong_penalty"


def test_a_bad_action_text_is_a_located_error() -> None:
    engine = _engine_after(DISPUTES / "standard_seven_on_seven.mm", 5)
    with pytest.raises(NotationError) as info:
        try_action(engine, "ana flies 7H")
    assert info.value.column == 5


def test_the_cli_answers_in_json_and_by_exit_code() -> None:
    f = str(DISPUTES / "standard_seven_on_seven.mm")
    r = runner.invoke(app, ["game", f, "club-2024-031", "--at", "5", "--try", "ana plays 7H",
                            "--json"])  # fmt: skip
    assert r.exit_code == 1, r.output
    got = json.loads(r.stdout)
    assert {k: got[k] for k in ("legal", "code", "rule", "message", "expected")} == {
        "legal": False,
        "code": "missed_penalty",
        "rule": "options draw, draw_answer = 'none'; PRESETS.md ruling 22",
        "message": "ana must draw 2 (pending from a 7); no card answers it here, so 7H may "
        "not be played",
        "expected": "ana draws 2 (effect)",
    }
    r = runner.invoke(app, ["game", f, "club-2024-031", "--at", "5", "--try", "ana draws"])
    assert r.exit_code == 0
    assert "legal" in r.stdout and "ana draws" in r.stdout
    # at the violation itself (event 6) the state right before it, as `game --at 6` shows
    # it (one range for --at: 0..6); one past it is refused with that range
    r = runner.invoke(app, ["game", f, "club-2024-031", "--at", "6", "--try", "ana draws"])
    assert r.exit_code == 0, r.output
    assert "instead of event 6: legal: ana draws" in " ".join(r.output.split())
    r = runner.invoke(app, ["game", f, "club-2024-031", "--at", "7", "--try", "ana draws"])
    assert r.exit_code == 2
    assert "--at takes 0..6, not 7" in " ".join(r.output.split())
    r = runner.invoke(app, ["game", f, "nope", "--try", "ana draws"])
    assert r.exit_code == 2
    assert "no game 'nope'" in r.output
    r = runner.invoke(app, ["game", f, "club-2024-031", "--at", "5", "--try", "ana"])
    assert r.exit_code == 2
    assert "column" in r.output


def test_try_reads_a_dataset_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    src = DISPUTES / "standard_seven_on_seven.mm"
    r = runner.invoke(app, ["ingest", str(src), "--out", str(data)])
    assert r.exit_code in (0, 1), r.output
    r = runner.invoke(app, ["game", str(data), "club-2024-031", "--at", "5", "--try",
                            "ana plays 7H", "--json"])  # fmt: skip
    assert r.exit_code == 1, r.output
    assert json.loads(r.stdout)["code"] == "missed_penalty"


def test_a_split_penalty_is_not_in_legal_actions() -> None:
    """classic, 4 players, seed 1122218197: event 40 is p2's missed-call penalty that
    empties the stock with one card still owed (ruling 10). Until the reshuffle and p2's
    last penalty card, no turn action is legal: p4, to move, may not draw (it is not p2's
    turn either), so legal_actions is empty and the "what was legal" text names what
    must come (turn_check and legal_actions share legality.turn_blocked)."""
    events = next(simulate("classic", 4, 1, 1122218197))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    for ev in events[1:41]:
        engine.apply(ev)
    assert engine.penalty_owed == ("p2", 1)
    assert engine.current_player == "p4" and engine.stock == []
    assert [str(a) for a in copy.deepcopy(engine).legal_actions()] == []
    assert engine.describe_legal() == "a reshuffle, then p2's penalty draw"
    got = try_action(engine, "p4 draws 1")
    assert (got["legal"], got["code"]) == (False, "missed_penalty")
    assert got["message"] == ("p2 still owes 1 penalty card(s) (the stock ran out mid-penalty)")
    assert got["expected"] == "a reshuffle, then p2's penalty draw"
    # after the reshuffle (event 41) and p2's last card (event 42) p4 plays on
    for ev in events[41:43]:
        engine.apply(ev)
    assert engine.penalty_owed is None
    offered = [str(a) for a in copy.deepcopy(engine).legal_actions()]
    assert offered and all(a.startswith("p4 ") for a in offered), offered


def test_legal_actions_while_a_draw_previous_is_owed() -> None:
    """serbian, 4 players, seed 8690692: after event 80 (p2's 2 of clubs, p1 owes four,
    ruling 8) p1 may draw the four out of turn, and p3, to move, may play meanwhile: on
    the 2C with no suit named, p3's 10C (suit) and the wild jacks JC and JH; the hearts,
    spades and diamonds of p3's hand (7S AD 6S AD 7D 4D 5D) match neither suit nor rank,
    and with plays in hand serbian allows no voluntary draw."""
    events = next(simulate("serbian", 4, 1, 8690692))
    header = events[0]
    assert isinstance(header, Game)
    engine = Engine(resolve(header.ruleset, header.options), header)
    for ev in events[1:81]:
        engine.apply(ev)
    assert engine.prev_owed == {"p1": 4} and engine.current_player == "p3"
    offered = [str(a) for a in copy.deepcopy(engine).legal_actions()]
    assert offered == ["p1 draws 4 (effect)", "p3 plays 10C", "p3 plays JC", "p3 plays JH"]
    assert all(try_action(engine, a)["legal"] for a in offered)
    got = try_action(engine, "p3 draws 1")
    assert (got["legal"], got["code"]) == (False, "wrong_draw_count")
    # p1 may draw out of turn, but a pass out of turn is wrong_player (ruling 25 (3)),
    # and a draw for another reason misses the owed one (ruling 22)
    got = try_action(engine, "p1 passes")
    assert (got["code"], got["message"]) == ("wrong_player", "p1 passes but it is p3's turn")
    got = try_action(engine, "p1 draws 1 (no_play)")
    assert (got["code"], got["message"]) == (
        "missed_penalty",
        "p1 draws but first owes an effect draw of 4",
    )


def test_at_the_header_the_legal_answer_is_the_deal() -> None:
    """``--at 0 --try`` (the state after the header, before the deal)
    said "nothing (the round is over)"; what is legal there is the deal itself."""
    f = str(
        Path(__file__).resolve().parent.parent / "sample_logs/valid/classic_2p_handwritten.jsonl"
    )
    r = runner.invoke(app, ["game", f, "t7-000123", "--at", "0", "--try", "ana plays 7H",
                            "--json"])  # fmt: skip
    assert r.exit_code == 1, r.output
    got = json.loads(r.stdout)
    assert (got["legal"], got["expected"], got["legal_actions"]) == (False, "the deal", [])
    assert got["message"] == "ana plays 7H before the deal"
    # after round_end (event 20 of 20): the engine's words for what may follow
    r = runner.invoke(app, ["game", f, "t7-000123", "--try", "ana plays 7H", "--json"])
    assert json.loads(r.stdout)["expected"] == "nothing but match_end, or the next game's header"
