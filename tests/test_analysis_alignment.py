"""Labelled inputs are paired by coordinate, never by position."""

import numpy as np
import pytest
import scipy.stats
import xarray as xr

from treelab.analysis import (
    ambiguity,
    bias_variance_01,
    bias_variance_covariance,
    bias_variance_diversity,
    bias_variance_diversity_regression,
    diagnose_regression,
    error_ratio,
    errors,
    exact_mse,
    margins,
    nonpairwise_diversity,
    pairwise_diversity,
    thresholded_mse,
)
from treelab.stats import fit_error_ratio, mcnemar, probability_quality


def _labelled():
    rng = np.random.default_rng(1)
    n = 12
    L = rng.integers(0, 3, (4, n))
    y = rng.integers(0, 3, n)
    ids = np.arange(100, 100 + n)
    perm = rng.permutation(n)
    L_da = xr.DataArray(L, dims=("tree", "sample"), coords={"sample": ids})
    y_da = xr.DataArray(y[perm], dims=("sample",), coords={"sample": ids[perm]})
    return L, y, L_da, y_da


def test_member_measures_align_y_by_sample():
    L, y, L_da, y_da = _labelled()
    assert not np.array_equal(y_da.values, y)  # positions differ, labels agree
    got = errors(L_da, y_da, n_classes=3)
    ref = errors(L, y, n_classes=3)
    np.testing.assert_array_equal(got.member_error.values, ref.member_error.values)
    assert float(got.ensemble_error) == float(ref.ensemble_error)


def test_different_samples_are_refused():
    L, y, L_da, y_da = _labelled()
    other = y_da.assign_coords(sample=y_da.sample.values + 1)
    with pytest.raises(ValueError, match="different 'sample' coordinates"):
        errors(L_da, other, n_classes=3)


def test_probability_measures_align():
    rng = np.random.default_rng(2)
    P = rng.dirichlet(np.ones(3), 10)
    Q = rng.dirichlet(np.ones(3), 10)
    y = rng.integers(0, 3, 10)
    perm = rng.permutation(10)
    P_da = xr.DataArray(P, dims=("sample", "class"), coords={"sample": np.arange(10)})
    y_da = xr.DataArray(y[perm], dims=("sample",), coords={"sample": perm})
    got = thresholded_mse(P_da, y_da, thresholds="1.0").item()
    assert got == pytest.approx(thresholded_mse(P, y, thresholds="1.0").item())
    Q_da = xr.DataArray(Q[perm], dims=("sample", "class"), coords={"sample": perm})
    assert float(exact_mse(P_da, Q_da)) == pytest.approx(float(exact_mse(P, Q)))
    with pytest.raises(ValueError, match="true_proba and proba"):
        exact_mse(P_da, Q_da.assign_coords(sample=perm + 50))


def test_error_ratio_pairs_by_label_and_refuses_a_silent_inner_join():
    e = xr.DataArray([0.1, 0.2, 0.3], dims="dataset", coords={"dataset": ["a", "b", "c"]})
    s = xr.DataArray([0.6, 0.2, 0.4], dims="dataset", coords={"dataset": ["c", "a", "b"]})
    r = error_ratio(e, s)
    np.testing.assert_allclose(r.sel(dataset=["a", "b", "c"]).values, [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="only in ensemble_error: \\['c'\\]"):
        error_ratio(e, s.isel(dataset=[1, 2]))


def test_fit_error_ratio_refuses_different_dims():
    phi = xr.DataArray([0.1, 0.2, 0.3, 0.4], dims="dataset")
    ratio = xr.DataArray([0.5, 0.6, 0.7, 0.8], dims="point")
    with pytest.raises(ValueError, match="same dims"):
        fit_error_ratio(phi, ratio)
    fit = fit_error_ratio(phi, ratio.rename(point="dataset"))
    assert float(fit.slope) == pytest.approx(1.0)


def test_fit_error_ratio_pairs_labels_given_in_another_order():
    # the docstring promises the same labels "in any order"; the exact join refused them
    phi = xr.DataArray([0.1, 0.2, 0.3, 0.4, 0.5], dims="dataset",
                       coords={"dataset": ["a", "b", "c", "d", "e"]})
    ratio = xr.DataArray([0.9, 0.4, 0.8, 0.6, 0.7], dims="dataset",
                         coords={"dataset": ["e", "a", "d", "b", "c"]})
    fit = fit_error_ratio(phi, ratio)
    # by label: a 0.4, b 0.6, c 0.7, d 0.8, e 0.9 against phi 0.1 .. 0.5
    ref = scipy.stats.linregress([0.1, 0.2, 0.3, 0.4, 0.5], [0.4, 0.6, 0.7, 0.8, 0.9])
    assert float(fit.slope) == pytest.approx(ref.slope, rel=1e-12)
    assert float(fit.intercept) == pytest.approx(ref.intercept, rel=1e-12)
    assert float(fit.r) == pytest.approx(ref.rvalue, rel=1e-12)
    # labels missing on one side stay refused, never an inner join
    with pytest.raises(ValueError, match=r"only in phi_e: \['a'\], only in error_ratio: \[\]"):
        fit_error_ratio(phi, ratio.sel(dataset=["e", "d", "b", "c"]))
    with pytest.raises(ValueError, match=r"only in phi_e: \['e'\], only in error_ratio: \['f'\]"):
        fit_error_ratio(phi, ratio.assign_coords(dataset=["f", "a", "d", "b", "c"]))


def test_error_ratio_refuses_an_outer_product():
    e = xr.DataArray([0.1, 0.2], dims="point")
    s = xr.DataArray([0.2, 0.4], dims="other")
    with pytest.raises(ValueError, match="outer product"):
        error_ratio(e, s)
    # one single-model error per data set serves every alpha
    e2 = xr.DataArray([[0.1, 0.2], [0.3, 0.4]], dims=("dataset", "alpha"))
    s2 = xr.DataArray([0.2, 0.4], dims="dataset")
    np.testing.assert_allclose(error_ratio(e2, s2).transpose("dataset", "alpha").values,
                               [[0.5, 1.0], [0.75, 1.0]])


def test_missing_and_mixed_labels_are_refused():
    L = np.array([[0, 1, 1]])
    with pytest.raises(ValueError, match="y holds a missing label"):
        errors(L, np.array(["a", None, "b"], dtype=object), classes=["a", "b"])
    with pytest.raises(TypeError, match="y mixes label types"):
        errors(L, np.array(["a", 1, "b"], dtype=object), classes=["a", "b"])


def _permuted(values, ids, perm, dims=("sample",)):
    """``values`` (rows first) as a DataArray holding the same rows in the order ``perm``."""
    return xr.DataArray(np.asarray(values)[perm], dims=dims, coords={"sample": ids[perm]})


def test_batched_member_measures_align_y_by_sample():
    # margins, Kuncheva's measures and the 0-1 decompositions once paired a labelled y with
    # the members by position
    L, y, L_da, y_da = _labelled()
    np.testing.assert_array_equal(margins(L_da, y_da, n_classes=3).values,
                                  margins(L, y, n_classes=3).values)
    for measure in (pairwise_diversity, nonpairwise_diversity):
        got, ref = measure(L_da, y_da, n_classes=3), measure(L, y, n_classes=3)
        for name, var in ref.data_vars.items():
            np.testing.assert_array_equal(got[name].values, var.values, err_msg=name)
    R = np.stack([L, np.roll(L, 1, axis=1), L[::-1]])  # (repeat, tree, sample)
    R_da = xr.DataArray(R, dims=("repeat", "tree", "sample"),
                        coords={"sample": L_da.sample.values})
    assert float(bias_variance_01(L_da.rename(tree="repeat"), y_da, n_classes=3).loss) == \
        float(np.mean(L != y[None, :]))
    got = bias_variance_diversity(R_da, y_da, loss="zero_one", n_classes=3)
    ref = bias_variance_diversity(R, y, loss="zero_one", n_classes=3)
    assert float(got.expected_loss) == float(ref.expected_loss)
    with pytest.raises(ValueError, match="different 'sample' coordinates"):
        margins(L_da, y_da.assign_coords(sample=y_da.sample.values + 1), n_classes=3)


def test_classification_decomposition_aligns_a_labelled_target():
    rng = np.random.default_rng(4)
    K, M, n = 3, 4, 9
    P = rng.dirichlet(np.ones(3), (K, M, n))
    tau = rng.dirichlet(np.ones(3), n)
    ids, perm = np.arange(n) + 10, rng.permutation(n)
    P_da = xr.DataArray(P, dims=("repeat", "tree", "sample", "class"),
                        coords={"sample": ids})
    tau_da = _permuted(tau, ids, perm, ("sample", "class"))
    got = bias_variance_diversity(P_da, tau_da, loss="squared")
    # by hand: E_y ||y - q_bar||^2 = ||q_bar - y*||^2 + 1 - sum_c y*_c^2 (y drawn from the
    # target distribution y*), over repeats and rows
    expected = np.mean(np.sum((P.mean(axis=1) - tau[None]) ** 2, axis=2)
                       + 1 - np.sum(tau ** 2, axis=1)[None])
    assert float(got.expected_loss) == pytest.approx(expected, rel=1e-12)


def test_regression_measures_align_y_and_target_by_sample():
    rng = np.random.default_rng(0)
    K, M, n = 3, 4, 6
    F = rng.normal(size=(K, M, n))
    y = rng.normal(size=n)
    t = y + rng.normal(scale=0.1, size=n)
    ids, perm = np.arange(100, 100 + n), np.array([5, 3, 0, 1, 4, 2])
    F_da = xr.DataArray(F, dims=("repeat", "tree", "sample"), coords={"sample": ids})
    y_da, t_da = _permuted(y, ids, perm), _permuted(t, ids, perm)
    # by hand: the forests' squared error against y, and the bias of the mean forest
    assert float(bias_variance_diversity_regression(F_da, y_da).expected_loss) == \
        pytest.approx(np.mean((F.mean(axis=1) - y) ** 2), rel=1e-12)
    assert float(bias_variance_diversity_regression(F_da, y_da, target=t_da).average_bias) \
        == pytest.approx(np.mean((F.mean(axis=0) - t) ** 2), rel=1e-12)
    assert float(bias_variance_covariance(F_da, t_da).expected_loss) == \
        pytest.approx(np.mean((F.mean(axis=1) - t) ** 2), rel=1e-12)
    F2 = F_da.isel(repeat=0, drop=True)
    assert float(diagnose_regression(F2, None, y_da).mse) == \
        pytest.approx(np.mean((F[0].mean(axis=0) - y) ** 2), rel=1e-12)
    assert float(ambiguity(F2, y=y_da).ensemble_mse) == \
        pytest.approx(np.mean((F[0].mean(axis=0) - y) ** 2), rel=1e-12)
    other = y_da.assign_coords(sample=ids[perm] + 1000)
    for call in (lambda: bias_variance_diversity_regression(F_da, other),
                 lambda: diagnose_regression(F2, None, other),
                 lambda: ambiguity(F2, y=other)):
        with pytest.raises(ValueError, match="different 'sample' coordinates"):
            call()


def test_per_row_thresholds_align_by_sample():
    rng = np.random.default_rng(5)
    n = 10
    P = rng.dirichlet(np.ones(3), n)
    y = rng.integers(0, 3, n)
    v = rng.uniform(0.2, 0.8, n)
    ids, perm = np.arange(n), rng.permutation(n)
    P_da = xr.DataArray(P, dims=("sample", "class"), coords={"sample": ids})
    # by hand: (1 - min(1, p_true / v))^2 on each row, v the row's own threshold
    expected = np.mean((1 - np.minimum(1, P[np.arange(n), y] / v)) ** 2)
    for thresholds in (_permuted(v, ids, perm), {"cost": _permuted(v, ids, perm)}):
        assert thresholded_mse(P_da, y, thresholds=thresholds).item() == \
            pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="different 'sample' coordinates"):
        thresholded_mse(P_da, y, thresholds=_permuted(v, ids + 50, perm))


def test_probability_quality_pairs_y_with_proba_rows_by_label():
    # y's rows listed in another order: each row keeps its own label (paired by position the
    # Brier score of these 8 rows read 0.80 instead of 0.15)
    P = np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.2, 0.8],
                  [0.6, 0.4], [0.1, 0.9], [0.7, 0.3], [0.4, 0.6]])
    y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    rows = np.arange(10, 18)
    perm = np.array([3, 0, 6, 1, 7, 2, 5, 4])
    P_da = xr.DataArray(P, dims=("sample", "class"), coords={"sample": rows})
    y_da = xr.DataArray(y[perm], dims=("sample",), coords={"sample": rows[perm]})
    brier = sum((P[i, 0] - (y[i] == 0)) ** 2 + (P[i, 1] - (y[i] == 1)) ** 2
                for i in range(8)) / 8
    log_loss = -sum(np.log(P[i, y[i]]) for i in range(8)) / 8
    ds = probability_quality(P_da, y_da)
    assert float(ds.brier) == pytest.approx(brier, rel=1e-12)
    assert float(ds.log_loss) == pytest.approx(log_loss, rel=1e-12)
    assert float(ds.auc_ovr) == 1.0  # every row of class 1 above every row of class 0
    with pytest.raises(ValueError, match="y and proba have different 'sample'"):
        probability_quality(P_da, y_da.assign_coords(sample=rows[perm] + 1))


def test_mcnemar_pairs_predictions_and_labels_by_sample():
    # 30 rows: a wrong and b right on rows 0-9, a right and b wrong on row 10, both right on
    # the rest (n01 = 10, n10 = 1: exact p = 2 P(Bin(11, 1/2) <= 1) = 24 / 2048). pred_b and
    # y come in other row orders; paired by position they gave other counts
    rows = np.arange(100, 130)
    y = np.zeros(30, int)
    a = np.zeros(30, int)
    b = np.zeros(30, int)
    a[:10] = 1
    b[10] = 1
    rng = np.random.default_rng(3)
    pb, py = rng.permutation(30), rng.permutation(30)
    A = xr.DataArray(a, dims="sample", coords={"sample": rows})
    B = xr.DataArray(b[pb], dims="sample", coords={"sample": rows[pb]})
    Y = xr.DataArray(y[py], dims="sample", coords={"sample": rows[py]})
    for args in ((A, B, Y), (A, B, y), (a, B.sortby("sample"), Y)):
        ds = mcnemar(*args)
        assert (int(ds.n01), int(ds.n10)) == (10, 1)
        assert float(ds.p_value) == pytest.approx(24 / 2048, rel=1e-12)
        assert float(ds.p_value) == pytest.approx(scipy.stats.binomtest(1, 11).pvalue)
    with pytest.raises(ValueError, match="pred_b and pred_a have different 'sample'"):
        mcnemar(A, B.assign_coords(sample=rows[pb] + 1), y)


def test_probability_quality_refuses_classes_against_the_class_coordinate():
    # columns labelled a, b by proba's coordinate; classes=["b", "a"] would read the column of
    # a as b's: a Brier score of 1.29 where the columns' own labels give 0.09
    P = np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]])
    y = np.array(["a", "b", "a"])
    P_da = xr.DataArray(P, dims=("sample", "class"), coords={"class": ["a", "b"]})
    brier = ((0.1 ** 2 + 0.1 ** 2) + (0.2 ** 2 + 0.2 ** 2) + (0.3 ** 2 + 0.3 ** 2)) / 3
    assert float(probability_quality(P_da, y, classes=["a", "b"]).brier) == pytest.approx(
        brier, rel=1e-12)
    with pytest.raises(ValueError, match="class coordinate of proba labels its columns"):
        probability_quality(P_da, y, classes=["b", "a"])
    # other labels than the coordinate's name the columns two ways too
    with pytest.raises(ValueError, match="class coordinate of proba labels its columns"):
        probability_quality(P_da, np.array(["x", "y", "x"]), classes=["x", "y"])
    # codes as the coordinate (treelab's default) and labels as classes: no conflict
    codes = P_da.assign_coords({"class": [0, 1]})
    assert float(probability_quality(codes, y, classes=["a", "b"]).brier) == pytest.approx(
        brier, rel=1e-12)
