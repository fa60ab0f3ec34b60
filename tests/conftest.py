"""Test-wide settings: hypothesis runs without a per-example deadline.

Property tests replay whole simulated games; on a loaded machine (CI, or two cores shared
by several jobs) one example can take seconds, and a deadline would fail a correct test.
Tests that set their own ``settings(...)`` inherit this default.

Fixtures shared by several test modules live here once: ``logs``, the three hand-made
classic games of ``test_records`` as one JSON Lines file.
"""

from pathlib import Path

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
