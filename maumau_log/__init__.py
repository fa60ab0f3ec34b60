"""maumau-log: replay, validate and analyse Mau-Mau family game logs.

Data flows one way: :mod:`logfile` -> :mod:`events` -> :mod:`engine` (under a
:mod:`rules` ruleset) -> :mod:`replay` reports -> :mod:`records` rows -> :mod:`store`
(Parquet) -> :mod:`stats` (Polars) -> :mod:`cli`.
"""

__version__ = "0.1.0"

from . import _select  # noqa: F401  (compiled or pure-Python modules: before any of them)
