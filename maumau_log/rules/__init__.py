"""Rulesets as data: options, presets, ruleset files (RULESETS.md, PRESETS.md).

A :class:`Ruleset` is frozen data saying what every card does. It is resolved in layers,
each overriding the one before: the defaults, the named preset
(``maumau_log/presets/<name>.toml``), the log header's ``options``, then a TOML ruleset file
given with ``--rules FILE``. Every layer is checked against ``schemas/options.schema.json``;
an unknown preset or option, or a value of the wrong type, raises a located
:class:`RulesetError`.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections import Counter
from collections.abc import Mapping
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from ..cards import JOKER, Card, Rank, Suit, face_value, make_pack, rank_of, suit_of
from ..events.schema import schema_errors

PRESET_NAMES: tuple[str, ...] = (
    "standard", "classic", "online", "online-penalty", "prsi", "pesten", "puque", "russian",
    "faraon", "neuner", "serbian", "crazy-eights",
)  # fmt: skip
"""The presets of RULESETS.md, in its order."""

UNSUPPORTED_PRESETS: dict[str, str] = {
    "tschau-sepp": "Tschau Sepp (RULES.md 10) is listed but its rules are not written down yet",
}

ALIASES: dict[str, str] = {
    "mau-mau": "standard", "maumau": "standard", "prší": "prsi", "farao": "faraon",
    "faraón": "faraon", "crazy_eights": "crazy-eights", "crazyeights": "crazy-eights",
    "pharaoh": "russian", "101": "russian", "online_penalty": "online-penalty",
}  # fmt: skip
"""Other spellings of preset names, resolved like python-chess's ``find_variant``."""

_NULLABLE = ("call_last_card", "call_last_wild", "call_going_out", "max_plays", "match_target",
             "match_rounds")  # fmt: skip


class RulesetError(ValueError):
    """A preset, option or ruleset file that cannot be used; the message says which and why.

    Attributes:
        code: ``"unknown_ruleset"`` (no such preset) or ``"bad_option"`` (unknown option or
            wrong value).
    """

    def __init__(self, message: str, code: str = "bad_option") -> None:
        super().__init__(message)
        self.code = code


class CardRule(NamedTuple):
    """What one card code does under a ruleset (derived from the options, RULES.md terms)."""

    rank: Rank
    suit: Suit | None
    wild: bool
    draw: int
    draw_previous: int
    skip: bool
    reverse: bool
    play_again: bool
    cover: bool
    no_finish: bool
    cancel: bool
    redeal: bool
    points: int


class Ruleset(msgspec.Struct, frozen=True, dict=True):
    """A resolved ruleset: every core option of RULESETS.md with its value.

    Build one with :func:`resolve`; the fields mirror the option names exactly. Lists of
    cards hold ranks (``"7"``), codes (``"KS"``) or ``"X"``; tables map those to numbers.
    A frozen msgspec struct (``dict=True`` holds the derived tables, made on first use):
    made as a class in C, where a frozen dataclass of these 49 fields compiled its
    generated methods at every start-up (19 million instructions, 4.5% of a two-game
    ``validate``). ``msgspec.structs.replace`` makes a changed copy.
    """

    preset: str
    ranks: tuple[Rank, ...]
    packs: int
    jokers: int
    hand_size: int | Mapping[str, int]
    first_player: str
    starter_effect: bool
    wild_starter: str
    starter_redeal: tuple[str, ...]
    wild: tuple[str, ...]
    wild_on_wild: bool
    wild_names_suit: bool
    wild_on_pending: bool
    draw: Mapping[str, int]
    draw_previous: Mapping[str, int]
    draw_answer: str
    draw_cancel: tuple[str, ...]
    draw_ends_turn: bool
    skip: tuple[str, ...]
    skip_answer: bool
    reverse: tuple[str, ...]
    reverse_two_players: str
    play_again: tuple[str, ...]
    cover: tuple[str, ...]
    cover_draw: str
    cover_match: str
    no_finish_on: tuple[str, ...]
    voluntary_draw: bool
    play_after_draw: str
    max_draws: int
    empty_stock: str
    multi_play: str
    multi_play_any_suit: tuple[str, ...]
    jump_in: bool
    call_last_card: str | None
    call_last_wild: str | None
    call_going_out: str | None
    call_penalty: int
    call_penalty_ends_turn: bool
    max_plays: int | None
    blocked_passes: str
    emptying_draw_counts_as_pass: bool
    loser_hand_shrink: bool
    scoring: str
    points: Mapping[str, int]
    wild_finish_multiplier: int
    match_target: int | None
    match_rounds: int | None
    _key: str = ""

    # -- derived tables -------------------------------------------------------------------

    @cached_property
    def pack(self) -> tuple[Card, ...]:
        """The whole pack in canonical order (``cards.make_pack``)."""
        return tuple(make_pack(self.ranks, self.packs, self.jokers))

    @cached_property
    def cards(self) -> dict[Card, CardRule]:
        """Every distinct card code of the pack to what it does (this ruleset's own dict;
        rulesets that differ only in options no card depends on, such as the players or
        the turn limit, share the work of making it)."""
        key = (
            self.pack, self.wild, _items(self.draw), _items(self.draw_previous), self.skip,
            self.reverse, self.play_again, self.cover, self.no_finish_on, self.draw_cancel,
            self.starter_redeal, _items(self.points),
        )  # fmt: skip
        try:
            return dict(_kept_card_table(*key))
        except TypeError:  # a list where a tuple belongs (a Ruleset made by hand): not kept
            return _card_table(*key)

    @cached_property
    def pack_counts(self) -> Counter[Card]:
        """The pack as a multiset (read-only: copy before changing it)."""
        return Counter(self.pack)

    @cached_property
    def redeal_cards(self) -> frozenset[Card]:
        """The card codes ``starter_redeal`` sends back into the stock."""
        return frozenset(c for c, info in self.cards.items() if info.redeal)

    def hand_size_for(self, players: int) -> int:
        """Cards dealt to each player at a table of ``players`` (RULESETS.md ``hand_size``)."""
        if isinstance(self.hand_size, int):
            return self.hand_size
        return int(self.hand_size.get(str(players), self.hand_size["default"]))

    def options(self) -> dict[str, Any]:
        """Every option with its value, JSON-ready (lists, not tuples; null for none)."""
        out: dict[str, Any] = {}
        for k in self.__struct_fields__:
            if k in ("preset", "_key"):
                continue
            v = getattr(self, k)  # a copy of a list or a table, as dataclasses' asdict made
            out[k] = list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, dict) else v
        return out

    @property
    def key(self) -> str:
        """A stable JSON text of the preset and every option (the basis of an options hash)."""
        return self._key

    def unsupported(self) -> list[str]:
        """Option values this engine version cannot replay yet, each with the option name
        (none at present; the replay reports such a game ``unsupported_rule``)."""
        out: list[str] = []
        return out


def _items(table: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
    """A card table as a hashable key (its items, sorted)."""
    return tuple(sorted(table.items()))


def _card_table(
    pack: tuple[Card, ...], wild: tuple[str, ...], draw: tuple[tuple[str, int], ...],
    draw_previous: tuple[tuple[str, int], ...], skip: tuple[str, ...],
    reverse: tuple[str, ...], play_again: tuple[str, ...], cover: tuple[str, ...],
    no_finish_on: tuple[str, ...], draw_cancel: tuple[str, ...],
    starter_redeal: tuple[str, ...], points: tuple[tuple[str, int], ...],
) -> dict[Card, CardRule]:  # fmt: skip
    """:attr:`Ruleset.cards` from the options a card's rule depends on."""
    draws, previous, scores = dict(draw), dict(draw_previous), dict(points)
    table: dict[Card, CardRule] = {}
    for card in pack:
        if card in table:
            continue
        table[card] = CardRule(
            rank=rank_of(card),
            suit=suit_of(card),
            wild=matches(card, wild),
            draw=lookup(card, draws),
            draw_previous=lookup(card, previous),
            skip=matches(card, skip),
            reverse=matches(card, reverse),
            play_again=matches(card, play_again),
            cover=matches(card, cover),
            no_finish=matches(card, no_finish_on),
            cancel=matches(card, draw_cancel),
            redeal=matches(card, starter_redeal),
            points=card_points(card, scores),
        )
    return table


_kept_card_table = lru_cache(maxsize=1024)(_card_table)
""":func:`_card_table` kept by its arguments (a kept table is never changed: each ruleset
gets a copy)."""


def matches(card: Card, specs: tuple[str, ...] | Mapping[str, int]) -> bool:
    """True when ``card`` is named in ``specs`` by its code, its rank, or ``"X"`` (jokers)."""
    return card in specs or rank_of(card) in specs


def lookup(card: Card, table: Mapping[str, int]) -> int:
    """The number a card table gives ``card`` (its code first, then its rank), or 0."""
    if card in table:
        return table[card]
    return table.get(rank_of(card), 0)


def card_points(card: Card, points: Mapping[str, int]) -> int:
    """Points of a card left in hand: the ``points`` table (code, then rank), else the face
    value of a number card, else 0 (court cards and jokers not listed; PRESETS.md ruling 13).
    """
    if card in points:
        return points[card]
    rank = rank_of(card)
    if rank in points:
        return points[rank]
    return 0 if rank == JOKER else face_value(rank)


# -- loading ------------------------------------------------------------------------------


_PRESETS = Path(__file__).parent / "presets"


def _presets_dir() -> Path:
    """The packaged presets' folder (the package's own folder, as
    ``importlib.resources.files`` finds it for an installed or editable package, without
    importing ``importlib.resources`` and its readers: start-up)."""
    return _PRESETS


def _check_options(options: Any, where: str) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise RulesetError(f"{where}: options must be an object, not {type(options).__name__}")
    problems = schema_errors("options.schema.json", options)
    if problems:
        raise RulesetError(f"{where}: " + "; ".join(problems[:5]))
    huge = _out_of_range(options)
    if huge is not None:
        path, value = huge
        digits = str(abs(value))
        shown = digits if len(digits) <= 24 else f"{digits[:12]}...({len(digits)} digits)"
        raise RulesetError(
            f"{where}.{path}: {'-' if value < 0 else ''}{shown} is out of range "
            f"(a number in options is at most {OPTION_INT_MAX:,})"
        )
    return {k: (None if k in _NULLABLE and v == "none" else v) for k, v in options.items()}


OPTION_INT_MAX = 2**31 - 1
"""The largest number an option may hold (a ``hand_size`` of 10^30 is
``bad_option``, not a deal fault; smaller values too big for the pack stay deal faults)."""


def _out_of_range(value: Any, path: str = "") -> tuple[str, int] | None:
    """The first integer in ``value`` (at any depth) beyond +-:data:`OPTION_INT_MAX`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (path, value) if abs(value) > OPTION_INT_MAX else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for k, v in items:
        found = _out_of_range(v, f"{path}.{k}" if path else str(k))
        if found is not None:
            return found
    return None


MAX_RULES_FILE_BYTES = 1 << 20
"""The largest ruleset file ``--rules`` reads (1 MiB; every option of every preset in one
file is under 4 KiB): a larger one, or an endless one such as ``/dev/zero``, is refused."""


def read_ruleset_file(path: str | Path) -> dict[str, Any]:
    """Read a TOML ruleset file (``schemas/ruleset-file.schema.json``) and return its options.

    Args:
        path: the file; its ``[options]`` table overrides the preset and the log header.
    Returns:
        The options, checked (``"none"`` turned into None where an option may be null).
    Raises:
        RulesetError: unreadable file, larger than :data:`MAX_RULES_FILE_BYTES`, TOML
            syntax error, unknown option or wrong type; the message names the file. A UTF-8
            byte order mark at the start is skipped.
    """
    try:
        with open(path, "rb") as fh:  # bounded: --rules /dev/zero must not read forever
            raw = fh.read(MAX_RULES_FILE_BYTES + 1)
    except OSError as exc:
        raise RulesetError(f"{path}: cannot read the ruleset file: {exc.strerror}") from exc
    if len(raw) > MAX_RULES_FILE_BYTES:
        raise RulesetError(
            f"{path}: larger than {MAX_RULES_FILE_BYTES // 2**20} MiB, the limit of a "
            "ruleset file (it holds one [options] table)"
        )
    try:
        # a UTF-8 byte order mark (some Windows editors write one) is not TOML: skipped
        data = tomllib.loads(raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(f"{path}: not valid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8 text
        raise RulesetError(
            f"{path}: not valid TOML: not UTF-8 text (byte {exc.start}: {exc.reason})"
        ) from None
    except ValueError:  # tomllib's int(): more digits than Python converts (4,300)
        raise RulesetError(
            f"{path}: not valid TOML: a number of more than {sys.get_int_max_str_digits():,} digits"
        ) from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise RulesetError(f"{path}: not valid TOML: nested too deeply to read") from None
    try:
        problems = schema_errors("ruleset-file.schema.json", data)
        if problems:
            raise RulesetError(f"{path}: " + "; ".join(problems[:5]))
        return _check_options(data["options"], str(path))
    except RecursionError:  # (nested just deep enough for tomllib, too deep to check)
        raise RulesetError(f"{path}: the ruleset file is nested too deeply to check") from None


@cache
def _preset_options(name: str) -> dict[str, Any]:
    """A packaged preset's options. The package's own files are not checked against the
    JSON Schema at run time (``tests/test_schema.py`` checks every one, and
    ``tests/test_replay_driver.py`` that this reading equals :func:`read_ruleset_file`'s):
    a replay of logs without header options then never imports jsonschema."""
    with open(_presets_dir() / f"{name}.toml", "rb") as fh:
        options: dict[str, Any] = tomllib.load(fh)["options"]
    return {k: (None if k in _NULLABLE and v == "none" else v) for k, v in options.items()}


def preset_info(name: str) -> dict[str, Any]:
    """Return a preset file's ``name``, ``section``, ``description`` and ``notes``."""
    with open(_presets_dir() / f"{find_preset(name)}.toml", "rb") as fh:
        data = tomllib.load(fh)
    return {k: data.get(k) for k in ("name", "section", "description", "notes")}


def find_preset(name: str) -> str:
    """Resolve a preset name or alias (case-insensitive) to its canonical name.

    Raises:
        RulesetError: code ``unknown_ruleset`` for a name that is no preset (or one that is
            listed but unsupported, such as ``tschau-sepp``).
    """
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key in PRESET_NAMES:
        return key
    if key in UNSUPPORTED_PRESETS:
        raise RulesetError(f"preset {name!r}: {UNSUPPORTED_PRESETS[key]}", "unknown_ruleset")
    raise RulesetError(
        f"unknown preset {name!r}; the presets are: {', '.join(PRESET_NAMES)}", "unknown_ruleset"
    )


def resolve(
    preset: str,
    header_options: Mapping[str, Any] | None = None,
    file_options: Mapping[str, Any] | None = None,
) -> Ruleset:
    """Resolve a ruleset: defaults, then the preset, the header's options, the file's options.

    Args:
        preset: a preset name or alias (``game.ruleset``).
        header_options: the log header's ``options`` object, or None.
        file_options: options from :func:`read_ruleset_file`, or None.
    Returns:
        The frozen :class:`Ruleset` (cached: equal inputs give the same object).
    Raises:
        RulesetError: unknown preset (code ``unknown_ruleset``), unknown option or wrong
            value type (code ``bad_option``).
    """
    key = json.dumps([preset, header_options, file_options], sort_keys=True, default=str)
    return _resolve_cached(key)


@cache
def _resolve_cached(key: str) -> Ruleset:
    preset, header_options, file_options = json.loads(key)
    name = find_preset(preset)
    merged: dict[str, Any] = dict(_preset_options("defaults"))
    merged.update(_preset_options(name))
    if header_options is not None:
        merged.update(_check_options(header_options, "game.options"))
    if file_options:
        merged.update(file_options)
    values: dict[str, Any] = {}
    for k, v in merged.items():
        if isinstance(v, list):
            values[k] = tuple(v)
        else:
            values[k] = v
    canonical_key = json.dumps({"preset": name, **merged}, sort_keys=True)
    ruleset = Ruleset(preset=name, _key=canonical_key, **values)
    return ruleset


LABEL_OPTIONS_WIDTH = 48
"""Characters of changed options a :func:`variant_label` spells out before it sums up the
rest (``+N more``) and adds the variant's hash to stay unique."""


def _option_text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + " ".join(_option_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(f"{k}:{_option_text(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def variant_label(preset: str, options_json: str) -> str:
    """How a report names a ruleset: the preset, and the options that differ from it.

    A game played by the preset's own options is ``"classic"``; a variant names what it
    changes, ``"classic (hand_size=6)"``, so it never reads like the preset (a hash label
    such as ``classic#73a525`` looked like the preset and like every other variant).
    When the changes are longer than :data:`LABEL_OPTIONS_WIDTH` characters the label
    names those that fit, the count of the rest and the variant's hash, the first 6 hex
    digits of ``games.options_hash``: ``"classic (hand_size=6, +3 more; variant 73a525)"``.

    Args:
        preset: the canonical preset name (``games`` ``ruleset``).
        options_json: the game's effective options as JSON (``games.options``).
    Returns:
        The label; ``preset`` itself for a preset unknown to this version or options that
        are no JSON object.
    """
    return _variant_label(preset, options_json)


@cache
def _variant_label(preset: str, options_json: str) -> str:
    try:
        options = json.loads(options_json)
        base = resolve(preset).options()
    except (RulesetError, ValueError, TypeError):
        return preset
    if not isinstance(options, dict):
        return preset
    changed = [
        f"{k}={_option_text(v)}"
        for k, v in sorted(options.items())
        if k not in base or base[k] != v
    ]
    changed += [f"{k}=default" for k in sorted(base) if k not in options]
    if not changed:
        return preset
    shown: list[str] = []
    for text in changed:
        if shown and len(", ".join([*shown, text])) > LABEL_OPTIONS_WIDTH:
            break
        shown.append(text)
    if len(shown) == len(changed):
        return f"{preset} ({', '.join(shown)})"
    import hashlib  # only for a label this long (hashlib loads OpenSSL: start-up)

    digest = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:6]
    return f"{preset} ({', '.join(shown)}, +{len(changed) - len(shown)} more; variant {digest})"
