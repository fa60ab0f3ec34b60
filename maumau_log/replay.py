"""Drive logs through the engine: split files into games, collect violations, feed visitors.

Data flows one way: :mod:`logfile` (located lines) -> :mod:`events` (decoding) ->
:mod:`engine` (rules) -> :class:`GameReport` records -> visitors (Parquet rows, statistics,
printers). A bad line, a bad game or a bad file never stops the others: each game stops at
its first violation and is reported invalid; the games around it replay as usual.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import msgspec

from .engine import FINISHED, Engine, RuleViolation
from .events import FORMAT_VERSION, Event, Game, decode_event, event_player
from .logfile import OVERLONG, LogReadError, iter_lines
from .matches import MatchState, RoundContext
from .notation import BadLine, is_notation
from .notation import file_lines as notation_lines
from .rules import Ruleset, RulesetError, resolve
from .shuffle import ALGORITHM as FAIR_SHUFFLE
from .shuffle import commitment
from .violations import Violation

try:  # the schema module explains why the fast decoder rejected a line
    from .schema import explain_event
except ImportError:  # pragma: no cover - during development only
    explain_event = None  # type: ignore[assignment]


@dataclass
class GameReport:
    """One replayed game (one round), valid or not.

    Attributes:
        file: the log file as given.
        line: the header's line number (or the first line of headerless events).
        game_id: ``game.game_id``, or None for events outside any game.
        header: the decoded header, or None.
        rules: the resolved ruleset, or None when it could not be resolved.
        events: events in the game, the header counted (so the last index + 1).
        last_line: the line of the game's last event.
        violation: the first violation, or None for a valid game.
        engine: the engine after the last replayed event (None without a valid header).
        violation_raw: the violating line as logged (bytes without the newline; None when
            there is no violation or no line, e.g. a file that ended early).
    """

    file: str
    line: int
    game_id: str | None
    header: Game | None = None
    rules: Ruleset | None = None
    events: int = 0
    last_line: int = 0
    violation: Violation | None = None
    engine: Engine | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    violation_raw: bytes | None = None

    @property
    def valid(self) -> bool:
        """True when the game replayed to its ``round_end`` with no violation."""
        return self.violation is None

    @property
    def unchecked(self) -> list[str]:
        """Checks a partial-information log did not allow (empty for a full log)."""
        return sorted(self.engine.unchecked) if self.engine is not None else []

    @property
    def winner(self) -> str | None:
        """The replayed winner (None for no winner or an invalid game)."""
        return self.engine.winner if self.engine is not None and self.valid else None


class ReplayVisitor(Protocol):
    """Receives a replay as it happens (python-chess ``BaseVisitor`` style).

    ``event`` is called after each event the engine accepted, with the engine in the state
    the event left; ``end_game`` once per game, valid or not.
    """

    def begin_game(self, report: GameReport) -> None:
        """A header was read (``report.engine`` is set when it resolved)."""

    def event(self, report: GameReport, index: int, line: int, event: Event, raw: bytes) -> None:
        """The engine accepted event number ``index`` (1-based after the header);
        ``raw`` is its line as read (without the newline)."""

    def end_game(self, report: GameReport) -> None:
        """The game is over (valid, or stopped at ``report.violation``)."""


class _Game:
    """A game being replayed (the driver's working record)."""

    __slots__ = ("count", "engine", "failed", "report")

    def __init__(self, report: GameReport) -> None:
        self.report = report
        self.engine: Engine | None = None
        self.failed = False
        self.count = 0


class Replayer:
    """Replays log files game by game.

    Args:
        rules_file_options: options from a ``--rules`` TOML file (already read and checked),
            overriding every game's preset and header options; None for none.
        visitors: receivers of every accepted event and every finished game.
    """

    def __init__(
        self,
        rules_file_options: Mapping[str, Any] | None = None,
        visitors: Iterable[ReplayVisitor] = (),
    ) -> None:
        self.file_options = dict(rules_file_options) if rules_file_options else None
        self.visitors = list(visitors)
        self.matches: dict[str, MatchState] = {}

    # -- violations

    def _violate(
        self,
        g: _Game,
        line: int | None,
        index: int | None,
        code: str,
        message: str,
        rule: str,
        expected: str | None = None,
        player: str | None = None,
        raw: bytes | None = None,
    ) -> None:
        rep = g.report
        if rep.violation is not None and not g.failed:
            g.failed = True  # a header fault the game was replayed past: it stays the first
            return
        rep.violation_raw = raw
        rep.violation = Violation(
            file=rep.file,
            line=line,
            game_id=rep.game_id,
            event_index=index,
            player=player,
            code=code,
            rule=rule,
            message=_shorten(message, 1000),
            expected=None if expected is None else _shorten(expected, 1000),
        )
        g.failed = True

    # -- one file

    def replay_file(self, path: str | Path) -> Iterator[GameReport]:
        """Replay every game of one log file.

        Args:
            path: a ``.jsonl``, ``.jsonl.gz`` or ``.jsonl.zst`` file (compression is found
                from the content).
        Yields:
            A :class:`GameReport` per game, in file order, including invalid games and a
            report for events outside any game. A truncated file ends with the game in
            progress reported at the damage (code ``truncated_file``); the games before it
            are kept.
        Raises:
            LogReadError: the file cannot be opened at all (missing, a directory, no
                permission) or is not a text log (binary, UTF-16: issue 15), with
                ``line`` None; the CLI lists it as unreadable input.
        """
        if is_notation(path):  # the hand-written notation, converted as it is read
            return self.replay_lines(str(path), notation_lines(path))
        return self.replay_lines(str(path), iter_lines(Path(path)))

    def replay_lines(self, name: str, lines: Iterable[tuple[int, bytes]]) -> Iterator[GameReport]:
        """Replay located lines (``(line_number, raw_bytes)``, as :func:`iter_lines` yields).

        Args:
            name: the source's name for the reports (a path, or e.g. ``"<memory>"``).
            lines: the lines; a :class:`LogReadError` raised while iterating ends the source
                as :meth:`replay_file` describes.
        Yields:
            A :class:`GameReport` per game.
        """
        g: _Game | None = None
        decode = decode_event

        try:
            for line_no, raw in lines:
                if type(raw) is BadLine:  # a .mm line the notation's grammar does not allow
                    if raw.header:
                        if g is not None:
                            yield self._finish(g)
                        g = _Game(GameReport(file=name, line=line_no, game_id=raw.game_id))
                        self._notify_begin(g.report)
                    g = g or self._orphan(name, line_no)
                    if not g.failed:
                        self._violate(
                            g, line_no, g.count, "bad_notation", raw.message,
                            "the .mm notation (docs/notation.md)",
                        )  # fmt: skip
                    g.count += 1
                    g.report.last_line = line_no
                    continue
                if raw is OVERLONG:
                    g = g or self._orphan(name, line_no)
                    if not g.failed:
                        self._violate(
                            g,
                            line_no,
                            g.count,
                            "line_too_long",
                            "the line is longer than the reader accepts (64 MiB)",
                            "FORMAT.md Files",
                        )
                    g.count += 1
                    continue
                try:
                    ev = decode(raw)
                except (msgspec.DecodeError, RecursionError) as exc:
                    if isinstance(exc, RecursionError):
                        problem = (
                            "bad_json",
                            "the JSON is nested too deeply to read",
                            "FORMAT.md Files (one JSON object per line)",
                        )
                    elif isinstance(exc, msgspec.ValidationError):  # JSON of the wrong shape
                        problem = (
                            "schema_error",
                            _explain(raw, exc),
                            "schemas/ (FORMAT.md Events)",
                        )
                    else:
                        problem = (
                            "bad_json",
                            f"not valid JSON: {exc}",
                            "FORMAT.md Files (one JSON object per line)",
                        )
                    if _looks_like_header(raw):
                        if g is not None:
                            yield self._finish(g)
                        g = _Game(GameReport(file=name, line=line_no, game_id=_guess_id(raw)))
                        self._notify_begin(g.report)
                    g = g or self._orphan(name, line_no)
                    if not g.failed:
                        self._violate(g, line_no, g.count, *problem, raw=raw)
                    g.count += 1
                    g.report.last_line = line_no
                    continue
                if type(ev) is Game:
                    if g is not None:
                        yield self._finish(g)
                    g = self._start(name, line_no, ev, raw)
                    continue
                if g is None:
                    g = self._orphan(name, line_no)
                index = g.count
                g.count += 1
                g.report.last_line = line_no
                if g.failed:
                    continue
                if g.engine is None:  # events before any header
                    self._violate(
                        g,
                        line_no,
                        index,
                        "missing_header",
                        "an event before any game header; a game starts with its `game` line",
                        "FORMAT.md Files",
                        player=event_player(ev),
                        raw=raw,
                    )
                    continue
                if ev.seq is not None and ev.seq != index:
                    self._violate(
                        g,
                        line_no,
                        index,
                        "bad_seq",
                        f"seq is {_number(ev.seq)} but this is event {index} of the game",
                        "FORMAT.md Files (seq counts up by one from 0)",
                        str(index),
                        event_player(ev),
                        raw,
                    )
                    continue
                try:
                    g.engine.apply(ev)
                except RuleViolation as rv:
                    self._violate(
                        g, line_no, index, rv.code, rv.message, rv.rule, rv.expected,
                        event_player(ev), raw,
                    )  # fmt: skip
                    continue
                for v in self.visitors:
                    v.event(g.report, index, line_no, ev, raw)
        except LogReadError as exc:
            if exc.line is None:  # the file could not be opened at all
                raise
            if exc.message.startswith("not a text log"):
                # issue 15: a binary file is unreadable input, not an invalid game
                raise LogReadError(exc.path, None, exc.message) from exc
            g = g or self._orphan(name, exc.line)
            if not g.failed:
                self._violate(
                    g, exc.line, g.count, "truncated_file", exc.message, "FORMAT.md Files"
                )
        if g is not None:
            yield self._finish(g)

    def replay_paths(self, paths: Iterable[str | Path]) -> Iterator[GameReport]:
        """Replay every game of several files, in order (see :meth:`replay_file`)."""
        for p in paths:
            yield from self.replay_file(p)

    # -- games

    def _orphan(self, name: str, line: int) -> _Game:
        g = _Game(GameReport(file=name, line=line, game_id=None))
        self._notify_begin(g.report)
        return g

    def _notify_begin(self, report: GameReport) -> None:
        for v in self.visitors:
            v.begin_game(report)

    def _start(self, name: str, line: int, header: Game, raw: bytes | None = None) -> _Game:
        report = GameReport(file=name, line=line, game_id=header.game_id, header=header)
        report.last_line = line
        g = _Game(report)
        g.count = 1
        problem = _header_problem(header) or _commitment_problem(header)
        if header.seq not in (None, 0):
            problem = ("bad_seq", "the header's seq must be 0", "FORMAT.md Files")
        if problem is None:
            try:
                rules = resolve(header.ruleset, header.options, self.file_options)
            except RulesetError as exc:
                problem = (exc.code, str(exc), "RULESETS.md (presets and options)")
            else:
                report.rules = rules
                unsupported = rules.unsupported()
                if unsupported:
                    problem = (
                        "unsupported_rule",
                        "this version cannot replay " + "; ".join(unsupported),
                        "README support table",
                    )
                else:
                    ctx: RoundContext | None = None
                    if header.match_id is not None:
                        ctx, problem = self._match_context(header, rules)
                    g.engine = Engine(rules, header, ctx)
                    report.engine = g.engine
        if problem is not None:
            code, message, rule = problem
            self._violate(g, line, 0, code, message, rule, raw=raw)
        elif header.started_at is not None and not is_iso_datetime(header.started_at):
            # issue 15: a schema_error, but the game is still replayed (its date unknown)
            self._violate(
                g,
                line,
                0,
                "schema_error",
                f"game.started_at {_shorten(repr(header.started_at), 80)} is not an ISO 8601 "
                "date and time; the game is replayed, its date is unknown",
                "FORMAT.md Events (game.started_at); README (started_at is ISO 8601)",
                raw=raw,
            )
            g.failed = False
        self._notify_begin(report)
        return g

    def _match_context(
        self, header: Game, rules: Ruleset
    ) -> tuple[RoundContext | None, tuple[str, str, str] | None]:
        """The round's place in its match, or the violation its header makes (ruling 14)."""
        mid = header.match_id
        assert mid is not None
        rnd = header.round
        rule = "PRESETS.md ruling 14 (matches); FORMAT.md Conventions (the next round)"
        st = self.matches.get(mid)
        if st is None:
            st = MatchState(mid, tuple(header.players), rules.key)
            self.matches[mid] = st
            if rnd not in (None, 1):
                st.rounds = rnd - 1
                st.broken = f"rounds before {rnd} are not in the input"
                return RoundContext(mid, rnd, checked=False), None
            return RoundContext(mid, 1), None
        expected = st.rounds + 1
        if st.over and st.broken is None:
            return None, (
                "match_not_over",
                f"round {rnd or expected} of match {mid}, which ended after round {st.rounds}",
                rule,
            )
        if rnd is not None and rnd != expected:
            return None, (
                "wrong_round",
                f"round {rnd} of match {mid} follows round {st.rounds}; round {expected} is due",
                rule,
            )
        if st.broken is not None:
            return RoundContext(mid, expected, checked=False), None
        if rules.key != st.ruleset_key:
            return None, (
                "wrong_round",
                f"match {mid} changes its ruleset in round {expected}",
                rule,
            )
        left = st.players_left(rules)
        if list(header.players) != left:
            return None, (
                "wrong_round",
                f"round {expected} of match {mid} seats {header.players}; {left} are due",
                rule + "; option loser_hand_shrink",
            )
        ctx = st.next_context(rules, expected)
        if header.dealer is not None and ctx.dealer is not None and header.dealer != ctx.dealer:
            return None, (
                "wrong_starter",
                f"{header.dealer} deals round {expected} of match {mid}; the next seat, "
                f"{ctx.dealer}, deals",
                rule + " (round r+1 is dealt by the next seat)",
            )
        return ctx, None

    def _update_match(self, g: _Game) -> None:
        rep = g.report
        header, engine = rep.header, g.engine
        if header is None or header.match_id is None:
            return
        st = self.matches.get(header.match_id)
        if st is None:
            return
        ctx = engine.match if engine is not None else None
        if not rep.valid or engine is None or ctx is None or not ctx.checked:
            st.rounds += 1
            if st.broken is None:
                st.broken = f"round {st.rounds} is invalid"
            return
        st.record_round(
            engine.players,
            engine.players[engine.dealer],
            engine.winner,
            engine.match_totals or {},
            engine.match_rounds_won,
            engine.match_over,
            engine.match_end_seen,
        )

    def _finish(self, g: _Game) -> GameReport:
        rep = g.report
        rep.events = g.count
        if not g.failed and g.engine is not None and g.engine.phase != FINISHED:
            self._violate(
                g,
                rep.last_line or rep.line,
                g.count,
                "round_not_finished",
                "the game ends without round_end"
                + (" while the round goes on" if g.engine.phase != "out" else ""),
                "FORMAT.md Events (round_end closes every game)",
                g.engine.describe_legal(),
            )
        eng = g.engine
        if (
            not g.failed
            and eng is not None
            and eng.match is not None
            and eng.match.checked
            and eng.match_over
            and not eng.match_end_seen
        ):
            self._violate(
                g,
                rep.last_line or rep.line,
                g.count,
                "match_not_over",
                f"match {eng.match.match_id} is decided after round {eng.match.round} "
                f"(totals {eng.match_totals}) but no match_end follows",
                "PRESETS.md ruling 14; FORMAT.md Events (match_end)",
                "a match_end event",
            )
        self._update_match(g)
        for v in self.visitors:
            v.end_game(rep)
        return rep


def is_iso_datetime(text: str) -> bool:
    """True when ``text`` is an ISO 8601 date or date and time (``2024-05-01``,
    ``2024-05-01T18:30:00Z``, with an offset or fractions), as
    :meth:`datetime.datetime.fromisoformat` reads it; ``2024-13-45T99:99`` is not."""
    try:
        datetime.fromisoformat(text)
    except (ValueError, TypeError):
        return False
    return True


def _number(value: int) -> str:
    """An integer from a log as it may be echoed: a 400-digit ``seq`` is shown by its first
    and last digits and its length (issue 15, item 6), not in full."""
    text = str(value)
    if len(text) <= 24:
        return text
    return f"{text[:12]}...{text[-4:]} ({len(text.lstrip('-'))} digits)"


def _shorten(text: str, limit: int) -> str:
    """Cut a message that quotes a huge value (a 10 MB line) to ``limit`` characters."""
    if len(text) <= limit:
        return text
    return text[: limit - 40] + f" ... [{len(text) - limit + 40} more characters]"


def _header_problem(h: Game) -> tuple[str, str, str] | None:
    if h.format != FORMAT_VERSION:
        return (
            "schema_error",
            f"game.format is {h.format!r}; this reader knows {FORMAT_VERSION!r}",
            "FORMAT.md Events (game.format)",
        )
    if len(h.players) < 2:
        return ("schema_error", "a game needs at least two players", "FORMAT.md Events (game)")
    if len(set(h.players)) != len(h.players):
        return ("schema_error", "game.players names a player twice", "FORMAT.md Events (game)")
    if not h.game_id or (h.match_id is not None and not h.match_id) or "" in h.players:
        return (
            "schema_error",
            "game_id, match_id and player ids must not be empty",
            "schemas/events/game.schema.json",
        )
    if h.round is not None and not 1 <= h.round <= 2**31 - 1:
        return (
            "schema_error",
            f"game.round must be a round number from 1, not {h.round}",
            "schemas/events/game.schema.json",
        )
    if h.dealer is not None and h.dealer not in h.players:
        return (
            "schema_error",
            f"the dealer {h.dealer!r} is not one of the players",
            "FORMAT.md Events (game.dealer)",
        )
    return None


def _commitment_problem(h: Game) -> tuple[str, str, str] | None:
    shuffle = h.shuffle or {}
    if shuffle.get("algorithm") != FAIR_SHUFFLE:
        return None
    seed, promised = shuffle.get("seed"), shuffle.get("commitment")
    if isinstance(seed, str) and isinstance(promised, str) and commitment(seed) != promised.lower():
        return (
            "bad_commitment",
            f"SHA-256 of the revealed seed is {commitment(seed)}, not the published "
            f"commitment {promised}",
            "shuffle maumau-sha256-fy/1, step 1",
        )
    return None


def _looks_like_header(raw: bytes) -> bool:
    head = raw[:200]
    return b'"game"' in head and b'"type"' in head


def _guess_id(raw: bytes) -> str | None:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        obj = None
    if isinstance(obj, dict):
        gid = obj.get("game_id")
        return None if gid is None else str(gid)[:200]
    return _scan_id(raw)


def _scan_id(raw: bytes) -> str | None:
    key = raw.find(b'"game_id"')
    if key < 0:
        return None
    start = raw.find(b'"', raw.find(b":", key) + 1)
    end = raw.find(b'"', start + 1)
    if start < 0 or end < 0:
        return None
    return raw[start + 1 : end].decode("utf-8", "replace")[:200]


def _explain(raw: bytes, exc: Exception) -> str:
    if explain_event is not None:
        try:
            text = explain_event(json.loads(raw))
        except Exception:  # pragma: no cover - fall back to the decoder's words
            text = ""
        if text:
            return text
    return str(exc) or "the event does not have the shape the schema requires"


def replay_events(
    events: Iterable[Event],
    name: str = "<memory>",
    rules_file_options: Mapping[str, Any] | None = None,
) -> list[GameReport]:
    """Replay events held in memory (one or more games, headers included).

    Args:
        events: the events in log order.
        name: the name the reports give as their file.
        rules_file_options: as for :class:`Replayer`.
    Returns:
        One :class:`GameReport` per game; event ``i`` of the list is line ``i + 1``.
    """
    from .events import encode_event

    lines = ((i + 1, encode_event(ev)) for i, ev in enumerate(events))
    return list(Replayer(rules_file_options).replay_lines(name, lines))


def read_games(path: str | Path) -> Iterator[tuple[int, list[Event]]]:
    """Read a log's games as decoded events, without replaying them.

    Args:
        path: a log file.
    Yields:
        ``(header_line, events)`` per game, header first.
    Raises:
        LogReadError: the file cannot be read, or a line is not a valid event (the message
            names the line); events before any header are an error too.
    """
    current: list[Event] | None = None
    start = 0
    for line_no, raw in iter_lines(Path(path)):
        if raw is OVERLONG:
            raise LogReadError(str(path), line_no, "the line is longer than the reader accepts")
        try:
            ev = decode_event(raw)
        except msgspec.DecodeError as exc:
            raise LogReadError(str(path), line_no, f"not a valid event: {exc}") from exc
        if isinstance(ev, Game):
            if current is not None:
                yield start, current
            current, start = [ev], line_no
        elif current is None:
            raise LogReadError(str(path), line_no, "an event before any game header")
        else:
            current.append(ev)
    if current is not None:
        yield start, current
