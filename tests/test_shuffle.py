"""The provably fair shuffle maumau-sha256-fy/1: test vectors, the
algorithm checked by hand, and tampered seeds, commitments, deals and stocks caught at the
right event."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.engine.shuffle import commitment, shuffled
from maumau_log.events import Deal, Event, Game, Reshuffle
from maumau_log.replay.driver import replay_events

VECTORS = Path(__file__).resolve().parents[1] / "schemas" / "shuffle-vectors.json"


def test_published_vectors_match_the_implementation() -> None:
    doc = json.loads(VECTORS.read_text())
    assert doc["algorithm"] == "maumau-sha256-fy/1"
    assert len(doc["vectors"]) == 13
    for v in doc["vectors"]:
        assert commitment(v["seed"]) == v["commitment"]
        assert shuffled(v["input"], v["seed"]) == v["shuffled"]
        assert Counter(v["shuffled"]) == Counter(v["input"])


def test_commitment_is_plain_sha256_of_the_seed() -> None:
    # the SHA-256 of the empty string, as every SHA-256 implementation gives it
    assert commitment("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_two_cards_by_hand() -> None:
    # one step of Fisher-Yates: i = 1, n = 2, limit = 2**64 (nothing rejected), j = x mod 2
    # with x the first 8 bytes of SHA-256(seed || 0 as 8 big-endian bytes)
    for seed in ("a", "b", "c", "maumau"):
        block = hashlib.sha256(seed.encode() + (0).to_bytes(8, "big")).digest()
        x = int.from_bytes(block[:8], "big")
        expected = ["7H", "8H"] if x % 2 == 1 else ["8H", "7H"]
        assert shuffled(["7H", "8H"], seed) == expected


def test_rejection_sampling_with_three_cards_by_hand() -> None:
    # i = 2: n = 3, limit = 2**64 - (2**64 mod 3); i = 1: n = 2; words in stream order
    seed = "vector"
    stream = b"".join(
        hashlib.sha256(seed.encode() + k.to_bytes(8, "big")).digest() for k in range(2)
    )
    words = [int.from_bytes(stream[i : i + 8], "big") for i in range(0, 64, 8)]
    cards = ["A", "B", "C"]
    w = iter(words)
    for i in (2, 1):
        n = i + 1
        limit = 2**64 - (2**64 % n)
        x = next(w)
        while x >= limit:
            x = next(w)
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    assert shuffled(["A", "B", "C"], seed) == cards


def test_first_card_is_uniform_over_many_seeds() -> None:
    pack = [f"{r}{s}" for s in "CDHS" for r in ("7", "8", "9", "10", "J", "Q", "K", "A")]
    firsts = Counter(shuffled(pack, f"seed-{i}")[0] for i in range(3200))
    chi2 = sum((firsts[c] - 100) ** 2 / 100 for c in pack)
    assert chi2 < 61.1  # the 0.001 critical value of chi-square with 31 degrees of freedom


def fair_game() -> list[Event]:
    for seed in range(100):
        events = next(simulate("classic", 3, 1, seed))
        if any(isinstance(ev, Reshuffle) for ev in events):
            return events
    raise AssertionError("no simulated game with a reshuffle")


def code_at(events: list[Event]) -> tuple[str, int | None] | None:
    (report,) = replay_events(events)
    v = report.violation
    return None if v is None else (v.code, v.event_index)


def test_simulated_games_carry_a_seed_that_checks() -> None:
    events = fair_game()
    header = events[0]
    assert isinstance(header, Game) and header.shuffle is not None
    assert header.shuffle["commitment"] == commitment(header.shuffle["seed"])
    assert code_at(events) is None


def test_tampered_seed_or_commitment_is_caught_at_the_header() -> None:
    events = fair_game()
    header = events[0]
    assert isinstance(header, Game) and header.shuffle is not None
    other = {**header.shuffle, "seed": header.shuffle["seed"][:-1] + "0"}
    if other["seed"] == header.shuffle["seed"]:
        other["seed"] = header.shuffle["seed"][:-1] + "1"
    assert code_at([msgspec.structs.replace(header, shuffle=other), *events[1:]]) == (
        "bad_commitment",
        0,
    )
    promised = {**header.shuffle, "commitment": commitment("another seed")}
    assert code_at([msgspec.structs.replace(header, shuffle=promised), *events[1:]]) == (
        "bad_commitment",
        0,
    )


def test_tampered_deal_starter_stock_and_reshuffle_are_caught() -> None:
    events = fair_game()
    deal = events[1]
    assert isinstance(deal, Deal) and deal.stock
    hands = {p: list(h) for p, h in deal.hands.items()}  # type: ignore[arg-type]
    a, b = list(hands)[:2]
    hands[a][0], hands[b][0] = hands[b][0], hands[a][0]  # swap one card between two hands
    swapped = msgspec.structs.replace(deal, hands=hands)
    assert code_at([events[0], swapped, *events[2:]]) == ("deal_not_from_seed", 1)
    stock = list(deal.stock)
    stock[0], stock[1] = stock[1], stock[0]  # the same cards, another stock order
    assert code_at([events[0], msgspec.structs.replace(deal, stock=stock), *events[2:]]) == (
        "deal_not_from_seed",
        1,
    )
    new_stock = [deal.starter, *deal.stock[1:]]
    starter = msgspec.structs.replace(deal, starter=deal.stock[0], stock=new_stock)
    assert code_at([events[0], starter, *events[2:]]) == ("deal_not_from_seed", 1)
    i = next(k for k, ev in enumerate(events) if isinstance(ev, Reshuffle))
    ev = events[i]
    assert isinstance(ev, Reshuffle) and ev.stock and len(ev.stock) > 1
    reordered = [ev.stock[-1], *ev.stock[:-1]]
    tampered = [*events[:i], msgspec.structs.replace(ev, stock=reordered), *events[i + 1 :]]
    assert code_at(tampered) == ("deal_not_from_seed", i)


def _reference_shuffle(cards: list[str], seed: str) -> list[str]:
    """Steps 2-4 of the algorithm read word by word, as written (shuffle.py's module doc):
    the reference for the batched implementation."""
    out = list(cards)
    base = seed.encode("utf-8")
    words: list[int] = []
    counter = 0
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**64 - (2**64 % n)
        while True:
            if not words:
                digest = hashlib.sha256(base + counter.to_bytes(8, "big")).digest()
                words = [int.from_bytes(digest[k : k + 8], "big") for k in range(0, 32, 8)]
                counter += 1
            x = words.pop(0)
            if x < limit:
                break
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


@given(size=st.integers(0, 1100), seed=st.text(max_size=20))
@settings(max_examples=60, deadline=None)
def test_batched_shuffle_is_the_algorithm_as_written(size: int, seed: str) -> None:
    # sizes past the 1,024 of the rejection-limit table take the word-by-word loop
    cards = [f"c{i}" for i in range(size)]
    assert shuffled(cards, seed) == _reference_shuffle(cards, seed)
