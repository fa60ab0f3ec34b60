"""The audit's statistics: intervals, goodness of fit, exact tails, Holm's correction."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

# scipy.stats (about a second of CPU to import) is imported inside the functions that use
# it, when the tests run: the audit's worker processes import this package to count their
# parts and never need it.

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile (Wilson intervals)."""

# Statistics


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (``(0, 1)`` for n=0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    den = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def chi_square(
    observed: Sequence[float], expected: Sequence[float], df: int | None = None, scale: float = 1.0
) -> tuple[float, int, float]:
    """Pearson's goodness-of-fit statistic ``scale * sum((O - E)^2 / E)``.

    Args:
        observed, expected: counts per cell (every expected count > 0).
        df: degrees of freedom (default: cells - 1).
        scale: a variance correction (e.g. the finite population factor).
    Returns:
        ``(statistic, df, p)`` with ``p`` the chi-square upper tail.
    """
    from scipy import stats as sps

    o = np.asarray(observed, dtype=float)
    e = np.asarray(expected, dtype=float)
    stat = float(scale * np.sum((o - e) ** 2 / e))
    dof = len(o) - 1 if df is None else df
    return stat, dof, float(sps.chi2.sf(stat, dof))


def binom_tail(k: int, n: int, p: float, side: str) -> float:
    """Exact binomial p-value: ``"greater"`` P(X >= k), ``"less"`` P(X <= k), or
    ``"two-sided"`` (scipy's ``binomtest``: outcomes no more likely than k)."""
    from scipy import stats as sps

    if n == 0:
        return 1.0
    if side == "greater":
        return float(sps.binom.sf(k - 1, n, p))
    if side == "less":
        return float(sps.binom.cdf(k, n, p))
    return float(sps.binomtest(k, n, p, alternative="two-sided").pvalue)


def binom_sum_tail(k: int, groups: Sequence[tuple[int, float]], side: str) -> float:
    """P-value of ``k`` for a sum of independent binomials (a Poisson binomial with few
    distinct rates): ``groups`` holds ``(n_j, p_j)``; ``side`` is ``"greater"`` or
    ``"less"``. One group is the plain exact binomial; several are convolved exactly
    (a normal approximation with continuity correction beyond 10^7 cells)."""
    from scipy import stats as sps

    groups = [(n, p) for n, p in groups if n > 0]
    if not groups:
        return 1.0
    if len(groups) == 1:
        return binom_tail(k, groups[0][0], groups[0][1], side)
    total = sum(n for n, _ in groups)
    if total * total > 10**7 * len(groups):
        mean = sum(n * p for n, p in groups)
        sd = math.sqrt(sum(n * p * (1 - p) for n, p in groups)) or 1e-12
        if side == "greater":
            return float(sps.norm.sf((k - 0.5 - mean) / sd))
        return float(sps.norm.cdf((k + 0.5 - mean) / sd))
    pmf = np.array([1.0])
    for n, p in groups:
        pmf = np.convolve(pmf, sps.binom.pmf(np.arange(n + 1), n, p))
    tail = pmf[k:].sum() if side == "greater" else pmf[: k + 1].sum()
    return float(min(1.0, max(0.0, tail)))


def fisher_greater(k: int, n: int, k_other: int, n_other: int) -> float:
    """One-sided Fisher exact test that ``k / n`` exceeds ``k_other / n_other`` (the
    two-proportion test that conditions on the total of successes)."""
    from scipy import stats as sps

    if n == 0 or n_other == 0:
        return 1.0
    table = [[k, n - k], [k_other, n_other - k_other]]
    return float(sps.fisher_exact(table, alternative="greater").pvalue)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given), each at most 1.

    Flagging those with an adjusted p-value at most alpha keeps the chance of any false
    flag among all of them at most alpha, whatever their dependence.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted
