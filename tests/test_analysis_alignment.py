"""Labelled inputs are paired by coordinate, never by position."""

import numpy as np
import pytest
import xarray as xr

from treelab.analysis import error_ratio, errors, exact_mse, thresholded_mse
from treelab.stats import fit_error_ratio


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
