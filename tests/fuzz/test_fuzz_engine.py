"""Fuzzing the engine: mutated games of every preset between two good games.

Simulated games (legal by construction) are changed the ways a buggy client or a hostile
writer changes a log: events dropped, duplicated, swapped; cards, players, counts,
reasons, hands, scores and header options replaced by others of the pack or by edge values
(0, -1, 2^63, 10^400). The property: the replay raises nothing (no exit 3 or 4), every game
is reported (the mutated one, one more per header it holds, the good ones), and the good
games before and after it replay exactly as alone.
"""

from __future__ import annotations

import json
from typing import Any

from fuzzing import FUZZ, base_games, presets
from hypothesis import given
from hypothesis import strategies as st

from maumau_log.replay.driver import Replayer
from maumau_log.rules import resolve

EDGE = [0, -1, 1, 2, 3, 5, 7, 52, 2**31, 2**63, 10**30, 10**400]


def _card(data: st.DataObject, pack: list[str]) -> str:
    return data.draw(st.sampled_from([*pack, "X", "X1", "Zz", "", "10", "1H", "JC", "2C"]))


def _value(data: st.DataObject, key: str, old: Any, pack: list[str], players: list[str]) -> Any:
    """Another value for ``key`` (of the kind the field holds, or not)."""
    if key in ("cards", "taken", "stock"):
        cards = list(old) if isinstance(old, list) else []
        how = data.draw(st.sampled_from(["swap", "drop", "add", "reverse", "double", "other"]))
        if how == "swap" and cards:
            cards[data.draw(st.integers(0, len(cards) - 1))] = _card(data, pack)
        elif how == "drop" and cards:
            del cards[data.draw(st.integers(0, len(cards) - 1))]
        elif how == "add":
            cards.insert(data.draw(st.integers(0, len(cards))), _card(data, pack))
        elif how == "reverse":
            cards.reverse()
        elif how == "double":
            cards += cards
        else:
            return data.draw(st.sampled_from([[], None, "7H", 5, [[]]]))
        return cards
    if key in ("player", "by", "winner", "dealer"):
        return data.draw(st.sampled_from([*players, "p9", "", None, 3]))
    if key in ("count", "round", "seq"):
        near = [old - 1, old + 1] if isinstance(old, int) and not isinstance(old, bool) else []
        return data.draw(st.sampled_from(EDGE + near))
    if key == "hands" and isinstance(old, dict) and old:
        hands = dict(old)
        who = data.draw(st.sampled_from(sorted(hands)))
        how = data.draw(st.sampled_from(["count", "cards", "drop", "rename"]))
        if how == "count":
            size = len(hands[who]) if isinstance(hands[who], list) else 5
            hands[who] = {"count": data.draw(st.sampled_from([size, *EDGE]))}
        elif how == "cards":
            hands[who] = _value(data, "cards", hands[who], pack, players)
        elif how == "drop":
            del hands[who]
        else:
            hands[data.draw(st.sampled_from([*players, "p9"]))] = hands.pop(who)
        return hands
    if key in ("scores", "totals") and isinstance(old, dict) and old:
        scores = dict(old)
        scores[data.draw(st.sampled_from(sorted(scores)))] = data.draw(
            st.sampled_from([*EDGE, 1.5, -2.5, 1e308, "10"])
        )
        return scores
    if key == "options":
        names = ["hand_size", "packs", "jokers", "max_draws", "call_penalty", "max_plays"]
        name = data.draw(st.sampled_from([*names, "match_target", "draw"]))
        value = data.draw(st.sampled_from(EDGE))
        return {name: {"7": value} if name == "draw" else value}
    return data.draw(
        st.sampled_from([None, 0, "x", [], {}, "effect", "cover", "no_play", "C", "mau", True])
    )


def mutate(data: st.DataObject, events: list[dict[str, Any]], preset: str) -> list[dict[str, Any]]:
    """One to four changes; the header stays first (so the games around are not touched)."""
    pack = sorted(set(resolve(preset).pack))
    players = list(events[0]["players"])
    evs = [dict(e) for e in events]
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(1, len(evs) - 1)) if len(evs) > 1 else 0
        op = data.draw(st.sampled_from(["drop", "dup", "swap", "field", "field", "count"]))
        if i == 0:
            op = "field"
        if op == "drop" and len(evs) > 2:
            del evs[i]
        elif op == "dup":
            evs.insert(i, dict(evs[data.draw(st.integers(0, len(evs) - 1))]))
        elif op == "swap":
            j = min(len(evs) - 1, i + data.draw(st.integers(1, 3)))
            evs[i], evs[j] = evs[j], evs[i]
        elif op == "count" and evs[i].get("type") in ("draw", "penalty", "reshuffle"):
            e = evs[i]
            listed = e.pop("stock" if e["type"] == "reshuffle" else "cards", None)
            size = len(listed) if isinstance(listed, list) else 1
            e["count"] = data.draw(st.sampled_from([size, 0, size + 1, *EDGE]))
        else:
            e = evs[i]
            keys = [*sorted(k for k in e if k != "type"), "count", "reason", "jump_in"]
            key = data.draw(st.sampled_from(keys))
            e[key] = _value(data, key, e.get(key), pack, players)
    return evs


def _lines(*games: list[dict[str, Any]]) -> list[tuple[int, bytes]]:
    flat = [e for g in games for e in g]
    return [(i + 1, json.dumps(e).encode()) for i, e in enumerate(flat)]


def _outcome(report: Any) -> tuple[Any, ...]:
    v = report.violation
    return (report.game_id, report.events, v and v.code, v and v.event_index)


@FUZZ
@given(preset=presets, data=st.data())
def test_mutated_games_never_crash_and_leave_their_neighbours_alone(
    preset: str, data: st.DataObject
) -> None:
    before, game, after = base_games(preset)
    alone = [_outcome(r) for r in Replayer().replay_lines("f", _lines(before, after))]
    bad = mutate(data, game, preset)
    reports = list(Replayer().replay_lines("f", _lines(before, bad, after)))
    headers = sum(1 for e in bad if e.get("type") == "game")
    assert len(reports) == 2 + headers
    assert [_outcome(reports[0]), _outcome(reports[-1])] == alone
    for r in reports:  # a violation is located in its game
        v = r.violation
        if v is not None:
            assert v.line is not None and v.event_index is not None and v.code
