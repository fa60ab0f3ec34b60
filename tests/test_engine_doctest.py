"""The engine's doctests (STYLE.md habit 15), run against whichever build is loaded: the
compiled modules cannot be collected by ``--doctest-modules`` and keep no class docstrings,
so the examples are read from the source and run here."""

from __future__ import annotations

import ast
import doctest
from pathlib import Path

import maumau_log.engine as engine
from maumau_log.engine import Engine


def test_engine_doctest() -> None:
    source = Path(engine.__file__).with_name("core.py").read_text(encoding="utf-8")
    cls = next(
        n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "Engine"
    )
    doc = ast.get_docstring(cls) or ""
    test = doctest.DocTestParser().get_doctest(doc, {"Engine": Engine}, "Engine", "core.py", 0)
    assert len(test.examples) >= 6, "the Engine docstring's examples were not found"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_compiled_flag_matches_the_loaded_modules() -> None:
    core = engine.core.__file__ or ""
    compiled = not core.endswith(".py")
    assert compiled is engine.COMPILED
