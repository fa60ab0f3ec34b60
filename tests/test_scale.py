"""Shards, the local process pool and the merge give exactly the one-process
results.

The reference is the replay as it was before shards: one :class:`Replayer` over every file
in order (for ``validate``), and one :class:`RecordCollector` writing through one
:class:`DatasetWriter` (for ``ingest``). The inputs hold simulated games of every preset,
match rounds (cut across shards on purpose), broken lines, a truncated compressed file, a
binary file, a game id met twice with the same content and once with other content.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau_log.bots.sim import simulate, simulate_matches, write_games
from maumau_log.logs.lines import LogReadError, expand_paths, iter_lines
from maumau_log.replay.driver import Replayer
from maumau_log.rules import PRESET_NAMES
from maumau_log.run.ingest import ingest
from maumau_log.run.runners import ShardTask, local_results, merge_order, serial_results
from maumau_log.run.shard import Shard, ShardFailure, ShardResult, outcome, plan_shards, run_shard
from maumau_log.store import ALL_TABLES, DatasetWriter, known_games, read_manifest, scan_all
from maumau_log.store.collector import RecordCollector
from maumau_log.store.matches import update_matches

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"

# columns that differ between two ingests of the same input by design
VOLATILE = {"ingested_at", "first_ingest", "last_ingest"}


def _write(path: Path, games: Any) -> Path:
    with open(path, "wb") as fh:
        write_games(games, fh)
    return path


def make_inputs(root: Path, per_preset: int = 6) -> Path:
    """A folder of logs with every kind of input the runners must agree on."""
    logs = root / "logs"
    logs.mkdir()
    big = logs / "a_presets.jsonl"
    with open(big, "wb") as fh:
        for i, preset in enumerate(PRESET_NAMES):
            write_games(simulate(preset, 3, per_preset, seed=i + 1, id_prefix=preset), fh)
    _write(logs / "b_matches.jsonl", simulate_matches("classic", 3, 3, seed=7))
    _write(logs / "c_serbian.jsonl", simulate_matches("serbian", 2, 1, seed=8))
    # broken lines in the middle of a file
    lines = (logs / "b_matches.jsonl").read_bytes().splitlines(keepends=True)
    broken = [*lines[:40], b'{"type": "play", oops\n', *lines[40:80], b"\n\n", *lines[80:]]
    (logs / "d_broken.jsonl").write_bytes(b"".join(broken))
    # a truncated compressed file and a binary one
    shutil.copy(SAMPLES / "violations" / "truncated_file.jsonl.gz", logs / "e_cut.jsonl.gz")
    shutil.copy(SAMPLES / "violations" / "not_a_log.jsonl", logs / "f_binary.jsonl")
    # the same games again (duplicates), compressed; one game changed (a conflict)
    with gzip.open(logs / "g_again.jsonl.gz", "wb") as fh:
        fh.write(big.read_bytes()[:200_000])
    text = (logs / "c_serbian.jsonl").read_text().splitlines(keepends=True)
    (logs / "h_conflict.jsonl").write_text("".join(text[:-1]))  # the last round cut short
    return logs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return expand_paths([make_inputs(tmp_path_factory.mktemp("scale"))])


def _reference_outcomes(files: list[Path]) -> list[Any]:
    """The replay before shards: one Replayer over all files."""
    out: list[Any] = []
    replayer = Replayer()
    for f in files:
        try:
            out += [outcome(r) for r in replayer.replay_file(f)]
        except LogReadError as exc:  # the binary file is unreadable input
            assert exc.line is None and "binary" in f.name
    return out


def _outcomes(results: Any) -> list[Any]:
    got: list[Any] = []
    for res in results:
        assert isinstance(res, ShardResult), res
        if res.unreadable is not None:  # the binary file, not a game
            assert "binary" in res.unreadable.path and not res.games
        got += res.games
    return got


def _key(o: Any) -> tuple[Any, ...]:
    return (o.file, o.line, o.key, o.has_header, o.events, o.violation, o.unchecked)


def test_range_shards_read_the_same_lines(inputs: list[Path]) -> None:
    big = inputs[0]
    shards = plan_shards([big], shard_bytes=2048)
    assert len(shards) > 20
    lines = [ln for s in shards for ln in iter_lines(big, start=s.start, end=s.end,
                                                      first_line=s.first_line)]  # fmt: skip
    assert lines == list(iter_lines(big))
    data = big.read_bytes()
    for s in shards[1:]:
        assert data[s.start : s.start + 30].startswith(b'{"type":"game"'), s
        assert data[: s.start].count(b"\n") + 1 == s.first_line


def test_match_cuts_prefer_round_one(inputs: list[Path]) -> None:
    data = inputs[1].read_bytes()
    target = len(data) // 6
    shards = plan_shards([inputs[1]], shard_bytes=target)
    assert len(shards) > 2
    starts = [i for i in range(len(data)) if data.startswith(b'{"type":"game"', i)]
    firsts = [i for i in starts if b'"round":1,' in data[i : data.index(b"\n", i)]]
    for s in shards[1:]:
        # a match's first round when one comes soon enough, else the next header
        first = min((i for i in firsts if i >= s.start - target // 4), default=None)
        assert s.start in firsts or first is None or first > s.start, s


def test_every_runner_gives_the_one_replay_outcomes(inputs: list[Path]) -> None:
    want = [_key(o) for o in _reference_outcomes(inputs)]
    codes = {o[5].code for o in want if o[5] is not None}
    assert {"bad_json", "truncated_file", "wrong_round"} <= codes, codes
    task = ShardTask()
    whole = plan_shards(inputs)
    tiny = plan_shards(inputs, shard_bytes=1)  # a cut at (nearly) every header
    assert len(tiny) > 60
    assert [_key(o) for o in _outcomes(local_results(whole, task, 1))] == want
    assert [_key(o) for o in _outcomes(local_results(tiny, task, 1))] == want
    assert [_key(o) for o in _outcomes(local_results(tiny, task, 2))] == want


def test_cross_shard_matches_are_replayed_with_their_state(inputs: list[Path]) -> None:
    shards = plan_shards([inputs[1]], shard_bytes=1)
    task = ShardTask()
    raw = list(serial_results(shards, task))
    merged = list(merge_order(iter(raw), task, shards))
    # without the merge, round 2 onwards would start their match afresh (unchecked)
    assert any(isinstance(r, ShardResult) and r.match_ids for r in raw[1:])
    assert sum(1 for r in merged if isinstance(r, ShardResult) and r.seeded) >= 1
    want = [_key(o) for o in _reference_outcomes([inputs[1]])]
    assert [_key(o) for o in _outcomes(merged)] == want


def _reference_ingest(files: list[Path], dataset: Path) -> None:
    """The ingest before shards (one collector, one writer)."""
    with DatasetWriter(dataset) as writer:
        collector = RecordCollector(writer, known_games(dataset), batch_events=5000)
        for _ in Replayer(visitors=[collector]).replay_paths(files):
            pass
        collector.flush()
        update_matches(writer, collector.touched)
        writer.commit({})


def dataset_rows(dataset: Path) -> dict[str, pl.DataFrame]:
    """Every table's rows, volatile columns dropped, sorted: for comparing datasets."""
    out = {}
    for name, lf in scan_all(dataset).items():
        df = lf.collect()
        df = df.drop([c for c in df.columns if c in VOLATILE])
        keys = [c for c in df.columns if df.schema[c] != pl.List and
                not isinstance(df.schema[c], pl.List)]  # fmt: skip
        out[name] = df.sort(keys, nulls_last=True)
    return out


def assert_same_rows(a: Path, b: Path) -> None:
    ra, rb = dataset_rows(a), dataset_rows(b)
    for name in ALL_TABLES:
        assert ra[name].height == rb[name].height, name
        assert ra[name].equals(rb[name]), name


def test_ingest_jobs_two_stores_the_reference_rows(inputs: list[Path], tmp_path: Path) -> None:
    readable = [f for f in inputs if "binary" not in f.name]
    _reference_ingest(readable, tmp_path / "ref")
    one = ingest(readable, tmp_path / "one", jobs=1)
    two = ingest(readable, tmp_path / "two", jobs=2, shard_bytes=4096)
    assert one.games == two.games > 80
    assert one.added == two.added
    assert one.duplicates == two.duplicates > 0
    assert [str(c) for c in one.conflicts] == [str(c) for c in two.conflicts]
    assert len(one.conflicts) > 1
    assert one.violations == two.violations
    assert one.exit_code == two.exit_code == 1
    assert_same_rows(tmp_path / "ref", tmp_path / "one")
    assert_same_rows(tmp_path / "ref", tmp_path / "two")
    # matches recomputed across shards: the classic matches are all over
    m = dataset_rows(tmp_path / "two")["matches"]
    assert m.filter(pl.col("match_id").str.starts_with("sim")).height >= 3


def test_reingest_adds_nothing(inputs: list[Path], tmp_path: Path) -> None:
    readable = [f for f in inputs if "binary" not in f.name]
    first = ingest(readable, tmp_path / "ds", jobs=2, shard_bytes=4096)
    again = ingest(readable, tmp_path / "ds", jobs=2, shard_bytes=4096)
    assert again.added == 0
    assert again.duplicates == first.added + first.duplicates
    assert len(read_manifest(tmp_path / "ds").ingests) == 1


class _KillOne(ShardTask):
    """A runner's task whose worker dies on one shard (as if killed by the OOM killer)."""

    def __call__(self, shard: Shard, matches: Any = None) -> Any:
        kill = os.environ.get("MAUMAU_KILL") == "1"
        if kill and shard.path.endswith("c_serbian.jsonl") and shard.start == 0:
            os._exit(9)
        return super().__call__(shard, matches)


def test_a_killed_worker_is_reported_and_a_rerun_completes(
    inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (without the file that reuses the failed shard's ids: a later copy of an id is
    # stored when the first copy's shard failed;
    # docs/explanations/scale-and-ray.md "When a shard fails")
    readable = [f for f in inputs if "binary" not in f.name and "conflict" not in f.name]
    _reference_ingest(readable, tmp_path / "ref")
    monkeypatch.setenv("MAUMAU_KILL", "1")

    def runner(shards: Any, _task: ShardTask) -> Any:
        kill = _KillOne(_task.rules_file_options, True, _task.ingested_at)
        return local_results(shards, kill, 2)

    ds = tmp_path / "ds"
    first = ingest(readable, ds, runner=runner, shard_bytes=4096)
    assert first.exit_code == 4
    assert len(first.failed) == 1
    assert "c_serbian.jsonl (bytes 0-" in first.failed[0]
    assert "worker process died" in first.failed[0]
    stored = set(scan_all(ds)["games"].collect()["game_id"])
    assert "sim-serbian-2p-8-m00000-r001" not in stored  # the failed shard's first round
    assert "standard-1-000000" in stored and "sim-classic-3p-7-m00000-r001" in stored
    monkeypatch.setenv("MAUMAU_KILL", "0")
    second = ingest(readable, ds, jobs=2, shard_bytes=4096)
    assert second.added > 0
    assert second.exit_code == 1
    assert_same_rows(tmp_path / "ref", ds)


def test_run_shard_is_pure(inputs: list[Path]) -> None:
    s = plan_shards([inputs[0]])[0]
    a = run_shard(s, collect=True)
    b = run_shard(s, collect=True)
    assert [_key(o) for o in a.games] == [_key(o) for o in b.games]
    assert a.tables.keys() == b.tables.keys()
    for part in a.tables:
        for name in a.tables[part]:
            ta, tb = a.tables[part][name], b.tables[part][name]
            if name == "games":
                ta, tb = ta.drop_columns(["ingested_at"]), tb.drop_columns(["ingested_at"])
            assert ta.equals(tb)


def test_failure_is_never_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    from maumau_log.run import shard as shard_mod

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(shard_mod, "Replayer", broken)
    s = Shard(3, str(SAMPLES / "valid" / "standard_4p.jsonl"), 100, 900, 5)
    res = ShardTask()(s)
    assert isinstance(res, ShardFailure)
    assert str(res) == f"{s.path} (bytes 100-900, from line 5): RuntimeError: boom"


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                out |= {int(x) for x in fh.read().split()}
    except OSError:
        pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_ctrl_c_stops_every_worker_and_leaves_the_dataset(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    small = _write(tmp_path / "small.jsonl", simulate("standard", 3, 5, seed=1))
    ds = tmp_path / "ds"
    ingest([small], ds, jobs=1)
    before = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}
    logs = tmp_path / "logs"
    logs.mkdir()
    for k in range(4):
        _write(logs / f"big{k}.jsonl", simulate("classic", 4, 1500, seed=10 + k))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "maumau_log", "ingest", str(logs), "-o", str(ds), "--jobs", "2",
         "--no-progress"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers |= _children(proc.pid)
        time.sleep(0.1)
    assert len(workers) >= 2, "the pool never started"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    time.sleep(0.5)
    assert not [w for w in workers if _alive(w)]
    after = {p: p.read_bytes() for p in ds.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


def test_engine_ray_without_ray_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from typer.testing import CliRunner

    import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
    from maumau_log.cli import app

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    monkeypatch.delitem(sys.modules, "maumau_log.run.ray_runner", raising=False)
    res = CliRunner().invoke(app, ["validate", str(SAMPLES / "valid"), "--engine", "ray"])
    assert res.exit_code == 2
    assert "pip install 'maumau-log[ray]'" in res.stderr
    res = CliRunner().invoke(app, ["validate", str(SAMPLES / "valid"), "--engine", "spark"])
    assert res.exit_code == 2 and "--engine must be one of local, ray" in res.stderr


def test_cut_points_by_hand(tmp_path: Path) -> None:
    # three games of two lines each, the second and third game start at bytes 200 and 400
    def header(gid: str, extra: str = "") -> bytes:
        return (
            f'{{"type":"game","format":"maumau-log/1","game_id":"{gid}","ruleset":"standard",'
            f'"players":["a","b"]{extra}}}'
        ).encode()

    lines = []
    for gid, extra in (("g1", ""), ("g2", ',"match_id":"m","round":2'), ("g3", "")):
        h = header(gid, extra)
        body = b'{"type":"pass","player":"a"}'
        pad = 200 - len(h) - len(body) - 3  # the game takes exactly 200 bytes
        lines.append(h + b"\n" + body + b" " * pad + b"\n\n")
    log = tmp_path / "three.jsonl"
    log.write_bytes(b"".join(lines))
    assert log.stat().st_size == 600
    # target 80 bytes: the cut due after byte 80 finds g2 (a match's round 2: held as the
    # fallback) and then g3 (no match) -> the cut goes before g3, at byte 400, line 7
    assert [(s.start, s.end, s.first_line) for s in plan_shards([log], shard_bytes=80)] == [
        (0, 400, 1),
        (400, None, 7),
    ]
    # a file up to twice the target is one shard
    assert [(s.start, s.end, s.first_line) for s in plan_shards([log], shard_bytes=300)] == [
        (0, None, 1)
    ]
    # the lines of the two shards are the file's, with the file's line numbers
    a, b = plan_shards([log], shard_bytes=80)
    got = [n for n, _ in iter_lines(log, start=a.start, end=a.end)]
    got += [n for n, _ in iter_lines(log, start=b.start, first_line=b.first_line)]
    assert got == [1, 2, 4, 5, 7, 8]


def test_cut_inside_a_match_when_no_match_starts(tmp_path: Path) -> None:
    # g1, then rounds 2, 3 and 4 of match m, 200 bytes each: with only match rounds ahead,
    # a cut waits target / 4 = 20 bytes for a better header, then takes the first round
    out = []
    for gid, rnd in (("g1", None), ("g2", 2), ("g3", 3), ("g4", 4)):
        extra = "" if rnd is None else f',"match_id":"m","round":{rnd}'
        h = (
            f'{{"type":"game","format":"maumau-log/1","game_id":"{gid}","ruleset":"classic",'
            f'"players":["a","b"]{extra}}}'
        ).encode()
        body = b'{"type":"pass","player":"a"}'
        out.append(h + b"\n" + body + b" " * (200 - len(h) - len(body) - 3) + b"\n\n")
    log = tmp_path / "match.jsonl"
    log.write_bytes(b"".join(out))
    assert log.stat().st_size == 800
    assert [(s.start, s.end, s.first_line) for s in plan_shards([log], shard_bytes=80)] == [
        (0, 200, 1),
        (200, 400, 4),
        (400, None, 7),
    ]


def test_uri_inputs_need_ray() -> None:
    from typer.testing import CliRunner

    import maumau_log.cli.replay_cmds  # noqa: F401  (registers the commands)
    from maumau_log.cli import app

    res = CliRunner().invoke(app, ["validate", "s3://bucket/logs/"])
    assert res.exit_code == 2
    assert "a URI input (s3://bucket/logs/) needs --engine ray" in res.stderr


def _cuts_line_by_line(data: bytes, target: int, limit: int) -> list[tuple[int, int]]:
    """The cut rule read off line by line (the scan before it skipped lines in C): a cut
    goes before a header line no longer than ``limit`` (without a trailing ``\\r``)."""
    from maumau_log.run.plan import _header_at

    cuts: list[tuple[int, int]] = []
    want, start, fallback = target, 0, None
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        short = len(line[:-1] if line.endswith(b"\r") else line) <= limit
        head = _header_at(line, limit) if start >= want and short else None
        if head is not None and not head[1]:
            cuts.append((start, number))
            want, fallback = start + target, None
        elif head is not None:
            if fallback is not None and start - fallback[0] > target // 4:
                cuts.append(fallback)
                want, fallback = fallback[0] + target, None
            if fallback is None and start >= want:
                fallback = (start, number)
        start += len(line) + 1
    return cuts


_LINES = [
    b'{"type":"game","format":"maumau-log/1","game_id":"g","ruleset":"classic","players":["a","b"]}',
    b'{"type":"game","format":"maumau-log/1","game_id":"m2","ruleset":"classic",'
    b'"players":["a","b"],"match_id":"m","round":2}',
    b'{"type":"pass","player":"a"}',
    b"",
    b"{broken",
    b'{"type":"draw","player":"b","cards":["7H"]}   ',
    # a header of 400 bytes (longer than some limits below), one with CRLF
    b'{"type":"game","format":"maumau-log/1","game_id":"long","ruleset":"classic",'
    b'"players":["a","b"],"meta":{"pad":"' + b"x" * 286 + b'"}}',
    b'{"type":"game","format":"maumau-log/1","game_id":"cr","ruleset":"classic",'
    b'"players":["a","b"]}\r',
    b"y" * 700,  # no header, longer than every limit below
    # "game" named, but in no header: in a short line, and past a line's first 300 bytes
    b'{"type":"say","player":"a","text":"game"}',
    b'{"type":"say","player":"a","text":"' + b"z" * 300 + b'","k":"game"}',
    b"   ",
]


@settings(max_examples=150, deadline=None)
@given(
    picks=st.lists(st.integers(0, len(_LINES) - 1), max_size=60),
    target=st.integers(1, 400),
    scan=st.integers(1, 300),
    tail=st.booleans(),
    limit=st.sampled_from([90, 120, 399, 400, 10_000]),
)
def test_cut_scan_equals_the_line_by_line_rule(
    picks: list[int], target: int, scan: int, tail: bool, limit: int, tmp_path_factory: Any
) -> None:
    # at 10^6 games the planner skips the lines before each due cut in C; the
    # cuts (byte offset, line number) must be those of the rule applied to every line,
    # whatever the read size (lines cut across reads) and with or without a last newline
    import maumau_log.run.plan as shard_mod

    data = b"".join(_LINES[i] + b"\n" for i in picks) + (b'{"type":"pass"' if tail else b"")
    log = tmp_path_factory.mktemp("cuts") / "log.jsonl"
    log.write_bytes(data)
    old = shard_mod._SCAN
    shard_mod._SCAN = scan
    try:
        got = shard_mod._cuts(log, target, limit)
    finally:
        shard_mod._SCAN = old
    # a line longer than the readers' limit is never a cut (the replay reads it as an
    # over-long line, wherever a shard starts)
    assert got == _cuts_line_by_line(data, target, limit)
