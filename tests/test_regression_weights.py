"""Sample weights and the scale of weights and targets in regression trees: scikit-learn's
weighted trees, weights and targets times a power of two (the same trees), rows of weight 0
as absent rows (binned fits too), and Poisson fits whose positive targets weigh nothing."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.tree import DecisionTreeRegressor

import treelab


def test_fractional_weights_agree_with_sklearn():
    """The rows of positive weight get scikit-learn's predictions (a row of weight 0 is not
    in the tree: where two splits of a small node tie, it may fall on either side)."""
    X, y = make_friedman1(300, random_state=4)
    X = X.astype(np.float32).astype(np.float64)
    w = np.random.default_rng(4).uniform(0.0, 2.0, size=300)
    w[:30] = 0.0
    ours = treelab.RegressionTree(max_depth=5).fit(X, y, sample_weight=w)
    ref = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict(X[30:]), ref.predict(X[30:]), rtol=1e-10)


@pytest.mark.parametrize("scale", [2.0**-600, 2.0**600, 2.0**1000])
def test_weights_far_from_one_grow_the_unweighted_trees(scale):
    """Uniform weights change no tree; at 2^600 the squared weighted sums of the split scores
    overflowed to inf (every split scored alike, leaves NaN), at 2^-600 they underflowed to 0.
    A power of two keeps the sums exact, so the trees are the unweighted ones, bit for bit."""
    X, y = make_friedman1(300, random_state=5)
    w = np.full(300, scale)
    w[::3] *= 1.5
    ref_w = np.ones(300)
    ref_w[::3] = 1.5
    for make in (lambda: treelab.RegressionTree(max_depth=6),
                 lambda: treelab.RandomForestRegressor(n_estimators=4, random_state=1),
                 lambda: treelab.RegressionTree(criterion="poisson", max_depth=4)):
        ours = make().fit(X, y, sample_weight=w)
        ref = make().fit(X, y, sample_weight=ref_w)
        np.testing.assert_array_equal(ours.forest_.threshold, ref.forest_.threshold)
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        np.testing.assert_array_equal(ours.forest_.weight, ref.forest_.weight * scale)


@pytest.mark.parametrize("scale", [2.0**-60, 2.0**-52, 2.0**40])
def test_poisson_trees_do_not_depend_on_the_unit_of_the_weights(scale):
    """Poisson counts (a mean of about 5 a row) with weights 1 or 1.5, and the same weights
    times a power of two: the same tree, bit for bit. A child whose summed w y is at most eps
    is taken as mean 0 and not split off (scikit-learn's guard); read in the given weights,
    uniform weights of 2^-60 made every child whose counts sum to 256 or less "mean 0", and
    the depth-6 tree kept 9 of its 103 nodes (scikit-learn's, 1)."""
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(300, 5))
    y = rng.poisson(np.exp(1.0 + 2.0 * X[:, 0] - X[:, 1])).astype(float)
    w = np.ones(300)
    w[::4] = 1.5
    ref = treelab.RegressionTree(criterion="poisson", max_depth=6).fit(X, y)
    ours = treelab.RegressionTree(criterion="poisson", max_depth=6).fit(
        X, y, sample_weight=np.full(300, scale))
    assert ref.forest_.kind.size == 103
    np.testing.assert_array_equal(ours.forest_.threshold, ref.forest_.threshold)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    ref_w = treelab.RegressionTree(criterion="poisson", max_depth=6).fit(X, y, sample_weight=w)
    ours_w = treelab.RegressionTree(criterion="poisson", max_depth=6).fit(
        X, y, sample_weight=w * scale)
    np.testing.assert_array_equal(ours_w.forest_.threshold, ref_w.forest_.threshold)
    np.testing.assert_array_equal(ours_w.forest_.weight, ref_w.forest_.weight * scale)


@pytest.mark.parametrize("scale", [2.0**-560, 2.0**520, 2.0**1000])
def test_targets_far_from_one_grow_the_trees_of_the_unscaled_targets(scale):
    """y times a power of two: the squared error's split scores S^2 / W scale by its square,
    so the trees are the unscaled targets' and every prediction is theirs times the scale.
    At 2^520 the scores overflowed to inf, at 2^-560 they underflowed to 0: every split scored
    alike and the depth-6 tree took the first split of each node (13 nodes where the tree has
    113; R^2 0.010 on 300 new Friedman #1 rows where it is 0.59)."""
    X, y = make_friedman1(300, random_state=0)
    Xt, _ = make_friedman1(100, random_state=1)
    for make in (lambda: treelab.RegressionTree(max_depth=6),
                 lambda: treelab.RandomForestRegressor(n_estimators=3, random_state=1),
                 lambda: treelab.VRTreesRegressor(n_estimators=3, alpha=0.5,
                                                  random_split="pert", random_state=2),
                 lambda: treelab.RotationForestRegressor(n_estimators=2, random_state=3)):
        ours = make().fit(X, y * scale)
        ref = make().fit(X, y)
        np.testing.assert_array_equal(ours.forest_.threshold, ref.forest_.threshold)
        np.testing.assert_array_equal(ours.forest_.value, ref.forest_.value * scale)
        np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt) * scale)


def test_weights_near_the_largest_double_give_finite_predictions():
    X, y = make_friedman1(200, random_state=7)
    model = treelab.RegressionTree(max_depth=4).fit(X, y, sample_weight=np.full(200, 1e300))
    ref = treelab.RegressionTree(max_depth=4).fit(X, y)
    assert np.all(np.isfinite(model.predict(X)))
    # uniform weights that are not a power of two round the sums differently: the same
    # tree up to ties between near-equal splits
    assert abs(model.score(X, y) - ref.score(X, y)) < 0.02


def test_zero_weight_rows_are_absent_rows():
    X, y = make_friedman1(200, random_state=6)
    w = np.ones(200)
    w[::7] = 0.0
    a = treelab.VRTreesRegressor(n_estimators=5, alpha=0.5, random_state=0).fit(
        X, y, sample_weight=w)
    b = treelab.VRTreesRegressor(n_estimators=5, alpha=0.5, random_state=0).fit(
        X[w > 0], y[w > 0])
    # the same trees: rows of weight 0 never enter a node (the pair draws see the same rows)
    np.testing.assert_array_equal(a.forest_.threshold, b.forest_.threshold)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_zero_weight_rows_move_no_bin():
    """With ``max_bins`` too, rows of weight 0 are absent rows: the bins are quantiles of the
    other rows, and the trees are those of the fit without them. The zero-weight rows' values
    were binned with the others: a depth-6 tree of 8 bins moved its thresholds and its
    predictions by up to 9.9 (R^2 on new rows 0.60 where the fit without them gives 0.40)."""
    X, y = make_friedman1(400, random_state=7)
    Xt, _ = make_friedman1(300, random_state=8)
    w = np.ones(400)
    w[::3] = 0.0
    for make in (lambda: treelab.RegressionTree(max_depth=6, max_bins=8),
                 lambda: treelab.VRTreesRegressor(n_estimators=3, alpha=0.5, max_bins=16,
                                                  random_state=0),
                 lambda: treelab.RotationForestRegressor(n_estimators=2, rotation="identity",
                                                         max_depth=6, max_bins=8,
                                                         random_state=0)):
        a = make().fit(X, y, sample_weight=w)
        b = make().fit(X[w > 0], y[w > 0])
        np.testing.assert_array_equal(a.forest_.threshold, b.forest_.threshold)
        np.testing.assert_array_equal(a.predict(Xt), b.predict(Xt))
    # fractional weights bin as the rows they weigh (node sizes count rows too)
    frac = np.where(w > 0, np.random.default_rng(0).uniform(0.5, 2.0, 400), 0.0)
    a = treelab.RegressionTree(max_depth=6, max_bins=8).fit(X, y, sample_weight=frac)
    b = treelab.RegressionTree(max_depth=6, max_bins=8).fit(X[w > 0], y[w > 0],
                                                            sample_weight=frac[w > 0])
    np.testing.assert_array_equal(a.forest_.threshold, b.forest_.threshold)
