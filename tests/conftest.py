"""Test-wide settings: hypothesis runs without a per-example deadline.

Property tests replay whole simulated games; on a loaded machine (CI, or two cores shared
by several jobs) one example can take seconds, and a deadline would fail a correct test.
Tests that set their own ``settings(...)`` inherit this default.

Fixtures shared by several test modules live here once: ``logs``, the three hand-made
classic games of ``test_records`` as one JSON Lines file.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

settings.register_profile("maumau", deadline=None)
settings.load_profile("maumau")


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """The hand-made games of :func:`test_records.hand_games` (g1 and g2 valid, g3 invalid
    at event 3) written as ``hand.jsonl``; a module may define its own ``logs`` instead."""
    from test_records import hand_games, write_log

    return write_log(tmp_path / "hand.jsonl", hand_games())


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Ray cluster on this machine (``ray.cluster_utils.Cluster``): a head with no CPU,
    so every task runs on one of two 1-CPU worker nodes (``cluster.worker_nodes_started``),
    as on a real cluster. Ray is an optional extra (``[ray]``): without it, a test using
    this fixture is skipped."""
    ray = pytest.importorskip("ray")
    from ray import cluster_utils

    c = cluster_utils.Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    nodes = [c.add_node(num_cpus=1) for _ in range(2)]
    c.wait_for_nodes()
    c.connect()
    c.worker_nodes_started = nodes
    try:
        yield c
    finally:
        ray.shutdown()
        c.shutdown()
