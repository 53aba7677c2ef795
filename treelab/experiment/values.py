"""The values of a store line: a measure's Dataset reduced to what a cell (or a group of
cells) keeps (:class:`Kept`), and encoded as plain JSON (:func:`record_values`)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims

__all__ = ["Kept", "encode_values", "kept_scalar", "own_dims", "record_values",
           "reduce_measure", "reduce_variables", "safe_attrs"]


class Kept(NamedTuple):
    """A value a store line keeps: its dims, its NumPy data, its attrs and the coordinate
    values of those of its dims that have one: what a store line reads of a DataArray,
    without building one (xarray's constructors were most of a small cell's bookkeeping, and
    the first Variable built the usual way imports ``dask.array``, 0.25 s of a worker's
    start). :func:`record_values` reads a DataArray the same way."""

    dims: tuple[str, ...]
    data: np.ndarray
    attrs: dict[str, Any]
    coords: Mapping[str, np.ndarray] = {}  # noqa: RUF012 - never written to (read-only use)

    def rename(self, names: Mapping[str, str]) -> Kept:
        """The same value with dims (and their coordinates) renamed as ``names`` says."""
        return Kept(tuple(names.get(d, d) for d in self.dims), self.data, self.attrs,
                    {names.get(d, d): v for d, v in self.coords.items()})


def kept_scalar(value: Any, attrs: dict[str, Any]) -> Kept:
    """A 0-d value (a number) with its attrs."""
    return Kept((), np.asarray(value), attrs)


def _tree_mean(var: xr.Variable) -> Any:
    """``DataArray.mean("tree")``'s value for a (tree,) variable, computed as xarray's
    reduction computes it without its dispatch (most of a small cell's time in this function
    went to that dispatch and its warning filters): floats skip NaN (NumPy's ``nanmean``:
    the sum of the values other than NaN over their count; NaN, without a warning, when every
    value is NaN), other numbers take NumPy's ``mean``. ``tests/test_experiment_values.py``
    compares the two."""
    data = np.asarray(var.data)
    if data.dtype.kind in "fc":
        if data.size == 0 or np.isnan(data).all():
            with warnings.catch_warnings():  # "Mean of empty slice", as xarray's filter
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(data, axis=0)
        return np.nanmean(data, axis=0)
    return np.mean(data, axis=0)


def reduce_measure(ds: xr.Dataset, *, tree_means: bool = True) -> dict[str, Kept]:
    """Keep numeric variables without a sample dim; per-tree ones become their tree mean
    (``tree_means``) or are left out."""
    variables = ds.variables
    return reduce_variables({str(name): variables[name] for name in ds.data_vars},
                            {str(dim): variables[dim] for dim in ds.dims if dim in variables},
                            tree_means=tree_means)


def reduce_variables(data_vars: Mapping[str, Any], coords: Mapping[str, Any], *,
                     tree_means: bool = True) -> dict[str, Kept]:
    """:func:`reduce_measure` on a measure's data variables and the coordinates of their
    dims: xarray Variables (a Dataset's), or ``treelab.analysis._dataset.checked_variables``'
    plain arrays (no Dataset built, no xarray object at all).

    The result keeps what a store line reads (dims, values, attrs and the coordinates of the
    variable's own dims): a per-variable ``ds[name]`` would build every coordinate again for
    each of some forty variables, most of a small cell's bookkeeping."""
    kept: dict[str, Kept] = {}
    for name, var in data_vars.items():
        if var.dtype.kind not in "biuf" or _dims.SAMPLE in var.dims:
            continue
        if _dims.TREE in var.dims:
            if tuple(var.dims) != (_dims.TREE,) or not tree_means:
                continue
            new = f"mean_{name}"
            if new in data_vars:
                continue  # the measure already reports it
            long_name = var.attrs.get("long_name", name)
            attrs = {**var.attrs, "long_name": f"mean over trees of {long_name}"}
            kept[new] = kept_scalar(_tree_mean(var), attrs)
        else:
            kept[name] = Kept(tuple(var.dims), np.asarray(var.data), var.attrs,
                              {d: np.asarray(coords[d]) for d in var.dims if d in coords})
    return kept


def own_dims(measure: str, variables: dict[str, Kept], owners: dict[str, str]
             ) -> dict[str, Kept]:
    """Give a measure's dims names of their own: the first configured measure that reports a
    dim keeps its name, a later measure's dim of the same name becomes ``<measure>_<dim>``
    (``topk_error`` after ``diagnose`` reports ``topk_error_k``), so two measures never share
    coordinates that may differ. ``owners`` maps each dim name to the measure that took it."""
    dims = {d for da in variables.values() for d in da.dims}
    rename = {}
    for dim in sorted(dims):
        if owners.setdefault(dim, measure) != measure:
            rename[dim] = f"{measure}_{dim}"
            owners[rename[dim]] = measure
    if not rename:
        return variables
    return {var: da.rename({d: rename[d] for d in da.dims if d in rename})
            for var, da in variables.items()}


def encode_values(da: Kept | xr.DataArray) -> dict[str, Any]:
    """A variable as ``{"dims", "data", "attrs"}`` of plain JSON values."""
    values = np.asarray(da.data)
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    return {"dims": list(da.dims), "data": values.tolist(), "attrs": safe_attrs(da.attrs)}


def safe_attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    """The attrs that survive JSON and netCDF: strings, numbers and lists of numbers."""
    out = {}
    for k, v in attrs.items():
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        if isinstance(v, str | int | float) or (isinstance(v, list)
                                                and all(isinstance(x, int | float) for x in v)):
            out[str(k)] = v
    return out


def record_values(variables: Mapping[str, Kept | xr.DataArray],
                  caught: list[warnings.WarningMessage]) -> dict[str, Any]:
    """``{"vars", "coords", "warnings"}`` of a store line: every variable encoded, the
    coordinates of their non-grid dims (``0..n-1`` where a dim has none) and the distinct
    warnings ``caught``. The variables are :class:`Kept` values or DataArrays (read alike)."""
    coords: dict[str, list[Any]] = {}
    for da in variables.values():
        for i, dim in enumerate(da.dims):
            if dim not in coords and dim in da.coords:
                coords[dim] = np.asarray(da.coords[dim]).tolist()
            elif dim not in coords:
                coords[dim] = list(range(np.shape(da.data)[i]))
    messages = sorted({f"{w.category.__name__}: {w.message}" for w in caught})
    return {"vars": {k: encode_values(v) for k, v in variables.items()}, "coords": coords,
            "warnings": messages}
