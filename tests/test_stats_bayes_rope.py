"""The Bayesian signed-rank test's rope is the paper's closed interval (Benavoli et al. 2017,
section 4.2: theta_rope sums the weights of the Walsh sums in [-2r, 2r]), and a tie between
regions in a draw is no win for either method; the correlated t test's rope is closed too (a
point-mass posterior on a bound lies in it): hand-worked closed forms, no sampling error where
the answer is exact."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
import xarray as xr

from treelab import stats
from treelab.stats._bayes import _probability_vars

# sd of a probability from 50000 draws <= 0.0022; 5 sd
MC_TOL = 0.011


def _table(a, b) -> xr.DataArray:
    return xr.DataArray(np.stack([a, b], axis=1), dims=("dataset", "ensemble"),
                        coords={"ensemble": ["A", "B"]})


A = np.array([0.10, 0.20, 0.15, 0.30, 0.25, 0.12])


@pytest.mark.parametrize("a,b", [("A", "B"), ("B", "A")])
def test_identical_methods_without_rope_are_practically_equivalent(a, b):
    # every Walsh sum is 0, inside [-0, 0]: theta = (0, 1, 0) on every draw
    res = stats.bayesian_signed_rank(_table(A, A.copy()), a, b, rope=0.0, n_samples=2000)
    np.testing.assert_array_equal(res.samples.values, np.tile([0.0, 1.0, 0.0], (2000, 1)))
    assert (float(res.p_a_better), float(res.p_rope), float(res.p_b_better)) == (0, 1, 0)


def test_identical_up_to_rounding_are_ties():
    # 0.1 + 0.2 is 0.30000000000000004: the same value as 0.3 up to rounding
    a = np.array([0.1 + 0.2, 0.2, 0.5])
    b = np.array([0.3, 0.2, 0.5])
    res = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=0.0, n_samples=2000)
    assert float(res.p_rope) == 1.0
    assert float(np.abs(res.difference).max()) == 0.0


def test_ties_and_one_difference_without_rope_hand_worked():
    # five ties and a = b + 0.01 once: the Walsh sums with z_6 are > 0 (right), all others 0
    # (rope), so theta_right = 1 - (1 - w6)^2 and theta_rope = (1 - w6)^2, w6 ~ Beta(1, 5.5);
    # b better is the most probable region exactly when w6 > 1 - 1/sqrt(2)
    b = A.copy()
    a = A.copy()
    a[0] += 0.01
    res = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=0.0, n_samples=50_000)
    expected = scipy.stats.beta.sf(1 - 1 / np.sqrt(2), 1, 0.5 + 5)
    assert float(res.p_b_better) == pytest.approx(expected, abs=MC_TOL)
    assert float(res.p_rope) == pytest.approx(1 - expected, abs=MC_TOL)
    assert float(res.p_a_better) == 0.0


def test_a_walsh_sum_on_the_bound_is_in_the_rope():
    # every difference exactly +rope (0.25 and its sums are exact in binary): the sums are
    # 0.25 (with the pseudo-observation 0) and 0.5 = 2 rope, all in the closed rope
    b = np.array([0.0, 0.25, 0.5, 0.75])
    res = stats.bayesian_signed_rank(_table(b + 0.25, b), "A", "B", rope=0.25, n_samples=2000)
    np.testing.assert_array_equal(res.samples.sel(region="rope").values, 1.0)
    assert float(res.p_rope) == 1.0


def test_a_tie_between_regions_is_shared_not_won():
    samples = np.array([[0.5, 0.0, 0.5],          # a better and b better tie
                        [0.2, 0.4, 0.4],          # rope and b better tie
                        [1 / 3, 1 / 3, 1 / 3],    # all three
                        [0.35 + 0.1, 0.45, 0.1],  # 0.44999999999999996 and 0.45: a tie
                        [0.6, 0.1 + 0.2, 0.1],    # a better alone
                        [0.1 + 0.2, 0.3, 0.4]])   # b better alone
    out = _probability_vars(samples[None], (), "cite", "what")
    got = [float(np.asarray(out[n].data)[0])
           for n in ("p_a_better", "p_rope", "p_b_better")]
    expected = np.array([0.5 + 1 / 3 + 0.5 + 1, 0.5 + 1 / 3 + 0.5, 0.5 + 0.5 + 1 / 3 + 1]) / 6
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    assert sum(got) == pytest.approx(1.0)


def _folds(a, b) -> xr.DataArray:
    return xr.DataArray(np.stack([a, b]), dims=("ensemble", "fold"),
                        coords={"ensemble": ["A", "B"]})


@pytest.mark.parametrize("greater_is_better", [False, True])
def test_correlated_t_point_mass_in_the_closed_rope(greater_is_better):
    # equal differences on every fold: s^2 = 0 and the posterior of mu is a point mass at
    # d_bar; |d_bar| <= rope puts all of it in the closed rope, as in the signed-rank test
    # (halving a mass on a bound had given identical methods at rope = 0 P(rope) = 0)
    same = np.full(10, 0.2)
    res = stats.bayesian_correlated_t(_folds(same, same), "A", "B", rope=0.0,
                                      test_fraction=0.1, greater_is_better=greater_is_better)
    assert (float(res.p_a_better), float(res.p_rope), float(res.p_b_better)) == (0, 1, 0)
    # every difference exactly +0.125 = rope (exact in binary): on the bound, in the rope
    res = stats.bayesian_correlated_t(_folds(same + 0.125, same), "A", "B", rope=0.125,
                                      test_fraction=0.1, greater_is_better=greater_is_better)
    assert (float(res.p_a_better), float(res.p_rope), float(res.p_b_better)) == (0, 1, 0)
    # beyond the rope: all of it on one side (a's values larger: a better only for accuracies)
    res = stats.bayesian_correlated_t(_folds(same + 0.25, same), "A", "B", rope=0.125,
                                      test_fraction=0.1, greater_is_better=greater_is_better)
    expected = (1, 0, 0) if greater_is_better else (0, 0, 1)
    assert (float(res.p_a_better), float(res.p_rope), float(res.p_b_better)) == expected
