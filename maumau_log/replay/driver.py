"""Drive logs through the engine: split files into games, collect violations, feed visitors.

Data flows one way: :mod:`logfile` (located lines) -> :mod:`events` (decoding) ->
:mod:`engine` (rules) -> :class:`GameReport` records -> visitors (Parquet rows, statistics,
printers). A bad line, a bad game or a bad file never stops the others: each game stops at
its first violation and is reported invalid; the games around it replay as usual.

The replay's modules, imported one way: :mod:`.replay_report` (the report, the visitor
protocol, the driver's per-game record) <- :mod:`.replay_checks` (header, commitment and
match checks, violation wording) <- this module (the per-line driver, and the public names).

The per-line path is kept lean: lines come in lists per read
(:func:`~maumau_log.logs.lines.iter_line_runs`), each is decoded straight into its event
struct by msgspec's tagged union, a play's or a draw's fields are read in one call, and
the engine applies it; everything unusual (bad JSON, overlong lines, notation errors,
violations) leaves the fast path through the decoder's exception or a test on the game.
Short lines of the turn's events are kept decoded (:data:`DECODED_LINE_BYTES`).

This module is compiled with the engine when the build can (``hatch_build.EXTRA``; the
same source, ``MAUMAU_LOG_PURE_PYTHON=1`` runs it as Python): the loop then calls the
engine's ``apply`` as a C function.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, cast

import msgspec
import msgspec.structs

from ..engine import FINISHED, Engine, RuleViolation
from ..engine.errors import per_player
from ..events import (
    EVENT_DECODER,
    Call,
    Draw,
    Event,
    Game,
    Pass,
    Play,
    SuitChoice,
    encode_event,
    event_player,
    valid_text,
)
from ..logs.lines import LogReadError, Overlong, iter_line_runs, limit_text
from ..logs.notation import BadLine, is_notation
from ..logs.notation import file_lines as notation_lines
from ..rules import Ruleset, RulesetError, resolve
from ..scoring.matches import MatchState, RoundContext
from ..violations import Violation
from .checks import (
    commitment_problem,
    explain,
    guess_id,
    header_problem,
    is_iso_datetime,
    looks_like_header,
    match_context,
    number_text,
    shorten,
    update_match,
)
from .reading import read_games
from .report import GameReport, GameState, ReplayVisitor

__all__ = [
    "GameReport",
    "ReplayVisitor",
    "Replayer",
    "is_iso_datetime",
    "read_games",
    "replay_events",
]

_BAD_JSON_RULE = "FORMAT.md Files (one JSON object per line)"
_encode_options = msgspec.json.Encoder().encode

_GAME: Final = Game
"""The header's type as a final name (compiled: a C static, not a dict look-up per line)."""
_PLAY: Final = Play
_DRAW: Final = Draw
_FIELDS: Final = msgspec.structs.astuple
"""An event's field values in the order of its ``__struct_fields__``: one call for a play's
or a draw's fields and ``seq``, read by position (:data:`FIELD_ORDER`), where each read of
a field is a generic attribute look-up in the compiled build (about 180 machine
instructions each; the call and its tuple about 400, callgrind)."""
FIELD_ORDER: Final = {
    Play: ("player", "cards", "jump_in", "t", "seq"),
    Draw: ("player", "cards", "count", "reason", "t", "seq"),
}
"""The field order the driver reads by position, ``seq`` last (msgspec puts the keyword-only
fields of the base class last; ``tests/test_replay_field_order.py`` pins it)."""

DECODED_LINE_BYTES = 96
"""Lines up to this length of the turn's events (:data:`DECODED_TYPES`) are kept decoded
per :class:`Replayer`: a log repeats them
(``{"type":"play","player":"p2","cards":["7H"]}``: 115,733 distinct lines of 1,375,051 in
``bench_validate``'s file, the 3,000 most frequent 91% of them), and a dict look-up of the
line's bytes costs a small part of msgspec's decode. The event for equal bytes is the
same (decoding is a function of the bytes), so the replay is the same; events are frozen
and neither the engine nor a visitor changes their lists, so one event may stand for many
lines (``tests/test_replay_decoded.py``)."""
DECODED_LINES = 4096
"""At most this many lines are kept decoded (memory flat in the games: about 1.6 MiB), the
first ones met since the kept lines were last dropped (see :data:`DECODED_JUDGE`)."""
DECODED_JUDGE = 8192
"""Every this many decoded lines (lines not found among the kept ones), a :class:`Replayer`
judges its kept lines: if fewer than one line in five was found there since the last
judgement (a log with a ``t`` or ``seq`` in every line: no two lines are equal), it drops
them and neither looks nor keeps for :data:`DECODED_PAUSE` times as many decoded lines, then
starts keeping again from the lines it meets then. So such a log pays no failed look-up per
line, and a plain log after it is not left with kept lines that are never found.
Only the speed depends on it, never a report."""
DECODED_PAUSE = 8
"""How many judgement windows (:data:`DECODED_JUDGE`) a Replayer neither looks nor keeps
after judging its kept lines useless."""
DECODED_TYPES: Final = frozenset({Play, Draw, Pass, SuitChoice, Call})
"""The events kept decoded: the turn's short, repeated ones (a header, a deal, a
reshuffle, a penalty or a round's end is rarely repeated and is never kept), and only
those without a ``seq``: the driver checks ``seq`` only for a line it decodes. A log with
``seq`` on every line keeps nothing and, judged, stops looking (:data:`DECODED_JUDGE`)."""


def _starts_game(raw: bytes) -> bool:
    """A line that is no event but starts a new game: a notation header that could not be
    read, or a line that looks like a ``game`` header (for an over-long line, judged by its
    first bytes: every runner reads it so, whatever its length or its place in a shard)."""
    if type(raw) is Overlong:
        return looks_like_header(raw.head)
    if type(raw) is BadLine:
        return raw.header
    return looks_like_header(raw)


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
        # header (ruleset, options) -> resolved ruleset: one dict look-up per game
        self._rules: dict[tuple[str, bytes], Ruleset] = {}
        # a short line's bytes -> its event (DECODED_LINE_BYTES): one look-up, no decode
        self._decoded: dict[bytes, Event] = {}
        # DECODED_JUDGE: looking up kept lines at all; decoded lines and lines since the
        # last judgement; decoded lines at which the next judgement falls
        self._caching = True
        self._misses = 0
        self._seen = 0
        self._judge_at = DECODED_JUDGE

    # -- violations

    def _violate(
        self,
        g: GameState,
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
            message=shorten(message, 1000),
            expected=None if expected is None else shorten(expected, 1000),
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
                permission) or is not a text log (binary, UTF-16), with
                ``line`` None; the CLI lists it as unreadable input.
        """
        if is_notation(path):  # the hand-written notation, converted as it is read
            return self.replay_lines(str(path), notation_lines(path))
        return self.replay_runs(str(path), iter_line_runs(Path(path)))

    def replay_lines(self, name: str, lines: Iterable[tuple[int, bytes]]) -> Iterator[GameReport]:
        """Replay located lines (``(line_number, raw_bytes)``, as :func:`iter_lines` yields):
        :meth:`replay_runs` with a run of one line for each.

        Args:
            name: the source's name for the reports (a ``str``: a path, or e.g.
                ``"<memory>"``); a lone surrogate in it (a file name that is not UTF-8)
                becomes U+FFFD in the reports (:func:`~maumau_log.events.valid_text`).
            lines: the lines, each a ``tuple`` of an ``int`` and ``bytes``; a
                :class:`LogReadError` raised while iterating ends the source as
                :meth:`replay_file` describes.
        Raises:
            TypeError: in the compiled build, ``name`` not a ``str`` or a line not such a
                tuple (the pure build may accept a ``Path`` or a list; pass the types above).
        Yields:
            A :class:`GameReport` per game.
        """
        return self.replay_runs(name, ((line_no, [raw]) for line_no, raw in lines))

    def replay_runs(
        self, name: str, runs: Iterable[tuple[int, list[bytes]]]
    ) -> Iterator[GameReport]:
        """Replay runs of located lines, as :func:`~maumau_log.logs.lines.iter_line_runs`
        yields them: ``(first_line_number, lines)``, the lines numbered from it (compiled,
        a machine integer counts them: no number object and no tuple per line, where
        :func:`~maumau_log.logs.lines.numbered` made both). Args, Raises, Yields: as
        :meth:`replay_lines` (each run a ``tuple`` of an ``int`` and a ``list`` of ``bytes``).
        """
        name = valid_text(name)
        g: GameState | None = None
        # the current game's hot fields in locals (no attribute write per event);
        # written back to ``g`` (count, last_line) before any method that reads them, and
        # read again from ``g`` after any that may change them
        count = 0  # g.count
        last = 0  # g.last_line
        live: Engine | None = None  # g.engine while events are checked (None: failed)
        accepted: list[bytes] = []  # g.lines
        decode = EVENT_DECODER.decode
        decoded = self._decoded
        hooks = [v.event for v in self.visitors if not getattr(v, "lines_only", False)]
        keep = len(hooks) < len(self.visitors)  # a visitor wants report.lines instead
        caching, misses, seen, judge_at = self._caching, self._misses, self._seen, self._judge_at
        try:
            for first, run in runs:
                for at, raw in enumerate(run):
                    line_no = first + at
                    seen += 1
                    ev = decoded.get(raw) if caching else None
                    # a kept event has no seq (only those are kept): no seq to check for it
                    seq: int | None = None
                    fresh = ev is None
                    if ev is None:
                        try:
                            ev = decode(raw)
                        except (msgspec.DecodeError, RecursionError) as exc:
                            # Overlong and BadLine never decode: they take this way out too
                            # (and are never kept decoded: equal bytes would decode)
                            header = _starts_game(raw)
                            if g is not None:
                                g.count, g.last_line = count, last
                                if header:
                                    yield self._finish(g)
                            g = self._bad_line(
                                name, None if header else g, header, line_no, raw, exc
                            )
                            count, last, accepted = g.count, g.last_line, g.lines
                            live = None if g.failed else g.engine
                            continue
                    kind = type(ev)
                    # a play's or a draw's fields in one call (FIELDS), else None
                    fields = _FIELDS(ev) if kind is _PLAY or kind is _DRAW else None
                    if fresh:
                        seq = ev.seq if fields is None else fields[-1]
                        if (
                            caching
                            and seq is None
                            and len(raw) <= DECODED_LINE_BYTES
                            and len(decoded) < DECODED_LINES
                            and kind in DECODED_TYPES
                        ):
                            decoded[raw] = ev
                        misses += 1
                        if misses >= judge_at:  # DECODED_JUDGE: are the kept lines found?
                            if caching and misses * 5 > seen * 4:  # under one line in five
                                caching = False
                                decoded.clear()
                                judge_at = DECODED_JUDGE * DECODED_PAUSE
                            else:
                                caching = True
                                judge_at = DECODED_JUDGE
                            misses = seen = 0
                            self._caching, self._judge_at = caching, judge_at
                    if kind is _GAME:
                        if g is not None:
                            g.count, g.last_line = count, last
                            yield self._finish(g)
                        g = self._start(name, line_no, cast(Game, ev), raw)
                        count, last, accepted = g.count, g.last_line, g.lines
                        live = None if g.failed else g.engine
                        continue
                    if g is None:
                        g = self._orphan(name, line_no)
                        count, last, accepted = g.count, g.last_line, g.lines
                        live = None if g.failed else g.engine
                    index = count
                    count = index + 1
                    last = line_no
                    if live is None:
                        if g.failed:
                            continue
                        g.count, g.last_line = count, last
                        self._bad_place(g, line_no, index, ev, raw)  # no engine: no header
                        live = None if g.failed else g.engine
                        continue
                    if seq is not None and seq != index:
                        g.count, g.last_line = count, last
                        self._bad_place(g, line_no, index, ev, raw)
                        live = None if g.failed else g.engine
                        continue
                    try:
                        if fields is None:
                            live.apply(ev)
                        elif kind is _PLAY:
                            live.apply_play(cast(Play, ev), fields[0], fields[1], fields[2])
                        else:
                            live.apply_draw(
                                cast(Draw, ev), fields[0], fields[1], fields[2], fields[3]
                            )
                    except RuleViolation as rv:
                        g.count, g.last_line = count, last
                        self._violate(
                            g, line_no, index, rv.code, rv.message, rv.rule, rv.expected,
                            event_player(ev), raw,
                        )  # fmt: skip
                        live = None if g.failed else g.engine
                        continue
                    if keep:
                        accepted.append(raw)
                    if hooks:
                        report = g.report
                        for hook in hooks:
                            hook(report, index, line_no, ev, raw)
        except LogReadError as exc:
            if exc.line is None:  # the file could not be opened at all
                raise
            if exc.message.startswith("not a text log"):
                # a binary file is unreadable input, not an invalid game
                raise LogReadError(exc.path, None, exc.message) from exc
            if g is not None:
                g.count, g.last_line = count, last
            g = g or self._orphan(name, exc.line)
            if not g.failed:
                self._violate(
                    g, exc.line, g.count, "truncated_file", exc.message, "FORMAT.md Files"
                )
            count, last = g.count, g.last_line
        self._misses, self._seen = misses, seen
        if g is not None:
            g.count, g.last_line = count, last
            yield self._finish(g)

    def _bad_line(
        self,
        name: str,
        g: GameState | None,
        header: bool,
        line_no: int,
        raw: bytes,
        exc: Exception,
    ) -> GameState:
        """A line that is no event: an overlong line, a notation error, bad JSON or JSON of
        the wrong shape. ``header``: the line starts a new game (the game before it was
        finished by the caller). Returns the game the line belongs to."""
        if type(raw) is Overlong:
            if header:  # its first bytes look like a header: a new game, as for bad JSON
                gid = guess_id(raw.head)
                g = GameState(GameReport(file=name, line=line_no, game_id=gid))
                self._notify_begin(g.report)
            g = g or self._orphan(name, line_no)
            if not g.failed:
                self._violate(
                    g,
                    line_no,
                    g.count,
                    "line_too_long",
                    f"the line is longer than the reader accepts ({limit_text(raw.limit)})"
                    + ("; it looks like a game header, so it starts a game" if header else ""),
                    "FORMAT.md Files; docs/reference/format.md#files (lines up to 64 MiB)",
                )
            g.count += 1
            g.last_line = line_no
            return g
        if type(raw) is BadLine:  # a .mm line the notation's grammar does not allow
            if header:
                g = GameState(GameReport(file=name, line=line_no, game_id=raw.game_id))
                self._notify_begin(g.report)
            g = g or self._orphan(name, line_no)
            if not g.failed:
                self._violate(
                    g, line_no, g.count, "bad_notation", raw.message,
                    "the .mm notation (docs/reference/notation.md)",
                )  # fmt: skip
            g.count += 1
            g.last_line = line_no
            return g
        if isinstance(exc, RecursionError):
            problem = ("bad_json", "the JSON is nested too deeply to read", _BAD_JSON_RULE)
        elif isinstance(exc, msgspec.ValidationError):  # JSON of the wrong shape
            problem = ("schema_error", explain(raw, exc), "schemas/ (FORMAT.md Events)")
        else:
            problem = ("bad_json", f"not valid JSON: {exc}", _BAD_JSON_RULE)
        if header:
            g = GameState(GameReport(file=name, line=line_no, game_id=guess_id(raw)))
            self._notify_begin(g.report)
        g = g or self._orphan(name, line_no)
        if not g.failed:
            self._violate(g, line_no, g.count, *problem, raw=raw)
        g.count += 1
        g.last_line = line_no
        return g

    def _bad_place(self, g: GameState, line_no: int, index: int, ev: Event, raw: bytes) -> None:
        """An event before any header, or one whose ``seq`` is not its index."""
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
            return
        self._violate(
            g,
            line_no,
            index,
            "bad_seq",
            f"seq is {number_text(ev.seq or 0)} but this is event {index} of the game",
            "FORMAT.md Files (seq counts up by one from 0)",
            str(index),
            event_player(ev),
            raw,
        )

    def replay_paths(self, paths: Iterable[str | Path]) -> Iterator[GameReport]:
        """Replay every game of several files, in order (see :meth:`replay_file`)."""
        for p in paths:
            yield from self.replay_file(p)

    # -- games

    def _orphan(self, name: str, line: int) -> GameState:
        g = GameState(GameReport(file=name, line=line, game_id=None))
        self._notify_begin(g.report)
        return g

    def _notify_begin(self, report: GameReport) -> None:
        for v in self.visitors:
            v.begin_game(report)

    def _resolve(self, header: Game) -> Ruleset:
        """The header's ruleset (:func:`~maumau_log.rules.resolve`), from a per-replayer
        cache keyed by the preset name and the options' JSON (rejections are not cached)."""
        opts = header.options
        try:
            key = (header.ruleset, b"" if opts is None else _encode_options(opts))
        except (TypeError, ValueError):  # options built in memory, not from JSON
            return resolve(header.ruleset, opts, self.file_options)
        rules = self._rules.get(key)
        if rules is None:
            rules = resolve(header.ruleset, opts, self.file_options)
            if len(self._rules) < 4096:
                self._rules[key] = rules
        return rules

    def _start(self, name: str, line: int, header: Game, raw: bytes | None = None) -> GameState:
        report = GameReport(file=name, line=line, game_id=header.game_id, header=header)
        report.last_line = line
        g = GameState(report)
        g.count = 1
        problem = header_problem(header) or commitment_problem(header)
        if header.seq not in (None, 0):
            problem = ("bad_seq", "the header's seq must be 0", "FORMAT.md Files")
        if problem is None:
            try:
                rules = self._resolve(header)
            except RulesetError as exc:
                problem = (exc.code, str(exc), "RULESETS.md (presets and options)")
            else:
                report.rules = rules
                unsupported = rules.unsupported()
                if unsupported:
                    problem = (
                        "unsupported_rule",
                        "this version cannot replay " + "; ".join(unsupported),
                        "docs/reference/rules.md#support-table",
                    )
                else:
                    ctx: RoundContext | None = None
                    if header.match_id is not None:
                        ctx, problem = match_context(self.matches, header, rules)
                    g.set_engine(Engine(rules, header, ctx))
        if problem is not None:
            code, message, rule = problem
            self._violate(g, line, 0, code, message, rule, raw=raw)
        elif header.started_at is not None and not is_iso_datetime(header.started_at):
            # a schema_error, but the game is still replayed (its date unknown)
            self._violate(
                g,
                line,
                0,
                "schema_error",
                f"game.started_at {shorten(repr(header.started_at), 80)} is not an ISO 8601 "
                "date and time; the game is replayed, its date is unknown",
                "FORMAT.md Events (game.started_at); docs/reference/format.md#decisions",
                raw=raw,
            )
            g.failed = False
        self._notify_begin(report)
        return g

    def _finish(self, g: GameState) -> GameReport:
        rep = g.report
        rep.events = g.count
        rep.last_line = g.last_line
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
                f"(totals {per_player(eng.match_totals or {})}) but no match_end follows",
                "PRESETS.md ruling 14; FORMAT.md Events (match_end)",
                "a match_end event",
            )
        update_match(self.matches, g)
        for v in self.visitors:
            v.end_game(rep)
        return rep


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
    lines = ((i + 1, encode_event(ev)) for i, ev in enumerate(events))
    return list(Replayer(rules_file_options).replay_lines(name, lines))
