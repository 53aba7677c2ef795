"""Kuncheva & Whitaker diversity measures against slow loops, hand-worked cases, their
published identities and DESlib's ``deslib.util.diversity`` (a test-only dependency in the
``dev`` extra; it installs and imports with the project's scikit-learn)."""

import math

import naive_analysis as naive
import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings

from treelab.analysis import nonpairwise_diversity, pairwise_diversity

PAIR_VARS = ("q_statistic", "correlation", "disagreement", "double_fault", "kappa")
NONPAIR_VARS = ("entropy", "kw_variance", "interrater_kappa", "difficulty",
                "generalized_diversity", "coincident_failure_diversity", "mean_member_accuracy")


def assert_close(a, b, tol=1e-10):
    if math.isnan(b):
        assert math.isnan(a)
    else:
        assert a == pytest.approx(b, rel=tol, abs=tol)


@settings(max_examples=150, deadline=None)
@given(naive.member_problem())
def test_pairwise_matches_naive(problem):
    L, y, C = problem
    ds = pairwise_diversity(L, y, n_classes=C)
    ref = naive.pairwise(L.tolist(), y.tolist(), C)
    for name in PAIR_VARS:
        np.testing.assert_allclose(ds[name].values, np.array(ref[name]), rtol=1e-10, atol=1e-12,
                                   equal_nan=True, err_msg=name)
        assert ds[name].dims == ("tree", "tree_other")
        assert_close(float(ds[f"mean_{name}"]), naive.pair_average(ref[name]))


@settings(max_examples=150, deadline=None)
@given(naive.member_problem())
def test_nonpairwise_matches_naive(problem):
    L, y, C = problem
    ds = nonpairwise_diversity(L, y, n_classes=C)
    ref = naive.nonpairwise(L.tolist(), y.tolist())
    for name in NONPAIR_VARS:
        assert_close(float(ds[name]), ref[name])


def test_pairwise_handworked():
    # y = 0 everywhere; oracle outputs a = 1100, b = 1010, c = 1110
    y = [0, 0, 0, 0]
    L = [[0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 1]]
    ds = pairwise_diversity(L, y)
    # (a, b): N11 = N10 = N01 = N00 = 1
    assert float(ds.q_statistic[0, 1]) == 0.0
    assert float(ds.correlation[0, 1]) == 0.0
    assert float(ds.disagreement[0, 1]) == 0.5
    assert float(ds.double_fault[0, 1]) == 0.25
    assert float(ds.kappa[0, 1]) == 0.0  # p_o = 1/2, p_e = 1/2 * 1/2 + 1/2 * 1/2
    # (c, a): N11 = 2, N10 = 1, N01 = 0, N00 = 1
    assert float(ds.q_statistic[2, 0]) == 1.0
    assert float(ds.correlation[2, 0]) == pytest.approx(2 / math.sqrt(12))
    assert float(ds.disagreement[2, 0]) == 0.25
    assert float(ds.double_fault[2, 0]) == 0.25
    # kappa(c, a): p_o = 3/4, p_e = 3/4 * 1/2 + 1/4 * 1/2 = 1/2
    assert float(ds.kappa[2, 0]) == pytest.approx(0.5)
    assert float(ds.mean_disagreement) == pytest.approx((0.5 + 0.25 + 0.25) / 3)
    np.testing.assert_allclose(ds.member_error, [0.5, 0.5, 0.25])
    assert float(ds.pair_error[0, 2]) == 0.375


def test_nonpairwise_handworked():
    # same members: l_i = (3, 2, 2, 0) correct on the four rows, L = 3, N = 4
    ds = nonpairwise_diversity([[0, 0, 1, 1], [0, 1, 0, 1], [0, 0, 0, 1]], [0, 0, 0, 0])
    assert float(ds.kw_variance) == pytest.approx((0 + 2 + 2 + 0) / (4 * 9))
    assert float(ds.entropy) == pytest.approx((0 + 1 + 1 + 0) / 4 / (3 - 2))
    assert float(ds.mean_member_accuracy) == pytest.approx(7 / 12)
    # interrater kappa = 1 - (4/3) / (4 * 2 * 7/12 * 5/12) = 11/35
    assert float(ds.interrater_kappa) == pytest.approx(11 / 35)
    # l/L = 1, 2/3, 2/3, 0 around 7/12: population variance (25 + 1 + 1 + 49) / 144 / 4
    assert float(ds.difficulty) == pytest.approx(19 / 144)
    # failures j = 0, 1, 1, 3: p_0 = 1/4, p_1 = 1/2, p_3 = 1/4; p(1) = 5/12, p(2) = 1/4
    assert float(ds.generalized_diversity) == pytest.approx(2 / 5)
    # CFD = (1 / (3/4)) * (2/2 * 1/2 + 0 * 1/4) = 2/3
    assert float(ds.coincident_failure_diversity) == pytest.approx(2 / 3)


@settings(max_examples=100, deadline=None)
@given(naive.member_problem(max_trees=7, max_samples=20))
def test_kuncheva_whitaker_identities(problem):
    L, y, C = problem
    T = L.shape[0]
    if T < 2:
        return
    pw = pairwise_diversity(L, y, n_classes=C)
    npw = nonpairwise_diversity(L, y, n_classes=C)
    # KW = (L - 1) / (2L) * D_av (Kuncheva & Whitaker 2003, eq. 16)
    assert float(npw.kw_variance) == pytest.approx((T - 1) / (2 * T) *
                                                    float(pw.mean_disagreement), abs=1e-12)
    p = float(npw.mean_member_accuracy)
    if 0 < p < 1:  # kappa = 1 - L / ((L - 1) p (1 - p)) KW (eq. 18)
        assert float(npw.interrater_kappa) == pytest.approx(
            1 - T / ((T - 1) * p * (1 - p)) * float(npw.kw_variance), abs=1e-10)
    # disagreement is symmetric with a zero diagonal; double fault's diagonal is e_t
    d = pw.disagreement.values
    assert np.allclose(d, d.T) and np.all(np.diag(d) == 0)
    np.testing.assert_allclose(np.diag(pw.double_fault.values), pw.member_error.values)


def test_deslib_agreement():
    diversity = pytest.importorskip("deslib.util.diversity",
                                    reason="deslib is in the dev extra")
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    L = np.where(rng.random((5, 60)) < 0.7, y, rng.integers(0, 3, (5, 60)))
    ds = pairwise_diversity(L, y, n_classes=3)
    funcs = {"q_statistic": diversity.Q_statistic, "correlation": diversity.correlation_coefficient,
             "disagreement": diversity.disagreement_measure,
             "double_fault": diversity.double_fault}
    for name, func in funcs.items():
        ref = np.array([[func(y, L[t], L[k]) for k in range(5)] for t in range(5)])
        off = ~np.eye(5, dtype=bool)
        np.testing.assert_allclose(ds[name].values[off], ref[off], rtol=1e-12, err_msg=name)
        # DESlib sums each member's pair values; every pair appears twice in the total
        mean = diversity.compute_pairwise_diversity(y, L.T, func).sum() / (5 * 4)
        assert float(ds[f"mean_{name}"]) == pytest.approx(mean, rel=1e-12)


def test_leading_dims_broadcast():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, (2, 30))  # per fold test rows
    L = rng.integers(0, 3, (3, 2, 4, 30))
    da = xr.DataArray(L, dims=("alpha", "fold", "tree", "sample"),
                      coords={"alpha": [0.0, 0.5, 1.0]})
    yda = xr.DataArray(y, dims=("fold", "sample"))
    pw = pairwise_diversity(da, yda, n_classes=3)
    npw = nonpairwise_diversity(da, yda, n_classes=3)
    assert pw.q_statistic.dims == ("alpha", "fold", "tree", "tree_other")
    assert npw.kw_variance.dims == ("alpha", "fold")
    assert list(pw.alpha.values) == [0.0, 0.5, 1.0]
    for a in range(3):
        for f in range(2):
            one = pairwise_diversity(L[a, f], y[f], n_classes=3)
            xr.testing.assert_allclose(pw.kappa.isel(alpha=a, fold=f).drop_vars(["alpha", "fold"]),
                                       one.kappa)
            assert_close(float(npw.entropy[a, f]),
                         float(nonpairwise_diversity(L[a, f], y[f], n_classes=3).entropy))
    # plain NumPy leading dims and a shared y
    arr = pairwise_diversity(L[:, 0], y[0], n_classes=3)
    assert arr.mean_kappa.dims == ("dim_0",)


def test_bad_inputs():
    with pytest.raises(ValueError, match="samples"):
        pairwise_diversity([[0, 1]], [0, 1, 1])
    with pytest.raises(ValueError, match="member_labels"):
        nonpairwise_diversity([0, 1], [0, 1])
    with pytest.raises(ValueError, match="y"):
        pairwise_diversity(np.zeros((2, 2, 3), int), np.zeros((3, 3), int))
    with pytest.raises(TypeError, match="member_labels"):
        pairwise_diversity(np.array([["a", "b"]]), [0, 1])


def test_results_survive_netcdf(tmp_path):
    from treelab.analysis import bias_variance_01, margins

    rng = np.random.default_rng(7)
    y = rng.integers(0, 3, 20)
    L = xr.DataArray(rng.integers(0, 3, (2, 4, 20)), dims=("alpha", "tree", "sample"),
                     coords={"alpha": [0.0, 1.0]})
    for i, res in enumerate([pairwise_diversity(L, y, n_classes=3),
                             nonpairwise_diversity(L, y, n_classes=3),
                             margins(L, y, n_classes=3).to_dataset(),
                             bias_variance_01(L.rename(tree="repeat"), y, n_classes=3)]):
        path = tmp_path / f"r{i}.nc"
        res.to_netcdf(path)
        with xr.open_dataset(path) as back:
            xr.testing.assert_identical(back.load(), res)
