"""Bots: determinization, the bot table, the policies, the ladder."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from gamebuilder import call, deal, engine_after, game, play
from typer.testing import CliRunner

import maumau_log.cli.bots_cmds  # noqa: F401  (registers the commands)
from maumau_log.bots import BotTable, GreedyPolicy, MonteCarloPolicy, make_policy
from maumau_log.bots.determinize import DeterminizeError, clone, determinize
from maumau_log.bots.ladder import hash_seed, ladder, seat_effect, wilson
from maumau_log.bots.mc import evaluate, mc_choice
from maumau_log.bots.policies import RandomPolicy
from maumau_log.bots.season import club_pool, season
from maumau_log.bots.sim import fair_shuffle
from maumau_log.bots.table import due_call, make_header, utility
from maumau_log.cli import app
from maumau_log.engine import HIDDEN, Action
from maumau_log.replay.driver import replay_events
from maumau_log.rules import resolve

# a 2-player classic game after 5 events: a holds 8H QH (8 skips), b 9C KC, top 10H
SURE_WIN = [
    game("classic", options={"hand_size": 2}),
    deal({"a": ["8H", "QH"], "b": ["9C", "KC"]}, "10H", top=["7D"]),
]


def _mid_game(ruleset: str = "classic", events: int = 12):
    rules = resolve(ruleset)
    rng = random.Random(3)
    header = make_header(rules, "g", ["p1", "p2", "p3"], "p3", fair_shuffle(rng))
    pol = {p: RandomPolicy() for p in header.players}
    table = BotTable.new_round(rules, header, pol, rng)
    table.deal()
    table.run(events)
    return table.engine


# ---------------------------------------------------------------- determinization


@pytest.mark.parametrize("ruleset", ["classic", "pesten", "crazy-eights", "serbian"])
def test_determinize_conserves_sizes_and_cards(ruleset: str) -> None:
    e = _mid_game(ruleset)
    before = e.view()
    hidden = Counter(c for p in ("p2", "p3") for c in e.hands[p]) + Counter(e.stock)
    d = determinize(e, "p1", random.Random(1))
    assert e.view() == before  # the original is untouched
    assert d.hands["p1"] == e.hands["p1"] and d.discard == e.discard
    assert [len(d.hands[p]) for p in e.players] == [len(e.hands[p]) for p in e.players]
    assert len(d.stock) == len(e.stock)
    assert Counter(c for p in ("p2", "p3") for c in d.hands[p]) + Counter(d.stock) == hidden
    assert Counter(c for h in d.hands.values() for c in h) + Counter(d.stock) + Counter(
        d.discard
    ) == Counter(e.rules.pack)
    # the hidden cards really move, and the same seed moves them the same way
    other = determinize(e, "p1", random.Random(2))
    assert d.hands["p2"] != other.hands["p2"] or d.stock != other.stock
    assert determinize(e, "p1", random.Random(1)).hands == d.hands
    # the engine still accepts every legal move of the sampled state
    for act in d.legal_actions():
        if act.kind in ("play", "draw", "pass", "suit"):
            t = BotTable(clone(d), dict.fromkeys(d.players, RandomPolicy()), random.Random(0))
            t.do(act)
            t.run()
            assert t.engine.phase in ("out", "ended")


def test_determinize_forgets_the_fair_seed_and_refuses_hidden_hands() -> None:
    e = _mid_game()
    assert e.fair_seed is not None
    assert determinize(e, "p1", random.Random(0)).fair_seed is None
    e.hands["p1"][0] = HIDDEN
    with pytest.raises(DeterminizeError, match="not shown"):
        determinize(e, "p1", random.Random(0))


# ---------------------------------------------------------------- policies and tables


@pytest.mark.parametrize("ruleset", ["classic", "standard", "pesten", "crazy-eights"])
@pytest.mark.parametrize("bot", ["random", "greedy", "mc"])
def test_bot_games_are_valid_and_repeatable(ruleset: str, bot: str) -> None:
    rules = resolve(ruleset)

    def one() -> list:
        rng = random.Random(f"t:{ruleset}:{bot}")
        header = make_header(rules, "g1", ["p1", "p2"], "p2", fair_shuffle(rng))
        pol = {"p1": make_policy(bot, seed=5, rollouts=2), "p2": make_policy("random")}
        t = BotTable.new_round(rules, header, pol, rng)
        t.play_round()
        return t.events

    events = one()
    (rep,) = replay_events(events)
    assert rep.violation is None, rep.violation
    assert [type(e).__name__ for e in events][-1] == "RoundEnd"
    assert events == one()


def test_greedy_keeps_the_wild_card_and_goes_out_when_it_can() -> None:
    # classic: J wild; a holds JC 9H on 10H -> plays 9H; with only JC left it plays it
    e = engine_after(
        [
            game("classic", options={"hand_size": 2}),
            deal({"a": ["JC", "9H"], "b": ["9C", "KC"]}, "10H"),
        ]
    )
    t = BotTable(e, {"a": GreedyPolicy(), "b": GreedyPolicy()}, random.Random(0))
    acts = [a for a in e.legal_actions() if a.player == "a"]
    assert [str(a) for a in acts] == ["a plays 9H", "a plays JC", "a draws 1 (voluntary)"]
    assert GreedyPolicy().choose(t, "a", acts).card == "9H"
    # 10 per card, -2 for a power card kept back (9 reverses in classic), 9 points / 10
    assert GreedyPolicy().score(t, "a", acts[0]) == 10 - 2 + 0.9


def test_mc_takes_the_sure_win_and_values_it_one() -> None:
    e = engine_after(SURE_WIN)
    acts = [a for a in e.legal_actions() if a.player == "a"]
    assert [a.card for a in acts] == ["8H", "QH", None]
    out = evaluate(e, "a", acts, 10, random.Random(0))
    assert out.wins[0] == [1.0] * 10  # 8H skips b, then QH goes out: won in every rollout
    assert out.mean_wins()[1] < 1.0
    best, _ = mc_choice(e, "a", acts, 10, random.Random(0))
    assert best == 0
    t = BotTable(e, {"a": MonteCarloPolicy(8, seed=1), "b": RandomPolicy()}, random.Random(0))
    assert t.policies["a"].choose(t, "a", acts).card == "8H"


def test_due_call_and_utility() -> None:
    e = engine_after([*SURE_WIN, play("a", "QH")])
    assert due_call(e, "a") == "mau"
    e2 = engine_after([*SURE_WIN, play("a", "QH"), call("a", "mau")])
    assert due_call(e2, "b") is None
    rules = resolve("crazy-eights")
    assert utility(rules, {"a": -30, "b": 0}, "a") == -30.0
    assert utility(resolve("serbian"), {"a": -30, "b": 12}, "a") == 30.0
    assert utility(resolve("standard"), None, "a") == 0.0


def test_pseudo_actions() -> None:
    e = engine_after([*SURE_WIN, play("a", "QH")])
    t = BotTable(clone(e), {"a": RandomPolicy(), "b": RandomPolicy()}, random.Random(0))
    t.do(Action("no_call", "a"))
    t.do(Action("call", "a", "mau"))
    assert t.events[-1].call == "mau"  # type: ignore[attr-defined]
    before = len(t.events)
    t.do(Action("round_end"))  # a policy that abandoned the round itself: nothing more
    assert len(t.events) == before
    with pytest.raises(ValueError, match="cannot do"):
        t.do(Action("shout", "a"))


# ---------------------------------------------------------------- ladder and seasons


def test_wilson_matches_hand_values() -> None:
    lo, hi = wilson(30, 100)
    assert round(lo, 4) == 0.2189 and round(hi, 4) == 0.3958
    assert wilson(0, 0) == (0.0, 1.0)


def test_ladder_small_is_reproducible_and_consistent() -> None:
    a = ladder("classic", 2, 6, seed=3, bots=("random", "greedy"))
    b = ladder("classic", 2, 6, seed=3, bots=("random", "greedy"))
    assert [p.to_dict() for p in a] == [p.to_dict() for p in b]
    assert [(p.bot, p.opponent, p.games) for p in a] == [
        ("random", "greedy", 6),
        ("greedy", "random", 6),
    ]
    for p in a:
        assert p.win_rate == p.wins / 6
        assert p.ci_low <= p.win_rate <= p.ci_high
        assert sum(r.games for r in p.by_seat) == 6 and [r.games for r in p.by_seat] == [3, 3]
        assert sum(r.wins for r in p.by_seat) == p.wins
        assert sum(r.wins for r in p.seats) == 6 - p.no_winner
    rows, pval = seat_effect(a)
    assert [(r.games, r.wins) for r in rows] == [(12, 4), (12, 8)]
    # chi-square of 4 and 8 wins against 6 and 6: (4 + 4) / 6 = 4/3, df 1:
    # p = 2 (1 - Phi(sqrt(4/3))) = 2 (1 - Phi(1.1547)) = 0.2482
    assert pval == pytest.approx(0.2482, abs=1e-4)
    assert hash_seed("k", 1) == hash_seed("k", 1) != hash_seed("k", 2)


def test_ladder_cli_json() -> None:
    res = CliRunner().invoke(
        app,
        [
            "bots",
            "ladder",
            "--ruleset",
            "standard",
            "--games",
            "2",
            "--bots",
            "random,greedy",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [(r["bot"], r["opponent"], r["games"]) for r in rows] == [
        ("random", "greedy", 2),
        ("greedy", "random", 2),
    ]
    assert set(rows[0]) >= {"bot", "opponent", "games", "win_rate", "ci_low", "ci_high"}
    bad = CliRunner().invoke(app, ["bots", "ladder", "--ruleset", "nope", "--games", "1"])
    assert bad.exit_code == 2 and "nope" in bad.output
    bad = CliRunner().invoke(app, ["bots", "ladder", "--bots", "random,alphago"])
    assert bad.exit_code == 2 and "alphago" in bad.output


def test_season_seats_by_weight_and_replays() -> None:
    games = list(season("classic", club_pool(3), 20, seed=1, weights={"c03": 0.0}))
    assert all("c03" not in g[0].players for g in games)  # type: ignore[attr-defined]
    reports = replay_events([e for g in games for e in g])
    assert len(reports) == 20 and all(r.violation is None for r in reports)


def test_ladder_figures_do_not_depend_on_jobs() -> None:
    one = ladder("standard", 2, 4, seed=9, bots=("random", "greedy"), jobs=1)
    two = ladder("standard", 2, 4, seed=9, bots=("random", "greedy"), jobs=2)
    assert [p.to_dict() for p in one] == [p.to_dict() for p in two]


# ---------------------------------------------------------------- one source


def _digest(games) -> str:
    import hashlib

    from maumau_log.events import encode_event

    d = hashlib.sha256()
    for events in games:
        for ev in events:
            d.update(encode_event(ev) + b"\n")
    return d.hexdigest()[:16]


def test_the_simulator_plays_through_the_bot_table_and_its_files_did_not_change() -> None:
    """The simulator's table is the bots' table and its bot the random bot's class; the
    digests were taken before the two were made one source (commit 028dbdd)."""
    from maumau_log.bots.policies import SimulatorBot
    from maumau_log.bots.sim import Bot, SimTable, simulate, simulate_matches
    from maumau_log.bots.sim_bias import PeekingTable, QuitterTable, simulate_with

    assert issubclass(SimTable, BotTable) and Bot is SimulatorBot
    assert issubclass(SimulatorBot, RandomPolicy)
    assert _digest(simulate("classic", 2, 30, 5)) == "16a72babaec44edc"
    # jump-ins; serbian's digest follows the legal_actions rule (while a 2 of
    # clubs is owed, ruling 8, the player to move's plays are listed too): ed621db629012b2c
    assert _digest(simulate("serbian", 4, 30, 5)) == "3828797b4c635a53"
    assert _digest(simulate_matches("classic", 3, 3, 7)) == "242055ea999bcc47"
    assert _digest(simulate_with(PeekingTable, "classic", 4, 40, 11)) == "494fad2997c4a304"
    assert _digest(simulate_with(QuitterTable, "classic", 4, 40, 11)) == "db6ca3787a943d97"


class _Rolls(random.Random):
    def __init__(self, *values: float) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        return self.values.pop(0)


def test_simulator_bot_choices_by_hand() -> None:
    bot = make_policy("random")
    from maumau_log.bots.sim import Bot

    sim = Bot()
    p1, p2 = Action("play", "a", "7H"), Action("play", "a", "8H")
    draw, pas = Action("draw", "a", None), Action("pass", "a")
    rolls = _Rolls(0.9)  # one roll only (which play): it plays while no draw is offered
    assert sim.pick(rolls, [pas, p1]) == p1 and not rolls.values
    assert sim.pick(_Rolls(), [pas]) == pas
    assert sim.pick(_Rolls(0.07), [p1, p2, draw]) == draw  # 0.07 < voluntary_draw 0.08
    assert sim.pick(_Rolls(0.5, 0.6), [p1, p2, draw]) == p2  # int(0.6 * 2) = 1
    assert bot.voluntary_draw == sim.voluntary_draw == 0.08
