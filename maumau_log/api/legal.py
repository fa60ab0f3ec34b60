"""The events a table could accept next, as log dicts: :meth:`Table.legal_events`.

The engine decides what is legal (:meth:`Engine.legal_actions`: plays, draws, passes, suit
choices, jump-ins, the ``round_end``); this module writes each action as the event a log
holds, and adds what the engine's action list leaves aside: the calls due (PRESETS.md
ruling 9), the catches of open call faults (ruling 10), the reshuffle of an empty stock,
the deal of a provably fair shuffle (docs/reference/shuffle.md) and the ``match_end`` of a
decided match (ruling 14). Cards drawn are the stock's top cards where the stock's order
is known, as a server's own table draws them (FORMAT.md Conventions). :class:`Table`
checks every candidate before listing it.
"""

from __future__ import annotations

from typing import Any

from ..bots.table import due_call
from ..engine import ENDED, FINISHED, OUT, PLAY, SETUP, Engine
from ..engine.shuffle import deal as fair_deal
from ..engine.shuffle import reshuffle_seed, shuffled
from ..scoring.rounds import round_scores

__all__ = ["COMMON_WORDS", "candidates"]

COMMON_WORDS = ["mau", "last card"]
"""Call words listed besides the ruleset's own: any word is accepted as a call (a word not
due is a call fault, PRESETS.md ruling 9), so the list cannot be complete; these two are
the words a player of another Mau-Mau family game most often says instead."""


def _top(engine: Engine, count: int) -> list[str] | None:
    """The stock's top ``count`` cards, top first, or None when the order is not known."""
    stock = engine.stock
    if not engine.stock_ordered or "?" in stock or count > len(stock):
        return None
    return [stock[-1 - i] for i in range(count)]


def _deal(engine: Engine) -> list[dict[str, Any]]:
    """The deal of the header's provably fair shuffle (what ``simulate`` deals)."""
    seed = engine.fair_seed
    if seed is None:
        return []
    rules = engine.rules
    size = rules.hand_size_for(engine.n)
    match = engine.match
    sizes = dict(match.hand_sizes) if match is not None and match.hand_sizes else {}
    sizes = {p: sizes.get(p, size) for p in engine.players}
    redeal = {c for c, info in rules.cards.items() if info.redeal}
    dealt, starter, stock = fair_deal(
        shuffled(rules.pack, seed), engine.players, engine.dealer, sizes, redeal
    )
    return [{"type": "deal", "hands": dict(dealt), "starter": starter, "stock": stock}]


def _reshuffle(engine: Engine) -> list[dict[str, Any]]:
    """The reshuffle of an empty stock (by the fair shuffle's derived seed when known)."""
    if engine.stock or len(engine.discard) <= 1:
        return []
    under = list(engine.discard[:-1])
    if engine.fair_seed is not None:
        new = shuffled(under, reshuffle_seed(engine.fair_seed, engine.reshuffles + 1))
        return [{"type": "reshuffle", "stock": new}]
    return [{"type": "reshuffle", "count": len(under)}]


def _round_end(engine: Engine) -> dict[str, Any]:
    """The ``round_end`` the replay expects: winner, scores (when the ruleset scores) and
    the final hands."""
    winner = engine.out_player if engine.phase == OUT else None
    ev: dict[str, Any] = {"type": "round_end", "winner": winner}
    if engine.rules.scoring != "none":
        scores = round_scores(engine.rules, engine.players, engine.hands, winner, engine.last_play)
        ev["scores"] = dict(scores)
    ev["hands"] = {p: list(h) for p, h in engine.hands.items()}
    return ev


def _calls_and_catches(engine: Engine, last_penalty: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The calls due now, first, then every other word of the ruleset by every player
    (a word not due is accepted and counted as a call fault, ruling 9), the rest of a
    penalty an empty stock split (ruling 10: drawn before anything else) and the catches
    of open call faults by every other player."""
    out: list[dict[str, Any]] = []
    rules = engine.rules
    words = [w for w in (rules.call_last_card, rules.call_last_wild, rules.call_going_out) if w]
    words += COMMON_WORDS
    for p in engine.players:
        word = due_call(engine, p)
        if word is not None:
            out.append({"type": "mau", "player": p, "call": word})
    for p in engine.players:
        due = due_call(engine, p)
        out.extend(
            {"type": "mau", "player": p, "call": w} for w in dict.fromkeys(words) if w != due
        )
    owed = engine.penalty_owed
    if owed is not None and engine.stock:
        who, rest = owed
        ev: dict[str, Any] = {"type": "penalty", "player": who}
        ev["reason"] = (last_penalty or {}).get("reason") or "missed_call"
        by = (last_penalty or {}).get("by")
        if by is not None:
            ev["by"] = by
        n = min(rest, len(engine.stock))
        cards = _top(engine, n)
        if cards is not None:
            ev["cards"] = cards
        else:
            ev["count"] = n
        out.append(ev)
    need = rules.call_penalty
    for p in sorted(engine.faults):
        cards = _top(engine, min(need, len(engine.stock)))
        for by in engine.players:
            if by == p:
                continue
            ev = {"type": "penalty", "player": p, "reason": engine.faults[p], "by": by}
            if cards:
                ev["cards"] = cards
            else:
                ev["count"] = need
            out.append(ev)
    return out


def candidates(engine: Engine, last_penalty: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Events that may be legal in the engine's state (the table checks each).

    Args:
        engine: the round's engine (not changed).
        last_penalty: the round's last penalty event, whose reason and catcher the rest
            of a split penalty repeats.
    Returns:
        Event dicts in the order the engine lists its actions, then calls and catches.
    """
    phase = engine.phase
    if phase == SETUP:
        return _deal(engine)
    if phase == FINISHED:
        if engine.match_over and not engine.match_end_seen:
            totals = dict(engine.match_totals or {})
            return [{"type": "match_end", "totals": totals, "winner": engine.match_winner}]
        return []
    out: list[dict[str, Any]] = []
    if phase in (OUT, ENDED):
        out.append(_round_end(engine))
        # a catch of an open call fault may still come (ruling 10), and its penalty draw
        # from an empty stock needs the reshuffle first
        out.extend(_reshuffle(engine))
    elif phase == PLAY:
        for act in engine.legal_actions():
            kind, player = act.kind, act.player
            if kind == "play":
                ev: dict[str, Any] = {"type": "play", "player": player, "cards": act.play_cards}
                if act.jump:
                    ev["jump_in"] = True
                out.append(ev)
            elif kind == "suit":
                out.append({"type": "suit", "player": player, "suit": act.card})
            elif kind == "pass":
                out.append({"type": "pass", "player": player})
            elif kind == "draw":
                if not engine.stock:
                    continue  # the reshuffle comes first
                n = min(act.count, len(engine.stock))
                cards = _top(engine, n)
                ev = {"type": "draw", "player": player, "reason": act.reason}
                if cards is not None:
                    ev["cards"] = cards
                else:
                    ev["count"] = act.count
                out.append(ev)
            elif kind == "round_end":
                out.append(_round_end(engine))
        out.extend(_reshuffle(engine))
    out.extend(_calls_and_catches(engine, last_penalty))
    return out
