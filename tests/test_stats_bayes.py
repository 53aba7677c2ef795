"""Bayesian signed-rank and correlated t tests: against baycomp (the reference implementation,
within Monte Carlo error), against closed forms worked by hand, on the runner's Datasets."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats
import xarray as xr

from treelab import plot, stats

baycomp = pytest.importorskip("baycomp", reason="baycomp is the reference implementation "
                                                "(pip install baycomp; in the dev extra)")


def _table(a: np.ndarray, b: np.ndarray) -> xr.DataArray:
    return xr.DataArray(np.stack([a, b], axis=1), dims=("dataset", "ensemble"),
                        coords={"dataset": [f"d{i}" for i in range(a.size)],
                                "ensemble": ["A", "B"]})


# Monte Carlo error of a probability from 50000 draws: sd <= 0.5 / sqrt(50000) = 0.0022 per
# run; two independent runs differ by at most 5 sd of the difference (0.016) but for 1 in 1.7
# million
MC_TOL = 0.016


@pytest.mark.parametrize("seed,rope,shift", [(0, 0.01, -0.01), (1, 0.02, 0.0), (2, 0.005, 0.01)])
def test_signed_rank_agrees_with_baycomp(seed, rope, shift):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.05, 0.4, 25)
    a = b + shift + rng.normal(0.0, 0.015, 25)
    res = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=rope, random_state=seed)
    # baycomp's difference is y - x with "left" where it is below -rope: x = b, y = a puts
    # value(a) - value(b) < -rope (a's error lower: a better) on the left
    left, mid, right = baycomp.SignedRankTest.probs(b, a, rope, random_state=seed)
    ours = (float(res.p_a_better), float(res.p_rope), float(res.p_b_better))
    assert ours == pytest.approx((left, mid, right), abs=MC_TOL)
    ref = baycomp.SignedRankTest(b, a, rope, random_state=seed).sample
    assert res.samples.values.mean(axis=0) == pytest.approx(ref.mean(axis=0), abs=0.005)
    assert sum(ours) == pytest.approx(1.0)


def test_signed_rank_hand_worked_all_far_left():
    # every difference below -2 rope: z_i + z_j < -2 rope except the pseudo-observation with
    # itself (0 + 0, in the rope), so theta_left = 1 - w0^2 and theta_rope = w0^2, w0 ~
    # Beta(prior, n): a better is the most probable region exactly when w0 < 1/sqrt(2)
    diff = np.array([-0.05, -0.08, -0.06])
    b = np.array([0.2, 0.3, 0.25])
    res = stats.bayesian_signed_rank(_table(b + diff, b), "A", "B", rope=0.01,
                                     n_samples=50_000, random_state=3)
    expected = scipy.stats.beta.cdf(1 / np.sqrt(2), 0.5, 3)
    assert float(res.p_a_better) == pytest.approx(expected, abs=MC_TOL)
    assert float(res.p_b_better) == 0.0
    # E[w0^2] = a (a + 1) / ((a + b)(a + b + 1)), a = 0.5, b = 3
    mean_rope = 0.5 * 1.5 / (3.5 * 4.5)
    assert float(res.samples.sel(region="rope").mean()) == pytest.approx(mean_rope, abs=0.003)


def test_signed_rank_is_seeded_and_oriented():
    rng = np.random.default_rng(5)
    b = rng.uniform(0.1, 0.3, 12)
    a = b - 0.03 + rng.normal(0, 0.01, 12)
    one = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=0.01, n_samples=3000,
                                     random_state=7)
    two = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=0.01, n_samples=3000,
                                     random_state=7)
    other = stats.bayesian_signed_rank(_table(a, b), "A", "B", rope=0.01, n_samples=3000,
                                       random_state=8)
    np.testing.assert_array_equal(one.samples.values, two.samples.values)
    assert not np.array_equal(one.samples.values, other.samples.values)
    assert float(one.p_a_better) > 0.9
    # the same numbers as accuracies: a is still the better one
    acc = stats.bayesian_signed_rank(_table(1 - a, 1 - b), "A", "B", rope=0.01, n_samples=3000,
                                     random_state=7, greater_is_better=True)
    assert float(acc.p_a_better) == float(one.p_a_better)
    swapped = stats.bayesian_signed_rank(_table(a, b), "B", "A", rope=0.01, n_samples=3000,
                                         random_state=7)
    assert float(swapped.p_b_better) == float(one.p_a_better)


@pytest.mark.parametrize("rope,runs", [(0.01, 1), (0.0, 1), (0.005, 2)])
def test_correlated_t_equals_baycomp(rope, runs):
    rng = np.random.default_rng(11)
    n = 10 * runs
    b = rng.uniform(0.15, 0.25, n)
    a = b - 0.008 + rng.normal(0, 0.01, n)
    folds = xr.DataArray(np.stack([a, b]).reshape(2, runs, 10), dims=("ensemble", "repeat",
                                                                       "fold"),
                         coords={"ensemble": ["A", "B"]})
    res = stats.bayesian_correlated_t(folds, "A", "B", rope=rope, test_fraction=0.1)
    probs = baycomp.CorrelatedTTest.probs(b, a, rope, runs)
    if rope == 0:  # baycomp then answers (p_left, p_right)
        assert float(res.p_a_better) == pytest.approx(probs[0], abs=1e-12)
        assert float(res.p_b_better) == pytest.approx(probs[1], abs=1e-12)
    else:
        assert (float(res.p_a_better), float(res.p_rope), float(res.p_b_better)) == \
            pytest.approx(probs, abs=1e-12)


def test_correlated_t_hand_worked():
    # d = a - b = 0.01 * (1, 2, 3, 4, 5), 5-fold cross-validation (rho = 1/5): d_bar = 0.03,
    # s^2 = 2.5e-4, scale^2 = (1/5 + (1/5)/(4/5)) s^2 = 0.45 * 2.5e-4 = 1.125e-4, df = 4
    d = 0.01 * np.arange(1, 6)
    b = np.full(5, 0.2)
    folds = xr.DataArray(np.stack([b + d, b]), dims=("ensemble", "fold"),
                         coords={"ensemble": ["A", "B"]})
    res = stats.bayesian_correlated_t(folds, "A", "B", rope=0.01, test_fraction=0.2,
                                      n_samples=200_000, random_state=1)
    scale = np.sqrt(1.125e-4)
    assert float(res.scale) == pytest.approx(scale, rel=1e-12)
    assert float(res.mean_difference) == pytest.approx(0.03, rel=1e-12)
    assert int(res.df) == 4
    # a's error is higher: the mass above +rope favours b; standardised bound (0.01 - 0.03) /
    # scale = -1.8856, so P(mu > rope) = T_4(1.8856) = 0.9337 (a t table: 0.93 at 1.89)
    p_b = scipy.stats.t.cdf((0.03 - 0.01) / scale, 4)
    assert float(res.p_b_better) == pytest.approx(p_b, abs=1e-12)
    assert p_b == pytest.approx(0.9337, abs=5e-4)
    assert float(res.p_a_better) == pytest.approx(scipy.stats.t.cdf((-0.01 - 0.03) / scale, 4))
    # the seeded draws follow that t: their quantiles agree within Monte Carlo error
    draws = res.samples.values
    assert np.mean(draws > 0.01) == pytest.approx(p_b, abs=0.005)
    same = stats.bayesian_correlated_t(folds, "A", "B", rope=0.01, test_fraction=0.2,
                                       n_samples=200_000, random_state=1)
    np.testing.assert_array_equal(draws, same.samples.values)


def test_runner_shaped_results():
    # (dataset, ensemble, alpha, fold) with an ensemble without alpha at alpha = NaN, as the
    # experiment runner writes them
    rng = np.random.default_rng(2)
    vals = np.full((6, 2, 2, 5), np.nan)
    vals[:, 0, 0] = rng.uniform(0.1, 0.2, (6, 5))      # VR-Trees at alpha 0.5
    vals[:, 1, 1] = vals[:, 0, 0] + 0.02 + rng.normal(0, 0.003, (6, 5))  # RF at NaN
    ds = xr.Dataset({"ensemble_error": (("dataset", "ensemble", "alpha", "fold"), vals)},
                    coords={"dataset": list("abcdef"), "ensemble": ["VR", "RF"],
                            "alpha": [0.5, np.nan]})
    sr = stats.bayesian_signed_rank(ds, "VR", "RF", rope=0.005, n_samples=5000)
    assert float(sr.p_a_better) > 0.9
    np.testing.assert_allclose(sr.difference.values, np.nanmean(vals[:, 0, 0] - vals[:, 1, 1],
                                                                 axis=-1), atol=1e-15)
    ct = stats.bayesian_correlated_t(ds, "VR", "RF", rope=0.005, test_fraction=0.2,
                                     n_samples=100)
    assert ct.p_a_better.dims == ("dataset",)
    d = vals[:, 0, 0] - vals[:, 1, 1]
    np.testing.assert_allclose(ct.mean_difference.values, d.mean(axis=-1), atol=1e-15)
    assert ct.samples.dims == ("dataset", "draw")
    params = json.loads(ct.attrs["params"])
    assert params["random_state"] == 0 and params["rope"] == 0.005


@pytest.mark.parametrize("kwargs,message", [
    ({"rope": -0.01}, "rope"),
    ({"rope": "1%"}, "rope"),
    ({"rope": 0.01, "random_state": None}, "random_state"),
    ({"rope": 0.01, "n_samples": 0}, "n_samples"),
    ({"rope": 0.01, "prior": 0}, "prior"),
])
def test_signed_rank_refuses(kwargs, message):
    t = _table(np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.2, 0.2]))
    with pytest.raises((ValueError, TypeError), match=message):
        stats.bayesian_signed_rank(t, "A", "B", **kwargs)


def test_refuses_missing_and_same_method():
    t = _table(np.array([0.1, np.nan, 0.3]), np.array([0.2, 0.2, 0.2]))
    with pytest.raises(ValueError, match="missing"):
        stats.bayesian_signed_rank(t, "A", "B", rope=0.01)
    t = _table(np.array([0.1, 0.2, 0.3]), np.array([0.2, 0.2, 0.2]))
    with pytest.raises(ValueError, match="two different"):
        stats.bayesian_signed_rank(t, "A", "A", rope=0.01)
    folds = xr.DataArray(np.ones((2, 5)), dims=("ensemble", "fold"),
                         coords={"ensemble": ["A", "B"]})
    with pytest.raises(ValueError, match="test_fraction"):
        stats.bayesian_correlated_t(folds, "A", "B", rope=0.01, test_fraction=1.0)


def test_posterior_plots_at_journal_width():
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    b = rng.uniform(0.1, 0.3, 10)
    sr = stats.bayesian_signed_rank(_table(b - 0.01, b), "A", "B", rope=0.01, n_samples=2000)
    ax = plot.posterior_simplex(sr)
    assert ax.figure.get_size_inches()[0] == pytest.approx(3.5)
    texts = " ".join(t.get_text() for t in ax.texts)
    assert f"p = {float(sr.p_a_better):.3f}" in texts and "rope" in texts
    folds = xr.DataArray(np.stack([b - 0.01, b]), dims=("ensemble", "fold"),
                         coords={"ensemble": ["A", "B"]})
    ct = stats.bayesian_correlated_t(folds, "A", "B", rope=0.005, test_fraction=0.1)
    ax2 = plot.posterior_t(ct)
    labels = [t.get_text() for t in ax2.get_legend().get_texts()]
    assert labels[0] == f"A better: {float(ct.p_a_better):.3f}"
    with pytest.raises(ValueError, match="bayesian_signed_rank"):
        plot.posterior_simplex(ct)
    plt.close("all")
