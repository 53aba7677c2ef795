"""The two-sided Wilcoxon signed-rank test, as ``scipy.stats.wilcoxon(d)`` computes it, with
its small-sample null distribution counted instead of enumerated.

With ties or zero differences among at most 13 differences, ``scipy.stats.wilcoxon``'s
``method="auto"`` runs an exact permutation test: it enumerates all 2^n sign assignments and
ranks each one again (half a second a test; a reproduction page reads about a hundred of
them). The statistic under a sign flip is a sum of a fixed set of ranks, each counted or not,
so its null distribution is the subset-sum count of the ranks (Wilcoxon 1945; the average
ranks of ties are halves: twice them are integers), which :func:`signed_rank` counts exactly
in integers: the same p-value as scipy's enumeration, bit for bit, without the enumeration.
Every other case (no ties and no zeros: scipy's exact distribution; more than 13 differences
with ties or zeros: its normal approximation) is passed to scipy unchanged.
"""

from __future__ import annotations

import numpy as np
import scipy.stats

__all__ = ["rank_sums", "signed_rank"]

# scipy's "auto" enumerates the 2^n sign flips up to this n (2^13 <= its 9,999 resamples)
_ENUMERATED_MAX = 13


def _flip_counts(twice_ranks: np.ndarray) -> np.ndarray:
    """counts[s]: how many of the 2^m subsets of ``twice_ranks`` (integers) sum to s."""
    counts = np.zeros(int(twice_ranks.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    for r in twice_ranks:
        r = int(r)
        counts[r:] = counts[r:] + counts[:-r]  # (the right side is read before it is written)
    return counts


def rank_sums(d: np.ndarray) -> tuple[float, float]:
    """R+ and R-: the sums of the ranks of |d| over the positive and the negative differences
    (zeros dropped, ties given their average rank), Wilcoxon's (1945) statistics. The test
    rejects toward the side whose sum is larger: R+ > R- says the values are larger, whatever
    the sign of the median difference.

    Examples
    --------
    >>> rank_sums(np.array([1.0, 1.0, 2.0, -3.0, 0.0, 2.0]))
    (10.0, 5.0)
    """
    d = np.asarray(d, dtype=np.float64)
    nonzero = d[d != 0]
    ranks = scipy.stats.rankdata(np.abs(nonzero))
    return float(ranks[nonzero > 0].sum()), float(ranks[nonzero < 0].sum())


def signed_rank(d: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test of the paired differences ``d``.

    Returns ``(W, p)`` as ``scipy.stats.wilcoxon(d, zero_method="wilcox")`` does: W =
    min(R+, R-), the smaller sum of the ranks of |d| (zeros dropped, ties given their average
    rank) over the positive and the negative differences, and the two-sided p-value.

    Where scipy enumerates the 2^n sign flips (ties or zeros, n <= 13 differences), the null
    distribution of R+ is counted instead: with r_i twice the ranks of the m non-zero
    differences (integers), N(s) = #{subsets of the r_i summing to s} by the subset-sum
    recursion, and p = min(2 min(P(R+ <= r+), P(R+ >= r+)), 1) with P = N / 2^m (the 2^(n-m)
    flips of the zeros scale N and 2^n alike). Zero differences are dropped from the ranks
    (Wilcoxon's procedure, ``zero_method="wilcox"``).

    Examples
    --------
    >>> w, p = signed_rank(np.array([1.0, 1.0, 2.0, -3.0, 0.0, 2.0]))
    >>> float(w), round(p, 4)
    (5.0, 0.6875)
    """
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1:
        raise ValueError(f"d must be one-dimensional, got shape {d.shape}")
    nonzero = d[d != 0]
    n_zero = d.size - nonzero.size
    ranks = scipy.stats.rankdata(np.abs(nonzero))
    ties = np.unique(np.abs(nonzero)).size < nonzero.size
    if not (d.size <= _ENUMERATED_MAX and (ties or n_zero > 0)) or nonzero.size == 0:
        res = scipy.stats.wilcoxon(d, zero_method="wilcox")
        return float(res.statistic), float(res.pvalue)
    twice = np.rint(2 * ranks).astype(np.int64)
    r_plus2 = int(twice[nonzero > 0].sum())
    counts = _flip_counts(twice)
    total = 2.0 ** nonzero.size
    less = counts[: r_plus2 + 1].sum() / total
    greater = counts[r_plus2:].sum() / total
    p = min(2 * min(less, greater), 1.0)
    r_plus = r_plus2 / 2
    r_minus = float(twice.sum()) / 2 - r_plus
    return float(min(r_plus, r_minus)), float(p)
