"""The audit's vocabulary: its constants, :class:`Finding` and :class:`AuditReport`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..events import Draw, Pass, Play

DEFAULT_ALPHA = 0.05
"""Family-wise false-flag rate per report (Holm-corrected)."""

DEFAULT_MIN_GAMES = 50
"""No test runs on fewer games than this (``--min-games``)."""

MIN_EXPECTED = 5.0
"""A chi-square test needs at least this expected count in every cell."""

FAST_MS = 300
"""A decision faster than this many milliseconds counts as inhumanly fast."""

MAX_EVIDENCE = 20
"""Game ids and events listed per finding at most."""

CALL_REASONS = ("missed_call", "wrong_call")
DRAW_REASONS = ("no_play", "voluntary")
POWERS = ("wild", "draw", "skip", "reverse", "cover", "play_again", "cancel", "draw_previous")
"""The card powers whose first-hand distribution is tested (those the ruleset has)."""

_DECISIONS = (Play, Draw, Pass)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` with its noun in the right number: ``"1 game"``, ``"2 games"``, ``"1,000 games"``.

    Args:
        n: the count; noun: the singular; plural: the plural where it is not noun + "s".

    >>> counted(1, "game"), counted(0, "game"), counted(1000, "departure")
    ('1 game', '0 games', '1,000 departures')
    """
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


# ---------------------------------------------------------------------------------------
# The report


@dataclass
class Finding:
    """One test (run or skipped).

    Attributes:
        section: ``deal``, ``seats``, ``catches``, ``head_to_head``, ``draws``, ``timing``,
            ``abandon`` or ``invalid``.
        check: what was tested (e.g. ``power_by_seat:wild``).
        subject: who or what (``classic/4p``, ``p1 <- p2``, ``p3``, a client).
        method: how the p-value was computed.
        summary: the result in one sentence.
        games: games the sample comes from.
        n: trials (cards, faults, draws, decisions) or cells, as the method says.
        statistic: the test statistic (chi-square) or the observed count.
        df: chi-square degrees of freedom, else None.
        expected: the count expected under fair play (None for chi-square tests).
        p_value: the raw p-value (None when skipped).
        p_adjusted: the Holm-adjusted p-value over the whole report.
        flagged: ``p_adjusted <= alpha``.
        skipped: why the test was not run, or None.
        table: per-cell observed and expected counts (chi-square tests).
        evidence: ``games`` (ids) and ``events`` (``[game_id, event_index]``), at most
            :data:`MAX_EVIDENCE` each.
    """

    section: str
    check: str
    subject: str
    method: str
    summary: str = ""
    games: int = 0
    n: int = 0
    statistic: float | None = None
    df: int | None = None
    expected: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    flagged: bool = False
    skipped: str | None = None
    table: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, list[Any]] = field(default_factory=lambda: {"games": [], "events": []})


@dataclass
class AuditReport:
    """An audit: parameters, counts, findings and the descriptive tables.

    Attributes:
        dataset: the dataset folder.
        alpha: the family-wise significance level.
        min_games: the smallest sample tested.
        correction: ``"holm"``.
        since: the first day audited (``YYYY-MM-DD``, the games' ``date`` partition),
            None for no bound; in the JSON document only when set.
        until: the last day audited (as ``since``).
        games, valid, replayed: games in the dataset, valid ones, valid ones re-replayed
            (a valid game whose stored events do not replay alone, e.g. a match round that
            needs its earlier rounds, is left out of the play tests).
        facts_from: where the play tests' facts came from: ``"ingest"`` (the facts tables
            the ingest recorded) or ``"replay"`` (the stored events replayed
            again: a dataset, or part of one, written before the facts tables).
        findings: every test, run or skipped, in report order.
        tables: descriptive tables (name to rows): wins by seat and by dealer position with
            Wilson intervals, per-player rates, invalid games by code, player, client, date.
    """

    dataset: str
    alpha: float
    min_games: int
    correction: str = "holm"
    since: str | None = None
    until: str | None = None
    games: int = 0
    valid: int = 0
    replayed: int = 0
    facts_from: str = "replay"
    findings: list[Finding] = field(default_factory=list)
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def tested(self) -> list[Finding]:
        """The findings that were run (have a p-value)."""
        return [f for f in self.findings if f.p_value is not None]

    @property
    def flags(self) -> list[Finding]:
        """The flagged findings."""
        return [f for f in self.findings if f.flagged]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        window = {k: v for k, v in (("since", self.since), ("until", self.until)) if v}
        return {
            "dataset": self.dataset,
            "alpha": self.alpha,
            "min_games": self.min_games,
            "correction": self.correction,
            **window,
            "games": self.games,
            "valid": self.valid,
            "replayed": self.replayed,
            "facts_from": self.facts_from,
            "tests": len(self.tested),
            "flags": len(self.flags),
            "findings": [asdict(f) for f in self.findings],
            "tables": self.tables,
        }
