"""What every new learner shares: determinism across threads, member outputs, pickling."""

import pickle
import warnings

import numpy as np
import pytest

import treelab
from treelab.engine.forest import Forest

FACTORIES = {
    "StochasticID3": lambda nj: treelab.StochasticID3(n_estimators=6, random_state=7, n_jobs=nj),
    "PERT": lambda nj: treelab.PERT(n_estimators=8, random_state=7, n_jobs=nj),
    "BaggedMMDT": lambda nj: treelab.BaggedMMDT(n_estimators=8, random_state=7, n_jobs=nj),
    "BaggedCVDT": lambda nj: treelab.BaggedCVDT(
        n_estimators=6, candidates=("entropy_tree", "mmdt", "random_tree"), random_state=7,
        n_jobs=nj),
    "RotationForest": lambda nj: treelab.RotationForest(n_estimators=8, random_state=7,
                                                        n_jobs=nj),
    "RotationForest-pca": lambda nj: treelab.RotationForest(n_estimators=8, rotation="pca",
                                                            random_state=7, n_jobs=nj),
}


def assert_forests_identical(a: Forest, b: Forest):
    for name in Forest._fields:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        assert x.tobytes() == y.tobytes(), name


def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    X[rng.random(X.shape) < 0.05] = np.nan
    X[:, 4] = rng.integers(0, 3, size=300)
    y = (np.nan_to_num(X[:, 0]) + X[:, 4] + rng.normal(size=300) > 1).astype(int)
    y[rng.random(300) < 0.1] = 2
    return X, y


@pytest.mark.parametrize("name", list(FACTORIES))
def test_n_jobs_does_not_change_the_forest(name):
    X, y = data()
    a = FACTORIES[name](1).set_params(categorical_features=[4]).fit(X, y)
    b = FACTORIES[name](2).set_params(categorical_features=[4]).fit(X, y)
    assert_forests_identical(a.forest_, b.forest_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = FACTORIES[name](2).set_params(categorical_features=[4]).fit(X, y)
    assert_forests_identical(b.forest_, c.forest_)


@pytest.mark.parametrize("name", list(FACTORIES))
def test_member_outputs_apply_and_pickle(name):
    X, y = data()
    est = FACTORIES[name](1).set_params(categorical_features=[4]).fit(X, y)
    T = est.forest_.n_trees
    member = est.member_proba(X[:50])
    assert member.shape == (T, 50, 3)
    np.testing.assert_allclose(member.sum(axis=2), 1.0)
    labels = est.member_predict(X[:50])
    np.testing.assert_array_equal(labels, est.classes_[np.argmax(member, axis=2)])
    leaves = est.apply(X[:50])
    assert leaves.shape == (50, T)
    kinds = est.forest_.kind[est.forest_.node_offsets[:-1] + leaves]
    assert (kinds == 0).all()
    stats = est.tree_stats()
    assert stats.sizes["tree"] == T
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict_proba(X), est.predict_proba(X))


def test_axis_aligned_forests_keep_an_empty_projection_array():
    X, y = data()
    fr = treelab.RandomForest(n_estimators=3, random_state=0).fit(X, y).forest_
    assert fr.projections.shape == (0, 0)
    assert not (fr.kind == 3).any()


@pytest.mark.parametrize("make", [
    lambda: treelab.BaggedMMDT(n_estimators=0),
    lambda: treelab.BaggedCVDT(n_estimators=-1),
    lambda: treelab.RotationForest(n_estimators=0),
    lambda: treelab.PERT(n_estimators=0),
])
def test_bad_n_estimators(make):
    X, y = data()
    with pytest.raises(ValueError, match="n_estimators"):
        make().fit(X, y)


LEARNERS = [getattr(treelab, name) for name in treelab.estimators.__all__
            if name != "TreeEnsembleClassifier"]


def test_every_learner_is_listed():
    assert len(LEARNERS) == 26  # 16 classifiers, 10 regressors


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_a_wrong_argument_names_the_learner_itself(cls):
    # MaxDiverseEnsemble and ExtraTrees have no __init__ of their own: Python named their
    # private base class (_VRFamily, _DeterministicEnsemble)
    with pytest.raises(TypeError, match=rf"^{cls.__name__}\(\) got an unexpected keyword "
                                        r"argument 'no_such_option'") as info:
        cls(no_such_option=1)
    assert "_" + "VRFamily" not in str(info.value)
    with pytest.raises(TypeError, match=rf"^{cls.__name__}\(\) takes keyword arguments only"):
        cls(3)
    if "n_estimators" in cls._get_param_names():
        with pytest.raises(TypeError, match="did you mean 'n_estimators'"):
            cls(n_estimator=3)
    assert cls(**cls().get_params()).get_params() == cls().get_params()


def test_max_diverse_ensemble_class_weight_names_the_public_class():
    with pytest.raises(TypeError, match=r"^MaxDiverseEnsemble\(\) got an unexpected keyword "
                                        r"argument 'class_weight'"):
        treelab.MaxDiverseEnsemble(class_weight="balanced")


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("weight", [
    np.full(12, 1 + 0j), np.full(12, 1 + 1j), 1 + 0j, np.array([1] * 11 + [2j], dtype=object),
], ids=["complex-real", "complex", "complex-scalar", "object-complex"])
def test_complex_sample_weight_is_refused_as_scikit_learn_does(cls, weight):
    X = np.arange(24, dtype=float).reshape(12, 2)
    y = np.arange(12) % 2
    with pytest.raises(ValueError, match="complex"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)
            cls().fit(X, y, sample_weight=weight)
