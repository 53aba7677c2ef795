"""Every learner over the whole double range: subnormal numbers, the largest finite values and
columns of very different magnitudes (issue 26 item 1).

The features are multiples of 1/256, so multiplying a column by a power of two 2**e is exact
anywhere from 2**-1066 (subnormal numbers, which keep only a few bits) to 2**1024 (the largest
finite doubles). A learner invariant to a column's scale must then grow the very trees it grows
on the unscaled data: the learners that scale or project their features (MMDT, CVDT, rotation
trees) bring every column back near 1 by an exact power of two first, and the axis-aligned
learners split on ranks. The reference is the same learner on the unscaled data, an
independent fit.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import RegressorMixin, clone

import treelab

# the classifiers (the regressors have tests/test_regression_*.py)
ESTIMATORS = [getattr(treelab, name) for name in treelab.__all__
              if inspect.isclass(getattr(treelab, name))
              and not issubclass(getattr(treelab, name), RegressorMixin)]
SCALING = [
    ("MMDT", lambda: treelab.MMDT(random_state=0)),
    ("MMDT-minmax", lambda: treelab.MMDT(scale="minmax", random_state=0)),
    ("MMDT-raw", lambda: treelab.MMDT(scale=None, random_state=0)),
    ("BaggedMMDT", lambda: treelab.BaggedMMDT(n_estimators=4, random_state=0)),
    ("CVDT-mmdt", lambda: treelab.CVDT(candidates=("mmdt",), random_state=0)),
    ("BaggedCVDT", lambda: treelab.BaggedCVDT(n_estimators=4, random_state=0)),
    ("RotationForest", lambda: treelab.RotationForest(n_estimators=4, random_state=0)),
    ("RotationForest-pca", lambda: treelab.RotationForest(n_estimators=4, rotation="pca",
                                                          random_state=0)),
    ("RotationForest-identity", lambda: treelab.RotationForest(
        n_estimators=4, rotation="identity", random_state=0)),
]
#: per-column exponents: deep subnormal, just subnormal, the largest finite, mixed
UNIFORM = {"subnormal": [-1066] * 3, "below-2^-1024": [-1030] * 3, "largest": [1024] * 3,
           "largest-negative": [1024] * 3}
MIXED = {"mixed": [-1066, 1024, 0], "mixed2": [1000, -1030, -3]}


def problem(seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 256, (n, 3)) / 256.0
    X[:, 1] -= 0.5  # negative values too
    y = (X[:, 0] + X[:, 1] > 0.4).astype(int) + (X[:, 2] > 0.75)  # three classes
    return X, y


def fit_quietly(make, X, y):
    """Fit with every RuntimeWarning (overflow, invalid value) made an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return make().fit(X, y)


def assert_same_model(make, exponents, sign=1.0):
    X, y = problem()
    Xt, _ = problem(1, 60)
    e = np.asarray(exponents)
    base = make().fit(sign * X, y)
    far = fit_quietly(make, sign * np.ldexp(X, e), y)
    n_nodes = far.tree_stats().n_nodes.values
    assert n_nodes.min() > 1  # not the single leaf of the majority class
    np.testing.assert_array_equal(n_nodes, base.tree_stats().n_nodes.values)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = far.predict_proba(sign * np.ldexp(Xt, e))
    np.testing.assert_array_equal(got, base.predict_proba(sign * Xt))


@pytest.mark.parametrize("where", list(UNIFORM))
@pytest.mark.parametrize("name,make", SCALING, ids=[s[0] for s in SCALING])
def test_scaling_learners_grow_the_same_trees_over_the_double_range(name, make, where):
    assert_same_model(make, UNIFORM[where], -1.0 if where == "largest-negative" else 1.0)


@pytest.mark.parametrize("where", list(MIXED))
@pytest.mark.parametrize("name,make", [s for s in SCALING if s[0] != "MMDT-raw"],
                         ids=[s[0] for s in SCALING if s[0] != "MMDT-raw"])
def test_scaling_learners_keep_every_column_of_mixed_magnitudes(name, make, where):
    # with scaling (and in rotation trees, which standardise), each column is conditioned by
    # its own power of two: one factor for all would round the 2**-1066 column to zero
    assert_same_model(make, MIXED[where])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_learner_predicts_alike_at_both_ends_of_the_range(cls):
    X, y = problem()
    Xt, _ = problem(1, 60)
    kw = {"random_state": 0}
    if "n_estimators" in cls().get_params():
        kw["n_estimators"] = 3
    base = cls(**kw).fit(X, y).predict_proba(Xt)
    # 2**-1050: subnormal numbers that still hold every random threshold the unscaled draw
    # separates the rows with (at 2**-1066 the 8-bit grid has no room left between adjacent
    # values, and a uniform threshold rounds onto one of them)
    for e in ([-1050] * 3, [1024] * 3, [-1050, 1024, 0]):
        far = fit_quietly(lambda: cls(**kw), np.ldexp(X, e), y)
        np.testing.assert_array_equal(far.predict_proba(np.ldexp(Xt, e)), base)


def test_issue_example_subnormal_features_are_not_scored_as_the_majority_class():
    X = np.random.RandomState(0).rand(40, 3)
    y = X[:, 0] >= 0.5
    # fresh rows: a pure tree reaches training accuracy 1.0 whatever it learnt, so the check
    # is on 300 rows it never saw, against the same learner fitted on the unscaled rows
    X_new = np.random.RandomState(1).rand(300, 3)
    for est in (treelab.MMDT(random_state=0), treelab.BaggedMMDT(random_state=0),
                treelab.RotationForest(random_state=0)):
        fitted = fit_quietly(lambda est=est: est, X * 1e-310, y)
        assert fitted.score(X * 1e-310, y) == 1.0
        unscaled = clone(est).fit(X, y)
        np.testing.assert_array_equal(fitted.predict(X_new * 1e-310), unscaled.predict(X_new))
        assert fitted.score(X_new * 1e-310, X_new[:, 0] >= 0.5) >= 0.9  # the majority: 0.5


@pytest.mark.parametrize("make", [lambda: treelab.MMDT(random_state=0),
                                  lambda: treelab.RotationForest(n_estimators=4,
                                                                 random_state=0)])
def test_missing_values_beside_the_largest_doubles_get_a_finite_fill(make):
    # the fill of a missing numeric value is the column's training mean; the plain sum of
    # values near the largest double is inf, which made the filled rows inf
    X, y = problem()
    X[::9, 0] = np.nan
    base = make().fit(X, y)
    far = fit_quietly(make, np.ldexp(X, 1024), y)
    assert np.isfinite(far.real_map_.fill).all()
    np.testing.assert_allclose(np.ldexp(far.real_map_.fill[0], -1024), np.nanmean(X[:, 0]),
                               rtol=1e-15)
    np.testing.assert_array_equal(far.predict(np.ldexp(X, 1024)), base.predict(X))


def test_prediction_rows_far_outside_the_training_range_stay_finite():
    # trained on subnormal numbers (conditioned by 2**1060 or so), asked about ordinary ones
    X, y = problem()
    est = fit_quietly(lambda: treelab.BaggedMMDT(n_estimators=3, random_state=0),
                      np.ldexp(X, -1066), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        proba = est.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # rows that far out lie beyond every test's threshold: moving them further out (or a
    # little back) along the same direction changes no member's leaf, so no answer
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for k in (-10, 10, 40):
            np.testing.assert_array_equal(est.predict_proba(np.ldexp(X, k)), proba)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_columns_spanning_both_signs_of_the_largest_doubles(cls):
    # max - min of such a column is beyond the largest double: a random threshold drawn as
    # lo + u (hi - lo) became lo every time, cutting one row off per split (ExtraTrees: 298
    # nodes a tree instead of 77, accuracy 0.82 instead of 0.985)
    rng = np.random.default_rng(3)
    X = rng.integers(-255, 256, (120, 3)) / 256.0
    y = (X[:, 0] + X[:, 1] > 0.2).astype(int) + (X[:, 2] > 0.5)
    Xt = rng.integers(-255, 256, (60, 3)) / 256.0
    kw = {"random_state": 0}
    if "n_estimators" in cls().get_params():
        kw["n_estimators"] = 3
    base = cls(**kw).fit(X, y)
    far = fit_quietly(lambda: cls(**kw), np.ldexp(X, 1024), y)
    np.testing.assert_array_equal(far.tree_stats().n_nodes.values,
                                  base.tree_stats().n_nodes.values)
    np.testing.assert_array_equal(far.predict_proba(np.ldexp(Xt, 1024)), base.predict_proba(Xt))
