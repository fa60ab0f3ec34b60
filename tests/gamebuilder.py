"""Build tiny hand-made games (FORMAT.md events as dicts) and replay them.

Events are plain JSON-able dicts, exactly as a log line would hold them. :func:`replay`
writes them as a JSON Lines file and runs the real :class:`~maumau_log.replay.driver.Replayer`, so
the violation code and its ``event_index`` (header = 0) are what ``validate`` reports;
:func:`engine_after` applies events to an :class:`~maumau_log.engine.Engine` to read
``view()`` at a chosen point. Helpers the test modules share live here once:
:func:`prefix_ok`, :func:`one_line_error`, :func:`simulated_lines` (a simulated game's lines
with header fields changed) and :func:`random_history` (an OpenSpiel history played at
random).
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine
from maumau_log.events import Game, decode_event, encode_event
from maumau_log.openspiel import CrazyEightsState, GameParams
from maumau_log.replay.driver import GameReport, Replayer
from maumau_log.rules import resolve

Ev = dict[str, Any]

RANKS32 = ("7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("C", "D", "H", "S")


def pack(ranks: Sequence[str] = RANKS32) -> list[str]:
    """One pack in a fixed order: suit by suit (C D H S), ranks low to high."""
    return [r + s for s in SUITS for r in ranks]


def game(
    preset: str = "standard",
    players: Sequence[str] = ("a", "b"),
    dealer: str | None = None,
    options: Mapping[str, Any] | None = None,
    **extra: Any,
) -> Ev:
    """A ``game`` header; the dealer defaults to the last seat (so the first seat starts)."""
    ev: Ev = {
        "type": "game",
        "format": "maumau-log/1",
        "game_id": "t",
        "ruleset": preset,
        "players": list(players),
        "dealer": dealer if dealer is not None else players[-1],
    }
    if options:
        ev["options"] = dict(options)
    ev.update(extra)
    return ev


def deal(
    hands: Mapping[str, Sequence[str]],
    starter: str,
    top: Sequence[str] = (),
    ranks: Sequence[str] = RANKS32,
    *,
    preset: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> Ev:
    """A ``deal``: the stock is ``top`` (top first) then every other card in pack order.

    The pack is the 32-card ``pack(ranks)`` unless ``preset`` is given: then it is that
    ruleset's own pack (``ranks``, ``packs`` and ``jokers`` of the preset with ``options``
    applied), e.g. 52 cards and two jokers ``"X"`` for ``pesten``, each code twice for
    ``serbian``. Cards are counted as a multiset: a code may be used as often as the pack
    holds it.
    """
    full = list(resolve(preset, options).pack) if preset is not None else pack(ranks)
    used = Counter(c for h in hands.values() for c in h)
    used.update([starter, *top])
    over = sorted(c for c in used if used[c] > full.count(c))
    assert not over, f"more copies in the test's deal than the pack holds: {over}"
    left = Counter(full)
    left.subtract(used)
    rest: list[str] = []
    for c in full:
        if left[c] > 0:
            rest.append(c)
            left[c] -= 1
    return {
        "type": "deal",
        "hands": {p: list(h) for p, h in hands.items()},
        "starter": starter,
        "stock": [*top, *rest],
    }


def play(player: str, *cards: str) -> Ev:
    return {"type": "play", "player": player, "cards": list(cards)}


def suit(player: str, s: str) -> Ev:
    return {"type": "suit", "player": player, "suit": s}


def draw(player: str, *cards: str, reason: str = "no_play") -> Ev:
    return {"type": "draw", "player": player, "cards": list(cards), "reason": reason}


def pass_(player: str) -> Ev:
    return {"type": "pass", "player": player}


def call(player: str, word: str = "mau") -> Ev:
    return {"type": "mau", "player": player, "call": word}


def penalty(player: str, by: str, *cards: str, reason: str = "missed_call") -> Ev:
    return {"type": "penalty", "player": player, "by": by, "reason": reason, "cards": list(cards)}


def reshuffle(stock: Sequence[str]) -> Ev:
    return {"type": "reshuffle", "stock": list(stock)}


def round_end(
    winner: str | None,
    scores: Mapping[str, int] | None = None,
    hands: Mapping[str, Sequence[str]] | None = None,
) -> Ev:
    ev: Ev = {"type": "round_end", "winner": winner}
    if scores is not None:
        ev["scores"] = dict(scores)
    if hands is not None:
        ev["hands"] = {p: list(h) for p, h in hands.items()}
    return ev


def report(events: Iterable[Ev]) -> GameReport:
    """Replay the events as one log file with the real replayer; return the game's report."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        reports = list(Replayer().replay_file(path))
    assert len(reports) == 1, reports
    return reports[0]


def reports(events: Iterable[Ev]) -> list[GameReport]:
    """Replay the events as one log file (several games, e.g. a match); every game's report."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "g.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        return list(Replayer().replay_file(path))


def replay_games(events: Iterable[Ev]) -> list[tuple[str, int | None] | None]:
    """Per game of the file: ``(code, event_index)`` of its first violation, or None."""
    return [
        None if r.violation is None else (r.violation.code, r.violation.event_index)
        for r in reports(events)
    ]


def replay(events: Iterable[Ev]) -> tuple[str, int | None] | None:
    """``(code, event_index)`` of the first violation, or None for a valid game."""
    rep = report(events)
    if rep.violation is None:
        return None
    return rep.violation.code, rep.violation.event_index


def engine_after(events: Sequence[Ev]) -> Engine:
    """An engine after applying every event (the first must be the header).

    A rule violation propagates (``RuleViolation``), so a test fails loudly.
    """
    header = msgspec.convert(events[0], Game)
    eng = Engine(resolve(header.ruleset, header.options), header)
    for e in events[1:]:
        eng.apply(decode_event(json.dumps(e)))
    return eng


def view_after(events: Sequence[Ev]) -> dict[str, Any]:
    """``Engine.view()`` after the events."""
    return engine_after(events).view()


def prefix_ok(events: Sequence[Ev]) -> None:
    """Every event is accepted; the only complaint is the missing round_end at the end."""
    assert replay(events) == ("round_not_finished", len(events))


def one_line_error(result: Any, text: str) -> None:
    """A CLI result refused as a usage error: exit 2, ``text`` in its output, no traceback."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert text in result.output


# --------------------------------------------------------------------------------------
# Simulated games and OpenSpiel histories


def simulated_lines(seed: int = 5, **header: Any) -> list[bytes]:
    """The JSON lines of one simulated ``classic`` game for two players, its header's fields
    replaced by ``header`` (e.g. ``game_id="x"``, ``started_at="yesterday"``)."""
    lines = [encode_event(ev) for ev in next(simulate("classic", 2, 1, seed))]
    head = json.loads(lines[0])
    head.update(header)
    return [json.dumps(head).encode(), *lines[1:]]


def random_history(params: GameParams, seed: int, cut: int | None = None) -> list[int]:
    """An OpenSpiel ``crazy_eights`` action history played at random by the port (stopped
    after ``cut`` actions when given, else played to its end)."""
    rng = random.Random(seed)
    state = CrazyEightsState(params)
    while not state.is_terminal() and (cut is None or len(state.history) < cut):
        state.apply(rng.choice(state.legal_actions()))
    return state.history
