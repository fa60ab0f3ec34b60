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
                text = json.dumps(row, default=str, sort_keys=True)
                # the checkout's own folder stands in stored source paths: not part of a row
                h.update(text.replace(str(ROOT), "<ROOT>").encode() + b"\n")
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
    "standard-drop5": "a771cd6f6f55d139",
    "sample_logs/valid/classic_2p_handwritten.jsonl": "abd5b9ca3e385593",
    "sample_logs/valid/classic_2p_match.jsonl": "9fd9eb5eafbdea36",
    "sample_logs/valid/classic_2p_reshuffle.jsonl": "8615bb5ed6536335",
    "sample_logs/valid/classic_3p.jsonl": "94c94ed4de03b9a7",
    "sample_logs/valid/classic_5p.jsonl.gz": "7de27007f2b96727",
    "sample_logs/valid/other_engines/classic_other_engine.jsonl": "af15b40c09480d3d",
    "sample_logs/valid/other_engines/standard_other_engine.jsonl": "b0b65f5b9f5d4c93",
    "sample_logs/valid/presets/crazy-eights.jsonl": "2a86695a56116a98",
    "sample_logs/valid/presets/faraon.jsonl": "5433e5e5946665a5",
    "sample_logs/valid/presets/neuner.jsonl": "2a5181478d0d433f",
    "sample_logs/valid/presets/online-penalty.jsonl": "84fda6c5c8a9390f",
    "sample_logs/valid/presets/online.jsonl": "0efa814dadf22c09",
    "sample_logs/valid/presets/pesten.jsonl": "37b2b5a5bfdcba20",
    "sample_logs/valid/presets/prsi.jsonl": "89a5434a82f946a0",
    "sample_logs/valid/presets/puque.jsonl": "d9ffb20ded659199",
    "sample_logs/valid/presets/russian.jsonl": "ab901177235da582",
    "sample_logs/valid/presets/serbian.jsonl": "ff5a0a78333b3053",
    "sample_logs/valid/standard_2p.jsonl": "119392e7e387e20f",
    "sample_logs/valid/standard_3p.jsonl.zst": "f58e3bdc1b17172f",
    "sample_logs/valid/standard_4p.jsonl": "d52f75cba18f897c",
    "sample_logs/violations/bad_commitment.jsonl": "5a2e79f67e35c72f",
    "sample_logs/violations/bad_json.jsonl": "f6544946841648b0",
    "sample_logs/violations/bad_option.jsonl": "d05c8beafb51aa51",
    "sample_logs/violations/bad_reshuffle.jsonl": "2133415e2ce09a8d",
    "sample_logs/violations/bad_seq.jsonl": "7ffc12431ffaffee",
    "sample_logs/violations/card_does_not_match.jsonl": "4fa1cd43184b9101",
    "sample_logs/violations/card_not_in_hand.jsonl": "8e09a6c22870a8ea",
    "sample_logs/violations/deal_not_from_seed.jsonl": "f8953fe00807113c",
    "sample_logs/violations/draw_not_from_stock_top.jsonl": "a85ef7fea043500f",
    "sample_logs/violations/duplicate_card.jsonl": "df83ae17c0c37a2b",
    "sample_logs/violations/illegal_pass.jsonl": "331222f69b475970",
    "sample_logs/violations/match_not_over.jsonl": "8950ea744234aa1f",
    "sample_logs/violations/match_over_too_early.jsonl": "9ab408e69ac6ef5d",
    "sample_logs/violations/missed_penalty.jsonl": "038b9abe15f43ed2",
    "sample_logs/violations/missing_header.jsonl": "0c543f5a3f3706d2",
    "sample_logs/violations/missing_suit_choice.jsonl": "184ce4bdbbe3892b",
    "sample_logs/violations/play_after_round_end.jsonl": "933c6c558f179bc2",
    "sample_logs/violations/round_not_finished.jsonl": "77f112bba613491b",
    "sample_logs/violations/schema_error.jsonl": "76ad2276e310fd66",
    "sample_logs/violations/truncated_file.jsonl.gz": "a14f60579a3082ab",
    "sample_logs/violations/unknown_card.jsonl": "ace313d3efe24e1d",
    "sample_logs/violations/unknown_ruleset.jsonl": "cb2b9541a75494ee",
    "sample_logs/violations/unsupported_rule.jsonl": "03f06355168abd4b",
    "sample_logs/violations/wrong_draw_count.jsonl": "ccc1c552f254e73d",
    "sample_logs/violations/wrong_penalty.jsonl": "5ae87ef2d4837608",
    "sample_logs/violations/wrong_player.jsonl": "aa9231f572934d56",
    "sample_logs/violations/wrong_round.jsonl": "52db8312a41ade94",
    "sample_logs/violations/wrong_score.jsonl": "d821a7f44d5bc659",
    "sample_logs/violations/wrong_starter.jsonl": "b325c79586fa2a81",
    "sample_logs/violations/wrong_total.jsonl": "8a2007bcdca9fb04",
    "sample_logs/violations/wrong_winner.jsonl": "bc6d16df56741ba2",
}
"""The rows' digests (:func:`digest`) of every case (:func:`cases`), as the collector built
them in pure Python before it was compiled (one for every preset, every preset with an
event left out, every sample log)."""
