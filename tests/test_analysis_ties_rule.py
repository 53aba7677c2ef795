"""One tie rule: diagnose's ensemble error is the error of the estimator's predict."""

import numpy as np
import pytest

from treelab import BaggedTrees, VRTrees
from treelab.analysis import diagnose

COMBINES = ("average", "vote", "sum", "likelihood", "bayesian")


def _tied_problem(seed):
    # few distinct rows and balanced labels: leaves hold equal counts, and an even number of
    # trees splits its votes, so predictions are decided by the tie rule on many rows
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(40, 2)).astype(float)
    y = np.array(["b", "a", "c", "a"] * 10, dtype=object)
    return X, y


@pytest.mark.parametrize("combine", COMBINES)
@pytest.mark.parametrize("make", [VRTrees, BaggedTrees])
def test_ensemble_error_is_predict_error(combine, make):
    X, y = _tied_problem(3)
    kwargs = {"alpha": 0.5} if make is VRTrees else {}
    for n in (2, 4):
        est = make(n_estimators=n, combine=combine, random_state=1, **kwargs).fit(X, y)
        ds = diagnose(est, X, y)
        expected = np.mean(est.predict(X) != y)  # 1 - accuracy
        assert float(ds.ensemble_error) == expected
        if combine == "vote":
            # the uniform-voting arrangement error uses the same rule
            assert float(ds.observed_error) == expected


def test_ties_occur():
    # the problem above does produce ties: two trees that disagree split the vote 1:1, and
    # leaf estimates of repeated rows tie between classes
    X, y = _tied_problem(3)
    est = BaggedTrees(n_estimators=2, combine="vote", random_state=1).fit(X, y)
    labels = est.member_predict(X)
    assert np.any(labels[0] != labels[1])
    p = est.member_proba(X)
    top = np.sort(p, axis=2)
    assert np.any(top[:, :, -1] == top[:, :, -2])


def _exact_highest(counts):
    """The first class of the highest mean leaf frequency, in exact fractions of the counts."""
    from fractions import Fraction

    out = []
    for i in range(counts.shape[1]):
        means = [sum((Fraction(int(counts[t, i, c]), int(counts[t, i].sum()))
                      for t in range(counts.shape[0])), Fraction(0))
                 for c in range(counts.shape[2])]
        out.append(means.index(max(means)))
    return np.array(out)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_average_ties_are_decided_by_the_lower_class_not_by_rounding(n_classes):
    # bagged trees on few distinct rows: many rows' mean leaf frequencies tie exactly, and
    # rounding made 0.49999999999999994 of one class and 0.5 of the other: predict and
    # diagnose answered the second class on such rows (11 of 140 tied rows here)
    tied_rows = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(80, 200))
        X = rng.integers(0, 3, size=(n, 6)).astype(float)
        y = rng.integers(0, n_classes, n)
        est = VRTrees(n_estimators=10, alpha=0.8, sampling="bootstrap",
                      random_state=seed).fit(X, y)
        counts = np.asarray(est.member_counts(X))
        assert np.all(counts == np.round(counts))  # unweighted: whole counts
        want = _exact_highest(counts)
        np.testing.assert_array_equal(est.predict(X), est.classes_[want])
        ds = diagnose(est, X, y)
        assert float(ds.ensemble_error) == np.mean(est.classes_[want] != y)
        p = est.predict_proba(X)
        tied_rows += int(np.sum(np.sort(p, axis=1)[:, -1] - np.sort(p, axis=1)[:, -2] < 1e-9))
    assert tied_rows > 20


def test_a_pools_average_ties_are_decided_by_the_lower_class():
    from sklearn.dummy import DummyClassifier

    # three members answering 2/3, 1/2 and 1/3 for class 0: the mean is 1/2 for both classes
    # in exact arithmetic, but in floats class 0's sum is 1.4999999999999998 and class 1's
    # 1.5, so the bare argmax answered class 1
    members = [DummyClassifier(strategy="prior").fit([[0]] * n, [0] * a + [1] * (n - a))
               for a, n in ((2, 3), (5, 10), (1, 3))]
    proba = np.array([m.predict_proba([[0]])[0] for m in members])
    assert proba[:, 0].sum() < proba[:, 1].sum()  # the rounding this test is about
    ds = diagnose(members, np.zeros((1, 1)), np.array([0]), combine="average")
    assert float(ds.ensemble_error) == 0.0  # the tie goes to class 0
