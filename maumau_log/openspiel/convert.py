"""The conversion of a replayed OpenSpiel game into canonical log events (FORMAT.md events
``game``, ``deal``, ``play``, ``suit``, ``draw``, ``pass``, ``reshuffle``, ``abandon``,
``round_end``; preset ``crazy-eights``, RULES.md section 12).

A game becomes one log game: the header (``ruleset: "crazy-eights"``, players ``p0`` ..
``p{n-1}`` = OpenSpiel's player ids, in OpenSpiel's order of play, the dealer, and the game
parameters as options), the deal, one event per player action (a draw action and the
chance cards it takes are one ``draw`` event; a draw of a pending sum that a reshuffle
splits is two), a ``reshuffle`` event where OpenSpiel reshuffles, and ``round_end`` with the
winner, every hand and OpenSpiel's returns: by default (``returns="field"``) only in the
extra field ``openspiel_returns``, which ``validate`` ignores, so a correct game validates
clean; with ``returns="scores"`` also as ``round_end.scores``, which ``validate`` checks
against the documented rule (PRESETS.md ruling 13, scoring ``hand_penalty``): the audit of
OpenSpiel's own scoring, whose card id + 2 charge it reports as ``wrong_score``.

The stock order: OpenSpiel keeps the stock as a multiset and draws a card by a chance action,
so a history fixes the order of only the cards that are drawn. ``deal.stock`` (and each
``reshuffle.stock``) lists the cards in the order the later draws take them, then the cards
never drawn in canonical order (card id order: 2C 2D 2H 2S 3C ...). Every draw is then
checked against the stock top. Starters that were 8s go back into the stock (OpenSpiel
puts them back and turns again); they are listed in ``game.meta.openspiel_redealt``.

The conversion runs compiled with the port (``hatch_build.EXTRA``), and is written for it
once here rather than per line: the pack's and a hand's counts are lowered as
``pack[c] = pack[c] - 1`` (``-=`` on a list item is a generic call compiled), events are
added by ``events.append`` (a direct C call, where a bound-method local is a Python
call), and the cards left are listed by one typed pass over the 52 ids, no generic
``max`` or ``compress``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import msgspec

from ..events import FORMAT_VERSION
from .actions import CARD_CODES, CHANCE, EIGHT_RANK, NUM_CARDS
from .errors import OpenSpielImportError
from .lines import PASS_ID, PER_PLAYER, SUIT_BASE, Draw, as_dicts, draw_one, encode_events
from .params import GameParams, parse_game_string
from .port import (
    T_DEAL,
    T_DRAW,
    T_DRAWN,
    T_PASS,
    T_PLAY,
    T_RESHUFFLE,
    T_STARTER,
    T_STARTER_BACK,
    T_SUIT,
    CrazyEightsState,
)
from .sources import SourceGame


def _in_id_order(copies: list[int]) -> list[str]:
    """The codes of the cards counted in ``copies`` (per card id, never below 0), in card
    id order."""
    codes = CARD_CODES
    out: list[str] = []
    for c in range(NUM_CARDS):
        k = copies[c]
        while k > 0:
            out.append(codes[c])
            k -= 1
    return out


RETURNS_MODES: Final = ("field", "scores")
"""Where OpenSpiel's returns go: ``"field"`` (default) only ``round_end.openspiel_returns``;
``"scores"`` also ``round_end.scores``."""


class _Segment:
    """One run of the stock: after the deal, or after a reshuffle (copies per card id),
    the cards drawn from it in order, and the event's list to fill with the stock order."""

    __slots__ = ("cards", "drawn", "target")

    def __init__(self, cards: list[int], target: list[str]) -> None:
        self.cards = cards  # copies of each card id, NUM_CARDS entries
        self.drawn: list[int] = []
        self.target = target

    def fill(self) -> None:
        """Write the stock order: the cards drawn, then the others in card id order."""
        rest = self.cards
        codes = CARD_CODES
        target = self.target
        for c in self.drawn:  # one pass
            rest[c] = rest[c] - 1
            target.append(codes[c])
        target.extend(_in_id_order(rest))


def history_to_events(
    params: GameParams,
    history: list[int],
    game_id: str = "openspiel-1",
    returns: str = "field",
    partial: bool = False,
    meta: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Convert one OpenSpiel ``crazy_eights`` history into log events (dicts, log order).

    Args:
        params: the game parameters.
        history: the action ids, chance actions included, from the dealer choice on.
        game_id: the header's ``game_id``.
        returns: ``"field"`` (default) keeps OpenSpiel's returns only as the extra field
            ``round_end.openspiel_returns``, which the validator ignores; ``"scores"`` also
            writes them as ``round_end.scores``, for the validator to check (the audit of
            OpenSpiel's scoring).
        partial: a history that stops before the game is over ends with ``abandon`` and a
            ``round_end`` with no winner instead of being refused.
        meta: extra entries for ``game.meta``.
    Returns:
        The events, header first.
    Raises:
        OpenSpielImportError: an illegal action (:class:`IllegalAction`, ``action_index``
            set), an empty or unfinished history (unless ``partial``).
        ValueError: ``returns`` is not ``"field"`` or ``"scores"``.
    """
    state = _replayed(params, history, returns, partial)
    return events_from_trace(state, game_id, returns, meta)[0]


def history_to_lines(
    params: GameParams,
    history: list[int],
    game_id: str = "openspiel-1",
    returns: str = "field",
    partial: bool = False,
    meta: dict[str, Any] | None = None,
) -> bytes:
    """:func:`history_to_events` as the log's JSON lines, each ending in a newline: the
    bytes of :func:`encode_game` of those events, made without a dict per event (
    the import calls :func:`history_to_lines_counted`, which also gives the count). Same
    arguments and errors; also ``UnicodeEncodeError`` as :func:`encode_event`."""
    return history_to_lines_counted(params, history, game_id, returns, partial, meta)[0]


def history_to_lines_counted(
    params: GameParams,
    history: list[int],
    game_id: str = "openspiel-1",
    returns: str = "field",
    partial: bool = False,
    meta: dict[str, Any] | None = None,
) -> tuple[bytes, int]:
    """:func:`history_to_lines` and the number of its lines (events), which the import's
    summary reports without counting the newlines of the written log again.

    Returns:
        ``(lines, count)``: the bytes of :func:`history_to_lines` and
        ``lines.count(b"\\n")``.
    Raises:
        As :func:`history_to_lines`.
    """
    state = _replayed(params, history, returns, partial)
    events = compact_events(state, game_id, returns, meta, with_origins=False)[0]
    return encode_events(events), len(events)


def _replayed(
    params: GameParams, history: list[int], returns: str, partial: bool
) -> CrazyEightsState:
    """The port after ``history``, or the refusal (see :func:`history_to_events`)."""
    if returns not in RETURNS_MODES:
        raise ValueError(f"returns must be 'field' or 'scores', not {returns!r}")
    state = CrazyEightsState(params)
    state.apply_all(history)
    if not state.history:
        raise OpenSpielImportError("the history is empty")
    if not state.is_terminal() and not partial:
        who = state.current_player()
        raise OpenSpielImportError(
            f"the history ends after {len(history)} actions before the game is over "
            f"({'a chance node' if who == CHANCE else f'player {who} to act'}); "
            "use --partial to import it as an abandoned round",
            action_index=len(history),
        )
    return state


def events_from_trace(
    state: CrazyEightsState, game_id: str, returns: str, meta: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The events of a replayed port, and for each event the index of the player action
    that made it (None for the header, deal, reshuffles, a draw's continuation after a
    reshuffle, and the end).

    Args:
        state: a port that has applied the history (its ``trace``).
        game_id: the header's ``game_id``.
        returns: ``"field"`` or ``"scores"`` (see :func:`history_to_events`).
        meta: extra entries for ``game.meta``, or None.
    Returns:
        ``(events, origins)``, two lists of the same length.
    Raises:
        OpenSpielImportError: the history ends before the starter card is turned.
    """
    events, origins = compact_events(state, game_id, returns, meta)
    return as_dicts(events), origins


def compact_events(
    state: CrazyEightsState,
    game_id: str,
    returns: str,
    meta: dict[str, Any] | None,
    with_origins: bool = True,
) -> tuple[list[Any], list[int | None]]:
    """:func:`events_from_trace` with the events in the compact form of
    :mod:`~maumau_log.openspiel.lines` (ints for ``play``/``suit``/``pass`` and one-card
    draws, :class:`~maumau_log.openspiel.lines.Draw` for other draws, dicts for the others), for
    :func:`~maumau_log.openspiel.lines.encode_events` (the import's lines) or
    :func:`~maumau_log.openspiel.lines.as_dicts`. Same arguments, returns and errors;
    with ``with_origins`` False the origins list comes back empty (the import's lines do
    not use it: one append fewer per event)."""
    n = state.n
    names = [f"p{i}" for i in range(n)]
    codes = CARD_CODES
    events: list[Any] = []
    origins: list[int | None] = []
    hands: list[list[str]] = [[] for _ in range(n)]
    dealt: list[int] = []  # the card ids dealt into the hands
    redealt: list[str] = []
    starter: str | None = None
    segments: list[_Segment] = []
    drawn: list[int] = []  # the current stock segment's drawn cards
    held: list[dict[str, Any]] = []  # a reshuffle waiting for the suit of the 8 just played
    awaiting_suit = False
    open_draw: Draw | None = None
    split = False  # a draw cut by a reshuffle: its next card starts a new draw event
    header: dict[str, Any] = {
        "type": "game",
        "format": FORMAT_VERSION,
        "game_id": game_id,
        "ruleset": "crazy-eights",
        "options": state.params.options(),
        "players": names,
        "dealer": names[state.dealer] if state.dealer >= 0 else None,
        "meta": {"source": "openspiel", "openspiel_game": state.params.game_string()},
    }
    if meta:
        header["meta"].update(meta)
    events.append(header)
    if with_origins:
        origins.append(None)
    per_player = PER_PLAYER
    pass_id, suit_base = PASS_ID, SUIT_BASE

    trace = state.trace  # flat ints: see CrazyEightsState's doc
    i = 0
    size = len(trace)
    action = -1  # the index in the history of the entry's action
    while i < size:
        kind = trace[i]
        if kind != T_RESHUFFLE:  # one entry per action but for reshuffles
            action += 1
        if kind == T_PLAY:
            open_draw = None
            split = False
            card = trace[i + 2]
            events.append(trace[i + 1] * per_player + card)
            if with_origins:
                origins.append(action)
            awaiting_suit = card >> 2 == EIGHT_RANK
            i += 3
        elif kind == T_DRAWN:
            assert open_draw is not None
            if split:  # the rest of a draw after a reshuffle: a new draw event
                open_draw = open_draw.split()
                events.append(open_draw)
                if with_origins:
                    origins.append(None)
                split = False
            card = trace[i + 2]
            open_draw.cards.append(card)
            drawn.append(card)
            i += 3
        elif kind == T_DRAW:
            split = False
            reason = 2 if trace[i + 2] else (1 if trace[i + 3] else 0)
            at = i + 4  # the entry after: the card drawn, when the history goes on
            after = at + 3  # the entry after that card
            if (
                after <= size
                and trace[at] == T_DRAWN
                and (after == size or (trace[after] != T_DRAWN and trace[after] != T_RESHUFFLE))
            ):
                # a one-card draw (most draws): one int, no Draw; its card is
                # the T_DRAWN entry's, which is one more action
                card = trace[at + 2]
                events.append(draw_one(trace[i + 1], card, reason))
                if with_origins:
                    origins.append(action)
                drawn.append(card)
                open_draw = None
                action += 1
                i = after
            else:
                open_draw = Draw(trace[i + 1], reason)
                events.append(open_draw)
                if with_origins:
                    origins.append(action)
                i += 4
        elif kind == T_PASS:
            open_draw = None
            split = False
            events.append(trace[i + 1] * per_player + pass_id)
            if with_origins:
                origins.append(action)
            i += 2
        elif kind == T_SUIT:
            events.append(trace[i + 1] * per_player + suit_base + trace[i + 2])
            if with_origins:
                origins.append(action)
            awaiting_suit = False
            for ev in held:
                events.append(ev)
                if with_origins:
                    origins.append(None)
            held = []
            i += 3
        elif kind == T_DEAL:
            card = trace[i + 2]
            hands[trace[i + 1]].append(codes[card])
            dealt.append(card)
            i += 3
        elif kind == T_STARTER_BACK:
            redealt.append(codes[trace[i + 1]])
            i += 2
        elif kind == T_STARTER:
            card = trace[i + 1]
            starter = codes[card]
            # the stock after the deal: the pack less the hands and the starter
            pack = [state.decks] * NUM_CARDS
            for c in dealt:
                pack[c] = pack[c] - 1
            pack[card] = pack[card] - 1
            deal: dict[str, Any] = {
                "type": "deal",
                "hands": {names[p]: list(hands[p]) for p in range(n)},
                "starter": starter,
                "stock": [],
            }
            seg = _Segment(pack, deal["stock"])
            drawn = seg.drawn
            segments.append(seg)
            events.append(deal)
            if with_origins:
                origins.append(None)
            i += 2
        elif kind == T_RESHUFFLE:
            over, total = trace[i + 1], trace[i + 2]
            first = i + 3
            i = first + NUM_CARDS
            if not total or over:
                continue  # nothing to reshuffle (the log needs none), or after the end
            seg = _Segment(trace[first:i], [])  # the copies of each card id
            drawn = seg.drawn
            segments.append(seg)
            ev = {"type": "reshuffle", "stock": seg.target}
            if open_draw is not None and open_draw.cards:
                # the next cards of this draw come after the reshuffle, as a new draw
                # event (made with its first card: none may follow)
                split = True
                events.append(ev)
                if with_origins:
                    origins.append(None)
            elif awaiting_suit:
                held.append(ev)
            else:
                events.append(ev)
                if with_origins:
                    origins.append(None)
        else:  # T_DEALER: nothing to write (the dealer is the header's)
            i += 2
    if starter is None:
        raise OpenSpielImportError("the history ends before the starter card is turned")
    # drop a draw left empty: the last action of a partial history (a draw cut by a
    # reshuffle makes its second event only with a card)
    last = events[-1]
    if type(last) is Draw and not last.cards:
        events.pop()
        if with_origins:
            origins.pop()
    for s in segments:
        s.fill()
    if redealt:
        header["meta"]["openspiel_redealt"] = redealt
    # an empty hand (the winner's) without a pass over its 52 counts
    sizes = state.hand_sizes
    final = [_in_id_order(state.hands[p]) if sizes[p] else [] for p in range(n)]
    hands_at_end = {names[p]: final[p] for p in range(n)}
    if not state.is_terminal():
        events.append({"type": "abandon", "reason": "the OpenSpiel history ends here"})
        events.append({"type": "round_end", "winner": None, "hands": hands_at_end})
        if with_origins:
            origins += [None, None]
        return events, origins
    winners = [names[p] for p in range(n) if not final[p]]
    end: dict[str, Any] = {
        "type": "round_end",
        "winner": winners[0] if winners else None,
        "hands": hands_at_end,
    }
    rets = {names[p]: _num(state.returns[p]) for p in range(n)}
    if returns == "scores":
        end["scores"] = rets
    end["openspiel_returns"] = rets
    events.append(end)
    if with_origins:
        origins.append(None)
    return events, origins


_events_from_trace = events_from_trace  # the name the tests and older callers use


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


def convert_source(
    src: SourceGame,
    file: str,
    returns: str = "field",
    partial: bool = False,
) -> list[dict[str, Any]]:
    """Decode one :class:`~maumau_log.openspiel.sources.SourceGame` into log events.

    Args:
        src: the game as read from its file.
        file: the file's name as given (for the error's place, ``meta.openspiel_file`` and
            the default game id ``<file stem>-<game number>``).
        returns: ``"field"`` (default) or ``"scores"`` (see :func:`history_to_events`).
        partial: import an unfinished history as an abandoned round.
    Returns:
        The events, header first.
    Raises:
        OpenSpielImportError: located at the file, the game and (for an action) its line
            and index.
    """
    events: list[dict[str, Any]] = _located(history_to_events, src, file, returns, partial)
    return events


def convert_source_lines(
    src: SourceGame,
    file: str,
    returns: str = "field",
    partial: bool = False,
) -> bytes:
    """:func:`convert_source` as the log's JSON lines (:func:`history_to_lines`: the bytes
    of ``encode_game(convert_source(...))``; the import calls
    :func:`convert_source_lines_counted`). Same arguments and errors; also
    ``UnicodeEncodeError`` as :func:`encode_event`."""
    return convert_source_lines_counted(src, file, returns, partial)[0]


def convert_source_lines_counted(
    src: SourceGame,
    file: str,
    returns: str = "field",
    partial: bool = False,
) -> tuple[bytes, int]:
    """:func:`convert_source_lines` and the number of its lines (events): the import's
    way, so that its summary needs no second pass over the log.

    Returns:
        ``(lines, count)``, ``count == lines.count(b"\\n")``.
    Raises:
        As :func:`convert_source_lines`.
    """
    counted: tuple[bytes, int] = _located(history_to_lines_counted, src, file, returns, partial)
    return counted


@lru_cache(maxsize=64)
def _file_name(file: str) -> str:
    """``Path(file).name``, once per file rather than once per game."""
    return Path(file).name


def log_game_id(src: SourceGame, file: str) -> str:
    """The ``game_id`` the log gives the game of ``src`` read from ``file``: the id the
    input gave, else ``<file name's stem>-<game number>`` (``openspiel-<n>`` for a name
    without a stem)."""
    stem = _file_name(file).split(".")[0] or "openspiel"
    return src.game_id or f"{stem}-{src.number}"


def _located(convert: Any, src: SourceGame, file: str, returns: str, partial: bool) -> Any:
    """``convert(params, history, game_id, returns, partial, meta)`` for ``src``, its
    errors located (see :func:`convert_source`)."""
    name = _file_name(file)
    gid = log_game_id(src, file)
    try:
        params = parse_game_string(src.game)
        return convert(
            params, src.history, gid, returns, partial,
            {"openspiel_file": name, "openspiel_game_number": src.number},
        )  # fmt: skip
    except OpenSpielImportError as exc:
        line = src.line
        if exc.action_index is not None and exc.action_index < len(src.lines):
            line = src.lines[exc.action_index]
        elif exc.action_index is not None and src.lines:
            line = src.lines[-1]
        raise exc.located(file, line, src.number) from None


_encoder = msgspec.json.Encoder()


def encode_event(event: dict[str, Any]) -> bytes:
    """One event as a compact JSON line in UTF-8, without the newline (keys in the dict's
    order, ``type`` first, as the log writer does; the same bytes as :func:`dumps_event`).

    Raises:
        UnicodeEncodeError: a text in the event is not valid Unicode (a lone surrogate from
            a JSON ``\\ud800`` escape in the input).
    """
    return _encoder.encode(event)


def encode_game(events: list[dict[str, Any]]) -> bytes:
    """A game's events as JSON lines, each ending in a newline (see :func:`encode_event`).

    Raises:
        UnicodeEncodeError: as :func:`encode_event`.
    """
    if not events:
        return b""
    return b"\n".join(map(_encoder.encode, events)) + b"\n"


def dumps_event(event: dict[str, Any]) -> str:
    """One event as a compact JSON line (``type`` first, as the log writer does).

    Raises:
        UnicodeEncodeError: as :func:`encode_event`.
    """
    return _encoder.encode(event).decode("utf-8")
