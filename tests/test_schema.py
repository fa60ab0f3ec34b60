"""The JSON Schemas under ``schemas/`` against the examples, the msgspec decoder and presets.

``schemas/`` is the normative form of FORMAT.md; :mod:`maumau_log.events` is the fast decoder.
These tests keep the two honest: on every line both must give the same verdict, except for
the constraints listed in ``SCHEMA_ONLY`` (the decoder cannot see them; the engine checks
them) and ``DECODER_ONLY_CASES`` (JSON Schema cannot see them).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.events import EVENT_TYPES, decode_event
from maumau_log.events.schema import (
    EVENT_SCHEMA_NAMES,
    explain_event,
    load_schema,
    schema_dir,
    schema_errors,
    validator,
)
from maumau_log.rules import PRESET_NAMES

EXAMPLES = sorted(Path("/work/shared/examples").glob("*.jsonl"))
PRESETS_DIR = Path(__file__).resolve().parent.parent / "maumau_log" / "rules" / "presets"
PRESETS = sorted(PRESETS_DIR.glob("*.toml"))

# Constraints only the schemas express. msgspec's event structs have no length, minimum,
# uniqueness or constant checks, so a line breaking only these decodes fine; the engine
# reports them instead. Key: (schema file, JSON pointer of the keyword's schema, keyword).
# ``test_schema_only_list_is_complete`` walks the schema files so this list cannot go stale.
SCHEMA_ONLY: dict[tuple[str, str, str], str] = {
    ("defs.schema.json", "/$defs/card", "minLength"): "card codes are non-empty",
    ("defs.schema.json", "/$defs/player", "minLength"): "player ids are non-empty",
    ("defs.schema.json", "/$defs/seq", "minimum"): "seq >= 0",
    ("defs.schema.json", "/$defs/hand_count/properties/count", "minimum"): "count >= 0",
    ("defs.schema.json", "/$defs/hands/propertyNames", "minLength"): "hand keys non-empty",
    ("events/game.schema.json", "/properties/format", "const"): 'format is "maumau-log/1"',
    ("events/game.schema.json", "/properties/game_id", "minLength"): "game_id non-empty",
    ("events/game.schema.json", "/properties/ruleset", "minLength"): "ruleset non-empty",
    ("events/game.schema.json", "/properties/players", "minItems"): "at least 2 players",
    ("events/game.schema.json", "/properties/players", "uniqueItems"): "players distinct",
    ("events/game.schema.json", "/properties/dealer", "minLength"): "dealer non-empty",
    ("events/game.schema.json", "/properties/match_id", "minLength"): "match_id non-empty",
    ("events/game.schema.json", "/properties/round", "minimum"): "round >= 1",
    ("events/game.schema.json", "/properties/shuffle/properties/algorithm", "type"): (
        "shuffle.algorithm is a string (the decoder reads shuffle as a free dict)"
    ),
    ("events/game.schema.json", "/properties/shuffle/properties/commitment", "type"): (
        "shuffle.commitment is a string"
    ),
    ("events/play.schema.json", "/properties/cards", "minItems"): "a play has 1+ cards",
    ("events/draw.schema.json", "/properties/count", "minimum"): "draw.count >= 0",
    ("events/mau.schema.json", "/properties/call", "minLength"): "call non-empty",
    ("events/penalty.schema.json", "/properties/reason", "minLength"): "reason non-empty",
    ("events/penalty.schema.json", "/properties/by", "minLength"): "by non-empty",
    ("events/penalty.schema.json", "/properties/count", "minimum"): "penalty.count >= 0",
    ("events/reshuffle.schema.json", "/properties/count", "minimum"): "reshuffle.count >= 0",
    ("events/round_end.schema.json", "/properties/winner", "minLength"): "winner non-empty",
    ("events/round_end.schema.json", "/properties/scores/propertyNames", "minLength"): "",
    ("events/round_end.schema.json", "/properties/hands/propertyNames", "minLength"): "",
    ("events/match_end.schema.json", "/properties/winner", "minLength"): "winner non-empty",
    ("events/match_end.schema.json", "/properties/totals/propertyNames", "minLength"): "",
    ("events/abandon.schema.json", "/properties/reason", "minLength"): "reason non-empty",
    ("events/abandon.schema.json", "/properties/player", "minLength"): "player non-empty",
}
_ONLY_KEYWORDS = {"minLength", "minItems", "uniqueItems", "minimum", "const"}

# Lines the decoder rejects and JSON Schema cannot: draft 2020-12 counts 2.0 as an integer,
# msgspec's ``int`` does not. ``explain_event`` falls back to the decoder's message for these.
DECODER_ONLY_CASES = [
    '{"type":"draw","player":"a","count":2.0}',
    '{"type":"game","format":"maumau-log/1","game_id":"g","ruleset":"classic",'
    '"players":["a","b"],"round":1.0}',
    '{"type":"pass","player":"a","seq":3.0}',
]

GAME = '"type":"game","format":"maumau-log/1","game_id":"g1","ruleset":"classic"'

# (line, valid): the schema and the decoder must both give this verdict.
AGREE_CASES: list[tuple[str, bool]] = [
    ("{" + GAME + ',"players":["ana","ben"],"dealer":"ben"}', True),
    ("{" + GAME + ',"players":["ana","ben"],"options":{"packs":2},"round":1,"meta":{}}', True),
    ("{" + GAME + ',"players":["a","b"],"shuffle":{"algorithm":"x","seed":[1]},"zz":1}', True),
    ("{" + GAME + ',"players":"ana"}', False),
    ("{" + GAME + "}", False),
    ('{"type":"game","format":"maumau-log/1","ruleset":"classic","players":["a","b"]}', False),
    ("{" + GAME.replace('"g1"', "7") + ',"players":["a","b"]}', False),
    ("{" + GAME + ',"players":["a","b"],"options":[]}', False),
    ("{" + GAME + ',"players":["a","b"],"options":null,"dealer":null}', True),
    ('{"type":"cut","player":"ana","taken":["7H"]}', True),
    ('{"type":"cut"}', False),
    ('{"type":"deal","hands":{"a":["7H","JS"],"b":{"count":3}},"starter":"10H"}', True),
    ('{"type":"deal","hands":{"a":{"count":3,"seen":true}},"starter":"10H","stock":[]}', True),
    ('{"type":"deal","hands":{"a":{"count":"3"}},"starter":"10H"}', False),
    ('{"type":"deal","hands":{"a":{}},"starter":"10H"}', False),
    ('{"type":"deal","hands":{"a":"7H"},"starter":"10H"}', False),
    ('{"type":"deal","hands":{"a":[]}}', False),
    ('{"type":"play","player":"ana","cards":["7H"],"t":1700000000000,"seq":2}', True),
    ('{"type":"play","player":"ana","cards":["7H"],"t":"2024-05-01T12:00:00Z"}', True),
    ('{"type":"play","player":"ana","cards":["7H","7S"],"jump_in":true,"extra":{"x":1}}', True),
    ('{"type":"play","player":"ana","cards":"7H"}', False),
    ('{"type":"play","player":"ana","cards":[7]}', False),
    ('{"type":"play","player":"ana","cards":["7H"],"jump_in":null}', False),
    ('{"type":"play","player":"ana","cards":["7H"],"t":true}', False),
    ('{"type":"play","player":"ana","cards":["7H"],"t":1.5}', False),
    ('{"type":"play","player":"ana","cards":["7H"],"seq":"1"}', False),
    ('{"type":"play","cards":["7H"]}', False),
    ('{"type":"suit","player":"ana","suit":"D"}', True),
    ('{"type":"suit","player":"ana","suit":"X"}', False),
    ('{"type":"suit","player":"ana","suit":"d"}', False),
    ('{"type":"draw","player":"ben","cards":["KC","8C"],"reason":"effect"}', True),
    ('{"type":"draw","player":"ben","count":2,"reason":null}', True),
    ('{"type":"draw","player":"ben","reason":"bogus"}', False),
    ('{"type":"draw","player":"ben","count":"two"}', False),
    ('{"type":"pass","player":"ben"}', True),
    ('{"type":"pass","player":null}', False),
    ('{"type":"mau","player":"ana","call":"last card"}', True),
    ('{"type":"mau","player":"ana"}', False),
    ('{"type":"penalty","player":"ana","reason":"missed_call","by":"ben","count":2}', True),
    ('{"type":"penalty","player":"ana","by":"ben"}', False),
    ('{"type":"reshuffle","stock":["8C","JD"],"count":2}', True),
    ('{"type":"reshuffle"}', True),
    ('{"type":"reshuffle","stock":{"count":2}}', False),
    ('{"type":"round_end","winner":null}', True),
    (
        '{"type":"round_end","winner":"ana","scores":{"ana":0,"ben":12.5},"hands":{"ben":{"count":3}}}',
        True,
    ),
    ('{"type":"round_end"}', False),
    ('{"type":"round_end","winner":"ana","scores":{"ben":true}}', False),
    ('{"type":"match_end","totals":{"ana":150},"winner":null}', True),
    ('{"type":"match_end","winner":3}', False),
    ('{"type":"abandon","reason":"disconnect","player":"ben"}', True),
    ('{"type":"abandon"}', True),
    ('{"type":"bogus","player":"ana"}', False),
    ('{"player":"ana"}', False),
    ('{"type":7}', False),
    ('["play"]', False),
]

# (line, keyword): the decoder accepts it, the schema rejects it with a SCHEMA_ONLY keyword.
SCHEMA_ONLY_CASES: list[tuple[str, str]] = [
    ('{"type":"play","player":"ana","cards":[]}', "minItems"),
    ('{"type":"play","player":"ana","cards":["7H"],"seq":-1}', "minimum"),
    ('{"type":"play","player":"ana","cards":[""]}', "minLength"),
    ('{"type":"pass","player":""}', "minLength"),
    ("{" + GAME + ',"players":["ana"]}', "minItems"),
    ("{" + GAME + ',"players":["ana","ana"]}', "uniqueItems"),
    ("{" + GAME.replace("maumau-log/1", "maumau-log/2") + ',"players":["a","b"]}', "const"),
    ("{" + GAME + ',"players":["a","b"],"round":0}', "minimum"),
    ('{"type":"deal","hands":{"a":{"count":-1}},"starter":"10H"}', "minimum"),
    ('{"type":"draw","player":"ben","count":-2}', "minimum"),
]


def schema_verdict(obj: Any, *, strict: bool) -> bool:
    """True when ``obj`` is a valid event; ``strict=False`` ignores SCHEMA_ONLY keywords."""
    if not isinstance(obj, dict) or obj.get("type") not in EVENT_SCHEMA_NAMES:
        assert not validator("event.schema.json").is_valid(obj)
        return False
    errors = list(validator(EVENT_SCHEMA_NAMES[obj["type"]]).iter_errors(obj))
    if not strict:
        errors = [e for e in errors if e.validator not in _ONLY_KEYWORDS]
    # The dispatching schema must agree with the per-type one.
    assert validator("event.schema.json").is_valid(obj) == (
        not list(validator(EVENT_SCHEMA_NAMES[obj["type"]]).iter_errors(obj))
    )
    return not errors


def decoder_verdict(line: str) -> bool:
    try:
        decode_event(line)
    except msgspec.ValidationError:
        return False
    return True


# (a) the shared examples -------------------------------------------------------------------


def _example_lines() -> list[tuple[str, str]]:
    out = []
    for path in EXAMPLES:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                out.append((f"{path.name}:{n}", line))
    return out


def test_examples_exist() -> None:
    # /work/shared/examples: two other engines' logs, 51 and 56 lines
    assert [p.name for p in EXAMPLES] == [
        "classic_other_engine.jsonl",
        "standard_other_engine.jsonl",
    ]
    assert len(_example_lines()) == 51 + 56


@pytest.mark.parametrize(("where", "line"), _example_lines(), ids=lambda x: str(x)[:40])
def test_example_line_valid_for_schema_and_decoder(where: str, line: str) -> None:
    obj = json.loads(line)
    assert schema_errors("event.schema.json", obj) == [], where
    decode_event(line)
    assert explain_event(obj) == ""


# (b) agreement between the schemas and msgspec ---------------------------------------------


def test_event_types_match_decoder() -> None:
    assert set(EVENT_SCHEMA_NAMES) == set(EVENT_TYPES)
    dispatch = load_schema("event.schema.json")
    assert dispatch["properties"]["type"]["enum"] == list(EVENT_SCHEMA_NAMES)
    for typ, name in EVENT_SCHEMA_NAMES.items():
        schema = load_schema(name)
        assert schema["properties"]["type"]["const"] == typ
        assert schema["$id"] == f"https://maumau-log.invalid/schemas/{name}"


@pytest.mark.parametrize(("line", "valid"), AGREE_CASES)
def test_schema_and_decoder_agree(line: str, valid: bool) -> None:
    obj = json.loads(line)
    assert decoder_verdict(line) is valid
    assert schema_verdict(obj, strict=True) is valid
    assert (explain_event(obj) == "") is valid


@pytest.mark.parametrize(("line", "keyword"), SCHEMA_ONLY_CASES)
def test_schema_only_constraints(line: str, keyword: str) -> None:
    obj = json.loads(line)
    assert decoder_verdict(line), "the decoder accepts it; the engine must check it"
    errors = list(validator(EVENT_SCHEMA_NAMES[obj["type"]]).iter_errors(obj))
    assert [e.validator for e in errors] == [keyword]
    assert schema_verdict(obj, strict=False)
    assert explain_event(obj).startswith(obj["type"])


@pytest.mark.parametrize("line", DECODER_ONLY_CASES)
def test_decoder_only_constraints(line: str) -> None:
    obj = json.loads(line)
    assert not decoder_verdict(line)
    assert schema_verdict(obj, strict=True)
    assert "Expected `int" in explain_event(obj)


def _walk(node: Any, pointer: str, found: set[tuple[str, str]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ONLY_KEYWORDS:
                found.add((pointer, key))
            if key in ("properties", "$defs"):
                for name, sub in value.items():
                    _walk(sub, f"{pointer}/{key}/{name}", found)
            elif isinstance(value, dict):
                _walk(value, f"{pointer}/{key}", found)


def test_schema_only_list_is_complete() -> None:
    """Every length/minimum/unique/const keyword in the event schemas is listed in SCHEMA_ONLY.

    Not listed, on purpose: each event's ``type`` const (msgspec's tag) and the ``type``
    properties the shuffle object gives (msgspec reads ``shuffle`` as a free dict).
    """
    found: set[tuple[str, str, str]] = set()
    for name in ["defs.schema.json", *EVENT_SCHEMA_NAMES.values()]:
        places: set[tuple[str, str]] = set()
        _walk(load_schema(name), "", places)
        found |= {(name, p, k) for p, k in places if p != "/properties/type"}
    listed = {key for key in SCHEMA_ONLY if key[2] in _ONLY_KEYWORDS}
    assert found == listed


def test_every_schema_file_is_documented() -> None:
    root = schema_dir()
    names = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.schema.json"))
    assert {"defs.schema.json", "event.schema.json", *EVENT_SCHEMA_NAMES.values()} <= set(names)
    for name in names:
        schema = load_schema(name)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name
        assert schema["$id"] == f"https://maumau-log.invalid/schemas/{name}", name
        assert schema.get("title") and schema.get("description"), name
        if name.startswith("events/"):
            assert "additionalProperties" not in schema, name
            for prop, sub in schema["properties"].items():
                assert sub.get("description"), f"{name}: {prop}"


_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.integers(min_value=0, max_value=3).map(lambda n: n + 0.5),  # never an integral float
    st.sampled_from(["", "a", "7H", "C", "X", "no_play", "maumau-log/1", "two"]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "count", ""]), inner, max_size=3),
    ),
    max_leaves=6,
)
_FIELDS = [
    "t", "seq", "format", "game_id", "ruleset", "players", "options", "dealer", "round",
    "shuffle", "player", "taken", "hands", "starter", "stock", "cards", "jump_in", "suit",
    "count", "reason", "call", "by", "winner", "scores", "totals", "zz_unknown",
]  # fmt: skip


_BASES: dict[str, dict[str, Any]] = {
    "game": {"format": "maumau-log/1", "game_id": "g", "ruleset": "classic", "players": ["a", "b"]},
    "cut": {"player": "a"},
    "deal": {"hands": {"a": ["7H"], "b": {"count": 1}}, "starter": "8H"},
    "play": {"player": "a", "cards": ["7H"]},
    "suit": {"player": "a", "suit": "C"},
    "draw": {"player": "a"},
    "pass": {"player": "a"},
    "mau": {"player": "a", "call": "mau"},
    "penalty": {"player": "a", "reason": "timeout"},
    "reshuffle": {},
    "round_end": {"winner": None},
    "match_end": {},
    "abandon": {},
    "nope": {"player": "a"},
}
"""A valid event of every type (and one of an unknown type), for the random test to spoil."""


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(
    typ=st.sampled_from(list(_BASES)),
    fields=st.dictionaries(st.sampled_from(_FIELDS), _value, max_size=3),
    drop=st.sets(st.sampled_from(_FIELDS), max_size=2),
)
def test_random_dicts_agree(typ: str, fields: dict[str, Any], drop: set[str]) -> None:
    """Random changes to valid events: both verdicts agree, SCHEMA_ONLY keywords aside."""
    obj = {"type": typ, **{k: v for k, v in _BASES[typ].items() if k not in drop}, **fields}
    line = json.dumps(obj)
    assert decoder_verdict(line) == schema_verdict(obj, strict=False), line


# (c) explain_event messages -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (["play"], "an event must be a JSON object, not an array"),
        ({"type": "play", "player": "ana", "cards": []}, "play.cards: [] should be non-empty"),
        (
            {"type": "draw", "player": "ana", "count": "two"},
            "draw.count: 'two' is not of type 'integer', 'null'",
        ),
        ({"type": "mau", "player": "ana"}, "mau: 'call' is a required property"),
        (
            {"type": "deal", "hands": {"bob": {"count": -1}}, "starter": "7H"},
            "deal.hands.bob.count: -1 is less than the minimum of 0",
        ),
        ({"type": "suit", "player": "ana", "suit": "X"}, "suit.suit: 'X' is not one of"),
    ],
)
def test_explain_event(obj: Any, expected: str) -> None:
    assert explain_event(obj).startswith(expected)


def test_explain_event_type() -> None:
    msg = explain_event({"type": "jump", "player": "ana"})
    assert msg.startswith("unknown event type 'jump'; known types: game, cut, deal, play")
    assert msg.endswith("match_end, abandon")
    assert explain_event({"player": "ana"}).startswith("an event needs a 'type'; known types:")
    assert explain_event("x") == "an event must be a JSON object, not a string"


# (d) options and ruleset files ---------------------------------------------------------------


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.stem)
def test_presets_valid(path: Path) -> None:
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    assert schema_errors("ruleset-file.schema.json", data) == []
    assert schema_errors("options.schema.json", data["options"]) == []


def test_presets_present() -> None:
    # every preset of PRESETS.md has its file, and defaults.toml the table they start from
    assert sorted(p.stem for p in PRESETS) == sorted([*PRESET_NAMES, "defaults"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"foo": 1}, "options: Additional properties are not allowed ('foo' was unexpected)"),
        ({"packs": "2"}, "options.packs: '2' is not of type 'integer'"),
    ],
)
def test_bad_options_rejected(options: dict[str, Any], message: str) -> None:
    assert schema_errors("ruleset-file.schema.json", {"options": options}) == [message]
    assert schema_errors("options.schema.json", options) != []


# -- the quick check of valid options (no jsonschema for valid headers) -----------

_OPTIONS = load_schema("options.schema.json")
_CARDSPECS = st.sampled_from(["7", "10", "J", "KS", "2C", "X", "1", "11", "QX", "", "8h"])
_LEAF = st.one_of(
    st.integers(-3, 12), st.booleans(), st.none(), st.floats(allow_nan=False) | st.just(2.0),
    _CARDSPECS, st.sampled_from(["none", "pass", "reshuffle", "dealer", "default", "any"]),
)  # fmt: skip
_VALUE = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_CARDSPECS | st.sampled_from(["default", "3", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _near(schema: Any) -> st.SearchStrategy[Any]:
    """Values near what ``schema`` allows (valid ones and one step off), or anything."""
    if "$ref" in schema:
        return _CARDSPECS
    if "anyOf" in schema:
        return st.one_of([_near(sub) for sub in schema["anyOf"]])
    if "enum" in schema or "const" in schema:
        return st.sampled_from([*schema.get("enum", [schema.get("const")]), "bogus", 1])
    typ = schema.get("type")
    if typ == "integer":
        return st.integers(-2, 12) | st.just(2.0) | st.booleans()
    if typ == "array":
        return st.lists(_near(schema.get("items", {})), max_size=4)
    if typ == "object":
        keys = _CARDSPECS | st.sampled_from(["default", "3", "x"])
        return st.dictionaries(keys, _near(schema.get("additionalProperties", {})), max_size=3)
    return _VALUE


_NEAR_OPTIONS = st.lists(st.sampled_from(sorted(_OPTIONS["properties"])), max_size=3).flatmap(
    lambda keys: st.fixed_dictionaries({k: _near(_OPTIONS["properties"][k]) for k in keys})
)


def _quick(instance: Any) -> bool:
    from maumau_log.events.schema import surely_valid

    return surely_valid(_OPTIONS, instance, _OPTIONS)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _NEAR_OPTIONS
    | st.dictionaries(st.sampled_from([*_OPTIONS["properties"], "bogus"]), _VALUE, max_size=4)
)
def test_quick_check_never_passes_what_jsonschema_refuses(options: dict[str, Any]) -> None:
    """Where the quick check says valid, jsonschema finds no error (it may say "not sure"
    about valid options: jsonschema then decides)."""
    if _quick(options):
        assert list(validator("options.schema.json").iter_errors(options)) == []


@pytest.mark.parametrize(
    ("options", "quick"),
    [
        ({"max_draws": 1, "empty_stock": "pass", "max_plays": 30}, True),  # an OpenSpiel import
        ({"max_plays": None}, True),
        ({"max_plays": "none"}, True),
        ({"max_plays": 0}, False),  # minimum 1
        ({"hand_size": {"default": 5, "3": 6}}, True),
        ({"hand_size": {"3": 6}}, False),  # "default" is required
        ({"hand_size": -1}, False),
        ({"skip": ["Q", "KS"]}, True),
        ({"skip": ["Q", "Q"]}, False),  # uniqueItems
        ({"skip": ["Q", "QX"]}, False),  # QX is no card spec
        ({"draw": {"7": 2, "KS": 4}}, True),
        ({"draw": {"7": -1}}, False),
        ({"draw": {"7": 2.0}}, False),  # a float: left to jsonschema (it counts 2.0 as 2)
        ({"max_draws": True}, False),  # a boolean is no integer
        ({"bogus": 1}, False),  # additionalProperties false
    ],
)
def test_quick_check_by_hand(options: dict[str, Any], quick: bool) -> None:
    assert _quick(options) is quick
    if quick:
        assert schema_errors("options.schema.json", options) == []


def test_quick_check_takes_every_preset_and_openspiel_mix() -> None:
    """The presets' options and the options of every OpenSpiel parameter mix (144) pass
    the quick check, so a replay of those headers never imports jsonschema."""
    import itertools

    from maumau_log.openspiel import GameParams

    for path in PRESETS:
        opts = tomllib.loads(path.read_text(encoding="utf-8")).get("options", {})
        assert _quick(opts), path.name
    mixes = itertools.product(
        (2, 3, 4, 5), (1, 2, 5), (30, 100, 1000), (False, True), (True, False)
    )
    for mix in mixes:
        assert _quick(GameParams(*mix).options()), mix
