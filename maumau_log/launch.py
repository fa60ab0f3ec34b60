"""The process entry point of ``maumau-log`` (the console script) and ``python -m maumau_log``.

Only the start of a whole process comes here; :func:`maumau_log.cli.main` stays the function
tests and other programs call in their own process.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

QUICK_EXIT = frozenset({"validate", "import"})
"""Commands whose process ends without the interpreter's teardown (freeing every module
and object one by one: 1-2.5% of their instructions). They write their files in
``with`` blocks, so nothing is left to flush but stdout and stderr."""

_CODE: list[int] = []
"""The exit code of the command (set when it ends with an ordinary one)."""


def _quick_exit() -> None:
    """The last exit handler (registered before any other): after the other handlers and
    the wait for non-daemon threads, flush stdout and stderr and end the process with the
    command's exit code. When a flush fails (a closed pipe), return: the interpreter's own
    teardown then reports it exactly as it would have."""
    if not _CODE:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:
        return
    os._exit(_CODE[0])


def run() -> None:
    """Run the command line in this process (its exit is :func:`maumau_log.cli.main`'s).

    The collector is off from before the command line's imports (typer, rich, the command's
    modules: start-up makes only objects that live to the end of the process) until
    :func:`maumau_log.cli.main` has built the command tree, frozen what start-up made and
    turned it back on (the collections during the CLI's imports were ~3% of a
    short command's instructions). A command of :data:`QUICK_EXIT` skips the teardown (see
    :func:`_quick_exit`) when no exit handler was registered before this one, so it runs
    after all of them.
    """
    gc.disable()
    count = getattr(atexit, "_ncallbacks", None)
    if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT and count is not None and count() == 0:
        atexit.register(_quick_exit)
    from .cli import main

    try:
        main()
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code
        if code == INTERRUPTED_EXIT:
            end_interrupted()
        if type(code) is int and 0 <= code <= 255:
            _CODE.append(code)
        raise


INTERRUPTED_EXIT = 130
"""The exit code of Ctrl-C (:mod:`maumau_log.cli`'s exit codes)."""


def end_interrupted() -> None:
    """End an interrupted command's process now, with exit code 130.

    By the time :func:`maumau_log.cli.main` exits 130, the command's ``with`` blocks have
    unwound (an interrupted ingest has removed what it wrote) and the message is printed.
    The interpreter's exit handlers would then join the threads of a process pool whose
    workers were just killed, and that join can wait forever: ``ingest --jobs 2``
    interrupted under a loaded test run once printed its message and did not end within
    120 s. Ray, when the command loaded it, is shut down first, so that no local cluster
    outlives the command; stdout and stderr are flushed.
    """
    import contextlib

    ray = sys.modules.get("ray")
    if ray is not None:
        with contextlib.suppress(Exception):  # a cluster already gone: nothing to stop
            ray.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # a closed pipe: nothing more can be said
            pass
    os._exit(INTERRUPTED_EXIT)
