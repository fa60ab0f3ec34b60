"""MkDocs hook: the preset and option tables, made from the data at build time.

The values come from the preset files (``defaults.toml`` and one TOML file per preset, found
under ``maumau_log/``) and the option types from ``schemas/options.schema.json``, so the
pages cannot drift from what the engine loads. A page asks for a table with a marker, an
HTML comment alone on its line:

- ``<!-- presets-summary -->``: every preset, its rule system and what it plays;
- ``<!-- preset-options: NAME -->``: every option of preset NAME with its value;
- ``<!-- defaults-table -->``: every option's default;
- ``<!-- option-facts: NAME -->``: option NAME's type, values, default and the presets
  that set it.

A marker naming an unknown preset or option fails the build. ``tests/test_docs.py``
imports this file to check that every preset and option has its marker.
"""

from __future__ import annotations

import json
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository: this file is ``docs/hooks/reference_tables.py``."""

MARKER = re.compile(
    r"^<!-- (presets-summary|defaults-table|preset-options|option-facts)(?::\s*(\S+))? -->$",
    re.MULTILINE,
)


@cache
def preset_dir() -> Path:
    """The folder holding ``defaults.toml`` and the preset files."""
    found = sorted(ROOT.glob("maumau_log/**/presets/defaults.toml"))
    if not found:
        raise FileNotFoundError("no presets/defaults.toml under maumau_log/")
    return found[0].parent


@cache
def option_schema() -> dict[str, Any]:
    """``schemas/options.schema.json``'s properties: option name to its schema."""
    schema = json.loads((ROOT / "schemas" / "options.schema.json").read_text("utf-8"))
    return dict(schema["properties"])


def nullable(name: str) -> bool:
    """Whether the option takes null (written ``"none"`` in a TOML file)."""
    return any(s.get("type") == "null" for s in option_schema()[name].get("anyOf", []))


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    options = {k: (None if v == "none" and nullable(k) else v) for k, v in data["options"].items()}
    return {**data, "options": options}


@cache
def defaults() -> dict[str, Any]:
    """Every option's default (``defaults.toml``), nulls as None."""
    return dict(_load(preset_dir() / "defaults.toml")["options"])


def _section(data: dict[str, Any]) -> int:
    match = re.match(r"RULES\.md (\d+)", data.get("section", ""))
    return int(match.group(1)) if match else 99


@cache
def presets() -> dict[str, dict[str, Any]]:
    """Preset name to its file's data (``section``, ``description``, ``notes`` and the
    ``options`` it sets), in the order of their RULES.md sections."""
    found = {p.stem: _load(p) for p in preset_dir().glob("*.toml") if p.stem != "defaults"}
    return dict(sorted(found.items(), key=lambda item: (_section(item[1]), item[0])))


def value_text(value: Any) -> str:
    """An option's value as a header's ``options`` object writes it (JSON)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def type_text(schema: dict[str, Any]) -> str:
    """The type an option's schema allows, in words."""
    if "anyOf" in schema:
        parts = [type_text(s) for s in schema["anyOf"] if s.get("const") != "none"]
        return " or ".join(parts)
    if "enum" in schema:
        return "one of " + ", ".join(f"`{value_text(v)}`" for v in schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return "`null`"
    if kind == "boolean":
        return "boolean"
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"integer from {low} to {high}"
        return f"integer, at least {low}" if low is not None else "integer"
    if kind == "string":
        return "string (the word)"
    if kind == "array":
        items = schema.get("items", {})
        if "enum" in items:
            return "list of ranks"
        if items.get("$ref", "").endswith("cardspec"):
            return 'list of cards (ranks such as `"7"`, codes such as `"KS"`, `"X"`)'
        return 'list of ranks (or `"X"`)'
    if kind == "object":
        if "propertyNames" in schema and "pattern" in schema["propertyNames"]:
            return 'table: player count (or `"default"`) to cards dealt'
        return 'table: card (rank, code or `"X"`) to number'
    raise ValueError(f"no words for the schema {schema!r}")


def presets_summary() -> str:
    """The table of every preset."""
    rows = ["| preset | rule system | what it plays |", "| --- | --- | --- |"]
    for name, data in presets().items():
        section = _section(data)
        rows.append(
            f"| [`{name}`](#{name}) | [Section {section}](rules.md#section-{section}) "
            f"| {_cell(data.get('description', ''))} |"
        )
    return "\n".join(rows)


def defaults_table() -> str:
    """Every option and its default."""
    rows = ["| option | default |", "| --- | --- |"]
    for name, value in defaults().items():
        rows.append(f"| [`{name}`](options.md#{name}) | `{_cell(value_text(value))}` |")
    return "\n".join(rows)


def preset_options(name: str) -> str:
    """Every option of one preset with its value and where the value comes from."""
    if name not in presets():
        raise KeyError(f"no preset {name!r} in {preset_dir()}")
    own = presets()[name]["options"]
    unknown = set(own) - set(defaults())
    if unknown:
        raise KeyError(f"preset {name!r} sets options defaults.toml lacks: {sorted(unknown)}")
    rows = ["| option | value | from |", "| --- | --- | --- |"]
    for option, default in defaults().items():
        value, source = (own[option], "**the preset**") if option in own else (default, "default")
        rows.append(
            f"| [`{option}`](options.md#{option}) | `{_cell(value_text(value))}` | {source} |"
        )
    return "\n".join(rows)


def option_facts(name: str) -> str:
    """One option's type, default and the presets that set it."""
    schema = option_schema().get(name)
    if schema is None or name not in defaults():
        raise KeyError(f"no option {name!r} in schemas/options.schema.json and defaults.toml")
    setters = [
        f"[`{p}`](presets.md#{p}): `{value_text(d['options'][name])}`"
        for p, d in presets().items()
        if name in d["options"]
    ]
    return "\n".join(
        [
            f"- **type**: {type_text(schema)}",
            f"- **default**: `{value_text(defaults()[name])}`",
            f"- **set by**: {'; '.join(setters) if setters else 'no preset'}",
        ]
    )


def expand(markdown: str) -> str:
    """The page's Markdown with every marker replaced by its table."""

    def table(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2)
        if kind == "presets-summary":
            return presets_summary()
        if kind == "defaults-table":
            return defaults_table()
        if arg is None:
            raise ValueError(f"the marker {match.group(0)} names no preset or option")
        return preset_options(arg) if kind == "preset-options" else option_facts(arg)

    return MARKER.sub(table, markdown)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """MkDocs event: expand the markers of every page."""
    return expand(markdown)
