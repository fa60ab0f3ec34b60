"""An interrupted command's process ends at once with exit 130 (the command line's exit
codes), without the interpreter's exit handlers, which could wait forever on the threads of
a process pool whose workers were just killed; a loaded Ray is shut down first."""

from __future__ import annotations

import sys
import types

import pytest

import maumau_log.cli
import maumau_log.launch as launch


class _Ended(Exception):
    """Stands in for the end of the process."""


def _interrupted_main() -> None:
    raise SystemExit(130)


def test_an_interrupted_command_ends_the_process_with_130_after_stopping_ray(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def exit_now(code: int) -> None:
        calls.append(f"exit {code}")
        raise _Ended

    fake_ray = types.SimpleNamespace(shutdown=lambda: calls.append("ray.shutdown"))
    monkeypatch.setattr(launch.os, "_exit", exit_now)
    monkeypatch.setitem(sys.modules, "ray", fake_ray)
    monkeypatch.setattr(maumau_log.cli, "main", _interrupted_main)
    monkeypatch.setattr(sys, "argv", ["maumau-log", "ingest"])
    with pytest.raises(_Ended):
        launch.run()
    assert calls == ["ray.shutdown", "exit 130"]


def test_an_ordinary_exit_code_goes_through_the_usual_teardown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def exit_now(code: int) -> None:
        raise AssertionError(f"os._exit({code}) on an ordinary exit")

    monkeypatch.setattr(launch.os, "_exit", exit_now)
    monkeypatch.setattr(maumau_log.cli, "main", lambda: sys.exit(1))
    monkeypatch.setattr(sys, "argv", ["maumau-log", "stats"])
    with pytest.raises(SystemExit) as exc:
        launch.run()
    assert exc.value.code == 1
