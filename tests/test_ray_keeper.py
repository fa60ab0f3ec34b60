"""On Ray the first-copy rule on game ids (FORMAT.md Files) runs in the known-games keeper,
an actor on the driver's node (:class:`maumau_log.run.ray_runner.KeeperMerges`): the tasks
stage each shard's games' outcomes beside its rows and the keeper reads them, so the
driver builds, unpickles and merges no game's outcome; the dataset, the duplicates and
the conflicts are still those of ``--jobs 1`` (a head with no CPU and two 1-CPU worker
nodes on this machine, the ``cluster`` fixture)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.cluster_utils")

from test_scale import assert_same_rows, make_inputs  # noqa: E402

import maumau_log.run.merge as merge_mod  # noqa: E402
import maumau_log.run.ray_runner as ray_mod  # noqa: E402
import maumau_log.run.shard as shard_mod  # noqa: E402
from maumau_log.bots.sim import simulate, write_games  # noqa: E402
from maumau_log.logs.lines import expand_paths  # noqa: E402
from maumau_log.run.ingest import ingest  # noqa: E402
from maumau_log.run.ray_runner import ray_runner  # noqa: E402
from maumau_log.store import DatasetError, read_manifest, scan_all  # noqa: E402
from maumau_log.store.rows import Conflict  # noqa: E402
from maumau_log.store.verify import verify  # noqa: E402


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """test_scale's inputs (duplicates, a conflict, matches across shards, broken and
    truncated files) without the binary file (an unreadable file is exit 2 on its own)."""
    root = make_inputs(tmp_path_factory.mktemp("keeper"))
    (root / "f_binary.jsonl").unlink()
    return [Path(p) for p in expand_paths([root])]


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count, in this process only (Ray's workers and the keeper import their own modules),
    every :class:`GameOutcome` built or unpickled (pickle finds the class by its module's
    name) and every call of the first-copy rule."""
    counts = {"outcomes": 0, "merges": 0}
    real_outcome, real_merge = shard_mod.GameOutcome, merge_mod.FirstCopy.merge

    def outcome(*args: Any, **kw: Any) -> Any:
        counts["outcomes"] += 1
        return real_outcome(*args, **kw)

    def merge(self: Any, games: Any) -> Any:
        counts["merges"] += 1
        return real_merge(self, games)

    monkeypatch.setattr(shard_mod, "GameOutcome", outcome)
    monkeypatch.setattr(merge_mod.FirstCopy, "merge", merge)
    return counts


def test_the_driver_holds_no_game_outcome_and_stores_the_rows_of_jobs_one(
    cluster: Any, inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = _counting(monkeypatch)
    on_ray = ingest(inputs, tmp_path / "ray", runner=ray_runner(address=cluster.address),
                    shard_bytes=8192, keep_game_ids=False)  # fmt: skip
    assert counts == {"outcomes": 0, "merges": 0}
    monkeypatch.undo()
    local = ingest(inputs, tmp_path / "local", jobs=1, keep_game_ids=False)
    assert on_ray.failed == [] and on_ray.games == local.games > 80
    assert (on_ray.added, on_ray.duplicates, on_ray.invalid, on_ray.events) == (
        local.added, local.duplicates, local.invalid, local.events
    )  # fmt: skip
    assert on_ray.duplicates > 0 and len(on_ray.conflicts) > 1
    assert on_ray.conflicts == local.conflicts
    assert on_ray.violations == local.violations
    assert on_ray.exit_code == local.exit_code == 1
    assert_same_rows(tmp_path / "local", tmp_path / "ray")
    assert verify(tmp_path / "ray").ok
    # the keeper read every staged outcome file and deleted it; the staging folder is gone
    assert not list((tmp_path / "ray").glob(".tmp-*"))


def test_the_keeper_lists_the_game_ids_when_asked_and_reports_them_in_input_order(
    cluster: Any, inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = _counting(monkeypatch)
    on_ray = ingest(inputs, tmp_path / "ray", runner=ray_runner(address=cluster.address),
                    shard_bytes=8192)  # fmt: skip
    assert counts == {"outcomes": 0, "merges": 0}
    monkeypatch.undo()
    local = ingest(inputs, tmp_path / "local", jobs=1)
    assert on_ray.game_ids == local.game_ids and len(local.game_ids) == local.games


def test_with_every_outcome_reported_the_driver_merges_as_one_process(
    cluster: Any, inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``analyze`` reports every game's outcome (``on_report``): those reach the driver,
    which then applies the rule itself (no keeper)."""
    made: list[str] = []
    monkeypatch.setattr(ray_mod, "KeeperMerges", lambda *a: made.append("keeper"))
    seen: list[str] = []
    on_ray = ingest(inputs, tmp_path / "ray", runner=ray_runner(address=cluster.address),
                    shard_bytes=8192, on_report=lambda g: seen.append(g.key))  # fmt: skip
    local = ingest(inputs, tmp_path / "local", jobs=1)
    assert made == []
    assert seen == local.game_ids and on_ray.conflicts == local.conflicts
    assert_same_rows(tmp_path / "local", tmp_path / "ray")


def _log(path: Path, games: list[str]) -> Path:
    path.write_text("".join(games))
    return path


def test_a_game_in_two_shards_on_ray_keeps_the_first_copy(cluster: Any, tmp_path: Path) -> None:
    """``a.jsonl`` holds games 0-3; ``b.jsonl`` (another shard) holds game 1 again
    unchanged (a duplicate), game 2 again with other content (a conflict) and the new
    game 4: the stored games 1 and 2 are ``a.jsonl``'s, as with ``--jobs 1``."""
    raw = tmp_path / "all.jsonl"
    with open(raw, "wb") as fh:
        write_games(simulate("classic", 3, 5, seed=21, id_prefix="c"), fh)
    games: list[str] = []
    for line in raw.read_text().splitlines(keepends=True):
        if '"type":"game"' in line.replace(" ", ""):
            games.append("")
        games[-1] += line
    ids = [g.split('"game_id":"', 1)[1].split('"', 1)[0] for g in games]
    changed = games[2].replace('"meta":{', '"meta":{"note":1,', 1)
    assert changed != games[2]
    a = _log(tmp_path / "a.jsonl", games[:4])
    b = _log(tmp_path / "b.jsonl", [games[1], changed, games[4]])
    on_ray = ingest([a, b], tmp_path / "ray", runner=ray_runner(address=cluster.address))
    local = ingest([a, b], tmp_path / "local", jobs=1)
    assert (on_ray.games, on_ray.added, on_ray.duplicates) == (7, 5, 1)
    line_b = 1 + games[1].count("\n")
    assert on_ray.conflicts == [Conflict(ids[2], str(b), line_b, str(a), 1 + sum(
        g.count("\n") for g in games[:2]))]  # fmt: skip
    assert on_ray.conflicts == local.conflicts
    stored = scan_all(tmp_path / "ray")["games"].collect()
    source = dict(zip(stored["game_id"].to_list(), stored["source_file"].to_list(), strict=True))
    assert sorted(source) == sorted(ids)
    assert {source[i] for i in ids[:4]} == {str(a)} and source[ids[4]] == str(b)
    assert_same_rows(tmp_path / "local", tmp_path / "ray")


def test_a_keeper_that_dies_stops_the_ingest_with_nothing_stored(
    cluster: Any, inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ingest(inputs[:1], tmp_path / "ds", jobs=1)
    before = read_manifest(tmp_path / "ds").files
    real_parts = ray_mod.KeeperMerges.parts
    calls: list[int] = []

    def parts(self: Any, res: Any, stage: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            ray.kill(self.actor)
        return real_parts(self, res, stage)

    monkeypatch.setattr(ray_mod.KeeperMerges, "parts", parts)
    with pytest.raises(DatasetError) as err:
        ingest(inputs, tmp_path / "ds", runner=ray_runner(address=cluster.address),
               shard_bytes=8192)  # fmt: skip
    assert str(err.value).startswith(
        "the known-games keeper (a Ray actor on this node) failed, nothing was stored: "
    )
    # ray.kill is asynchronous: the third merge's call or a later one meets the keeper dead
    assert len(calls) >= 3
    assert read_manifest(tmp_path / "ds").files == before and first.added > 0
    assert not list((tmp_path / "ds").glob(".tmp-*"))
    assert verify(tmp_path / "ds").ok


def test_the_ingest_command_on_ray_into_a_relative_dataset_folder(
    cluster: Any, inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o ds`` names a folder of the command's working folder; the keeper, another
    process in another folder, reads the staged outcomes there too."""
    from typer.testing import CliRunner

    import maumau_log.cli.data_cmds  # noqa: F401  (registers the commands)
    from maumau_log.cli import app

    log = inputs[0]
    monkeypatch.chdir(tmp_path)
    args = ["ingest", str(log), "-o", "ds", "--engine", "ray", "--address", cluster.address,
            "--no-progress"]  # fmt: skip
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    local = ingest([log], tmp_path / "local", jobs=1)
    assert local.added == 72
    assert_same_rows(tmp_path / "local", tmp_path / "ds")


def test_without_an_address_the_ingest_starts_its_own_ray_beside_a_running_cluster(
    cluster: Any, inputs: list[Path], tmp_path: Path
) -> None:
    """``--engine ray`` without ``--address`` (and no ``RAY_ADDRESS``) starts a Ray of its
    own with ``--jobs`` CPUs, also while a cluster runs on this machine (Ray's default
    would join the cluster last started here, which refuses ``num_cpus``: exit 3 then)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run(
        [sys.executable, "-m", "maumau_log", "ingest", str(inputs[0]), "-o",
         str(tmp_path / "ds"), "--engine", "ray", "--jobs", "1", "--no-progress"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert ingest([inputs[0]], tmp_path / "local", jobs=1).added == 72
    assert_same_rows(tmp_path / "local", tmp_path / "ds")
