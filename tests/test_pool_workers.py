"""A pool worker keeps one shard's freed memory for the next (no page faults afresh per
shard) and leaves the objects inherited from the parent out of the garbage collector's
passes."""

from __future__ import annotations

import gc
import platform
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from maumau_log.run.runners import _pool

ROOT = Path(__file__).resolve().parent.parent

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"

_PASSES = textwrap.dedent(
    """
    import resource, sys
    from maumau_log.run.runners import keep_freed_memory
    if sys.argv[1] == "keep":
        print(keep_freed_memory())
    else:
        print(None)

    def faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    def one_shard():  # 64 MiB in 1 MiB blocks, freed at the end, as a shard's rows
        held = [bytearray(1 << 20) for _ in range(64)]
        del held

    one_shard()
    before = faults()
    for _ in range(3):
        one_shard()
    print((faults() - before) // 3)
    """
)


def _faults_per_pass(mode: str) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", _PASSES, mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    ).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_freed_memory_is_reused_not_faulted_in_again() -> None:
    # 64 MiB is 16,384 pages: with glibc's defaults each pass faults them all in again
    # (blocks of 1 MiB are mmapped and given back at free); kept, a pass faults none
    kept, faults = _faults_per_pass("keep")
    assert kept == "True"
    assert faults < 16_384 // 10
    default, faults_before = _faults_per_pass("default")
    assert default == "None"
    assert faults_before > 16_384 // 2


def _worker_state() -> tuple[bool, bool]:
    return gc.get_freeze_count() > 0, signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_pool_workers_freeze_the_inherited_objects_and_ignore_ctrl_c() -> None:
    # the CLI freezes its own process's objects (cli.main): unfreeze here, so that only the
    # worker's set-up can have frozen what the worker holds
    was_frozen = gc.get_freeze_count() > 0
    gc.unfreeze()
    try:
        pool = _pool(1)
        try:
            frozen, ignores = pool.submit(_worker_state).result(timeout=60)
        finally:
            pool.shutdown()
    finally:
        if was_frozen:
            gc.freeze()
    assert frozen and ignores
