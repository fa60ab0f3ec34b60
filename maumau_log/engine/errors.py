"""The engine's exception and its message helpers (STYLE.md habit 2).

Every check that fails raises :class:`RuleViolation` through :func:`fail`, with a stable code
(:mod:`maumau_log.violations`), the rule it comes from (a RULES.md section, a PRESETS.md
ruling, an option or a FORMAT.md convention), a plain message and what was legal there.
Messages are built only when a check fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NoReturn


class RuleViolation(Exception):
    """An event the rules do not allow (python-chess ``IllegalMoveError`` style).

    Attributes:
        code: the stable violation code (``violations.CODES``).
        rule: where the rule comes from, e.g. ``"option draw_answer; RULES.md 2"``.
        message: a plain-language explanation naming the cards and players.
        expected: what was legal there instead (None when not meaningful).
    """

    def __init__(self, code: str, message: str, rule: str, expected: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.rule = rule
        self.expected = expected


Problem = tuple[str, str, str]
"""Why an action is not legal: ``(code, message, rule)``; the raiser adds what was legal."""

Refusal = tuple[str, str, str, str | None]
"""Why a player may not act now: ``(code, message, rule, expected)``; ``expected`` is what
must come instead, ``""`` for nothing to say, or None for the legal actions (the raiser
asks :func:`.actions.describe_legal`)."""


def fail(code: str, message: str, rule: str, expected: str | None = None) -> NoReturn:
    """Raise :class:`RuleViolation` (never returns).

    Args:
        code: the violation code; message: the explanation; rule: its source;
        expected: what was legal instead, or None.
    Raises:
        RuleViolation: always.
    """
    raise RuleViolation(code, message, rule, expected)


def number_text(value: int) -> str:
    """An integer from a log as a message may echo it: a count or ``seq`` of hundreds of
    digits is shown by its first 12 and last 4 digits and its length (a message stays
    bounded whatever the log holds), never in full (Python refuses to turn an int of more
    than 4,300 digits into text).

    >>> number_text(12), number_text(10**30)
    ('12', '100000000000...0000 (31 digits)')
    """
    if -(10**24) < value < 10**24:
        return str(value)
    digits = len(str(abs(value))) if value.bit_length() < 14_000 else None
    if digits is None:  # beyond the int-to-text limit: the digits counted from the bits
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    text = str(value)
    return f"{text[:12]}...{text[-4:]} ({digits} digits)"


def what(verb: str, cards: list[str] | None) -> str:
    """``"plays 7H 7D"`` for messages (built only when a check fails)."""
    return f"{verb} {' '.join(cards)}" if cards else verb


def cards_text(cards: Iterable[str]) -> str:
    """Cards as a message shows them: ``"H7, SQ"``, or ``"no cards"``, never a list's repr.

    >>> cards_text(["7H", "QS"]), cards_text([])
    ('7H, QS', 'no cards')
    """
    return ", ".join(cards) or "no cards"


def per_player(values: Mapping[str, object]) -> str:
    """A value per player as a message shows it: ``"ana 10, ben 0"``, never a dict's repr.

    >>> per_player({"ana": 10, "ben": 0}), per_player({})
    ('ana 10, ben 0', 'none')
    """
    return ", ".join(f"{p} {v}" for p, v in values.items()) or "none"


def quoted(text: object) -> str:
    """A value from the log that is not what the rules expect (an unknown player, card or
    reason), in double quotes so an empty or spaced one shows; a missing one is "none".

    >>> quoted("zed"), quoted(""), quoted(None)
    ('"zed"', '""', 'none')
    """
    return "none" if text is None else f'"{text}"'
