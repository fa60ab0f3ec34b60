"""Session 8's speed changes keep the behaviour: the replay keeps only lines
without a ``seq`` decoded (a kept line's ``seq`` is never read), the dispatch hands the
event's player and count to ``on_play`` and ``on_draw``, and the fair shuffle starts its
blocks from the SHA-256 state of the seed the commitment check just hashed."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import maumau_log.replay.driver as replay
from maumau_log.bots.sim import simulate
from maumau_log.engine import Engine, legality, shuffle
from maumau_log.events import EVENT_DECODER, Deal, Game, Play, Reshuffle, encode_event
from maumau_log.replay.driver import DECODED_LINES, Replayer, replay_events
from maumau_log.rules import resolve
from maumau_log.run.shard import ContentHasher, outcome


def _with_seq(games: list[list[object]], shift: int = 0) -> list[bytes]:
    """The games' lines, every event after the header with its ``seq`` (plus ``shift``)."""
    out = []
    for g in games:
        for i, ev in enumerate(g):
            raw = encode_event(ev)  # type: ignore[arg-type]
            if i:
                d = msgspec.json.decode(raw)
                d["seq"] = i + shift
                raw = msgspec.json.encode(d)
            out.append(raw)
    return out


def _run(lines: list[bytes], kept: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list, Replayer]:
    monkeypatch.setattr(replay, "DECODED_LINES", kept)
    r = Replayer(visitors=[ContentHasher()])
    return [outcome(rep) for rep in r.replay_lines("<memory>", enumerate(lines, 1))], r


@pytest.mark.parametrize("preset", ["standard", "classic", "crazy-eights"])
def test_lines_with_seq_are_never_kept_and_report_as_decoded(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games with a ``seq`` on every event (their lines repeat from game to game), good
    and with a line repeated (its ``seq`` then wrong: ``bad_seq`` at that line) or
    shifted: the same outcomes with and without kept lines, and no kept event has a seq."""
    games = list(simulate(preset, 3, 8, 77))
    lines = _with_seq(games)
    good, r = _run(lines, DECODED_LINES, monkeypatch)
    assert good == _run(lines, 0, monkeypatch)[0]
    assert all(o.valid for o in good)
    assert all(ev.seq is None for ev in r._decoded.values())
    bad = [*lines[:3], lines[2], *lines[3:]]
    got, r = _run(bad, DECODED_LINES, monkeypatch)
    assert got == _run(bad, 0, monkeypatch)[0]
    v = got[0].violation
    assert v is not None and (v.code, v.line, v.event_index) == ("bad_seq", 4, 3)
    shifted = _with_seq(games, 1)
    got, r = _run(shifted, DECODED_LINES, monkeypatch)
    assert got == _run(shifted, 0, monkeypatch)[0]
    assert all(o.violation is not None and o.violation.code == "bad_seq" for o in got)


def test_plain_lines_are_kept_and_a_kept_line_at_the_wrong_place_still_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without ``seq`` the turn's lines are kept as before (each equal to its decoding);
    a kept line repeated where it breaks a rule is reported as when decoded."""
    games = list(simulate("classic", 4, 10, 5))
    lines = [encode_event(ev) for g in games for ev in g]  # type: ignore[arg-type]
    got, r = _run(lines, DECODED_LINES, monkeypatch)
    assert all(o.valid for o in got) and len(r._decoded) > 0
    assert all(EVENT_DECODER.decode(raw) == ev for raw, ev in r._decoded.items())
    bad = [*lines[:4], lines[3], *lines[4:]]
    assert _run(bad, DECODED_LINES, monkeypatch)[0] == _run(bad, 0, monkeypatch)[0]


def _reference_words(seed: bytes, blocks: int) -> tuple[int, ...]:
    data = b"".join(hashlib.sha256(seed + k.to_bytes(8, "big")).digest() for k in range(blocks))
    return struct.unpack(f">{4 * blocks}Q", data)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80), st.integers(0, 70))
def test_words_after_any_commitment_are_the_seeds(a: str, b: str, blocks: int) -> None:
    """The words of seed ``a`` are SHA-256(S || u64be(k)) whichever seed the commitment
    check hashed last (``a`` itself, another, none), and the commitment is the plain
    SHA-256 hex of the seed."""
    base = a.encode("utf-8")
    want = _reference_words(base, blocks)
    assert shuffle.commitment(a) == hashlib.sha256(base).hexdigest()
    assert shuffle._words(base, 0, blocks) == want
    assert shuffle._words(base, 0, blocks) == want  # the kept state is not changed
    assert shuffle.commitment(b) == hashlib.sha256(b.encode("utf-8")).hexdigest()
    assert shuffle._words(base, 0, blocks) == want
    assert shuffle._words(b.encode("utf-8"), 0, blocks) == _reference_words(b.encode(), blocks)
    cards = [f"c{i}" for i in range(33)]
    shuffle.commitment(a)
    after = shuffle.shuffled(cards, a)
    shuffle.commitment(b + "x")
    assert shuffle.shuffled(cards, a) == after


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


@pytest.mark.parametrize("options", [None, {"packs": 2}])
def test_a_played_card_leaves_the_hand_at_its_first_place(options: dict | None) -> None:
    """The usual play finds the card once and removes it there: after
    every one-card play the hand is the hand before without the card's first copy (two
    packs: hands with two copies), as ``list.remove`` gives."""
    plays = 0
    for game in simulate("classic", 3, 6, 31, options=options):
        header = game[0]
        assert isinstance(header, Game)
        engine = Engine(resolve(header.ruleset, header.options), header)
        for ev in game[1:]:
            if isinstance(ev, Play) and len(ev.cards) == 1 and ev.player in engine.hands:
                want = list(engine.hands[ev.player])
                want.remove(ev.cards[0])
                engine.apply(ev)
                assert engine.hands[ev.player] == want
                plays += 1
            else:
                engine.apply(ev)
    assert plays > 50


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["7H", "8H", "JC", "QS", "AD", "10D", "??"]), max_size=8),
    st.frozensets(st.sampled_from(["7H", "8H", "JC", "QS", "AD", "10D", "9S"])),
)
def test_any_in_is_not_disjoint(hand: list[str], cards: frozenset[str]) -> None:
    """The draw check's typed loop answers as ``not cards.isdisjoint(hand)``."""
    assert legality._any_in(hand, cards) == (not cards.isdisjoint(hand))
