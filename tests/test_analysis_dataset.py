"""Every result: named dims, coordinates, attrs, and an unchanged netCDF round trip."""

import json

import numpy as np
import pytest
import xarray as xr

from treelab import _dims
from treelab.analysis import (
    bias_variance,
    cost_sensitive_profit,
    error_arrangement,
    error_correlation,
    error_ratio,
    errors,
    exact_mse,
    gain_ties_from_counts,
    reliability,
    strength_correlation,
    thresholded_mse,
    topk_error,
)
from treelab.analysis._dataset import Var, merge_results, to_dataset

RNG = np.random.default_rng(11)
L = RNG.integers(0, 3, (6, 40))
Y = RNG.integers(0, 3, 40)
P = RNG.dirichlet(np.ones(3), 40)
CLASSES = np.array(["ant", "bee", "cat"])

RESULTS = {
    "errors": lambda: errors(L, Y),
    "error_correlation": lambda: error_correlation(L, Y),
    "error_correlation_1tree": lambda: error_correlation(L[:1], Y),
    "error_arrangement": lambda: error_arrangement(L, Y),
    "strength_correlation": lambda: strength_correlation(L, Y),
    "error_ratio": lambda: error_ratio(0.2, 0.25),
    "thresholded_mse": lambda: thresholded_mse(P, Y, thresholds=("1.0", "top2", "bayes", 0.3)),
    "exact_mse": lambda: exact_mse(P, P[::-1]),
    "topk_error": lambda: topk_error(P, Y),
    "reliability": lambda: reliability(P, CLASSES[Y], classes=CLASSES, bins=7),
    "reliability_quantile": lambda: reliability(P, Y, bins=4, strategy="quantile"),
    "bias_variance": lambda: bias_variance(RNG.dirichlet(np.ones(3), (5, 40)), P),
    "profit": lambda: cost_sensitive_profit(P, Y, benefit=np.arange(40.0), cost=3.0),
    "gain_ties": lambda: gain_ties_from_counts(np.array([3, 0, 2]), np.array([10, 0, 4])),
}
KNOWN = {v for k, v in vars(_dims).items() if k.isupper()}


def _check_attrs(obj):
    for key in ("treelab_version", "function", "params", "cite"):
        assert isinstance(obj.attrs[key], str) and obj.attrs[key]
    json.loads(obj.attrs["params"])
    assert obj.attrs["function"].startswith("treelab.analysis.")


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_labels_and_round_trip(name, tmp_path):
    res = RESULTS[name]()
    _check_attrs(res)
    ds = res.to_dataset() if isinstance(res, xr.DataArray) else res
    for var in ds.data_vars.values():
        assert {"long_name", "units", "cite"} <= set(var.attrs)
        assert set(var.dims) <= KNOWN
    for dim in ds.dims:
        assert dim in ds.coords
    for obj in [ds, *ds.data_vars.values()]:
        for value in obj.attrs.values():
            assert isinstance(value, str | int | float | list | np.number), (name, value)
    path = tmp_path / f"{name}.nc"
    res.to_netcdf(path)
    if isinstance(res, xr.DataArray):
        with xr.open_dataarray(path) as back:
            xr.testing.assert_identical(back.load(), res)
    else:
        with xr.open_dataset(path) as back:
            xr.testing.assert_identical(back.load(), res)


def test_class_coordinate_is_original_labels():
    ds = reliability(P, CLASSES[Y], classes=CLASSES)
    assert list(ds["class"].values) == list(CLASSES)
    ref = reliability(P, Y)
    np.testing.assert_array_equal(ds["count"].values, ref["count"].values)


def test_same_input_same_output():
    xr.testing.assert_identical(strength_correlation(L, Y), strength_correlation(L, Y))


def test_builder_rejects_unknown_dims_and_merges():
    with pytest.raises(AssertionError, match="dims"):
        to_dataset({"x": Var(("nonsense",), np.zeros(2), "x")}, function="f", params={})
    a = to_dataset({"x": Var((_dims.TREE,), np.zeros(2), "x")}, function="f", params={})
    b = topk_error(P, Y)
    m = merge_results([a, b], function="g", params={"p": 1})
    assert set(m.data_vars) == {"x", "topk_error"}
    assert m.attrs["function"] == "treelab.analysis.g"
    assert m.topk_error.attrs["long_name"] == "top-k error rate"
    with pytest.raises(AssertionError, match="twice"):
        merge_results([a, a], function="g", params={})
