"""Running accumulators of the audit's tests: one replayed game at a time, bounded memory.

Each accumulator's ``add(at, g)`` takes one game's facts (``at``: its row in the ``games``
table) and keeps only counts and sums per cell (ruleset, table size, seat, player, pair of
players, draw reason), never the games themselves, so memory grows with the cells (players,
pairs, rulesets), not with the number of games. Evidence lists are bounded: each keeps the
:data:`~maumau_log.audit.findings.MAX_EVIDENCE` (k = 20) items that come first in the
``games`` table order (then event order), which is what the in-memory audit listed; the
``games`` of an event list are the k smallest game ids among all its events, as before.
The tests in :mod:`maumau_log.audit.stat_tests` turn the accumulators into findings.
"""

from __future__ import annotations

import bisect
import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import polars as pl

from ..rules import Ruleset
from ..store import UNKNOWN
from ..store.layout import DateWindow
from .collect import EVENT_BATCH, _GameFacts, _Replays, read_games, stream
from .findings import FAST_MS, MAX_EVIDENCE, POWERS


class First:
    """The first :data:`MAX_EVIDENCE` items by key (e.g. ``(games row, event index)``)."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[tuple[Any, Any]] = []

    def add(self, key: Any, item: Any) -> None:
        """Offer ``item`` under ``key`` (kept when among the k smallest keys so far)."""
        items = self.items
        if len(items) >= MAX_EVIDENCE and key >= items[-1][0]:
            return
        bisect.insort(items, (key, item))
        del items[MAX_EVIDENCE:]

    def values(self) -> list[Any]:
        """The kept items, smallest key first."""
        return [item for _, item in self.items]


class SmallestIds:
    """The :data:`MAX_EVIDENCE` smallest distinct game ids offered."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: list[str] = []

    def add(self, gid: str) -> None:
        """Offer one game id."""
        ids = self.ids
        if len(ids) >= MAX_EVIDENCE and gid >= ids[-1]:
            return
        at = bisect.bisect_left(ids, gid)
        if at < len(ids) and ids[at] == gid:
            return
        ids.insert(at, gid)
        del ids[MAX_EVIDENCE:]


@dataclass
class EventEvidence:
    """Evidence events ``[game_id, event_index]`` (first k) and their games (k smallest)."""

    events: First = field(default_factory=First)
    games: SmallestIds = field(default_factory=SmallestIds)

    def add(self, key: Any, gid: str, index: int) -> None:
        """One event of game ``gid`` at ``index``, ordered by ``key``."""
        self.events.add(key, [gid, index])
        self.games.add(gid)


def card_powers(rules: Ruleset, card: str) -> list[str]:
    """The powers of :data:`POWERS` a card has under a ruleset (RULES.md, card powers)."""
    info = rules.cards[card]
    return [power for power in POWERS if getattr(info, power)]


@dataclass
class PowerCells:
    """One (power, seat or dealer position) deal test: where the power's cards went."""

    power: str
    keyname: str
    kind: frozenset[str]
    k: int
    obs: list[float]
    exp: list[float]
    evidence: list[First]  # per slot: games with more than expected + 1 there
    got: list[int] = field(default_factory=list)  # per slot: the power's cards dealt there
    hand: list[int] = field(default_factory=list)  # per slot: the cards dealt there

    def finish(self, games: int, n_pack: int) -> None:
        """``obs`` and ``exp`` (slots, then "elsewhere") from the exact integer counts:
        ``exp`` of a slot is its dealt cards times ``k / n_pack``."""
        self.obs = [float(x) for x in self.got] + [float(self.k * games - sum(self.got))]
        self.exp = [h * self.k / n_pack for h in self.hand]
        self.exp.append(self.k * games - sum(self.exp))


@dataclass
class DealSize:
    """Deals of one ruleset label and table size with every first hand known."""

    games: int = 0
    cells: list[PowerCells] = field(default_factory=list)


@dataclass
class DealGroup:
    """Deals of one ruleset label: the starter cards seen and the deals by table size."""

    rules: Ruleset
    games: int = 0
    starters: Counter[str] = field(default_factory=Counter)
    sizes: dict[int, DealSize] = field(default_factory=dict)


class DealAcc:
    """The ``deal`` tests' counts: starter cards, power cards per seat and position."""

    def __init__(self) -> None:
        self.groups: dict[str, DealGroup] = {}

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        if g.starter is None:
            return
        grp = self.groups.get(g.group)
        if grp is None:
            grp = self.groups[g.group] = DealGroup(g.rules)
        grp.games += 1
        grp.starters[g.starter] += 1
        if len(g.hands) != len(g.players):
            return
        size = len(g.players)
        ds = grp.sizes.get(size)
        if ds is None:
            ds = grp.sizes[size] = self._size(grp.rules, size)
        ds.games += 1
        n_pack = len(grp.rules.pack)
        for cell in ds.cells:
            kind, k = cell.kind, cell.k
            counts = [0] * size
            held = [0] * size
            for seat, p in enumerate(g.players):
                slot = seat if cell.keyname == "seat" else (seat - g.dealer) % size
                hand = g.hands.get(p, [])
                counts[slot] = sum(1 for c in hand if c in kind)
                held[slot] = len(hand)
            for i in range(size):
                cell.got[i] += counts[i]
                cell.hand[i] += held[i]
                if counts[i] * n_pack > held[i] * k + n_pack:  # more than expected + 1
                    cell.evidence[i].add(at, g.game_id)

    @staticmethod
    def _size(rules: Ruleset, size: int) -> DealSize:
        pack = list(rules.pack)
        n_pack = len(pack)
        out = DealSize()
        powers = sorted({p for c in pack for p in card_powers(rules, c)})
        for power in powers:
            kind = frozenset(c for c in pack if power in card_powers(rules, c))
            k = sum(1 for c in pack if c in kind)
            if k >= n_pack:
                continue
            for keyname in ("seat", "dealer_position"):
                out.cells.append(
                    PowerCells(power, keyname, kind, k, [0.0] * (size + 1), [0.0] * (size + 1),
                               [First() for _ in range(size)], [0] * size, [0] * size)
                )  # fmt: skip
        return out


@dataclass
class SeatCell:
    """Won games of one ruleset label and table size."""

    seat_wins: list[int]
    pos_wins: list[int]
    dealers: Counter[int] = field(default_factory=Counter)  # dealer seat mod size -> games

    @property
    def games(self) -> int:
        """Won games counted."""
        return sum(self.seat_wins)


class SeatAcc:
    """The ``seats`` test's counts: wins by seat and by position from the dealer."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, int], SeatCell] = {}

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        if g.winner is None:
            return
        size = len(g.players)
        cell = self.cells.get((g.group, size))
        if cell is None:
            cell = self.cells[(g.group, size)] = SeatCell([0] * size, [0] * size)
        seat = g.players.index(g.winner)
        cell.seat_wins[seat] += 1
        cell.pos_wins[(seat - g.dealer) % size] += 1
        cell.dealers[g.dealer % size] += 1


class PlayAcc:
    """Counts shared by several tests: games per player, and the ``catches`` and
    ``head_to_head`` counts per (ruleset, table size), player and pair of players."""

    def __init__(self) -> None:
        self.games: Counter[str] = Counter()  # games per player
        # catches
        self.faults: Counter[tuple[str, int]] = Counter()
        self.catches: Counter[tuple[str, int]] = Counter()
        self.pair_faults: dict[tuple[str, str], Counter[tuple[str, int]]] = defaultdict(Counter)
        self.pair_games: Counter[tuple[str, str]] = Counter()
        self.pair_caught: Counter[tuple[str, str]] = Counter()
        self.pair_events: dict[tuple[str, str], EventEvidence] = defaultdict(EventEvidence)
        # head to head
        self.won: Counter[str] = Counter()
        # wins expected from table sizes alone: exact (a sum of 1 / size), a float in finish
        self.fair_share: defaultdict[str, Any] = defaultdict(Fraction)
        self.shared: Counter[tuple[str, str]] = Counter()
        self.wins: Counter[tuple[str, str]] = Counter()
        self.decided: Counter[tuple[str, str]] = Counter()  # shared games one of them won
        self.ev_games: dict[tuple[str, str], First] = defaultdict(First)

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        self.games.update(g.players)
        key = (g.group, len(g.players))
        self.faults[key] += len(g.faults)
        self.catches[key] += sum(1 for _, by, _ in g.catches if by in g.players)
        nf = Counter(p for p, _ in g.faults)
        for a in g.players:
            for b in g.players:
                if a != b:
                    self.pair_games[(a, b)] += 1
                    self.pair_faults[(a, b)][key] += nf[a]
        for p, by, _ in {(p, by, i) for p, by, i in g.catches}:
            self.pair_caught[(p, by)] += 1
        for seq, (p, i) in enumerate(g.faults):
            for b in g.players:
                if b != p:
                    self.pair_events[(p, b)].add((at, seq), g.game_id, i)
        if g.winner is not None:
            self.won[g.winner] += 1
            for p in g.players:
                self.fair_share[p] += Fraction(1, len(g.players))
        ps = sorted(g.players)
        for i, a in enumerate(ps):
            for b in ps[i + 1 :]:
                self.shared[(a, b)] += 1
                if g.winner in (a, b):
                    self.wins[(a, b)] += g.winner == a
                    self.decided[(a, b)] += 1
                    self.ev_games[(a, b)].add(at, g.game_id)


@dataclass
class DrawCell:
    """One player's draws for one reason: draws, playable ones, and the sums over that
    player's games of playable^2, playable x draws and draws^2 (the dispersion)."""

    n: int = 0
    k: int = 0
    kk: int = 0
    kn: int = 0
    nn: int = 0


class DrawAcc:
    """The ``draws`` test's counts per (player, draw reason)."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, str], DrawCell] = defaultdict(DrawCell)
        self.evidence: dict[str, EventEvidence] = defaultdict(EventEvidence)

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        mine: dict[tuple[str, str], list[int]] = {}
        for seq, (p, reason, ok, i) in enumerate(g.draws):
            c = mine.setdefault((p, reason), [0, 0])
            c[0] += 1
            c[1] += ok
            if ok:
                self.evidence[p].add((at, seq), g.game_id, i)
        for key, (cn, ck) in mine.items():
            cell = self.cells[key]
            cell.n += cn
            cell.k += ck
            cell.kk += ck * ck
            cell.kn += ck * cn
            cell.nn += cn * cn


@dataclass
class TimingCell:
    """One player's timed decisions: a count per distinct time (an exact median), the
    fast ones and the games with a timed decision."""

    times: Counter[float] = field(default_factory=Counter)
    n: int = 0
    fast: int = 0
    games: int = 0
    evidence: EventEvidence = field(default_factory=EventEvidence)

    def median(self) -> float:
        """The median decision time (ms), as ``numpy.median`` of the times."""
        values = sorted(self.times)
        lo, hi = (self.n - 1) // 2, self.n // 2
        seen = 0
        a = b = None
        for v in values:
            seen += self.times[v]
            if a is None and seen > lo:
                a = v
            if seen > hi:
                b = v
                break
        assert a is not None and b is not None
        return float(a) if lo == hi else (a + b) / 2


class TimingAcc:
    """The ``timing`` test's counts per player."""

    def __init__(self) -> None:
        self.cells: dict[str, TimingCell] = defaultdict(TimingCell)

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        seen: set[str] = set()
        for seq, (p, ms, i) in enumerate(g.decisions):
            cell = self.cells[p]
            cell.times[ms] += 1
            cell.n += 1
            seen.add(p)
            if ms < FAST_MS:
                cell.fast += 1
                cell.evidence.add((at, seq), g.game_id, i)
        for p in seen:
            self.cells[p].games += 1


@dataclass
class AbandonCell:
    """One player's abandons: how many, how many while behind, the evidence."""

    n: int = 0
    behind: int = 0
    evidence: EventEvidence = field(default_factory=EventEvidence)


class AbandonAcc:
    """The ``abandon`` test's counts per player."""

    def __init__(self) -> None:
        self.behind: Counter[str] = Counter()
        self.moments: Counter[str] = Counter()
        self.quits: dict[str, AbandonCell] = defaultdict(AbandonCell)

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game."""
        for p in g.players:
            self.behind[p] += g.behind[p]
            self.moments[p] += g.moments
        for seq, (p, was_behind, i) in enumerate(g.abandons):
            cell = self.quits[p]
            cell.n += 1
            if was_behind:
                cell.behind += 1
                cell.evidence.add((at, seq), g.game_id, i)


@dataclass
class Accumulators:
    """Every test's running counts (what :func:`maumau_log.audit.collect` streams into)."""

    deal: DealAcc = field(default_factory=DealAcc)
    seats: SeatAcc = field(default_factory=SeatAcc)
    play: PlayAcc = field(default_factory=PlayAcc)
    draws: DrawAcc = field(default_factory=DrawAcc)
    timing: TimingAcc = field(default_factory=TimingAcc)
    abandon: AbandonAcc = field(default_factory=AbandonAcc)

    def add(self, at: int, g: _GameFacts) -> None:
        """One replayed game (``at``: its ``games`` row) into every accumulator."""
        self.deal.add(at, g)
        self.seats.add(at, g)
        self.play.add(at, g)
        self.draws.add(at, g)
        self.timing.add(at, g)
        self.abandon.add(at, g)


@dataclass
class _Data:
    """What the audit's tests are given: the ``games`` rows (with each game's ``client``;
    None where the counts were made part by part: then read again when a test asks for
    facts), every test's accumulated counts, how many valid games were replayed, the
    ``invalid`` tests' counts (a :class:`~maumau_log.audit.merge.InvalidAcc`), the games
    and the valid ones."""

    games: pl.DataFrame | None
    acc: Accumulators
    replayed: int
    invalid: Any = None
    n_games: int = 0
    n_valid: int = 0


def collect(
    dataset: str | os.PathLike[str],
    batch_rows: int = EVENT_BATCH,
    window: DateWindow | None = None,
) -> _Data:
    """Replay every valid game of a dataset once, into the tests' accumulators.

    The events are read a batch at a time (:func:`~maumau_log.audit.collect.stream`) and
    each game's facts go into :class:`Accumulators` and are dropped: memory holds the
    ``games`` columns, one batch of events and the counts per cell.

    Args:
        dataset: the dataset folder.
        batch_rows: events read at a time.
        window: only the games dated inside it (None: every game).
    Returns:
        The ``games`` rows (in table order) with a ``client`` column (``meta.client`` or
        ``meta.engine`` of the game's header, ``unknown`` when none or no events stored),
        the accumulators, the number of valid games replayed.
    Raises:
        DatasetError: see :func:`~maumau_log.store.read_manifest`.
    """
    games = read_games(dataset, window)
    replays = _Replays(games)
    acc = Accumulators()
    for at, g in stream(dataset, replays, batch_rows, window):
        acc.add(at, g)
    clients = replays.clients()
    with_client = games.join(clients, on="game_id", how="left", maintain_order="left")
    with_client = with_client.with_columns(pl.col("client").fill_null(UNKNOWN))
    valid = int(games["valid"].sum()) if games.height else 0
    return _Data(with_client, acc, replays.replayed, None, games.height, valid)


class FactsStream:
    """Every replayed valid game's facts, replayed again from the dataset on each iteration
    (in file order, one game at a time): for a test that wants per-game facts without
    holding them all. ``len()`` is the number of games it yields."""

    def __init__(
        self,
        dataset: str | os.PathLike[str],
        games: pl.DataFrame | None,
        count: int,
        window: DateWindow | None = None,
    ) -> None:
        self.dataset = dataset
        self.games = games
        self.count = count
        self.window = window

    def __iter__(self) -> Iterator[_GameFacts]:
        games = self.games
        if games is None or "options" not in games.columns:  # the facts path: no options
            games = read_games(self.dataset, self.window)
        replays = _Replays(games.drop("client", strict=False))
        for _, g in stream(self.dataset, replays, window=self.window):
            yield g

    def __len__(self) -> int:
        return self.count
