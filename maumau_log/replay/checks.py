"""The replay's checks outside the engine: headers, fair-shuffle commitments, matches.

Per game, not per event: the header's own faults (FORMAT.md Events (game)), the published
commitment of a provably fair deal (shuffle ``maumau-sha256-fy/1`` step 1), the round's place
in its match (PRESETS.md ruling 14), and the words of a bad line's violation (its game id
guessed, a schema failure explained, huge values shortened). Imports only
:mod:`.replay_report` of the replay's modules; :mod:`maumau_log.replay.driver` drives.
"""

from __future__ import annotations

import json
from datetime import datetime

from ..engine.errors import number_text as number_text  # re-exported (replay.py)
from ..engine.shuffle import ALGORITHM as FAIR_SHUFFLE
from ..engine.shuffle import commitment
from ..events import FORMAT_VERSION, Game, valid_text
from ..rules import Ruleset
from ..scoring.matches import MatchState, RoundContext
from .report import GameState

Problem = tuple[str, str, str]
"""A violation to report: ``(code, message, rule)``."""


def is_iso_datetime(text: str) -> bool:
    """True when ``text`` is an ISO 8601 date or date and time (``2024-05-01``,
    ``2024-05-01T18:30:00Z``, with an offset or fractions), as
    :meth:`datetime.datetime.fromisoformat` reads it; ``2024-13-45T99:99`` is not."""
    try:
        datetime.fromisoformat(text)
    except (ValueError, TypeError):
        return False
    return True


def shorten(text: str, limit: int) -> str:
    """Cut a message that quotes a huge value (a 10 MB line) to ``limit`` characters."""
    if len(text) <= limit:
        return text
    return text[: limit - 40] + f" ... [{len(text) - limit + 40} more characters]"


def header_problem(h: Game) -> Problem | None:
    """The header's own fault (format version, players, ids, round, dealer), or None
    (FORMAT.md Events (game), schemas/events/game.schema.json)."""
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


def commitment_problem(h: Game) -> Problem | None:
    """``bad_commitment`` when a provably fair deal's revealed seed does not hash to its
    published commitment (shuffle ``maumau-sha256-fy/1`` step 1), else None."""
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


def looks_like_header(raw: bytes) -> bool:
    """True when a line that could not be decoded looks like a ``game`` header (so the
    violation starts a new game rather than failing the one before)."""
    head = raw[:200]
    return b'"game"' in head and b'"type"' in head


def guess_id(raw: bytes) -> str | None:
    """The ``game_id`` of a header line that could not be decoded, as far as it can be
    read (at most 200 characters), or None. A lone surrogate in it (a ``"\\ud800"``
    escape, which :mod:`json` reads and msgspec refuses) becomes U+FFFD
    (:func:`~maumau_log.events.valid_text`): the id is shown, stored and written as
    UTF-8."""
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):  # also a number beyond 4,300 digits
        obj = None
    if isinstance(obj, dict):
        gid = obj.get("game_id")
        return None if gid is None else valid_text(str(gid)[:200])
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


def explain(raw: bytes, exc: Exception) -> str:
    """Why a line of JSON does not have an event's shape, in the schema's words (falls
    back to the decoder's message)."""
    from ..events.schema import explain_event  # only for a bad line (jsonschema is slow to import)

    try:
        text = explain_event(json.loads(raw))
    except Exception:  # pragma: no cover - fall back to the decoder's words
        text = ""
    if text:  # (it may quote a value holding a lone surrogate: see guess_id)
        return valid_text(text)
    return str(exc) or "the event does not have the shape the schema requires"


def match_context(
    matches: dict[str, MatchState], header: Game, rules: Ruleset
) -> tuple[RoundContext | None, Problem | None]:
    """The round's place in its match, or the violation its header makes (ruling 14).

    Args:
        matches: the match states met so far by match id (a new match is added).
        header: the round's header (``match_id`` set).
        rules: the round's resolved ruleset.
    Returns:
        ``(context, None)``, or ``(None, (code, message, rule))`` for a header the match
        does not allow.
    """
    mid = header.match_id
    assert mid is not None
    rnd = header.round
    rule = "PRESETS.md ruling 14 (matches); FORMAT.md Conventions (the next round)"
    st = matches.get(mid)
    if st is None:
        st = MatchState(mid, tuple(header.players), rules.key)
        matches[mid] = st
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


def update_match(matches: dict[str, MatchState], g: GameState) -> None:
    """Record a finished round in its match's state (a round that is invalid or
    unchecked breaks the match's checks from there on)."""
    rep = g.report
    header, engine = rep.header, g.engine
    if header is None or header.match_id is None:
        return
    st = matches.get(header.match_id)
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
