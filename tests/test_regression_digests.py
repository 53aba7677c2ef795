"""Regression fits on continuous data without missing values, bit for bit as the growth routine
grew them before nominal features and missing values were grown: SHA-256 digests of every
node array, recorded from that routine (commit d13f722) on a grid of settings (criteria,
constructions, alpha, Extra-Trees and random split rules, bins, presorted lists, sample
weights, depth and leaf limits)."""

import hashlib

import numpy as np
import pytest
from sklearn.datasets import make_friedman1

import treelab

FIELDS = ("kind", "feature", "threshold", "child_start", "n_children", "nan_child", "random",
          "depth", "counts", "value", "weight", "n_decision", "rows_seen")


def _data(n=700, d=6, seed=0):
    X, y = make_friedman1(n, n_features=d, random_state=seed)
    # ties: a few columns rounded, so that equal values and equal splits occur
    X[:, 1] = np.round(X[:, 1], 1)
    X[:, 3] = np.round(X[:, 3] * 300)  # > 256 distinct values: presorted lists
    X[:, 4] = np.round(X[:, 4], 2)
    return X, y


def _weights(n, seed=1):
    w = np.random.default_rng(seed).uniform(0.2, 3.0, n)
    w[::17] = 0.0
    return w


def _grid():
    R = treelab
    yield "tree", R.RegressionTree(random_state=0), False
    yield "tree_poisson", R.RegressionTree(criterion="poisson", max_depth=6), False
    yield "tree_leaf5_depth7", R.RegressionTree(min_samples_leaf=5, max_depth=7,
                                                 min_samples_split=11), False
    yield "tree_mf3_w", R.RegressionTree(max_features=3, random_state=4), True
    yield "tree_bins", R.RegressionTree(max_bins=16), False
    yield "vr_half", R.VRTreesRegressor(n_estimators=6, alpha=0.5, random_state=1), False
    yield "vr_boot_sub_w", R.VRTreesRegressor(n_estimators=5, alpha=0.7,
                                              sampling="bootstrap+subspace", random_state=2), True
    yield "vr_uniform", R.VRTreesRegressor(n_estimators=4, alpha=0.3, random_split="uniform",
                                           random_state=3), False
    yield "vr_distinct_bins", R.VRTreesRegressor(n_estimators=4, alpha=0.8,
                                                 random_split="pair_distinct", max_bins=32,
                                                 random_state=5), False
    yield "coalescence", R.CoalescenceRegressor(n_estimators=5, random_state=6), False
    yield "maxdiverse_w", R.MaxDiverseRegressor(n_estimators=4, random_state=7), True
    yield "rd", R.RandomDecisionTreesRegressor(n_estimators=4, random_state=8), False
    yield "rf", R.RandomForestRegressor(n_estimators=5, random_state=9), False
    yield "rf_poisson_bins", R.RandomForestRegressor(n_estimators=4, criterion="poisson",
                                                     max_bins=24, random_state=10), False
    yield "extra", R.ExtraTreesRegressor(n_estimators=5, random_state=11), False
    yield "extra_w", R.ExtraTreesRegressor(n_estimators=3, min_samples_leaf=3,
                                           random_state=12), True
    yield "bagged", R.BaggedTreesRegressor(n_estimators=4, random_state=13), False
    yield "disjoint_w", R.DisjointSampleTreesRegressor(n_estimators=4, random_state=14), True


# recorded from the routine before nominal features and missing values (d13f722)
DIGESTS = {
    "tree": "ce20310cfe3d5310c87a276afd99e0761ff20c15713ab5e81d4b3aaeafa51a01",
    "tree_poisson": "f2e69077599ac1e9ddf94e184dcab5c68cbe1bf1dc57dc5655675d70b2b1cca6",
    "tree_leaf5_depth7": "70074b4a1ab9936a5d75329a8d7ba5b160120bf30e26ea93b594c01cc660724b",
    "tree_mf3_w": "a9777ba41f208208cab8fad45a2332677b55f0abee036a22f6294f56def71196",
    "tree_bins": "f789a8bf0e5097a44f83eb502913ede8efdfd195cb0d5a89c4e1ec7ac8bbb61a",
    "vr_half": "a5270d27c41974e4216e9de4dff5f5afc41874d7d9b0ba3d6751ae8d9b954c2f",
    "vr_boot_sub_w": "79468aecfbc7904aa3911afe132b330533619e802b1269f1423f0b5331eb4e1f",
    "vr_uniform": "592bec1d79856c1c45ebe325d4931a7f2078373f420f400eaa4629920da1ca78",
    "vr_distinct_bins": "3137ab61189f525d2806fed0e8fb4ac864ec98fd152c21b22231945a79d8fc40",
    "coalescence": "07220d50c82ffa8b19f880cea9a7c26f408f98cab59d96f2ee2e814e5c3147d3",
    "maxdiverse_w": "fb97fa5263f30f5cd6442a1a30915563e77a9fd43f51c271bc178db337af8c21",
    "rd": "cd78b678f97d656a7e47ee759a78d4f3f945aa093196897d812147bfc440de1f",
    "rf": "d5941d19db078a0df3a32f84bc9091c946c25585d60264cc78b9e478a650f754",
    "rf_poisson_bins": "ff6220284aa9a295905ac754eb2185aaaa3f44e3d57a5839e396dfe365f84257",
    "extra": "0dec02ad9f9449e3a162518a9295d49b52d44ce0c24369ab94e0548956a46d8c",
    "extra_w": "dff030777a55063fdb57f59b02afd6d41a3fa4467a5cc14d7f744b6718d95688",
    "bagged": "6af5ba1b65a9366dfb144190625ff8f253380ee59df329fe8f8a4253c69f326c",
    "disjoint_w": "ade63001028740fb2e910b0c6e873ef591a18fe234af18d1ef25280f12618140",
}


def _digest(forest) -> str:
    h = hashlib.sha256()
    for name in FIELDS:
        a = np.ascontiguousarray(getattr(forest, name))
        h.update(name.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def fit_digests(data=None) -> dict:
    """The digest of every fit of the grid on ``data()`` (default: ``_data``)."""
    X, y = (data or _data)()
    out = {}
    for name, est, weighted in _grid():
        sw = _weights(X.shape[0]) if weighted else None
        out[name] = _digest(est.fit(X, y, sample_weight=sw).forest_)
    return out


@pytest.fixture(scope="module")
def digests():
    return fit_digests()


@pytest.mark.parametrize("name", [g[0] for g in _grid()])
def test_fit_is_bit_identical_to_the_recorded_routine(name, digests):
    assert digests[name] == DIGESTS[name]


if __name__ == "__main__":  # prints the digests (recorded once, from the routine named above)
    for k, v in fit_digests().items():
        print(f'    "{k}": "{v}",')
