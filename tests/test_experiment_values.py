"""A cell's values (treelab.experiment.values): reduce_measure against xarray's own
per-variable reduction."""

import json

import numpy as np
import pytest
import xarray as xr

from treelab.experiment.values import record_values, reduce_measure


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
        assert got["mean_share"].item() == np.nanmean(share)
