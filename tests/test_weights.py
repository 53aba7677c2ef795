"""Sample and class weights (issue 26, item 5): integer weights are repeated rows, zero weights
absent rows, weights multiply bootstrap multiplicities, fractional weights are weighted counts,
and bad weights are refused with the argument named."""

import warnings

import numpy as np
import pandas as pd
import pytest
from naive_analysis import strength_oob
from sklearn.base import RegressorMixin, clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_sample_weight

import treelab
from treelab.analysis import member_outputs
from treelab.analysis.oob import in_bag_counts, oob_strength_correlation
from treelab.engine.forest import grow_forest, prepare_features
from treelab.engine.kernels import _grow as G
from treelab.engine.oblique import row_weights
from treelab.estimators._spec import spec_iparams
from treelab.estimators._weights import WeightRoundingWarning, engine_weights

FOREST_FIELDS = ("node_offsets", "kind", "feature", "threshold", "child_start", "n_children",
                 "nan_child", "random", "depth", "counts", "rows_seen", "projections")


def data(n=48, seed=0):
    """Three string classes, a nominal (category) column and missing values."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 3)
    y = np.where(X[:, 0] + 0.4 * rng.rand(n) > 0.9, "hi",
                 np.where(X[:, 1] > 0.6, "mid", "lo"))
    X[rng.rand(n, 3) < 0.08] = np.nan
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["k"] = pd.Categorical(rng.choice(["u", "v", "w"], size=n))
    w = rng.randint(0, 4, size=n)
    return df, y, w


def repeated(df, y, w):
    idx = np.repeat(np.arange(len(y)), w)
    return df.iloc[idx].reset_index(drop=True), y[idx]


def same_forest(a, b):
    for name in FOREST_FIELDS:
        x, z = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == z.shape, name
        assert np.array_equal(x, z, equal_nan=True), name


# learners whose trees depend on their rows alone, or whose draws do not depend on how many
# copies of a row there are (feature draws, uniform thresholds over a node's value range)
EXACT = [
    treelab.DecisionTree(),
    treelab.DecisionTree(criterion="entropy", c45=False, min_samples_split=2, curtail_min=1),
    treelab.DecisionTree(criterion="gini", max_bins=4, min_samples_leaf=2),
    treelab.DecisionTree(prune="pessimistic"),
    treelab.RandomForest(n_estimators=4, bootstrap=False, random_state=0),
    treelab.ExtraTrees(n_estimators=4, random_state=0),
    treelab.RandomDecisionTrees(n_estimators=4, random_state=0),
    treelab.VRTrees(n_estimators=4, alpha=0.5, random_split="uniform", random_state=0),
    treelab.Coalescence(n_estimators=4, random_split="uniform", random_state=0),
    treelab.StochasticID3(n_estimators=2, random_state=0),
]
# oblique learners: weighted means sum w * x where repeated rows sum x w times (the same in exact
# arithmetic, not always in the last bit)
CLOSE = [
    treelab.MMDT(random_state=0),
    treelab.CVDT(candidates=("entropy_tree",), random_state=0),
    treelab.CVDT(candidates=("mmdt",), random_state=0),
    treelab.RotationForest(n_estimators=3, bootstrap=False, random_state=0),
]


@pytest.mark.parametrize("est", EXACT, ids=repr)
def test_integer_weights_grow_the_trees_of_the_repeated_rows(est):
    df, y, w = data()
    order = check_random_state(1).permutation(len(y))  # weighted rows in another order
    a = clone(est)
    a.fit(df.iloc[order].reset_index(drop=True), y[order], sample_weight=w[order])
    b = clone(est).fit(*repeated(df, y, w))
    same_forest(a.forest_, b.forest_)
    assert np.array_equal(a.predict_proba(df), b.predict_proba(df))


@pytest.mark.parametrize("est", CLOSE, ids=repr)
def test_integer_weights_match_repeated_rows_for_oblique_learners(est):
    df, y, w = data()
    a = clone(est).fit(df, y, sample_weight=w)
    b = clone(est).fit(*repeated(df, y, w))
    assert np.array_equal(a.forest_.counts, b.forest_.counts)
    np.testing.assert_allclose(a.predict_proba(df), b.predict_proba(df), rtol=0, atol=1e-12)


def test_zero_weights_are_absent_rows():
    df, y, _ = data()
    keep = np.arange(len(y)) % 3 != 0
    w = keep.astype(float)
    # the dropped rows carry values no kept row has: they must move no threshold or fill
    df2 = df.copy()
    df2.loc[~keep, "a"] = 50.0
    for est in (treelab.DecisionTree(), treelab.ExtraTrees(n_estimators=3, random_state=0)):
        a = clone(est).fit(df2, y, sample_weight=w)
        b = clone(est).fit(df[keep].reset_index(drop=True), y[keep])
        same_forest(a.forest_, b.forest_)
    a = treelab.MMDT(random_state=0).fit(df2, y, sample_weight=w)
    b = treelab.MMDT(random_state=0).fit(df[keep].reset_index(drop=True), y[keep])
    np.testing.assert_allclose(a.predict_proba(df), b.predict_proba(df), rtol=0, atol=1e-12)


ALL = [
    treelab.DecisionTree(), treelab.VRTrees(n_estimators=3, random_state=0),
    treelab.Coalescence(n_estimators=3, random_state=0),
    treelab.MaxDiverseEnsemble(n_estimators=3, random_state=0),
    treelab.RandomDecisionTrees(n_estimators=3, random_state=0),
    treelab.RandomForest(n_estimators=3, random_state=0, max_bins=8),
    treelab.BaggedTrees(n_estimators=3, random_state=0),
    treelab.DisjointSampleTrees(n_estimators=2, random_state=0),
    treelab.ExtraTrees(n_estimators=3, random_state=0),
    treelab.DecisionTree(prune="reduced_error", random_state=0),
    treelab.StochasticID3(n_estimators=2, random_state=0),
    treelab.PERT(n_estimators=3, random_state=0),
    treelab.MMDT(random_state=0), treelab.BaggedMMDT(n_estimators=3, random_state=0),
    treelab.CVDT(random_state=0), treelab.BaggedCVDT(n_estimators=2, random_state=0),
    treelab.RotationForest(n_estimators=2, random_state=0),
    treelab.RotationForest(n_estimators=2, rotation="pca", random_state=0),
]


def test_every_estimator_is_covered():
    names = {type(e).__name__ for e in ALL}
    classifiers = {n for n in treelab.estimators.__all__
                   if not issubclass(getattr(treelab.estimators, n), RegressorMixin)}
    assert names == classifiers - {"TreeEnsembleClassifier"}


@pytest.mark.parametrize("est", ALL, ids=repr)
def test_unit_weights_give_the_unweighted_forest(est):
    df, y, _ = data()
    a = clone(est).fit(df, y)
    b = clone(est).fit(df, y, sample_weight=np.ones(len(y)))
    same_forest(a.forest_, b.forest_)
    # beside it, weights that are not 1 must count: weights of 2 double every tree's root
    # class counts (the same rows drawn, each counted twice), neither ignored nor squared
    c = clone(est).fit(df, y, sample_weight=np.full(len(y), 2.0))
    roots_a = a.forest_.counts[a.forest_.node_offsets[:-1]]
    roots_c = c.forest_.counts[c.forest_.node_offsets[:-1]]
    assert roots_a.sum() > 0
    np.testing.assert_array_equal(roots_c, 2 * roots_a)


def test_engine_multiplies_draws_by_weights_without_moving_them():
    """The growth kernel's weighted path with unit weights: the same draws, the same trees
    (bootstrap, subspaces, random and deterministic nodes)."""
    df, y, _ = data()
    est = treelab.VRTrees(n_estimators=4, alpha=0.5, sampling="bootstrap+subspace",
                          random_state=0).fit(df, y)
    Xv = est._encode_predict(df)
    spec = est._spec(Xv.shape[1])
    iparams, n_sub = spec_iparams(spec, Xv.shape[1])
    feats = prepare_features(Xv, est.nominal_features_, est.arity_)
    codes = np.searchsorted(est.classes_, y)
    args = (feats, codes, 3, iparams, spec.alphas, est.forest_.seed, G.ROWS_BOOTSTRAP,
            np.zeros(len(y), np.int32), n_sub, 1)
    plain = grow_forest(*args)
    same_forest(plain, est.forest_)
    same_forest(grow_forest(*args, sample_weight=np.ones(len(y), np.int32)), plain)
    # weights of 2 counted as units of 1/2 (the size limits in units, the MDL penalty's n in
    # weights) double every count and change nothing else
    ip2 = iparams.copy()
    for slot in (G.P_MIN_OBJS, G.P_MIN_SPLIT, G.P_MIN_LEAF):
        ip2[slot] *= 2
    ip2[G.P_COUNT_SHIFT] = 1
    twice = grow_forest(feats, codes, 3, ip2, spec.alphas, est.forest_.seed, G.ROWS_BOOTSTRAP,
                        np.zeros(len(y), np.int32), n_sub, 1,
                        sample_weight=np.full(len(y), 2, np.int32))
    assert np.array_equal(twice.counts, 2 * plain.counts)
    assert np.array_equal(twice.threshold, plain.threshold, equal_nan=True)


def test_bootstrap_multiplicities_are_multiplied_by_the_weights():
    df, y, w = data()
    plain = treelab.RandomForest(n_estimators=5, random_state=3).fit(df, y)
    weighted = treelab.RandomForest(n_estimators=5, random_state=3).fit(df, y, sample_weight=w)
    boot = in_bag_counts(plain, y)  # the engine's draws, replayed
    codes = np.searchsorted(plain.classes_, y)
    fr = weighted.forest_
    for t in range(5):
        expect = np.bincount(codes, weights=boot[t] * w, minlength=3)
        assert np.array_equal(fr.counts[fr.node_offsets[t]], expect)
    assert np.array_equal(in_bag_counts(weighted, y, sample_weight=w), boot * w)


@pytest.mark.parametrize("cls", [treelab.BaggedMMDT, treelab.BaggedCVDT, treelab.RotationForest])
def test_oblique_bagging_multiplies_its_draws_by_the_weights(cls):
    df, y, w = data()
    est = cls(n_estimators=3, random_state=5).fit(df, y, sample_weight=w)
    seeds = check_random_state(5).randint(0, np.iinfo(np.int32).max, size=3)
    codes = np.searchsorted(est.classes_, y)
    fr = est.forest_
    for t in range(3):
        boot = row_weights(np.random.default_rng(int(seeds[t])), len(y), True)
        expect = np.bincount(codes, weights=boot * w, minlength=3)
        assert np.array_equal(fr.counts[fr.node_offsets[t]], expect)


def test_disjoint_parts_hold_their_rows_weights():
    df, y, w = data()
    est = treelab.DisjointSampleTrees(n_estimators=3, random_state=2)
    est.fit(df, y, sample_weight=w)
    rng = check_random_state(2)
    rng.randint(0, np.iinfo(np.int32).max, size=3)  # the seeds come first
    part = np.zeros(len(y), dtype=np.int64)
    order = rng.permutation(len(y))
    order = np.r_[order[w[order] > 0], order[w[order] == 0]]  # positive weights dealt first
    part[order] = np.arange(len(y)) % 3
    codes = np.searchsorted(est.classes_, y)
    fr = est.forest_
    for t in range(3):
        expect = np.bincount(codes[part == t], weights=w[part == t], minlength=3)
        assert np.array_equal(fr.counts[fr.node_offsets[t]], expect)


def test_dyadic_fractional_weights_are_exact_weighted_counts():
    """Weights k/4 grow the tree of weights k with every size limit four times larger (gini: no
    MDL penalty), and the counts are the summed weights."""
    df, y, w = data()
    quarter = treelab.DecisionTree(criterion="gini", c45=False, min_samples_split=2,
                                   min_samples_leaf=1, curtail_min=1)
    whole = treelab.DecisionTree(criterion="gini", c45=False, min_samples_split=8,
                                 min_samples_leaf=4, curtail_min=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeightRoundingWarning)
        a = quarter.fit(df, y, sample_weight=w / 4.0)
    b = whole.fit(df, y, sample_weight=w)
    for name in ("kind", "feature", "threshold", "n_children", "nan_child"):
        assert np.array_equal(getattr(a.forest_, name), getattr(b.forest_, name),
                              equal_nan=True), name
    assert np.array_equal(a.forest_.counts * 4.0, b.forest_.counts)
    codes = np.searchsorted(a.classes_, y)
    assert np.array_equal(a.forest_.counts[0], np.bincount(codes, weights=w / 4.0))
    np.testing.assert_array_equal(a.predict_proba(df), b.predict_proba(df))


def test_fractional_weights_are_counted_to_a_fine_resolution():
    df, y, w = data()
    sw = (w + 1) / 3.0  # not a multiple of any power of two
    for est in (treelab.DecisionTree(), treelab.RandomForest(n_estimators=3, random_state=0),
                treelab.BaggedMMDT(n_estimators=2, random_state=0),
                treelab.DecisionTree(prune="pessimistic"),
                treelab.RotationForest(n_estimators=2, rotation="pca", random_state=0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", WeightRoundingWarning)
            est.fit(df, y, sample_weight=sw)
        root = est.forest_.counts[0]
        assert root.dtype == np.float64
        assert np.isfinite(est.predict_proba(df)).all()
        codes = np.searchsorted(est.classes_, y)
        fr = est.forest_
        if isinstance(est, treelab.DecisionTree):
            exact = np.bincount(codes, weights=sw)
            np.testing.assert_allclose(root, exact, rtol=1e-4)
            np.testing.assert_allclose(est.tree_stats().rows_seen.values, [sw.sum()],
                                       rtol=1e-4)
            continue
        # bagged learners: every root holds its drawn rows' weights, replayed (the forest's
        # draws from the unweighted fit, the oblique ones from their seeds), each weight
        # counted in units of 2**-k: to within half a unit, and with k >= 10
        if isinstance(est, treelab.RandomForest):
            draws = in_bag_counts(clone(est).fit(df, y), y)
        else:
            seeds = check_random_state(0).randint(0, np.iinfo(np.int32).max, size=fr.n_trees)
            draws = [row_weights(np.random.default_rng(int(s)), len(y), True) for s in seeds]
        units = engine_weights(sw, True)
        assert units.shift >= 10
        counted = units.units * 2.0 ** -units.shift
        assert np.abs(counted - sw).max() <= 2.0 ** -units.shift / 2
        for t in range(fr.n_trees):
            exact = np.bincount(codes, weights=draws[t] * counted, minlength=3)
            np.testing.assert_allclose(fr.counts[fr.node_offsets[t]], exact, rtol=1e-12)
            np.testing.assert_allclose(exact, np.bincount(codes, weights=draws[t] * sw,
                                                          minlength=3), rtol=2e-3)


def test_weights_that_round_coarsely_warn():
    df, y, _ = data()
    sw = np.ones(len(y))
    sw[0] = 1e-7
    with pytest.warns(WeightRoundingWarning, match="row 0"):
        treelab.DecisionTree().fit(df, y, sample_weight=sw)


def test_stochastic_id3_refuses_fractional_weights():
    df, y, w = data()
    with pytest.raises(ValueError, match="whole-number sample weights"):
        treelab.StochasticID3(n_estimators=2, random_state=0).fit(df, y, sample_weight=w / 2)


@pytest.mark.parametrize("bad, err, match", [
    (-np.ones(48), ValueError, "sample_weight must be non-negative"),
    (np.r_[np.nan, np.ones(47)], ValueError, "sample_weight must be finite"),
    (np.r_[np.inf, np.ones(47)], ValueError, "sample_weight must be finite"),
    (np.ones(47), ValueError, "sample_weight has 47 entries"),
    (np.ones((48, 2)), ValueError, "sample_weight must be 1-dimensional"),
    (np.zeros(48), ValueError, "sample_weight is zero for every row"),
    (np.array(["a"] * 48), TypeError, "sample_weight must hold numbers"),
    (np.full(48, 70000.0), ValueError, "at most 65535"),
])
def test_bad_sample_weight_is_refused_with_its_name(bad, err, match):
    df, y, _ = data()
    for est in (treelab.DecisionTree(), treelab.MMDT()):
        with pytest.raises(err, match=match):
            est.fit(df, y, sample_weight=bad)


@pytest.mark.parametrize("cw, err, match", [
    ("balance", ValueError, "class_weight must be 'balanced', a dict or None"),
    (np.ones(3), ValueError, "class_weight must be 'balanced', a dict or None"),
    ({"nope": 2.0}, ValueError, "not among the classes"),
    ({"hi": -1.0}, ValueError, r"class_weight\['hi'\] must be non-negative"),
    ({"hi": "2"}, TypeError, "must be a real number"),
    ({"hi": 0.0, "lo": 0.0, "mid": 0.0}, ValueError, "every row a zero weight"),
])
def test_bad_class_weight_is_refused_with_its_name(cw, err, match):
    df, y, _ = data()
    with pytest.raises(err, match=match):
        treelab.RandomForest(n_estimators=2, class_weight=cw).fit(df, y)


def test_balanced_class_weight_is_scikit_learns_balanced_sample_weight():
    df, y, w = data()
    for cls in (treelab.DecisionTree, treelab.RandomForest, treelab.ExtraTrees):
        kw = {} if cls is treelab.DecisionTree else {"n_estimators": 3, "random_state": 0}
        a = cls(class_weight="balanced", **kw).fit(df, y, sample_weight=w)
        b = cls(**kw).fit(df, y, sample_weight=w * compute_sample_weight("balanced", y))
        same_forest(a.forest_, b.forest_)


def test_integer_class_weight_repeats_the_rows_of_its_class():
    df, y, _ = data()
    a = treelab.DecisionTree(class_weight={"mid": 3}).fit(df, y)
    w = np.where(y == "mid", 3, 1)
    b = treelab.DecisionTree().fit(*repeated(df, y, w))
    same_forest(a.forest_, b.forest_)


def test_cross_validate_and_grid_search_pass_sample_weight_through():
    df, y, w = data()
    cv = StratifiedKFold(3)
    got = cross_validate(treelab.DecisionTree(), df, y, cv=cv,
                         params={"sample_weight": w})["test_score"]
    want = [treelab.DecisionTree().fit(df.iloc[tr], y[tr], sample_weight=w[tr])
            .score(df.iloc[te], y[te]) for tr, te in cv.split(df, y)]
    np.testing.assert_array_equal(got, want)
    gs = GridSearchCV(treelab.DecisionTree(), {"min_samples_split": [2, 8]}, cv=cv)
    gs.fit(df, y, sample_weight=w)
    best = treelab.DecisionTree(**gs.best_params_).fit(df, y, sample_weight=w)
    same_forest(gs.best_estimator_.forest_, best.forest_)


def test_out_of_bag_estimates_replay_the_weighted_draws():
    df, y, w = data()
    est = treelab.RandomForest(n_estimators=6, random_state=1).fit(df, y, sample_weight=w)
    with pytest.raises(ValueError, match="sample_weight"):
        in_bag_counts(est, y)
    bag = in_bag_counts(est, y, sample_weight=w)
    assert np.all(bag[:, w == 0] == 0)  # a row of weight 0 is out of every bag
    # the draws of the unweighted fit (checked against its roots' class counts) times the
    # weights, and the trees' own votes: a recursive out-of-bag strength from scratch
    plain = treelab.RandomForest(n_estimators=6, random_state=1).fit(df, y)
    draws = in_bag_counts(plain, y) * w
    np.testing.assert_array_equal(bag, draws)
    codes = np.searchsorted(est.classes_, y)
    labels = np.searchsorted(est.classes_, member_outputs(est, df, kind="labels").values)
    expected = strength_oob(labels.tolist(), codes.tolist(), 3, draws.tolist())
    ds = oob_strength_correlation(est, df, y, sample_weight=w)
    assert int(ds["n_rows"]) == expected["n_rows"] > int(np.sum(w == 0))
    assert float(ds["strength"]) == pytest.approx(expected["strength"], abs=1e-12)
    assert float(ds["correlation"]) == pytest.approx(expected["correlation"], abs=1e-12)


def test_reduced_error_pruning_weighs_its_tuning_errors():
    """Uniform weights on the held-out rows scale every tuning error alike: the same pruned
    tree; the growing rows keep weight 1, so the same grown tree."""
    df, y, _ = data(n=90)
    plain = treelab.DecisionTree(prune="reduced_error", random_state=4).fit(df, y)
    tune = plain.tuning_mask_
    for k in (3.0, 0.5):
        sw = np.where(tune, k, 1.0)
        est = treelab.DecisionTree(prune="reduced_error", random_state=4)
        est.fit(df, y, sample_weight=sw)
        assert np.array_equal(est.tuning_mask_, tune)
        same_forest(est.forest_, plain.forest_)


def forests_differ(a, b) -> bool:
    try:
        same_forest(a, b)
    except AssertionError:
        return True
    return False


# seeds where leaving out either weighting changes the pruned tree (checked below); most
# seeds show only the growing weights
@pytest.mark.parametrize("seed", [3, 5, 7])
def test_reduced_error_pruning_grows_and_tunes_on_the_weighted_rows(seed):
    """Integer weights are repeated rows on both sides of reduced_error pruning: the pruned
    tree is the tree grown on the growing rows repeated by their weights, pruned
    (reduced_error_prune) on the held-out rows repeated by theirs; the held-out rows are drawn
    over rows, whatever their weights. The weights differ from row to row on both sides, and
    the test checks that ignoring them on either side gives another tree."""
    from treelab.engine.pruning import reduced_error_prune

    df, y, _ = data(n=150, seed=seed)
    w = np.random.default_rng(seed).integers(0, 4, size=len(y))
    est = treelab.DecisionTree(prune="reduced_error", random_state=seed)
    est.fit(df, y, sample_weight=w)
    mask = treelab.DecisionTree(prune="reduced_error", random_state=seed).fit(df, y)
    mask = mask.tuning_mask_
    assert np.array_equal(est.tuning_mask_, mask)
    Xv = est._encode_predict(df)
    codes = np.searchsorted(est.classes_, y)
    grow_rows = np.repeat(np.flatnonzero(~mask), w[~mask])
    tune_rows = np.repeat(np.flatnonzero(mask), w[mask])

    def pruned(grown, rows):
        return reduced_error_prune(grown.forest_, Xv[rows], codes[rows], est._min_n())[0]

    grown = treelab.DecisionTree().fit(df.iloc[grow_rows], y[grow_rows])
    expected = pruned(grown, tune_rows)
    same_forest(est.forest_, expected)
    # the case under test: either weighting left out gives another pruned tree
    assert forests_differ(expected, pruned(grown, np.flatnonzero(mask)))
    unweighted_growth = treelab.DecisionTree().fit(df[~mask], y[~mask])
    assert forests_differ(expected, pruned(unweighted_growth, tune_rows))


def test_weighted_forests_do_not_depend_on_threads():
    df, y, w = data()
    for cls in (treelab.RandomForest, treelab.BaggedMMDT):
        one = cls(n_estimators=4, random_state=0, n_jobs=1).fit(df, y, sample_weight=w / 3)
        two = cls(n_estimators=4, random_state=0, n_jobs=2).fit(df, y, sample_weight=w / 3)
        same_forest(one.forest_, two.forest_)


def test_weights_beyond_the_table_limit_are_refused_before_growth(monkeypatch):
    import treelab.estimators._weights as W

    df, y, w = data()
    monkeypatch.setattr(W, "MAX_WEIGHTED_ROWS", 100)
    with pytest.raises(ValueError, match="use smaller sample weights"):
        treelab.DecisionTree().fit(df, y, sample_weight=w * 3)
    treelab.DecisionTree().fit(df, y, sample_weight=np.ones(len(y)) * 2)  # 96 rows: allowed


def test_weights_summing_below_the_split_limit_warn():
    """Boosting-style weights (sum 1) against a limit that counts weight: the tree is a leaf,
    and the fit says so."""
    from treelab.estimators._weights import SmallWeightsWarning

    df, y, _ = data()
    with pytest.warns(SmallWeightsWarning, match="sum to 1"):
        est = treelab.DecisionTree().fit(df, y, sample_weight=np.full(len(y), 1 / len(y)))
    assert est.forest_.kind.shape == (1,)
    rescaled = treelab.DecisionTree().fit(df, y, sample_weight=np.ones(len(y)) * 2)
    assert rescaled.forest_.kind.shape[0] > 1


def test_the_single_model_keeps_the_class_weight():
    est = treelab.RandomForest(class_weight="balanced")
    assert est.single_model().class_weight == "balanced"


def test_bootstrap_table_bound_holds_for_skewed_weights():
    """The table of a bagged fit is sized by a bound on a bootstrap sample's weighted rows
    (Bernstein); 2,000 samples of skewed weights never exceed it, and it is far below n max w."""
    from treelab.engine.forest import bootstrap_weight_bound

    rng = np.random.default_rng(0)
    n = 5000
    w = np.where(rng.random(n) < 0.02, 50.0, 1.0)
    bound = bootstrap_weight_bound(w)
    sums = [w[rng.integers(0, n, n)].sum() for _ in range(2000)]
    assert max(sums) <= bound < 0.2 * n * 50
    # neither looser nor tighter than promised: Bernstein's inequality for the sum S of n
    # draws, P(S - E S >= t) <= exp(-t^2 / (2 (n var + max t / 3))), worked here from the
    # weights' moments, puts the bound's tail between 1e-26 (exponent 60) and the exponent
    # that the bound's margin 40 sqrt(n E[w^2]) gives at most (E[w^2] >= max^2 / n)
    for weights in (w, np.where(rng.random(n) < 0.3, 3.0, 1.0), rng.integers(0, 9, n) * 1.0):
        mean, second, top = weights.mean(), np.mean(weights**2), weights.max()
        t = bootstrap_weight_bound(weights) - n * mean
        exponent = t**2 / (2 * (n * (second - mean**2) + top * t / 3))
        margin = 40.0 * np.sqrt(n * second)
        assert 60.0 <= exponent
        assert t <= margin + top + 1e-9 * t  # a bound several times too loose fails here
        assert t >= margin
    # weights all equal: no draw can pass n max w, which the bound then is
    assert bootstrap_weight_bound(np.full(n, 2.0)) == n * 2.0
