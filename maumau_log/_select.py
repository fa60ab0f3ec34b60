"""Choose between the compiled and the pure-Python modules.

The compiled build (mypyc, ``hatch_build.py``) puts extension modules beside the ``.py``
files of the engine package and of :data:`EXTRA` (the OpenSpiel port and conversion, the
fair shuffle, the round scores and match totals, the replay driver); Python imports an
extension module before the source of the same name. With ``MAUMAU_LOG_PURE_PYTHON=1`` in
the environment, an import hook placed first on ``sys.meta_path`` loads those modules from their
``.py`` source instead, so CI runs the whole suite against both builds from one install. An
extension older than its ``.py`` file (the source was edited or merged after the build)
would run stale code: then every compilable module runs from source, with a warning (rebuild
with ``python hatch_build.py``). Imported by ``maumau_log/__init__.py``, so it is in place
before any of those modules is; this module is never compiled.
"""

from __future__ import annotations

import importlib
import os
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

ROOT = Path(__file__).resolve().parent
PACKAGE = __name__.rpartition(".")[0]
ENGINE = PACKAGE + ".engine"
ENGINE_INTERPRETED = ("__init__", "_select")
"""Engine modules never compiled (the package's ``__init__`` and its re-export of this)."""
EXTRA = tuple(
    PACKAGE + "." + m
    for m in (
        "openspiel.port", "openspiel.convert", "openspiel.lines", "scoring.rounds",
        "replay.driver", "replay.checks", "replay.report", "store.collector", "store.counters",
        "store.facts",
    )
)  # fmt: skip
"""Compiled modules outside the engine package: the OpenSpiel port and the conversion of its
trace into log lines, the fair shuffle, the round scores and match totals, the replay
driver and its per-game checks and report (``hatch_build.EXTRA`` lists the same)."""
INLINED = ("cards.py", "openspiel/actions.py")
"""Interpreted modules (under ``maumau_log/``) whose ``Final`` constants the compiled modules
copy at build time (mypyc inlines a ``Final`` literal of an imported module): an extension
older than one of them holds its old values, so it is stale too."""
PURE = os.environ.get("MAUMAU_LOG_PURE_PYTHON", "") not in ("", "0")


def _compilable(name: str) -> bool:
    """True for a module the compiled build may hold as an extension module."""
    if name in EXTRA:
        return True
    package, _, stem = name.rpartition(".")
    return package == ENGINE and stem not in ENGINE_INTERPRETED


def source_of(name: str) -> Path | None:
    """The ``.py`` file of a compilable module ``name``, or None for any other module."""
    if not _compilable(name):
        return None
    return ROOT.joinpath(*name.split(".")[1:]).with_suffix(".py")


class _SourceFirst:
    """A ``sys.meta_path`` entry: the compilable modules from their ``.py`` files."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = source_of(name)
        if source is None or not source.is_file():
            return None
        loader = importlib.machinery.SourceFileLoader(name, str(source))
        return importlib.util.spec_from_file_location(name, source, loader=loader)


def _stale() -> list[str]:
    """Sources newer than the compiled build: a compiled module's ``.py`` newer than its
    extension, or one of :data:`INLINED` newer than the oldest extension (paths relative to
    ``maumau_log/``). Runs at every start-up: plain ``os`` calls on path strings, no
    ``Path`` objects."""
    out = []
    oldest: float | None = None
    folders = {"engine"} | {"/".join(n.split(".")[1:-1]) for n in EXTRA}  # "": the package
    for folder in sorted(folders):
        where = os.path.join(ROOT, folder) if folder else str(ROOT)
        try:
            entries = [e for e in os.scandir(where) if e.name.endswith(".so")]
        except FileNotFoundError:
            continue
        for ext in entries:
            stem = ext.name.split(".", 1)[0]
            relative = f"{folder}/{stem}.py" if folder else f"{stem}.py"
            if not _compilable(".".join((PACKAGE, *relative[:-3].split("/")))):
                continue
            built = ext.stat().st_mtime
            oldest = built if oldest is None else min(oldest, built)
            if os.stat(os.path.join(where, f"{stem}.py")).st_mtime > built:
                out.append(relative)
    return out + inlined_stale(ROOT, oldest)


def inlined_stale(root: Path, oldest: float | None) -> list[str]:
    """The :data:`INLINED` modules under ``root`` changed after ``oldest`` (the oldest
    extension's mtime, seconds; None: no extension, nothing is stale)."""
    if oldest is None:
        return []
    return [m for m in INLINED if (root / m).is_file() and (root / m).stat().st_mtime > oldest]


def in_source_tree(root: str | Path) -> bool:
    """True for a package in its source tree (``pyproject.toml`` beside it: an editable
    install, where a ``.py`` edited or merged after the build makes an extension stale);
    False for an installed wheel, whose files are never edited, and whose ``.py`` files
    pip writes after the extensions of the same name (in the wheel's zip order), so their
    times say nothing about the build."""
    return os.path.isfile(os.path.join(os.path.dirname(root), "pyproject.toml"))


if not PURE and in_source_tree(ROOT):
    _old = _stale()
    if _old:
        warnings.warn(
            f"maumau_log: the compiled build is older than {', '.join(sorted(_old))}; "
            "running pure Python (rebuild with `python hatch_build.py`)",
            RuntimeWarning,
            stacklevel=2,
        )
        PURE = True
if PURE and not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
    # imported before the hook is in place (it uses them): only a pure run needs them
    import importlib.machinery
    import importlib.util

    sys.meta_path.insert(0, _SourceFirst())


def compiled(name: str) -> bool:
    """True when the module ``name`` (imported already) was loaded from a compiled
    extension, False for its ``.py`` source or when it is not imported."""
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", "") or ""
    return bool(origin) and not origin.endswith(".py")
