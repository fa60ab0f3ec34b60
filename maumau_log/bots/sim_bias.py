"""Simulations with a planted bias, to test the audit.

Each cheat is a :class:`~maumau_log.bots.sim._Table` subclass; :func:`simulate_with` plays seeded
rounds with any of them exactly as :func:`maumau_log.bots.sim.simulate` does (same headers, same
bots, same seed handling), so an unbiased run and a biased run of the same size differ only
in the cheat:

- :class:`RiggedDealTable`: after a shuffle, moves cards of one rank (Jacks) into one seat's
  hand. Its deals cannot come from a published seed, so its headers carry no ``shuffle``
  object and its reshuffles come from the table's ``random.Random``.
- :class:`CollusionTable`: some pairs of players never catch each other's call faults (the
  catch then goes to another player, with the usual chance).
- :class:`PeekingTable`: one player sees the top of the stock and draws (voluntarily,
  where the rules allow it) exactly when that card can be played.
- :func:`add_times`: stamps events with ``t`` (milliseconds): people think for about 2.5 s
  (log-normal), the players named as bots answer within 80-250 ms.
- :class:`QuitterTable`: one player abandons rounds while holding more cards than the best
  placed other player; every player may also abandon at random (a baseline).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import msgspec

from ..engine import PLAY, Action
from ..engine.shuffle import deal as fair_deal
from ..engine.shuffle import shuffled
from ..events import FORMAT_VERSION, Abandon, Deal, Event, Game, HandCount, encode_event
from ..rules import Ruleset, resolve
from .sim import Bot, _Table, fair_shuffle

TableFactory = Callable[[Ruleset, Game, random.Random, Bot], _Table]
"""Makes the table of one round: ``(rules, header, rng, bot) -> _Table``."""


class RiggedDealTable(_Table):
    """Deals every card of ``rank`` found outside seat ``seat``'s hand into it (swapped for
    a card of another rank) with probability ``strength`` each. No published seed: the
    table's reshuffles come from its generator (:meth:`BotTable.ensure_stock` without a
    header seed)."""

    rank = "J"
    seat = 1
    strength = 0.5

    def deal(self) -> None:
        rules, e, rng = self.rules, self.engine, self.rng
        size = rules.hand_size_for(e.n)
        sizes = {p: size for p in e.players}
        redeal = {c for c, info in rules.cards.items() if info.redeal}
        secret = fair_shuffle(rng)["seed"]
        hands, starter, stock = fair_deal(
            shuffled(rules.pack, secret), e.players, e.dealer, sizes, redeal
        )
        target = hands[e.players[self.seat]]
        sources = [h for p, h in hands.items() if p != e.players[self.seat]] + [stock]
        for src in sources:
            for i, card in enumerate(src):
                if rules.cards[card].rank != self.rank or rng.random() >= self.strength:
                    continue
                others = [j for j, c in enumerate(target) if rules.cards[c].rank != self.rank]
                if not others:
                    break
                j = others[int(rng.random() * len(others))]
                src[i], target[j] = target[j], card
        dealt: dict[str, list[str] | HandCount] = {}
        dealt.update(hands)
        self.emit(Deal(hands=dealt, starter=starter, stock=stock))


class CollusionTable(_Table):
    """Players of a pair in ``pairs`` never catch each other's call faults."""

    pairs: frozenset[frozenset[str]] = frozenset({frozenset({"p1", "p2"})})

    def catchers(self, player: str) -> list[str]:
        """Every other player but ``player``'s partners."""
        return [
            p
            for p in self.engine.players
            if p != player and frozenset({p, player}) not in self.pairs
        ]


class PeekingTable(_Table):
    """Player ``cheat`` sees the stock: draws when its top card can be played, else plays."""

    cheat = "p3"

    def choose(self, acts: list[Action]) -> Action:
        e = self.engine
        mine = [a for a in acts if a.player == self.cheat]
        draws = [a for a in mine if a.kind == "draw" and a.reason in ("no_play", "voluntary")]
        if draws and draws[0].count == 1 and e.stock:
            if e.playable(e.stock[-1]):
                return draws[0]
            plays = [a for a in mine if a.kind == "play"]
            if plays:
                return plays[int(self.rng.random() * len(plays))]
        return super().choose(acts)


class QuitterTable(_Table):
    """Player ``quitter`` abandons (chance ``rate`` per own turn) while behind; every player
    abandons at random with chance ``noise`` per own turn."""

    quitter = "p1"
    rate = 0.05
    noise = 0.002

    def choose(self, acts: list[Action]) -> Action:
        e = self.engine
        player = e.current_player
        if e.phase == PLAY and e.awaiting_suit is None and not self.quit:
            hands = e.hands
            behind = any(len(h) < len(hands[player]) for p, h in hands.items() if p != player)
            roll = self.rng.random()
            if (player == self.quitter and behind and roll < self.rate) or roll < self.noise:
                self.quit = True
                self.emit(Abandon(reason="left the table", player=player))
                return Action("round_end")
        return super().choose(acts)

    quit = False


def simulate_with(
    make_table: TableFactory,
    ruleset: str,
    players: int,
    games: int,
    seed: int,
    *,
    fair: bool = True,
    bot: Bot | None = None,
    id_prefix: str = "sim",
) -> Iterator[list[Event]]:
    """Play ``games`` seeded rounds at tables made by ``make_table`` (as
    :func:`maumau_log.bots.sim.simulate` does with its own table).

    Args:
        make_table: the table class (or a factory taking the same arguments).
        fair: give every header a fair-shuffle seed (False for rigged deals).
        ruleset, players, games, seed, bot, id_prefix: as for ``simulate``.
    Yields:
        One list of events per game.
    """
    rules = resolve(ruleset)
    rng = random.Random(seed)
    bot = bot or Bot()
    names = [f"p{i + 1}" for i in range(players)]
    for g in range(games):
        dealer = names[int(rng.random() * players)]
        shuffle = fair_shuffle(rng) if fair else None
        header = Game(
            format=FORMAT_VERSION,
            game_id=f"{id_prefix}-{seed}-{g:06d}",
            ruleset=rules.preset,
            players=names,
            dealer=dealer,
            shuffle=shuffle,
            meta={"engine": "maumau-log sim_bias", "seed": seed},
        )
        table = make_table(rules, header, rng, bot)
        table.play_round()
        yield table.events


def add_times(
    games: Iterator[list[Event]],
    seed: int,
    bots: Collection[str] = (),
    start_ms: int = 1_700_000_000_000,
) -> Iterator[list[Event]]:
    """Stamp every event with ``t`` (ms since the epoch): a player's event comes after a
    log-normal think time (median 2.5 s, sigma 0.6), a bot's after 80-250 ms, an event of
    no player (deal, reshuffle, round end) 50 ms after the last."""
    rng = random.Random(seed)
    t = start_ms
    for events in games:
        out: list[Event] = []
        t += 60_000
        for ev in events:
            player = getattr(ev, "player", None)
            if player is None:
                t += 50
            elif player in bots:
                t += int(80 + 170 * rng.random())
            else:
                u = max(rng.random(), 1e-12)
                v = rng.random()
                z = math.sqrt(-2 * math.log(u)) * math.cos(2 * math.pi * v)
                t += int(2500 * math.exp(0.6 * z))
            out.append(msgspec.structs.replace(ev, t=t))
        yield out


def write_jsonl(path: str | Path, games: Iterator[list[Event]]) -> Path:
    """Write games as a JSON Lines log; returns the path."""
    path = Path(path)
    with open(path, "wb") as fh:
        for events in games:
            for ev in events:
                fh.write(encode_event(ev))
                fh.write(b"\n")
    return path


def table(cls: type[_Table], **attrs: object) -> TableFactory:
    """A factory of ``cls`` tables with class attributes overridden (``seat=2``, ...)."""
    sub = type(cls.__name__, (cls,), dict(attrs))

    def make(rules: Ruleset, header: Game, rng: random.Random, bot: Bot) -> _Table:
        return sub(rules, header, rng, bot)

    return make
