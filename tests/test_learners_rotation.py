"""Rotation trees (algorithms spec 2.9): axes, the identity rotation, oblique surfaces."""

import numpy as np
import pytest
from helpers_trees import tree_nodes

import treelab
from treelab.datasets import noisy_function_2d
from treelab.engine.rotation import gram_schmidt, pca_axes, random_axes


@pytest.mark.parametrize("d", [2, 5, 20, 60])
def test_random_axes_are_orthonormal(d):
    A = random_axes(np.random.default_rng(d), d)
    assert np.abs(A @ A.T - np.eye(d)).max() < 1e-10


def test_gram_schmidt_spans_the_same_nested_subspaces_as_qr():
    G = np.random.default_rng(1).standard_normal((6, 6))
    Q = gram_schmidt(G)
    R = np.linalg.qr(G.T)[0].T  # independent: Householder QR of the same vectors
    np.testing.assert_allclose(np.abs(np.sum(Q * R, axis=1)), 1.0, atol=1e-12)


def test_pca_axes_are_orthonormal_blocks_of_principal_axes():
    rng = np.random.default_rng(2)
    n, d = 300, 7
    Z = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    y = rng.integers(0, 3, size=n)
    w = np.ones(n, dtype=np.int32)
    scale = Z.std(axis=0)
    A = pca_axes(np.random.default_rng(3), Z, y, w, scale, group_size=3)
    assert np.abs(A @ A.T - np.eye(d)).max() < 1e-10
    supports = [frozenset(np.flatnonzero(np.abs(a) > 1e-14)) for a in A]
    groups = set(supports)
    assert sorted(len(g) for g in groups) == [1, 3, 3]  # 7 features in groups of 3, 3, 1
    assert sum(len(g) for g in groups) == d  # the groups partition the features


def blobs(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 5.0, 0.2, 3.0, 0.5])[:d]
    y = ((X[:, 0] + X[:, 1] / 5 - X[:, 2] * 4 + rng.normal(size=n)) > 0).astype(int)
    return X, y


def test_identity_rotation_grows_the_axis_aligned_tree():
    X, y = blobs()
    rot = treelab.RotationForest(n_estimators=1, rotation="identity", bootstrap=False,
                                 max_features=None, random_state=0).fit(X, y)
    ref = treelab.RandomForest(n_estimators=1, bootstrap=False, max_features=None,
                               random_state=0).fit(X, y)
    a, b = tree_nodes(rot.forest_, 0), tree_nodes(ref.forest_, 0)
    split = b["kind"] == 1
    np.testing.assert_array_equal(a["kind"], np.where(split, 3, 0))
    for name in ("child_start", "n_children", "depth", "counts"):
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    W = rot.forest_.projections
    assert W.shape == (4, 4)
    sd = X.std(axis=0)
    np.testing.assert_allclose(W, np.diag(1 / sd), rtol=1e-12)  # a / s with a = e_k
    np.testing.assert_array_equal(a["feature"][split], b["feature"][split])
    # thresholds live on the projected scale x_k / s_k
    np.testing.assert_allclose(a["threshold"][split] * sd[a["feature"][split]],
                               b["threshold"][split], rtol=1e-12)
    Xte, _ = blobs(seed=1)
    np.testing.assert_array_equal(rot.predict(Xte), ref.predict(Xte))


def leaf_box_fill(est, grid_size=200):
    """Mean over trees of (grid cells of a leaf) / (cells of the leaf's bounding box).

    An axis-aligned tree's leaves are boxes, so every ratio is exactly 1; an oblique leaf is a
    polygon and fills only part of its bounding box.
    """
    g = (np.arange(grid_size) + 0.5) / grid_size
    grid = np.array(np.meshgrid(g, g)).reshape(2, -1).T
    leaves = est.apply(grid)
    fills = []
    for t in range(leaves.shape[1]):
        lab = leaves[:, t].reshape(grid_size, grid_size)
        cells = boxes = 0
        for leaf in np.unique(lab):
            ii, jj = np.nonzero(lab == leaf)
            cells += ii.size
            boxes += (np.ptp(ii) + 1) * (np.ptp(jj) + 1)
        fills.append(cells / boxes)
    return np.array(fills)


def test_decision_surfaces_on_the_noisy_function_are_not_axis_aligned():
    data = noisy_function_2d(2000, random_state=0)
    rf = treelab.RandomForest(n_estimators=5, random_state=0).fit(data.X, data.y)
    rot = treelab.RotationForest(n_estimators=5, random_state=0).fit(data.X, data.y)
    assert (leaf_box_fill(rf) == 1.0).all()
    fill = leaf_box_fill(rot)
    assert fill.max() < 0.5  # measured: 0.11-0.23 per tree


@pytest.mark.parametrize("rotation", ["random", "pca"])
def test_training_rows_are_routed_exactly_as_during_growth(rotation):
    X, y = blobs(n=300, d=5, seed=3)
    est = treelab.RotationForest(n_estimators=3, rotation=rotation, bootstrap=False,
                                 random_state=0).fit(X, y)
    fr = est.forest_
    assert fr.projections.shape == (15, 5)
    leaves = est.apply(X)
    for t in range(3):
        lo = fr.node_offsets[t]
        routed = np.zeros((fr.node_offsets[t + 1] - lo, 2), dtype=np.int64)
        np.add.at(routed, (leaves[:, t], y), 1)
        kind = fr.kind[lo:fr.node_offsets[t + 1]]
        np.testing.assert_array_equal(routed[kind == 0], fr.counts[lo:][: len(kind)][kind == 0])


def test_rotation_forest_learns_an_oblique_concept_better_than_a_random_forest():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(600, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    Xte = rng.uniform(-1, 1, size=(5000, 2))
    yte = (Xte[:, 0] + Xte[:, 1] > 0).astype(int)
    rot = treelab.RotationForest(n_estimators=30, random_state=0).fit(X, y)
    rf = treelab.RandomForest(n_estimators=30, random_state=0).fit(X, y)
    assert rot.score(Xte, yte) > rf.score(Xte, yte)


def test_nominal_features_and_missing_values():
    rng = np.random.default_rng(4)
    n = 300
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3, size=n)]).astype(float)
    y = ((X[:, 0] > 0) ^ (X[:, 1] == 2)).astype(int)
    X[rng.random(n) < 0.1, 0] = np.nan
    X[rng.random(n) < 0.1, 1] = np.nan
    est = treelab.RotationForest(n_estimators=10, categorical_features=[1],
                                 random_state=0).fit(X, y)
    assert est.forest_.projections.shape[1] == 4  # 1 numeric + a block of 3
    assert np.isfinite(est.predict_proba(X)).all()
    assert est.score(X, y) > 0.9


def test_single_model_is_an_unrotated_deterministic_tree():
    single = treelab.RotationForest(criterion="entropy", min_samples_leaf=3).single_model()
    assert isinstance(single, treelab.DecisionTree)
    assert single.criterion == "entropy" and single.min_samples_leaf == 3 and not single.c45


@pytest.mark.parametrize("kwargs, name, exc", [
    ({"rotation": "householder"}, "rotation", ValueError),
    ({"group_size": 0}, "group_size", ValueError),
    ({"max_features": "cube"}, "max_features", ValueError),
    ({"bootstrap": "yes"}, "bootstrap", TypeError),
])
def test_bad_parameters_name_themselves(kwargs, name, exc):
    X, y = blobs(n=40)
    with pytest.raises(exc, match=name):
        treelab.RotationForest(**kwargs).fit(X, y)


@pytest.mark.parametrize("make", [
    lambda: treelab.RotationForest(n_estimators=5, random_state=0),
    lambda: treelab.BaggedMMDT(n_estimators=5, random_state=0),
    lambda: treelab.BaggedCVDT(n_estimators=5, random_state=0),
])
def test_decision_surface_draws_oblique_learners(make):
    pytest.importorskip("matplotlib")
    from treelab.plot import decision_surface
    from treelab.plot.surface import surface_grid

    data = noisy_function_2d(400, random_state=1)
    est = make().fit(data.X, data.y)
    ax = decision_surface(est, data, resolution=40)
    image = ax.get_images()[0].get_array()
    xs, ys, proba = surface_grid(est, (0, 1, 0, 1), 40)
    gx, gy = np.meshgrid(xs, ys)
    direct = est.predict_proba(np.column_stack([gx.ravel(), gy.ravel()]))[:, 1]
    assert image.shape == (40, 40)
    np.testing.assert_allclose(proba[:, :, 1].ravel(), direct)


def _assert_pca_blocks(X, y, W, sd, tr, rows, group_size, size_of):
    """Replay one PCA rotation tree's groups from its generator ``tr`` (after the bootstrap):
    the feature permutation, then per group the class subset and the sample of ``rows`` (the
    tree's rows repeated by multiplicity) of size ``size_of(pool, kept classes)``; each row of
    the tree's axes (W times the deviations ``sd``) must be a principal axis of scikit-learn's
    PCA of its group, in order, up to sign, with no weight outside the group. Returns the
    class-subset sizes drawn."""
    from sklearn.decomposition import PCA

    d = X.shape[1]
    A = W * sd[None, :]
    perm = tr.permutation(d)
    classes = np.unique(y[rows])
    pos, subsets = 0, []
    for g0 in range(0, d, group_size):
        cols = np.sort(perm[g0:g0 + group_size])
        keep = np.zeros(0, dtype=bool)
        while not keep.any():
            keep = tr.random(classes.size) < 0.5
        subsets.append(int(keep.sum()))
        pool = rows[np.isin(y[rows], classes[keep])]
        sample = pool[tr.integers(0, pool.size, size=size_of(pool, classes[keep]))]
        pca = PCA(n_components=cols.size).fit(X[np.ix_(sample, cols)] / sd[cols])
        for axis in pca.components_:
            got = A[pos]
            assert np.abs(np.delete(got, cols)).max() == 0.0  # the group's features only
            cos = abs(got[cols] @ axis) / np.linalg.norm(got[cols])
            assert cos == pytest.approx(1.0, abs=1e-9), g0
            pos += 1
    assert pos == d
    return subsets


def test_pca_rotation_axes_are_the_principal_axes_of_each_groups_sample():
    """Every PCA block of every tree against scikit-learn's PCA of the rows the Rodriguez-Kuncheva
    construction prescribes: the tree's bootstrap sample, a random non-empty subset of its
    classes, a bootstrap sample of 75% of those rows, the group's features standardised by the
    tree's own rows. The rows are rebuilt here from the tree's seed, following the documented
    order of the draws (bootstrap, feature permutation, then per group the class subset and the
    sample); the axes agree up to sign, in decreasing order of variance.

    Mutations tried: the covariance not centred (``weighted_covariance`` without the mean), the
    sample drawn from all the tree's rows instead of the chosen classes', and random orthonormal
    blocks (``random_axes`` of the group size) in place of the principal axes: each fails here.
    """
    from sklearn.utils import check_random_state

    rng = np.random.default_rng(12)
    n, d, group_size = 240, 5, 2
    # correlated features with non-zero means and unequal spreads
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + np.array([3.0, -2.0, 8.0, 0.5, 1.0])
    X *= np.array([1.0, 10.0, 0.1, 2.0, 1.0])
    y = rng.integers(0, 4, size=n)
    T = 6
    model = treelab.RotationForest(n_estimators=T, rotation="pca", group_size=group_size,
                                   random_state=11, max_depth=2).fit(X, y)
    seeds = check_random_state(11).randint(0, np.iinfo(np.int32).max, size=T)
    W_all = model.forest_.projections.reshape(T, d, d)
    n_subsets = set()
    for t in range(T):
        tr = np.random.default_rng(int(seeds[t]))
        w = np.bincount(tr.integers(0, n, size=n), minlength=n)
        mean = np.average(X, axis=0, weights=w)
        sd = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
        rows = np.repeat(np.arange(n), w)
        n_subsets.update(_assert_pca_blocks(
            X, y, W_all[t], sd, tr, rows, group_size,
            lambda pool, kept: max(round(0.75 * pool.size), 2)))
    assert len(n_subsets) > 1  # different class subsets were exercised


@pytest.mark.parametrize("rotation", ["random", "pca", "identity"])
@pytest.mark.parametrize("max_features", ["sqrt", 1])
def test_rotation_forest_without_any_observed_value_grows_leaves(rotation, max_features):
    # a nominal column with every value missing has no real feature at all; the forest used to
    # fail inside the growth (ZeroDivisionError) or refuse max_features=1 for "0 features"
    X = np.full((6, 1), np.nan)
    y = np.array([0, 1, 0, 1, 1, 1])
    model = treelab.RotationForest(n_estimators=3, rotation=rotation, max_features=max_features,
                                   bootstrap=False, categorical_features=[0],
                                   random_state=0).fit(X, y)
    assert (model.forest_.kind == 0).all()
    proba = model.predict_proba(np.array([[np.nan], [2.0]]))
    np.testing.assert_allclose(proba, [[1 / 3, 2 / 3]] * 2)  # the class shares of the rows


class _BoundedDraws:
    """A NumPy generator that refuses more than ``limit`` calls of ``random``: a loop that
    redraws until it gets something it can never get fails here instead of running forever."""

    def __init__(self, seed, limit=1000):
        self._rng = np.random.default_rng(seed)
        self._left = limit

    def random(self, *args, **kwargs):
        self._left -= 1
        if self._left < 0:
            raise RuntimeError("too many draws of random()")
        return self._rng.random(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._rng, name)


def test_pca_axes_of_a_tree_without_rows_keep_the_feature_axes():
    # every multiplicity 0 (a bootstrap sample of rows of sample weight 0): there is no class
    # to keep, and the class subset used to be redrawn forever
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(10, 5))
    y = np.arange(10) % 2
    A = pca_axes(_BoundedDraws(1), Z, y, np.zeros(10, dtype=np.int32), np.ones(5), 2)
    # each group's block is the identity on its features: A is a permutation matrix
    np.testing.assert_array_equal(np.sort(A, axis=1)[:, -1], np.ones(5))
    np.testing.assert_array_equal(A @ A.T, np.eye(5))
    np.testing.assert_array_equal(np.abs(A).sum(axis=0), np.ones(5))


def test_pca_rotation_forest_with_a_tree_of_zero_weight_rows_answers_uniformly():
    from treelab.estimators._weights import EmptyMembersWarning

    rng = np.random.RandomState(0)
    X = rng.rand(100, 3)
    y = (X[:, 0] + 0.3 * rng.rand(100) > 0.6).astype(int) + (X[:, 1] > 0.7)
    w = np.zeros(100)
    w[rng.choice(100, 4, replace=False)] = 1.0
    with pytest.warns(EmptyMembersWarning, match="1 of 50 trees drew only rows of weight 0"):
        model = treelab.RotationForest(n_estimators=50, rotation="pca",
                                       random_state=0).fit(X, y, sample_weight=w)
    fr = model.forest_
    empty = fr.counts[fr.node_offsets[:-1]].sum(axis=1) == 0
    assert empty.sum() == 1
    assert fr.kind[fr.node_offsets[:-1][empty]].tolist() == [0]  # one leaf
    member = model.member_proba(X)
    np.testing.assert_array_equal(member[empty], np.full((1, 100, 3), 1 / 3))
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba, member.mean(axis=0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_random_rotation_is_a_over_s_with_constant_features_left_unscaled():
    """Each tree's projections against a NumPy reference: W = A / s, A the Gram-Schmidt rows of
    the tree's standard normals, s the standard deviation over the tree's bootstrap sample
    (the rows repeated by multiplicity), 1 for a feature constant over those rows. The column
    constant at 0.1 has a computed deviation of 1e-16 to 1e-15 (a rounding residue), whose
    inverse used to give it weights up to 2.8e15 in every axis here: the projections of the
    rows were then rounded together (as few as 95 distinct values of the 1,000 rows on one
    axis)."""
    from sklearn.utils import check_random_state

    rng = np.random.default_rng(21)
    n, T = 1000, 3
    X = rng.normal(size=(n, 3)) * [1.0, 4.0, 0.5] + [2.0, -1.0, 0.0]
    lone = np.zeros(n)
    lone[5] = 1.0
    X = np.column_stack([X, np.full(n, 0.1), lone])
    y = (X[:, 0] - 2 + X[:, 1] / 4 > 0).astype(int)
    d = X.shape[1]
    model = treelab.RotationForest(n_estimators=T, random_state=4, max_depth=3).fit(X, y)
    W_all = model.forest_.projections.reshape(T, d, d)
    seeds = check_random_state(4).randint(0, np.iinfo(np.int32).max, size=T)
    for t in range(T):
        r = np.random.default_rng(int(seeds[t]))
        w = np.bincount(r.integers(0, n, size=n), minlength=n)
        sample = np.repeat(X, w, axis=0)
        s = np.where(np.ptp(sample, axis=0) > 0, sample.std(axis=0), 1.0)
        G = r.standard_normal((d, d))
        A = np.zeros((d, d))
        for k in range(d):
            v = G[k] - sum((A[j] @ G[k]) * A[j] for j in range(k))
            A[k] = v / np.linalg.norm(v)
        np.testing.assert_allclose(W_all[t], A / s[None, :], rtol=1e-9, atol=1e-12)
        # every distinct row of the tree keeps a distinct projection on every axis
        inbag = np.unique(X[w > 0], axis=0)
        for k in range(d):
            assert np.unique(inbag @ W_all[t, k]).size == inbag.shape[0], (t, k)


def test_pca_sample_of_weighted_rows_is_75_percent_of_their_weight():
    """The PCA blocks of a forest fitted with fractional sample weights, against scikit-learn's
    PCA of the documented sample: per group, 75% of the summed weight of the chosen classes'
    rows in the tree (bootstrap multiplicity x weight), drawn with probability proportional to
    that product. The weights 0.25 and 0.75 are 1 and 3 quarters, so the draws are replayed on
    the rows repeated by multiplicity x quarters; the sample used to count quarters instead of
    weight, drawing four times as many rows (0.75 x 4 x the weight)."""
    from sklearn.utils import check_random_state

    rng = np.random.default_rng(5)
    n, d, group_size, T = 200, 4, 2, 4
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    y = rng.integers(0, 3, size=n)
    sw = rng.choice([0.25, 0.75], size=n)
    model = treelab.RotationForest(n_estimators=T, rotation="pca", group_size=group_size,
                                   max_depth=2, random_state=8).fit(X, y, sample_weight=sw)
    seeds = check_random_state(8).randint(0, np.iinfo(np.int32).max, size=T)
    W_all = model.forest_.projections.reshape(T, d, d)
    quarters = np.rint(4 * sw).astype(int)
    for t in range(T):
        tr = np.random.default_rng(int(seeds[t]))
        boot = np.bincount(tr.integers(0, n, size=n), minlength=n)
        weight = boot * sw
        mean = np.average(X, axis=0, weights=weight)
        sd = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=weight))
        rows = np.repeat(np.arange(n), boot * quarters)
        _assert_pca_blocks(X, y, W_all[t], sd, tr, rows, group_size,
                           lambda pool, kept, weight=weight: max(
                               round(0.75 * weight[np.isin(y, kept)].sum()), 2))
