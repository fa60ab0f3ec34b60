"""maumau-log: replay, validate and analyse Mau-Mau family game logs.

Data flows one way: :mod:`~maumau_log.logs` -> :mod:`~maumau_log.events` ->
:mod:`~maumau_log.engine` (under a :mod:`~maumau_log.rules` ruleset) ->
:mod:`~maumau_log.replay` -> :mod:`~maumau_log.store` and :mod:`~maumau_log.run` ->
:mod:`~maumau_log.stats`, :mod:`~maumau_log.audit`, :mod:`~maumau_log.disputes` ->
:mod:`~maumau_log.cli` and :mod:`~maumau_log.api`.

The public API (:mod:`maumau_log.api`, docs/reference/python-api.md) is exported here and
loads when first used, so ``import maumau_log`` imports neither Polars nor pyarrow:

>>> import maumau_log as m
>>> m.validate(["sample_logs/valid"]).ok
True
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from . import _select  # noqa: F401  (compiled or pure-Python modules: before any of them)

if TYPE_CHECKING:
    from .api import (
        AuditReport,
        Dataset,
        GameReplay,
        IngestSummary,
        LogWriter,
        ReplayedEvent,
        Report,
        Table,
        ingest,
        open_dataset,
        validate,
    )
    from .violations import Violation

__all__ = [
    "AuditReport",
    "Dataset",
    "GameReplay",
    "IngestSummary",
    "LogWriter",
    "ReplayedEvent",
    "Report",
    "Table",
    "Violation",
    "__version__",
    "audit",
    "ingest",
    "open_dataset",
    "replay",
    "validate",
]


class _CallableSubpackage(types.ModuleType):
    """A subpackage whose name is also a public function: ``maumau_log.replay`` is the
    :mod:`maumau_log.replay` package (``import maumau_log.replay.driver`` works as ever)
    and, called, :func:`maumau_log.api.replay`; ``maumau_log.audit`` likewise is the
    :mod:`maumau_log.audit` package and :func:`maumau_log.api.audit`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call :func:`maumau_log.api.replay` (or :func:`maumau_log.api.audit`): see
        ``help(maumau_log.api.replay)``."""
        from . import api

        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)


_CALLABLE = ("replay", "audit")
"""The public functions named like a subpackage (see :class:`_CallableSubpackage`)."""


class _Package(types.ModuleType):
    """This package's module type: a subpackage of :data:`_CALLABLE` becomes callable as
    the import system attaches it here."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _CALLABLE and type(value) is types.ModuleType:
            value.__class__ = _CallableSubpackage
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in _CALLABLE:
        return importlib.import_module(f"{__name__}.{name}")
    if name in __all__ and name != "__version__":
        from . import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
