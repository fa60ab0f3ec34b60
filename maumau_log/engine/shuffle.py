"""Provably fair shuffles: ``maumau-sha256-fy/1`` (docs/reference/shuffle.md; FORMAT.md
Events (game.shuffle)).

A shuffle any server can implement in any language, so that a player can check after the
round that the deal was not rigged:

1. Before the round the server publishes ``commitment = hex(SHA-256(seed))``, where ``seed``
   is a secret string (recommended: 64 hex digits from a cryptographic generator); after
   the round it reveals ``seed``. The header's ``shuffle`` object carries ``algorithm``
   (``"maumau-sha256-fy/1"``), ``seed`` and ``commitment``.
2. Random numbers: the byte stream ``SHA-256(S || u64be(0)) || SHA-256(S || u64be(1)) || ...``
   where ``S`` is the seed's UTF-8 bytes and ``u64be(k)`` the counter as 8 big-endian bytes;
   it is read 8 bytes at a time as big-endian unsigned 64-bit integers ``x``.
3. A uniform integer in ``[0, n)``: ``limit = 2**64 - (2**64 mod n)``; draw ``x`` until
   ``x < limit`` (rejection sampling: no modulo bias), then return ``x mod n``.
4. Fisher-Yates: for ``i`` from ``len - 1`` down to 1, ``j = uniform(i + 1)``, swap items
   ``i`` and ``j``. The input is the pack in canonical order (:func:`maumau_log.cards.make_pack`:
   pack by pack, suits C D H S, ranks low to high, jokers last); the output lists the
   stock top first.
5. The deal takes cards from the top: one card at a time to each player in seat order
   starting left of the dealer, round after round, until each hand holds its size (a
   player with a smaller hand, as under ``loser_hand_shrink``, is passed over once full);
   the next card is the starter (a card ``starter_redeal`` sends back goes to the bottom of
   the stock and the next one is turned); the rest is the stock, top first.
6. The k-th reshuffle of the round (k = 1, 2, ...) shuffles the discard pile but its top
   card, taken bottom first, with the seed ``seed + "/reshuffle/" + str(k)``.

Test vectors are in ``schemas/shuffle-vectors.json``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..cards import Card

try:  # CPython's own SHA-256, the function ``hashlib.sha256`` falls back to: the same
    # digests, as fast or faster for a seed or a 40-byte block (timeit); hashlib would
    # load OpenSSL, 10 million instructions of every validate's start-up
    from _sha256 import sha256
except ImportError:  # pragma: no cover - another Python (3.12 names it ``_sha2``)
    from hashlib import sha256

ALGORITHM: Final = "maumau-sha256-fy/1"
_TWO64: Final = 1 << 64
_FOUR_WORDS: Final = struct.Struct(">4Q")
_SAFE_SIZE: Final = 1024
_SAFE: Final = _TWO64 - _SAFE_SIZE
"""Below the rejection limit of step 3 for every ``n <= _SAFE_SIZE``: the limit is
``2**64 - (2**64 mod n)`` and ``2**64 mod n < n``, so a word below this is never rejected."""
_SHA256: Final = sha256
_Hash = Any  # a hashlib object (no public type for it)
# the counters of step 2 as 8 big-endian bytes, for the first blocks (a pack or two)
_COUNTERS: Final = [k.to_bytes(8, "big") for k in range(64)]
# the unpackers of step 2 for 0 .. 63 blocks of four words
_UNPACK: Final = [struct.Struct(f">{4 * b}Q") for b in range(64)]
_RUN: Final = _SAFE.to_bytes(8, "big")[:6]
"""How every word from :data:`_SAFE` (``2**64 - 1024``) up begins: six 0xFF bytes
(:func:`_permute`'s test)."""


_LAST: Final[list[tuple[bytes, _Hash]]] = []
"""The last seed :func:`commitment` hashed, with its SHA-256 object (one entry, replaced
whole): the replay checks a game's commitment, then shuffles with the same seed, whose
blocks start from that state (:func:`_stream`: one SHA-256 object fewer per game). Only
the speed depends on it."""


def commitment(seed: str) -> str:
    """The commitment a server publishes before the round: hex SHA-256 of the seed's UTF-8.

    Args:
        seed: the seed string.
    Returns:
        64 lower-case hex digits.
    """
    base = seed.encode("utf-8")
    h = _SHA256(base)
    if _LAST:
        _LAST[0] = (base, h)
    else:
        _LAST.append((base, h))
    digest: str = h.hexdigest()
    return digest


def shuffled(cards: Sequence[Card], seed: str) -> list[Card]:
    """Shuffle ``cards`` with the seed (steps 2-4 above).

    Args:
        cards: the input order (the canonical pack, or a discard pile bottom first).
        seed: the seed string.
    Returns:
        A new list, top card first.
    """
    out = list(cards)
    size = len(out)
    if size < 2:
        return out
    base = seed.encode("utf-8")
    # the words the shuffle needs when none is rejected (nearly always: a rejection has
    # odds below n / 2**64), hashed in one go; the loop below, word by word, only when
    # one may be rejected (the same stream, read the same way)
    blocks = (size + 2) // 4
    data = _stream(base, 0, blocks)
    if _permute(out, data):
        return out
    words = _unpack(data, blocks)
    counter = blocks
    pos = 0
    for i in range(size - 1, 0, -1):
        n = i + 1
        limit = _TWO64 - (_TWO64 % n)
        while True:
            if pos == len(words):  # the next SHA-256 block: four 64-bit words
                words = _FOUR_WORDS.unpack(sha256(base + counter.to_bytes(8, "big")).digest())
                counter += 1
                pos = 0
            x = words[pos]
            pos += 1
            if x < limit:
                break
        j = x % n
        out[i], out[j] = out[j], out[i]
    return out


def _permute(out: list[Card], data: bytes) -> bool:
    """Steps 3-4 with the words of ``data`` (step 2's stream, whole blocks) when no word
    of it can be rejected: then ``out`` is shuffled in place and True is returned; else
    False and ``out`` is unchanged (the caller reads the stream word by word).

    No word is rejected when ``len(out) <= 1024`` and no word reaches ``2**64 - 1024``
    (below every rejection limit ``2**64 - (2**64 mod n)``, ``n <= 1024``); a word that
    does begins with six 0xFF bytes, so ``data`` without six 0xFF bytes in a row has
    none: one substring search of the bytes (where a ``max()`` of the words is a generic
    call from the compiled build). A run across two words only sends
    the shuffle to the word-by-word loop, which reads the same stream.
    """
    size = len(out)
    if size > _SAFE_SIZE or len(data) < 8 * (size - 1) or _RUN in data:
        return False
    words = _unpack(data, len(data) // 32)
    # words may run past the last i; no strict= (mypyc compiles a plain zip as a loop)
    for i, x in zip(range(size - 1, 0, -1), words):  # noqa: B905
        j = x % (i + 1)  # n = i + 1
        out[i], out[j] = out[j], out[i]
    return True


def _stream(base: bytes, first: int, blocks: int) -> bytes:
    """Blocks ``first`` to ``first + blocks - 1`` of step 2's stream (32 bytes each)."""
    if blocks <= 0:
        return b""
    # the seed's bytes hashed once, each block a copy of that state fed its counter: the
    # same digests as SHA-256(S || u64be(k)), without building a new SHA-256 object per
    # block (a copy of the state costs less than hashing the seed again)
    last = _LAST[0] if _LAST else None
    prefix = last[1] if last is not None and last[0] == base else _SHA256(base)
    counters = _COUNTERS
    parts: list[bytes] = []
    for k in range(first, first + blocks):
        h = prefix.copy()
        h.update(counters[k] if k < 64 else k.to_bytes(8, "big"))
        parts.append(h.digest())
    return b"".join(parts)


def _unpack(data: bytes, blocks: int) -> tuple[int, ...]:
    """The unsigned 64-bit words (step 2) of ``blocks`` blocks of the stream."""
    if blocks < len(_UNPACK):
        return _UNPACK[blocks].unpack(data)
    return struct.unpack(f">{4 * blocks}Q", data)


def _words(base: bytes, first: int, blocks: int) -> tuple[int, ...]:
    """The 64-bit words of SHA-256 blocks ``first`` to ``first + blocks - 1`` (step 2).

    Not used by the shuffle itself (:func:`shuffled` reads :func:`_stream` and
    :func:`_unpack`): the tests compare it with SHA-256(S || u64be(k)) computed directly."""
    if blocks <= 0:
        return ()
    return _unpack(_stream(base, first, blocks), blocks)


def reshuffle_seed(seed: str, k: int) -> str:
    """The seed of the k-th reshuffle of a round (k from 1)."""
    return f"{seed}/reshuffle/{k}"


def deal(
    order: Sequence[Card],
    players: Sequence[str],
    dealer: int,
    sizes: Mapping[str, int],
    redeal: frozenset[Card] | set[Card] = frozenset(),
) -> tuple[dict[str, list[Card]], Card, list[Card]]:
    """Deal from a shuffled pack (step 5 above).

    Args:
        order: the shuffled pack, top first.
        players: seat order.
        dealer: the dealer's seat.
        sizes: cards due to each player.
        redeal: cards that go back to the bottom when turned as the starter.
    Returns:
        ``(hands, starter, stock)``: hands in the order dealt, the starter card, the stock
        top first.
    Raises:
        ValueError: the pack is too small for the deal.
    """
    cards = list(order)
    pos = 0
    n = len(players)
    seats = [players[(dealer + 1 + i) % n] for i in range(n)]
    hands: dict[str, list[Card]]
    due = {sizes.get(p, 0) for p in seats}
    if len(due) == 1 and n * (k := due.pop()) <= len(cards):
        # every hand of one size: round after round, seat i takes cards i, i + n, ...
        pos = n * k
        hands = {p: cards[i:pos:n] for i, p in enumerate(seats)}
        seats = []  # dealt
    else:
        hands = {p: [] for p in seats}
    for _ in range(max(sizes.values(), default=0) if seats else 0):
        for p in seats:
            if len(hands[p]) < sizes.get(p, 0):
                if pos >= len(cards):
                    raise ValueError("the pack is too small for this deal")
                hands[p].append(cards[pos])
                pos += 1
    stock = cards[pos:]
    if not stock:
        raise ValueError("no card left to turn as the starter")
    starter = stock.pop(0)
    turns = 0
    while starter in redeal and stock and turns < len(cards):
        stock.append(starter)
        starter = stock.pop(0)
        turns += 1
    return hands, starter, stock
