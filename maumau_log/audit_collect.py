"""What the audit's tests need, collected from a dataset (one replay of every valid game).

The stored events (the ``raw`` column of ``events``) are read file by file, in batches, and
each valid game is replayed once more through the engine as soon as its last event is read:
only one batch of events is held at a time, never the whole table.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
import pyarrow.parquet as pq

from .audit_findings import (
    _DECISIONS,
    CALL_REASONS,
    DRAW_REASONS,
)
from .engine import Engine, RuleViolation
from .events import Abandon, Deal, Draw, Game, Penalty, decode_event
from .matches import RoundContext
from .rules import Ruleset, RulesetError, resolve
from .store import UNKNOWN, read_manifest, scan_all

# ---------------------------------------------------------------------------------------
# Collecting what the tests need (one replay of every valid game)


def _time_ms(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return dt.timestamp() * 1000.0
    return None


@dataclass
class _GameFacts:
    game_id: str
    group: str  # ruleset label (ruleset plus options when a ruleset has several)
    rules: Ruleset
    players: list[str]
    dealer: int
    winner: str | None
    hands: dict[str, list[str]] = field(default_factory=dict)
    starter: str | None = None
    faults: list[tuple[str, int]] = field(default_factory=list)  # (player, event index)
    catches: list[tuple[str, str, int]] = field(default_factory=list)  # (player, by, index)
    draws: list[tuple[str, str, bool, int]] = field(default_factory=list)
    decisions: list[tuple[str, float, int]] = field(default_factory=list)  # (player, ms, i)
    abandons: list[tuple[str, bool, int]] = field(default_factory=list)
    behind: Counter[str] = field(default_factory=Counter)  # event moments behind
    moments: int = 0


def _behind(hands: dict[str, list[str]], player: str) -> bool:
    mine = len(hands[player])
    return any(len(h) < mine for p, h in hands.items() if p != player)


def _replay(game: _GameFacts, raws: list[str], prev_winner: str | None = None) -> None:
    """Replay one valid game's stored events and fill in ``game``'s facts.

    A match round is replayed on its own: the ingest already checked it against its
    match, so its dealt hand sizes are taken from its deal and the previous round's winner
    (for ``first_player = "previous_winner"``) from the games table; match checks are off.
    """
    header = decode_event(raws[0])
    if not isinstance(header, Game):
        raise ValueError("event 0 is not a header")
    ctx = None
    if header.match_id is not None and len(raws) > 1:
        deal = decode_event(raws[1])
        sizes = (
            {p: len(h) if isinstance(h, list) else h.count for p, h in deal.hands.items()}
            if isinstance(deal, Deal)
            else None
        )
        ctx = RoundContext(
            header.match_id,
            header.round or 1,
            first_player=prev_winner,
            hand_sizes=sizes,
            checked=False,
        )
    engine = Engine(game.rules, header, ctx)
    game.dealer = engine.dealer
    prev_t = _time_ms(header.t)
    prev_player: str | None = None
    seen_faults: Counter[str] = Counter()
    for index, raw in enumerate(raws[1:], start=1):
        ev = decode_event(raw)
        t = _time_ms(ev.t)
        player = getattr(ev, "player", None)
        if (
            isinstance(ev, Penalty)
            and ev.reason in CALL_REASONS
            and ev.by is not None
            and engine.faults.get(ev.player) not in (None, "unverifiable")
        ):
            game.catches.append((ev.player, ev.by, index))
        if isinstance(ev, Abandon) and ev.player in engine.hands:
            game.abandons.append((ev.player, _behind(engine.hands, ev.player), index))
        if (
            isinstance(ev, _DECISIONS)
            and t is not None
            and prev_t is not None
            and player != prev_player
            and not (isinstance(ev, Draw) and ev.reason == "effect")
        ):
            game.decisions.append((player, t - prev_t, index))  # type: ignore[arg-type]
        engine.apply(ev)
        if isinstance(ev, Deal):
            game.hands = {p: list(h) for p, h in ev.hands.items() if isinstance(h, list)}
            game.starter = ev.starter
        elif isinstance(ev, Draw) and ev.reason in DRAW_REASONS and ev.cards:
            for card in ev.cards:
                if card in engine.cards:
                    game.draws.append((ev.player, ev.reason, engine.playable(card), index))
        for p, k in engine.call_faults.items():
            if k > seen_faults[p]:
                game.faults.extend([(p, index)] * (k - seen_faults[p]))
                seen_faults[p] = k
        if engine.hands and all(engine.hands.values()):
            game.moments += 1
            for p in game.players:
                if _behind(engine.hands, p):
                    game.behind[p] += 1
        prev_t = t if t is not None else prev_t
        prev_player = player


@dataclass
class _Data:
    games: pl.DataFrame
    facts: list[_GameFacts]
    clients: dict[str, str]


def _client(raw: str | None) -> str:
    if raw is None:
        return UNKNOWN
    try:
        meta = json.loads(raw).get("meta") or {}
    except (ValueError, AttributeError):
        return UNKNOWN
    if not isinstance(meta, dict):
        return UNKNOWN
    value = meta.get("client") or meta.get("engine")
    return str(value) if value else UNKNOWN


_GAME_COLUMNS = (
    "game_id", "match_id", "round", "players", "n_players", "dealer", "valid",
    "violation_code", "winner", "options", "options_hash", "ruleset", "date",
)  # fmt: skip

EVENT_BATCH = 65_536
"""Events read at a time (rows of one Parquet batch)."""


class _Replays:
    """Replays each valid game as its events arrive (the per-game work of :func:`collect`)."""

    def __init__(self, games: pl.DataFrame) -> None:
        self.games = games
        # a label per (ruleset, options): the ruleset alone unless it appears with several
        variants: dict[str, set[str]] = defaultdict(set)
        for rs, oh in games.select("ruleset", "options_hash").unique().iter_rows():
            variants[rs].add(oh)
        self.variants = variants
        self.rules_cache: dict[tuple[str, str], Ruleset | None] = {}
        self.winners: dict[tuple[str, int], str | None] = {}
        for mid, rnd, won in games.select("match_id", "round", "winner").iter_rows():
            if mid is not None and rnd is not None:
                self.winners[(mid, rnd)] = won
        valid = games["valid"].to_list()
        self.row_of = {gid: i for i, gid in enumerate(games["game_id"].to_list()) if valid[i]}
        self.facts: dict[int, _GameFacts] = {}  # games row -> facts
        self.clients: dict[str, str] = {}
        self.done: set[str] = set()

    def game(self, gid: str, indexes: list[int], raws: list[str]) -> None:
        """One game's stored events (in file order)."""
        if gid in self.done:  # not contiguous in the files (never written so): ignore
            return
        self.done.add(gid)
        if any(b < a for a, b in pairwise(indexes)):
            raws = [r for _, r in sorted(zip(indexes, raws, strict=True))]
        self.clients[gid] = _client(raws[0] if raws else None)
        at = self.row_of.get(gid)
        if at is None or not raws:
            return
        row = self.games.row(at, named=True)
        key = (row["ruleset"], row["options"])
        if key not in self.rules_cache:
            try:
                self.rules_cache[key] = resolve(row["ruleset"], None, json.loads(row["options"]))
            except (RulesetError, ValueError, TypeError):
                self.rules_cache[key] = None
        rules = self.rules_cache[key]
        if rules is None:
            return
        label = row["ruleset"]
        if len(self.variants[label]) > 1:
            label = f"{label}#{(row['options_hash'] or '')[:6]}"
        g = _GameFacts(gid, label, rules, list(row["players"]), 0, row["winner"])
        prev = None
        if row["match_id"] is not None and row["round"] is not None:
            prev = self.winners.get((row["match_id"], row["round"] - 1))
        try:
            _replay(g, raws, prev)
        except (RuleViolation, msgspec.DecodeError, ValueError, KeyError):
            return
        self.facts[at] = g


def collect(dataset: str | os.PathLike[str], batch_rows: int = EVENT_BATCH) -> _Data:
    """Collect the audit's facts from a dataset, reading its events a batch at a time.

    The ``games`` rows are read whole (a few small columns); the ``events`` files are read
    one after the other, ``batch_rows`` rows at a time (only ``game_id``, ``event_index``
    and ``raw``), and each game is replayed when its last event has been read (an ingest
    writes a game's events together, in order, into one file; ``compact`` keeps them so).

    Args:
        dataset: the dataset folder.
        batch_rows: events read at a time.
    Returns:
        The facts of every valid game that replays, in the order of the ``games`` table;
        the ``games`` rows; the client (``meta.client`` or ``meta.engine``) of every game.
    Raises:
        DatasetError: see :func:`~maumau_log.store.read_manifest`.
    """
    root = Path(dataset)
    manifest = read_manifest(root)
    games = scan_all(root)["games"].select(_GAME_COLUMNS).collect()
    replays = _Replays(games)
    for rel in manifest.files["events"]:
        gid: str | None = None
        idx: list[int] = []
        raws: list[str] = []
        pf = pq.ParquetFile(root / rel)
        for batch in pf.iter_batches(
            batch_size=batch_rows, columns=["game_id", "event_index", "raw"]
        ):
            ids = batch.column(0).to_pylist()
            ixs = batch.column(1).to_pylist()
            rws = batch.column(2).to_pylist()
            for g, i, r in zip(ids, ixs, rws, strict=True):
                if g != gid:
                    if gid is not None:
                        replays.game(gid, idx, raws)
                    gid, idx, raws = g, [], []
                idx.append(i)
                raws.append(r)
        if gid is not None:
            replays.game(gid, idx, raws)
    facts = [replays.facts[i] for i in sorted(replays.facts)]
    return _Data(games, facts, replays.clients)
