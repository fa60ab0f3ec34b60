"""Hatch build hook: compile the engine's hot modules with mypyc when a C compiler is there.

The compiled build is optional (issue 12). ``pip install -e ".[dev]"`` (or a wheel build)
runs this hook: with a C compiler and the Python headers it compiles
``maumau_log/engine/*.py`` and :data:`EXTRA` (the OpenSpiel import's port and conversion,
the modules the engine calls per game, ``scoring/rounds.py``, and the replay
driver ``replay/driver.py``), the same
source, into extension modules beside the ``.py`` files, which Python then imports first;
without a compiler, or when compiling fails, it says so and the install goes on in pure
Python. ``MAUMAU_LOG_NO_COMPILE=1`` skips it.
``maumau_log.engine.COMPILED`` and ``maumau_log.openspiel.COMPILED`` say which build runs
(``maumau_log/_select.py`` makes the choice; ``MAUMAU_LOG_PURE_PYTHON=1`` forces the
source). In the style of black's mypyc build (``hatch-mypyc``), but failing soft.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script (python hatch_build.py) outside a build
    BuildHookInterface = object

ROOT = Path(__file__).resolve().parent
ENGINE = ROOT / "maumau_log" / "engine"
# never compiled: the package's __init__ and the pure-Python switch
INTERPRETED = {"__init__.py", "_select.py"}
EXTRA = [
    "openspiel/port.py",
    "openspiel/convert.py",
    "openspiel/lines.py",
    "scoring/rounds.py",
    "replay/driver.py",
    "replay/checks.py",
    "replay/report.py",
    "store/collector.py",
    "store/counters.py",
    "store/facts.py",
]
"""Modules compiled besides the engine, under ``maumau_log/`` (``maumau_log._select.EXTRA``
names the same: the pure-Python switch must know every compiled module). ``replay/driver.py`` is
the per-line replay driver (28% of a compiled validate ran there when it was interpreted)."""
GROUP = "maumau_log.engine"

SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(
    name="maumau-log-engine",
    ext_modules=mypycify(sys.argv[1:], opt_level="3", group_name={group!r}),
    script_args=["build_ext", "--build-lib", "out", "--build-temp", "tmp"],
)
"""


def sources() -> list[str]:
    """The modules to compile (absolute paths): the engine's and :data:`EXTRA`."""
    engine = [p for p in ENGINE.glob("*.py") if p.name not in INTERPRETED]
    return sorted(str(p) for p in engine + [ROOT / "maumau_log" / e for e in EXTRA])


def have_compiler() -> bool:
    """A C compiler and the Python headers are present."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    include = sysconfig.get_paths().get("include", "")
    return shutil.which(cc.split()[0]) is not None and Path(include, "Python.h").is_file()


def compile_engine() -> list[Path]:
    """Compile in a scratch folder, then put the extensions beside the sources; returns
    the extension files made (empty when it could not)."""
    if os.environ.get("MAUMAU_LOG_NO_COMPILE", "") not in ("", "0"):
        print("maumau-log: MAUMAU_LOG_NO_COMPILE set, engine stays pure Python", file=sys.stderr)
        return []
    if not have_compiler():
        print("maumau-log: no C compiler/Python headers, engine stays pure Python", file=sys.stderr)
        return []
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    with tempfile.TemporaryDirectory() as tmp:
        # mypyc type-checks what the engine imports; errors outside the engine (or stubs
        # missing in an isolated build) must not stop it: only the engine's own count
        Path(tmp, "mypy.ini").write_text(
            "[mypy]\nignore_missing_imports = True\nfollow_imports = silent\n"
            f"python_version = {sys.version_info[0]}.{sys.version_info[1]}\n",
            encoding="utf-8",
        )
        cmd = [sys.executable, "-c", SETUP.format(group=GROUP), *sources()]
        try:
            res = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"maumau-log: compiling the engine failed ({exc}); pure Python", file=sys.stderr)
            return []
        if res.returncode != 0:
            print(
                "maumau-log: compiling the engine failed, it stays pure Python:\n"
                + (res.stdout + res.stderr)[-3000:],
                file=sys.stderr,
            )
            return []
        made = []
        out = Path(tmp, "out")
        for ext in out.glob(f"**/*{suffix}"):
            rel = ext.relative_to(out)
            dest = ROOT / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ext, dest)
            dest.touch()  # newer than the sources: maumau_log.engine._select uses it
            made.append(dest)
    return sorted(made)


class CustomBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Compile the engine with mypyc when possible (see the module doc)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        made = compile_engine()
        if not made or version == "editable":
            return  # an editable install imports the extensions from the source tree
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data.setdefault("artifacts", []).extend(str(p.relative_to(ROOT)) for p in made)


if __name__ == "__main__":  # rebuild in place after editing the engine: python hatch_build.py
    print("\n".join(str(p) for p in compile_engine()) or "nothing compiled")
