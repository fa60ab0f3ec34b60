"""Call words (the last-card call, RULES.md "What every system shares"): a logged word
folds to lower case without spaces, hyphens and underscores before it is compared."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maumau_log.engine.calls import normalize_call

_FOLD = str.maketrans("", "", " -_")


@given(st.text(alphabet=st.sampled_from("MauMAU -_ßİ\u0130ǅ1"), max_size=12))
def test_call_words_fold_as_lower_then_without_spaces_hyphens_underscores(word: str) -> None:
    assert normalize_call(word) == word.lower().translate(_FOLD)


def test_call_words_by_hand() -> None:
    assert [normalize_call(w) for w in ("Mau", "MAU-MAU", "mau mau", "Mau_Mau", "Makao")] == [
        "mau", "maumau", "maumau", "maumau", "makao",
    ]  # fmt: skip
