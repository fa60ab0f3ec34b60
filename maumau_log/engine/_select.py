"""Which build of the engine runs (compiled with mypyc, or pure Python): the choice
itself is made by :mod:`maumau_log._select` (imported with the package ``maumau_log``,
before any engine module), which covers the OpenSpiel port too. This module is never compiled.
"""

from __future__ import annotations

from .. import _select

PACKAGE = __name__.rpartition(".")[0]
PURE = _select.PURE


def compiled() -> bool:
    """True when the engine's core module was loaded from a compiled extension."""
    return _select.compiled(PACKAGE + ".core")
