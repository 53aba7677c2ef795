"""The lean growth routine (``grow_tree(..., general=None)``) grows the same trees as the
general one, is used only where it suffices, and refuses what it was compiled without."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

import treelab
from treelab.engine import forest as F
from treelab.engine.features import prepare_features
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._criteria import xlogx_table


def general_at() -> int:
    import inspect

    return list(inspect.signature(G.grow_tree.py_func).parameters).index("general")


def spy_on_general(monkeypatch) -> list:
    """The ``general`` argument of every ``grow_tree`` call the forests make, as they make
    them."""
    seen = []
    real = F.grow_tree

    def spy(*args):
        seen.append(args[general_at()])
        return real(*args)

    monkeypatch.setattr(F, "grow_tree", spy)
    return seen


def small_data():
    """Continuous features with few distinct values (rounded), missing values, three classes."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(300, 5)), 1)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int) + (X[:, 2] > 1)
    return X, y


FACTORIES = [
    lambda: treelab.VRTrees(n_estimators=6, random_state=0),
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.2, random_state=1),
    lambda: treelab.VRTrees(n_estimators=6, alpha=0.5, sampling="bootstrap+subspace",
                            random_state=2),
    lambda: treelab.VRTrees(n_estimators=4, alpha=1.0, random_split="pert", random_state=3),
    lambda: treelab.RandomForest(n_estimators=6, random_state=4),
    lambda: treelab.Coalescence(n_estimators=6, random_state=5),
]


@pytest.mark.parametrize("make", FACTORIES,
                         ids=["vr", "vr02", "vr05-bag-sub", "pert-alpha1", "rf", "coalescence"])
@pytest.mark.parametrize("dataset", ["iris", "small"])
def test_lean_and_general_routines_grow_identical_forests(make, dataset, monkeypatch):
    X, y = load_iris(return_X_y=True) if dataset == "iris" else small_data()
    w = np.arange(len(y)) % 3  # integer sample weights, zeros included
    seen = spy_on_general(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(F, "lean_suffices", lambda *args: False)
        general = [make().fit(X, y), make().fit(X, y, sample_weight=w)]
    assert seen and set(seen) == {True}
    seen.clear()
    monkeypatch.setattr(F, "compiled_or_cached", lambda kernel, args: False)
    lean = [make().fit(X, y), make().fit(X, y, sample_weight=w)]
    assert seen and set(seen) == {None}
    for a, b in zip(general, lean, strict=True):
        assert a.forest_.kind.shape[0] > 10
        for name in F.Forest._fields:
            x, z = getattr(a.forest_, name), getattr(b.forest_, name)
            assert x.dtype == z.dtype and x.shape == z.shape, name
            assert x.tobytes() == z.tobytes(), name
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


# a class a row is what scikit-learn's check of y warns about (regression-like targets)
@pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_lean_routine_holds_trees_of_one_leaf_a_row(alpha, monkeypatch):
    """The lean routine's node tables have room for 2 n - 1 nodes from the start and never
    grow (it compiles no enlarging): trees of noise, one leaf a row, reach that bound, and
    they are the general routine's trees."""
    rng = np.random.default_rng(5)
    n = 240
    # every row its own pair of values, each column with at most half as many distinct
    # values as rows (more would give alpha >= 0.5 trees presorted lists: no lean routine)
    idx = rng.permutation(n)
    X = np.column_stack([idx // 2, idx % 2]).astype(float)
    y = rng.permutation(n)  # a class a row: a leaf a row, 2 n - 1 nodes

    def make():
        return treelab.VRTrees(n_estimators=3, alpha=alpha, c45=False, min_objs=1,
                               min_samples_split=2, curtail_min=1, random_state=0)

    with monkeypatch.context() as m:
        m.setattr(F, "lean_suffices", lambda *args: False)
        general = make().fit(X, y).forest_
    seen = spy_on_general(monkeypatch)
    monkeypatch.setattr(F, "compiled_or_cached", lambda kernel, args: False)
    lean = make().fit(X, y).forest_
    assert seen and set(seen) == {None}
    sizes = np.diff(lean.node_offsets)
    # the bound 2 n - 1, beyond the general routine's first room (n + 16)
    assert sizes.max() == 2 * n - 1 > n // G.NODE_CAP_DIVISOR + 16
    for name in F.Forest._fields:
        assert getattr(general, name).tobytes() == getattr(lean, name).tobytes(), name


def test_lean_routine_is_chosen_only_where_it_suffices(monkeypatch):
    seen = spy_on_general(monkeypatch)
    monkeypatch.setattr(F, "compiled_or_cached", lambda kernel, args: False)
    X, y = load_iris(return_X_y=True)
    treelab.VRTrees(n_estimators=2, random_state=0).fit(X, y)
    assert set(seen) == {None}
    frame = pd.DataFrame(X, columns=list("abcd"))
    frame["nom"] = pd.Categorical(np.arange(150) % 3)
    fitted = [
        lambda: treelab.VRTrees(n_estimators=2, random_state=0).fit(frame, y),  # nominal
        lambda: treelab.ExtraTrees(n_estimators=2, random_state=0).fit(X, y),  # ET thresholds
        lambda: treelab.VRTrees(n_estimators=2, alpha=0.3, random_split="uniform",
                                random_state=0).fit(X, y),
        lambda: treelab.VRTrees(n_estimators=2, random_state=0).fit(  # more than 256 values
            np.random.default_rng(0).normal(size=(400, 3)), np.arange(400) % 2),
        # fewer than 256 values, but more than half the rows: lists from alpha 0.5
        lambda: treelab.VRTrees(n_estimators=2, alpha=0.5, random_state=0).fit(
            np.random.default_rng(0).normal(size=(150, 3)), np.arange(150) % 2),
        lambda: treelab.StochasticID3(n_estimators=2, random_state=0).fit(X, y),
    ]
    for fit in fitted:
        seen.clear()
        fit()
        assert seen and set(seen) == {True}


def test_general_routine_is_preferred_once_numba_has_it():
    X, y = load_iris(return_X_y=True)
    feats = prepare_features(X.astype(float), np.zeros(4, bool), np.zeros(4, np.int64))
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[[G.P_MIN_SPLIT, G.P_MIN_LEAF, G.P_MAX_FEATURES]] = [2, 1, 4]
    ip[G.P_MAX_DEPTH] = 2**31 - 1
    assert F.lean_suffices(feats, ip, np.ones(3))
    args = [feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq, feats.uniq_off,
            feats.nominal, y.astype(np.int32), 3, ip, 1.0, xlogx_table(150), np.uint64(0),
            G.ROWS_ALL, np.zeros(150, np.int32), 0, 0, *G.NO_REFERENCE, None, True,
            np.ones(150, np.int32), True, np.zeros((0, 0), np.uint8)]
    G.grow_tree(*args)
    assert F.compiled_or_cached(G.grow_tree, args)
    # a version numba has neither compiled nor cached (a dtype no fit passes) is not there
    odd = list(args)
    odd[-3] = np.ones(150, np.int16)
    assert not F.compiled_or_cached(G.grow_tree, odd)


def test_lean_routine_suffices_for_mostly_distinct_features_below_alpha_half():
    """Features with fewer than 256 distinct values but more than half the rows get lists in
    trees of alpha >= 0.5 alone (``_presort.presort_plan``): a forest with such a tree needs
    the general routine, one without may take the lean one."""
    X = np.random.default_rng(2).normal(size=(150, 3))
    feats = prepare_features(X, np.zeros(3, bool), np.zeros(3, np.int64))
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[[G.P_MIN_SPLIT, G.P_MIN_LEAF, G.P_MAX_FEATURES]] = [2, 1, 3]
    ip[G.P_MAX_DEPTH] = 2**31 - 1
    ip[G.P_PRESORT] = 1
    assert F.lean_suffices(feats, ip, np.full(3, 0.3))
    assert not F.lean_suffices(feats, ip, np.array([0.3, 0.5]))
    # a quarter of the rows' distinct values: no lists at any alpha
    few = prepare_features(np.round(X * 8) / 8, np.zeros(3, bool), np.zeros(3, np.int64))
    assert np.all(few.n_distinct <= 75)
    assert F.lean_suffices(few, ip, np.ones(3))


def test_lean_routine_refuses_what_it_was_compiled_without():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=60), rng.integers(0, 3, 60)]).astype(float)
    y = (X[:, 1] > 0).astype(np.int32)
    nominal = np.array([False, True])
    feats = prepare_features(X, nominal, np.array([0, 3], np.int64))
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[[G.P_MIN_SPLIT, G.P_MIN_LEAF, G.P_MAX_FEATURES]] = [2, 1, 2]
    ip[G.P_MAX_DEPTH] = 2**31 - 1
    assert not F.lean_suffices(feats, ip, np.ones(1))
    args = (feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq, feats.uniq_off,
            feats.nominal, y, 2, ip, 1.0, xlogx_table(60), np.uint64(0), G.ROWS_ALL,
            np.zeros(60, np.int32), 0, 0, *G.NO_REFERENCE, None)
    assert G.grow_tree(*args, True, np.ones(60, np.int32))[0].shape[0] > 1
    with pytest.raises(ValueError, match="lean growth routine"):
        G.grow_tree(*args, None, np.ones(60, np.int32))


def binned_at() -> int:
    import inspect

    return list(inspect.signature(G.grow_tree.py_func).parameters).index("binned")


@pytest.mark.parametrize("dataset", ["iris", "small"])
def test_lean_routine_keeps_the_binned_search_for_binned_fits_alone(dataset, monkeypatch):
    """The lean routine is compiled without the binned search (``binned=None``) for fits whose
    ranks are not bin codes and with it for binned fits; either way the forest is the general
    routine's (which always has the search), bit for bit."""
    X, y = load_iris(return_X_y=True) if dataset == "iris" else small_data()
    seen = []
    real = F.grow_tree

    def spy(*args):
        seen.append((args[general_at()], args[binned_at()]))
        return real(*args)

    monkeypatch.setattr(F, "grow_tree", spy)
    for max_bins, lean_binned in ((None, None), (64, True)):
        def make(max_bins=max_bins):
            return treelab.RandomForest(n_estimators=5, max_bins=max_bins, random_state=7)
        seen.clear()
        with monkeypatch.context() as m:
            m.setattr(F, "lean_suffices", lambda *args: False)
            general = make().fit(X, y)
        assert seen and set(seen) == {(True, True)}
        seen.clear()
        with monkeypatch.context() as m:
            m.setattr(F, "compiled_or_cached", lambda kernel, args: False)
            lean = make().fit(X, y)
        assert seen and set(seen) == {(None, lean_binned)}
        assert general.forest_.kind.shape[0] > 10
        for name in F.Forest._fields:
            a, b = getattr(general.forest_, name), getattr(lean.forest_, name)
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (max_bins, name)


def test_version_without_the_binned_search_refuses_bin_codes():
    X, y = load_iris(return_X_y=True)
    feats = prepare_features(X.astype(float), np.zeros(4, bool), np.zeros(4, np.int64))
    ip = np.zeros(G.N_PARAMS, dtype=np.int64)
    ip[[G.P_MIN_SPLIT, G.P_MIN_LEAF, G.P_MAX_FEATURES]] = [2, 1, 4]
    ip[G.P_MAX_DEPTH] = 2**31 - 1
    ip[G.P_BINNED] = 1
    args = (feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq, feats.uniq_off,
            feats.nominal, y.astype(np.int32), 3, ip, 1.0, xlogx_table(150), np.uint64(0),
            G.ROWS_ALL, np.zeros(150, np.int32), 0, 0, *G.NO_REFERENCE, None, None,
            np.ones(150, np.int32))
    with pytest.raises(ValueError, match="binned=True"):
        G.grow_tree(*args, None)


def test_rank_threshold_matches_numpy_searchsorted():
    from treelab.engine.kernels._thresholds import rank_threshold

    rng = np.random.default_rng(1)
    vals = [np.unique(rng.normal(size=k)) for k in (1, 2, 7, 64)]
    vals.append(np.array([-np.inf, -1.0, 0.0, 2.5, np.inf]))
    uniq = np.concatenate(vals)
    uniq_off = np.concatenate([[0], np.cumsum([len(v) for v in vals])]).astype(np.int64)
    for f, v in enumerate(vals):
        probes = np.concatenate([v, v - 1e-9, v + 1e-9, [-np.inf, np.inf, np.nan, 0.0]])
        for t in probes:
            expected = np.searchsorted(v, t, side="right") - 1
            assert rank_threshold(f, t, uniq, uniq_off) == expected, (f, t)


@pytest.mark.parametrize("mode", ["average", "vote", "sum"])
def test_lockstep_only_prediction_kernels_answer_as_the_general_ones(mode):
    """``Forest.walk_arrays`` hands the prediction kernels None for the general walk's arrays
    when the lockstep walk serves (their version without the general walk); the same
    combination, member counts and leaves as through the version that has both walks."""
    from treelab.engine.kernels import _predict as P

    rng = np.random.default_rng(2)
    X = rng.normal(size=(1001, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int) + (X[:, 3] > 1)
    fr = treelab.VRTrees(n_estimators=5, random_state=0).fit(X, y).forest_
    Xt = rng.normal(size=(1001, 5))
    lean = fr.walk_arrays(Xt)
    assert lean[1] is None and lean[2] is None and lean[-1].shape[0] > 0
    empty = np.empty(0, dtype=np.int64)
    both = lean[:1] + (empty, empty) + lean[3:]  # the same codes; the kernel with both walks
    anchor = fr.answering_nodes(3)
    m = {"average": P.MODE_AVERAGE, "vote": P.MODE_VOTE, "sum": P.MODE_SUM}[mode]
    table = P.leaf_answers(fr.n_children, anchor, fr.counts, False, m)
    no_table = (np.empty((0, 0)), np.empty(0, dtype=np.int64))
    for threads in (1, 2):
        for answers in (table, no_table):
            for a, b in zip(
                    P.combine_forest(Xt, *lean, anchor, fr.counts, False, m, *answers, threads),
                    P.combine_forest(Xt, *both, anchor, fr.counts, False, m, *answers, threads),
                    strict=True):
                assert a.tobytes() == b.tobytes()
        np.testing.assert_array_equal(
            P.member_counts(Xt, *lean, anchor, fr.counts, False, threads),
            P.member_counts(Xt, *both, anchor, fr.counts, False, threads))
        np.testing.assert_array_equal(P.apply_forest(Xt, *lean, threads),
                                      P.apply_forest(Xt, *both, threads))


def test_warmup_compiles_the_lockstep_only_prediction_kernels():
    """``treelab warmup`` predicts on rows without missing values as well, so a user's first
    prediction on such rows (iris) loads the kernels' lockstep-only version instead of
    compiling it."""
    from treelab import _warmup
    from treelab.engine.kernels import _predict as P

    _warmup.warmup(["VRTrees"], progress=False)
    for kernel in (P._combine_block, P._member_block):
        assert "none" in {str(sig[4]) for sig in kernel.signatures}, kernel
