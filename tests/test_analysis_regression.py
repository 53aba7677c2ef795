"""The regression measures against slow loops written from the papers (tests/naive_regression.py),
hand-worked examples, and the decompositions' terms summed against the directly measured loss."""

from __future__ import annotations

import naive_regression as naive
import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

from treelab.analysis import (
    ambiguity,
    bias_variance_covariance,
    bias_variance_diversity_regression,
    breiman_regression_bound,
    louppe_variance,
)

RTOL = 1e-10


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=RTOL, atol=1e-12)


def friedman_target(X):
    """Friedman #1's noise-free function E[y|x]."""
    return (10 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20 * (X[:, 2] - 0.5) ** 2
            + 10 * X[:, 3] + 5 * X[:, 4])


# ---------------------------------------------------------------------------- hand-worked


def test_ambiguity_hand_worked_three_members_two_rows():
    f = [[1.0, 2.0], [3.0, 2.0], [2.0, 5.0]]  # 3 members, 2 rows
    y = [2.0, 4.0]
    ds = ambiguity(f, y=y)
    # row 0: f_bar = 2, error 0, members (1 + 1 + 0) / 3, spread (1 + 1 + 0) / 3
    # row 1: f_bar = 3, error 1, members (4 + 4 + 1) / 3 = 3, spread (1 + 1 + 4) / 3 = 2
    _close(ds.sample_ensemble_mse, [0.0, 1.0])
    _close(ds.sample_average_member_mse, [2 / 3, 3.0])
    _close(ds.sample_ambiguity, [2 / 3, 2.0])
    _close(ds.ensemble_mse, 0.5)
    _close(ds.member_mse, [(1 + 4) / 2, (1 + 4) / 2, (0 + 1) / 2])
    assert ds.ambiguity.attrs["cite"].startswith("Krogh & Vedelsby")


def test_bvd_hand_worked_three_members_two_rows():
    # f[k][i][s]: training sets k = 2, members i = 3, rows s = 2
    f = [[[0.0, 2.0], [1.0, 2.0], [2.0, 2.0]],
         [[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]]
    y = [2.0, 2.0]
    ds = bias_variance_diversity_regression(f, y)
    # every training set's ensemble is 1 on row 0 and 2 on row 1: loss (1 + 0) / 2
    _close(ds.expected_loss, 0.5)
    # centroids row 0: 0.5, 1, 1.5; row 1: 1.5, 2, 2.5; bias against y: 3.5/3 and 0.5/3
    _close(ds.sample_bias_with_noise, [3.5 / 3, 0.5 / 3])
    _close(ds.average_variance, 1 / 6)  # 0.25, 0, 0.25 on both rows
    _close(ds.diversity, 1 / 3)  # (2/3 + 0) / 2 on both rows
    assert "bias_with_noise" in ds.attrs["noise"] and "average_bias" not in ds
    assert "noise" not in ds.data_vars
    # with the true function t = (1.5, 2): noise 0.25, cross 2 * 0.5 * (1.5 - 1) = 0.5
    ds = bias_variance_diversity_regression(f, y, target=[1.5, 2.0])
    _close(ds.sample_noise, [0.25, 0.0])
    _close(ds.sample_noise_cross, [0.5, 0.0])
    _close(ds.sample_average_bias, [1.25 / 3, 0.5 / 3])
    _close(ds.sample_expected_loss, [1.0, 0.0])


# ---------------------------------------------------------------------------- random outputs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ambiguity_matches_loops_and_is_exact(seed):
    rng = np.random.default_rng(seed)
    f, y = rng.normal(size=(7, 13)), rng.normal(size=13)
    w = rng.random(7)
    for weights in (None, w):
        ds = ambiguity(f, y=y, weights=weights)
        ens, avg, amb = naive.ambiguity(f.tolist(), y.tolist(),
                                        None if weights is None else w.tolist())
        _close(ds.sample_ensemble_mse, ens)
        _close(ds.sample_average_member_mse, avg)
        _close(ds.sample_ambiguity, amb)
        _close(ds.ensemble_mse, ds.average_member_mse - ds.ambiguity)


def _random_repeats(seed, K=4, M=5, n=11, positive=False):
    rng = np.random.default_rng(seed)
    if positive:
        return rng.gamma(2.0, 1.5, size=(K, M, n)), rng.poisson(3.0, size=n).astype(float), \
            rng.gamma(3.0, 1.0, size=n)
    return rng.normal(size=(K, M, n)), rng.normal(size=n), rng.normal(size=n)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("loss", ["squared", "poisson"])
def test_bvd_matches_loops_and_sums_to_loss(seed, loss):
    f, y, t = _random_repeats(seed, positive=loss == "poisson")
    for target in (None, t):
        ds = bias_variance_diversity_regression(f, y, loss=loss, target=target)
        ref = naive.bvd(f.tolist(), y.tolist(), None if target is None else t.tolist(), loss)
        bias = "sample_bias_with_noise" if target is None else "sample_average_bias"
        _close(ds.sample_expected_loss, ref["loss"])
        _close(ds[bias], ref["bias"])
        _close(ds.sample_average_variance, ref["variance"])
        _close(ds.sample_diversity, ref["diversity"])
        total = ds[bias] + ds.sample_average_variance - ds.sample_diversity
        if target is not None:
            _close(ds.sample_noise, ref["noise"])
            _close(ds.sample_noise_cross, ref["cross"])
            total = total + ds.sample_noise + ds.sample_noise_cross
        _close(total, ds.sample_expected_loss)  # the terms sum to the measured loss
        if loss == "poisson":
            _close(ds.sample_expected_loss_arithmetic, ref["loss_arith"])
            _close(ds.sample_non_centroid, ref["non_centroid"])
            _close(ds.expected_loss + ds.non_centroid, ds.expected_loss_arithmetic)


@pytest.mark.parametrize("seed", [0, 1])
def test_bias_variance_covariance_matches_loops_and_sums(seed):
    f, _, t = _random_repeats(seed)
    ds = bias_variance_covariance(f, t)
    ref = naive.bvc(f.tolist(), t.tolist())
    _close(ds.sample_expected_loss, ref["loss"])
    _close(ds.sample_squared_bias, ref["bias2"])
    _close(ds.sample_variance, ref["var"])
    _close(ds.sample_covariance, ref["covar"])
    M = f.shape[1]
    _close(ds.squared_bias + ds.variance / M + (1 - 1 / M) * ds.covariance, ds.expected_loss)


def test_bias_variance_covariance_one_member_has_no_covariance():
    f, _, t = _random_repeats(3, M=1)
    ds = bias_variance_covariance(f, t)
    assert np.isnan(float(ds.covariance))
    _close(ds.squared_bias + ds.variance, ds.expected_loss)


@pytest.mark.parametrize("seed", [0, 1])
def test_breiman_matches_loops(seed):
    rng = np.random.default_rng(seed)
    f, y = rng.normal(size=(6, 17)), rng.normal(size=17)
    oob = rng.random((6, 17)) < 0.4
    for mask in (None, oob):
        ds = breiman_regression_bound(f, y=y, in_bag=None if mask is None else ~mask)
        ref = naive.breiman(f.tolist(), y.tolist(), None if mask is None else mask.tolist())
        for key in ("forest_mse", "tree_mse", "rho_bar", "mean_residual_correlation",
                    "member_mse"):
            _close(ds[key], ref[key])
        _close(ds.breiman_bound, ds.rho_bar * ds.tree_mse)
    # all rows: the M-member forest's error is (1/M) mean sd^2 + (1 - 1/M) rho_bar (mean sd)^2
    ds = breiman_regression_bound(f, y=y)
    sd = np.sqrt(ds.member_mse.values)
    M = f.shape[0]
    _close(ds.forest_mse, np.mean(sd**2) / M + (1 - 1 / M) * float(ds.rho_bar) * sd.mean() ** 2)
    assert float(ds.forest_mse) <= float(ds.finite_forest_bound) + 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_breiman_bound_by_hand(seed):
    # a weighted average (VotingRegressor's weights) is read as that average throughout
    rng = np.random.default_rng(seed)
    f, y = rng.normal(size=(4, 23)) + 0.5, rng.normal(size=23)
    w = np.array([1.0, 3.0, 2.0, 4.0]) / 10
    ds = breiman_regression_bound(f, y=y, weights=w * 10)
    r = y - f
    E = np.array([[np.mean(r[i] * r[j]) for j in range(4)] for i in range(4)])
    sd = np.sqrt(np.diag(E))
    pairs = [(i, j) for i in range(4) for j in range(4) if i != j]
    pe = sum(w[i] * E[i, i] for i in range(4))
    rho = (sum(w[i] * w[j] * E[i, j] for i, j in pairs) / sum(w[i] * w[j] for i, j in pairs)
           / sum(w[i] * sd[i] for i in range(4)) ** 2)
    forest = np.mean((w @ f - y) ** 2)
    _close(ds.forest_mse, forest)
    _close(ds.tree_mse, pe)
    _close(ds.rho_bar, rho)
    # the exact error, and the bound above it
    own = sum(w[i] ** 2 * E[i, i] for i in range(4))
    _close(forest, own + sum(w[i] * w[j] * E[i, j] for i, j in pairs))
    assert rho > 0
    _close(ds.finite_forest_bound, own + (1 - w @ w) * rho * pe)
    assert float(ds.forest_mse) <= float(ds.finite_forest_bound)
    # equal weights are Breiman's forest, bit for bit
    plain, equal = breiman_regression_bound(f, y=y), breiman_regression_bound(
        f, y=y, weights=np.ones(4))
    for name in ("forest_mse", "tree_mse", "rho_bar", "finite_forest_bound"):
        _close(plain[name], equal[name])


def test_breiman_bounds_are_nan_where_the_residuals_cancel():
    # residuals +1 and -3 on every row: rho_bar = -0.75, the forest's error 1, and
    # rho_bar PE*(tree) = -3.75 would be a negative "bound" on a squared error
    f = np.array([[-1.0] * 4, [3.0] * 4])
    ds = breiman_regression_bound(f, y=np.zeros(4))
    assert float(ds.rho_bar) == -0.75
    assert float(ds.forest_mse) == 1.0
    assert np.isnan(float(ds.breiman_bound)) and np.isnan(float(ds.finite_forest_bound))
    assert "rho_bar = -0.75 < 0" in ds.finite_forest_bound.attrs["description"]


@pytest.mark.parametrize("seed", [0, 1])
def test_louppe_matches_loops_and_sums(seed):
    f, _, _ = _random_repeats(seed)
    ds = louppe_variance(f)
    ref = naive.louppe(f.tolist())
    _close(ds.tree_variance, ref["sigma2"])
    _close(ds.correlated_variance, ref["pairs"])
    _close(ds.forest_variance, ref["forest"])
    _close(ds.rho, np.asarray(ref["pairs"]) / np.asarray(ref["sigma2"]))
    _close(ds.correlated_variance + ds.uncorrelated_variance, ds.forest_variance)
    M = f.shape[1]
    _close(ds.rho * ds.tree_variance + (1 - ds.rho) * ds.tree_variance / M, ds.forest_variance)


# ---------------------------------------------------------------------------- forests, K = 5


@pytest.fixture(scope="module")
def friedman_repeats():
    """Member outputs of forests fitted on K = 5 training sets drawn from Friedman #1."""
    X_test, y_test = make_friedman1(150, noise=1.0, random_state=100)
    out = {}
    for name, cls in (("rf", RandomForestRegressor), ("et", ExtraTreesRegressor)):
        reps = []
        for k in range(5):
            X, y = make_friedman1(200, noise=1.0, random_state=k)
            model = cls(n_estimators=8, min_samples_leaf=3, random_state=k).fit(X, y)
            reps.append([t.predict(X_test.astype(np.float32)) for t in model.estimators_])
        out[name] = np.asarray(reps)
    return out, X_test, y_test


@pytest.mark.parametrize("name", ["rf", "et"])
def test_decompositions_sum_on_friedman_forests(friedman_repeats, name):
    reps, X_test, y_test = friedman_repeats
    f = reps[name]
    t = friedman_target(X_test)
    fbar = f.mean(axis=1)
    measured = np.mean((y_test - fbar) ** 2, axis=0)  # directly measured loss per row
    ds = bias_variance_diversity_regression(f, y_test, target=t)
    _close(ds.sample_expected_loss, measured)
    _close(ds.sample_noise + ds.sample_noise_cross + ds.sample_average_bias
           + ds.sample_average_variance - ds.sample_diversity, measured)
    _close(ds.sample_expected_target_loss, np.mean((t - fbar) ** 2, axis=0))
    _close(ds.sample_average_bias + ds.sample_average_variance - ds.sample_diversity,
           ds.sample_expected_target_loss)
    ds = bias_variance_diversity_regression(f, y_test)
    _close(ds.sample_bias_with_noise + ds.sample_average_variance - ds.sample_diversity,
           measured)
    bvc = bias_variance_covariance(f, t)
    M = f.shape[1]
    _close(bvc.sample_expected_loss, np.mean((fbar - t) ** 2, axis=0))
    _close(bvc.sample_squared_bias + bvc.sample_variance / M
           + (1 - 1 / M) * bvc.sample_covariance, bvc.sample_expected_loss)
    lv = louppe_variance(f)
    _close(lv.forest_variance, np.var(fbar, axis=0, ddof=1))  # the unbiased variance over sets
    _close(lv.correlated_variance + lv.uncorrelated_variance, lv.forest_variance)
    assert 0 < float(lv.mean_rho) < 1  # trees of one training set correlate, not fully


def test_poisson_decomposition_on_count_forests():
    rng = np.random.default_rng(0)
    X_test = rng.random((120, 10))
    lam_test = 2.0 + friedman_target(X_test) / 4
    y_test = rng.poisson(lam_test).astype(float)
    reps = []
    for k in range(5):
        X = rng.random((200, 10))
        y = rng.poisson(2.0 + friedman_target(X) / 4).astype(float)
        model = RandomForestRegressor(n_estimators=6, min_samples_leaf=8,
                                      random_state=k).fit(X, y)
        reps.append([t.predict(X_test.astype(np.float32)) for t in model.estimators_])
    f = np.asarray(reps)
    assert f.min() > 0
    ds = bias_variance_diversity_regression(f, y_test, loss="poisson", target=lam_test)
    g = np.exp(np.log(f).mean(axis=1))
    a = f.mean(axis=1)

    def dev(u, v):
        return np.where(u > 0, u * np.log(np.where(u > 0, u, 1) / v), 0) - u + v

    _close(ds.sample_expected_loss, dev(y_test, g).mean(axis=0))
    _close(ds.sample_expected_loss_arithmetic, dev(y_test, a).mean(axis=0))
    _close(ds.sample_noise + ds.sample_noise_cross + ds.sample_average_bias
           + ds.sample_average_variance - ds.sample_diversity, ds.sample_expected_loss)
    _close(ds.expected_loss + ds.non_centroid, ds.expected_loss_arithmetic)
    assert float(ds.diversity) > 0 and float(ds.average_variance) > 0


# ---------------------------------------------------------------------------- refusals


def test_louppe_estimates_a_known_correlation_without_bias():
    """Trees f = a_L + e: a_L ~ N(0, 1) shared by the trees of training set L, e ~ N(0, 3)
    their own, so rho = 1/4, sigma^2 = 4 and rho sigma^2 = 1. Over 4,000 rows and K = 3 sets,
    rho sigma^2 centred on the mean of all outputs has expectation (K - 1) / K - 3 / (K M)
    = 0.54 (0.535 on these rows)."""
    rng = np.random.default_rng(7)
    K, M, n = 3, 8, 4000
    f = 5.0 + rng.normal(size=(K, 1, n)) + rng.normal(scale=np.sqrt(3.0), size=(K, M, n))
    ds = louppe_variance(f)
    # standard errors over rows: about 0.02 for the covariance, 0.05 for sigma^2
    assert abs(float(ds.mean_correlated_variance) - 1.0) < 0.08
    assert abs(float(ds.mean_tree_variance) - 4.0) < 0.2
    assert abs(float(ds.mean_forest_variance) - (1.0 + 3.0 / M)) < 0.08
    with pytest.raises(ValueError, match="one training set"):
        louppe_variance(f[:1])


def test_outputs_with_wrong_dims_refused_naming_the_argument():
    f, y, t = _random_repeats(0)
    with pytest.raises(ValueError, match="outputs"):
        bias_variance_diversity_regression(f[0], y)
    with pytest.raises(ValueError, match="outputs"):
        bias_variance_covariance(f[0], t)
    with pytest.raises(ValueError, match="outputs"):
        louppe_variance(f[0])
    with pytest.raises(ValueError, match="target"):
        bias_variance_diversity_regression(f, y, target=t[:-1])
    with pytest.raises(ValueError, match="y"):
        bias_variance_diversity_regression(f, y[:-1])
    with pytest.raises(ValueError, match="outputs"):
        louppe_variance(f[:, :1])
    import xarray as xr

    da = xr.DataArray(np.random.default_rng(0).random((2, 3, 4, 2)),
                      dims=("repeat", "tree", "sample", "class"))
    with pytest.raises(ValueError, match="'class' dim"):
        bias_variance_diversity_regression(da, y[:4])


def test_nan_refused():
    f, y, t = _random_repeats(0)
    y_nan = y.copy()
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="y holds NaN"):
        bias_variance_diversity_regression(f, y_nan)
    with pytest.raises(ValueError, match="y holds NaN"):
        ambiguity(f[0], y=y_nan)
    f_nan = f.copy()
    f_nan[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="outputs holds NaN"):
        bias_variance_diversity_regression(f_nan, y)


def test_poisson_refuses_non_positive_outputs_and_negative_counts():
    f, y, t = _random_repeats(0, positive=True)
    with pytest.raises(ValueError, match="outputs must be > 0"):
        bias_variance_diversity_regression(f - 10, y, loss="poisson")
    with pytest.raises(ValueError, match="y must be >= 0"):
        bias_variance_diversity_regression(f, y - 10, loss="poisson")
    with pytest.raises(ValueError, match="loss must be"):
        bias_variance_diversity_regression(f, y, loss="absolute")


def test_per_row_values_keep_the_outputs_sample_labels():
    """Outputs labelled samples 2, 0, 1 (and trees "a".."c"): every per-row value is the one of
    the row with that label, computed here by xarray from the labelled outputs."""
    import xarray as xr

    rng = np.random.default_rng(11)
    rows, trees = [2, 0, 1], ["a", "b", "c"]
    f = xr.DataArray(rng.normal(size=(4, 3, 3)), dims=("repeat", "tree", "sample"),
                     coords={"sample": rows, "tree": trees})
    t = xr.DataArray([1.0, -2.0, 0.5], dims="sample", coords={"sample": rows})
    forest = f.mean("tree")  # (repeat, sample)
    loss = ((forest - t) ** 2).mean("repeat")
    diversity = ((f - forest) ** 2).mean(("repeat", "tree"))
    member_variance = ((f - f.mean("repeat")) ** 2).mean(("repeat", "sample"))
    bvc = bias_variance_covariance(f, t)
    bvd = bias_variance_diversity_regression(f, t)
    lou = louppe_variance(f)
    for label in rows:
        _close(bvc.sample_expected_loss.sel(sample=label), loss.sel(sample=label))
        _close(bvd.sample_expected_loss.sel(sample=label), loss.sel(sample=label))
        _close(bvd.sample_diversity.sel(sample=label), diversity.sel(sample=label))
        # the unbiased variance of the K forests
        _close(lou.forest_variance.sel(sample=label),
               forest.sel(sample=label).var("repeat", ddof=1))
    for label in trees:
        _close(bvd.member_variance.sel(tree=label), member_variance.sel(tree=label))


def test_breiman_rho_bar_nan_with_reason_where_every_residual_is_zero():
    """A constant y = 3 that all three members predict: every residual is 0, rho_bar is 0 / 0;
    NaN with the reason, the bounds too, no warning; the errors themselves are 0."""
    import warnings

    f = np.full((3, 5), 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = breiman_regression_bound(f, y=np.full(5, 3.0))
    assert float(ds.tree_mse) == 0.0 and float(ds.forest_mse) == 0.0
    for name in ("rho_bar", "breiman_bound", "finite_forest_bound",
                 "mean_residual_correlation"):
        assert np.isnan(float(ds[name]))
    for name in ("rho_bar", "breiman_bound", "finite_forest_bound"):
        assert "every member's residual is 0" in ds[name].attrs["description"]
    assert "no pair" in ds.mean_residual_correlation.attrs["description"]


def test_breiman_mean_residual_correlation_leaves_out_members_without_error():
    """Member 0 predicts y exactly (sd = 0); members 1 and 2 have residuals (1, -1, 2) and
    (2, 0, 1): E r1 r2 = (2 + 0 + 2) / 3, sd1^2 = 6 / 3, sd2^2 = 5 / 3, so their correlation is
    4 / sqrt(30), the mean over the only pairs with sd_i sd_j > 0; rho_bar keeps member 0:
    [2 (0 + 0 + 4/3)] / 6 over ((0 + sqrt(2) + sqrt(5/3)) / 3)^2."""
    import warnings

    y = np.array([1.0, 2.0, 3.0])
    f = np.stack([y, y - [1.0, -1.0, 2.0], y - [2.0, 0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = breiman_regression_bound(f, y=y)
    _close(ds.mean_residual_correlation, 4 / np.sqrt(30))
    _close(ds.rho_bar, (8 / 3 / 6) / ((np.sqrt(2) + np.sqrt(5 / 3)) / 3) ** 2)
    assert "sd_i sd_j > 0" in ds.mean_residual_correlation.attrs["description"]


def test_plug_in_moments_over_training_sets_against_louppe_and_a_known_law():
    """E_D divides by K in the two decompositions: Ueda & Nakano's var / M + (1 - 1/M) covar is
    the K forests' variance with divisor K (numpy's ddof=0), (K - 1) / K of Louppe's unbiased
    forest_variance. On a known law f_{k,i} = mu_i + a_k + e_{k,i} (a_k ~ N(0, 1) shared by a
    training set's members, e ~ N(0, 4) their own; K = 3, M = 4, t = 0), with each of 20,000
    rows one replication: E[variance] = (K - 1)/K (1 + 4) = 10/3, and the biases carry the
    variance / K: E[squared_bias] = mean(mu)^2 + (1 + 4/M) / K = 1 + 2/3 and
    E[average_bias] = mean(mu^2) + (1 + 4) / K = 2.5 + 5/3."""
    rng = np.random.default_rng(21)
    K, M, n = 3, 4, 20_000
    mu = np.array([-1.0, 1.0, 2.0, 2.0])[:, None]
    f = mu + rng.normal(size=(K, 1, n)) + rng.normal(scale=2.0, size=(K, M, n))
    t = np.zeros(n)
    bvc = bias_variance_covariance(f, t)
    lou = louppe_variance(f)
    plug_in = bvc.sample_variance / M + (1 - 1 / M) * bvc.sample_covariance
    _close(plug_in, f.mean(axis=1).var(axis=0, ddof=0))
    _close(plug_in, (K - 1) / K * lou.forest_variance)
    bvd = bias_variance_diversity_regression(f, t, target=t)
    for per_row, expected in ((bvc.sample_variance, 10 / 3),
                              (bvc.sample_squared_bias, 1 + 2 / 3),
                              (bvd.sample_average_bias, 2.5 + 5 / 3)):
        values = np.asarray(per_row)
        assert abs(values.mean() - expected) < 4 * values.std(ddof=1) / np.sqrt(n)


def test_poisson_non_centroid_has_either_sign():
    """One training set, members 1 and 9: a = 5, f_bar = 3. For y = 10 the arithmetic mean is
    the closer, D(10, 5) = 10 log 2 - 5 against D(10, 3) = 10 log(10/3) - 7: non_centroid =
    10 log(3/5) + 2 = -3.108; for y = 0 it is a - f_bar = 2."""
    f = [[[1.0, 1.0], [9.0, 9.0]]]
    ds = bias_variance_diversity_regression(f, [10.0, 0.0], loss="poisson")
    _close(ds.sample_expected_loss_arithmetic, [10 * np.log(2) - 5, 5.0])
    _close(ds.sample_expected_loss, [10 * np.log(10 / 3) - 7, 3.0])
    _close(ds.sample_non_centroid, [10 * np.log(3 / 5) + 2, 2.0])
    assert float(ds.sample_non_centroid[0]) < 0 < float(ds.sample_non_centroid[1])
    assert "either sign" in ds.non_centroid.attrs["long_name"]
