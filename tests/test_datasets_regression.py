"""Regression generators (Friedman #1-#3, Poisson counts) and the regression loaders."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_friedman1, make_friedman2, make_friedman3

from treelab.datasets import (
    GENERATORS,
    REGRESSION_DATASETS,
    SIZED_GENERATORS,
    add_attribute_noise,
    add_class_noise,
    friedman1,
    friedman2,
    friedman3,
    generate,
    list_regression,
    load_regression,
    poisson_counts,
)

ORACLES = {"friedman1": (friedman1, make_friedman1), "friedman2": (friedman2, make_friedman2),
           "friedman3": (friedman3, make_friedman3)}


@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("noise", [0.0, 0.7])
def test_friedman_equals_sklearn_from_the_same_random_state(name, noise):
    ours, theirs = ORACLES[name]
    data = ours(300, noise=noise, random_state=np.random.RandomState(11))
    X, y = theirs(300, noise=noise, random_state=11)
    np.testing.assert_array_equal(data.X, X)
    np.testing.assert_array_equal(data.y, y)


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_friedman_true_target_is_sklearn_noiseless_formula_on_the_same_rows(name):
    """f(X) against scikit-learn's formula with noise 0 on the very rows drawn (a Generator
    seed: only the formula is compared)."""
    ours, theirs = ORACLES[name]
    data = ours(500, noise=2.0, random_state=3)
    _, f_sklearn = theirs(500, noise=0.0, random_state=np.random.RandomState(5))
    assert f_sklearn.shape == data.true_target.shape
    # re-evaluate sklearn's formula on our X by handing it a RandomState that replays it
    replay = _Replay(data.X)
    _, f_on_ours = theirs(500, noise=0.0, random_state=replay)
    np.testing.assert_allclose(data.true_target, f_on_ours, rtol=1e-12, atol=0)
    # the noise is what is left: the added draw has the stated sd
    resid = data.y - data.true_target
    assert abs(resid.std() - 2.0) < 0.2 and abs(resid.mean()) < 0.3
    assert data.meta["noise_variance"] == 4.0 and data.meta["task"] == "regression"


class _Replay(np.random.RandomState):
    """A RandomState whose uniform draw returns given rows (undoing Friedman #2/#3's scaling)."""

    def __init__(self, X):
        super().__init__(0)
        U = np.array(X, dtype=np.float64)
        if U.shape[1] == 4:
            U[:, 0] /= 100
            U[:, 1] = (U[:, 1] - 40 * np.pi) / (520 * np.pi)
            U[:, 3] = (U[:, 3] - 1) / 10
        self._u = U

    def uniform(self, low=0.0, high=1.0, size=None):
        assert size == self._u.shape
        return self._u.copy()


def test_friedman_hand_worked_values():
    X = np.array([[0.5, 1.0, 0.5, 0.0, 0.0, 0.9], [1.0, 1.0, 0.0, 1.0, 1.0, 0.1]])
    from treelab.datasets import friedman1_function, friedman23_function

    # 10 sin(pi/2) = 10; second: 10 sin(pi) + 20 * 0.25 + 10 + 5 = 20 (sin(pi) ~ 1e-15)
    np.testing.assert_allclose(friedman1_function(X), [10.0, 20.0], atol=1e-12)
    Z = np.array([[3.0, 2.0, 0.5, 0.25]])  # inner = 1 - 1/(2*0.25) = -1
    np.testing.assert_allclose(friedman23_function(Z, 2), [np.sqrt(10.0)])
    np.testing.assert_allclose(friedman23_function(Z, 3), [np.arctan(-1.0 / 3.0)])


def test_poisson_counts_mean_is_true_target():
    data = poisson_counts(20000, random_state=1)
    mu = data.true_target
    X = data.X
    g = (np.sin(np.pi * X[:, 0] * X[:, 1]) + 2 * (X[:, 2] - 0.5) ** 2 + X[:, 3]
         + 0.5 * X[:, 4])
    np.testing.assert_allclose(mu, np.exp(g), rtol=1e-12)
    assert data.y.dtype == np.float64 and np.all(data.y >= 0)
    assert np.all(data.y == np.round(data.y))
    # E[y - mu] = 0 and Var[y - mu] = E[mu]: Poisson noise (z-tests at ~5 sd)
    resid = data.y - mu
    assert abs(resid.mean()) < 5 * np.sqrt(mu.mean() / mu.size)
    assert abs(np.mean(resid**2) / mu.mean() - 1.0) < 0.05
    shifted = poisson_counts(50, intercept=-1.0, random_state=1)
    np.testing.assert_allclose(np.log(shifted.true_target),
                               np.log(poisson_counts(50, random_state=1).true_target) - 1.0)


@pytest.mark.parametrize("name", ["friedman1", "friedman2", "friedman3", "poisson_counts"])
def test_regression_generators_registered_seeded_and_sliceable(name):
    assert name in GENERATORS and name in SIZED_GENERATORS
    a, b = generate(name, n_samples=40, random_state=7), generate(name, n_samples=40,
                                                                   random_state=7)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.y.dtype == np.float64 and a.classes.size == 0
    part = a.take([3, 1])
    np.testing.assert_array_equal(part.true_target, a.true_target[[3, 1]])
    np.testing.assert_array_equal(part.y, a.y[[3, 1]])


def test_regression_generators_refuse_undefined_arguments():
    with pytest.raises(ValueError, match="n_features"):
        friedman1(10, n_features=4)
    with pytest.raises(ValueError, match="noise"):
        friedman2(10, noise=-1.0)
    with pytest.raises(ValueError, match="n_samples"):
        friedman3(0)
    with pytest.raises(ValueError, match="intercept"):
        poisson_counts(10, intercept=50.0)


def test_transforms_on_regression_data():
    data = friedman1(30, random_state=0)
    with pytest.raises(ValueError, match="regression"):
        add_class_noise(data, 0.1, random_state=0)
    # noisy features: f(x) of the noisy rows is no longer the target of the drawn y
    assert add_attribute_noise(data, 0.2, random_state=0).true_target is None


def test_experiment_data_specification_takes_regression_generators():
    from treelab.experiment.data import load_base
    from treelab.experiment.schema import DatasetSpec

    spec = DatasetSpec.from_dict({"generator": "friedman1", "n_samples": 60,
                                  "params": {"noise": 1.0}})
    assert spec.generator == "friedman1"
    data = load_base({"name": "friedman1", "generator": "friedman1", "n_samples": 60,
                      "params": {"noise": 1.0}}, seed=4)
    assert data.X.shape == (60, 10) and data.true_target.shape == (60,)


@pytest.mark.parametrize("name", sorted(REGRESSION_DATASETS))
def test_load_regression(name):
    src = REGRESSION_DATASETS[name]
    data = load_regression(name)
    assert data.X.shape == (src.n_samples, src.n_features)
    assert data.X.dtype == np.float64 and data.y.dtype == np.float64
    assert data.y.shape == (src.n_samples,)
    assert np.isfinite(data.y).all() and not np.isnan(data.X).any()
    assert data.y.std() > 0
    if src.count:
        assert (data.y >= 0).all() and (data.y == np.round(data.y)).all()
    for key in ("source", "licence", "target"):
        assert data.meta[key], key
    assert data.meta["task"] == "regression" and data.classes.size == 0


def test_load_regression_against_the_sources():
    import statsmodels.datasets.stackloss as stackloss
    from sklearn.datasets import load_diabetes

    from treelab.datasets import load_uci

    dia = load_regression("diabetes")
    raw = load_diabetes(scaled=False)
    np.testing.assert_array_equal(dia.X, raw.data)
    np.testing.assert_array_equal(dia.y, raw.target)
    ab = load_regression("abalone")
    np.testing.assert_array_equal(ab.y, load_uci("abalone").y.astype(float))
    assert ab.y.min() == 1 and ab.y.max() == 29 and ab.feature_types[0] == "nominal"
    sl = stackloss.load_pandas()
    np.testing.assert_array_equal(load_regression("stackloss").y, sl.endog.to_numpy())
    with pytest.raises(ValueError, match="name must be one of"):
        load_regression("auto-mpg")


def test_list_regression_and_readme_name_every_set():
    from pathlib import Path

    table = list_regression()
    assert set(table.index) == set(REGRESSION_DATASETS)
    assert table["licence"].str.len().min() > 0
    readme = (Path(__file__).resolve().parents[1] / "data" / "README.md").read_text()
    for name in REGRESSION_DATASETS:
        assert f"| {name} |" in readme, name
