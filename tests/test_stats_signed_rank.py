"""The signed-rank test's counted null distribution gives scipy's p-values bit for bit."""

import numpy as np
import pytest
import scipy.stats

from treelab.stats._signed_rank import signed_rank


def test_hand_worked_example_with_ties_and_a_zero():
    # d = 1, 1, 2, -3, 0, 2: the zero is dropped; |d| = 1, 1, 2, 3, 2 have the average ranks
    # 1.5, 1.5, 3.5, 5, 3.5, so R+ = 10 and R- = 5 (W = 5). Twice the ranks are 3, 3, 7, 10, 7
    # (sum 30); of the 32 sign patterns, those with 2 R+ <= 10 are {}, {3} twice, {7} twice,
    # {10}, {3, 3} and {3, 7} four times: 11, so P(R+ <= 5) = P(R+ >= 10) = 11/32 and the
    # two-sided p is 22/32.
    w, p = signed_rank(np.array([1.0, 1.0, 2.0, -3.0, 0.0, 2.0]))
    assert w == 5.0
    assert p == 22 / 32


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.1])
def test_same_statistic_and_p_value_as_scipy(scale):
    """Cases scipy enumerates (ties or zeros, n <= 13: its enumeration is the slow reference,
    about 1 s at n = 13), and the cases around them (n 14 and 16: its normal approximation;
    no ties: its exact distribution), compared bit for bit."""
    rng = np.random.default_rng(7)
    sizes = [*rng.integers(1, 11, size=30), 12, 13, 14, 16]
    seen = 0
    for n in sizes:
        d = rng.integers(-4, 5, size=int(n)) * scale
        if not np.any(d != 0):
            continue
        ref = scipy.stats.wilcoxon(d, zero_method="wilcox")
        assert signed_rank(d) == (float(ref.statistic), float(ref.pvalue)), d
        seen += 1
    assert seen > 25


def test_no_ties_and_no_zeros_is_scipys_exact_distribution():
    d = np.array([0.3, -1.2, 2.5, 0.7, -0.1, 1.9, 3.3])
    ref = scipy.stats.wilcoxon(d)
    assert signed_rank(d) == (float(ref.statistic), float(ref.pvalue))


def test_refuses_more_than_one_dimension():
    with pytest.raises(ValueError, match="one-dimensional"):
        signed_rank(np.ones((2, 3)))
