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

# recorded from the regression trees' own growth routine (commit 4d41937)
DIGESTS = {
    "tree": "c532bcda96e530a72b646dc846ef0d9ab115ea5c645a7bc16030174946635e1d",
    "tree_poisson": "54ab466f808bc468829e79e0ff03a3719f52a75823c79719ac35060b77221140",
    "tree_leaf5_depth7": "a786d709f2023f5278c0a36335c1b1367dcf765b81cf8351e1146b5ad56185de",
    "tree_mf3_w": "733cd73dcde0fec3069535d309c4bbd489a7f93cc13d875090e2dd49b3eba6cd",
    "tree_bins": "7299e8ae26f98fd9c662a25d506f09b5d43680c15355074b0d7de156d532050c",
    "vr_half": "529787cf08bfe73007679e5a833dfd874f7c593fef557091e8f00218030a4a10",
    "vr_boot_sub_w": "e7f08c3d9b5f2e6cc739e19e5320bf0d5597cd414927d54fe1b76b6ecef338fe",
    "vr_uniform": "7123fdc84cd04f0587593c599e41d193ff3adcf549d9898ab7b68374f422caf5",
    "vr_distinct_bins": "a560377ec8a458203644325855d7d60dba5bef291fe5931a3898711c80a76c8e",
    "coalescence": "96dae6f29f444e0e545dd1272e978dc44ef63a97655c85bee2a76630a3af627f",
    "maxdiverse_w": "02c3b326050c015c1e293847f13e6a99c67299254d023b55edb1b9c9be3f2f27",
    "rd": "034b37e32d4ed990aa2e604bf2e1e4b3b6f200177f3fb0995c350cc2c1300990",
    "rf": "76f7031c8f98d924a4cba8ddde32145f1df4301e16988c04083a53fab2f4e473",
    "rf_poisson_bins": "401dee40cc40033dfd95ba1fb8de0b443328acd82c60b63edc8e876a8052fbed",
    "extra": "90b8e3c373dfd37a2e28e5393d2f90e66c8aa36e3a4dba0af47ca127b3d91dbf",
    "extra_w": "d55d9bdd8a38b0cd6779fbfb18813abc89bd3dfa3c19b4b125598b778eff3174",
    "bagged": "43323d98e18302f144edd518e0753f4930d3ee45b38bf8acdedc97056967e223",
    "disjoint_w": "013071c3ef3b257a65139b6614f33f8661b6af949a1597555bb11f24ef31af9c",
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
