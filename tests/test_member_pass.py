"""A treelab ensemble's one-walk member pass (``_member_pass``: each tree's vote and the
summed class frequencies) against what ``diagnose`` derives from ``member_counts``, bit for
bit, and against a plain NumPy reading of the counts."""

from __future__ import annotations

import numpy as np
import pytest

from treelab.analysis._diagnose_inputs import _treelab_pass
from treelab.estimators.ensembles import RandomForest, VRTrees


def _data(n, n_features, n_classes, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] * 2 + rng.normal(size=n) * 1.5).round().astype(int) % n_classes
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


CASES = {
    "two-classes": (VRTrees, {"alpha": 0.5}, 2, 0.0),
    "three-classes-curtailed": (VRTrees, {"alpha": 0.0, "curtail_min": 6}, 3, 0.0),
    "many-classes-bagged": (VRTrees, {"alpha": 0.8, "sampling": "bootstrap"}, 11, 0.0),
    "missing-values": (VRTrees, {"alpha": 0.3, "curtail_min": 1}, 4, 0.1),
    "random-forest": (RandomForest, {}, 5, 0.0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_member_pass_is_diagnose_reading_of_member_counts(case):
    cls, params, n_classes, missing = CASES[case]
    X, y = _data(400, 5, n_classes, len(case), missing)
    est = cls(n_estimators=15, random_state=3, **params).fit(X[:300], y[:300])
    Xt = X[300:]
    counts = est.member_counts(Xt)
    want_labels, want_summed = _treelab_pass(est, Xt, Xt.shape[0], est.classes_.size, counts)
    labels, summed = est._member_pass(Xt)
    assert labels.dtype == want_labels.dtype and labels.tobytes() == want_labels.tobytes()
    assert summed.tobytes() == want_summed.tobytes()
    # and what the pass means, independently: first class of most counts; row frequencies
    # (uniform for an empty node) summed over the trees
    assert (labels == np.argmax(counts, axis=2)).all()
    tot = counts.sum(axis=2, keepdims=True)
    freq = np.where(tot > 0, counts / np.where(tot > 0, tot, 1), 1.0 / est.classes_.size)
    np.testing.assert_allclose(summed, freq.sum(axis=0), rtol=1e-12)


def test_member_pass_refused_where_it_does_not_match():
    from treelab.analysis.diagnose import diagnose_parts

    X, y = _data(200, 4, 3, 0)
    est = VRTrees(n_estimators=5, random_state=0).fit(X[:150], y[:150])
    labels, summed = est._member_pass(X[150:])
    with pytest.raises(ValueError, match="member_pass"):
        diagnose_parts(est, X[150:190], y[150:190], member_pass=(labels, summed))
