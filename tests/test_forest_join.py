"""A forest's node arrays joined in one copy (small forests) or tree by tree with the freed
memory handed back on the way (large ones) are the same arrays."""

import numpy as np
import pytest

import treelab
import treelab.engine.forest as F
from treelab.engine.forest import Forest


@pytest.mark.parametrize("params", [{"alpha": 0.0}, {"alpha": 0.6, "sampling": "bootstrap"},
                                    {"alpha": 1.0, "sampling": "subspace"}])
def test_small_and_large_joins_give_the_same_forest(params, monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 1)
    one_copy = treelab.VRTrees(n_estimators=12, random_state=2, **params).fit(X, y).forest_
    assert one_copy.kind.nbytes < F.JOIN_TRIM_BYTES  # the one-copy join ran
    monkeypatch.setattr(F, "JOIN_TRIM_BYTES", 1)  # every forest joined tree by tree
    by_tree = treelab.VRTrees(n_estimators=12, random_state=2, **params).fit(X, y).forest_
    for name in Forest._fields:
        a, b = getattr(one_copy, name), getattr(by_tree, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert a.tobytes() == b.tobytes(), name
    # each tree's nodes where its offsets say
    sizes = np.diff(one_copy.node_offsets)
    assert sizes.sum() == one_copy.kind.shape[0] and (sizes > 0).all()
