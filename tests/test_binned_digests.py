"""Binned forests (``max_bins``) grown before the binned kernel's speed work of 2026-11-26
(second round): the same forests, bit for bit, after it.

The digests were computed at commit b9f8388 (the kernel of the first round, itself checked
against the exact search on the bin codes in test_engine_binned_search and
test_engine_binning). They cover what the kernel's paths depend on: two to four classes, gini
and entropy, C4.5 trees (gain ratio, MDL penalty), missing values, sample weights, few and many
bins (byte-wide codes or not), more features than localized blocks hold, large nodes (the bin
walk) and small ones (the occupied list), mixed VR-Trees (random and deterministic nodes).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_random_growth import _digest, _digest_data

import treelab


def _data(n, d, classes, nan_frac, seed, dup=False, nominal=()):
    X, y = _digest_data(n, d, classes, nan_frac, dup, seed)
    rng = np.random.default_rng(seed)
    for f in nominal:
        X[:, f] = rng.integers(0, 5, X.shape[0]).astype(float)
    return X, y


CASES = {
    "rf-2class-gini": ((20000, 20, 2, 0.0, 0), lambda: treelab.RandomForest(
        n_estimators=4, random_state=0, max_bins=256), False,
        "9e6d194ad966d0c4", 9262),
    "rf-3class-entropy": ((8000, 12, 3, 0.0, 1), lambda: treelab.RandomForest(
        n_estimators=4, criterion="entropy", random_state=1, max_bins=256), False,
        "8d55916244a04113", 4356),
    "rf-4class-missing": ((6000, 10, 4, 0.05, 2), lambda: treelab.RandomForest(
        n_estimators=4, random_state=2, max_bins=64), False, "5741e92321d6d0ea", 5102),
    "rf-2class-missing-256": ((6000, 10, 2, 0.03, 3), lambda: treelab.RandomForest(
        n_estimators=4, random_state=3, max_bins=256), False, "bf66dd4a00f95c83", 1782),
    "rf-weights": ((5000, 8, 3, 0.0, 4), lambda: treelab.RandomForest(
        n_estimators=4, random_state=4, max_bins=128, min_samples_leaf=2), True,
        "159a6decb66e27ce", 2394),
    "rf-many-features": ((3000, 150, 2, 0.0, 5), lambda: treelab.RandomForest(
        n_estimators=3, random_state=5, max_bins=256), False, "02212d21e9cbcbe5", 1591),
    "rf-1000-bins": ((6000, 8, 2, 0.0, 6), lambda: treelab.RandomForest(
        n_estimators=3, random_state=6, max_bins=1000), False, "9dce352db6e40d49", 1163),
    "c45-tree": ((4000, 10, 3, 0.02, 7), lambda: treelab.DecisionTree(max_bins=32), False,
                 "b2a617382c9de34d", 561),
    "vrtrees-mixed": ((5000, 12, 2, 0.0, 8, True), lambda: treelab.VRTrees(
        n_estimators=4, alpha=0.5, sampling="bootstrap+subspace", random_state=8,
        max_bins=256), False, "24f71d5b9b6763a0", 3144),
    "bagged-entropy": ((4000, 10, 4, 0.0, 9), lambda: treelab.BaggedTrees(
        n_estimators=3, criterion="entropy", c45=False, random_state=9, max_bins=256), True,
        "01a60df903390b63", 1987),
    # more features than localized blocks hold, so small nodes gather their candidates'
    # codes from the row-major byte copy (digests computed at be88791, before it existed):
    # missing values, weights and entropy, 256 bins with missing values (no byte-wide copy),
    # random and deterministic nodes, every feature a candidate, nominal features
    "rf-wide-3class-missing": ((6000, 200, 3, 0.03, 10), lambda: treelab.RandomForest(
        n_estimators=3, random_state=10, max_bins=64), False, "82ca95e6715b5ad8", 4157),
    "rf-wide-weights-entropy": ((5000, 160, 2, 0.0, 11), lambda: treelab.RandomForest(
        n_estimators=3, criterion="entropy", random_state=11, max_bins=255,
        min_samples_leaf=2), True, "57757bfe6c52571b", 1469),
    "rf-wide-missing-256": ((4000, 140, 2, 0.02, 12), lambda: treelab.RandomForest(
        n_estimators=3, random_state=12, max_bins=256), False, "161e86772482d3f3", 2021),
    "vrtrees-wide-mixed": ((4000, 150, 2, 0.0, 13, True), lambda: treelab.VRTrees(
        n_estimators=3, alpha=0.5, random_state=13, max_bins=128), False,
        "65c538ef2d06a286", 1717),
    "bagged-wide-all-features": ((3000, 140, 4, 0.01, 14), lambda: treelab.BaggedTrees(
        n_estimators=2, random_state=14, max_bins=200), False, "0fa80b6ab9b54873", 730),
    "rf-wide-nominal": ((3000, 140, 3, 0.02, 15, False, (3, 70, 133)),
                        lambda: treelab.RandomForest(n_estimators=3, random_state=15,
                                                     max_bins=100,
                                                     categorical_features=[3, 70, 133]),
                        False, "6e44e59b69b20f59", 2275),
}


@pytest.mark.parametrize("name", list(CASES))
def test_binned_forests_match_those_grown_before(name):
    data, make, weighted, digest, n_nodes = CASES[name]
    X, y = _data(*data)
    kw = {}
    if weighted:
        kw["sample_weight"] = np.random.default_rng(data[-1]).integers(0, 4, size=len(y))
    fr = make().fit(X, y, **kw).forest_
    assert (int(fr.node_offsets[-1]), _digest(fr)) == (n_nodes, digest)
