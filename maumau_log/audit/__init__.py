"""The fairness and suspicious-play audit of a dataset.

:func:`audit` reads a dataset made by ``ingest``: what the tables do not hold (first hands,
catchable call faults and who caught them, whether a drawn card could be played, decision
times from ``t``, standings at an abandon) comes from the facts the ingest's replay recorded
(the ``audit_games``, ``audit_seats`` and ``audit_events`` tables, aggregated with Polars by
:mod:`maumau_log.audit.tables`); a dataset written before those tables has its valid games'
stored events replayed through the engine once more (:mod:`maumau_log.audit.collect`). It
runs the tests below and returns an :class:`AuditReport`.

Every test gives a p-value: how likely a result at least this far from fair play would be
if play were fair. All p-values of one report are corrected together by Holm's step-down
method, so the chance that a report on fair play flags anything at all (the family-wise
error rate) is at most ``alpha``; a finding is flagged when its Holm-adjusted p-value is at
most ``alpha``. A test is run only on a sample of at least ``min_games`` games (and, for
chi-square tests, expected counts of at least :data:`MIN_EXPECTED` in every cell); smaller
samples are listed as skipped with the reason, never flagged.

Tests (``section``: what is compared, how):

- ``deal``: the starter's rank and suit against the uniform draw from the pack (less the
  ``starter_redeal`` cards): Pearson chi-square goodness of fit. Power cards (each power
  of the ruleset: wild, draw, skip, reverse, cover, ...) in the first hands by seat and by
  position from the dealer: where the K cards of that power went (each seat or "elsewhere")
  against the expected share ``hand size / pack size``, Pearson chi-square times the finite
  population factor ``(N - 1) / (N - K)`` (the cells of one deal are multivariate
  hypergeometric, not multinomial), df = seats.
- ``seats``: wins by seat against what the turn order predicts (each game adds the win rate
  of the position that seat had from the dealer in it), chi-square with df = seats - 1.
  Wins by position from the dealer are shown with Wilson intervals and not tested: the
  turn order itself makes positions unequal under fair play.
- ``catches``: for each ordered pair (A faulted, B at the table), the number of A's
  catchable call faults that B caught against Binomial(faults, q), q the table's catch
  rate per fault and per other player (per ruleset and table size; several table sizes
  make it a sum of binomials); lower tail.
- ``head_to_head``: for each pair, in games one of them won, A's wins against
  Binomial(m, s_A / (s_A + s_B)), s the overall strength (wins over the wins expected from
  table sizes alone); two-sided.
- ``draws``: each player's cards drawn with reason ``no_play`` or ``voluntary`` that could
  be played on the pile right after the draw, against the other players' rate for the
  same reason: a two-proportion z-test stratified by reason (variance ``n q (1 - q)
  (1 + n / m)``, m the other players' draws, times their per-game dispersion when above
  1); upper tail.
- ``timing``: each player's decisions (a play, draw or pass starting their action, timed
  from the previous event's ``t``) faster than :data:`FAST_MS`, against the other players'
  share: one-sided Fisher exact test. Only where events carry ``t``.
- ``abandon``: each player's abandons while holding more cards than the best-placed other
  player, against the share of that player's event moments spent behind; upper tail.
- ``invalid``: each client's (header ``meta.client``, else ``meta.engine``) and each
  player's (the violation's player) invalid games against the other clients' / players'
  share: one-sided Fisher exact test.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..store import scan_all
from ..store.layout import DateWindow
from .accumulators import FactsStream, _Data, collect
from .findings import (  # noqa: F401  (the audit's API, re-exported)
    DEFAULT_ALPHA,
    DEFAULT_MIN_GAMES,
    FAST_MS,
    MAX_EVIDENCE,
    MIN_EXPECTED,
    AuditReport,
    Finding,
)
from .html import _fmt_p, report_html  # noqa: F401
from .merge import finish, invalid_counts
from .parts import collect_parts
from .stat_tests import (
    _abandon_tests,
    _catch_tests,
    _deal_tests,
    _draw_tests,
    _head_to_head_tests,
    _invalid_tests,
    _seat_tests,
    _timing_tests,
)
from .statistics import (  # noqa: F401
    Z95,
    binom_sum_tail,
    binom_tail,
    chi_square,
    fisher_greater,
    holm,
    wilson,
)
from .tables import collect_from_tables  # noqa: F401  (one part: the whole dataset)


@dataclass
class AuditInput:
    """What every test of :data:`TESTS` is given.

    Attributes:
        data: the ``games`` rows (``data.games``, with each game's ``client``), every
            built-in test's accumulated counts (``data.acc``, see
            :mod:`maumau_log.audit.accumulators`) and the number of games replayed.
        dataset: the dataset folder (for tests that query it).
        min_games: the smallest sample a test runs on.
        tables: the report's descriptive tables (a test may add one).
        rows: per-player rows of the ``players`` table (a test may add columns).
        window: the games audited, by date (a test that queries the dataset keeps to it).
    """

    data: _Data
    dataset: str | os.PathLike[str]
    min_games: int
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    window: DateWindow = field(default_factory=DateWindow)

    @property
    def facts(self) -> FactsStream:
        """One record per replayed valid game, replayed again from the dataset on each
        iteration (one game held at a time: memory does not grow with the games; each
        pass costs one more replay of the stored events)."""
        return FactsStream(self.dataset, self.data.games, self.data.replayed, self.window)


if TYPE_CHECKING:
    from .botlike import BotLikeness

AuditTest = Callable[[AuditInput], list[Finding]]
"""A test: the audit's input to its findings (run or skipped)."""

TESTS: list[AuditTest] = [
    lambda a: _deal_tests(a.data.acc.deal, a.min_games),
    lambda a: _seat_tests(a.data.acc.seats, a.min_games, a.tables),
    lambda a: _catch_tests(a.data.acc.play, a.min_games),
    lambda a: _head_to_head_tests(a.data.acc.play, a.min_games),
    lambda a: _draw_tests(a.data.acc.draws, a.data.acc.play, a.min_games, a.rows),
    lambda a: _timing_tests(a.data.acc.timing, a.min_games, a.rows),
    lambda a: _abandon_tests(a.data.acc.abandon, a.data.acc.play, a.min_games, a.rows),
    lambda a: _invalid_tests(a.data.invalid, a.min_games, a.tables),
]
"""The audit's tests, in report order. A new test is one more entry (a function of an
:class:`AuditInput` returning its findings); Holm's correction covers every finding."""


def audit(
    dataset: str | os.PathLike[str],
    alpha: float = DEFAULT_ALPHA,
    min_games: int = DEFAULT_MIN_GAMES,
    bot_likeness: BotLikeness | None = None,
    replay: bool = False,
    jobs: int | None = None,
    engine: str = "local",
    address: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> AuditReport:
    """Audit a dataset: deal fairness, seat advantage, suspicious play, invalid games.

    Args:
        dataset: a dataset folder made by ``ingest``.
        alpha: the family-wise false-flag rate of the report (Holm-corrected).
        min_games: the smallest number of games any test runs on.
        bot_likeness: run the bot-likeness test with these settings
            (:mod:`maumau_log.audit.botlike`; off when None: it costs rollouts).
        replay: replay the stored events even when the dataset holds the facts tables
            (a cross-check; ``report.facts_from`` says which path ran).
        jobs: worker processes for the facts' parts (default: the cores; 1: in this
            process). The report is byte-identical whatever the number.
        engine: ``local`` (a process pool) or ``ray`` (a Ray task per part).
        address: the Ray cluster (``ray`` only; default ``RAY_ADDRESS``, else a local one).
        since: audit only the games dated on or after this ``YYYY-MM-DD`` day (their
            ``date`` partition; games with no known date are left out once a bound is
            given), as ``stats`` and ``ratings`` count them.
        until: audit only the games dated on or before this day (as ``since``).
    Returns:
        The :class:`AuditReport`.
    Raises:
        DatasetError: the folder is not a usable dataset.
        ValueError: ``alpha`` not in (0, 1), ``min_games`` below 1, or a bound that is
            not a calendar date.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    if min_games < 1:
        raise ValueError(f"min_games must be at least 1, not {min_games}")
    window = DateWindow(since, until)
    loader = threading.Thread(target=_load_test_libraries, name="audit-tests-import")
    loader.start()
    try:
        data = None if replay else collect_parts(dataset, jobs, engine, address, window=window)
    finally:
        loader.join()
    facts_from = "ingest"
    if data is None:  # written before the facts tables: replay the stored events
        data = collect(dataset, window=window)
        facts_from = "replay"
        assert data.games is not None
        at = data.games.with_row_index("at")
        data.invalid = invalid_counts(at, scan_all(dataset, window)["violations"])
        finish(data.acc)
    report = AuditReport(
        dataset=str(dataset), alpha=alpha, min_games=min_games, since=since, until=until
    )
    report.games = data.n_games
    report.valid = data.n_valid
    report.replayed = data.replayed
    report.facts_from = facts_from
    given = AuditInput(data, dataset, min_games, report.tables, window=window)
    findings: list[Finding] = []
    for test in TESTS:
        findings += test(given)
    if bot_likeness is not None:  # the bot-likeness test lives in audit_botlike.py
        from .botlike import bot_likeness_tests

        findings += bot_likeness_tests(dataset, min_games, bot_likeness, window)
    rows = given.rows
    report.tables["players"] = [rows[p] for p in sorted(rows)]
    _correct(findings, alpha)
    report.findings = findings
    return report


def _load_test_libraries() -> None:
    """Import scipy.stats, which the tests use (about a second of CPU), in a thread while
    the parts are counted: the driver only waits for the workers then (and with ``jobs``
    1, Polars leaves part of the second core idle), so the import no longer adds its
    second to the audit's wall time before or after the counting."""
    from scipy import stats  # noqa: F401


def _correct(findings: Iterable[Finding], alpha: float) -> None:
    tested = [f for f in findings if f.p_value is not None]
    adjusted = holm([f.p_value for f in tested])  # type: ignore[misc]
    for f, adj in zip(tested, adjusted, strict=True):
        f.p_adjusted = adj
        f.flagged = adj <= alpha
