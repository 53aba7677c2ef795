"""Regression fits on nominal and missing data, bit for bit as the regression trees grew them
before their node loop became the classifiers' (``grow_tree``): SHA-256 digests of every node
array on the grid of ``test_regression_digests`` (criteria, constructions, alpha, Extra-Trees
and random split rules, bins, presorted lists, sample weights with zeros, depth and leaf
limits), on data with two nominal features (one with missing codes) and missing values in
three continuous ones."""

import numpy as np
import pandas as pd
import pytest
from test_regression_digests import _grid, fit_digests

# recorded from the regression trees' own growth routine (commit 4d41937); the 13 fits
# that split a feature of one non-missing value apart from its missing rows (a node of
# theirs has such a split, the other 5 none) recorded again when that split became a
# candidate
DIGESTS = {
    "tree": "12592938e0c47018a63ac0d82989a546a17e26302f506528677bced128f35387",
    "tree_poisson": "00952d6d2ec53fe8087f33114f66e47db35128586aa241ceca84913b5ca8a203",
    "tree_leaf5_depth7": "a786d709f2023f5278c0a36335c1b1367dcf765b81cf8351e1146b5ad56185de",
    "tree_mf3_w": "46a8f66f45d0d214bb3a07b609ebf288a8274d4ac5d2f46266de4fe0ba82ab9c",
    "tree_bins": "45bf840a325217e8cc898023255c370cd0f63aa49cf7838fd338895b4e944f59",
    "vr_half": "3b7e60e998e86f5aff599aee4b8922c51b4e9311cd2f9d980a2fe07f60f9a968",
    "vr_boot_sub_w": "ff3460585abe15bb89c7b5f839f0f18b930016c1c09b5effa573f1002587cc40",
    "vr_uniform": "af991581991a61f0bbf886566f9b5f8253ca80fe9c4654dc66633bfb7d73515f",
    "vr_distinct_bins": "e7288a1338c1206653e6df9d4698ca138119b35321bcab2c3203efe4d93127db",
    "coalescence": "55bd72e873ee73018b8ff669c83e3117f859f4ad720e23a470ca5eb51de0ed71",
    "maxdiverse_w": "02c3b326050c015c1e293847f13e6a99c67299254d023b55edb1b9c9be3f2f27",
    "rd": "034b37e32d4ed990aa2e604bf2e1e4b3b6f200177f3fb0995c350cc2c1300990",
    "rf": "e10ae8e8d678f4278654a9fdb2c3bdf9371342c7d3c21937ed236cb8e66ac091",
    "rf_poisson_bins": "9fb804e593554c9dea161b153580f6992f639573c59deda9d7c36ea3e921bb93",
    "extra": "90b8e3c373dfd37a2e28e5393d2f90e66c8aa36e3a4dba0af47ca127b3d91dbf",
    "extra_w": "d55d9bdd8a38b0cd6779fbfb18813abc89bd3dfa3c19b4b125598b778eff3174",
    "bagged": "09efadc5dea3e050ba2fedd19ac446b05bc6953310960cf9d98a229c6b844eba",
    "disjoint_w": "7f935da06c4fac07addfc263873d787fc4bdda04dd624c7aad517b40a5b0cd17",
}


def _mixed(n=700, seed=0):
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n), 1)
    b = rng.integers(0, 5, n)
    c = rng.uniform(size=n)
    d = np.round(rng.uniform(0, 600, n))  # > 256 distinct values: presorted lists
    e = rng.integers(0, 3, n)
    y = (a + np.array([0.0, 2.0, -1.0, 1.0, 3.0])[b] + 2 * c + d / 300
         + np.array([0.5, -0.5, 0.0])[e] + rng.normal(scale=0.5, size=n))
    y = y - y.min() + 0.1  # positive, for the Poisson criterion
    a[rng.uniform(size=n) < 0.15] = np.nan
    c[rng.uniform(size=n) < 0.1] = np.nan
    d[rng.uniform(size=n) < 0.2] = np.nan
    b = np.where(rng.uniform(size=n) < 0.15, -1, b)
    frame = pd.DataFrame({
        "a": a, "b": pd.Categorical.from_codes(b, ["p", "q", "r", "s", "t"]), "c": c,
        "d": d, "e": pd.Categorical.from_codes(e, ["u", "v", "w"])})
    return frame, y


@pytest.fixture(scope="module")
def digests():
    return fit_digests(_mixed)


@pytest.mark.parametrize("name", [g[0] for g in _grid()])
def test_mixed_fit_is_bit_identical_to_the_recorded_routine(name, digests):
    assert digests[name] == DIGESTS[name]


if __name__ == "__main__":  # prints the digests (recorded once, from the routine named above)
    for k, v in fit_digests(_mixed).items():
        print(f'    "{k}": "{v}",')
