"""The engine package's shape: a one-way import graph, modules under
about 600 lines, each naming the rules it implements, and the public API in place."""

from __future__ import annotations

import ast
from pathlib import Path

import maumau_log.engine as engine

PACKAGE = Path(engine.__file__).resolve().parent
# bottom to top: a module may import only modules before it
ORDER = [
    "shuffle", "errors", "tables", "state", "partial", "fair", "stock", "legality", "actions",
    "turns", "covers", "plays", "draws", "calls", "deal", "ending", "core",
]  # fmt: skip


def _engine_imports(name: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{name}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return found


def test_every_module_is_placed_in_the_order() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "_select"}
    assert modules == set(ORDER)


def test_imports_run_one_way() -> None:
    for i, name in enumerate(ORDER):
        later = _engine_imports(name) - set(ORDER[:i])
        assert not later, f"{name} imports {later}, which are not below it"


def test_modules_are_small_and_name_their_rules() -> None:
    for name in ORDER:
        path = PACKAGE / f"{name}.py"
        lines = path.read_text(encoding="utf-8").count("\n")
        assert lines <= 600, f"{name}.py has {lines} lines"
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert any(src in doc for src in ("RULES.md", "PRESETS.md", "FORMAT.md", "STYLE.md",
                                          "README")), name  # fmt: skip


def test_public_api_is_exported() -> None:
    for name in ("Engine", "RuleViolation", "Action", "normalize_call", "PLAY", "SETUP", "OUT",
                 "ENDED", "FINISHED", "HIDDEN", "COMPILED"):  # fmt: skip
        assert hasattr(engine, name), name
    assert isinstance(engine.COMPILED, bool)
    assert issubclass(engine.RuleViolation, Exception)


def test_deep_copy_copies_every_declared_field() -> None:
    # State.__deepcopy__ lists the fields (the compiled classes have no __dict__)
    from maumau_log.engine import state

    tree = ast.parse((PACKAGE / "state.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "State")
    declared = {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}  # type: ignore[union-attr]
    assert set(state._COPIED) == declared - set(state._SHARED)
    assert set(state._SHARED) <= declared
