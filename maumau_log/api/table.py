"""The referee a game server embeds: :class:`Table` checks each event as it happens.

A table takes the events of a game in log order, as the dicts the log would hold
(docs/reference/format.md), the ``game`` header first. Each event is decided exactly as
``validate`` decides it at that place of a log (the same driver pieces: the header's
ruleset and match checks of :class:`~maumau_log.replay.driver.Replayer`, the ``seq``
check, the engine's ``apply``), so a server that refereed a game with a table and a
``validate`` of the log it wrote agree event for event. Unlike a log, a rejected event
leaves the table as it was (the engine's move is tried on a copy), so the server can ask
the player again.

A later ``game`` header starts the next round; rounds sharing a ``match_id`` are checked
as one match (PRESETS.md ruling 14: seats, dealer, running totals, ``match_end``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import msgspec

from ..engine import ENDED, FINISHED, OUT, PLAY, SETUP, Engine, RuleViolation
from ..events import EVENT_DECODER, Event, Game, encode_event, event_player
from ..replay.driver import Replayer
from ..replay.report import GameReport, GameState
from ..violations import Violation

__all__ = ["Table"]

_EVENT_TYPES: tuple[type, ...] = tuple(Event.__args__)


def _copy(engine: Engine) -> Engine:
    """A deep copy that shares the (read-only) ruleset."""
    rules = engine.rules
    return copy.deepcopy(engine, {id(rules): rules})


def _scratch(g: GameState) -> GameState:
    """A throwaway record of the game ``g`` (same file, game id and count) for the
    driver's violation wording, so a rejected event changes nothing."""
    rep = g.report
    s = GameState(GameReport(file=rep.file, line=rep.line, game_id=rep.game_id, header=rep.header))
    s.engine = g.engine
    s.report.engine = g.engine
    s.count = g.count
    s.last_line = g.last_line
    return s


class Table:
    """The referee of one table: a round (or a match of rounds) checked event by event.

    Args:
        rules: options overriding every round's preset and header options (what a
            ``--rules`` file's ``[options]`` table holds), or None.
        name: the name violations give as their ``file`` (default ``"<table>"``); their
            ``line`` is the line the event would have in the log of the accepted events.

    A table never raises on a bad event: :meth:`apply` answers it with the
    :class:`~maumau_log.violations.Violation` ``validate`` would report there (code, rule,
    message, what was legal), and only what is not an event at all (not a mapping) is a
    ``TypeError``.

    Examples:
        >>> import maumau_log as m
        >>> t = m.Table()
        >>> t.apply({"type": "game", "format": "maumau-log/1", "game_id": "g1",
        ...          "ruleset": "standard", "players": ["ana", "ben"]})
        >>> t.apply({"type": "deal", "hands": {"ana": ["7H", "KS", "9C", "QD", "8S"],
        ...          "ben": ["10H", "JC", "AD", "7S", "8C"]}, "starter": "9H"})
        >>> v = t.apply({"type": "play", "player": "ben", "cards": ["10H"]})
        >>> (v.code, v.event_index, v.legal)
        ('wrong_player', 2, 'ana plays 7H | ana plays 9C')
        >>> t.apply({"type": "play", "player": "ana", "cards": ["7H"]}) is None
        True
        >>> t.view()["top"], t.view("ben")["hands"]["ana"]
        ('7H', {'count': 4})
    """

    def __init__(self, rules: Mapping[str, Any] | None = None, *, name: str = "<table>") -> None:
        self.name = name
        self._replayer = Replayer(rules)
        self._game: GameState | None = None
        self._lines = 0  # accepted events so far: the next event's line is one more
        self._events: list[dict[str, Any]] = []  # the round's accepted events

    # -- what the server asks

    def apply(self, event: Mapping[str, Any] | Event) -> Violation | None:
        """Check ``event`` and apply it when it is legal.

        Args:
            event: the event as a dict (a JSON object of the log), or an event struct of
                :mod:`maumau_log.events`.
        Returns:
            None when the event is accepted; else the violation, and the table is as it
            was before (the event is not part of the game).
        Raises:
            TypeError: ``event`` is not a mapping (nor an event struct).
        """
        violation, commit = self._judge(event)
        if commit is not None:
            commit()
        return violation

    def check(self, event: Mapping[str, Any] | Event) -> Violation | None:
        """What :meth:`apply` would answer, without applying the event.

        Raises:
            TypeError: ``event`` is not a mapping (nor an event struct).
        """
        return self._judge(event)[0]

    def finish(self) -> Violation | None:
        """The violation the end of the log would be now (``validate`` reports it for the
        last round): ``round_not_finished`` before the ``round_end``, ``match_not_over``
        when a decided match has no ``match_end`` yet; None when the log may end here."""
        g = self._game
        if g is None:
            return None
        saved = self._replayer.matches
        self._replayer.matches = copy.deepcopy(saved)
        try:
            return self._replayer._finish(_scratch(g)).violation
        finally:
            self._replayer.matches = saved

    @property
    def engine(self) -> Engine | None:
        """The round's engine (read it, do not change it), or None before a header."""
        return self._game.engine if self._game is not None else None

    @property
    def events(self) -> list[dict[str, Any]]:
        """The round's accepted events, the header first (copies)."""
        return [dict(e) for e in self._events]

    def view(self, player: str | None = None) -> dict[str, Any]:
        """The state as the viewer shows it (:meth:`Engine.view` plus the stock's top
        where the log shows it, each hand's size and the match's running totals).

        Args:
            player: None for every hand; a player's id for what that player sees: the
                other hands as ``{"count": n}`` and no stock card.
        Returns:
            A JSON-ready dict (``phase``, ``turn``, ``top``, ``suit``, ``hands``, ...);
            ``{"phase": None}`` before the first header.
        """
        from ..disputes.timeline import snapshot

        eng = self.engine
        if eng is None:
            return {"phase": None}
        state = snapshot(eng)
        if player is not None:
            state["hands"] = {
                p: list(h) if p == player else {"count": len(h)} for p, h in state["hands"].items()
            }
            state["stock_top"] = None
            state.pop("calls_due", None)
        return state

    def legal_events(self) -> list[dict[str, Any]]:
        """The events the table would accept now, as dicts ready to :meth:`apply`.

        Lists the turn's plays, draws (the stock's top cards where the table knows
        the stock's order, else a count), passes and suit choices, jump-ins, the calls
        due (PRESETS.md ruling 9), the ruleset's other call words and ``mau`` and ``last
        card`` (accepted, and counted as call faults), the catches of open call faults by
        every other player and the rest of a penalty an empty stock split (ruling 10),
        the reshuffle of an empty stock, the deal of a provably fair shuffle, the
        ``round_end`` with its winner, scores and hands, and the ``match_end`` of a
        decided match. Every event listed is checked with :meth:`check` first. Not
        listed: a new header, an ``abandon``, a ``cut``, a deal without a seed (the
        server's shuffle decides it), and calls of other words (accepted as call faults
        too).
        """
        from .legal import candidates

        eng = self.engine
        if eng is None:
            return []
        last = next((e for e in reversed(self._events) if e.get("type") == "penalty"), None)
        return [ev for ev in candidates(eng, last) if self.check(ev) is None]

    # -- deciding

    def _judge(self, event: Mapping[str, Any] | Event) -> tuple[Violation | None, Any]:
        """The verdict on ``event`` and, when it is accepted, the function that commits
        it (None when it is rejected)."""
        if isinstance(event, _EVENT_TYPES):
            raw = encode_event(event)  # type: ignore[arg-type]
            shown: dict[str, Any] = msgspec.json.decode(raw)
        elif isinstance(event, Mapping):
            shown = dict(event)
            try:
                raw = msgspec.json.encode(shown)
            except (TypeError, ValueError, OverflowError) as exc:
                return self._bad(b"{}", ValueError(f"not JSON: {exc}")), None
        else:
            raise TypeError(f"an event is a mapping (a JSON object), not {type(event).__name__}")
        try:
            ev = EVENT_DECODER.decode(raw)
        except (msgspec.DecodeError, RecursionError) as exc:
            return self._bad(raw, exc), None
        if type(ev) is Game:
            return self._header(ev, raw, shown)
        return self._event(ev, raw, shown)

    def _bad(self, raw: bytes, exc: Exception) -> Violation | None:
        """A dict that is no event of the format (wrong shape, not JSON-ready)."""
        line = self._lines + 1
        g = self._game
        if isinstance(exc, msgspec.ValidationError | RecursionError):
            scratch = _scratch(g) if g is not None else None
            return self._replayer._bad_line(
                self.name, scratch, False, line, raw, exc
            ).report.violation
        code, rule = "schema_error", "schemas/ (FORMAT.md Events)"
        scratch = _scratch(g) if g is not None else self._replayer._orphan(self.name, line)
        self._replayer._violate(scratch, line, scratch.count, code, str(exc), rule)
        return scratch.report.violation

    def _header(self, header: Game, raw: bytes, shown: dict[str, Any]) -> tuple[Any, Any]:
        line = self._lines + 1
        rp = self._replayer
        saved = rp.matches
        rp.matches = copy.deepcopy(saved)  # the rounds' match states, changed only on accept
        try:
            g = self._game
            if g is not None:
                done = rp._finish(_scratch(g))
                if done.violation is not None:
                    return done.violation, None
            new = rp._start(self.name, line, header, raw)
            if new.report.violation is not None:
                return new.report.violation, None
            matches = rp.matches
        finally:
            rp.matches = saved

        def commit() -> None:
            rp.matches = matches
            self._game = new
            self._lines = line
            self._events = [shown]

        return None, commit

    def _event(self, ev: Event, raw: bytes, shown: dict[str, Any]) -> tuple[Any, Any]:
        line = self._lines + 1
        g = self._game
        rp = self._replayer
        if g is None:
            orphan = rp._orphan(self.name, line)
            rp._bad_place(orphan, line, 0, ev, raw)
            return orphan.report.violation, None
        index = g.count
        if ev.seq is not None and ev.seq != index:
            scratch = _scratch(g)
            rp._bad_place(scratch, line, index, ev, raw)
            return scratch.report.violation, None
        assert g.engine is not None  # a game's header was accepted: it has its engine
        engine = _copy(g.engine)
        try:
            engine.apply(ev)
        except RuleViolation as rv:
            scratch = _scratch(g)
            rp._violate(
                scratch, line, index, rv.code, rv.message, rv.rule, rv.expected,
                event_player(ev), raw,
            )  # fmt: skip
            return scratch.report.violation, None

        def commit() -> None:
            g.set_engine(engine)
            g.count = index + 1
            g.last_line = line
            self._lines = line
            self._events.append(shown)

        return None, commit


PHASES = (SETUP, PLAY, OUT, ENDED, FINISHED)
"""The engine's phases a :meth:`Table.view` names (``view()["phase"]``)."""
