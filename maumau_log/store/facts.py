"""The audit's facts, recorded while the ingest replays a game.

The audit needs what the engine knows during a replay and the tables do not hold: first
hands (power cards per seat), catchable call faults and who caught them, whether a drawn
card could be played, decision times from ``t``, standings at an abandon. Replaying every
game again at audit time costs as much as the ingest; so the ingest's replay (the shard
function, on every core and under Ray) records these facts as rows of the tables
``audit_games``, ``audit_seats`` and ``audit_events``
(:data:`~maumau_log.store.AUDIT_GAMES_SCHEMA` ...), and the audit aggregates them with
Polars (:mod:`maumau_log.audit.tables`).

:class:`GameFactsRecorder` is driven by :class:`~maumau_log.store.collector.RecordCollector`: one
``begin`` per game, one ``event`` per accepted event (after the engine applied it), one
``rows`` at the end. Its facts are those of :func:`maumau_log.audit.collect._replay` (the
replay path, kept for datasets written before these tables), event for event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from ..engine import Engine
from ..events import Abandon, Deal, Draw, Game, Pass, Penalty, Play
from ..rules import Ruleset
from . import AUDIT_POWERS, UNKNOWN

CALL_REASONS = ("missed_call", "wrong_call")
"""Penalty reasons of a caught call fault (PRESETS.md ruling 10)."""

DRAW_REASONS = ("no_play", "voluntary")
"""The draw reasons the ``draws`` test compares (a choice of the drawing player)."""

_HAND_COLUMNS: Final = tuple(f"hand_{power}" for power in AUDIT_POWERS)
"""The ``audit_seats`` columns of the powers in a first hand, in AUDIT_POWERS order (named
once: built per seat, the names were a tenth of the facts' rows)."""
_DRAW_COLUMNS: Final = tuple((f"drawn_{r}", f"playable_{r}") for r in DRAW_REASONS)
"""The ``audit_seats`` columns of each reason in DRAW_REASONS: cards drawn, and playable."""

_EMPTY: dict[str, str] = {}
_PLAY: Final = Play
_DRAW: Final = Draw
_PASS: Final = Pass
_PENALTY: Final = Penalty
_ABANDON: Final = Abandon
_DEAL: Final = Deal


def time_ms(value: Any) -> float | None:
    """An event's ``t`` in milliseconds: epoch milliseconds as given, ISO text converted,
    anything else None (FORMAT.md, common fields)."""
    if value is None or isinstance(value, bool):
        return None
    # two checks, not ``isinstance(value, int | float)``: compiled, that built the union
    # type anew on every call (a fifth of the facts' per-event time on a timed log)
    if isinstance(value, int) or isinstance(value, float):  # noqa: SIM101
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return dt.timestamp() * 1000.0
    return None


def header_client(header: Game | None) -> str:
    """The client that wrote a game: the header's ``meta.client``, else ``meta.engine``,
    else :data:`~maumau_log.store.UNKNOWN` (the ``invalid`` test's groups)."""
    meta = header.meta if header is not None else None
    if not isinstance(meta, dict):
        return UNKNOWN
    value = meta.get("client") or meta.get("engine")
    return str(value) if value else UNKNOWN


_POWER_CACHE: dict[str, dict[str, tuple[int, ...]]] = {}


def card_power_slots(rules: Ruleset) -> dict[str, tuple[int, ...]]:
    """Card to the indexes in :data:`~maumau_log.store.AUDIT_POWERS` of its powers (cached
    per ruleset key)."""
    slots = _POWER_CACHE.get(rules.key)
    if slots is None:
        slots = {
            card: tuple(i for i, power in enumerate(AUDIT_POWERS) if getattr(info, power))
            for card, info in rules.cards.items()
        }
        _POWER_CACHE[rules.key] = slots
    return slots


class GameFactsRecorder:
    """One game's audit facts, gathered during its replay (see the module docstring)."""

    __slots__ = (
        "abandons", "behind", "catches", "cf", "decisions", "draws", "faults", "hands",
        "keys", "moments", "players", "prev", "prev_faults", "prev_player", "prev_t",
        "rules", "starter",
    )  # fmt: skip

    def __init__(self) -> None:
        self.players: list[str] = []
        self.rules: Ruleset | None = None
        self.begin(None, None)

    def begin(self, header: Game | None, rules: Ruleset | None) -> None:
        """Start a game (its header, its ruleset when it resolved)."""
        self.players = list(header.players) if header is not None else []
        self.rules = rules
        self.prev_t = time_ms(header.t) if header is not None else None
        self.prev_player: str | None = None
        self.prev: list[int] | None = None  # hand sizes after the previous event
        self.keys: list[str] = []
        self.prev_faults: dict[str, str] = _EMPTY
        self.cf: dict[str, int] = {}
        self.hands: dict[str, list[str]] | None = None
        self.starter: str | None = None
        self.faults: list[tuple[str, int]] = []
        self.catches: list[tuple[str, str, int]] = []
        self.draws: list[tuple[str, str, bool, int]] = []
        self.decisions: list[tuple[str, float, int]] = []
        self.abandons: list[tuple[str, bool, int]] = []
        self.behind: list[int] = []
        self.moments = 0

    def event(self, e: Engine, index: int, ev: Any, typ: type, player: str | None,
              sizes: list[int]) -> None:  # fmt: skip
        """One accepted event, after the engine ``e`` applied it; ``sizes``: every hand's
        size now, in ``e.hands`` order."""
        tv = ev.t
        t = time_ms(tv) if tv is not None else None
        # the event's fields are read once (compiled, each read is a generic attribute
        # look-up on the decoded event)
        reason: str | None = ev.reason if typ is _DRAW or typ is _PENALTY else None
        if typ is _PENALTY:
            who = ev.player
            if (
                reason in CALL_REASONS
                and ev.by is not None
                and self.prev_faults.get(who) not in (None, "unverifiable")
            ):
                self.catches.append((who, ev.by, index))
        elif typ is _ABANDON:
            who = ev.player
            if who in e.hands:
                prev = self.prev
                was_behind = False
                if prev is not None and self.keys:
                    i = self.keys.index(who)
                    mine = prev[i]
                    was_behind = any(s < mine for j, s in enumerate(prev) if j != i)
                self.abandons.append((who, was_behind, index))
        if (
            (typ is _PLAY or typ is _DRAW or typ is _PASS)
            and t is not None
            and self.prev_t is not None
            and player != self.prev_player
            and not (typ is _DRAW and reason == "effect")
        ):
            self.decisions.append((player, t - self.prev_t, index))  # type: ignore[arg-type]
        if typ is _DEAL:
            self.hands = {p: list(h) for p, h in ev.hands.items() if isinstance(h, list)}
            self.starter = ev.starter
            self.keys = list(e.hands)
            self.behind = [0] * len(self.keys)
        elif typ is _DRAW and reason in DRAW_REASONS:
            drawn = ev.cards
            if drawn:
                cards = e.cards
                for card in drawn:
                    if card in cards:
                        self.draws.append((player, reason, e.playable(card), index))  # type: ignore[arg-type]
        cf = e.call_faults
        seen_cf = self.cf
        # nearly always both empty: the sizes and the truth test settle it without a call
        if len(cf) != len(seen_cf) or (cf and not dict.__eq__(cf, seen_cf)):
            seen = self.cf
            for p, k in cf.items():
                had = seen.get(p, 0)
                if k > had:
                    self.faults.extend([(p, index)] * (k - had))
            self.cf = dict(cf)
        if sizes:
            # the smallest hand by a loop, not ``min()`` (compiled, a generic call that
            # iterated boxed ints: a quarter of the facts' per-event time)
            m = sizes[0]
            for s in sizes:
                if s < m:
                    m = s
            if m > 0:
                self.moments += 1
                behind = self.behind
                if len(behind) != len(sizes):
                    self.keys = list(e.hands)
                    behind = self.behind = [0] * len(sizes)
                for i, s in enumerate(sizes):
                    if s > m:
                        behind[i] += 1
        self.prev = sizes
        self.prev_faults = dict(e.faults) if e.faults else _EMPTY
        if t is not None:
            self.prev_t = t
        self.prev_player = player

    def rows(
        self,
        gid: str,
        client: str,
        dealer: int | None,
        games: dict[str, list[Any]],
        seats: dict[str, list[Any]],
        events: dict[str, list[Any]],
    ) -> None:
        """Append the game's rows to the three tables' column lists (``dealer`` None: an
        invalid game, only its ``audit_games`` row with the client)."""
        games["game_id"].append(gid)
        games["client"].append(client)
        if dealer is None or self.rules is None:
            for col in ("dealer", "starter", "hands_known", "moments"):
                games[col].append(None)
            return
        hands = self.hands or {}
        players = self.players
        games["dealer"].append(dealer)
        games["starter"].append(self.starter)
        games["hands_known"].append(len(hands) == len(players))
        games["moments"].append(self.moments)
        nf: dict[str, int] = {}
        for p, _ in self.faults:
            nf[p] = nf.get(p, 0) + 1
        behind = dict(zip(self.keys, self.behind, strict=False))
        drawn: dict[tuple[str, str], list[int]] = {}
        for p, reason, ok, _ in self.draws:
            c = drawn.setdefault((p, reason), [0, 0])
            c[0] += 1
            c[1] += ok
        timed: dict[str, int] = {}
        for p, _, _ in self.decisions:
            timed[p] = timed.get(p, 0) + 1
        slots = card_power_slots(self.rules)
        n_powers = len(AUDIT_POWERS)
        for seat, p in enumerate(players):
            seats["game_id"].append(gid)
            seats["seat"].append(seat)
            seats["player"].append(p)
            hand = hands.get(p)
            counts = [0] * n_powers
            if hand is not None:
                for card in hand:
                    for i in slots.get(card, ()):
                        counts[i] += 1
            seats["hand_size"].append(len(hand) if hand is not None else None)
            for i, column in enumerate(_HAND_COLUMNS):
                seats[column].append(counts[i] if hand is not None else None)
            seats["faults"].append(nf.get(p, 0))
            seats["behind"].append(behind.get(p, 0))
            for reason, (drawn_column, playable_column) in zip(
                DRAW_REASONS, _DRAW_COLUMNS, strict=True
            ):
                n, k = drawn.get((p, reason), (0, 0))
                seats[drawn_column].append(n)
                seats[playable_column].append(k)
            seats["timed"].append(timed.get(p, 0))
        game_id, event_index, kind = events["game_id"], events["event_index"], events["kind"]
        player, by_col, reason_col = events["player"], events["by"], events["reason"]
        flag, ms_col = events["flag"], events["ms"]
        # one fact a row, in the order faults, catches, draws, decisions, abandons
        for p, i in self.faults:
            _fact(game_id, event_index, kind, player, by_col, reason_col, flag, ms_col,
                  gid, i, "fault", p, None, None, None, None)  # fmt: skip
        for p, by, i in self.catches:
            _fact(game_id, event_index, kind, player, by_col, reason_col, flag, ms_col,
                  gid, i, "catch", p, by, None, None, None)  # fmt: skip
        for p, reason, ok, i in self.draws:
            _fact(game_id, event_index, kind, player, by_col, reason_col, flag, ms_col,
                  gid, i, "draw", p, None, reason, ok, None)  # fmt: skip
        decisions = self.decisions
        if decisions:  # most of the facts (a timed log: one per turn)
            n = len(decisions)
            game_id.extend([gid] * n)
            kind.extend(["decision"] * n)
            nones: list[Any] = [None] * n
            by_col.extend(nones)
            reason_col.extend(nones)
            flag.extend(nones)
            for p, ms, i in decisions:
                event_index.append(i)
                player.append(p)
                ms_col.append(ms)
        for p, was_behind, i in self.abandons:
            _fact(game_id, event_index, kind, player, by_col, reason_col, flag, ms_col,
                  gid, i, "abandon", p, None, None, was_behind, None)  # fmt: skip


def _fact(
    game_id: list[Any], event_index: list[Any], kind: list[Any], player: list[Any],
    by_col: list[Any], reason_col: list[Any], flag: list[Any], ms_col: list[Any],
    gid: str, index: int, what: str, who: str, by: str | None, reason: str | None,
    ok: bool | None, ms: float | None,
) -> None:  # fmt: skip
    """Append one fact to the ``audit_events`` columns."""
    game_id.append(gid)
    event_index.append(index)
    kind.append(what)
    player.append(who)
    by_col.append(by)
    reason_col.append(reason)
    flag.append(ok)
    ms_col.append(ms)
