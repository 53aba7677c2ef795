"""Member outputs and diagnoses of models treelab did not grow: scikit-learn forests, bagging
and voting, other ``estimators_`` ensembles, pools of fitted classifiers and raw outputs.

Every reference here is a slow loop over the members' own ``predict`` / ``predict_proba``
(mapped through the ensemble's ``classes_`` by hand) or a hand-worked pool; ensemble errors
are compared with the model's own ``predict``, exactly.
"""

import numpy as np
import pytest
import xarray as xr
from naive_analysis import strength, strength_oob
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    ExtraTreesClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from treelab import analysis as A
from treelab.analysis import diagnose, member_outputs


def _data(labels, n=260, seed=0, classes=3):
    X, y = make_classification(n, 6, n_informative=4, n_redundant=0, n_classes=classes,
                               random_state=seed)
    return X, np.asarray(labels)[y]


def _tied_data(labels, n=300, seed=1):
    """Few distinct rows with random labels: leaves hold mixed classes, so member and
    ensemble probabilities tie often (0.5/0.5, 1/3 each, ...)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, 3)).astype(float)
    y = np.asarray(labels)[rng.integers(0, len(labels), size=n)]
    return X, y


def _slow_tree_members(model, X):
    """Per tree: predict_proba and predict, mapped through the forest's classes_."""
    proba = np.stack([t.predict_proba(X) for t in model.estimators_])
    labels = np.stack([model.classes_[t.predict(X).astype(int)] for t in model.estimators_])
    return proba, labels


LABELS = {"str": ["cat", "dog", "eel"], "int": [3, 7, 11], "obj": np.array([2.5, "b", "c"],
                                                                             dtype=object)[1:]}


@pytest.mark.parametrize("cls", [RandomForestClassifier, ExtraTreesClassifier])
@pytest.mark.parametrize("kind", ["str", "int"])
def test_forest_members_match_per_tree_loop(cls, kind):
    X, y = _data(LABELS[kind])
    model = cls(n_estimators=12, max_depth=5, random_state=0).fit(X[:180], y[:180])
    Xt = X[180:]
    proba, labels = _slow_tree_members(model, Xt)
    got = member_outputs(model, Xt)
    assert got.dims == ("tree", "sample", "class")
    np.testing.assert_array_equal(got["class"].values, model.classes_)
    np.testing.assert_array_equal(got.values, proba)
    lab = member_outputs(model, Xt, kind="labels")
    assert lab.dims == ("tree", "sample")
    np.testing.assert_array_equal(lab.values, labels)
    assert list(lab.attrs["classes"]) == list(model.classes_)


def test_forest_member_labels_are_labels_not_indices():
    """Trees of a forest predict class indices; with classes [3, 7, 11] an index read as a
    label would be 0, 1 or 2."""
    X, y = _data([3, 7, 11])
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    lab = member_outputs(rf, X, kind="labels").values
    indices = np.stack([tree.predict(X).astype(int) for tree in rf.estimators_])
    assert set(np.unique(indices)) == {0, 1, 2}
    # each tree's own index, mapped by hand: label 3, 7 or 11 for index 0, 1 or 2
    np.testing.assert_array_equal(lab, np.choose(indices, [3, 7, 11]))
    assert not np.any(lab == indices)


def test_forest_with_a_class_missing_from_a_bootstrap():
    X, y = _data(["a", "b", "c"], n=60)
    y[:2] = "rare"  # two rows: many bootstraps miss the class
    rf = RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)
    proba, labels = _slow_tree_members(rf, X)
    np.testing.assert_array_equal(member_outputs(rf, X).values, proba)
    np.testing.assert_array_equal(member_outputs(rf, X, kind="labels").values, labels)


@pytest.mark.parametrize(("cls", "bootstrap"), [(RandomForestClassifier, False),
                                                (ExtraTreesClassifier, False),
                                                (RandomForestClassifier, True)])
def test_forest_ensemble_error_equals_predict_with_ties(cls, bootstrap):
    # every distinct row holds one "b" and one "a" (a 0.5 / 0.5 leaf), some also a "c"
    rng = np.random.default_rng(3)
    grid = np.array([[i, j] for i in range(4) for j in range(4)], dtype=float)
    X = np.repeat(grid, 3, axis=0)
    y = np.tile(["b", "a", "c"], len(grid))
    y[2::6] = "b"
    model = cls(n_estimators=5, bootstrap=bootstrap, random_state=0).fit(X, y)
    Xt = np.repeat(grid, 2, axis=0)
    yt = rng.choice(["a", "b", "c"], size=len(Xt))
    p = model.predict_proba(Xt)
    tied = np.sum(np.sort(p, axis=1)[:, -1] == np.sort(p, axis=1)[:, -2])
    assert tied > 0  # the case under test is present
    ds = diagnose(model, Xt, yt)
    assert float(ds.ensemble_error) == np.mean(model.predict(Xt) != yt)
    np.testing.assert_array_equal(A.members.resolve(model, Xt).ensemble_proba, p)


def test_forest_threads_give_the_same_outputs():
    X, y = _data(["a", "b", "c"])
    one = RandomForestClassifier(n_estimators=8, random_state=0, n_jobs=1).fit(X, y)
    two = RandomForestClassifier(n_estimators=8, random_state=0, n_jobs=2).fit(X, y)
    xr.testing.assert_identical(member_outputs(one, X).drop_attrs(),
                                member_outputs(two, X).drop_attrs())


@pytest.mark.parametrize("base", [KNeighborsClassifier(3), LinearSVC(), None])
def test_bagging_members_use_their_features(base):
    X, y = _tied_data(["x", "y", "z"], n=240)
    X = np.hstack([X, np.random.default_rng(0).normal(size=(240, 3))])
    bag = BaggingClassifier(base, n_estimators=7, max_features=0.5, max_samples=0.3,
                            random_state=0).fit(X[:160], y[:160])
    Xt, yt = X[160:], y[160:]
    C = len(bag.classes_)
    labels, proba = [], []
    for est, feats in zip(bag.estimators_, bag.estimators_features_, strict=True):
        codes = est.predict(Xt[:, feats]).astype(int)
        labels.append(bag.classes_[codes])
        full = np.zeros((len(Xt), C))
        if hasattr(est, "predict_proba"):
            for j, c in enumerate(est.classes_):
                full[:, int(c)] = est.predict_proba(Xt[:, feats])[:, j]
        else:
            full[np.arange(len(Xt)), codes] = 1.0
        proba.append(full)
    np.testing.assert_array_equal(member_outputs(bag, Xt, kind="labels").values,
                                  np.stack(labels))
    np.testing.assert_allclose(member_outputs(bag, Xt).values, np.stack(proba), atol=1e-15)
    ds = diagnose(bag, Xt, yt)
    assert float(ds.ensemble_error) == np.mean(bag.predict(Xt) != yt)


def test_bagging_classifier_members_missing_the_first_class_keep_their_columns():
    """k-NN takes no sample_weight, so BaggingClassifier fits each member on its drawn rows
    alone, and a member whose draw misses the rare class "a" (which sorts first) knows only
    "b" and "c": its probabilities belong in columns 1 and 2, not 0 and 1. Checked against a
    slow loop over the members and against the model's own predict_proba and predict."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] > 0.2, "c", "b")
    y[:8] = "a"  # eight of the 160 training rows: many members draw none of them
    X[:8, 1] += 3.0
    bag = BaggingClassifier(KNeighborsClassifier(3), n_estimators=9, max_samples=0.15,
                            max_features=0.75, random_state=0)
    bag.fit(X[:160], y[:160])
    Xt = np.vstack([X[:8], X[160:]])  # the "a" rows too, where column 0 matters
    missing = [t for t, est in enumerate(bag.estimators_) if 0 not in est.classes_]
    assert 0 < len(missing) < 9  # the case under test is present
    proba = np.zeros((9, len(Xt), 3))
    for t, (est, feats) in enumerate(zip(bag.estimators_, bag.estimators_features_,
                                         strict=True)):
        p = est.predict_proba(Xt[:, feats])
        for j, c in enumerate(est.classes_):
            proba[t, :, int(c)] = p[:, j]
    got = A.members.resolve(bag, Xt)
    np.testing.assert_array_equal(member_outputs(bag, Xt).values, proba)
    np.testing.assert_allclose(got.ensemble_proba, bag.predict_proba(Xt), rtol=0, atol=1e-15)
    np.testing.assert_allclose(got.ensemble_proba, proba.mean(axis=0), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(bag.classes_[got.ensemble], bag.predict(Xt))
    assert np.all(proba[missing, :, 0] == 0.0)


class Fixed:
    """A fitted classifier with fixed outputs (a hand-worked pool member)."""

    def __init__(self, classes, proba=None, labels=None):
        self.classes_ = np.asarray(classes)
        self._p = None if proba is None else np.asarray(proba, dtype=float)
        self._labels = labels

    def predict(self, X):
        if self._labels is not None:
            return np.asarray(self._labels)
        return self.classes_[np.argmax(self._p, axis=1)]

    def fit(self, X, y):
        return self


class FixedProba(Fixed):
    def predict_proba(self, X):
        return self._p


def test_pool_with_disjoint_classes_hand_worked():
    # member 0 knows a, b; member 1 knows c, d; member 2 (labels only) knows b, d
    m0 = FixedProba(["a", "b"], [[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]])
    m1 = FixedProba(["c", "d"], [[0.9, 0.1], [0.3, 0.7], [0.5, 0.5]])
    m2 = Fixed(["b", "d"], labels=["d", "b", "d"])
    pool = [m0, m1, m2]
    out = member_outputs(pool, np.zeros((3, 1)))
    np.testing.assert_array_equal(out["class"].values, ["a", "b", "c", "d"])
    expected = np.array([
        [[0.6, 0.4, 0, 0], [0.2, 0.8, 0, 0], [0.5, 0.5, 0, 0]],
        [[0, 0, 0.9, 0.1], [0, 0, 0.3, 0.7], [0, 0, 0.5, 0.5]],
        [[0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 1]],
    ])
    np.testing.assert_array_equal(out.values, expected)
    assert "one-hot" in out.attrs["member_proba"]
    labels = member_outputs(pool, np.zeros((3, 1)), kind="labels").values
    np.testing.assert_array_equal(labels, [["a", "b", "a"], ["c", "d", "c"], ["d", "b", "d"]])
    y = np.array(["c", "b", "d"])
    # votes: row 0 a, c, d (three-way tie -> a); row 1 b, d, b -> b; row 2 a, c, d -> a
    vote = diagnose(pool, np.zeros((3, 1)), y, combine="vote")
    assert float(vote.ensemble_error) == pytest.approx(2 / 3)
    # mean probabilities: row 0 (.2, .133, .3, .367) -> d; row 1 (.067, .6, .1, .233) -> b;
    # row 2 (1/6, 1/6, 1/6, 1/2) -> d
    avg = diagnose(pool, np.zeros((3, 1)), y, combine="average")
    assert float(avg.ensemble_error) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="combine"):
        diagnose(pool, np.zeros((3, 1)), y)


def test_pool_of_model_families_matches_member_loop():
    X, y = _data(["lo", "mid", "hi"])
    Xtr, ytr, Xt, yt = X[:180], y[:180], X[180:], y[180:]
    keep = ytr != "hi"  # one member never sees "hi"
    pool = [LogisticRegression(max_iter=500).fit(Xtr, ytr), GaussianNB().fit(Xtr[keep],
            ytr[keep]), DecisionTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)]
    got = member_outputs(pool, Xt)
    classes = got["class"].values.tolist()
    for t, m in enumerate(pool):
        for j, c in enumerate(m.classes_):
            np.testing.assert_array_equal(got.values[t, :, classes.index(c)],
                                          m.predict_proba(Xt)[:, j])
    assert np.all(got.values[1, :, classes.index("hi")] == 0)
    ds = diagnose(pool, Xt, yt, combine="average")
    avg = np.mean(got.values, axis=0)
    assert float(ds.ensemble_error) == np.mean(np.asarray(classes)[avg.argmax(1)] != yt)


@pytest.mark.parametrize("voting", ["hard", "soft"])
@pytest.mark.parametrize("weights", [None, [1, 1, 2], [0.1, 0.2, 0.3]])
def test_voting_matches_predict_exactly(voting, weights):
    X, y = _tied_data(["q", "p", "r"])
    Xtr, ytr, Xt, yt = X[:200], y[:200], X[200:], y[200:]
    members = [("lr", LogisticRegression(max_iter=300)), ("nb", GaussianNB()),
               ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]
    v = VotingClassifier(members, voting=voting, weights=weights).fit(Xtr, ytr)
    lab = member_outputs(v, Xt, kind="labels").values
    slow = np.stack([v.classes_[est.predict(Xt)] for est in v.estimators_])
    np.testing.assert_array_equal(lab, slow)
    # row by row, not only the error rate (weights that change predictions: the test below)
    np.testing.assert_array_equal(v.classes_[A.members.resolve(v, Xt).ensemble],
                                  v.predict(Xt))
    ds = diagnose(v, Xt, yt)
    assert float(ds.ensemble_error) == np.mean(v.predict(Xt) != yt)
    assert float(A.errors(v, yt, X=Xt).ensemble_error) == np.mean(v.predict(Xt) != yt)


@pytest.mark.parametrize("voting", ["hard", "soft"])
@pytest.mark.parametrize("weights", [[1, 1, 3], [0.2, 0.9, 0.35]])
def test_voting_classifier_weights_decide_the_ensemble_row_by_row(voting, weights):
    """Weights that change many predictions (the unweighted model predicts otherwise on some
    rows): the ensemble read from the members is VotingClassifier's own predict on every row,
    its probabilities a hand-weighted vote (hard) or the model's predict_proba (soft)."""
    X, y = _data(["q", "p", "r"], n=400, seed=3)
    Xtr, ytr, Xt = X[:200], y[:200], X[200:]
    members = [("lr", LogisticRegression(max_iter=300)), ("nb", GaussianNB()),
               ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]
    v = VotingClassifier(members, voting=voting, weights=weights).fit(Xtr, ytr)
    plain = VotingClassifier(members, voting=voting).fit(Xtr, ytr)
    assert np.sum(v.predict(Xt) != plain.predict(Xt)) >= 5  # the weights matter here
    got = A.members.resolve(v, Xt)
    np.testing.assert_array_equal(v.classes_[got.ensemble], v.predict(Xt))
    if voting == "soft":
        np.testing.assert_allclose(got.ensemble_proba, v.predict_proba(Xt), rtol=0,
                                   atol=1e-15)
    else:
        votes = np.zeros((len(Xt), 3))
        for est, w in zip(v.estimators_, weights, strict=True):
            votes[np.arange(len(Xt)), est.predict(Xt)] += w
        np.testing.assert_allclose(got.ensemble_proba, votes / votes.sum(1, keepdims=True),
                                   rtol=0, atol=1e-15)
    yt = y[200:]
    assert float(diagnose(v, Xt, yt).ensemble_error) == np.mean(v.predict(Xt) != yt)


def test_hard_voting_tie_goes_to_the_first_class():
    X = np.zeros((4, 1))
    y = np.array(["a", "b", "a", "b"])
    v = VotingClassifier([("a", DecisionTreeClassifier()), ("b", DecisionTreeClassifier())])
    v.fit(X, y)  # two identical constant trees cannot tie; give them disagreeing members
    v.estimators_ = [Fixed([0, 1], labels=[0, 1, 0, 1]), Fixed([0, 1], labels=[1, 0, 0, 1])]
    # rows 0 and 1: one vote each -> "a" (the first class), as np.argmax(np.bincount)
    np.testing.assert_array_equal(v.predict(X), ["a", "a", "a", "b"])
    assert float(diagnose(v, X, y).ensemble_error) == 0.25


def test_generic_estimators_ensemble_adaboost():
    X, y = _data(["u", "v", "w"])
    ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=6,
                             random_state=0).fit(X[:180], y[:180])
    Xt, yt = X[180:], y[180:]
    lab = member_outputs(ada, Xt, kind="labels").values
    np.testing.assert_array_equal(lab, np.stack([e.predict(Xt) for e in ada.estimators_]))
    assert float(diagnose(ada, Xt, yt).ensemble_error) == np.mean(ada.predict(Xt) != yt)


def test_measures_take_a_model_like_its_member_labels():
    X, y = _data(["a", "b", "c"])
    rf = RandomForestClassifier(n_estimators=9, max_depth=3, random_state=0).fit(X[:180],
                                                                                 y[:180])
    Xt, yt = X[180:], y[180:]
    _, slow = _slow_tree_members(rf, Xt)
    codes = np.searchsorted(rf.classes_, slow)
    ycodes = np.searchsorted(rf.classes_, yt)
    ref = strength(codes.tolist(), ycodes.tolist(), 3)
    got = A.strength_correlation(rf, yt, X=Xt)
    assert float(got.strength) == pytest.approx(ref["strength"])
    assert float(got.correlation) == pytest.approx(ref["correlation"])
    np.testing.assert_allclose(A.margins(rf, yt, X=Xt).values, ref["margin"])
    for f in (A.pairwise_diversity, A.nonpairwise_diversity, A.error_correlation,
              A.error_arrangement):
        xr.testing.assert_allclose(f(rf, yt, X=Xt), f(codes, ycodes))
    with pytest.raises(TypeError, match="X="):
        A.pairwise_diversity(rf, yt)


def test_string_labels_need_no_classes():
    L = np.array([["a", "b", "b"], ["b", "b", "a"], ["c", "a", "b"]])
    y = np.array(["a", "b", "b"])
    ds = A.errors(L, y)
    np.testing.assert_allclose(ds.member_error, [0, 2 / 3, 2 / 3])
    # votes: row 0 a, b, c (a tie) -> a; row 1 b, b, a -> b; row 2 b, a, b -> b
    assert float(ds.ensemble_error) == 0.0
    codes = np.searchsorted(["a", "b", "c"], L)
    xr.testing.assert_allclose(A.pairwise_diversity(L, y),
                               A.pairwise_diversity(codes, np.searchsorted(["a", "b", "c"], y)))
    assert A.margins(L, y).values.tolist() == pytest.approx([0, 1 / 3, 1 / 3])
    obj = L.astype(object)
    xr.testing.assert_allclose(A.error_correlation(obj, y.astype(object)),
                               A.error_correlation(L, y))


def test_raw_member_outputs():
    P = np.array([[[0.5, 0.5], [0.9, 0.1]], [[0.2, 0.8], [0.4, 0.6]]])
    out = member_outputs(P, classes=["no", "yes"])
    np.testing.assert_array_equal(out["class"].values, ["no", "yes"])
    lab = member_outputs(P, classes=["no", "yes"], kind="labels").values
    np.testing.assert_array_equal(lab, [["no", "no"], ["yes", "yes"]])  # tie -> first
    ds = diagnose(P, None, ["yes", "no"], classes=["no", "yes"], combine="average")
    # mean (0.35, 0.65) -> yes; (0.65, 0.35) -> no: both right
    assert float(ds.ensemble_error) == 0.0
    labels = xr.DataArray([["x", "y"], ["y", "y"], ["x", "x"]], dims=("tree", "sample"))
    ds = diagnose(labels, None, ["x", "y"])
    assert float(ds.ensemble_error) == 0.0
    np.testing.assert_array_equal(ds["class"].values, ["x", "y"])
    with pytest.raises(ValueError, match="combine"):
        diagnose(P, None, ["yes", "no"], classes=["no", "yes"])


def test_raw_member_outputs_with_classes_against_their_class_coordinate():
    # columns labelled b, c, a: classes=["a", "b", "c"] would relabel them (member 0's
    # label of row 0 would read "a" where its highest column is "b")
    P = np.array([[[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]], [[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]])
    da = xr.DataArray(P, dims=("tree", "sample", "class"), coords={"class": ["b", "c", "a"]})
    lab = member_outputs(da, kind="labels").values
    np.testing.assert_array_equal(lab, [["b", "c"], ["a", "a"]])
    np.testing.assert_array_equal(member_outputs(da, classes=["b", "c", "a"], kind="labels"),
                                  lab)
    for classes in (["a", "b", "c"], ["b", "c", "z"]):
        with pytest.raises(ValueError, match="class coordinate of member outputs"):
            member_outputs(da, classes=classes)
        with pytest.raises(ValueError, match="class coordinate of member outputs"):
            diagnose(da, None, ["b", "a"], classes=classes, combine="average")


def test_diagnose_class_coordinate_and_per_class_error():
    X, y = _data(["a", "b", "c"])
    rf = RandomForestClassifier(n_estimators=9, max_depth=2, random_state=0).fit(X[:180],
                                                                                y[:180])
    Xt, yt = X[180:], y[180:].astype("<U3")
    yt[:3] = "new"  # a class the forest never saw
    ds = diagnose(rf, Xt, yt)
    np.testing.assert_array_equal(ds["class"].values, ["a", "b", "c", "new"])
    pred = rf.predict(Xt)
    for c in ["a", "b", "c", "new"]:
        rows = yt == c
        assert float(ds.class_error.sel({"class": c})) == pytest.approx(
            np.mean(pred[rows] != c))
        assert float(ds.class_share.sel({"class": c})) == pytest.approx(rows.mean())
    assert float(ds.ensemble_error) == np.mean(pred != yt)
    assert np.isnan(ds.ties).all() and "treelab" in ds.ties.attrs["description"]
    assert np.isnan(ds.random_share).all()


def test_oob_strength_from_estimators_samples():
    X, y = _data(["a", "b", "c"], n=120)
    rf = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=0).fit(X, y)
    bag = np.zeros((7, len(y)), dtype=int)
    for t, rows in enumerate(rf.estimators_samples_):
        for i in rows:
            bag[t, i] += 1
    _, slow = _slow_tree_members(rf, X)
    ref = strength_oob(np.searchsorted(rf.classes_, slow).tolist(),
                       np.searchsorted(rf.classes_, y).tolist(), 3, bag.tolist())
    got = A.oob_strength_correlation(rf, X, y)
    assert float(got.strength) == pytest.approx(ref["strength"])
    assert float(got.correlation) == pytest.approx(ref["correlation"])
    ds = diagnose(rf, X[:30], y[:30], X_train=X, y_train=y)
    assert float(ds.oob_strength) == pytest.approx(ref["strength"])


def test_members_that_are_pipelines_are_read_whole():
    # a Pipeline is sized and indexable: reading estimators_ through np.asarray split each
    # member into its steps, so bagged pipelines on 3 of 6 columns were refused ("X has 6
    # features, but ... (StandardScaler) is expecting 3") and their out-of-bag estimate
    # checked step t + 1 against member t's bag ("not the training labels")
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = _data(["a", "b", "c"], n=150)
    bag = BaggingClassifier(make_pipeline(StandardScaler(), DecisionTreeClassifier(
        max_depth=3, random_state=0)), n_estimators=6, max_features=0.5,
        bootstrap_features=True, max_samples=0.6, random_state=0).fit(X, y)
    got = member_outputs(bag, X[:40]).values
    slow = np.zeros_like(got)
    for t, (est, cols) in enumerate(zip(bag.estimators_, bag.estimators_features_,
                                        strict=True)):
        slow[t][:, est.classes_] = est.predict_proba(X[:40][:, cols])
    np.testing.assert_array_equal(got, slow)
    np.testing.assert_allclose(got.mean(axis=0), bag.predict_proba(X[:40]), atol=1e-15)
    in_bag = np.stack([np.bincount(r, minlength=150) for r in bag.estimators_samples_])
    labels = [est.predict(X[:, cols]).tolist() for est, cols in
              zip(bag.estimators_, bag.estimators_features_, strict=True)]
    ref = strength_oob(labels, np.searchsorted(bag.classes_, y).tolist(), 3, in_bag.tolist())
    oob = A.oob_strength_correlation(bag, X, y)
    assert float(oob.strength) == pytest.approx(ref["strength"], abs=1e-12)
    assert float(oob.correlation) == pytest.approx(ref["correlation"], abs=1e-12)
    # voting over pipelines of equal length whose last steps read 3 and 2 components
    vote = VotingClassifier([("lr", make_pipeline(PCA(3), LogisticRegression())),
                             ("nb", make_pipeline(PCA(2), GaussianNB()))],
                            voting="soft").fit(X, y)
    got = member_outputs(vote, X[:40]).values
    np.testing.assert_array_equal(got, [est.predict_proba(X[:40]) for est in vote.estimators_])


def test_oob_of_members_that_saw_every_row_is_refused():
    # bootstrap=False trains every member on every row: the out-of-bag strength was NaN
    # from n_rows = 0 where a treelab ensemble without bootstrap is refused
    X, y = _data(["a", "b", "c"], n=90)
    for model in (ExtraTreesClassifier(n_estimators=4, random_state=0),
                  RandomForestClassifier(n_estimators=4, bootstrap=False, random_state=0),
                  BaggingClassifier(DecisionTreeClassifier(), n_estimators=4,
                                    bootstrap=False, random_state=0)):
        model.fit(X, y)
        with pytest.raises(ValueError, match=r"trained on every one of the 90 rows .* no row "
                                             r"is out of any bag"):
            A.oob_strength_correlation(model, X, y)
        # the diagnosis of test rows stands without the out-of-bag numbers
        ds = diagnose(model, X[:20], y[:20], X_train=X, y_train=y)
        assert not [name for name in ds.data_vars if name.startswith("oob_")]
    # a subsample without bootstrap leaves rows out: read
    sub = BaggingClassifier(DecisionTreeClassifier(), n_estimators=4, bootstrap=False,
                            max_samples=0.5, random_state=0).fit(X, y)
    assert int(A.oob_strength_correlation(sub, X, y).n_rows) > 0


def test_oob_rows_not_those_of_the_fit_are_refused():
    # estimators_samples_ holds row positions: the same rows shuffled once gave another
    # out-of-bag strength without a word; each tree's root now checks the in-bag labels
    X, y = _data(["a", "b", "c"], n=120)
    perm = np.random.default_rng(0).permutation(120)
    rf = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"estimators_\[0\]: its root's class shares .* y is "
                                         r"not the training labels"):
        A.oob_strength_correlation(rf, X[perm], y[perm])
    with pytest.raises(ValueError, match="not the training labels"):
        diagnose(rf, X[:30], y[:30], X_train=X[perm], y_train=y[perm])
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=5,
                            random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="not the training labels"):
        A.oob_strength_correlation(bag, X[perm], y[perm])
    A.oob_strength_correlation(bag, X, y)  # the rows of the fit pass
    # fitted with sample weights: checked with them
    w = np.random.default_rng(1).integers(1, 4, 120).astype(float)
    rfw = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=0).fit(
        X, y, sample_weight=w)
    got = A.oob_strength_correlation(rfw, X, y, sample_weight=w)
    bag_w = np.stack([np.bincount(r, minlength=120) for r in rfw.estimators_samples_])
    _, slow = _slow_tree_members(rfw, X)
    ref = strength_oob(np.searchsorted(rfw.classes_, slow).tolist(),
                       np.searchsorted(rfw.classes_, y).tolist(), 3, bag_w.tolist())
    assert float(got.strength) == pytest.approx(ref["strength"])
    # older scikit-learn releases fitted each tree on its counts times the weights: a forest
    # whose first tree was grown so is checked with the weights and refused without them
    old = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=0).fit(X, y)
    counts0 = np.bincount(old.estimators_samples_[0], minlength=120)
    # (estimators_samples_ replays each tree's random_state: the new tree keeps the old one's)
    seed0 = old.estimators_[0].random_state
    old.estimators_[0] = DecisionTreeClassifier(max_depth=3, random_state=seed0).fit(
        X, np.searchsorted(old.classes_, y), sample_weight=counts0 * w)
    A.oob_strength_correlation(old, X, y, sample_weight=w)
    with pytest.raises(ValueError, match="the sample_weight it was fitted with"):
        A.oob_strength_correlation(old, X, y)
    # class weights reweight the root's classes: not checked, still read
    rfc = RandomForestClassifier(n_estimators=7, max_depth=3, class_weight="balanced",
                                 random_state=0).fit(X, y)
    assert np.isfinite(float(A.oob_strength_correlation(rfc, X, y).strength))
    with pytest.raises(ValueError, match=r"labels the model was not fitted on \(\['z'\]\)"):
        A.oob_strength_correlation(rf, X, np.where(np.arange(120) == 5, "z", y))


def test_single_error_from_single():
    X, y = _data(["a", "b", "c"])
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[:180], y[:180])
    tree = DecisionTreeClassifier(random_state=0)
    ds = diagnose(rf, X[180:], y[180:], single=tree, X_train=X[:180], y_train=y[:180])
    e_s = np.mean(tree.fit(X[:180], y[:180]).predict(X[180:]) != y[180:])
    assert float(ds.single_error) == pytest.approx(e_s)
    assert float(diagnose(rf, X[180:], y[180:], single=0.25).single_error) == 0.25
    assert np.isnan(diagnose(rf, X[180:], y[180:]).single_error)


def test_bias_variance_diversity_of_models_matches_stacked_outputs():
    X, y = _data(["a", "b", "c"], n=300)
    rng = np.random.default_rng(0)
    models = [RandomForestClassifier(n_estimators=4, max_depth=3, random_state=k).fit(
        X[idx], y[idx]) for k in range(3) for idx in [rng.choice(200, 150)]]
    Xt, yt = X[200:], y[200:]
    Q = np.stack([_slow_tree_members(m, Xt)[0] for m in models])
    tau = np.searchsorted(models[0].classes_, yt)
    xr.testing.assert_allclose(A.bias_variance_diversity(models, yt, X=Xt).drop_attrs(),
                               A.bias_variance_diversity(Q, tau).drop_attrs())
    L = np.stack([_slow_tree_members(m, Xt)[1] for m in models])
    xr.testing.assert_allclose(
        A.bias_variance_diversity(models, yt, X=Xt, loss="zero_one").drop_attrs(),
        A.bias_variance_diversity(np.searchsorted(["a", "b", "c"], L), tau,
                                  loss="zero_one").drop_attrs())


def test_kappa_error_points_take_models():
    from treelab.plot import kappa_error_points

    X, y = _data(["a", "b", "c"])
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[:180], y[:180])
    et = ExtraTreesClassifier(n_estimators=4, random_state=0).fit(X[:180], y[:180])
    Xt, yt = X[180:], y[180:]
    got = kappa_error_points({"RF": rf, "ET": et}, X=Xt, y=yt)
    assert len(got) == 10 + 6
    # every point from the members' own predictions: scikit-learn's Cohen's kappa of the
    # two members' labels and the mean of their two error rates
    from sklearn.metrics import cohen_kappa_score

    rows = []
    for name, model in (("RF", rf), ("ET", et)):
        labels = [model.classes_[tree.predict(Xt).astype(int)] for tree in model.estimators_]
        errors = [np.mean(lab != yt) for lab in labels]
        for t in range(len(labels)):
            for k in range(t + 1, len(labels)):
                rows.append((name, t, k, cohen_kappa_score(labels[t], labels[k]),
                             (errors[t] + errors[k]) / 2))
    assert got[["ensemble", "tree", "tree_other"]].values.tolist() == [list(r[:3]) for r in rows]
    np.testing.assert_allclose(got["kappa"], [r[3] for r in rows], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["pair_error"], [r[4] for r in rows], rtol=0, atol=1e-15)


def test_explorer_takes_stacked_diagnoses_of_any_model():
    from treelab import VRTrees
    from treelab.plot import stack_results
    from treelab.widgets import SpectrumExplorer

    X, y = _data(["a", "b", "c"])
    Xtr, ytr, Xt, yt = X[:180], y[:180], X[180:], y[180:]
    runs = [diagnose(VRTrees(alpha=a, n_estimators=5, random_state=0).fit(Xtr, ytr), Xt, yt)
            for a in (0.0, 1.0)]
    rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(Xtr, ytr)
    runs.append(diagnose(rf, Xt, yt, label="sklearn RF"))
    stacked = stack_results(runs)
    assert "sklearn RF" in stacked.ensemble.values
    got = stacked.ensemble_error.sel(ensemble="sklearn RF").dropna("alpha").values
    assert got.tolist() == [np.mean(rf.predict(Xt) != yt)]
    SpectrumExplorer(stacked)  # draws without error


def test_refusals():
    X, y = _data(["a", "b", "c"])
    with pytest.raises(TypeError, match="not fitted"):
        diagnose(RandomForestClassifier(), X, y)
    rf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="kind"):
        member_outputs(rf, X, kind="votes")
    with pytest.raises(TypeError, match="X"):
        member_outputs(rf)
    with pytest.raises(ValueError, match="combine"):
        diagnose(rf, X, y, combine="vote")
    with pytest.raises(ValueError, match="features"):
        member_outputs(rf, X[:, :3])
    with pytest.raises(TypeError, match="element 1"):
        diagnose([rf, GaussianNB()], X, y, combine="vote")


def test_member_outputs_round_trip_through_the_measures():
    """A DataArray from member_outputs carries its classes: integer labels 3, 7, 11 read
    back as labels, not as codes, and diagnose of the outputs equals diagnose of the model."""
    X, y = _data([3, 7, 11])
    rf = RandomForestClassifier(n_estimators=7, max_depth=3, random_state=0).fit(X[:180],
                                                                                y[:180])
    Xt, yt = X[180:], y[180:]
    proba = member_outputs(rf, Xt)
    labels = member_outputs(rf, Xt, kind="labels")
    from_model = diagnose(rf, Xt, yt)
    from_outputs = diagnose(proba, None, yt, combine="average")
    for var in ("ensemble_error", "phi_e", "strength", "member_error", "class_error"):
        np.testing.assert_array_equal(from_outputs[var].values, from_model[var].values)
    np.testing.assert_array_equal(from_outputs["class"].values, [3, 7, 11])
    xr.testing.assert_allclose(A.margins(labels, yt).drop_attrs(),
                               A.margins(rf, yt, X=Xt).drop_attrs())
    assert float(A.errors(labels, yt).ensemble_error) == pytest.approx(
        float(A.errors(np.searchsorted([3, 7, 11], labels.values),
                       np.searchsorted([3, 7, 11], yt)).ensemble_error))


def test_forest_fitted_on_a_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = _data(["a", "b", "c"])
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    rf = RandomForestClassifier(n_estimators=4, random_state=0).fit(frame[:180], y[:180])
    proba, _ = _slow_tree_members(rf, frame[180:].to_numpy())  # trees know no names
    np.testing.assert_array_equal(member_outputs(rf, frame[180:]).values, proba)
    assert float(diagnose(rf, frame[180:], y[180:]).ensemble_error) == np.mean(
        rf.predict(frame[180:]) != y[180:])


def test_probability_measures_read_labels_from_the_class_coordinate():
    P = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6], [0.3, 0.3, 0.4]])
    y_text = np.array(["a", "c", "c", "b"])
    y_int = np.array([3, 11, 11, 7])
    codes = np.array([0, 2, 2, 1])
    for labels, y in ((["a", "b", "c"], y_text), ([3, 7, 11], y_int)):
        da = xr.DataArray(P, dims=("sample", "class"), coords={"class": labels})
        np.testing.assert_array_equal(A.topk_error(da, y, k=(1, 2)).values,
                                      A.topk_error(P, codes, k=(1, 2)).values)
        # top-1 by hand: rows 0 and 2 right, rows 1 and 3 wrong
        assert float(A.topk_error(da, y, k=1).squeeze()) == 0.5
        np.testing.assert_allclose(A.thresholded_mse(da, y).values,
                                   A.thresholded_mse(P, codes).values)
    with pytest.raises(TypeError, match="classes"):
        A.topk_error(P, y_text)  # plain columns: which label is which is unknown
