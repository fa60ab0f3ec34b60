"""The pyarrow-free layout (start-up of ``stats``): one definition of the columns,
the same schemas as before, and a ``stats`` process that never imports pyarrow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from maumau_log.store.layout import ALL_TABLES, COLUMNS, polars_schema
from maumau_log.store.schema import MATCH_TOTAL, RESULTS_SCHEMA, SCHEMAS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("table", ALL_TABLES)
def test_polars_schema_is_the_arrow_schema(table: str) -> None:
    """Built without pyarrow, the Polars schema is what Polars makes of the Arrow one."""
    from_arrow = pl.from_arrow(SCHEMAS[table].empty_table())
    assert isinstance(from_arrow, pl.DataFrame)
    assert polars_schema(table) == from_arrow.schema
    assert SCHEMAS[table].names == [name for name, _ in COLUMNS[table]]


def test_arrow_types_by_hand() -> None:
    """A few types written out: the codes map to the Arrow types of version 2 (seats and
    counts 32-bit, points and scores 64-bit: store_layout.COLUMNS gives the bounds)."""
    assert RESULTS_SCHEMA.field("seat").type == pa.int32()
    assert RESULTS_SCHEMA.field("cards_left").type == pa.int32()
    assert RESULTS_SCHEMA.field("points_left").type == pa.int64()
    assert RESULTS_SCHEMA.field("turns").type == pa.int32()
    assert SCHEMAS["games"].field("n_players").type == pa.int32()
    assert SCHEMAS["games"].field("source_line").type == pa.int64()
    assert SCHEMAS["games"].field("content_hash").type == pa.int64()
    assert SCHEMAS["games"].field("ingested_at").type == pa.timestamp("ms", tz="UTC")
    assert SCHEMAS["events"].field("hand_sizes").type == pa.list_(pa.int32())
    assert SCHEMAS["events"].field("pending_draw").type == pa.int64()
    assert SCHEMAS["events"].field("direction").type == pa.int8()
    assert SCHEMAS["matches"].field("totals").type == pa.list_(MATCH_TOTAL)
    assert pa.struct([("player", pa.string()), ("total", pa.int64())]) == MATCH_TOTAL
    assert SCHEMAS["audit_events"].field("ms").type == pa.float64()
    assert len(RESULTS_SCHEMA) == 30


def test_stats_process_imports_no_pyarrow(tmp_path: Path) -> None:
    """``maumau-log stats`` (a missing dataset: exit 2) loads neither pyarrow, NumPy nor
    pandas, nor the replay stack: the imports that made its start-up take 0.8 s."""
    code = (
        "import sys\n"
        "sys.argv = ['maumau-log', 'stats', sys.argv[1]]\n"
        "from maumau_log.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pyarrow', 'numpy', 'pandas'})\n"
        "replay = sorted(m for m in sys.modules if m.startswith(('maumau_log.engine', "
        "'maumau_log.run.runners', 'maumau_log.run.shard', 'maumau_log.replay.driver')))\n"
        "print(code, heavy, replay)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "nothing")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "2 [] []"
