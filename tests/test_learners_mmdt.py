"""MMDT (algorithms spec 2.8) against direct NumPy computations."""

import numpy as np
import pytest
from helpers_trees import children, tree_nodes

import treelab
from treelab.engine.kernels._oblique import POWER_ITERATIONS, label_component
from treelab.engine.oblique import apply_real_map, fit_real_map


def diagonal_gaussians(n, seed, sd=0.4):
    """Two Gaussian classes with means (-1, 1) and (1, -1): the Bayes boundary is x2 = x1."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    mu = np.where(y[:, None] == 0, [-1.0, 1.0], [1.0, -1.0])
    return mu + sd * rng.normal(size=(n, 2)), y


def test_root_direction_is_the_difference_of_class_means():
    X, y = diagonal_gaussians(300, 0, sd=0.8)
    est = treelab.MMDT(scale=None, random_state=0).fit(X, y)
    fr = est.forest_
    assert fr.kind[0] == 3
    w = fr.projections[fr.feature[0]]
    mu_t, mu_f = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)  # T: the lower class
    nu = mu_t - mu_f
    np.testing.assert_allclose(w, nu, rtol=1e-12)
    cos = w @ np.array([1.0, -1.0]) / np.linalg.norm(w) / np.sqrt(2)
    assert abs(cos) > 0.99  # close to the normal of the diagonal, as the data dictates
    # rows with (p - mu) . nu >= 0 go right (child 1), the others left
    mid = (mu_t + mu_f) / 2
    side = (X - mid) @ nu
    clear = np.abs(side) > 1e-9
    first = fr.child_start[0]
    right = np.isin(est.apply(X)[:, 0], _subtree(tree_nodes(fr, 0), first + 1))
    np.testing.assert_array_equal(right[clear], side[clear] >= 0)
    np.testing.assert_array_equal(fr.counts[first + 1], np.bincount(y[side >= 0], minlength=2))


def _subtree(nodes, i):
    out = [i]
    for c in children(nodes, i):
        out += _subtree(nodes, c)
    return out


def test_single_mmdt_beats_a_single_axis_aligned_tree_on_a_diagonal_boundary():
    Xte, yte = diagonal_gaussians(20_000, 99)
    err_mmdt, err_tree = [], []
    for seed in range(5):
        X, y = diagonal_gaussians(200, seed)
        err_mmdt.append(1 - treelab.MMDT(random_state=0).fit(X, y).score(Xte, yte))
        err_tree.append(1 - treelab.DecisionTree().fit(X, y).score(Xte, yte))
    # measured: MMDT about 0.0004, the C4.5-style tree about 0.008 (a staircase)
    assert np.mean(err_mmdt) < np.mean(err_tree) / 3
    assert all(m < t for m, t in zip(err_mmdt, err_tree, strict=True))


def test_power_iteration_matches_the_leading_eigenvector():
    counts = np.array([500.0, 300.0, 150.0, 50.0])
    N = counts.sum()
    mu = counts / N
    centred = np.eye(4) - mu  # row c: e_c - mu_L
    S = (centred * counts[:, None]).T @ centred  # sum_l (l - mu)(l - mu)^T
    evals, evecs = np.linalg.eigh(S)
    v1 = evecs[:, -1]
    start = np.random.default_rng(0).normal(size=4)
    nu, mu_k = label_component(counts, start, POWER_ITERATIONS)
    np.testing.assert_allclose(mu_k, mu)
    assert np.linalg.norm(nu) == pytest.approx(1.0)
    # power-iteration bound (Golub & Van Loan, 8.2.1): sin(angle) <= tan(angle_0) (l2/l1)^k
    cos0 = abs(start @ v1) / np.linalg.norm(start)
    bound = np.sqrt(1 - cos0**2) / cos0 * (evals[-2] / evals[-1]) ** POWER_ITERATIONS
    sin = np.sqrt(max(0.0, 1 - (nu @ v1) ** 2))
    assert bound < 0.01
    assert sin <= bound * (1 + 1e-9)
    converged, _ = label_component(counts, start, 200)
    np.testing.assert_allclose(abs(converged @ v1), 1.0, atol=1e-12)  # up to sign


def test_more_classes_split_by_the_principal_component_of_the_labels():
    rng = np.random.default_rng(4)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [8.0, 1.0]])
    sizes = np.array([300, 120, 60])
    y = np.repeat(np.arange(3), sizes)
    X = centres[y] + rng.normal(size=(y.size, 2))
    est = treelab.MMDT(scale=None, random_state=1).fit(X, y)
    fr = est.forest_
    w = fr.projections[fr.feature[0]]
    # direct computation: leading eigenvector of the label scatter, T = classes with
    # (e_c - mu_L) . nu_L >= 0 (the sign of nu_L only swaps T and F, flipping w)
    mu = sizes / sizes.sum()
    centred = np.eye(3) - mu
    S = (centred * sizes[:, None]).T @ centred
    nu = np.linalg.eigh(S)[1][:, -1]
    in_t = centred @ nu >= 0
    mu_t = X[in_t[y]].mean(axis=0)
    mu_f = X[~in_t[y]].mean(axis=0)
    cos = w @ (mu_t - mu_f) / np.linalg.norm(w) / np.linalg.norm(mu_t - mu_f)
    assert abs(cos) == pytest.approx(1.0, abs=1e-9)
    assert 0 < in_t.sum() < 3


def test_a_node_stops_when_a_side_is_empty():
    X = np.ones((20, 3))
    y = np.arange(20) % 2
    est = treelab.MMDT(scale=None, random_state=0).fit(X, y)
    assert est.forest_.kind.tolist() == [0]
    np.testing.assert_array_equal(est.forest_.counts[0], [10, 10])
    # duplicated points with conflicting labels end in a mixed leaf, the rest split on
    X2 = np.vstack([X, np.zeros((10, 3))])
    y2 = np.concatenate([y, np.zeros(10, dtype=int)])
    fr = treelab.MMDT(random_state=0).fit(X2, y2).forest_
    leaves = fr.kind == 0
    assert sorted(map(tuple, fr.counts[leaves])) == [(10, 0), (10, 10)]


def test_real_features_one_hot_mean_imputation_and_equal_confidences():
    X = np.array([[1.0, 0.0], [np.nan, 2.0], [3.0, np.nan], [5.0, 1.0]])
    nominal = np.array([False, True])
    rm = fit_real_map(X, nominal, np.array([0, 3]))
    Z = apply_real_map(rm, X)
    expected = np.array([
        [1.0, 1.0, 0.0, 0.0],
        [3.0, 0.0, 0.0, 1.0],  # numeric missing: the mean of 1, 3, 5
        [3.0, 1 / 3, 1 / 3, 1 / 3],  # nominal missing: equal confidences 1/m
        [5.0, 0.0, 1.0, 0.0],
    ])
    np.testing.assert_array_equal(Z, expected)
    # an unseen code at prediction time is treated as missing by the encoder
    est = treelab.MMDT(scale=None, categorical_features=[1], random_state=0)
    est.fit(X, [0, 1, 0, 1])
    np.testing.assert_array_equal(est._encode_predict(np.array([[np.nan, 7.0]])),
                                  [[3.0, 1 / 3, 1 / 3, 1 / 3]])


def test_training_rows_are_routed_exactly_as_during_growth():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 5] = rng.integers(0, 4, size=400)
    y = rng.integers(0, 3, size=400)  # pure noise: a deep tree with many tiny leaves
    est = treelab.MMDT(categorical_features=[5], random_state=0).fit(X, y)
    fr = est.forest_
    assert (fr.kind == 3).sum() > 50
    leaves = est.apply(X)[:, 0]
    routed = np.zeros_like(fr.counts)
    np.add.at(routed, (leaves, y), 1)
    np.testing.assert_array_equal(routed[fr.kind == 0], fr.counts[fr.kind == 0])
    assert est.score(X, y) == 1.0  # grown to purity: every training row is recovered


def test_bagged_mmdt_member_outputs_and_diagnose():
    from treelab.analysis import diagnose

    X, y = diagonal_gaussians(300, 2, sd=0.8)
    Xte, yte = diagonal_gaussians(200, 3, sd=0.8)
    est = treelab.BaggedMMDT(n_estimators=7, random_state=0).fit(X, y)
    member = est.member_proba(Xte)
    assert member.shape == (7, 200, 2)
    np.testing.assert_allclose(member.mean(axis=0), est.predict_proba(Xte))
    assert est.apply(Xte).shape == (200, 7)
    ds = diagnose(est, Xte, yte, X_train=X, y_train=y)
    assert ds.member_error.sizes["tree"] == 7
    assert 0 <= float(ds.ensemble_error) < 0.2
    assert ds.attrs["function"] == "treelab.analysis.diagnose"
    assert np.isfinite(float(ds.single_error))  # single_model() is an MMDT
    rows = est.tree_stats().rows_seen.values
    assert (rows == 300).all()


@pytest.mark.parametrize("scale", ["standard", "minmax"])
def test_scaling_equals_scaling_the_data_by_hand(scale):
    rng = np.random.default_rng(4)
    X, y = diagonal_gaussians(150, 4)
    X = np.column_stack([X, rng.normal(size=150)]) * [1.0, 300.0, 1e-3] + [5.0, -40.0, 2.0]
    Xte = X[::3] + 0.1
    if scale == "standard":
        offset, span = X.mean(axis=0), X.std(axis=0)
    else:
        offset, span = X.min(axis=0), X.max(axis=0) - X.min(axis=0)
    by_hand = treelab.BaggedMMDT(n_estimators=5, scale=None, random_state=2)
    by_hand.fit((X - offset) * (1.0 / span), y)
    est = treelab.BaggedMMDT(n_estimators=5, scale=scale, random_state=2).fit(X, y)
    np.testing.assert_array_equal(est.forest_.projections, by_hand.forest_.projections)
    np.testing.assert_array_equal(est.forest_.threshold, by_hand.forest_.threshold)
    np.testing.assert_array_equal(est.predict_proba(Xte),
                                  by_hand.predict_proba((Xte - offset) * (1.0 / span)))
    two = treelab.BaggedMMDT(n_estimators=5, scale=scale, random_state=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.predict_proba(Xte), est.predict_proba(Xte))


def test_scale_changes_mmdt_where_a_feature_has_a_large_range():
    X, y = diagonal_gaussians(200, 6)
    X[:, 1] = X[:, 1] * 1e4 + np.random.default_rng(6).normal(scale=3e4, size=200)  # noisy
    raw = treelab.MMDT(scale=None, random_state=0).fit(X, y)
    scaled = treelab.MMDT(scale="standard", random_state=0).fit(X, y)
    # raw: the root direction is almost the noisy feature's axis; scaled: both count
    w_raw = raw.forest_.projections[0] / np.abs(raw.forest_.projections[0]).max()
    assert abs(w_raw[0]) < 1e-3
    assert treelab.CVDT(scale="bogus").get_params()["scale"] == "bogus"
    with pytest.raises(ValueError, match="scale"):
        treelab.CVDT(scale="bogus").fit(X, y)
    assert scaled.score(X, y) == 1.0


@pytest.mark.parametrize("factor", [1e160, 1e-170])
@pytest.mark.parametrize("make", [
    lambda: treelab.MMDT(scale=None, random_state=0),
    lambda: treelab.BaggedMMDT(n_estimators=3, scale=None, random_state=0),
    lambda: treelab.RotationForest(n_estimators=3, random_state=0),
])
def test_extreme_magnitudes_grow_the_same_trees_not_single_leaves(make, factor):
    X, y = diagonal_gaussians(120, 8)
    small = make().fit(X, y)
    big = make().fit(X * factor, y)
    assert big.tree_stats().n_nodes.values.min() > 1
    assert np.array_equal(big.tree_stats().n_nodes.values, small.tree_stats().n_nodes.values)
    np.testing.assert_array_equal(big.predict(X * factor), small.predict(X))
