"""The JSON Schemas under ``schemas/``: loading them and checking raw data against them.

``jsonschema`` is imported on the first check, not with this module (start-up
time of ``validate``, which only checks a line against the schemas when it is bad).

``schemas/`` is the normative, machine-readable form of FORMAT.md (events) and RULESETS.md
(options, ruleset files). A wheel carries it as ``maumau_log/_schemas`` (hatchling
``force-include``); an editable install reads it from the source tree.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from . import Event

if TYPE_CHECKING:  # jsonschema is imported when a check runs: a replay of good lines
    # never needs it, and it costs more start-up time than the replay's own modules
    from jsonschema import Draft202012Validator
    from referencing import Registry

_HERE = Path(__file__).resolve().parent
_SOURCE_TREE = _HERE.parent.parent / "schemas"
_PACKAGED = _HERE.parent / "_schemas"
"""The wheel's copy: in the package's own folder (where ``importlib.resources.files`` finds
it; the path is taken directly, without importing ``importlib.resources`` and its readers:
start-up)."""


def schema_dir() -> Path:
    """Return the folder holding the schema files (wheel copy first, then the source tree)."""
    if _PACKAGED.is_dir():
        return _PACKAGED
    return _SOURCE_TREE


@cache
def load_schema(name: str) -> dict[str, Any]:
    """Load one schema file by its path under :func:`schema_dir`.

    Args:
        name: ``"options.schema.json"``, or ``"events/play.schema.json"`` in a subfolder.
    Returns:
        The schema as decoded JSON.
    Raises:
        FileNotFoundError: no such schema.
    """
    with open(schema_dir() / name, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@cache
def _registry() -> Registry:
    """Register every schema file (``*.schema.json``) in ``schemas/`` and its subfolders.

    Each file is keyed by its path relative to :func:`schema_dir` (``"events/play.schema.json"``)
    and by its ``$id``, so relative ``$ref``s resolved against the ``$id`` find it.
    """
    from referencing import Registry, Resource

    root = schema_dir()
    registry: Registry = Registry()
    for path in sorted(root.rglob("*.schema.json")):
        name = path.relative_to(root).as_posix()
        contents = load_schema(name)
        resource = Resource.from_contents(contents)
        registry = registry.with_resource(name, resource)
        if "$id" in contents:
            registry = registry.with_resource(contents["$id"], resource)
    return registry


@cache
def validator(name: str) -> Draft202012Validator:
    """Return a draft 2020-12 validator for one schema file, with the others resolvable.

    Args:
        name: the schema's path under :func:`schema_dir` (``"events/play.schema.json"``).
    Returns:
        A cached validator; every schema file can be reached by ``$ref``.
    Raises:
        FileNotFoundError: no such schema.
    """
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name), registry=_registry())


_NOTES = frozenset(
    ("description", "title", "$schema", "$id", "$comment", "$defs", "default", "examples")
)
"""Keywords that only annotate (or hold subschemas for ``$ref``): they never make an
instance invalid."""

_SCALARS = (str, int, bool, type(None))


def _is_type(instance: Any, name: str) -> bool | None:
    """Whether ``instance`` is of the JSON type ``name``; None when unsure (a float, where
    JSON Schema counts ``2.0`` as an integer)."""
    if type(instance) is float:
        return None
    if name == "integer" or name == "number":
        return type(instance) is int
    if name == "string":
        return type(instance) is str
    if name == "object":
        return type(instance) is dict
    if name == "array":
        return type(instance) is list
    if name == "boolean":
        return type(instance) is bool
    if name == "null":
        return instance is None
    return None


def surely_valid(schema: Any, instance: Any, root: dict[str, Any]) -> bool:
    """Whether ``instance`` certainly satisfies ``schema`` (draft 2020-12), decided by a
    small checker that knows only the keywords of ``schemas/options.schema.json``: True
    only when every keyword on the way is one it knows and holds; False means "not sure"
    (invalid, or a keyword, a ``$ref`` or a value it leaves to ``jsonschema``).

    :func:`schema_errors` asks it first, so that checking valid options (every ``game``
    header with options) does not import ``jsonschema`` (about 0.1 s of the
    start-up of an ``import --validate``); every "not sure" goes to ``jsonschema``, which
    decides and words the errors. ``tests/test_schema.py`` checks that it never says True
    where ``jsonschema`` finds an error.

    Args:
        schema: a (sub)schema: a dict, or a boolean schema.
        instance: decoded JSON (or TOML) data.
        root: the schema file holding ``schema`` (for ``#/$defs/...`` references).
    Returns:
        True when certainly valid, else False.
    """
    if schema is True:
        return True
    if type(schema) is not dict:
        return False
    for key, want in schema.items():
        if key in _NOTES:
            continue
        if key == "$ref":
            if type(want) is not str or not want.startswith("#/$defs/"):
                return False
            target = root.get("$defs", {}).get(want[len("#/$defs/") :])
            if target is None or not surely_valid(target, instance, root):
                return False
        elif key == "type":
            names = want if type(want) is list else [want]
            if not any(_is_type(instance, n) for n in names):
                return False
        elif key in ("enum", "const"):
            members = want if key == "enum" else [want]
            if type(instance) not in _SCALARS or not any(
                type(m) is type(instance) and m == instance for m in members
            ):
                return False
        elif key == "anyOf":
            if not any(surely_valid(sub, instance, root) for sub in want):
                return False
        elif key == "additionalProperties":
            if not _extra_holds(schema, want, instance, root):
                return False
        elif not _keyword_holds(key, want, instance, root):
            return False
    return True


def _keyword_holds(key: str, want: Any, instance: Any, root: dict[str, Any]) -> bool:
    """One keyword of :func:`surely_valid` that applies to one JSON type only (it holds
    for instances of the other types, as JSON Schema says); False when not sure."""
    kind = type(instance)
    if kind is float:
        return False
    if key in ("minimum", "maximum"):
        if kind is not int:
            return True  # not a number: the keyword does not apply
        return bool(instance >= want if key == "minimum" else instance <= want)
    if key in ("minLength", "pattern"):
        if kind is not str:
            return True
        if key == "minLength":
            return len(instance) >= want
        import re

        return re.search(want, instance) is not None
    if key in ("items", "uniqueItems", "minItems"):
        if kind is not list:
            return True
        if key == "minItems":
            return len(instance) >= want
        if key == "items":
            return all(surely_valid(want, item, root) for item in instance)
        if not want:
            return True
        # JSON equality tells 1 from true and 1 from 1.0: decide only all-text or
        # all-integer arrays
        same = all(type(i) is str for i in instance) or all(type(i) is int for i in instance)
        return same and len(set(instance)) == len(instance)
    if key in ("properties", "propertyNames", "required"):
        if kind is not dict:
            return True
        if key == "required":
            return all(k in instance for k in want)
        if key == "propertyNames":
            return all(surely_valid(want, k, root) for k in instance)
        return all(surely_valid(want[k], v, root) for k, v in instance.items() if k in want)
    return False  # a keyword it does not know


def _extra_holds(schema: dict[str, Any], want: Any, instance: Any, root: dict[str, Any]) -> bool:
    """``additionalProperties``: the members ``properties`` does not name."""
    if type(instance) is not dict:
        return True
    if "patternProperties" in schema:
        return False
    named = schema.get("properties", {})
    return all(surely_valid(want, v, root) for k, v in instance.items() if k not in named)


def schema_errors(name: str, instance: Any) -> list[str]:
    """Check ``instance`` against a schema and describe every failure.

    Args:
        name: the schema's path under :func:`schema_dir`.
        instance: decoded JSON (or TOML) data.
    Returns:
        Messages like ``"options.draw_answer: 'foo' is not one of ['none', ...]"``, best
        first; empty when valid.
    """
    schema = load_schema(name)
    if surely_valid(schema, instance, schema):
        return []  # certainly valid: no need for jsonschema (:func:`surely_valid`)
    errors = sorted(
        validator(name).iter_errors(instance), key=lambda e: (len(e.path), list(e.path))
    )
    out = []
    for err in errors:
        where = ".".join(str(p) for p in err.absolute_path)
        out.append(f"{where}: {err.message}" if where else err.message)
    return out


EVENT_SCHEMA_NAMES: dict[str, str] = {
    t: f"events/{t}.schema.json"
    for t in (
        "game", "cut", "deal", "play", "suit", "draw", "pass", "mau", "penalty", "reshuffle",
        "round_end", "match_end", "abandon",
    )
}  # fmt: skip
"""Each event ``type`` (FORMAT.md "Events") to its schema file; ``event.schema.json`` takes any."""

_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (list, "an array"),
    (str, "a string"),
    (bool, "a boolean"),
    ((int, float), "a number"),
)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    for py_type, name in _JSON_TYPES:
        if isinstance(value, py_type):
            return name
    return type(value).__name__


def explain_event(obj: object) -> str:
    """Say, in the schemas' words, why a decoded log line is not a valid event.

    Meant for a line the fast msgspec decoder (:func:`maumau_log.events.decode_event`)
    rejected: the line's JSON value is checked against the schema of its ``type`` and the most
    relevant failure is returned with its place (``"play.cards: [] should be non-empty"``,
    ``"draw.count: 'two' is not of type 'integer', 'null'"``). Where the schemas find nothing
    (JSON Schema counts ``2.0`` as an integer, the decoder does not), the decoder's own message
    is returned.

    Args:
        obj: the decoded JSON value of one line (``json.loads`` of it).
    Returns:
        One message, without a trailing period; ``""`` if the value is a valid event for both
        the schemas and the decoder.
    """
    known = ", ".join(EVENT_SCHEMA_NAMES)
    if not isinstance(obj, dict):
        return f"an event must be a JSON object, not {_json_type(obj)}"
    if "type" not in obj:
        return f"an event needs a 'type'; known types: {known}"
    typ = obj["type"]
    if not isinstance(typ, str) or typ not in EVENT_SCHEMA_NAMES:
        return f"unknown event type {typ!r}; known types: {known}"
    from jsonschema.exceptions import best_match

    error = best_match(validator(EVENT_SCHEMA_NAMES[typ]).iter_errors(obj))
    if error is not None:
        where = ".".join([typ, *(str(p) for p in error.absolute_path)])
        return f"{where}: {error.message}"
    try:
        msgspec.convert(obj, Event, strict=True)
    except msgspec.ValidationError as exc:
        return f"{typ}: {exc}"
    return ""
