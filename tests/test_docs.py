"""The documentation states the contract, and every message can be looked up in it.

- Every violation code has its section on ``docs/reference/violations.md``, and each
  section's minimal log makes ``maumau-log validate`` print exactly what the page shows,
  with the exit code the page gives.
- Every ``rule`` a message can cite resolves to a heading of the documentation: the rule
  strings of ``validate --json`` over ``sample_logs/`` (with the other engines' logs in
  ``sample_logs/valid/other_engines/``), of the page's own examples, and every rule string
  literal in the source are parsed into (page, heading anchor) pairs (:func:`targets`).
- The reference pages hold what the contract needs: the FORMAT.md sections messages cite,
  every event type with a JSON line the schema accepts, rulings 1-25, RULES.md sections
  1-12, every preset and option with its generated table, every command in the CLI
  reference, a shuffle implementation that reproduces the test vectors.

Anchors follow Python-Markdown's ``toc`` extension as Material uses it: an explicit
``{#id}`` or the heading's text slugified (:func:`slug`); ``test_site_builds_with_every_
cited_anchor`` checks them against the built site where MkDocs is installed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import tomllib
import unicodedata
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from maumau_log.violations import CODES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REF = "reference"
FENCE = re.compile(r"^```(\w*)(?:\s+title=\"([^\"]+)\")?\n(.*?)^```$", re.MULTILINE | re.DOTALL)

# ---------------------------------------------------------------------------------------
# Headings and anchors


def slug(text: str) -> str:
    """A heading's id as Python-Markdown's ``toc`` makes it (Material's anchors)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _heading_text(raw: str) -> tuple[str, str | None]:
    """The heading's visible text and its explicit ``{#id}``, if any."""
    explicit = re.search(r"\s*\{#([\w-]+)\}\s*$", raw)
    if explicit:
        raw = raw[: explicit.start()]
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw).replace("`", "").replace("*", "")
    return text.strip(), explicit.group(1) if explicit else None


@cache
def headings(page: str) -> dict[str, str]:
    """A page's anchors (outside fenced code) to their heading text."""
    source = (DOCS / page).read_text("utf-8")
    found: dict[str, str] = {}
    fenced = False
    for line in source.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"^(#{1,6})\s+(.*)$", line)
        if match:
            text, explicit = _heading_text(match.group(2))
            found[explicit or slug(text)] = text
    return found


def section(page: str, anchor: str) -> str:
    """The Markdown of one level-2 section (its heading to the next level-2 heading)."""
    source = (DOCS / page).read_text("utf-8")
    parts = re.split(r"^(?=## )", source, flags=re.MULTILINE)
    for part in parts:
        first = part.splitlines()[0]
        if first.startswith("## "):
            text, explicit = _heading_text(first[3:])
            if (explicit or slug(text)) == anchor:
                return part
    raise KeyError(f"{page} has no section #{anchor}")


# ---------------------------------------------------------------------------------------
# Citations: a message's `rule` to (page, anchor) pairs; anchor None is the page itself

FORMAT_SECTIONS = ("Files", "Cards", "Events", "Conventions", "Information levels")
EVENT_TYPES = tuple(
    sorted(p.name.split(".")[0] for p in (ROOT / "schemas" / "events").glob("*.schema.json"))
)
README_CITATIONS: dict[str, tuple[str, str | None]] = {
    # the README's sections the code still cites, and where the documentation states them
}
PROSE = {
    # parts of a rule string that explain instead of citing
    "the kept cards are part of the hand",
}


@cache
def option_names() -> frozenset[str]:
    schema = json.loads((ROOT / "schemas" / "options.schema.json").read_text("utf-8"))
    return frozenset(schema["properties"])


def _top_level_split(text: str) -> list[str]:
    """Split at commas outside brackets, braces and quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _options(text: str) -> list[tuple[str, str | None]]:
    """``draw = {'7': 2}, draw_answer`` or ``ranks/jokers`` to the options' headings."""
    found = []
    for piece in _top_level_split(text):
        names = piece.split("=")[0]
        for name in names.split("/"):
            found.append((f"{REF}/options.md", name.strip()))
    return found


def _format(rest: str) -> list[tuple[str, str | None]]:
    """``Events (round_end)``, ``Conventions: Seats and turns``: FORMAT.md's headings."""
    page = f"{REF}/format.md"
    for name in FORMAT_SECTIONS:
        if rest.startswith(name):
            found: list[tuple[str, str | None]] = [(page, slug(name))]
            tail = rest[len(name) :].strip()
            if tail.startswith(":"):
                found.append((page, slug(tail[1:].strip(" )"))))
            elif name == "Events" and tail.startswith("("):
                event = re.split(r"[.\s)]", tail[1:], maxsplit=1)[0]
                if event in EVENT_TYPES:
                    found.append((page, event))
            return found
    raise ValueError(f"FORMAT.md cites no section: {rest!r}")


def _part(part: str) -> list[tuple[str, str | None]]:
    """One ``;``-separated part of a rule string."""
    if part in PROSE:
        return []
    for text, target in README_CITATIONS.items():
        if part == text or text in part:
            found = [target]
            rest = part.replace(text, "").strip(" ()")
            return found + (_part(rest) if rest else [])
    if part.startswith("docs/"):
        # a page of this repository's documentation, e.g. docs/reference/format.md#files
        path, _, anchor = part.split(" ", 1)[0].partition("#")
        return [(path.removeprefix("docs/"), anchor or None)]
    if part.startswith("PRESETS.md"):
        match = re.match(r"PRESETS\.md rulings? (\d+)(?:\s*-\s*(\d+))?", part)
        if not match:
            return [(f"{REF}/rulings.md", None)]
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        return [(f"{REF}/rulings.md", f"ruling-{n}") for n in range(first, last + 1)]
    if part.startswith("RULESETS.md"):
        return [(f"{REF}/presets.md", None), (f"{REF}/options.md", None)]
    if part.startswith("RULES.md"):
        numbers = re.findall(r"\d+", part.split("(")[0])
        if not numbers:
            return [(f"{REF}/rules.md", "what-every-system-shares")]
        return [(f"{REF}/rules.md", f"section-{n}") for n in numbers]
    if part.startswith("FORMAT.md"):
        return _format(part[len("FORMAT.md") :].strip())
    if part.startswith("schemas/"):
        inner = re.search(r"\((FORMAT\.md[^)]*)\)", part)
        return [(f"{REF}/format.md", "the-json-schema")] + (_part(inner.group(1)) if inner else [])
    if part.startswith("shuffle maumau-sha256-fy/1"):
        step = re.search(r"step (\d+)", part)
        return [(f"{REF}/shuffle.md", f"step-{step.group(1)}" if step else None)]
    if part.startswith("the .mm notation"):
        return [(f"{REF}/notation.md", None)]
    if part.startswith("turn order ("):
        return _part(part[len("turn order (") :].rstrip(")"))
    if part.startswith(("option ", "options ")):
        return _options(part.split(" ", 1)[1])
    first = re.match(r"([a-z_]+) =", part)
    if first and first.group(1) in option_names():
        return _options(part)
    raise ValueError(f"not a citation: {part!r}")


def targets(rule: str) -> list[tuple[str, str | None]]:
    """Every (page, anchor) a message's ``rule`` cites."""
    return [t for part in rule.split(";") if part.strip() for t in _part(part.strip())]


CITATION_START = re.compile(
    r"^(?:; )?(PRESETS\.md|RULESETS\.md|RULES\.md|FORMAT\.md|schemas/|shuffle maumau-"
    r"|the \.mm notation|turn order \(|README|docs/|options? [a-z_]+|([a-z_]+) = )"
)


def source_rule_strings() -> set[str]:
    """Every string literal of the package that starts like a citation (docstrings and
    bare string statements left out; an f-string's fields read as ``X``)."""
    found: set[str] = set()
    for path in sorted((ROOT / "maumau_log").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        skip = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(
                    str(v.value) if isinstance(v, ast.Constant) else "X" for v in node.values
                )
                skip.update(id(v) for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in skip:
                    continue
                text = node.value
            else:
                continue
            match = CITATION_START.match(text)
            if match and (match.group(2) is None or match.group(2) in option_names()):
                found.add(text.removeprefix("; "))
    return found


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``maumau-log ARGS`` as a user runs it (this checkout's package)."""
    env = {"PYTHONPATH": str(ROOT), "COLUMNS": "200", "NO_COLOR": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "maumau_log", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


@cache
def validated_rule_strings() -> frozenset[str]:
    """The rule strings ``validate --json`` reports over the sample logs."""
    result = run_cli("validate", "--json", "--jobs", "1", "sample_logs")
    assert result.returncode == 1, result.stderr  # sample_logs/violations/ is broken on purpose
    return frozenset(v["rule"] for v in json.loads(result.stdout)["violations"])


def example_rule_strings() -> set[str]:
    """The ``rule:`` lines of the violation pages' printed reports."""
    text = (DOCS / REF / "violations.md").read_text("utf-8")
    return {m.group(1) for m in re.finditer(r"^  rule:  (.+)$", text, re.MULTILINE)}


def _resolves(rule: str) -> list[str]:
    """The citations of ``rule`` that name no heading (empty: all resolve)."""
    missing = []
    for page, anchor in targets(rule):
        if not (DOCS / page).exists():
            missing.append(f"{page} (no such page)")
        elif anchor is not None and anchor not in headings(page):
            missing.append(f"{page}#{anchor}")
    return missing


def test_every_rule_validate_reports_on_the_samples_resolves() -> None:
    rules = validated_rule_strings()
    assert len(rules) >= 25
    unresolved = {rule: _resolves(rule) for rule in rules}
    assert {r: m for r, m in unresolved.items() if m} == {}


def test_every_rule_string_in_the_source_resolves() -> None:
    rules = source_rule_strings()
    assert "turn order (FORMAT.md Conventions: Seats and turns)" in rules
    assert "options play_after_draw = X, max_draws = X; PRESETS.md ruling 11" in rules
    assert len(rules) >= 100
    unresolved = {rule: _resolves(rule) for rule in rules}
    assert {r: m for r, m in unresolved.items() if m} == {}


def test_every_rule_the_violation_examples_print_resolves() -> None:
    rules = example_rule_strings()
    assert len(rules) >= 25
    assert {r: _resolves(r) for r in rules if _resolves(r)} == {}


CITATION_CASES = [
    ("PRESETS.md ruling 22", ["ruling-22"]),
    ("PRESETS.md rulings 9-10 (calls and catches)", ["ruling-9", "ruling-10"]),
    (
        "RULES.md 1 and 11 (cut); PRESETS.md ruling 16",
        ["section-1", "section-11", "ruling-16"],
    ),
    (
        "RULES.md (a card matches the rank or suit of the top discard)",
        ["what-every-system-shares"],
    ),
    (
        "FORMAT.md Events (game.started_at); docs/reference/format.md#decisions",
        ["events", "game", "decisions"],
    ),
    (
        "turn order (FORMAT.md Conventions: Seats and turns)",
        ["conventions", "seats-and-turns"],
    ),
    ("schemas/ (FORMAT.md Events)", ["the-json-schema", "events"]),
    ("shuffle maumau-sha256-fy/1, step 6 (reshuffles)", ["step-6"]),
    (
        "options play_after_draw = 'drawn', max_draws = 1; PRESETS.md ruling 11",
        ["play_after_draw", "max_draws", "ruling-11"],
    ),
    ("option draw = {'7': 2, 'X': 5}; PRESETS.md ruling 12", ["draw", "ruling-12"]),
    (
        "options wild = ['J', 'X'], wild_names_suit; RULES.md (a named suit must be followed)",
        ["wild", "wild_names_suit", "what-every-system-shares"],
    ),
    ("option ranks/jokers", ["ranks", "jokers"]),
    ("options draw_ends_turn / cover_draw", ["draw_ends_turn", "cover_draw"]),
    (
        "match_target = 150, match_rounds = None, scoring = 'winner_collects'; "
        "PRESETS.md ruling 14",
        ["match_target", "match_rounds", "scoring", "ruling-14"],
    ),
    ("the .mm notation (docs/reference/notation.md)", [None]),
    ("RULES.md 1 (cut); the kept cards are part of the hand", ["section-1"]),
]


@pytest.mark.parametrize(("rule", "expected"), CITATION_CASES)
def test_citations_parse_into_the_headings_they_name(rule: str, expected: list[str]) -> None:
    assert [anchor for _page, anchor in targets(rule)] == expected
    assert _resolves(rule) == []


def test_a_citation_of_a_missing_heading_is_caught() -> None:
    assert _resolves("PRESETS.md ruling 26") == [f"{REF}/rulings.md#ruling-26"]
    assert _resolves("option no_such_option = 3") == [f"{REF}/options.md#no_such_option"]
    with pytest.raises(ValueError, match="not a citation"):
        targets("a rule nobody wrote down")


# ---------------------------------------------------------------------------------------
# The violation codes page


def test_every_violation_code_has_its_section_and_no_other() -> None:
    page = f"{REF}/violations.md"
    coded = {a for a, text in headings(page).items() if re.fullmatch(r"[a-z_]+", text)}
    assert coded == set(CODES)
    for code in CODES:
        assert headings(page)[code] == code


@pytest.mark.parametrize("code", list(CODES))
def test_violation_example_prints_what_the_page_shows(code: str, tmp_path: Path) -> None:
    text = section(f"{REF}/violations.md", code)
    blocks = FENCE.findall(text)
    for _lang, title, body in blocks:
        if title:
            (tmp_path / title).write_text(body, "utf-8")
    for lang, title, _body in blocks:
        if lang == "python" and title:
            subprocess.run([sys.executable, title], cwd=tmp_path, check=True, timeout=120)
    [shown] = [body for lang, title, body in blocks if body.startswith("$ maumau-log ")]
    command, _, expected = shown.partition("\n")
    args = command.removeprefix("$ maumau-log ").split()
    uses_samples = any(a.startswith("sample_logs/") for a in args)
    result = run_cli(*args, cwd=ROOT if uses_samples else tmp_path)
    assert (result.stdout + result.stderr) == expected
    exit_code = re.search(r"Exit code \*\*(\d+)\*\*", text)
    assert exit_code is not None
    assert result.returncode == int(exit_code.group(1)) == 1
    report = re.search(rf"^  {code}: ", expected, re.MULTILINE)
    assert report is not None, f"the example of {code} shows another code"


# ---------------------------------------------------------------------------------------
# The reference pages


def test_format_page_has_the_sections_messages_cite() -> None:
    anchors = headings(f"{REF}/format.md")
    for name in (*FORMAT_SECTIONS, "Seats and turns", "The JSON Schema"):
        assert slug(name) in anchors, name
    assert "decisions" in anchors


@cache
def _event_validator() -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    root = ROOT / "schemas"
    registry: Registry = Registry()
    for path in sorted(root.rglob("*.schema.json")):
        contents = json.loads(path.read_text("utf-8"))
        resource = Resource.from_contents(contents)
        registry = registry.with_resource(path.relative_to(root).as_posix(), resource)
        registry = registry.with_resource(contents["$id"], resource)
    schema = json.loads((root / "event.schema.json").read_text("utf-8"))
    return Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize("event_type", EVENT_TYPES)
def test_every_event_type_has_a_heading_and_a_json_line_the_schema_accepts(
    event_type: str,
) -> None:
    page = f"{REF}/format.md"
    assert headings(page)[event_type] == event_type
    source = (DOCS / page).read_text("utf-8")
    part = source.split(f"### `{event_type}`", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    lines = [body for lang, _t, body in FENCE.findall(part) if lang == "json"]
    assert lines, f"no JSON example under {event_type}"
    for line in lines[0].splitlines():
        event = json.loads(line)
        assert event["type"] == event_type
        assert list(_event_validator().iter_errors(event)) == []


def test_format_pages_complete_example_validates(tmp_path: Path) -> None:
    text = section(f"{REF}/format.md", "a-complete-example")
    [body] = [body for lang, _t, body in FENCE.findall(text) if lang == "json"]
    (tmp_path / "example.jsonl").write_text(body, "utf-8")
    result = run_cli("validate", "example.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 game: 1 valid, 0 invalid" in result.stderr
    handwritten = (ROOT / "sample_logs/valid/classic_2p_handwritten.jsonl").read_text("utf-8")
    strip = [{k: v for k, v in json.loads(x).items() if k not in ("seq", "t", "meta")}
             for x in handwritten.splitlines()]  # fmt: skip
    assert [json.loads(x) for x in body.splitlines()] == strip


def test_rulings_page_numbers_rulings_1_to_25_in_order() -> None:
    anchors = [a for a in headings(f"{REF}/rulings.md") if a.startswith("ruling-")]
    assert anchors == [f"ruling-{n}" for n in range(1, 26)]


def test_rules_page_numbers_sections_1_to_12_in_order() -> None:
    anchors = [a for a in headings(f"{REF}/rules.md") if a.startswith("section-")]
    assert anchors == [f"section-{n}" for n in range(1, 13)]
    assert "what-every-system-shares" in headings(f"{REF}/rules.md")


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"docs_hook_{name}", DOCS / "hooks" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_preset_has_its_heading_and_generated_table() -> None:
    tables = _hook("reference_tables")
    source = (DOCS / REF / "presets.md").read_text("utf-8")
    names = [p.stem for p in (ROOT / "maumau_log" / "rules" / "presets").glob("*.toml")]
    presets = sorted(n for n in names if n != "defaults")
    assert len(presets) == 12
    for name in presets:
        assert headings(f"{REF}/presets.md")[name] == name
        assert f"<!-- preset-options: {name} -->" in source
    rendered = tables.expand(source)
    assert "<!--" not in rendered
    serbian = tables.preset_options("serbian")
    assert "| [`hand_size`](options.md#hand_size) | `6` | **the preset** |" in serbian
    assert (
        '| [`draw_previous`](options.md#draw_previous) | `{"2C": 4}` | **the preset** |' in serbian
    )
    assert "| [`jokers`](options.md#jokers) | `0` | default |" in serbian
    assert "| [`call_last_wild`](options.md#call_last_wild) | `null` | default |" in serbian


def test_every_option_has_its_heading_and_generated_facts() -> None:
    tables = _hook("reference_tables")
    source = (DOCS / REF / "options.md").read_text("utf-8")
    with (ROOT / "maumau_log" / "rules" / "presets" / "defaults.toml").open("rb") as f:
        defaults = tomllib.load(f)["options"]
    assert set(defaults) == option_names()
    for name in option_names():
        assert headings(f"{REF}/options.md")[name] == name
        assert f"<!-- option-facts: {name} -->" in source
    assert "<!--" not in tables.expand(source)
    facts = tables.option_facts("draw_answer")
    assert '- **type**: one of `"none"`, `"same_rank"`, `"any_draw_card"`' in facts
    assert '- **default**: `"none"`' in facts
    assert '[`serbian`](presets.md#serbian): `"same_rank"`' in facts


def test_cli_reference_has_every_command_and_option() -> None:
    # the hook walks the app as click commands; click comes with the docs extra (mkdocs
    # needs it), not with typer itself, so a checkout without that extra skips this test
    pytest.importorskip("click")
    cli = _hook("cli_reference")
    root = cli.root_command()
    paths = {" ".join(path) for path, _command in cli.walk(root)}
    expected = {
        "analyze", "audit", "bots", "bots ladder", "compact", "compare", "convert", "game",
        "import", "import openspiel", "ingest", "match", "query", "ratings", "review", "rules",
        "simulate", "stats", "validate", "verify", "view",
    }  # fmt: skip
    assert paths == expected
    page = cli.render(root)
    for path in expected:
        assert f"`maumau-log {path}` {{#{path.replace(' ', '-')}}}" in page
    validate = page.split("{#validate}", 1)[1].split("\n## ", 1)[0]
    for option in ("`--rules`", "`--json`", "`--jobs`, `-j`", "`--engine`", "`--address`"):
        assert option in validate
    assert "maumau-log validate [OPTIONS] PATH..." in validate


def test_shuffle_reference_implementation_reproduces_the_test_vectors() -> None:
    text = (DOCS / REF / "shuffle.md").read_text("utf-8")
    [code] = [body for lang, title, body in FENCE.findall(text) if title == "fair_shuffle.py"]
    namespace: dict[str, Any] = {}
    exec(compile(code, "fair_shuffle.py", "exec"), namespace)
    vectors = json.loads((ROOT / "schemas" / "shuffle-vectors.json").read_text("utf-8"))
    assert len(vectors["vectors"]) == 13
    for vector in vectors["vectors"]:
        assert namespace["shuffle"](vector["input"], vector["seed"]) == vector["shuffled"]
        assert hashlib.sha256(vector["seed"].encode()).hexdigest() == vector["commitment"]
    ranks32 = ["7", "8", "9", "10", "J", "Q", "K", "A"]
    assert namespace["pack"](ranks32) == vectors["vectors"][0]["input"]


def test_docs_name_no_issue_session_or_branch_tag() -> None:
    pattern = re.compile(r"issue [0-9]+|session [0-9]+|\bs[0-9]+[a-z]\b", re.IGNORECASE)
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted(DOCS.rglob("*"))
        if path.is_file() and path.suffix in (".md", ".py", ".yml")
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


# ---------------------------------------------------------------------------------------
# The built site (where the docs extra is installed)


def test_site_builds_with_every_cited_anchor(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    rules = validated_rule_strings() | source_rule_strings() | example_rule_strings()
    for page, anchor in {t for rule in rules for t in targets(rule)}:
        built = site / page.removesuffix(".md") / "index.html"
        assert built.exists(), page
        if anchor is not None:
            assert f'id="{anchor}"' in built.read_text("utf-8"), f"{page}#{anchor}"
