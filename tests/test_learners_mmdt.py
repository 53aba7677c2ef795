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


def mixed_scale_three_classes(n, seed):
    """Three Gaussian classes in features of very different ranges and offsets, a column
    constant at 0.1 (its computed standard deviation is a rounding residue, not 0) and a
    column that is 0 except in one row (constant in every bootstrap sample that misses it)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    centres = np.array([[0.0, 0.0, 0.0], [2.0, 0.5, -1.0], [-1.0, 2.0, 1.0]])
    X = centres[y] + rng.normal(size=(n, 3))
    X = X * [1.0, 300.0, 1e-3] + [5.0, -4e4, 2.0]
    lone = np.zeros(n)
    lone[7] = 5.0
    return np.column_stack([X, np.full(n, 0.1), lone]), y


def route_oblique(Z, tree, node=0):
    """Leaf each row of Z reaches in one grown tree (``TreeArrays``), walked in NumPy."""
    out = np.empty(len(Z), dtype=int)
    for r, z in enumerate(Z):
        i = node
        while tree.kind[i] != 0:
            w = tree.projections[tree.feature[i]]
            i = tree.child_start[i] + (0 if z @ w <= tree.threshold[i] else 1)
        out[r] = i
    return out


def hand_scaled(X, w, scale):
    """X scaled by hand with the statistics of the rows of multiplicity w (the bootstrap
    multiset spelled out by repeating rows); constant columns keep factor 1."""
    sample = np.repeat(X, w, axis=0)
    if scale == "standard":
        offset, span = sample.mean(axis=0), sample.std(axis=0)
    else:
        offset, span = sample.min(axis=0), np.ptp(sample, axis=0)
    span = np.where(np.ptp(sample, axis=0) > 0, span, 1.0)
    return (X - offset) / span, offset, span


@pytest.mark.parametrize("scale", ["standard", "minmax"])
def test_each_bagged_tree_is_the_mmdt_of_its_own_rows_scaled_by_hand(scale):
    from treelab.engine.oblique import grow_mmdt_tree, row_weights, tree_of_forest
    from treelab.estimators.oblique import _seeds

    X, y = mixed_scale_three_classes(240, 4)
    Xte, _ = mixed_scale_three_classes(120, 5)
    est = treelab.BaggedMMDT(n_estimators=6, scale=scale, random_state=2).fit(X, y)
    fr = est.forest_
    # the conditioning over all rows (Z 2**k, then factor f_fit), under the trees' own scaling
    k, _, f_fit = est.scaling_
    assert est.tree_scale_.shape == (6, 5)
    missed = 0
    for t, seed in enumerate(_seeds(2, 6)):
        # replay the tree's bootstrap draw; the root's class counts confirm it
        w = row_weights(np.random.default_rng(int(seed)), len(y), True)
        np.testing.assert_array_equal(fr.counts[fr.node_offsets[t]],
                                      np.bincount(y, weights=w, minlength=3))
        Zh, offset, span = hand_scaled(X, w, scale)
        by_hand = grow_mmdt_tree(np.ascontiguousarray(Zh), y.astype(np.int32), 3, w, int(seed))
        tree = tree_of_forest(fr, t)
        # the same tree: the same node kinds, class counts at every node, leaves of every row
        np.testing.assert_array_equal(tree.kind, by_hand.kind)
        np.testing.assert_array_equal(tree.counts, by_hand.counts)
        np.testing.assert_array_equal(est.apply(X)[:, t], route_oblique(Zh, by_hand))
        np.testing.assert_array_equal(est.apply(Xte)[:, t],
                                      route_oblique((Xte - offset) / span, by_hand))
        # the stored factors are the tree's own statistics, relative to the conditioning;
        # a column constant over the tree's rows keeps factor 1
        varies = np.ptp(X[w > 0], axis=0) > 0
        np.testing.assert_allclose(np.ldexp(est.tree_scale_[t] * f_fit, k)[varies],
                                   1.0 / span[varies],
                                   rtol=1e-12)
        np.testing.assert_array_equal(est.tree_scale_[t, ~varies], 1.0)
        assert est.tree_scale_[t, 3] == 1.0  # constant 0.1: no factor from a rounding residue
        assert varies[4] == (w[7] > 0)
        missed += int(w[7] == 0)
        # the folded direction, in units of the raw features, is the hand tree's nu / span
        np.testing.assert_allclose(np.ldexp(tree.projections * f_fit, k),
                                   by_hand.projections / span,
                                   rtol=1e-9, atol=1e-12)
    assert 0 < missed < 6  # both cases of the lone column occur
    # different bootstrap samples, different statistics
    assert len({tuple(np.round(r, 12)) for r in est.tree_scale_}) == 6
    two = treelab.BaggedMMDT(n_estimators=6, scale=scale, random_state=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.predict_proba(Xte), est.predict_proba(Xte))
    np.testing.assert_array_equal(two.tree_scale_, est.tree_scale_)


def test_training_rows_are_routed_exactly_as_during_growth_with_per_tree_scaling():
    # the folded directions are the ones growth routed with: every training row of a tree
    # reaches the leaf whose class counts it was counted in, to the last row
    X, y = mixed_scale_three_classes(300, 6)
    y = np.random.default_rng(0).integers(0, 3, size=300)  # noise labels: deep trees
    est = treelab.BaggedMMDT(n_estimators=4, random_state=1).fit(X, y)
    from treelab.engine.oblique import row_weights
    from treelab.estimators.oblique import _seeds

    fr = est.forest_
    leaves = est.apply(X)
    for t, seed in enumerate(_seeds(1, 4)):
        w = row_weights(np.random.default_rng(int(seed)), len(y), True)
        lo, hi = fr.node_offsets[t], fr.node_offsets[t + 1]
        routed = np.zeros((hi - lo, 3), dtype=np.int64)
        np.add.at(routed, (leaves[:, t], y), w)
        leaf = fr.kind[lo:hi] == 0
        assert leaf.sum() > 20
        np.testing.assert_array_equal(routed[leaf], fr.counts[lo:hi][leaf])


def test_single_mmdt_scales_by_all_its_rows():
    X, y = mixed_scale_three_classes(150, 7)
    est = treelab.MMDT(random_state=0).fit(X, y)
    Zh, _, _ = hand_scaled(X, np.ones(len(y), dtype=int), "standard")
    by_hand = treelab.MMDT(scale=None, random_state=0).fit(Zh, y)
    np.testing.assert_array_equal(est.forest_.counts, by_hand.forest_.counts)
    np.testing.assert_array_equal(est.apply(X), by_hand.apply(Zh))
    np.testing.assert_allclose(est.tree_scale_, 1.0, rtol=1e-12)  # the conditioning did it


def test_cvdt_grows_its_mmdts_with_their_own_rows_statistics():
    X, y = mixed_scale_three_classes(200, 8)
    mmdt = treelab.BaggedMMDT(n_estimators=5, scale="minmax", random_state=3).fit(X, y)
    cvdt = treelab.BaggedCVDT(n_estimators=5, candidates=("mmdt",), scale="minmax",
                              random_state=3).fit(X, y)
    # the same draws of rows: the same trees and factors as the bagged MMDT
    np.testing.assert_array_equal(cvdt.forest_.projections, mmdt.forest_.projections)
    np.testing.assert_array_equal(cvdt.tree_scale_, mmdt.tree_scale_)
    mixed = treelab.BaggedCVDT(n_estimators=12, random_state=0).fit(X, y)
    is_mmdt = mixed.learners_ == "mmdt"
    assert 0 < is_mmdt.sum() < 12, mixed.learners_
    assert np.isfinite(mixed.tree_scale_[is_mmdt]).all()
    assert np.isnan(mixed.tree_scale_[~is_mmdt]).all()


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
    lambda: treelab.BaggedMMDT(n_estimators=3, random_state=0),
    lambda: treelab.BaggedCVDT(n_estimators=3, candidates=("mmdt",), scale="minmax",
                               random_state=0),
    lambda: treelab.RotationForest(n_estimators=3, random_state=0),
])
def test_extreme_magnitudes_grow_the_same_trees_not_single_leaves(make, factor):
    X, y = diagonal_gaussians(120, 8)
    small = make().fit(X, y)
    big = make().fit(X * factor, y)
    assert big.tree_stats().n_nodes.values.min() > 1
    assert np.array_equal(big.tree_stats().n_nodes.values, small.tree_stats().n_nodes.values)
    np.testing.assert_array_equal(big.predict(X * factor), small.predict(X))


def test_a_tree_whose_rows_vary_far_below_the_conditioning_still_splits_finitely():
    # column 2 is 0, 1e-200 in a few rows and 1 in one row: min-max conditioning keeps it so
    # (offset 0, span 1), and a bootstrap sample without that row scales the column by 1e200,
    # whose square alone would overflow (z-score conditioning would round the 1e-200 away)
    X, y = diagonal_gaussians(200, 9)
    tiny = np.zeros(200)
    tiny[::7] = 1e-200
    tiny[3] = 1.0
    y[::7] = 1  # the tiny values carry the class, so the trees use the column
    X = np.column_stack([X, tiny])
    est = treelab.BaggedMMDT(n_estimators=8, scale="minmax", random_state=0).fit(X, y)
    assert np.isfinite(est.tree_scale_).all()
    huge = est.tree_scale_[:, 2] > 1e150
    assert huge.any()  # some trees missed row 3
    fr = est.forest_
    assert np.isfinite(fr.projections).all()
    assert np.isfinite(fr.threshold[fr.kind == 3]).all()
    assert np.isfinite(est.predict_proba(X)).all()
    for t in np.flatnonzero(huge):
        # the tree splits (a non-finite direction would have made it a single leaf) and its
        # root direction weighs the tiny column as the scaling says: about 1e200 x 1e-200 x 1e200
        root = fr.node_offsets[t]
        assert fr.kind[root] == 3
        assert abs(fr.projections[fr.feature[root], 2]) > 1e190
