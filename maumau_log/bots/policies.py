"""The simple bots: random (the simulator's habits) and a greedy heuristic.

They choose among the engine's legal actions only (:meth:`Engine.legal_actions`), so they
play every preset. Randomness is the table's generator (``random()`` only): a seeded table
plays the same game every time. The random bot is the one source of the simulator's
players too: :class:`SimulatorBot` is :class:`RandomPolicy` with the simulator's own
order of choices (it decides for every seat from the engine's whole list of legal actions),
kept exactly so that a seed of ``simulate`` still gives the same file byte for byte, and the
ladder's published figures still come from their seeds.
"""

from __future__ import annotations

import random
from collections import Counter

from ..cards import SUITS
from ..engine import OUT, Action
from .table import BotTable, Policy


def held_suits(table: BotTable, player: str) -> Counter[str]:
    """Cards per suit in ``player``'s hand, wild cards and jokers left out."""
    cards = table.engine.cards
    return Counter(cards[c].suit or "" for c in table.engine.hands[player] if not cards[c].wild)


class RandomPolicy(Policy):
    """The ladder's random bot (the simulator's habits, see :class:`SimulatorBot` for the
    three it does differently): a random legal play of its own, now and then a voluntary
    draw or pass where allowed, the suit held most; it forgets or miscalls calls and catches
    others' faults by chance.

    Args:
        voluntary_draw, forget_call, wrong_call, catch: chances in 0..1 (the simulator's
            defaults: 0.08, 0.15, 0.05, 0.6).
        jump_chance: chance to jump in when a jump-in is open (ruling 7).
    """

    name = "random"

    def __init__(
        self,
        voluntary_draw: float = 0.08,
        forget_call: float = 0.15,
        wrong_call: float = 0.05,
        catch: float = 0.6,
        jump_chance: float = 0.5,
    ) -> None:
        self.voluntary_draw = voluntary_draw
        self.forget_call = forget_call
        self.wrong_call = wrong_call
        self.catch = catch
        self.jump_chance = jump_chance

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """A random play (or suit, or answer), a draw or pass when nothing else is legal."""
        rng = table.rng
        if actions[0].kind == "suit":
            return suit_held_most(table, player, actions, random_ties=True)
        plays = [a for a in actions if a.kind == "play"]
        others = [a for a in actions if a.kind != "play"]
        if plays and (not others or rng.random() >= self.voluntary_draw):
            return plays[int(rng.random() * len(plays))]
        draws = [a for a in others if a.kind == "draw"]
        if draws:
            return draws[0]
        return others[int(rng.random() * len(others))]

    def jump(self, table: BotTable, player: str, actions: list[Action]) -> Action | None:
        """Jump in with chance ``jump_chance``."""
        return actions[0] if table.rng.random() < self.jump_chance else None


class SimulatorBot(RandomPolicy):
    """The simulator's random bot (:func:`maumau_log.bots.sim.simulate`; ``maumau_log.bots.sim.Bot``
    is this class): one instance decides for every seat of a
    :class:`~maumau_log.bots.sim.SimTable`.

    It differs from :class:`RandomPolicy` in three habits, all kept as they were so that
    simulated files stay the same for the same seed: it chooses from the engine's whole
    list of legal actions (:meth:`pick`: anyone's jump-in included), it never passes while
    it can play and draw is not offered, and it never says a wrong going-out word (it
    forgets it with chance ``forget_call``). The suit it names is the suit most cards of
    the hand show, wild cards included (:meth:`suit_for`). A fault is caught with chance
    ``catch`` by one other player drawn at random (the table's
    :meth:`~maumau_log.bots.sim.SimTable.catcher`).

    Args:
        voluntary_draw, forget_call, wrong_call, catch: chances in 0..1 (defaults 0.08,
            0.15, 0.05, 0.6).
    """

    name = "simulator"

    def __init__(
        self,
        voluntary_draw: float = 0.08,
        forget_call: float = 0.15,
        wrong_call: float = 0.05,
        catch: float = 0.6,
    ) -> None:
        super().__init__(voluntary_draw, forget_call, wrong_call, catch)

    def pick(self, rng: random.Random, acts: list[Action]) -> Action:
        """One of ``acts`` (any players'): a random play, now and then a draw instead
        (chance ``voluntary_draw``, only where a draw is offered), else the first draw,
        else the first pass, else any action at random (a suit choice: the named suit is
        then :meth:`suit_for`'s)."""
        plays = [a for a in acts if a.kind == "play"]
        draws = [a for a in acts if a.kind == "draw"]
        passes = [a for a in acts if a.kind == "pass"]
        if plays and (not draws or rng.random() >= self.voluntary_draw):
            return plays[int(rng.random() * len(plays))]
        if draws:
            return draws[0]
        if passes:
            return passes[0]
        return acts[int(rng.random() * len(acts))]

    def suit_for(self, table: BotTable, player: str) -> str:
        """The suit to name: the one most cards in ``player``'s hand end with (wild cards
        counted by their own suit), ties at random."""
        hand = table.engine.hands[player]
        counts = {s: sum(1 for c in hand if c.endswith(s)) for s in SUITS}
        best = max(counts.values())
        options = [s for s in SUITS if counts[s] == best]
        return options[int(table.rng.random() * len(options))]

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """:meth:`pick` from ``actions``; a suit choice names :meth:`suit_for`'s suit."""
        act = self.pick(table.rng, actions)
        if act.kind == "suit":
            return Action("suit", player, self.suit_for(table, player))
        return act

    def say(self, table: BotTable, player: str, word: str) -> str | None:
        """Always one roll: the going-out word is said unless forgotten (chance
        ``forget_call``); the last-card word is forgotten, or wrong (chance
        ``wrong_call``), or said."""
        roll = table.rng.random()
        if table.engine.phase == OUT:
            return word if roll >= self.forget_call else None
        if roll < self.forget_call:
            return None
        if roll < self.forget_call + self.wrong_call:
            return "mau" if word != "mau" else "last card"
        return word


def rollout_policy() -> RandomPolicy:
    """The rollout policy of the Monte Carlo bot and of ``review``: random legal plays, no
    voluntary draws, every call said and every fault caught (strong opponents on calls)."""
    p = RandomPolicy(voluntary_draw=0.0, forget_call=0.0, wrong_call=0.0, catch=1.0)
    p.name = "rollout"
    return p


def suit_held_most(
    table: BotTable, player: str, actions: list[Action], random_ties: bool = False
) -> Action:
    """The suit choice naming the suit ``player`` holds most (ties: at random, or by the
    cards' points, then suit order)."""
    held = held_suits(table, player)
    best = max(held[s] for s in SUITS)
    options = [a for a in actions if held[a.card or ""] == best] or actions
    if random_ties:
        return options[int(table.rng.random() * len(options))]
    cards = table.engine.cards
    points = Counter[str]()
    for c in table.engine.hands[player]:
        if not cards[c].wild:
            points[cards[c].suit or ""] += cards[c].points
    return max(options, key=lambda a: points[a.card or ""])


class GreedyPolicy(Policy):
    """A greedy heuristic: go out when possible, shed the most cards, keep power cards for
    later (wild cards above all) unless the next player is about to go out, follow with the
    suit held most, dump high-scoring cards first, answer a draw penalty when it can, name
    the suit held most. It never forgets a call and catches every fault.

    Each legal action gets a score (:meth:`score`); the highest wins (ties: the first).
    """

    name = "greedy"

    def score(self, table: BotTable, player: str, act: Action) -> float:
        """The heuristic value of ``act`` (higher is better; see the class docstring)."""
        e = table.engine
        if act.kind == "draw":
            return -20.0 if act.reason != "effect" else -15.0
        if act.kind == "pass":
            return -30.0
        if act.kind == "accept_skip":
            return -10.0
        if act.kind != "play":
            return 0.0
        hand = e.hands[player]
        cards = act.play_cards
        if len(cards) >= len(hand):
            return 1000.0  # goes out
        info = e.cards[cards[-1]]
        rest = list(hand)
        for c in cards:
            rest.remove(c)
        nxt = e.players[(e.players.index(player) + e.direction) % e.n]
        danger = len(e.hands[nxt]) <= 2
        value = 10.0 * len(cards)
        attack = info.draw > 0 or info.skip or info.play_again
        if info.wild:
            value -= 12.0
        elif attack:
            value += 8.0 if danger else -4.0
        elif info.reverse or info.cover:
            value -= 2.0
        if e.pending_draw and (info.draw > 0 or info.cancel):
            value += 10.0  # pass the penalty on
        same = sum(1 for c in rest if e.cards[c].suit == info.suit and not e.cards[c].wild)
        value += 1.5 * same
        value += info.points / 10.0
        return value

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """The action of highest :meth:`score`; a suit choice names the suit held most."""
        if actions[0].kind == "suit":
            return suit_held_most(table, player, actions)
        best = actions[0]
        best_score = self.score(table, player, best)
        for act in actions[1:]:
            s = self.score(table, player, act)
            if s > best_score:
                best, best_score = act, s
        return best


class MixedPolicy(Policy):
    """A club player for simulated seasons: greedy with chance ``greedy``, else random.

    Args:
        greedy: the chance of a greedy decision (0..1).
    """

    name = "mixed"

    def __init__(self, greedy: float = 0.5) -> None:
        self.greedy = greedy
        self._random = RandomPolicy()
        self._greedy = GreedyPolicy()
        self.forget_call = self._random.forget_call
        self.wrong_call = self._random.wrong_call
        self.catch = self._random.catch

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """Greedy or random, by a roll of the table's generator."""
        if table.rng.random() < self.greedy:
            return self._greedy.choose(table, player, actions)
        return self._random.choose(table, player, actions)
