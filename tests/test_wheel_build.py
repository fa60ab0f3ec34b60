"""A wheel's compiled modules are used where it is installed: the staleness check (an
extension older than its ``.py`` runs pure Python) applies to a source tree only, since
pip writes a wheel's ``.py`` files after the extensions of the same name."""

from __future__ import annotations

from pathlib import Path

from maumau_log import _select


def test_the_staleness_check_is_for_a_source_tree_only(tmp_path: Path) -> None:
    package = tmp_path / "maumau_log"
    package.mkdir()
    assert not _select.in_source_tree(package)  # site-packages/maumau_log
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'maumau-log'\n")
    assert _select.in_source_tree(package)


def test_this_checkout_is_a_source_tree() -> None:
    assert _select.in_source_tree(_select.ROOT)
