"""The Parquet write options per table: zstd level 3 for ``events``, 6 for the others, and
the same rows read back at either level (the level changes a file's bytes only)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from maumau_log.store import ALL_TABLES, SCHEMAS, writer_options


def test_events_are_written_at_zstd_level_3_and_every_other_table_at_6() -> None:
    levels = {name: writer_options(name)["compression_level"] for name in ALL_TABLES}
    assert levels == {name: 3 if name == "events" else 6 for name in ALL_TABLES}
    assert all(writer_options(name)["compression"] == "zstd" for name in ALL_TABLES)
    # the delta-encoded counters keep their encoding beside the level
    assert writer_options("events")["column_encoding"] == {
        "event_index": "DELTA_BINARY_PACKED",
        "line": "DELTA_BINARY_PACKED",
    }


def test_events_read_back_the_same_at_level_3_and_level_6(tmp_path: Path) -> None:
    n = 2_000
    table = pa.Table.from_pylist(
        [
            {
                "game_id": f"g{i // 50}",
                "event_index": i % 50,
                "line": i + 1,
                "type": "play" if i % 3 else "draw",
                "player": f"p{i % 4}",
                "cards": None if i % 7 == 0 else [f"{'HSDC'[i % 4]}{i % 13}"],
                "pending_draw": i % 5,
                "pending_skip": 0,
                "direction": 1 if i % 11 else -1,
                "hand_sizes": [5, 4, 6, i % 9],
                "raw": f'{{"type":"play","player":"p{i % 4}","n":{i}}}',
            }
            for i in range(n)
        ],
        schema=SCHEMAS["events"],
    )
    read = []
    for level in (3, 6):
        path = tmp_path / f"events-{level}.parquet"
        options = {**writer_options("events"), "compression_level": level}
        with pq.ParquetWriter(path, SCHEMAS["events"], **options) as out:
            out.write_table(table)
        read.append(pq.read_table(path, schema=SCHEMAS["events"]))
    assert read[0].equals(read[1]) and read[0].equals(table)
