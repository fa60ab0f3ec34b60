"""Every card accounted for (FORMAT.md "Cards"): the deal's conservation as counted, a fair
deal's hands in any order and a swapped card, a fair reshuffle's permutation, and the round
end's final hands in the replayed order or another (a wrong hand is ``wrong_score``)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine
from maumau_log.events import Deal, Game, Reshuffle, RoundEnd
from maumau_log.replay.driver import replay_events
from maumau_log.rules import resolve

# -- the deal's card conservation without counting, fair deals and reshuffles compared
# without sorting: pinned against the counting rule of FORMAT.md Cards


def _first_violation(events: list) -> tuple[str, str] | None:
    (rep,) = replay_events(events)
    v = rep.violation
    return None if v is None else (v.code, v.message)


def _expected_conservation(header: Game, deal: Deal) -> tuple[str, list[str]] | None:
    """FORMAT.md Cards by counting: the cards held too often (sorted), else the cards
    missing with a logged stock, else None."""
    pack = resolve(header.ruleset, header.options).pack_counts
    held = Counter(c for h in deal.hands.values() for c in h)  # type: ignore[union-attr]
    held[deal.starter] += 1
    held.update(deal.stock or [])
    over = sorted(c for c, k in held.items() if k > pack[c])
    if over:
        return "over", over
    missing = sorted((pack - held).elements())
    if deal.stock is not None and missing:
        return "missing", missing
    return None


@pytest.mark.parametrize("options", [None, {"packs": 2}])
def test_deal_conservation_as_counted(options: dict | None) -> None:
    """Deals changed card by card (a hand's card replaced by another dealt card, by the
    starter, by a stock card; the stock logged, one short or not logged; one pack and
    two): duplicate_card exactly when the
    counting rule finds a card too often or, with a logged stock, one missing; the message
    names the same cards; an unchanged deal is valid."""
    kinds: Counter[str] = Counter()
    for game in simulate("classic", 3, 3, 19, options=options):
        header, deal = game[0], game[1]
        assert isinstance(header, Game) and isinstance(deal, Deal)
        assert _first_violation(game) is None
        p0 = header.players[0]
        others = [c for p, h in deal.hands.items() if p != p0 for c in h]  # type: ignore[union-attr]
        stock = deal.stock or []
        for swap in [None, others[0], deal.starter, *stock[:2]]:
            for logged in (stock, stock[:-1], None):  # the stock, one card short, not logged
                hands = dict(deal.hands)
                if swap is not None:
                    hands[p0] = [swap, *hands[p0][1:]]  # type: ignore[index]
                changed = msgspec.structs.replace(deal, hands=hands, stock=logged)
                # no seed: only conservation is judged (a fair seed would judge the deal)
                plain = msgspec.structs.replace(header, shuffle=None)
                got = _first_violation([plain, changed, *game[2:3]])
                want = _expected_conservation(header, changed)
                if want is None:
                    assert got is None or got[0] != "duplicate_card"
                    continue
                assert got is not None and got[0] == "duplicate_card", (swap, logged, got)
                kind, cards = want
                kinds[kind] += 1
                if kind == "over":
                    assert got[1].startswith(f"the deal holds {cards[0]} ")
                else:
                    assert got[1].startswith(f"the deal does not account for the whole pack: "
                                             f"missing {', '.join(cards[:10])}")  # fmt: skip
    assert kinds["over"] > 0 and kinds["missing"] > 0, kinds  # both kinds met


def test_fair_deal_hands_in_any_order_and_a_swapped_card() -> None:
    """A seeded deal's hands listed in another order are the seed's hands; a card swapped
    between two hands is deal_not_from_seed."""
    for game in simulate("classic", 4, 4, 23):
        header, deal = game[0], game[1]
        assert isinstance(deal, Deal) and header.shuffle is not None  # type: ignore[union-attr]
        turned = {p: list(reversed(h)) for p, h in deal.hands.items()}  # type: ignore[arg-type]
        assert _first_violation([header, msgspec.structs.replace(deal, hands=turned),
                                 *game[2:]]) is None  # fmt: skip
        a, b = list(deal.hands)[:2]
        swapped = dict(deal.hands)
        swapped[a] = [deal.hands[b][0], *deal.hands[a][1:]]  # type: ignore[index]
        swapped[b] = [deal.hands[a][0], *deal.hands[b][1:]]  # type: ignore[index]
        got = _first_violation([header, msgspec.structs.replace(deal, hands=swapped)])
        assert got is not None and got[0] == "deal_not_from_seed"


def test_fair_reshuffle_due_permutation_and_not_the_pile() -> None:
    """A seeded game's reshuffle: the logged stock is valid; the same cards in another
    order are deal_not_from_seed; a stock that is not the pile is bad_reshuffle (checked
    before the seed, as without it)."""
    seen = 0
    for game in simulate("classic", 4, 12, 29):
        at = next((i for i, e in enumerate(game) if isinstance(e, Reshuffle)), None)
        if at is None or game[at].stock is None or len(game[at].stock) < 2:  # type: ignore[union-attr]
            continue
        seen += 1
        ev = game[at]
        assert _first_violation(game) is None
        turned = msgspec.structs.replace(ev, stock=list(reversed(ev.stock)))  # type: ignore[arg-type]
        got = _first_violation([*game[:at], turned, *game[at + 1 :]])
        assert got is not None and got[0] == "deal_not_from_seed"
        wrong = msgspec.structs.replace(ev, stock=[*ev.stock[:-1], "JOKER"])  # type: ignore[index]
        got = _first_violation([*game[:at], wrong, *game[at + 1 :]])
        assert got is not None and got[0] in ("bad_reshuffle", "unknown_card")
        short = msgspec.structs.replace(ev, stock=ev.stock[:-1])  # type: ignore[index]
        got = _first_violation([*game[:at], short, *game[at + 1 :]])
        assert got is not None and got[0] == "bad_reshuffle" and "left out" in got[1]
    assert seen >= 2


def test_round_end_hands_in_another_order_and_a_wrong_hand() -> None:
    # final hands listed in any order are the replayed hands; a wrong one is wrong_score
    events = next(simulate("classic", 3, 1, 7))
    end = events[-1]
    assert isinstance(end, RoundEnd) and end.hands is not None
    hands = {p: list(reversed(h)) if isinstance(h, list) else h for p, h in end.hands.items()}
    shuffled_order = [*events[:-1], RoundEnd(winner=end.winner, hands=hands, scores=end.scores)]
    assert replay_events(shuffled_order)[0].violation is None
    loser = next(p for p, h in hands.items() if isinstance(h, list) and h)
    wrong = dict(hands, **{loser: hands[loser][1:]})
    bad = [*events[:-1], RoundEnd(winner=end.winner, hands=wrong, scores=end.scores)]
    v = replay_events(bad)[0].violation
    assert v is not None and v.code == "wrong_score" and v.event_index == len(events) - 1


@pytest.mark.parametrize("order", ["as replayed", "reversed"])
def test_round_end_hands_in_the_replayed_order_or_another(order: str) -> None:
    """``round_end.hands`` equal to the replayed hands (no sort) or in another order are
    accepted alike; the round's outcome is the same."""
    for game in simulate("classic", 3, 3, 5):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        for ev in game[1:-1]:
            engine.apply(ev)
        end = game[-1]
        assert isinstance(end, RoundEnd)
        hands = {p: list(h) for p, h in engine.hands.items()}
        if order == "reversed":
            hands = {p: h[::-1] for p, h in hands.items()}
        engine.apply(msgspec.structs.replace(end, hands=hands))
        assert engine.phase == "finished"
