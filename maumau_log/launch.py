"""The process entry point of ``maumau-log`` (the console script) and ``python -m maumau_log``.

Only the start of a whole process comes here; :func:`maumau_log.cli.main` stays the function
tests and other programs call in their own process.
"""

from __future__ import annotations

import gc


def run() -> None:
    """Run the command line in this process (its exit is :func:`maumau_log.cli.main`'s).

    The collector is off from before the command line's imports (typer, rich, the command's
    modules: start-up makes only objects that live to the end of the process) until
    :func:`maumau_log.cli.main` has built the command tree, frozen what start-up made and
    turned it back on (issue 12: the collections during the CLI's imports were ~3% of a
    short command's instructions).
    """
    gc.disable()
    from .cli import main

    main()
