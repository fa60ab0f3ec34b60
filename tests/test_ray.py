"""``--engine ray`` (Ray Data in local mode, 2 CPUs) stores the dataset the local
runner stores, row by row, and reports the same outcomes.

Skipped where Ray is not installed (``pip install 'maumau-log[ray]'``). One Ray session is
shared by the module (Ray takes seconds to start).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from test_scale import assert_same_rows, make_inputs  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import maumau_log.cli.data_cmds  # noqa: E402  (registers the commands)
import maumau_log.cli.replay_cmds  # noqa: E402, F401
from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.cli import app  # noqa: E402
from maumau_log.logs.lines import expand_paths  # noqa: E402
from maumau_log.rules import PRESET_NAMES  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.run.ray_runner import ray_runner  # noqa: E402
from maumau_log.store import scan_all  # noqa: E402

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


@pytest.fixture(scope="module")
def ray_session() -> Iterator[None]:
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few thousand simulated games of every preset in several files, plus the broken,
    truncated, duplicate and conflicting inputs of test_scale."""
    root = make_inputs(tmp_path_factory.mktemp("ray"))
    for k in range(4):
        with open(root / f"sim_{k}.jsonl", "wb") as fh:
            for i, preset in enumerate(PRESET_NAMES):
                write_games(simulate(preset, 2 + k % 3, 45, seed=100 * k + i, id_prefix=preset), fh)
    (root / "f_binary.jsonl").unlink()  # an unreadable file stops an ingest (exit 2)
    return root


def test_ray_dataset_equals_the_local_one(ray_session: None, logs: Path, tmp_path: Path) -> None:
    files = expand_paths([logs])
    local = ingest(files, tmp_path / "local", jobs=2)
    on_ray = ingest(files, tmp_path / "ray", runner=ray_runner())
    assert local.games == on_ray.games >= 2000
    assert local.added == on_ray.added
    assert local.duplicates == on_ray.duplicates > 0
    assert [str(c) for c in local.conflicts] == [str(c) for c in on_ray.conflicts]
    assert local.violations == on_ray.violations
    assert on_ray.failed == []
    assert local.exit_code == on_ray.exit_code == 1
    assert_same_rows(tmp_path / "local", tmp_path / "ray")
    n = scan_all(tmp_path / "ray")["games"].collect().height
    assert n == local.added
    # a re-run adds only what is missing: nothing
    again = ingest(files, tmp_path / "ray", runner=ray_runner())
    assert again.added == 0 and again.duplicates == local.added + local.duplicates


def test_ray_validate_cli_matches_local(ray_session: None) -> None:
    runner = CliRunner()
    args = ["validate", str(SAMPLES), "--json"]
    local = runner.invoke(app, [*args, "--jobs", "2"])
    on_ray = runner.invoke(app, [*args, "--engine", "ray"])
    assert local.exit_code == on_ray.exit_code == 1
    a, b = json.loads(local.stdout), json.loads(on_ray.stdout)
    assert a == b
    assert a["invalid"] >= 30 and a["failed_shards"] == []


def test_a_failing_shard_on_ray_is_reported(ray_session: None, tmp_path: Path) -> None:
    from maumau_log.run.runners import ShardTask

    class Boom(ShardTask):
        def __call__(self, shard, matches=None):  # type: ignore[no-untyped-def]
            if shard.path.endswith("standard_4p.jsonl"):
                raise MemoryError("simulated")
            return super().__call__(shard, matches)

    files = expand_paths([SAMPLES / "valid"])
    base = ray_runner()

    def runner(shards, task):  # type: ignore[no-untyped-def]
        return base(shards, Boom(task.rules_file_options, task.collect, task.ingested_at))

    first = ingest(files, tmp_path / "ds", runner=runner)
    assert first.exit_code == 4
    assert len(first.failed) == 1 and "standard_4p.jsonl: MemoryError: simulated" in first.failed[0]
    second = ingest(files, tmp_path / "ds", runner=ray_runner())
    assert second.added > 0 and second.duplicates == first.added
    assert_same_rows(tmp_path / "ds", _local(files, tmp_path / "ref"))


def _local(files: list[Path], ds: Path) -> Path:
    ingest(files, ds, jobs=1)
    return ds


def test_uri_inputs_on_ray(ray_session: None, tmp_path: Path) -> None:
    """A pyarrow filesystem URI (``file://`` here; ``s3://`` on a cluster) is read by Ray;
    the dataset holds the same games as from the local path, named by their URI."""
    folder = (SAMPLES / "valid").resolve()
    uri = "file://" + str(folder)
    local = ingest([folder], tmp_path / "local", jobs=1)
    on_ray = ingest([uri], tmp_path / "ray", runner=ray_runner())
    assert on_ray.failed == []
    assert on_ray.games == local.games and on_ray.added == local.added
    a = scan_all(tmp_path / "local")["games"].collect().sort("game_id")
    b = scan_all(tmp_path / "ray")["games"].collect().sort("game_id")
    assert a["game_id"].to_list() == b["game_id"].to_list()
    assert a["content_hash"].to_list() == b["content_hash"].to_list()
    assert b["source_file"][0].startswith("file:///")
    res = CliRunner().invoke(app, ["validate", uri, "--engine", "ray", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["games"] == local.games


def test_ray_runs_byte_range_shards(ray_session: None, logs: Path, tmp_path: Path) -> None:
    """Local inputs cut into byte ranges (here every ~4 KB, so match rounds fall into later
    shards and are replayed again by the merge) store the rows of a local ingest. The small
    files only (about 360 KB, some 90 shards): the big simulated ones would make some 1,800
    Ray tasks (40 s) and are compared whole-file above."""
    files = [f for f in expand_paths([logs]) if not Path(f).name.startswith("sim_")]
    runner = ray_runner()
    from maumau_log.run.runners import default_jobs

    assert getattr(runner, "workers", None) == default_jobs()  # a local Ray's CPUs
    local = ingest(files, tmp_path / "local", jobs=1)
    on_ray = ingest(files, tmp_path / "ray", runner=runner, shard_bytes=4096)
    assert on_ray.failed == []
    assert (on_ray.games, on_ray.added, on_ray.duplicates) == (
        local.games,
        local.added,
        local.duplicates,
    )
    assert on_ray.violations == local.violations
    assert_same_rows(tmp_path / "local", tmp_path / "ray")


def test_ray_reads_an_over_long_header_as_the_local_runner(
    ray_session: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An over-long header line (limit 4,000 bytes here) starts the same invalid game on
    Ray, with byte-range shards planned around it, as in one local shard: the task carries
    the planning process's limit to the Ray workers (docs/explanations/scale-and-ray.md)."""
    from test_long_lines import GAMES, build, long_header

    from maumau_log.logs.lines import MAX_LINE_ENV

    monkeypatch.setenv(MAX_LINE_ENV, "4000")
    log = tmp_path / "long.jsonl"
    at = build(log, [long_header(6000), *GAMES[3][1:]])
    from maumau_log.run.shard import plan_shards

    assert len(plan_shards([log], at, 2)) == 2  # cut at the header after the long one
    local = ingest([log], tmp_path / "local", jobs=1, shard_bytes=10**9)
    on_ray = ingest([log], tmp_path / "ray", runner=ray_runner(), shard_bytes=at)
    assert on_ray.failed == []
    assert (local.games, local.invalid) == (on_ray.games, on_ray.invalid) == (6, 1)
    assert on_ray.violations == local.violations
    [v] = local.violations
    assert (v.game_id, v.code, v.event_index) == ("long-one", "line_too_long", 0)
    assert_same_rows(tmp_path / "local", tmp_path / "ray")
