"""Hypothetical moves: "could ben have played the 7 of clubs there?".

An action written in the notation's short form (``ben plays 7C``, ``ben draws``,
``ben passes``, ``ben calls mau``, ``ben names H``, ``ben pays 2 (missed_call) by ana``) is
applied to a copy of the engine in the state of the moment asked about. The engine alone
decides: a :class:`~maumau_log.engine.RuleViolation` gives the rule that forbids it and
what was legal there; no rule is coded here.

What the short form leaves out is filled in as the table would have done it: a draw
without cards takes the stock's top cards where the log shows the stock (else it is a draw
of that many unknown cards), a draw without a count takes what the engine's own legal
draw for that player is (the pending sum for an effect draw, else one card), and a draw
without a reason takes that legal draw's reason (``effect`` while a draw is pending,
``no_play`` otherwise). A draw from an empty stock is tried after the reshuffle the table
would make first (FORMAT.md "Conventions"; ``"reshuffled": true`` in the answer).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..engine import Engine, RuleViolation
from ..events import decode_event
from ..logs.notation import NotationError, parse_action

__all__ = ["NotationError", "complete", "try_action"]


def _legal_draw(engine: Engine, player: str) -> tuple[int, str] | None:
    for a in engine.legal_actions():  # a pure query: no copy
        if a.kind == "draw" and a.player == player:
            return a.count, a.reason or "no_play"
    return None


def complete(engine: Engine, ev: dict[str, Any]) -> dict[str, Any]:
    """Fill in what a short-form draw or penalty leaves out (see the module docstring).

    Args:
        engine: the state asked about (not changed).
        ev: the parsed action (:func:`maumau_log.logs.notation.parse_action`).
    Returns:
        A new event dict, ready to decode.
    """
    ev = dict(ev)
    kind = ev.get("type")
    if kind not in ("draw", "penalty") or "cards" in ev:
        return ev
    player = ev.get("player")
    legal = _legal_draw(engine, player) if isinstance(player, str) else None
    if kind == "draw" and "reason" not in ev:
        if legal is not None:
            ev["reason"] = legal[1]
        else:
            ev["reason"] = "effect" if engine.view().get("pending_draw") else "no_play"
    count = ev.get("count")
    if count is None:
        if kind == "penalty":
            count = int(getattr(engine.rules, "call_penalty", 1) or 1)
        else:
            count = legal[0] if legal is not None else 1
    stock = list(getattr(engine, "stock", []) or [])
    ordered = getattr(engine, "stock_ordered", False)
    if ordered and isinstance(count, int) and 0 < count <= len(stock) and "?" not in stock:
        ev.pop("count", None)
        ev["cards"] = list(reversed(stock[-count:]))  # the stock's top first
    else:
        ev["count"] = count
    return ev


def kind_draws(ev: dict[str, Any]) -> bool:
    """True for an action that takes cards from the stock (a draw or a penalty)."""
    return ev.get("type") in ("draw", "penalty")


def try_action(engine: Engine, text: str) -> dict[str, Any]:
    """Would the action ``text`` have been legal in the state of ``engine``?

    Args:
        engine: the engine right after the event asked about; it is not changed (the
            action is applied to a deep copy).
        text: one action in the notation's short form, e.g. ``"ben plays 7C"``.
    Returns:
        ``{"legal": bool, "code", "rule", "message", "expected", "event", "legal_actions"}``:
        ``code``/``rule`` are the violation's (None when legal), ``message`` explains,
        ``expected`` is what was legal there (the engine's words), ``event`` the event
        tried (as completed), ``legal_actions`` the legal next actions as text.
    Raises:
        NotationError: ``text`` is not an action in the short form (column located).
    """
    ev = complete(engine, parse_action(text))
    # the engine's questions are pure: asked of the engine itself; the action is applied to
    # a copy
    legal_actions = [str(a) for a in engine.legal_actions()]
    # the engine's words: "the deal" before it, "nothing (the round is over)" after the end
    expected = engine.describe_legal()
    probe = engine.copy()
    result: dict[str, Any] = {
        "legal": False,
        "code": None,
        "rule": None,
        "message": "",
        "expected": expected,
        "event": ev,
        "legal_actions": legal_actions,
    }
    try:
        event = decode_event(msgspec.json.encode(ev))
    except msgspec.ValidationError as exc:
        from ..events.schema import explain_event

        result.update(
            code="schema_error",
            rule="schemas/ (FORMAT.md Events)",
            message=explain_event(ev) or str(exc),
        )
        return result
    view = probe.view()
    try:
        if kind_draws(ev) and view["stock_size"] == 0 and view["discard_size"] > 1:
            # the stock is empty: the table reshuffles the discard pile first (FORMAT.md
            # Conventions), its order unknown to the question
            probe.apply(decode_event(b'{"type":"reshuffle"}'))
            result["reshuffled"] = True
        probe.apply(event)
    except RuleViolation as rv:
        result.update(code=rv.code, rule=rv.rule, message=rv.message)
        if rv.expected:
            result["expected"] = rv.expected
        return result
    result.update(legal=True, message=f"{text.strip()}: legal here")
    return result
