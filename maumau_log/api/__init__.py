"""The public Python API: the library the command line is built on.

Every name here is exported from :mod:`maumau_log` too (``import maumau_log as m;
m.validate(...)``) and documented in docs/reference/python-api.md. The names load lazily,
so ``import maumau_log`` stays cheap: Polars and pyarrow are imported only by the dataset's
names (:func:`open_dataset`, :func:`ingest`, :func:`audit`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..audit import AuditReport
    from ..run.ingest import IngestSummary
    from ..violations import Violation
    from .dataset import Dataset, audit, ingest, open_dataset
    from .games import GameReplay, ReplayedEvent, replay
    from .table import Table
    from .validation import Report, validate
    from .writer import LogWriter

_LAZY: dict[str, str] = {
    "validate": "validation",
    "Report": "validation",
    "replay": "games",
    "GameReplay": "games",
    "ReplayedEvent": "games",
    "Table": "table",
    "LogWriter": "writer",
    "open_dataset": "dataset",
    "Dataset": "dataset",
    "ingest": "dataset",
    "IngestSummary": "..run.ingest",
    "audit": "dataset",
    "Violation": "..violations",
    "AuditReport": "..audit",
}
"""Each public name and the module of this package that defines it."""

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
    "audit",
    "ingest",
    "open_dataset",
    "replay",
    "validate",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module.startswith(".."):
        value = getattr(importlib.import_module(module[1:], "maumau_log"), name)
    else:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
