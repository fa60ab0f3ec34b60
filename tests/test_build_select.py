"""The compiled/pure-Python choice (``maumau_log/_select.py``): which modules the
compiled build holds, that the build hook compiles the same list, and that
``MAUMAU_LOG_PURE_PYTHON=1`` loads every one of them from its ``.py`` source."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from maumau_log import _select

ROOT = Path(__file__).resolve().parent.parent


def _hatch_build() -> object:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compilable_modules_and_the_build_hook_agree() -> None:
    pkg = ROOT / "maumau_log"
    assert _select.source_of("maumau_log.openspiel.port") == pkg / "openspiel" / "port.py"
    assert _select.source_of("maumau_log.openspiel.convert") == pkg / "openspiel" / "convert.py"
    assert _select.source_of("maumau_log.engine.core") == pkg / "engine" / "core.py"
    assert _select.source_of("maumau_log.engine.shuffle") == pkg / "engine" / "shuffle.py"
    assert _select.source_of("maumau_log.scoring.rounds") == pkg / "scoring" / "rounds.py"
    assert _select.source_of("maumau_log.replay.driver") == pkg / "replay" / "driver.py"
    assert _select.source_of("maumau_log.replay.checks") == pkg / "replay" / "checks.py"
    assert _select.source_of("maumau_log.replay.report") == pkg / "replay" / "report.py"
    never_compiled = (
        "maumau_log.engine", "maumau_log.engine.__init__", "maumau_log.engine._select",
        "maumau_log.openspiel.sources", "maumau_log.run.shard", "maumau_log._select",
    )  # fmt: skip
    for never in never_compiled:
        assert _select.source_of(never) is None, never
    hook = _hatch_build()
    built = {Path(p) for p in hook.sources()}  # type: ignore[attr-defined]
    engine = {p for p in (pkg / "engine").glob("*.py") if p.stem not in ("__init__", "_select")}
    openspiel = {pkg / "openspiel" / f"{m}.py" for m in ("port", "convert", "lines")}
    extra = (
        "scoring/rounds", "replay/driver", "replay/checks", "replay/report", "store/collector",
        "store/counters", "store/facts",
    )  # fmt: skip
    assert built == engine | openspiel | {pkg / f"{m}.py" for m in extra}
    names = {".".join(("maumau_log", *p.relative_to(pkg).with_suffix("").parts)) for p in built}
    assert {n for n in names if _select.source_of(n) is not None} == names


def test_pure_python_switch_loads_the_port_and_engine_from_source() -> None:
    code = (
        "import maumau_log.openspiel as o, maumau_log.engine as e, maumau_log.engine.core as c\n"
        "print(o.COMPILED, e.COMPILED, o.port.__file__.endswith('port.py'),"
        " c.__file__.endswith('core.py'))\n"
    )
    env = dict(os.environ, MAUMAU_LOG_PURE_PYTHON="1", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT)  # fmt: skip
    assert res.stdout.split() == ["False", "False", "True", "True"]


def test_an_inlined_module_edited_after_the_build_makes_it_stale(tmp_path: Path) -> None:
    # mypyc copies Final literals of openspiel/actions.py and cards.py into
    # the compiled modules, so an edit of either after the build leaves them stale
    (tmp_path / "openspiel").mkdir()
    for m in _select.INLINED:
        (tmp_path / m).write_text("X = 1\n")
        os.utime(tmp_path / m, (1000.0, 1000.0))
    assert _select.inlined_stale(tmp_path, 2000.0) == []
    assert _select.inlined_stale(tmp_path, None) == []
    os.utime(tmp_path / "openspiel" / "actions.py", (3000.0, 3000.0))
    assert _select.inlined_stale(tmp_path, 2000.0) == ["openspiel/actions.py"]
    assert {m for m in _select.INLINED} == {"cards.py", "openspiel/actions.py"}
    assert all((ROOT / "maumau_log" / m).is_file() for m in _select.INLINED)
