"""Fits on the same training rows share feature preparation and all-deterministic trees
inside a sharing scope (treelab.engine.sharing) and grow the same forests, bit for bit."""

import numpy as np
import pytest

import treelab
import treelab.engine.forest as F
from treelab.engine import sharing
from treelab.engine.features import FEATURE_KEY_IGNORED, FEATURE_KEY_INPUTS, FEATURE_KEY_KEPT
from treelab.engine.forest import Forest
from treelab.engine.kernels import _grow as G


def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 6))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 4] = rng.integers(0, 3, size=400)  # nominal (by categorical_features)
    X[:, 5] = X[:, 0]  # a copy of feature 0: ties between features
    score = np.nan_to_num(X[:, 0]) + 0.7 * X[:, 4] + rng.normal(size=400)
    y = np.digitize(score, [0.3, 1.5])  # three classes
    return X, y


def assert_forests_identical(a: Forest, b: Forest):
    for name in Forest._fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


CONSTRUCTIONS = [
    {"sampling": "none"},
    {"sampling": "bootstrap"},
    {"sampling": "subspace", "subspace_fraction": 0.5},
    {"sampling": "bootstrap+subspace", "subspace_fraction": 0.7, "criterion": "entropy",
     "c45": False},
    {"sampling": "bootstrap", "criterion": "gini", "min_samples_leaf": 4, "max_depth": 6},
    {"sampling": "bootstrap", "max_bins": 16},
]


def record_references(monkeypatch):
    """Patch the forest driver to note, per grown tree, whether it was given a reference."""
    given = []
    real = F.grow_tree

    def noting(*args):
        given.append(args[17].shape[0] > 0)  # ref_i
        return real(*args)

    monkeypatch.setattr(F, "grow_tree", noting)
    return given


@pytest.mark.parametrize("params", CONSTRUCTIONS)
def test_shared_fits_grow_the_forests_of_fits_alone(params, monkeypatch):
    X, y = data()

    def make(alpha):
        return treelab.VRTrees(n_estimators=8, alpha=alpha, random_state=11,
                               categorical_features=[4], **params)

    store = sharing.SharedWork()
    given = record_references(monkeypatch)
    with sharing.shared_work(store):
        make(1.0).fit(X, y)  # keeps its trees for the others
        shared = {a: make(a).fit(X, y) for a in (0.9, 0.6, 0.3, 0.0, 1.0)}
    # every tree at 0 < alpha < 1 had its all-deterministic tree as reference, and the
    # second forest at alpha = 1 was taken whole
    assert store.hits["trees"] == 4
    assert sum(given) >= 3 * 8
    for alpha, est in shared.items():
        alone = make(alpha).fit(X, y)
        assert_forests_identical(est.forest_, alone.forest_)
        np.testing.assert_array_equal(est.predict_proba(X), alone.predict_proba(X))
    assert store.hits["features"] > 0


def test_other_rows_labels_or_seeds_share_no_trees():
    X, y = data()
    store = sharing.SharedWork()
    others = [(X, y[::-1].copy(), 11), (X[::-1].copy(), y, 11), (X, y, 12)]
    with sharing.shared_work(store):
        treelab.VRTrees(n_estimators=5, alpha=1.0, sampling="bootstrap",
                        random_state=11).fit(X, y)
        shared = [treelab.VRTrees(n_estimators=5, alpha=0.8, sampling="bootstrap",
                                  random_state=seed).fit(Xo, yo) for Xo, yo, seed in others]
    assert store.hits["trees"] == 0
    for est, (Xo, yo, seed) in zip(shared, others, strict=True):
        alone = treelab.VRTrees(n_estimators=5, alpha=0.8, sampling="bootstrap",
                                random_state=seed).fit(Xo, yo)
        assert_forests_identical(est.forest_, alone.forest_)


@pytest.mark.parametrize("make", [
    lambda: treelab.RandomForest(n_estimators=5, random_state=2),  # max_features < d
    lambda: treelab.ExtraTrees(n_estimators=5, max_features=None, random_state=2),
    lambda: treelab.StochasticID3(n_estimators=5, random_state=2),
])
def test_random_candidates_or_thresholds_take_no_reference(make):
    """A deterministic node that draws its candidates or thresholds depends on more than its
    rows: those forests never reuse trees, and still share their feature preparation."""
    X, y = data()
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        first = make().fit(X, y)
        second = make().fit(X, y)
    assert store.hits["trees"] == 0 and store.hits["features"] >= 1
    assert_forests_identical(first.forest_, make().fit(X, y).forest_)
    assert_forests_identical(second.forest_, first.forest_)


@pytest.mark.parametrize("make", [
    lambda: treelab.RandomForest(n_estimators=5, max_features=None, random_state=4),
    lambda: treelab.BaggedTrees(n_estimators=5, random_state=4),
    lambda: treelab.DisjointSampleTrees(n_estimators=4, random_state=4),
])
def test_deterministic_forests_fitted_again_are_taken_whole(make):
    X, y = data()
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make().fit(X, y)
        again = make().fit(X, y)
    assert store.hits["trees"] == 1
    assert_forests_identical(again.forest_, make().fit(X, y).forest_)


def test_prepared_features_are_those_of_a_fit_alone():
    X, y = data()
    nominal = np.zeros(6, dtype=bool)
    nominal[4] = True
    arity = np.where(nominal, 3, 0)
    for kw in ({}, {"ranks": False}, {"order": False}, {"values": False}, {"max_bins": 8}):
        alone = F.prepare_features(X, nominal, arity, **kw)
        with sharing.shared_work(sharing.SharedWork()) as store:
            F.prepare_features(X, nominal, arity, **kw)
            again = F.prepare_features(X, nominal, arity, **kw)
            assert store.hits["features"] == 1
        for name in F.FeatureArrays._fields[:-1]:
            a, b = getattr(alone, name), getattr(again, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (kw, name)
        assert alone.key == "" and len(again.key) == 40


def test_every_input_of_the_sharing_keys_is_declared():
    """Each input of prepare_features and grow_forest is declared either part of its sharing
    key or ignored by it, in the lists the keys are built from (features.FEATURE_KEY_*,
    forest.FOREST_KEY_*): a new input must be declared before the tests below vary it."""
    import inspect

    feature_inputs = FEATURE_KEY_INPUTS + FEATURE_KEY_KEPT + FEATURE_KEY_IGNORED
    assert sorted(inspect.signature(F.prepare_features).parameters) == sorted(feature_inputs)
    forest_inputs = F.FOREST_KEY_INPUTS + F.FOREST_KEY_IGNORED
    assert sorted(inspect.signature(F.grow_forest).parameters) == sorted(forest_inputs)
    # the feature arrays stand in the forest key by their digest of values and bins alone
    assert set(F.FeatureArrays._fields) == {"Xc", "R", "order", "n_distinct", "uniq",
                                            "uniq_off", "nominal", "key"}


def feature_inputs() -> dict:
    X, _ = data()
    nominal = np.arange(6) == 4
    return {"X": X, "nominal": nominal, "arity": np.where(nominal, 3, 0), "max_bins": None,
            "weights": None, "ranks": True, "order": True, "values": True, "n_threads": 1}


def _other_x():
    X, _ = data()
    X = X.copy()
    X[:40, 1] = X[:40, 1] * 3.0 + 1.0
    return X


_WEIGHTS = np.random.default_rng(5).integers(0, 4, size=400).astype(np.float64)

# per input of prepare_features: (what the first fit uses, what the second changes)
FEATURE_VARIANTS = {
    "X": ({}, {"X": _other_x()}),
    "nominal": ({}, {"nominal": np.zeros(6, dtype=bool)}),
    "arity": ({}, {"arity": np.where(np.arange(6) == 4, 5, 0)}),
    "max_bins": ({"max_bins": 8}, {"max_bins": 16}),
    "weights": ({"max_bins": 8}, {"max_bins": 8, "weights": _WEIGHTS}),
    "ranks": ({}, {"ranks": False}),
    "order": ({}, {"order": False}),
    # continuous features only: a nominal one keeps the values whatever ``values`` says
    "values": ({"nominal": np.zeros(6, dtype=bool)},
               {"nominal": np.zeros(6, dtype=bool), "values": False}),
    "n_threads": ({}, {"n_threads": 2}),
}


def arrays_of(feats) -> list[bytes]:
    return [(a.dtype.str, a.shape, a.tobytes()) for a in feats[:-1]]


@pytest.mark.parametrize(
    "name", FEATURE_KEY_INPUTS + FEATURE_KEY_KEPT + FEATURE_KEY_IGNORED)
def test_features_prepared_with_one_input_changed_are_those_of_a_fit_alone(name):
    """Two preparations in one scope that differ in one input of the feature key (the
    declared list it is built from) give the arrays of two fits alone; the ignored input
    (threads) gives the first one's arrays back."""
    first, second = ({**feature_inputs(), **change} for change in FEATURE_VARIANTS[name])
    alone_first = F.prepare_features(**first)
    alone_second = F.prepare_features(**second)
    with sharing.shared_work(sharing.SharedWork()) as store:
        F.prepare_features(**first)
        shared = F.prepare_features(**second)
    assert arrays_of(shared) == arrays_of(alone_second)
    if name in FEATURE_KEY_IGNORED:
        assert store.hits["features"] == 1
        assert arrays_of(alone_second) == arrays_of(alone_first)
    else:
        assert store.hits["features"] == 0
        # the change is a real one: the arrays differ, so sharing them would be wrong
        assert arrays_of(alone_second) != arrays_of(alone_first)


def forest_inputs() -> dict:
    """grow_forest's inputs for bagged C4.5-like trees on data(): ``feats`` is given as what
    prepare_features reads (made by grow() inside or outside a scope)."""
    _, y = data()
    feats = feature_inputs()
    del feats["n_threads"]
    iparams = np.zeros(G.N_PARAMS, dtype=np.int64)
    iparams[G.P_CRITERION] = 1
    iparams[G.P_C45] = 1
    iparams[G.P_MIN_OBJS] = 2
    iparams[G.P_MIN_SPLIT] = 2
    iparams[G.P_MIN_LEAF] = 1
    iparams[G.P_MAX_DEPTH] = 1 << 30
    iparams[G.P_MAX_FEATURES] = 6
    iparams[G.P_PRESORT] = 1
    iparams[G.P_LOCAL] = 1
    return {"feats": feats, "y": y, "n_classes": 3, "iparams": iparams,
            "seeds": np.array([3, 17, 29, 41, 53, 67], dtype=np.uint64),
            "row_mode": G.ROWS_BOOTSTRAP, "part": np.zeros(400, dtype=np.int32), "n_sub": 0,
            "n_threads": 1, "sample_weight": None}


def with_slot(slot: int, value: int, **more) -> dict:
    iparams = forest_inputs()["iparams"]
    iparams[slot] = value
    return {"iparams": iparams, **more}


def _stochastic_iparams() -> np.ndarray:
    from treelab.estimators._spec import spec_iparams

    iparams = spec_iparams(treelab.StochasticID3()._spec(6), 6)[0]
    return iparams


_DISJOINT = {"row_mode": G.ROWS_DISJOINT, "part": (np.arange(400) % 6).astype(np.int32)}
_BINNED = {"feats": {**forest_inputs()["feats"], "max_bins": 16}}

# per input of grow_forest: (what the first, all-deterministic fit uses, what the second
# changes)
FOREST_VARIANTS = {
    "feats": ({}, {"feats": {**forest_inputs()["feats"], "X": _other_x()}}),
    "y": ({}, {"y": np.roll(data()[1], 7)}),
    "n_classes": ({}, {"n_classes": 4}),
    "iparams": ({}, with_slot(G.P_MAX_DEPTH, 3)),
    "seeds": ({}, {"seeds": forest_inputs()["seeds"] + np.uint64(1)}),
    "row_mode": ({}, {"row_mode": G.ROWS_ALL}),
    "part": (_DISJOINT, {**_DISJOINT, "part": (np.arange(400) // 67).astype(np.int32)}),
    "n_sub": ({}, {"n_sub": 3}),
    "sample_weight": ({}, {"sample_weight": _WEIGHTS.astype(np.int32)}),
    "alphas": ({}, {}),  # the second fit's alphas differ from the first's in every case
    "n_threads": ({}, {"n_threads": 2}),
}

# per slot of iparams (the growth kernel's parameters, digested whole): the second fit's
# value. Slots that shape no kept tree have their reason instead.
SLOT_VARIANTS = {
    G.P_CRITERION: ({}, with_slot(G.P_CRITERION, 2)),
    G.P_C45: ({}, with_slot(G.P_C45, 0)),
    G.P_MIN_OBJS: ({}, with_slot(G.P_MIN_OBJS, 12)),
    G.P_MIN_SPLIT: ({}, with_slot(G.P_MIN_SPLIT, 40)),
    G.P_MIN_LEAF: ({}, with_slot(G.P_MIN_LEAF, 9)),
    G.P_MAX_DEPTH: ({}, with_slot(G.P_MAX_DEPTH, 3)),
    G.P_MAX_FEATURES: ({}, with_slot(G.P_MAX_FEATURES, 3)),  # keeps no tree
    G.P_DET_THRESHOLD: ({}, with_slot(G.P_DET_THRESHOLD, 1)),  # keeps no tree
    G.P_STOCHASTIC: ({}, {"iparams": _stochastic_iparams()}),  # keeps no tree
    G.P_BINNED: (_BINNED, {**_BINNED, **with_slot(G.P_BINNED, 1)}),
    G.P_COUNT_SHIFT: ({}, with_slot(G.P_COUNT_SHIFT, 1)),
}
SLOTS_SHAPING_NO_KEPT_TREE = {
    G.P_BETA_BITS: "read by stochastic ID3's selection alone, which keeps no tree",
    G.P_RANDOM_SPLIT: "random nodes' thresholds: a kept tree has none, and a later fit "
                      "grows its random nodes with its own parameters",
    G.P_PRESORT: "sort orders or sorting at each node: the same trees",
    G.P_LOCAL: "local copies of small subtrees' values: the same trees",
    G.P_KEEP_TIES: "what a tree returns, not the tree (left out of the key)",
}

MIXED_ALPHAS = np.array([1.0, 0.7, 0.0, 1.0, 0.4, 1.0])


def grow(inputs: dict, alphas: np.ndarray) -> Forest:
    fs = inputs["feats"]
    feats = F.prepare_features(fs["X"], fs["nominal"], fs["arity"], max_bins=fs["max_bins"],
                               weights=fs["weights"])
    return F.grow_forest(feats, **{k: v for k, v in inputs.items() if k != "feats"},
                         alphas=alphas)


def check_separate_forests(first: dict, second: dict, changed_shapes_trees: bool):
    """In one scope: an all-deterministic forest on ``first`` (kept), then a mixed one on
    ``second``, then the mixed one on ``first`` (which takes the kept trees)."""
    first, second = {**forest_inputs(), **first}, {**forest_inputs(), **second}
    store = sharing.SharedWork()
    with sharing.shared_work(store):
        grow(first, np.ones(6))
        shared = grow(second, MIXED_ALPHAS)
        hits_second = store.hits["trees"]
        again = grow(first, MIXED_ALPHAS)
    alone = grow(second, MIXED_ALPHAS)
    assert_forests_identical(shared, alone)
    assert_forests_identical(again, grow(first, MIXED_ALPHAS))
    if changed_shapes_trees:
        assert hits_second == 0
        with pytest.raises(AssertionError):  # the change is a real one
            assert_forests_identical(alone, again)
    return store, hits_second


def test_the_first_forest_is_kept_and_taken_by_the_same_inputs():
    """The control of the tests below: unchanged inputs take the kept trees."""
    store, hits_second = check_separate_forests({}, {}, changed_shapes_trees=False)
    assert hits_second == 1 and store.hits["trees"] == 2


@pytest.mark.parametrize("name", F.FOREST_KEY_INPUTS + F.FOREST_KEY_IGNORED)
def test_forests_with_one_input_changed_in_one_scope_are_those_of_two_scopes(name):
    """Two fits in one scope that differ in one input of grow_forest (enumerated from the
    declared lists the key of shared trees is built from) grow the forests of fits alone.
    ``sampling="none"`` then ``"bootstrap"`` is the row mode; ``max_bins=8`` then 16 is a
    feature input (the test above, and test_one_parameter_changed_in_one_scope below)."""
    first, second = FOREST_VARIANTS[name]
    store, _ = check_separate_forests(first, second,
                                      changed_shapes_trees=name in F.FOREST_KEY_INPUTS)
    if name == "n_threads":
        assert store.hits["trees"] == 2  # the same trees on two threads: taken


@pytest.mark.parametrize("slot", range(G.N_PARAMS))
def test_forests_with_one_kernel_parameter_changed_are_those_of_two_scopes(slot):
    """Every slot of the growth kernel's parameters (digested whole as ``iparams``) either
    shapes the kept trees, and a fit changing it alone takes no kept tree, or has its reason
    in SLOTS_SHAPING_NO_KEPT_TREE (and the shared fit is still the fit alone)."""
    if slot in SLOTS_SHAPING_NO_KEPT_TREE:
        assert slot not in SLOT_VARIANTS
        value = 1 if slot != G.P_LOCAL else 0
        check_separate_forests({}, with_slot(slot, value), changed_shapes_trees=False)
        return
    first, second = SLOT_VARIANTS[slot]
    check_separate_forests(first, second, changed_shapes_trees=True)


@pytest.mark.parametrize("first,second", [
    ({"max_bins": 8}, {"max_bins": 16}),
    ({"max_bins": None}, {"max_bins": 8}),
    ({"sampling": "none"}, {"sampling": "bootstrap"}),
    ({"sampling": "bootstrap"}, {"sampling": "subspace", "subspace_fraction": 0.5}),
    ({"criterion": "gain_ratio"}, {"criterion": "gini"}),
    ({"min_samples_leaf": 1}, {"min_samples_leaf": 6}),
    ({"max_depth": None}, {"max_depth": 3}),
])
def test_one_parameter_changed_in_one_scope_grows_the_forest_of_a_fit_alone(first, second):
    """What a grid does: an all-deterministic fit, then a fit of another construction at
    another alpha on the same fold. Each must be the fit alone (and differ from the first
    construction's, or the case shows nothing)."""
    X, y = data()

    def make(alpha, params):
        base = {"sampling": "bootstrap", "random_state": 11}
        return treelab.VRTrees(n_estimators=6, alpha=alpha, categorical_features=[4],
                               **{**base, **params})

    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make(1.0, first).fit(X, y)
        shared = make(0.7, second).fit(X, y)
        same = make(0.7, first).fit(X, y)
    assert store.hits["trees"] == 1  # the first construction's trees were kept and taken
    alone = make(0.7, second).fit(X, y)
    assert_forests_identical(shared.forest_, alone.forest_)
    assert_forests_identical(same.forest_, make(0.7, first).fit(X, y).forest_)
    with pytest.raises(AssertionError):
        assert_forests_identical(alone.forest_, same.forest_)


def test_the_store_keeps_at_most_its_bytes():
    X, y = data()
    nominal = np.zeros(6, dtype=bool)
    arity = np.zeros(6, dtype=np.int64)
    one = F.prepare_features(X, nominal, arity)
    assert sharing.nbytes(one) == sum(a.nbytes for a in one[:7])
    store = sharing.SharedWork(max_bytes=int(1.5 * sharing.nbytes(one)))
    with sharing.shared_work(store):
        F.prepare_features(X, nominal, arity)
        F.prepare_features(X[::-1].copy(), nominal, arity)  # pushes the first one out
        assert len(store.features.items) == 1
        F.prepare_features(X, nominal, arity)
        assert store.hits["features"] == 0
    small = sharing.SharedWork(max_bytes=10)
    with sharing.shared_work(small):  # nothing fits: every fit prepares its own
        a = treelab.VRTrees(n_estimators=3, alpha=1.0, random_state=0).fit(X, y)
        b = treelab.VRTrees(n_estimators=3, alpha=1.0, random_state=0).fit(X, y)
    assert small.hits == {"features": 0, "trees": 0} and not small.forests.items
    assert_forests_identical(a.forest_, b.forest_)


@pytest.mark.parametrize("max_bins", [None, 8])
def test_sample_weights_share_with_the_same_weights_only(max_bins):
    X, y = data()
    rng = np.random.default_rng(3)
    w1 = rng.integers(0, 4, size=len(y)).astype(float)
    w2 = w1.copy()
    w2[:50] = 1.0

    def make(alpha):
        return treelab.VRTrees(n_estimators=5, alpha=alpha, sampling="bootstrap",
                               max_bins=max_bins, random_state=8)

    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make(1.0).fit(X, y, sample_weight=w1)
        same = make(0.7).fit(X, y, sample_weight=w1)
        other = make(0.7).fit(X, y, sample_weight=w2)
        unweighted = make(0.7).fit(X, y)
    assert store.hits["trees"] == 1
    for est, w in ((same, w1), (other, w2), (unweighted, None)):
        alone = make(0.7).fit(X, y, sample_weight=w)
        assert_forests_identical(est.forest_, alone.forest_)


def test_reference_layouts_are_made_once_per_kept_forest(monkeypatch):
    """The fits of a scope that take a kept forest as reference read each tree's layout made
    by the first of them (not again per fit), and a forest kept again has its own layouts;
    every forest is still the one a fit alone grows."""
    X, y = data()
    made = []
    real = F.reference_arrays

    def counting(tree):
        made.append(id(tree))
        return real(tree)

    monkeypatch.setattr(F, "reference_arrays", counting)

    def make(alpha):
        return treelab.VRTrees(n_estimators=6, alpha=alpha, random_state=5, sampling="bootstrap",
                               categorical_features=[4])

    store = sharing.SharedWork()
    with sharing.shared_work(store):
        make(1.0).fit(X, y)
        made.clear()
        shared = [make(a).fit(X, y) for a in (0.8, 0.5, 0.2)]
        assert len(made) == 6 and len(set(made)) == 6  # once per tree, not once per fit
        (held, layouts), = store.references.items.values()
        assert set(layouts) == set(made)
        for tree_id, (ref_i, thr) in layouts.items():
            tree = next(t for t in held if id(t) == tree_id)
            want_i, want_t = real(tree)
            np.testing.assert_array_equal(ref_i, want_i)
            np.testing.assert_array_equal(thr, want_t)
        # the kept forest forgotten and kept again: new trees, new layouts
        store.forests.clear()
        make(1.0).fit(X, y)
        made.clear()
        again = make(0.5).fit(X, y)
        assert len(made) == 6
        (held_again, _), = store.references.items.values()
        assert held_again is not held
    for est, alpha in zip([*shared, again], (0.8, 0.5, 0.2, 0.5), strict=True):
        assert_forests_identical(est.forest_, make(alpha).fit(X, y).forest_)
