"""What the fuzzers share: how many examples, the hostile pieces of text, the base games.

``MAUMAU_FUZZ_EXAMPLES`` sets the examples per fuzzer (default 30: a few seconds each in
CI); by hand ``MAUMAU_FUZZ_EXAMPLES=5000 pytest tests/fuzz -p no:randomly`` runs longer
(tests/fuzz/README.md).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import msgspec
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import encode_event
from maumau_log.rules import PRESET_NAMES, resolve

EXAMPLES = int(os.environ.get("MAUMAU_FUZZ_EXAMPLES", "30"))
"""Examples per fuzzer."""

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
"""The fuzzers' hypothesis settings."""

BIG = "9" * 5000  # more digits than Python turns into an int (4,300)
HOSTILE_TEXT: list[str] = [
    '"\\ud800"',  # a lone high surrogate escape (json reads it, msgspec refuses it)
    '"\\udc00"',
    '"\\ud83d\\ude00"',  # a valid pair
    "\ud800",  # a lone surrogate itself (from an argument or a name that is not UTF-8)
    "\udcff",
    BIG,
    "-" + BIG,
    "9" * 400,
    "1e400",
    "NaN",
    "[" * 3000 + "]" * 3000,
    '{"a":' * 1500 + "1" + "}" * 1500,
    "[" * 900 + "]" * 900,
    "\x00",
    "\ufeff",
    "\r",
    "\u202e",
    '"\\u0000"',
    '"' + "x" * 3000 + '"',
    "{",
    "}",
    '"',
    "#",
    "(",
    ")",
    "@",
    "?",
    "?0",
    "0",
    "-1",
    ":",
    "game",
    '"type":"game"',
]
"""Pieces of text parsers have choked on: lone surrogates, numbers of thousands of digits,
JSON nested thousands deep, NUL, BOM, CR, bidi overrides, brackets and quotes alone."""

hostile_text = st.sampled_from(HOSTILE_TEXT)


def splice(text: str, at: int, piece: str, cut: int) -> str:
    """``text`` with ``piece`` put in at ``at`` (both modulo the length) and ``cut``
    characters after it removed."""
    at = at % (len(text) + 1)
    return text[:at] + piece + text[at + cut :]


@cache
def base_games(preset: str, seed: int = 3, games: int = 3) -> list[list[dict[str, Any]]]:
    """Simulated games of a preset (2 to 4 players by the seed), each a list of event
    dicts as a log line holds them."""
    players = 2 + seed % 3
    rules = resolve(preset)
    need = rules.hand_size_for(players) * players + 1
    if need > len(rules.pack):
        players = 2
    return [
        [msgspec.json.decode(encode_event(e)) for e in g]
        for g in simulate(preset, players, games, seed, id_prefix=f"fz-{preset}")
    ]


presets = st.sampled_from(PRESET_NAMES)
