"""The dataset's rows, row for row: the collector (compiled when the build is) against
digests of the rows it built before it was compiled, and against its own source run as
Python.

The digests pin every table (events, games, results, violations, the audit's three) of
simulated games of every preset, whole and with one event dropped (a violation in the
middle of a game), and of every sample log (valid and violating): a change of a value, a
type, a null or a row's order in any of them changes a digest.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate
from maumau_log.events import encode_event
from maumau_log.replay.driver import Replayer
from maumau_log.rules import PRESET_NAMES
from maumau_log.store.collector import RecordCollector

ROOT = Path(__file__).resolve().parent.parent
PRESETS = sorted(PRESET_NAMES)
AT = datetime(2026, 1, 1, tzinfo=UTC)
SAMPLES = sorted(
    p
    for p in (ROOT / "sample_logs").rglob("*.jsonl*")
    if "openspiel" not in p.parts and not p.name.startswith("not_a_log")  # not a text log
)


def game_lines(preset: str, players: int, games: int, seed: int, drop: int | None) -> list[bytes]:
    """Simulated games as log lines; ``drop``: leave out each game's event of that index
    (counted from the header; an index past the end drops nothing)."""
    out = []
    for events in simulate(preset, players, games, seed):
        for i, ev in enumerate(events):
            if i != drop:
                out.append(encode_event(ev))
    return out


def collect(module: Any, source: list[bytes] | Path) -> dict[tuple[str, str], dict[str, pa.Table]]:
    """Every table of ``source`` (log lines, or a log file) built by
    ``module.RecordCollector`` (in memory)."""
    collector = module.RecordCollector(ingested_at=AT)
    replayer = Replayer(visitors=[collector])
    if isinstance(source, Path):
        reports = replayer.replay_file(source)
    else:
        reports = replayer.replay_lines("<sim>", ((i + 1, raw) for i, raw in enumerate(source)))
    for _ in reports:
        pass
    tables: dict[tuple[str, str], dict[str, pa.Table]] = collector.tables()
    return tables


def digest(tables: dict[tuple[str, str], dict[str, pa.Table]]) -> str:
    """A SHA-256 of every partition's every table: names, schema and rows in order."""
    h = hashlib.sha256()
    for part in sorted(tables):
        for name in sorted(tables[part]):
            table = tables[part][name]
            h.update(f"{part}/{name}/{table.schema}\n".encode())
            for row in table.to_pylist():
                h.update(json.dumps(row, default=str, sort_keys=True).encode() + b"\n")
    return h.hexdigest()[:16]


def cases() -> Iterator[tuple[str, list[bytes] | Path]]:
    """(case name, lines or file) of every preset (whole, and with event 5 dropped) and
    every sample log."""
    for preset in PRESETS:
        yield preset, game_lines(preset, 3, 12, 29, None)
        yield preset + "-drop5", game_lines(preset, 4, 6, 31, 5)
    for path in SAMPLES:
        yield path.relative_to(ROOT).as_posix(), path


def all_digests() -> dict[str, str]:
    """The digest of every case (the collector as imported)."""
    module = sys.modules[RecordCollector.__module__]
    return {case: digest(collect(module, source)) for case, source in cases()}


def source_collector() -> ModuleType:
    """``store/collector.py`` and ``store/facts.py`` loaded from their source as Python
    modules of their own (whatever the build), the checked path the compiled one is held to."""
    store = ROOT / "maumau_log" / "store"

    def load(name: str, path: Path) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    facts = load("maumau_log.store._source_facts", store / "facts.py")
    real = sys.modules["maumau_log.store.facts"]
    sys.modules["maumau_log.store.facts"] = facts  # the collector's ``from .facts import``
    try:
        return load("maumau_log.store._source_collector", store / "collector.py")
    finally:
        sys.modules["maumau_log.store.facts"] = real


SOURCE = source_collector()


def test_every_table_keeps_its_rows_for_every_preset_and_sample() -> None:
    """The digests of the rows the collector built in pure Python before it was compiled
    (``python -c 'from tests.test_collector_rows import all_digests; print(all_digests())'``
    at that commit); a deliberate change of the dataset's rows updates them."""
    assert all_digests() == DIGESTS


def test_the_source_collector_is_python() -> None:
    assert SOURCE.__file__ is not None and SOURCE.__file__.endswith("collector.py")
    assert not hasattr(SOURCE.RecordCollector, "__mypyc_attrs__")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**16),
    drop=st.one_of(st.none(), st.integers(1, 60)),
)
def test_the_collector_builds_the_rows_its_source_builds(
    preset: str, players: int, seed: int, drop: int | None
) -> None:
    """Compiled or not, the collector's tables equal those of its source run as Python, on
    random games of every preset (whole, or with one event left out: a violation)."""
    lines = game_lines(preset, players, 3, seed, drop)
    built = collect(sys.modules[RecordCollector.__module__], lines)
    checked = collect(SOURCE, lines)
    assert built.keys() == checked.keys()
    for part, tables in built.items():
        for name, table in tables.items():
            assert table.equals(checked[part][name], check_metadata=True), (part, name)


DIGESTS: dict[str, str] = {
    "classic": "025ebba46661b63e",
    "classic-drop5": "5d0c6996dd77c201",
    "crazy-eights": "02d85686d5ea5f9f",
    "crazy-eights-drop5": "f3009eb805daa792",
    "faraon": "d62a7a383e431d7d",
    "faraon-drop5": "0b6ac1420d519524",
    "neuner": "23862a0592cf63b8",
    "neuner-drop5": "861b3a1df917630d",
    "online": "f69e3c49b04bf0fd",
    "online-drop5": "77b29db5b6836eb2",
    "online-penalty": "bab901c5a662f4c1",
    "online-penalty-drop5": "884f94ac22c8a8bd",
    "pesten": "2e8c18330344ca65",
    "pesten-drop5": "9421d8ca2782e17d",
    "prsi": "75cf29559e8841e3",
    "prsi-drop5": "c961026e07ebbe33",
    "puque": "71eb815811ecfdde",
    "puque-drop5": "62ee0e4162331f99",
    "russian": "e99c22f720ddd722",
    "russian-drop5": "31c1ea97f363c1d8",
    "serbian": "80075e66be1ea308",
    "serbian-drop5": "d3417c7842a481a5",
    "standard": "2f102b744a1bb37e",
    "standard-drop5": "ecc4e589920321c6",
    "sample_logs/valid/classic_2p_handwritten.jsonl": "e45789f4a3c366ce",
    "sample_logs/valid/classic_2p_match.jsonl": "9fa08365143d4881",
    "sample_logs/valid/classic_2p_reshuffle.jsonl": "a072c3fed2d88bbb",
    "sample_logs/valid/classic_3p.jsonl": "4c80beb9157e8719",
    "sample_logs/valid/classic_5p.jsonl.gz": "4a1e46263d0daf8d",
    "sample_logs/valid/other_engines/classic_other_engine.jsonl": "338aa7b17f266ce2",
    "sample_logs/valid/other_engines/standard_other_engine.jsonl": "5117f8e5f89e5b6c",
    "sample_logs/valid/presets/crazy-eights.jsonl": "6ec4f318d8997bfe",
    "sample_logs/valid/presets/faraon.jsonl": "a7d3eaa0806f814c",
    "sample_logs/valid/presets/neuner.jsonl": "288646aa1aae4d8a",
    "sample_logs/valid/presets/online-penalty.jsonl": "422eaa9ecb796480",
    "sample_logs/valid/presets/online.jsonl": "37b35b6a4c743efb",
    "sample_logs/valid/presets/pesten.jsonl": "a0ea72a9a5a773d4",
    "sample_logs/valid/presets/prsi.jsonl": "2dba2c6546f74b80",
    "sample_logs/valid/presets/puque.jsonl": "969af1582755377a",
    "sample_logs/valid/presets/russian.jsonl": "dcdccefc94ec175a",
    "sample_logs/valid/presets/serbian.jsonl": "ebb1dba3867715f1",
    "sample_logs/valid/standard_2p.jsonl": "71e21a300529264b",
    "sample_logs/valid/standard_3p.jsonl.zst": "9cde85a2e1314d33",
    "sample_logs/valid/standard_4p.jsonl": "4398a5aef8390c6d",
    "sample_logs/violations/bad_commitment.jsonl": "2b0dbee04f4c511e",
    "sample_logs/violations/bad_json.jsonl": "eecbc7d2407cb0d2",
    "sample_logs/violations/bad_option.jsonl": "b9aac8bf5ca5874b",
    "sample_logs/violations/bad_reshuffle.jsonl": "dd165b2fcde3bf73",
    "sample_logs/violations/bad_seq.jsonl": "b7b3062f7f3b2ec2",
    "sample_logs/violations/card_does_not_match.jsonl": "559b9f78f014b3f4",
    "sample_logs/violations/card_not_in_hand.jsonl": "01540f9958b19ea6",
    "sample_logs/violations/deal_not_from_seed.jsonl": "8f049106823d0126",
    "sample_logs/violations/draw_not_from_stock_top.jsonl": "8b9512222bd094ce",
    "sample_logs/violations/duplicate_card.jsonl": "5473a1ec6c001899",
    "sample_logs/violations/illegal_pass.jsonl": "30bb0b3d5f250591",
    "sample_logs/violations/match_not_over.jsonl": "de1a31156dabf04d",
    "sample_logs/violations/match_over_too_early.jsonl": "5ae8f8099117c3c7",
    "sample_logs/violations/missed_penalty.jsonl": "829e527e6b731994",
    "sample_logs/violations/missing_header.jsonl": "2bdcd6b45fd9e962",
    "sample_logs/violations/missing_suit_choice.jsonl": "54e71d54d95e9861",
    "sample_logs/violations/play_after_round_end.jsonl": "a54b14ee1e82c814",
    "sample_logs/violations/round_not_finished.jsonl": "a7eb17c72918c1a7",
    "sample_logs/violations/schema_error.jsonl": "e934a98e6769b50f",
    "sample_logs/violations/truncated_file.jsonl.gz": "840f046b1f53eaae",
    "sample_logs/violations/unknown_card.jsonl": "d46084b0cc88e894",
    "sample_logs/violations/unknown_ruleset.jsonl": "eb473d1b8deb888e",
    "sample_logs/violations/unsupported_rule.jsonl": "9b3705e7f129dc14",
    "sample_logs/violations/wrong_draw_count.jsonl": "959e07c52eaf6270",
    "sample_logs/violations/wrong_penalty.jsonl": "3583687b386c1a22",
    "sample_logs/violations/wrong_player.jsonl": "499ae95af53405e7",
    "sample_logs/violations/wrong_round.jsonl": "e91742194aa837ef",
    "sample_logs/violations/wrong_score.jsonl": "167275006e716c46",
    "sample_logs/violations/wrong_starter.jsonl": "d61899a3b91d5aff",
    "sample_logs/violations/wrong_total.jsonl": "d3d662ab5cadff51",
    "sample_logs/violations/wrong_winner.jsonl": "32934de22751612b",
}
"""The rows' digests (:func:`digest`) of every case (:func:`cases`), as the collector built
them in pure Python before it was compiled (one for every preset, every preset with an
event left out, every sample log)."""
