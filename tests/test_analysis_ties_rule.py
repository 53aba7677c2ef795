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
