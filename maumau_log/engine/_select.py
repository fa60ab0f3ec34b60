"""Choose between the compiled and the pure-Python engine modules (issue 12).

The compiled build (mypyc) puts extension modules beside the ``.py`` files; Python imports
an extension module before the source of the same name. With ``MAUMAU_LOG_PURE_PYTHON=1``
in the environment, a finder placed first on ``sys.meta_path`` loads this package's modules
from their ``.py`` source instead, so CI runs the whole suite against both builds from one
install. An extension older than its ``.py`` file (the source was edited or merged after
the build) would run stale code: then the whole package runs from source too, with a
warning (rebuild with ``python hatch_build.py``). This module is never compiled.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = __name__.rpartition(".")[0]
HERE = Path(__file__).resolve().parent
PURE = os.environ.get("MAUMAU_LOG_PURE_PYTHON", "") not in ("", "0")


class _SourceFirst:
    """A meta path finder: this package's submodules from their ``.py`` files."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith(PACKAGE + "."):
            return None
        source = HERE / (name.rpartition(".")[2] + ".py")
        if not source.is_file():
            return None
        loader = importlib.machinery.SourceFileLoader(name, str(source))
        return importlib.util.spec_from_file_location(name, source, loader=loader)


def _stale() -> list[str]:
    """Compiled modules whose ``.py`` source is newer than the extension."""
    out = []
    for ext in HERE.glob("*.so"):
        source = HERE / (ext.name.split(".", 1)[0] + ".py")
        if source.is_file() and source.stat().st_mtime > ext.stat().st_mtime:
            out.append(source.name)
    return out


if not PURE:
    _old = _stale()
    if _old:
        warnings.warn(
            f"maumau_log.engine: the compiled build is older than {', '.join(sorted(_old))}; "
            "running pure Python (rebuild with `python hatch_build.py`)",
            RuntimeWarning,
            stacklevel=2,
        )
        PURE = True
if PURE and not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
    sys.meta_path.insert(0, _SourceFirst())


def compiled() -> bool:
    """True when the engine's core module was loaded from a compiled extension."""
    core = sys.modules.get(PACKAGE + ".core")
    origin = getattr(core, "__file__", "") or ""
    return not origin.endswith(".py")
