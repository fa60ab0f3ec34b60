"""What the audit's tests need, collected from a dataset (one replay of every valid game).

The stored events (the ``raw`` column of ``events``) are read file by file, in batches, and
each valid game is replayed once more through the engine as soon as its last event is read:
only one batch of events is held at a time, never the whole table.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import msgspec
import polars as pl
import pyarrow.parquet as pq

from ..engine import Engine, RuleViolation
from ..events import Abandon, Deal, Draw, Game, Penalty, decode_event
from ..rules import Ruleset, RulesetError, resolve, variant_label
from ..scoring.matches import RoundContext
from ..store import UNKNOWN, check_files, scan_all
from ..store.facts import time_ms
from ..store.integrity import check_sums
from ..store.layout import DateWindow
from .findings import (
    _DECISIONS,
    CALL_REASONS,
    DRAW_REASONS,
)

# ---------------------------------------------------------------------------------------
# Collecting what the tests need (one replay of every valid game)


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
    prev_t = time_ms(header.t)
    prev_player: str | None = None
    seen_faults: Counter[str] = Counter()
    for index, raw in enumerate(raws[1:], start=1):
        ev = decode_event(raw)
        t = time_ms(ev.t)
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


CLIENT_CHUNK = 65_536
"""Games whose client is kept in Python lists before they become one Polars chunk."""


class _Replays:
    """Replays each valid game as its events arrive (the per-game work of :func:`stream`).

    Per game it keeps only the games row index (``row_of``, the games table order used for
    evidence) and the game's client (in columnar chunks of :data:`CLIENT_CHUNK` games); the
    facts of a game are handed on and dropped.
    """

    def __init__(self, games: pl.DataFrame) -> None:
        self.games = games
        # a label per (ruleset, options): rules.variant_label (the preset, or what differs)
        self.rules_cache: dict[tuple[str, str], Ruleset | None] = {}
        self.winners: dict[tuple[str, int], str | None] = {}
        matched = games.filter(pl.col("match_id").is_not_null() & pl.col("round").is_not_null())
        for mid, rnd, won in matched.select("match_id", "round", "winner").iter_rows():
            self.winners[(mid, rnd)] = won
        self.row_of: dict[str, int] = {}
        for at, gid, valid in games.select(
            pl.int_range(pl.len()).alias("at"), "game_id", "valid"
        ).iter_rows():
            if valid:
                self.row_of[gid] = at  # the last row of an id (as before)
        self.done: set[str] = set()
        self._ids: list[str] = []
        self._clients: list[str] = []
        self._chunks: list[pl.DataFrame] = []
        self.replayed = 0

    def clients(self) -> pl.DataFrame:
        """``game_id`` and ``client`` of every game seen in the events (first sight)."""
        self._flush()
        if not self._chunks:
            return pl.DataFrame(schema={"game_id": pl.String, "client": pl.String})
        return pl.concat(self._chunks, rechunk=True)

    def _flush(self) -> None:
        if self._ids:
            self._chunks.append(
                pl.DataFrame(
                    {"game_id": self._ids, "client": self._clients},
                    schema={"game_id": pl.String, "client": pl.String},
                )
            )
            self._ids, self._clients = [], []

    def game(self, gid: str, indexes: list[int], raws: list[str]) -> _GameFacts | None:
        """One game's stored events (in file order): its facts, or None when it is not a
        valid game that replays."""
        if gid in self.done:  # not contiguous in the files (never written so): ignore
            return None
        self.done.add(gid)
        if any(b < a for a, b in pairwise(indexes)):
            raws = [r for _, r in sorted(zip(indexes, raws, strict=True))]
        self._ids.append(gid)
        self._clients.append(_client(raws[0] if raws else None))
        if len(self._ids) >= CLIENT_CHUNK:
            self._flush()
        at = self.row_of.get(gid)
        if at is None or not raws:
            return None
        row = self.games.row(at, named=True)
        key = (row["ruleset"], row["options"])
        if key not in self.rules_cache:
            try:
                self.rules_cache[key] = resolve(row["ruleset"], None, json.loads(row["options"]))
            except (RulesetError, ValueError, TypeError):
                self.rules_cache[key] = None
        rules = self.rules_cache[key]
        if rules is None:
            return None
        label = variant_label(row["ruleset"], row["options"])
        g = _GameFacts(gid, label, rules, list(row["players"]), 0, row["winner"])
        prev = None
        if row["match_id"] is not None and row["round"] is not None:
            prev = self.winners.get((row["match_id"], row["round"] - 1))
        try:
            _replay(g, raws, prev)
        except (RuleViolation, msgspec.DecodeError, ValueError, KeyError):
            return None
        self.replayed += 1
        return g


def read_games(dataset: str | os.PathLike[str], window: DateWindow | None = None) -> pl.DataFrame:
    """The ``games`` columns the audit uses (a few small columns per game), of the games
    dated inside ``window`` (None: every game).

    Raises:
        DatasetError: see :func:`~maumau_log.store.read_manifest`.
    """
    return scan_all(Path(dataset), window)["games"].select(_GAME_COLUMNS).collect()


def stream(
    dataset: str | os.PathLike[str],
    replays: _Replays,
    batch_rows: int = EVENT_BATCH,
    window: DateWindow | None = None,
) -> Iterator[tuple[int, _GameFacts]]:
    """Replay a dataset's valid games, one at a time, reading its events a batch at a time.

    The ``events`` files are read one after the other, ``batch_rows`` rows at a time (only
    ``game_id``, ``event_index`` and ``raw``), and each game is replayed when its last event
    has been read (an ingest writes a game's events together, in order, into one file;
    ``compact`` keeps them so). Only one batch of events and one game's facts are held.

    Args:
        dataset: the dataset folder.
        replays: the replayer (holds the ``games`` rows; gathers the clients).
        batch_rows: events read at a time.
        window: only the ``events`` files of partitions dated inside it (None: all).
    Yields:
        ``(games row index, facts)`` of every valid game that replays, in file order.
    Raises:
        DatasetError: see :func:`~maumau_log.store.read_manifest`; an ``events`` file
            that differs from its recorded size or SHA-256 (checked before any is read).
    """
    root = Path(dataset)
    manifest = check_files(root, tables=("events",))
    files = (window or DateWindow()).files(manifest.files)["events"]
    check_sums(root, manifest.file_info, files)
    for rel in files:
        gid: str | None = None
        idx: list[int] = []
        raws: list[str] = []
        pf = pq.ParquetFile(root / rel, page_checksum_verification=True)
        for batch in pf.iter_batches(
            batch_size=batch_rows, columns=["game_id", "event_index", "raw"]
        ):
            ids = batch.column(0).to_pylist()
            ixs = batch.column(1).to_pylist()
            rws = batch.column(2).to_pylist()
            for g, i, r in zip(ids, ixs, rws, strict=True):
                if g != gid:
                    if gid is not None:
                        facts = replays.game(gid, idx, raws)
                        if facts is not None:
                            yield replays.row_of[gid], facts
                    gid, idx, raws = g, [], []
                idx.append(i)
                raws.append(r)
        if gid is not None:
            facts = replays.game(gid, idx, raws)
            if facts is not None:
                yield replays.row_of[gid], facts
