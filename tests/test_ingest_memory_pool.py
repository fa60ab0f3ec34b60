"""An ingest builds its Arrow data with the C library's allocator and gives pyarrow's
default pool back afterwards (store/rows.py, ``ingest_memory_pool``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from maumau_log.run.ingest import ingest
from maumau_log.store.rows import ingest_memory_pool

SAMPLE = Path(__file__).resolve().parent.parent / "sample_logs"


def test_ingest_memory_pool_is_the_system_pool_inside_and_the_old_one_after():
    before = pa.default_memory_pool().backend_name
    with ingest_memory_pool():
        assert pa.default_memory_pool().backend_name == "system"
        assert pa.array([1, 2, 3], pa.int32()).buffers()[1] is not None
    assert pa.default_memory_pool().backend_name == before


def test_ingest_memory_pool_restores_the_old_pool_after_an_error():
    before = pa.default_memory_pool().backend_name
    try:
        with ingest_memory_pool():
            raise KeyError("x")
    except KeyError:
        pass
    assert pa.default_memory_pool().backend_name == before


def test_an_ingest_leaves_pyarrows_default_pool_as_it_was(tmp_path, monkeypatch):
    seen: list[str] = []
    import maumau_log.run.ingest as ingest_module

    real = ingest_module._merge_results

    def spy(*a, **k):
        seen.append(pa.default_memory_pool().backend_name)
        return real(*a, **k)

    monkeypatch.setattr(ingest_module, "_merge_results", spy)
    before = pa.default_memory_pool().backend_name
    logs = sorted((SAMPLE / "valid").glob("*.jsonl"))[:1]
    summary = ingest(logs, tmp_path / "ds")
    assert seen == ["system"]
    assert summary.added >= 1
    assert pa.default_memory_pool().backend_name == before
