"""``--since`` and ``--until``, the date window shared by ``stats``, ``ratings`` and
``audit`` (:class:`maumau_log.store.layout.DateWindow`: a game's date is its ``date``
partition; once a bound is given, games with no known date are left out)."""

from __future__ import annotations

from typing import Annotated

import typer

SinceOpt = Annotated[str | None, typer.Option(help="Only games dated on or after YYYY-MM-DD.")]
UntilOpt = Annotated[str | None, typer.Option(help="Only games dated on or before YYYY-MM-DD.")]
