"""The unbiased bias estimator of :func:`treelab.analysis.bias_variance` against a Monte Carlo
ground truth: estimates drawn from a Dirichlet law of known mean and variance."""

from __future__ import annotations

import numpy as np
import pytest

from treelab.analysis import bias_variance


def _draws(k: int, n_rows: int, mu: np.ndarray, concentration: float, seed: int) -> np.ndarray:
    """K estimates per row, each a Dirichlet draw of mean ``mu`` (rows independent)."""
    rng = np.random.default_rng(seed)
    return rng.dirichlet(concentration * mu, size=(k, n_rows))


@pytest.mark.parametrize("k", [2, 5, 10])
def test_unbiased_bias_matches_monte_carlo_truth(k):
    # every row is one replication of the same K-set experiment: same tau, same law
    mu = np.array([0.5, 0.3, 0.2])
    tau = np.array([0.6, 0.25, 0.15])
    concentration, n_rows = 4.0, 40_000
    truth = float(np.sum((tau - mu) ** 2))  # the bias of infinitely many training sets
    # Dirichlet variance of each class: mu_c (1 - mu_c) / (concentration + 1)
    carried = float(np.sum(mu * (1 - mu) / (concentration + 1))) / k
    ds = bias_variance(_draws(k, n_rows, mu, concentration, seed=k),
                       np.tile(tau, (n_rows, 1)))
    per_row = ds.sample_bias_unbiased.values
    se = per_row.std(ddof=1) / np.sqrt(n_rows)
    assert abs(float(ds.bias_unbiased) - truth) < 4 * se
    # the plug-in bias carries sigma^2 / K on average, many standard errors away from truth
    plug = ds.sample_bias.values
    assert abs(plug.mean() - (truth + carried)) < 4 * plug.std(ddof=1) / np.sqrt(n_rows)
    assert plug.mean() - truth > 10 * se


def test_unbiased_bias_hand_worked_and_identity():
    # K = 2, one row: p = (0.6, 0.4) and (0.8, 0.2), tau = (0.7, 0.3); main = tau so the
    # plug-in bias is 0, variance = ((0.1^2 + 0.1^2) + (0.1^2 + 0.1^2)) / 2 = 0.02, and the
    # unbiased bias 0 - 0.02 / 1 = -0.02
    p = np.array([[[0.6, 0.4]], [[0.8, 0.2]]])
    ds = bias_variance(p, np.array([[0.7, 0.3]]))
    assert float(ds.bias) == pytest.approx(0.0, abs=1e-15)
    assert float(ds.variance) == pytest.approx(0.02)
    assert float(ds.bias_unbiased) == pytest.approx(-0.02)
    rng = np.random.default_rng(3)
    probas = rng.dirichlet(np.ones(4), size=(7, 30))
    ds = bias_variance(probas, rng.dirichlet(np.ones(4), size=30))
    np.testing.assert_allclose(ds.sample_bias_unbiased, ds.sample_bias - ds.sample_variance / 6)


def test_unbiased_bias_is_nan_for_one_set():
    ds = bias_variance(np.full((1, 3, 2), 0.5), np.array([0, 1, 1]))
    assert np.isnan(float(ds.bias_unbiased))
    assert float(ds.bias) == pytest.approx(0.5)  # (1 - 0.5)^2 + (0 - 0.5)^2


def test_no_row_is_refused_naming_probas():
    # the means over rows of no row were NaN with a RuntimeWarning
    with pytest.raises(ValueError, match="probas has no row"):
        bias_variance(np.zeros((2, 0, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="probas has no row"):
        bias_variance(np.zeros((2, 0, 2)), np.zeros(0, dtype=int))
