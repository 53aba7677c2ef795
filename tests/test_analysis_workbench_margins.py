"""Margins against a vote-counting loop and hand-worked rows; strength is their mean."""

import naive_analysis as naive
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings

from treelab.analysis import margin_cdf, margins, strength_correlation


@settings(max_examples=150, deadline=None)
@given(naive.member_problem())
def test_margins_match_naive_and_strength(problem):
    L, y, C = problem
    m = margins(L, y, n_classes=C)
    ref = [naive.margin_row(L[:, i].tolist(), int(y[i]), C) for i in range(len(y))]
    np.testing.assert_allclose(m.values, ref, atol=1e-12)
    assert m.dims == ("sample",)
    assert float(m.mean()) == pytest.approx(float(strength_correlation(L, y, n_classes=C)
                                                  .strength), abs=1e-12)


def test_margins_handworked():
    # row 0: 3 of 3 right; row 1: 2 right, 1 for class 2; row 2: 1 right, 2 for class 1;
    # row 3: 1 vote each for classes 0, 1, 2 with truth 0 -> 1/3 - 1/3 = 0
    L = [[0, 1, 1, 0], [0, 1, 2, 1], [0, 2, 1, 2]]
    m = margins(L, [0, 1, 2, 0])
    np.testing.assert_allclose(m.values, [1.0, 1 / 3, -1 / 3, 0.0])
    assert m.attrs["n_trees"] == 3 and m.attrs["function"] == "treelab.analysis.margins"


def test_margins_leading_dims_and_cdf():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 40)
    L = xr.DataArray(rng.integers(0, 3, (2, 5, 40)), dims=("alpha", "tree", "sample"),
                     coords={"alpha": [0.1, 0.9]})
    m = margins(L, y, n_classes=3)
    assert m.dims == ("alpha", "sample")
    np.testing.assert_array_equal(m.sel(alpha=0.9).values,
                                  margins(L.values[1], y, n_classes=3).values)
    cdf = margin_cdf(m, thresholds=[-1.0, 0.0, 1.0])
    assert cdf.dims == ("alpha", "margin_threshold")
    np.testing.assert_array_equal(cdf.margin_threshold.values, [-1.0, 0.0, 1.0])
    for a in range(2):
        vals = m.values[a]
        np.testing.assert_allclose(cdf.values[a], [np.mean(vals <= t) for t in (-1, 0, 1)])
    assert np.all(cdf.values[:, -1] == 1.0)
    with pytest.raises(ValueError, match="thresholds"):
        margin_cdf(m, thresholds=[])
    # no margin is <= NaN: F(NaN) is undefined (a sorted search would give 1), refused;
    # the infinities are numbers, F(-inf) = 0 and F(inf) = 1
    with pytest.raises(ValueError, match="thresholds holds NaN at positions \\[1\\]"):
        margin_cdf(m, thresholds=[0.0, np.nan])
    np.testing.assert_array_equal(margin_cdf(m, thresholds=[-np.inf, np.inf]).values,
                                  [[0.0, 1.0], [0.0, 1.0]])
