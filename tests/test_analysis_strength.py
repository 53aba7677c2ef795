"""Strength, correlation and Breiman's bound against the naive reference."""

import math

import naive_analysis as naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelab.analysis import strength_correlation


def assert_close(a, b, tol=1e-10):
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, rel=tol, abs=tol)


@settings(max_examples=200, deadline=None)
@given(naive.member_problem())
def test_matches_naive(problem):
    L, y, C = problem
    ds = strength_correlation(L, y, n_classes=C)
    ref = naive.strength(L.tolist(), y.tolist(), C)
    assert_close(float(ds.strength), ref["strength"])
    assert_close(float(ds.correlation), ref["correlation"])
    assert_close(float(ds.breiman_bound), ref["breiman_bound"])
    np.testing.assert_allclose(ds.margin.values, ref["margin"], atol=1e-12)
    assert ds.margin.dims == ("sample",)
    assert ds.sd.dims == ("tree",)


def test_unanimous_correct_ensemble():
    y = np.array([0, 1, 2, 1, 0])
    ds = strength_correlation(np.tile(y, (4, 1)), y)
    assert float(ds.strength) == 1.0
    assert np.all(ds.margin.values == 1.0)
    # every sd_t is 0 and var(s) is 0: rho is 0/0, documented as NaN
    assert np.isnan(ds.correlation) and np.isnan(ds.breiman_bound)


def test_single_class_codes():
    # only class 0 ever appears: the rival class is the (vote-less) class 1
    ds = strength_correlation(np.zeros((3, 4), dtype=int), np.zeros(4, dtype=int))
    assert float(ds.strength) == 1.0


def test_hand_example():
    # 3 trees, 4 rows, 3 classes
    y = np.array([0, 1, 2, 0])
    L = np.array([[0, 1, 1, 2], [0, 2, 2, 2], [1, 1, 2, 0]])
    ds = strength_correlation(L, y)
    # row margins: (2-1)/3, (2-1)/3, (2-1)/3, (1-2)/3; rival classes 1, 2, 1, 2
    np.testing.assert_allclose(ds.margin.values, [1 / 3, 1 / 3, 1 / 3, -1 / 3])
    np.testing.assert_array_equal(ds.rival_class.values, [1, 2, 1, 2])
    s = 1 / 6
    assert float(ds.strength) == pytest.approx(s)
    var = 1 / 9 - s**2
    p1 = np.array([2 / 4, 2 / 4, 3 / 4])
    p2 = np.array([2 / 4, 2 / 4, 1 / 4])
    sd = np.sqrt(p1 + p2 - (p1 - p2) ** 2)
    rho = var / sd.mean() ** 2
    assert float(ds.correlation) == pytest.approx(rho)
    assert float(ds.breiman_bound) == pytest.approx(rho * (1 - s**2) / s**2)


def test_negative_strength_gives_nan_bound():
    y = np.zeros(3, dtype=int)
    ds = strength_correlation(np.ones((3, 3), dtype=int), y)
    assert float(ds.strength) == -1.0
    assert np.isnan(ds.breiman_bound)


def test_bad_input():
    with pytest.raises(ValueError, match="samples"):
        strength_correlation(np.zeros((2, 3), dtype=int), np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="y"):
        strength_correlation(np.zeros((2, 3), dtype=int), np.array([0, 5, 0]), n_classes=2)


@settings(max_examples=150, deadline=None)
@given(naive.member_problem(), st.data())
def test_out_of_bag_matches_slow_loop(problem, data):
    L, y, C = problem
    bag = data.draw(hnp.arrays(np.int64, L.shape, elements=st.integers(0, 2)))
    ds = strength_correlation(L, y, n_classes=C, in_bag=bag)
    ref = naive.strength_oob(L.tolist(), y.tolist(), C, bag.tolist())
    assert int(ds.n_rows) == ref["n_rows"]
    assert_close(float(ds.strength), ref["strength"])
    assert_close(float(ds.correlation), ref["correlation"])
    if ref["n_rows"]:
        got = ds.margin.values[~np.isnan(ds.margin.values)]
        np.testing.assert_allclose(got, ref["margin"], atol=1e-12)


def test_out_of_bag_with_nothing_in_bag_is_the_hold_out_estimate():
    rng = np.random.default_rng(0)
    L, y = rng.integers(0, 3, (5, 40)), rng.integers(0, 3, 40)
    oob = strength_correlation(L, y, in_bag=np.zeros((5, 40), dtype=bool))
    plain = strength_correlation(L, y)
    for name in ("strength", "correlation", "breiman_bound"):
        assert_close(float(oob[name]), float(plain[name]), tol=1e-12)


def test_out_of_bag_hand_worked():
    # 3 trees, 2 rows; row 0 seen by tree 0, row 1 by trees 1 and 2
    y = np.array([0, 1])
    L = np.array([[1, 1], [0, 0], [0, 1]])
    bag = np.array([[1, 0], [0, 2], [0, 1]])
    ds = strength_correlation(L, y, n_classes=2, in_bag=bag)
    # row 0: trees 1, 2 vote 0, 0 -> s = 1; row 1: tree 0 votes 1 -> s = 1
    np.testing.assert_allclose(ds.margin.values, [1.0, 1.0])
    assert float(ds.strength) == 1.0
    # tree 0 scores row 1 only (right), trees 1 and 2 row 0 only (right): p1 = 1, p2 = 0
    np.testing.assert_allclose(ds.p1.values, [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="in_bag must have shape"):
        strength_correlation(L, y, in_bag=bag[:2])


@pytest.mark.parametrize("make", ["BaggedTrees", "RandomForest", "VRTrees"])
def test_oob_of_a_fitted_ensemble_matches_slow_loop(make):
    import treelab
    from treelab.analysis import in_bag_counts, oob_strength_correlation

    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 3))
    y = np.array(["p", "q", "r"])[(X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(int)
                                   + (X[:, 1] > 1)]
    kwargs = {"VRTrees": {"sampling": "bootstrap", "alpha": 0.5},
              # grown to purity, so each tree fits its own in-bag rows
              "BaggedTrees": {"c45": False, "min_objs": 1, "min_samples_split": 2,
                              "curtail_min": 1}}.get(make, {})
    est = getattr(treelab, make)(n_estimators=6, random_state=11, **kwargs).fit(X, y)
    bag = in_bag_counts(est, y)
    assert bag.shape == (6, 80) and np.all(bag.sum(axis=1) == 80)
    if make == "BaggedTrees":
        # a fully grown tree fits its own (distinct, continuous) in-bag rows exactly
        member = est.member_predict(X)
        assert np.all(member[bag > 0] == np.broadcast_to(y, bag.shape)[bag > 0])
    ds = oob_strength_correlation(est, X, y)
    codes = np.searchsorted(est.classes_, y)
    L = np.searchsorted(est.classes_, est.member_predict(X))
    ref = naive.strength_oob(L.tolist(), codes.tolist(), 3, bag.tolist())
    assert int(ds.n_rows) == ref["n_rows"] > 0
    assert_close(float(ds.strength), ref["strength"])
    assert_close(float(ds.correlation), ref["correlation"])
    with pytest.raises(ValueError, match="training labels"):
        in_bag_counts(est, y[::-1])


def test_oob_refuses_unbagged_or_unseeded_ensembles():
    import treelab
    from treelab.analysis import in_bag_counts

    X = np.random.default_rng(0).normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="bootstrap"):
        in_bag_counts(treelab.VRTrees(n_estimators=3, random_state=1).fit(X, y), y)
    with pytest.raises(ValueError, match="integer random_state"):
        in_bag_counts(treelab.BaggedTrees(n_estimators=3).fit(X, y), y)
