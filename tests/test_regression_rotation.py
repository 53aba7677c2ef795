"""The rotation forest regressor against independent computations: each tree's rotation is
block-orthogonal and is the scikit-learn PCA of its feature groups on the documented row
sample, and each tree is scikit-learn's regression tree grown on X R."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_friedman1
from sklearn.decomposition import PCA
from sklearn.metrics import mean_squared_error
from sklearn.tree import DecisionTreeRegressor

import treelab
from treelab.analysis import ambiguity, diagnose


@pytest.fixture(scope="module")
def friedman():
    X, y = make_friedman1(400, n_features=10, noise=0.5, random_state=7)
    return X[:300], y[:300], X[300:], y[300:]


def tree_rotation_matrix(model, t):
    """Tree t's projections W (axis, feature): every tree stores its d axes in turn."""
    d = model.n_features_in_
    return model.forest_.projections[t * d:(t + 1) * d]


def reference_axes(X, seed, group_size):
    """The documented rotation of an unweighted tree on all rows, from its seed: features
    permuted at random into groups; per group 75% of the n rows drawn with replacement; the
    principal axes (scikit-learn PCA, all components) of the group's standardised features."""
    n, d = X.shape
    rng = np.random.default_rng(seed)
    scale = X.std(axis=0)
    perm = rng.permutation(d)
    groups = []
    for g0 in range(0, d, group_size):
        cols = np.sort(perm[g0:g0 + group_size])
        size = max(int(round(0.75 * n)), 2)
        # uniform draws among n rows of weight 1: row floor(u n)
        sample = np.minimum((rng.random(size) * n).astype(np.int64), n - 1)
        pca = PCA().fit(X[sample][:, cols] / scale[cols])
        groups.append((cols, pca.components_))
    return scale, groups


def test_rotation_is_block_orthogonal_pca_and_trees_are_cart_on_rotated_features(friedman):
    X, y, Xt, _ = friedman
    model = treelab.RotationForestRegressor(n_estimators=3, max_depth=4, min_samples_leaf=5,
                                            random_state=0).fit(X, y)
    members = model.member_predict(Xt)
    for t in range(3):
        W = tree_rotation_matrix(model, t)
        scale, groups = reference_axes(X, int(model.forest_.seed[t]), 3)
        A = W * scale[None, :]
        np.testing.assert_allclose(A @ A.T, np.eye(10), atol=1e-12)
        pos = 0
        for cols, comps in groups:
            block = A[pos:pos + cols.size]
            others = np.setdiff1d(np.arange(10), cols)
            assert np.all(block[:, others] == 0)  # block-orthogonal: disjoint feature groups
            # the same principal axes in the same order, each up to its sign
            np.testing.assert_allclose(np.abs(np.sum(block[:, cols] * comps, axis=1)), 1.0,
                                       atol=1e-9)
            pos += cols.size
        assert pos == 10
        # the member is CART grown on the rotated features X W^T
        ref = DecisionTreeRegressor(max_depth=4, min_samples_leaf=5).fit(X @ W.T, y)
        np.testing.assert_allclose(members[t], ref.predict(Xt @ W.T), rtol=1e-9)


def test_fully_grown_trees_fit_the_training_rows_and_rotations_differ(friedman):
    X, y, _, _ = friedman
    model = treelab.RotationForestRegressor(n_estimators=4, random_state=1).fit(X, y)
    np.testing.assert_allclose(model.member_predict(X), np.broadcast_to(y, (4, 300)),
                               rtol=1e-12)
    W0, W1 = tree_rotation_matrix(model, 0), tree_rotation_matrix(model, 1)
    assert not np.allclose(np.abs(W0), np.abs(W1))


@pytest.mark.parametrize("params", [{}, {"bootstrap": True, "alpha": 0.5, "max_features": 0.5}],
                         ids=["default", "bootstrap-alpha"])
def test_same_random_state_is_bit_identical_for_any_n_jobs(friedman, params):
    X, y, Xt, _ = friedman
    fits = [treelab.RotationForestRegressor(n_estimators=6, random_state=3, n_jobs=j,
                                            **params).fit(X, y) for j in (1, 2, -1)]
    for other in fits[1:]:
        for name, arr in fits[0].forest_._asdict().items():
            np.testing.assert_array_equal(arr, getattr(other.forest_, name), err_msg=name)
        np.testing.assert_array_equal(fits[0].member_predict(Xt), other.member_predict(Xt))


def test_beats_one_cart_tree_on_friedman1():
    X, y = make_friedman1(1500, noise=1.0, random_state=1)
    tree = treelab.RegressionTree(random_state=0).fit(X[:1000], y[:1000])
    forest = treelab.RotationForestRegressor(n_estimators=30, random_state=0).fit(X[:1000],
                                                                                 y[:1000])
    mse_tree = mean_squared_error(y[1000:], tree.predict(X[1000:]))
    mse_forest = mean_squared_error(y[1000:], forest.predict(X[1000:]))
    assert mse_forest < 0.7 * mse_tree


def test_dataframe_columns_in_another_order_are_refused_as_by_the_other_regressors(friedman):
    X, y, Xt, _ = friedman
    cols = [f"x{j}" for j in range(10)]
    frame = pd.DataFrame(X, columns=cols)
    shuffled = pd.DataFrame(Xt, columns=cols)[cols[::-1]]
    for est in (treelab.RotationForestRegressor(n_estimators=2, random_state=0),
                treelab.RegressionTree()):
        est.fit(frame, y)
        with pytest.raises(ValueError, match="feature names"):
            est.predict(shuffled)
    # the same columns in the fitted order: the same predictions as the array
    model = treelab.RotationForestRegressor(n_estimators=2, random_state=0)
    np.testing.assert_array_equal(model.fit(frame, y).predict(pd.DataFrame(Xt, columns=cols)),
                                  model.fit(X, y).predict(Xt))


def test_nominal_features_and_missing_values_are_read_as_real_features(friedman):
    """A nominal column as one-hot columns, a missing value as the column's training mean
    (1/m in each one-hot column of a missing nominal value), written out by hand here: the
    forest is the one grown on the hand-made real features, bit for bit."""
    X, y, Xt, _ = friedman
    rng = np.random.default_rng(3)

    def frame_of(A, n_missing):
        f = pd.DataFrame(A[:, :4], columns=["a", "b", "c", "d"])
        f["d"] = pd.Categorical(np.array(["lo", "mid", "hi"])[(A[:, 3] * 3).astype(int) % 3],
                                categories=["hi", "lo", "mid"])
        f.loc[rng.choice(len(f), n_missing, replace=False), "b"] = np.nan
        f.loc[rng.choice(len(f), n_missing, replace=False), "d"] = np.nan
        return f

    train, test = frame_of(X, 20), frame_of(Xt, 10)
    b = train["b"].to_numpy()
    b_mean = np.mean(b[~np.isnan(b)])

    def by_hand(f):
        out = f[["a", "b", "c"]].to_numpy(dtype=float, copy=True)
        out[:, 1] = np.where(np.isnan(out[:, 1]), b_mean, out[:, 1])
        codes = f["d"].cat.codes.to_numpy()  # -1: missing
        onehot = np.stack([(codes == k).astype(float) for k in range(3)], axis=1)
        onehot[codes < 0] = 1.0 / 3.0
        return np.column_stack([out, onehot])

    for rotation in ("pca", "random"):
        ours = treelab.RotationForestRegressor(n_estimators=4, rotation=rotation,
                                               random_state=0).fit(train, y)
        ref = treelab.RotationForestRegressor(n_estimators=4, rotation=rotation,
                                              random_state=0).fit(by_hand(train), y)
        np.testing.assert_array_equal(ours.predict(test), ref.predict(by_hand(test)))
        np.testing.assert_array_equal(ours.member_predict(test),
                                      ref.member_predict(by_hand(test)))
        assert np.all(np.isfinite(ours.predict(test)))


def test_zero_weight_rows_are_rows_left_out(friedman):
    X, y, Xt, _ = friedman
    sw = np.ones(300)
    sw[::7] = 0.0
    keep = sw > 0
    a = treelab.RotationForestRegressor(n_estimators=3, random_state=2).fit(X, y, sw)
    b = treelab.RotationForestRegressor(n_estimators=3, random_state=2).fit(X[keep], y[keep])
    np.testing.assert_allclose(a.member_predict(Xt), b.member_predict(Xt), rtol=1e-12)


def test_rotation_options_and_parameter_refusals(friedman):
    X, y, Xt, _ = friedman
    for rotation in ("random", "identity"):
        model = treelab.RotationForestRegressor(n_estimators=3, rotation=rotation,
                                                random_state=0).fit(X, y)
        assert model.score(Xt, friedman[3]) > 0.3
    with pytest.raises(ValueError, match="rotation"):
        treelab.RotationForestRegressor(rotation="svd").fit(X, y)
    with pytest.raises(ValueError, match="group_size"):
        treelab.RotationForestRegressor(group_size=0).fit(X, y)
    with pytest.raises(ValueError, match="random_split"):
        treelab.RotationForestRegressor(random_split="perfect").fit(X, y)
    # PERT's pairs of rows with different targets, on the rotated features
    pert = treelab.RotationForestRegressor(n_estimators=3, alpha=0.0, random_split="pert",
                                           random_state=0).fit(X, y)
    assert pert.score(Xt, friedman[3]) > 0.3


def test_regression_measures_take_it(friedman):
    X, y, Xt, yt = friedman
    model = treelab.RotationForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    members = model.member_predict(Xt)
    amb = ambiguity(model, Xt, yt)
    mean = members.mean(axis=0)
    # Krogh & Vedelsby per row, from the members by hand
    np.testing.assert_allclose(np.asarray(amb["sample_ensemble_mse"]), (mean - yt) ** 2,
                               rtol=1e-10)
    np.testing.assert_allclose(np.asarray(amb["sample_ambiguity"]),
                               ((members - mean) ** 2).mean(axis=0), rtol=1e-10, atol=1e-12)
    report = diagnose(model, Xt, yt)
    assert "ambiguity" in report
    np.testing.assert_allclose(float(report["ambiguity"]),
                               ((members - mean) ** 2).mean(), rtol=1e-10)


def test_out_of_bag_needs_bootstrap(friedman):
    """Every tree on all rows (the default) has no out-of-bag rows: refused, not a mask of
    nothing; the bagged variant's draws are replayed (tests/test_analysis_regression_oob.py)."""
    from treelab.analysis import breiman_regression_bound

    X, y, _, _ = friedman
    model = treelab.RotationForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="bagged regressor"):
        breiman_regression_bound(model, X, y, oob=True)
    bagged = treelab.RotationForestRegressor(n_estimators=5, bootstrap=True,
                                             random_state=0).fit(X, y)
    ds = breiman_regression_bound(bagged, X, y, oob=True)
    assert 0 < int(ds.n_rows) <= 300


def test_a_costly_rotation_warns_before_the_work(friedman, monkeypatch):
    """The classifier's cost estimate and warning, naming the regressor: n_estimators x n d^2
    for PCA axes (300 rows, 10 features, 2 trees: 60,000 operations)."""
    from treelab.estimators import _rotation_cost

    X, y, _, _ = friedman
    model = treelab.RotationForestRegressor(n_estimators=2, random_state=0)
    assert model.rotation_work(300, 10) == 2 * 300 * 10 * 10
    monkeypatch.setattr(_rotation_cost, "ROTATION_WORK_WARN", 5e4)
    with pytest.warns(_rotation_cost.RotationCostWarning, match="RotationForestRegressor rotates"):
        model.fit(X, y)
    stats = model.tree_stats()
    assert int(stats["decision_nodes"][0]) == int(np.sum(
        model.forest_.kind[model.forest_.node_offsets[0]:model.forest_.node_offsets[1]] != 0))


@pytest.mark.parametrize("rotation", ["pca", "random"])
def test_a_constant_feature_is_left_unscaled(friedman, rotation):
    # the column constant at 0.1 has a computed deviation of about 1e-16 (a rounding residue):
    # dividing by it gave that column weights near 1e15 in every axis it entered
    X, y, _, _ = friedman
    X = np.column_stack([X, np.full(X.shape[0], 0.1)])
    model = treelab.RotationForestRegressor(n_estimators=3, rotation=rotation,
                                            random_state=0).fit(X, y)
    scale = np.append(X[:, :-1].std(axis=0), 1.0)
    for t in range(3):
        A = model.forest_.projections[t * 11:(t + 1) * 11] * scale[None, :]
        np.testing.assert_allclose(A @ A.T, np.eye(11), atol=1e-12)
