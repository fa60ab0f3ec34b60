"""The bot table: plays a round (or the rest of one) with one policy per seat.

:class:`BotTable` turns a policy's chosen :class:`~maumau_log.engine.Action` into events
(the cards of a draw come from the top of the stock, an empty stock is reshuffled, calls
follow a play, other players catch open call faults) and applies every event to the engine
first: a bot game is legal by construction under our reading of the rules. It is THE one
event builder: the simulator (:mod:`maumau_log.bots.sim`, its table a subclass that lets one
random bot decide for every seat) and the planted-bias tables of :mod:`maumau_log.bots.sim_bias`
build their events here too. It serves four uses:

- the simulator's rounds and matches (:class:`maumau_log.bots.sim.SimTable`);
- whole rounds with a header and a deal, for the ladder and the simulated seasons
  (:meth:`BotTable.new_round`, :meth:`BotTable.play_round`);
- rollouts from a (determinized) mid-round state, for the Monte Carlo bot and ``review``
  (:meth:`BotTable.do` one action, then :meth:`BotTable.run`, :meth:`BotTable.result`);
- the pseudo-actions a review weighs besides the engine's legal actions: ``call`` (say the
  due word), ``no_call`` (say nothing) and ``accept_skip`` (take a skip one could answer);
  ``round_end`` does nothing (a policy that abandoned the round returns it).

Randomness comes from one ``random.Random`` through ``random()`` only (repeatable).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import SUITS
from ..engine import ENDED, OUT, PLAY, Action, Engine
from ..engine.shuffle import deal as fair_deal
from ..engine.shuffle import reshuffle_seed, shuffled
from ..events import (
    FORMAT_VERSION,
    Abandon,
    Call,
    Deal,
    Draw,
    Event,
    Game,
    HandCount,
    Pass,
    Penalty,
    Play,
    Reshuffle,
    RoundEnd,
    SuitChoice,
)
from ..rules import Ruleset
from ..scoring.matches import RoundContext
from ..scoring.rounds import round_scores
from .determinize import shuffle_list

MAX_EVENTS = 20_000
"""A whole round longer than this is abandoned (as in :mod:`maumau_log.bots.sim`)."""

ROLLOUT_EVENTS = 3_000
"""A rollout still running after this many actions counts as a round without a winner."""


class Policy:
    """How one seat plays: the base class of every bot.

    Attributes:
        name: the bot's name in ladders and reports (``random``, ``greedy``, ``mc``).
        forget_call: chance to forget a call that is due (0..1).
        wrong_call: chance to say the wrong word instead (0..1).
        catch: chance to catch another player's open call fault when one is seen (0..1).
    """

    name = "policy"
    forget_call = 0.0
    wrong_call = 0.0
    catch = 1.0

    def choose(self, table: BotTable, player: str, actions: list[Action]) -> Action:
        """Pick one of ``actions`` (all ``player``'s, at least two; suit choices are
        actions of kind ``suit`` whose ``card`` is the suit). Subclasses override it."""
        raise NotImplementedError

    def jump(self, table: BotTable, player: str, actions: list[Action]) -> Action | None:
        """A jump-in out of turn (PRESETS.md ruling 7), or None to wait: by default the
        first one offered (a card fewer in hand)."""
        return actions[0]

    def say(self, table: BotTable, player: str, word: str) -> str | None:
        """What ``player`` says when ``word`` is due (PRESETS.md ruling 9): ``word``, a
        wrong word (``mau`` for any other word, ``last card`` for ``mau``) with chance
        :attr:`wrong_call`, or None (forgotten) with chance :attr:`forget_call`; one roll of
        the table's generator when either chance is set."""
        if self.forget_call or self.wrong_call:
            roll = table.rng.random()
            if roll < self.forget_call:
                return None
            if roll < self.forget_call + self.wrong_call:
                return "mau" if word != "mau" else "last card"
        return word


@dataclass(frozen=True, slots=True)
class Result:
    """How a round (or a rollout) ended.

    Attributes:
        winner: who emptied the hand, or None (play limit, blocked stock, abandon).
        scores: player to round points (``scoring.round_scores``), or None where the
            ruleset does not score.
    """

    winner: str | None
    scores: dict[str, int] | None


def utility(rules: Ruleset, scores: Mapping[str, int] | None, player: str) -> float:
    """``player``'s round score signed so that higher is better: the score itself for
    ``winner_collects`` and ``hand_penalty`` (already negative), minus it for
    ``penalty_points`` and ``serbian`` (points there are penalties; PRESETS.md ruling 13).
    0 where the ruleset does not score."""
    if not scores:
        return 0.0
    value = float(scores.get(player, 0))
    return -value if rules.scoring in ("penalty_points", "serbian") else value


class BotTable:
    """One round at a table of bots, from a given engine state.

    Args:
        engine: the state to play from (it is changed in place).
        policies: player to :class:`Policy` (every player of the engine).
        rng: the table's source of randomness.
        record: keep the applied events in :attr:`events` (off for rollouts).
    """

    def __init__(
        self,
        engine: Engine,
        policies: Mapping[str, Policy],
        rng: random.Random,
        record: bool = True,
    ) -> None:
        self.engine = engine
        self.rules = engine.rules
        self.policies = dict(policies)
        self.rng = rng
        self.record = record
        self.events: list[Event] = []
        self.skip_accepted = False
        self.actions = 0

    # ------------------------------------------------------------------ whole rounds

    @classmethod
    def new_round(
        cls,
        rules: Ruleset,
        header: Game,
        policies: Mapping[str, Policy],
        rng: random.Random,
        match: RoundContext | None = None,
    ) -> BotTable:
        """A table for a new round: the engine of ``header`` (a match round with its
        ``match`` context: dealt hand sizes, totals), events starting with it."""
        table = cls(Engine(rules, header, match), policies, rng)
        table.events.append(header)
        return table

    def play_round(self) -> Result:
        """Deal by the header's fair shuffle, play to the end, log the ``round_end``.

        Returns:
            The :class:`Result`; :attr:`events` holds the whole round.
        Raises:
            RuleViolation: only on a bug (an event the engine rejects).
        """
        e = self.engine
        self.deal()
        self.run(MAX_EVENTS)
        if e.phase == PLAY:
            self.emit(Abandon(reason="simulator event limit"))
        result = self.result()
        hands: dict[str, Any] = {p: list(h) for p, h in e.hands.items()}
        scores: dict[str, int | float] | None = dict(result.scores) if result.scores else None
        self.emit(RoundEnd(winner=result.winner, scores=scores, hands=hands))
        return result

    def deal(self) -> None:
        """Deal by the provably fair shuffle of the header's seed (``shuffle.py``); a match
        round deals the hand sizes its context sets (``loser_hand_shrink``, ruling 14)."""
        rules, e = self.rules, self.engine
        assert e.fair_seed is not None
        size = rules.hand_size_for(e.n)
        sizes = dict(e.match.hand_sizes) if e.match is not None and e.match.hand_sizes else {}
        sizes = {p: sizes.get(p, size) for p in e.players}
        redeal = {c for c, info in rules.cards.items() if info.redeal}
        dealt, starter, stock = fair_deal(
            shuffled(rules.pack, e.fair_seed), e.players, e.dealer, sizes, redeal
        )
        hands: dict[str, list[str] | HandCount] = {}
        hands.update(dealt)
        self.emit(Deal(hands=hands, starter=starter, stock=stock))

    # ------------------------------------------------------------------ playing on

    def emit(self, event: Event) -> None:
        """Apply ``event`` (raises RuleViolation on a bug) and record it."""
        self.engine.apply(event)
        if self.record:
            self.events.append(event)

    def run(self, limit: int = ROLLOUT_EVENTS) -> None:
        """Play on until the round is over or ``limit`` actions were taken."""
        e = self.engine
        while self.actions < limit:
            self.catches()
            if e.phase != PLAY:
                return
            acts = e.legal_actions()
            if not acts:
                raise RuntimeError(f"bot table: no legal action in state {e.view()}")
            self.do(self.decide(acts))

    def result(self) -> Result:
        """The round's :class:`Result` as it stands (no winner while it goes on)."""
        e = self.engine
        winner = e.out_player if e.phase == OUT else None
        if e.phase not in (OUT, ENDED):
            winner = None
        if self.rules.scoring == "none":
            return Result(winner, None)
        return Result(winner, round_scores(self.rules, e.players, e.hands, winner, e.last_play))

    def decide(self, acts: list[Action]) -> Action:
        """Who acts next and how: an owed draw first, then jump-ins, then the player to move
        (a skipped player who may answer the skip first chooses between that and
        ``accept_skip``)."""
        e = self.engine
        first = acts[0]
        if first.kind == "suit":
            assert first.player is not None
            return self._ask(first.player, acts)
        if all(a.kind == "draw" and a.reason == "effect" for a in acts) and (
            first.player != e.current_player
        ):
            return first  # a draw owed by the previous player comes first (ruling 8)
        jumps = [a for a in acts if a.jump]
        if jumps:
            for p in e.players:
                mine = [a for a in jumps if a.player == p]
                if mine:
                    chosen = self.policies[p].jump(self, p, mine)
                    if chosen is not None:
                        return chosen
            acts = [a for a in acts if not a.jump]
        movers = list(dict.fromkeys(a.player for a in acts))
        if len(movers) > 1:  # a pending skip: the skipped player may answer it
            skipped = movers[0]
            assert skipped is not None
            answers = [a for a in acts if a.player == skipped]
            if not self.skip_accepted:
                chosen = self._ask(skipped, [*answers, Action("accept_skip", skipped)])
                if chosen.kind != "accept_skip":
                    return chosen
            self.skip_accepted = False
            acts = [a for a in acts if a.player != skipped]
        player = acts[0].player
        assert player is not None
        return self._ask(player, acts)

    def _ask(self, player: str, acts: list[Action]) -> Action:
        if len(acts) == 1:
            return acts[0]
        return self.policies[player].choose(self, player, acts)

    def do(self, act: Action) -> None:
        """Turn one action into its events and apply them (a play is followed by the
        player's calls, a draw by a reshuffle when the stock is empty)."""
        e = self.engine
        self.actions += 1
        if act.kind == "round_end":
            return  # the policy ended the round itself (an abandon)
        player = act.player
        assert player is not None
        kind = act.kind
        if kind == "play":
            self.emit(Play(player=player, cards=act.play_cards, jump_in=act.jump))
            if e.awaiting_suit is None:
                self.calls_after_play(player)
        elif kind == "suit":
            self.emit(SuitChoice(player=player, suit=act.card))  # type: ignore[arg-type]
            self.calls_after_play(player)
        elif kind == "draw":
            self.ensure_stock()
            n = min(act.count, len(e.stock))
            stock = e.stock
            cards = [stock[-1 - i] for i in range(n)]
            self.emit(Draw(player=player, cards=cards, reason=act.reason))  # type: ignore[arg-type]
        elif kind == "pass":
            self.emit(Pass(player=player))
        elif kind == "call":
            assert act.card is not None
            self.emit(Call(player=player, call=act.card))
        elif kind == "accept_skip":
            self.skip_accepted = True
        elif kind != "no_call":
            raise ValueError(f"bot table: cannot do a {kind!r} action")

    def ensure_stock(self) -> None:
        """Reshuffle an empty stock where the ruleset does (by the header's fair shuffle
        when its seed is known, else from the table's generator)."""
        e = self.engine
        if e.stock or self.rules.empty_stock != "reshuffle" or len(e.discard) <= 1:
            return
        if e.fair_seed is not None:
            new = shuffled(e.discard[:-1], reshuffle_seed(e.fair_seed, e.reshuffles + 1))
        else:
            new = list(e.discard[:-1])
            shuffle_list(new, self.rng)
        self.emit(Reshuffle(stock=new))

    def calls_after_play(self, player: str) -> None:
        """Say the word due after a play (PRESETS.md ruling 9), with the policy's habits."""
        e = self.engine
        word = due_call(e, player)
        if word is None:
            return
        said = self.policies[player].say(self, player, word)
        if said is not None:
            self.emit(Call(player=player, call=said))

    def catches(self) -> None:
        """Catch open call faults (PRESETS.md ruling 10): for each player with an open
        fault, in name order, :meth:`catcher` says who catches it, and the penalty cards
        are drawn from the stock (reshuffled when it runs out)."""
        e = self.engine
        if not e.faults:
            return
        for player in sorted(e.faults):
            if e.awaiting_suit is not None:
                return  # a catch reopened the round: the wild card's suit comes first
            by = self.catcher(player)
            if by is None:
                continue
            reason = e.faults[player]
            need = self.rules.call_penalty
            while need > 0:
                self.ensure_stock()
                n = min(need, len(e.stock))
                if n == 0:
                    break
                cards = [e.stock[-1 - i] for i in range(n)]
                self.emit(Penalty(player=player, reason=reason, by=by, cards=cards))
                need -= n
                if e.penalty_owed is None:
                    break

    def catcher(self, player: str) -> str | None:
        """Who catches ``player``'s open call fault, or None (no open fault any more, or
        nobody catches it): the other players in seat order, each with its policy's
        :attr:`Policy.catch` chance, until one does."""
        e = self.engine
        if player not in e.faults:
            return None
        seat = e.players.index(player)
        for i in range(1, e.n):
            other = e.players[(seat + i) % e.n]
            chance = self.policies[other].catch
            if chance >= 1.0 or (chance > 0 and self.rng.random() < chance):
                return other
        return None


def due_call(engine: Engine, player: str) -> str | None:
    """The word ``player`` must say now (PRESETS.md ruling 9): the engine's answer,
    :meth:`~maumau_log.engine.Engine.call_due`."""
    return engine.call_due(player)


def suit_actions(player: str) -> list[Action]:
    """The four suit choices as actions (kind ``suit``, the suit in ``card``)."""
    return [Action("suit", player, s) for s in SUITS]


def make_header(
    rules: Ruleset,
    game_id: str,
    players: Sequence[str],
    dealer: str,
    shuffle: dict[str, str],
    meta: dict[str, Any] | None = None,
) -> Game:
    """A ``game`` header for a bot round (no options: the preset as it is)."""
    return Game(
        format=FORMAT_VERSION,
        game_id=game_id,
        ruleset=rules.preset,
        players=list(players),
        dealer=dealer,
        shuffle=shuffle,
        meta=meta,
    )
