"""A cell's values (treelab.experiment.values): reduce_measure against xarray's own
per-variable reduction."""

import json

import numpy as np
import pytest
import xarray as xr

from treelab.experiment.values import record_values, reduce_measure, reduce_variables


def _reference(ds, tree_means):
    # the plain reading: every variable through ds[name] and DataArray.mean("tree")
    kept = {}
    for name, da in ds.data_vars.items():
        if da.dtype.kind not in "biuf" or "sample" in da.dims:
            continue
        if "tree" in da.dims:
            if da.dims != ("tree",) or not tree_means or f"mean_{name}" in ds.data_vars:
                continue
            mean = da.mean("tree")
            mean.attrs = {**da.attrs, "long_name": "mean over trees of "
                          + da.attrs.get("long_name", name)}
            kept[f"mean_{name}"] = mean
        else:
            kept[name] = da
    return kept


@pytest.mark.parametrize("tree_means", [True, False])
def test_reduce_measure_matches_dataarray_mean(tree_means):
    rng = np.random.default_rng(0)
    share = rng.random(7) / 3
    share[[1, 4]] = np.nan  # trees without a decision node: skipped by the mean
    ds = xr.Dataset(
        {
            "share": ("tree", share, {"long_name": "random share", "units": "1"}),
            "n_nodes": ("tree", rng.integers(1, 10**6, 7)),
            "g": ("tree", rng.random(7) * 1e-3, {"long_name": "g"}),
            "mean_g": ((), 0.25),
            "error": ((), 0.125, {"long_name": "error", "valid_range": [0.0, 1.0]}),
            "count": ((), np.int64(3)),
            "topk": ("k", [0.5, 0.25, 0.0]),
            "class_error": ("class", [0.1, 0.2]),
            "pair": (("tree", "tree_other"), rng.random((7, 7))),
            "margin": ("sample", rng.random(5)),
            "name": ((), "text"),
        },
        coords={"tree": np.arange(7), "k": [1, 2, 3], "class": ["a", "b"], "alpha": 0.5,
                "ensemble": "VRTrees"},
    )
    got = reduce_measure(ds, tree_means=tree_means)
    want = _reference(ds, tree_means)
    assert list(got) == list(want)
    assert json.dumps(record_values(got, [])) == json.dumps(record_values(want, []))
    if tree_means:
        assert got["mean_share"].data.item() == np.nanmean(share)


@pytest.mark.parametrize("combine", ["average", "vote"])
def test_diagnose_parts_store_the_datasets_values(combine):
    # the runner stores a cell's diagnose values from its parts; they must be the values of
    # the Dataset diagnose returns (string labels, four classes, one class absent from the
    # training rows, so the test rows hold an unseen class)
    import treelab
    from treelab.analysis import diagnose
    from treelab.analysis._dataset import checked_variables, dataset_variables
    from treelab.analysis.diagnose import diagnose_parts

    rng = np.random.default_rng(3)
    X = rng.random((260, 5))
    y = np.array(["ant", "bee", "cat", "dog"])[(X[:, 0] * 3.99).astype(int)]
    train = y != "dog"
    train[200:] = False
    est = treelab.VRTrees(alpha=0.5, n_estimators=12, random_state=2, combine=combine)
    est.fit(X[train], y[train])
    counts = est.member_counts(X[200:])
    kwargs = dict(X_train=X[train], y_train=y[train], member_counts=counts)
    ds = diagnose(est, X[200:], y[200:], **kwargs)
    parts = diagnose_parts(est, X[200:], y[200:], **kwargs)
    want = record_values(reduce_measure(ds), [])
    got = record_values(reduce_variables(*checked_variables(parts.variables, parts.coords)), [])
    assert json.dumps(got) == json.dumps(want)
    # the same from the parts as xarray Variables
    via = record_values(reduce_variables(*dataset_variables(parts.variables, parts.coords)), [])
    assert json.dumps(via) == json.dumps(want)
    assert got["coords"]["class"] == ["ant", "bee", "cat", "dog"]
    assert "mean_member_error" in got["vars"]


@pytest.mark.parametrize("values", [
    np.random.default_rng(1).random(100),
    np.r_[np.random.default_rng(2).random(30) * 1e6, [np.nan, 1e-9, np.nan]],
    np.full(5, np.nan),  # every tree without a decision node: NaN, no warning
    np.random.default_rng(3).integers(0, 10**9, 64),
    np.random.default_rng(4).random(17).astype(np.float32),
    np.array([True, False, True]),
    np.array([1.0]),
])
def test_tree_mean_is_dataarray_mean_bit_for_bit(values):
    import warnings

    from treelab.experiment.values import _tree_mean

    var = xr.Variable("tree", values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be stored with the cell
        got = np.asarray(_tree_mean(var))
    want = xr.DataArray(var).mean("tree").values
    assert got.dtype == want.dtype and got.shape == want.shape == ()
    assert got.tobytes() == want.tobytes()
