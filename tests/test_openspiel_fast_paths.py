"""The OpenSpiel import's fast paths, each pinned against the general path it stands in for.

- the conversion counts the lines it writes (``convert_source_lines_counted``), so the
  import's summary does not count the newlines of the log again;
- ``compact_events`` without the origins the import's lines never read;
- a usual JSON line is read by one typed msgspec decode, any other line by the general
  path (which decides and words the refusals);
- a one-card draw's line made once per player, card and reason;
- the port's hand counts kept with typed arithmetic, and ``_score_up`` charging each hand
  once (the same float returns as OpenSpiel's card-by-card subtraction)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from gamebuilder import random_history
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import maumau_log.cli.import_cmds  # noqa: F401  (registers the import commands)
from maumau_log.cli import app
from maumau_log.openspiel import (
    CrazyEightsState,
    GameParams,
    OpenSpielImportError,
    compact_events,
    convert_source_lines,
    convert_source_lines_counted,
    encode_game,
    history_to_lines,
    history_to_lines_counted,
    read_source,
)
from maumau_log.openspiel import sources as sources_mod
from maumau_log.openspiel.actions import CARD_CODES, EIGHT_RANK, MAX_PLAYERS, NUM_CARDS
from maumau_log.openspiel.lines import (
    DRAW_ONE_BASE,
    REASONS,
    Draw,
    as_dicts,
    draw_one,
    encode_events,
    passes,
    play,
    suit,
)
from maumau_log.openspiel.port import (
    T_DEAL,
    T_DEALER,
    T_DRAW,
    T_DRAWN,
    T_PASS,
    T_PLAY,
    T_RESHUFFLE,
    T_STARTER,
    T_STARTER_BACK,
    T_SUIT,
)

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs" / "openspiel"
runner = CliRunner()


PARAMS = st.builds(
    GameParams,
    st.integers(2, 8),
    st.sampled_from([1, 2, 5]),
    st.sampled_from([30, 100, 1000]),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(params=PARAMS, seed=st.integers(0, 2**32 - 1), returns=st.sampled_from(["field", "scores"]))
def test_counted_lines_are_the_lines_and_their_count(
    params: GameParams, seed: int, returns: str
) -> None:
    """``history_to_lines_counted`` gives ``history_to_lines``'s bytes and their number of
    lines, for whole and cut (``partial``) histories of any parameters."""
    history = random_history(params, seed)
    for cut in {len(history), min(len(history), max(60, len(history) // 3))}:  # past the starter
        args = (params, history[:cut], "g", returns, True, {"n": 1})
        lines, count = history_to_lines_counted(*args)
        assert lines == history_to_lines(*args)
        assert count == lines.count(b"\n") > 2


def test_counted_sources_match_the_sample_files() -> None:
    """``convert_source_lines_counted`` over the shipped sample files (both formats): the
    bytes of ``convert_source_lines`` and their newline count (real values)."""
    total = 0
    for name in ("histories.openspiel.txt", "serialized.openspiel.txt"):
        path = SAMPLES / name
        for src in read_source(path):
            assert not isinstance(src, Exception)
            lines, count = convert_source_lines_counted(src, str(path), "field", False)
            assert lines == convert_source_lines(src, str(path), "field", False)
            assert count == lines.count(b"\n")
            total += count
    assert total > 100


def test_import_summary_counts_the_written_lines(tmp_path: Path) -> None:
    """The import's summary says as many events as the written log has lines."""
    out = tmp_path / "log.jsonl"
    result = runner.invoke(
        app, ["import", "openspiel", str(SAMPLES / "histories.openspiel.txt"), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = out.read_bytes().count(b"\n")
    assert f"{lines:,} events" in result.output


@settings(max_examples=40, deadline=None)
@given(params=PARAMS, seed=st.integers(0, 2**32 - 1))
def test_compact_events_without_origins(params: GameParams, seed: int) -> None:
    """``with_origins=False`` gives the same events and an empty origins list."""
    state = CrazyEightsState(params)
    state.apply_all(random_history(params, seed))
    events, origins = compact_events(state, "g", "field", None)
    state2 = CrazyEightsState(params)
    state2.apply_all(state.history)
    events2, origins2 = compact_events(state2, "g", "field", None, False)
    assert origins2 == []
    assert len(origins) == len(events) == len(events2)
    assert encode_events(events2) == encode_events(events)


# -- reading JSON lines -----------------------------------------------------------------------


def _general(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[Any]:
    """``read_source`` through the general path only (every line refused by the fast one)."""
    with monkeypatch.context() as m:
        m.setattr(sources_mod, "_usual", lambda *a: None)
        return [_shape(x) for x in read_source(path)]


def _shape(x: Any) -> Any:
    if isinstance(x, Exception):
        return ("error", str(x))
    return ("game", x.number, x.line, x.game, x.history, x.lines, x.game_id,
            [type(a) for a in x.history])  # fmt: skip


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=5),
)
HISTORIES = st.one_of(
    st.lists(st.integers(-5, 60), max_size=8),
    st.lists(
        st.one_of(st.integers(-(2**70), 2**70), st.booleans(), st.floats(allow_nan=False)),
        max_size=4,
    ),
    VALUES,
)
KEYS = st.sampled_from(["game", "history", "game_id", "id", "other"])


@st.composite
def _lines(draw: Any) -> str:
    """A JSON line: an object of the usual keys (sometimes twice, sometimes missing, of any
    type), or another JSON value, or broken JSON."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return json.dumps(draw(VALUES))
    if kind == 1:
        return '{"game": "x", "history": [1, 2'
    pairs = []
    if draw(st.booleans()):
        pairs.append(("game", json.dumps(draw(st.one_of(st.text(max_size=5), VALUES)))))
    if draw(st.integers(0, 5)):
        pairs.append(("history", json.dumps(draw(HISTORIES))))
    for _ in range(draw(st.integers(0, 3))):
        key = draw(KEYS)
        value = draw(st.one_of(VALUES, HISTORIES)) if key != "game" else draw(st.text(max_size=3))
        pairs.append((key, json.dumps(value)))
    draw(st.randoms()).shuffle(pairs)
    return "{" + ", ".join(f'"{k}": {v}' for k, v in pairs) + "}"


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(_lines(), min_size=1, max_size=6))
def test_usual_lines_read_as_the_general_path(
    lines: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Whatever the lines, ``read_source`` yields the same games (numbers, lines, game
    strings, histories of exact ints, game ids) and the same located refusals as the
    general path alone (duplicate keys, bools, floats, huge ints, ids of any type)."""
    path = tmp_path_factory.mktemp("src") / "h.jsonl"
    path.write_text('{"game": "first", "history": []}\n' + "\n".join(lines) + "\n",
                    encoding="utf-8")  # fmt: skip
    fast = [_shape(x) for x in read_source(path)]
    with pytest.MonkeyPatch.context() as mp:
        general = _general(mp, path)
    assert fast == general


def test_usual_line_values() -> None:
    """Hand-checked: the fast path's game, history and id (``game_id`` before ``id``; a
    null ``game_id`` means no id); a bool, a float or a list of strings is no usual line."""
    usual = sources_mod._usual
    g = usual(3, 2, '{"id": 7, "game": "crazy_eights()", "history": [52, 4], "x": [1.5]}')
    assert g is not None
    assert (g.number, g.line, g.game, g.history, g.lines, g.game_id) == (
        2, 3, "crazy_eights()", [52, 4], [3, 3], "7",
    )  # fmt: skip
    g = usual(1, 1, '{"game": "a", "history": [], "game_id": null, "id": "z"}')
    assert g is not None and g.game_id is None
    g = usual(1, 1, '{"game": "a", "history": [1], "game_id": "q", "id": "z"}')
    assert g is not None and g.game_id == "q"
    for raw in ('{"game": "a", "history": [true]}', '{"game": "a", "history": [1.0]}',
                '{"game": "a", "history": ["1"]}', '{"game": 1, "history": []}',
                '{"history": []}', "[1]", '{"game": "a", "history": [1], "x": NaN}'):  # fmt: skip
        assert usual(1, 1, raw) is None, raw


# -- lines and the port -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    player=st.integers(0, MAX_PLAYERS - 1),
    cards=st.lists(st.integers(0, NUM_CARDS - 1), min_size=1, max_size=4),
    reason=st.integers(0, len(REASONS) - 1),
)
def test_draw_lines(player: int, cards: list[int], reason: int) -> None:
    """A draw's line (one card: made once and kept) is the JSON of its event, twice over."""
    d = Draw(player, reason)
    d.cards += cards
    expected = json.dumps(
        {"type": "draw", "player": f"p{player}", "cards": [CARD_CODES[c] for c in cards],
         "reason": REASONS[reason]},
        separators=(",", ":"),
    ).encode() + b"\n"  # fmt: skip
    assert encode_events([d]) == expected
    assert encode_events([d, d]) == expected * 2


def _score_card_by_card(hands: list[list[int]]) -> list[float]:
    """OpenSpiel's ``ScoreUp`` as the C++ (and the port before) does it: a float
    subtraction per card id held."""
    returns = [0.0] * len(hands)
    for p, hand in enumerate(hands):
        for card in range(NUM_CARDS):
            k = hand[card]
            if not k:
                continue
            rank = card // 4
            if rank == EIGHT_RANK:
                returns[p] -= 50 * k
            elif rank >= 9:
                returns[p] -= 10 * k
            else:
                returns[p] -= (card + 2) * k
    return returns


@settings(max_examples=100, deadline=None)
@given(
    hands=st.lists(
        st.lists(st.integers(0, 2), min_size=NUM_CARDS, max_size=NUM_CARDS), min_size=2, max_size=8
    ),
)
def test_score_up_is_the_card_by_card_charge(hands: list[list[int]]) -> None:
    """The returns of ``_score_up`` are OpenSpiel's card-by-card ones, as floats (an empty
    hand keeps 0.0)."""
    state = CrazyEightsState(GameParams(len(hands), 5, 100, False, True))
    state.hands = [list(h) for h in hands]
    state._score_up()
    assert state.returns == _score_card_by_card(hands)
    assert [type(r) for r in state.returns] == [float] * len(hands)


@settings(max_examples=40, deadline=None)
@given(params=PARAMS, seed=st.integers(0, 2**32 - 1))
def test_hand_counts_after_every_action(params: GameParams, seed: int) -> None:
    """After every action, each hand's size is its count of cards, ``in_hands`` their sum,
    and stock + hands + the pile's cards = the pack (typed ``x[i] = x[i] +- 1``)."""
    rng = random.Random(seed)
    state = CrazyEightsState(params)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
        assert state.hand_sizes == [sum(h) for h in state.hands]
        assert state.in_hands == [sum(h[c] for h in state.hands) for c in range(NUM_CARDS)]
        assert all(0 <= k <= state.decks for k in state.deck)
        assert sum(state.deck) == state.cards_left


@settings(max_examples=40, deadline=None)
@given(params=PARAMS, seed=st.integers(0, 2**32 - 1), bad=st.integers(0, 10**6))
def test_apply_all_history_in_one_copy(params: GameParams, seed: int, bad: int) -> None:
    """``apply_all`` (the history joined in one copy at the end, ``applied`` its length
    meanwhile) leaves the state of applying the actions one by one; an illegal action in
    the middle leaves the actions before it applied and in ``history``, and is located at
    its index in the whole history."""
    history = random_history(params, seed)
    whole = CrazyEightsState(params)
    whole.apply_all(history)
    single = CrazyEightsState(params)
    for a in history:
        single.apply(a)
    assert whole.history == single.history == history
    assert whole.applied == single.applied == len(history)
    assert whole.trace == single.trace and whole.hands == single.hands
    assert whole.returns == single.returns
    # a tuple, in two parts
    parts = CrazyEightsState(params)
    cut = bad % len(history)
    parts.apply_all(tuple(history[:cut]))
    parts.apply_all(history[cut:])
    assert parts.history == history and parts.trace == whole.trace
    # an action past the end of the game is illegal: the whole history stays applied
    broken = CrazyEightsState(params)
    with pytest.raises(OpenSpielImportError) as info:
        broken.apply_all([*history, 52])
    assert info.value.action_index == len(history)
    assert broken.history == history and broken.applied == len(history)
    # an action that is never legal in the middle
    mid = CrazyEightsState(params)
    with pytest.raises(OpenSpielImportError) as info:
        mid.apply_all([*history[:cut], 99, *history[cut:]])
    assert info.value.action_index == cut
    assert mid.history == history[:cut] and mid.applied == cut


@settings(max_examples=200, deadline=None)
@given(
    player=st.integers(0, MAX_PLAYERS - 1),
    card=st.integers(0, NUM_CARDS - 1),
    reason=st.integers(0, len(REASONS) - 1),
)
def test_one_card_draw_ids(player: int, card: int, reason: int) -> None:
    """A one-card draw's compact id (:func:`draw_one`) writes and reads as the
    :class:`Draw` of that card: the same line and the same dict; ids of plays, suits and
    passes stay below its range."""
    d = Draw(player, reason)
    d.cards.append(card)
    one = draw_one(player, card, reason)
    assert one >= DRAW_ONE_BASE > play(MAX_PLAYERS - 1, NUM_CARDS - 1)
    assert DRAW_ONE_BASE > passes(MAX_PLAYERS - 1) > suit(MAX_PLAYERS - 1, 3)
    assert encode_events([one]) == encode_events([d])
    assert encode_events([one, play(0, 4), one]) == encode_events([d, play(0, 4), d])
    assert as_dicts([one]) == as_dicts([d])


@settings(max_examples=60, deadline=None)
@given(params=PARAMS, seed=st.integers(0, 2**32 - 1), returns=st.sampled_from(["field", "scores"]))
def test_compact_lines_are_the_dicts_encoded(params: GameParams, seed: int, returns: str) -> None:
    """The import's lines (one-card draws as ids, the others as :class:`Draw`) are the
    event dicts encoded by msgspec, and each draw event holds the cards the trace drew, in
    order, whole and cut (``partial``) histories."""
    history = random_history(params, seed)
    for cut in {len(history), min(len(history), max(60, len(history) // 2))}:
        state = CrazyEightsState(params)
        state.apply_all(history[:cut])
        events, origins = compact_events(state, "g", returns, {"m": 1})
        dicts = as_dicts(events)
        assert encode_events(events) == encode_game(dicts)
        assert len(origins) == len(events)
        drawn = [e for e in _trace_entries(state.trace) if e[0] == T_DRAWN]
        cards = [c for e in dicts if e["type"] == "draw" for c in e["cards"]]
        assert cards == [CARD_CODES[e[2]] for e in drawn]
        for e, o in zip(dicts, origins, strict=True):  # a draw made by a draw action
            if e["type"] == "draw" and o is not None:
                assert state.history[o] == 52


def _trace_entries(trace: list[int]) -> list[list[int]]:
    fields = {T_DEALER: 1, T_DEAL: 2, T_STARTER_BACK: 1, T_STARTER: 1, T_PLAY: 2, T_SUIT: 2,
              T_DRAW: 3, T_DRAWN: 2, T_PASS: 1, T_RESHUFFLE: 2 + NUM_CARDS}  # fmt: skip
    out, i = [], 0
    while i < len(trace):
        size = 1 + fields[trace[i]]
        out.append(trace[i : i + size])
        i += size
    return out


@settings(max_examples=200, deadline=None)
@given(
    copies=st.lists(st.integers(0, 2), min_size=NUM_CARDS, max_size=NUM_CARDS),
    seed=st.integers(0, 2**32 - 1),
)
def test_segment_fill(copies: list[int], seed: int) -> None:
    """A stock segment's order (one pass over the drawn cards): the cards drawn, in order,
    then the others in card id order."""
    from maumau_log.openspiel.convert import _Segment

    pool = [c for c in range(NUM_CARDS) for _ in range(copies[c])]
    rng = random.Random(seed)
    drawn = rng.sample(pool, rng.randrange(len(pool) + 1)) if pool else []
    target: list[str] = []
    seg = _Segment(list(copies), target)
    seg.drawn.extend(drawn)
    seg.fill()
    rest = list(copies)
    for c in drawn:
        rest[c] -= 1
    expected = [CARD_CODES[c] for c in drawn]
    expected += [CARD_CODES[c] for c in range(NUM_CARDS) for _ in range(rest[c])]
    assert target == expected


def test_reshuffle_entries_match_the_deck() -> None:
    """Every reshuffle entry of many games holds, after ``over`` and ``total``, the 52
    counts the deck was set to (one copy of the list), ``total`` their sum, none below 0."""
    seen = 0
    for seed in range(40):
        params = GameParams(2 + seed % 7, 1 + seed % 3, 1000, bool(seed % 2), True)
        state = CrazyEightsState(params)
        rng = random.Random(seed)
        while not state.is_terminal():
            before = len(state.trace)
            state.apply(rng.choice(state.legal_actions()))
            entries = _trace_entries(state.trace[before:])
            for e in entries:
                if e[0] == T_RESHUFFLE:
                    assert e[3:] == state.deck or e[1] == 1
                    assert e[2] == sum(e[3:]) and min(e[3:]) >= 0
                    seen += 1
    assert seen > 20
