"""Where a diversity measure is undefined it is NaN, and the variable's description says why.

The cases are worked by hand from the definitions (Kuncheva & Whitaker 2003; Breiman 2001):
a member right on every row makes Q and rho 0 / 0 for its pairs, members giving one class
on every row make kappa's p_e = 1, a single member leaves E, the interrater kappa, GD and
CFD without pairs, and an ensemble right on every row leaves GD and rho without failures.
"""

import warnings

import numpy as np
import pytest

from treelab.analysis import nonpairwise_diversity, pairwise_diversity, strength_correlation

Y = np.array([0, 1, 2, 1, 0, 2])


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


@pytest.mark.parametrize("pair_matrix", [True, False])
def test_pairwise_nan_is_explained(pair_matrix):
    # member 0 right on every row: N^00 = N^01 = 0, so Q and rho are 0 / 0 for its pairs;
    # members 1 and 2 label every row 0: p_e = 1 for that pair, kappa is 0 / 0
    L = np.stack([Y, np.zeros(6, int), np.zeros(6, int)])
    ds = _quiet(pairwise_diversity, L, Y, pair_matrix=pair_matrix)
    if pair_matrix:
        assert np.isnan(ds.q_statistic[0, 1]) and np.isnan(ds.correlation[0, 2])
        assert np.isnan(ds.kappa[1, 2])
        for name in ("q_statistic", "correlation"):
            assert "right on every row" in ds[name].attrs["description"]
        assert "p_e = 1" in ds.kappa.attrs["description"]
    # the pair (1, 2) has Q = 1 (N^11 N^00 > 0, N^01 = N^10 = 0), so the means are defined
    assert float(ds.mean_q_statistic) == 1.0
    assert "where the measure is defined" in ds.mean_q_statistic.attrs["description"]
    one = _quiet(pairwise_diversity, Y[None], Y, pair_matrix=pair_matrix)
    for name in ("mean_q_statistic", "mean_disagreement", "mean_kappa"):
        assert np.isnan(one[name]) and "NaN with one member" in one[name].attrs["description"]


def test_nonpairwise_nan_is_explained():
    one = _quiet(nonpairwise_diversity, Y[None], Y)
    for name in ("entropy", "interrater_kappa", "generalized_diversity",
                 "coincident_failure_diversity"):
        assert np.isnan(one[name]), name
        assert "NaN with one member" in one[name].attrs["description"], name
    right = _quiet(nonpairwise_diversity, np.tile(Y, (3, 1)), Y)
    # p_bar = 1 and no member ever fails: kappa and GD undefined, CFD 0 by definition
    assert np.isnan(right.interrater_kappa) and np.isnan(right.generalized_diversity)
    assert "p_bar is 0 or 1" in right.interrater_kappa.attrs["description"]
    assert "no member ever fails" in right.generalized_diversity.attrs["description"]
    assert float(right.coincident_failure_diversity) == 0.0


def test_strength_correlation_nan_is_explained():
    # every member right on every row: p1 = 1, p2 = 0, sd_t = 0 and var(s) = 0
    ds = _quiet(strength_correlation, np.tile(Y, (3, 1)), Y)
    assert np.isnan(ds.correlation)
    assert "every sd_t is 0" in ds.correlation.attrs["description"]


def test_out_of_bag_nan_is_explained():
    # every row in every tree's bag: no out-of-bag row, nothing to estimate from
    L = np.array([[0, 1, 1, 0], [1, 1, 0, 0]])
    ds = _quiet(strength_correlation, L, [0, 1, 1, 0], in_bag=np.ones((2, 4), int))
    assert int(ds.n_rows) == 0 and np.isnan(ds.strength) and np.isnan(ds.correlation)
    for name in ("strength", "correlation"):
        assert "n_rows = 0" in ds[name].attrs["description"], name
