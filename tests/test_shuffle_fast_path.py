"""The fair shuffle's fast path (maumau-sha256-fy/1, docs/reference/shuffle.md) against the
algorithm word by word: the one-search no-rejection test on both sides of its 1,024-card
limit, the limit below every rejection limit, the words after any commitment, and
``shuffled`` equal to the reference for any seed."""

from __future__ import annotations

import hashlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_shuffle import _reference_shuffle

from maumau_log.engine import shuffle
from maumau_log.engine.shuffle import shuffled

_TWO64 = 2**64


def _fisher_yates(cards: list[str], words: list[int]) -> list[str] | None:
    """Steps 3-4 over ``words`` as written, or None when a word is rejected (the stream
    would go on past these words)."""
    out = list(cards)
    for pos, i in enumerate(range(len(out) - 1, 0, -1)):
        n = i + 1
        if words[pos] >= _TWO64 - (_TWO64 % n):
            return None
        j = words[pos] % n
        out[i], out[j] = out[j], out[i]
    return out


# words of every kind: anywhere, at the top of the range (rejected for some n), just
# below the lowest rejection limit of n <= 1024, and with 0xFF bytes that do not start it
_WORD = st.one_of(
    st.integers(0, _TWO64 - 1),
    st.integers(_TWO64 - 1100, _TWO64 - 1),
    st.integers(_TWO64 - 2**16, _TWO64 - 1025),
    st.integers(0, 2**16).map(lambda k: (0xFFFFFFFFFFFF << 8) | (k & 0xFF)),
    st.integers(0, 2**40 - 1).map(lambda k: (k << 24) | 0xFFFFFF),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, min_size=4, max_size=16), st.integers(2, 64))
def test_permute_is_the_algorithm_or_declines(words: list[int], size: int) -> None:
    blocks = len(words) // 4
    words = words[: 4 * blocks]
    data = struct.pack(f">{len(words)}Q", *words)
    cards = [f"c{i}" for i in range(size)]
    out = list(cards)
    done = shuffle._permute(out, data)
    if not done:
        # declined: the hand is untouched, and only for a stream too short or one that
        # holds six 0xFF bytes in a row (a word from 2**64 - 1024 up begins so)
        assert out == cards
        assert len(words) < size - 1 or b"\xff" * 6 in data
        return
    assert len(words) >= size - 1
    assert out == _fisher_yates(cards, words)


def test_permute_declines_every_word_that_a_limit_may_reject() -> None:
    # the words a rejection limit of some n <= 1024 can reject are 2**64 - 1023 and up
    for word in (_TWO64 - 1024, _TWO64 - 1023, _TWO64 - 2, _TWO64 - 1):
        data = struct.pack(">4Q", 5, word, 7, 9)
        out = ["a", "b", "c", "d", "e"]
        assert not shuffle._permute(out, data)
        assert out == ["a", "b", "c", "d", "e"]
    # a word with five 0xFF bytes first is accepted and used as it is
    data = struct.pack(">4Q", 0xFFFFFFFFFF000000, 1, 2, 3)
    out = ["a", "b", "c", "d", "e"]
    assert shuffle._permute(out, data)
    assert out == _fisher_yates(["a", "b", "c", "d", "e"], [0xFFFFFFFFFF000000, 1, 2, 3])


def test_permute_declines_more_than_1024_cards_and_short_streams() -> None:
    cards = [f"c{i}" for i in range(1025)]
    data = bytes(32 * 257)
    assert not shuffle._permute(list(cards), data)
    assert not shuffle._permute(["a", "b", "c", "d", "e", "f"], bytes(32))  # 5 words due


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.integers(2, 120))
def test_shuffled_is_the_reference_for_any_seed(seed: str, size: int) -> None:
    cards = [f"c{i}" for i in range(size)]
    assert shuffle.shuffled(cards, seed) == _reference_shuffle(cards, seed)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 31, 32, 33, 64, 1023, 1024, 1025, 1026])
def test_shuffle_on_both_sides_of_the_one_test_limit(size: int) -> None:
    # up to 1,024 cards one max() of the words decides that none is rejected; past it the
    # word-by-word loop runs: both give the algorithm's order
    cards = [f"c{i}" for i in range(size)]
    for seed in ("", "a", "maumau", "é/reshuffle/3", "0" * 64):
        assert shuffled(cards, seed) == _reference_shuffle(cards, seed)


def test_the_one_test_limit_is_below_every_rejection_limit() -> None:
    # a word below 2**64 - 1024 is accepted for every n <= 1024 (the fast path's premise)
    safe = 2**64 - 1024
    assert all(safe <= 2**64 - (2**64 % n) for n in range(2, 1025))


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
