"""VR-Trees of the exact search (no ``max_bins``) grown before the speed work of 2026-11-26
(issue 28, item 3, third round): the same forests, bit for bit, after it.

The digests were computed at commit be88791, before that round. The cases cover what the
round touched: nodes that sort their keys (wide rank ranges: by insertion up to 48 keys, by
radix passes beyond), node arrays that grow while the tree is grown (large trees from a small
first guess), nominal features with many values (the widest split sets the room kept for
children), localized subtrees, presorted lists (alpha >= 0.5), random and deterministic nodes
mixed, bagging and subspaces, two to eleven classes, missing values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers_trees import children, tree_nodes
from test_random_growth import _digest, _digest_data

import treelab


def _data(n, d, classes, nan_frac, seed, nominal=0, dup=False):
    X, y = _digest_data(n, d, classes, nan_frac, dup, seed)
    if not nominal:
        return X, y
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(d)])
    rng = np.random.default_rng(seed)
    for j in range(nominal):
        # a code that follows the class half of the time: chosen at some nodes
        code = np.where(rng.random(n) < 0.5, y % (3 + 4 * j), rng.integers(0, 3 + 4 * j, n))
        df[f"g{j}"] = pd.Categorical(code)
    return df, y


CASES = {
    "bag-2class-half": ((6000, 10, 2, 0.0, 0), dict(
        alpha=0.5, sampling="bootstrap"), "f924e5cf1841ca6e", 2934),
    "agg-3class-mid": ((5000, 8, 3, 0.02, 1), dict(alpha=0.3), "749464cedb85a5b4", 3076),
    "subspace-5class": ((4000, 12, 5, 0.0, 2), dict(
        alpha=0.7, sampling="subspace"), "fda759c49738ace9", 5876),
    "bag-11class-det": ((3000, 10, 11, 0.0, 3), dict(
        alpha=1.0, sampling="bootstrap"), "1d635c6615da233e", 3334),
    "nominal-mixed": ((5000, 6, 3, 0.03, 4, 2), dict(
        alpha=0.6, sampling="bootstrap"), "b3a8a5aa6c85516d", 3322),
    "nominal-det": ((3000, 5, 2, 0.0, 5, 3), dict(alpha=1.0), "d376a3d245efda12", 492),
    "bag-subspace-low": ((6000, 16, 4, 0.0, 6), dict(
        alpha=0.1, sampling="bootstrap+subspace"), "3bc608984782fcd6", 17232),
}


@pytest.mark.parametrize("name", list(CASES))
def test_regression_guard_exact_forests_match_those_grown_before(name):
    """A regression guard (treelab against its own earlier forests); the independent check of
    the same forests is the test below."""
    data, kw, digest, n_nodes = CASES[name]
    X, y = _data(*data)
    fr = treelab.VRTrees(n_estimators=4, random_state=data[4], **kw).fit(X, y).forest_
    assert (int(fr.node_offsets[-1]), _digest(fr)) == (n_nodes, digest)


@pytest.mark.parametrize("name", [n for n, case in CASES.items() if "sampling" not in case[1]])
def test_exact_forests_hold_the_rows_a_walk_sends_to_each_node(name):
    """The cases grown on every row, checked without the engine: a walk of the training rows
    down each tree, node by node in NumPy (x > threshold to the second child, a nominal code
    to its child, missing values to the node's nan child), reaches every node and finds there
    the class counts the node holds."""
    data, kw, _, n_nodes = CASES[name]
    X, y = _data(*data)
    est = treelab.VRTrees(n_estimators=4, random_state=data[4], **kw).fit(X, y)
    fr = est.forest_
    assert int(fr.node_offsets[-1]) == n_nodes
    Xv = est._encode_predict(X)
    n_classes = len(est.classes_)
    codes = np.searchsorted(est.classes_, y)
    for t in range(fr.n_trees):
        nodes = tree_nodes(fr, t)
        stack = [(0, np.arange(len(y)))]
        visited = 0
        while stack:
            i, rows = stack.pop()
            visited += 1
            np.testing.assert_array_equal(nodes["counts"][i],
                                          np.bincount(codes[rows], minlength=n_classes))
            if nodes["kind"][i] == 0:
                continue
            x = Xv[rows, nodes["feature"][i]]
            if nodes["kind"][i] == 1:
                branch = (x > nodes["threshold"][i]).astype(int)
            else:
                branch = np.nan_to_num(x).astype(int)
            branch[np.isnan(x)] = nodes["nan_child"][i]
            for b, c in enumerate(children(nodes, i)):
                stack.append((c, rows[branch == b]))
        assert visited == len(nodes["kind"])
