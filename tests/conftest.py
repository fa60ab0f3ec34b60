"""Test-wide settings: hypothesis runs without a per-example deadline.

Property tests replay whole simulated games; on a loaded machine (CI, or two cores shared
by several jobs) one example can take seconds, and a deadline would fail a correct test.
Tests that set their own ``settings(...)`` inherit this default.
"""

from hypothesis import settings

settings.register_profile("maumau", deadline=None)
settings.load_profile("maumau")
