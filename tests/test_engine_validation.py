"""Bad input gets a ValueError/TypeError naming the argument, before any work starts."""

import numpy as np
import pandas as pd
import pytest

import treelab

X = np.random.default_rng(0).normal(size=(30, 3))
Y = np.arange(30) % 2


@pytest.mark.parametrize(
    ("est", "error", "name"),
    [
        (treelab.VRTrees(alpha=1.5), ValueError, "alpha"),
        (treelab.VRTrees(alpha=-0.1), ValueError, "alpha"),
        (treelab.VRTrees(alpha="half"), TypeError, "alpha"),
        (treelab.VRTrees(n_estimators=0), ValueError, "n_estimators"),
        (treelab.VRTrees(n_estimators=2.5), TypeError, "n_estimators"),
        (treelab.VRTrees(criterion="information"), ValueError, "criterion"),
        (treelab.VRTrees(sampling="bag"), ValueError, "sampling"),
        (treelab.VRTrees(subspace_fraction=0.0), ValueError, "subspace_fraction"),
        (treelab.VRTrees(random_split="median"), ValueError, "random_split"),
        (treelab.VRTrees(combine="max"), ValueError, "combine"),
        (treelab.VRTrees(curtail_min=-1), ValueError, "curtail_min"),
        (treelab.VRTrees(laplace="yes"), TypeError, "laplace"),
        (treelab.VRTrees(min_samples_split=1), ValueError, "min_samples_split"),
        (treelab.VRTrees(min_samples_leaf=0), ValueError, "min_samples_leaf"),
        (treelab.VRTrees(max_depth=0), ValueError, "max_depth"),
        (treelab.VRTrees(n_jobs=0), ValueError, "n_jobs"),
        (treelab.VRTrees(random_state="seed"), TypeError, "random_state"),
        (treelab.Coalescence(alpha_max=2.0), ValueError, "alpha_max"),
        (treelab.RandomForest(max_features=10), ValueError, "max_features"),
        (treelab.RandomForest(max_features="all"), ValueError, "max_features"),
        (treelab.RandomForest(max_features=0.0), ValueError, "max_features"),
        (treelab.DisjointSampleTrees(n_estimators=31), ValueError, "n_estimators"),
        (treelab.DecisionTree(categorical_features=[7]), ValueError, "categorical_features"),
        (treelab.DecisionTree(categorical_features=[True]), ValueError, "categorical_features"),
    ],
)
def test_bad_parameters_are_named(est, error, name):
    with pytest.raises(error, match=name):
        est.fit(X, Y)


def test_bad_data():
    est = treelab.VRTrees(n_estimators=2)
    with pytest.raises(ValueError, match="class"):
        est.fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="infinity|inf"):
        Xi = X.copy()
        Xi[0, 0] = np.inf
        est.fit(Xi, Y)
    with pytest.raises(ValueError, match="rows|samples|inconsistent"):
        est.fit(X, Y[:-1])
    with pytest.raises(ValueError, match="2D|2d"):
        est.fit(X[:, 0], Y)
    with pytest.raises(ValueError, match="X must be numeric"):
        est.fit(np.array([["a", "b"], ["c", "d"]]), [0, 1])
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        est.fit(X, np.linspace(0, 1, 30))
    fitted = treelab.VRTrees(n_estimators=2).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])


def test_object_nominal_columns_in_numpy_and_frames():
    raw = np.array([["red", 1.0], ["blue", 2.0], ["red", 3.0], ["green", 4.0]] * 5, dtype=object)
    y = np.array([0, 1, 0, 1] * 5)
    est = treelab.DecisionTree(categorical_features=[0], min_samples_split=2).fit(raw, y)
    assert est.nominal_features_.tolist() == [True, False]
    assert list(est.categories_[0]) == ["blue", "green", "red"]
    frame = pd.DataFrame({"c": pd.Series(["x", "y"] * 10, dtype="string"), "v": range(20)})
    est2 = treelab.DecisionTree(min_samples_split=2).fit(frame, np.arange(20) % 2)
    assert est2.nominal_features_.tolist() == [True, False]
    assert (est2.predict(frame) == np.arange(20) % 2).all()


def test_integer_column_names_in_another_order_are_refused():
    # scikit-learn keeps feature_names_in_ for string names only: a frame with integer names
    # in another order was read by position (half its rows wrong here)
    rng = np.random.default_rng(9)
    values = rng.normal(size=(120, 3))
    frame = pd.DataFrame(values)  # columns 0, 1, 2
    y = (values[:, 0] > 0).astype(int)
    est = treelab.DecisionTree().fit(frame, y)
    assert (est.predict(frame) == y).all()
    with pytest.raises(ValueError, match=r"X has the columns of the fit in another order "
                                         r"\(\[2, 0, 1\] against \[0, 1, 2\]\)"):
        est.predict(frame[[2, 0, 1]])
    np.testing.assert_array_equal(est.predict(frame[[2, 0, 1]][[0, 1, 2]]), y)
    np.testing.assert_array_equal(est.predict(values), y)  # an array is read by position
    # a refit on an array forgets the frame's order
    est.fit(values[:, [2, 0, 1]], y)
    np.testing.assert_array_equal(est.predict(frame[[2, 0, 1]]), y)


@pytest.mark.parametrize("make", [treelab.DecisionTree, treelab.RegressionTree])
def test_a_boolean_column_predicts_the_same_from_numbers(make):
    # fitted on a DataFrame's bool column, the same rows as a float array (False 0.0, True
    # 1.0, as pandas' astype(float) gives them) once took the missing-value route: every
    # value matched no category
    rng = np.random.default_rng(0)
    a, flag = rng.uniform(size=80), rng.uniform(size=80) < 0.5
    frame = pd.DataFrame({"a": a, "flag": flag})
    target = flag * 10.0 + a if make is treelab.RegressionTree else np.where(flag, "yes", "no")
    est = make().fit(frame, target)
    assert list(est.categories_[1]) == [False, True]
    numbers = frame.astype(float)
    with pytest.warns(UserWarning, match="feature names"):
        from_array = est.predict(numbers.to_numpy())
    np.testing.assert_array_equal(from_array, est.predict(numbers))
    np.testing.assert_array_equal(from_array, est.predict(frame))
    # the flag decides the label (or the target's tens): the arrays' answers are right
    if make is treelab.DecisionTree:
        np.testing.assert_array_equal(from_array, target)
    else:
        np.testing.assert_array_less(np.abs(from_array - target), 1.0)


def test_import_treelab_leaves_heavy_optional_modules_alone():
    """A fresh process that only fits and predicts never pays for xarray's import (the
    warm-start figure of the engine benchmark); tree_stats imports it when asked."""
    import subprocess
    import sys

    code = ("import sys, treelab; "
            "m = treelab.VRTrees(n_estimators=2, random_state=0).fit([[0.], [1.], [2.], [3.]], "
            "[0, 1, 0, 1]); m.predict([[1.5]]); print('xarray' in sys.modules); "
            "m.tree_stats(); print('xarray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]
