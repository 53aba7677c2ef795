"""The one place where analysis results become xarray objects (inputs are checked in
:mod:`treelab.analysis._inputs`).

Every public measure in :mod:`treelab.analysis` computes plain NumPy arrays and hands them to
:func:`to_dataset` (or :func:`to_dataarray`) with a :class:`Var` per output variable. The builder

* checks that every dim is one of the names in :mod:`treelab._dims`;
* gives every dim a coordinate (``class`` carries the original labels, ``tree``/``sample``/``bin``
  integer positions unless the input carried its own coordinate);
* writes ``long_name``, ``units`` (``"1"`` for dimensionless quantities), ``valid_range`` where a
  quantity is bounded and ``cite`` on every variable;
* stamps provenance attrs: ``treelab_version``, ``function``, ``params`` (a JSON string) and
  ``cite`` (the sources of every definition in the result).

Attrs are netCDF-safe only (str, number, list of numbers), so every result survives
``to_netcdf`` / ``open_dataset`` unchanged. No timestamp is stored, so equal inputs give
identical results.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims

# the sources stay importable from here, where the measures used to find them
from treelab.analysis._cite import *  # noqa: F403
from treelab.analysis._cite import CITE_TREELAB

__all__ = [
    "Checked",
    "Var",
    "class_coord",
    "make_attrs",
    "merge_results",
    "vote_counts",
    "to_dataarray",
    "checked_variables",
    "dataset_variables",
    "to_dataset",
]

_KNOWN_DIMS = frozenset(
    value for name, value in vars(_dims).items() if name.isupper() and isinstance(value, str)
)

class Var(NamedTuple):
    """One output variable: dims, values and the attrs every result variable carries."""

    dims: tuple[str, ...]
    data: Any
    long_name: str
    units: str = "1"
    valid_range: tuple[float, float] | None = None
    cite: str = CITE_TREELAB
    description: str = ""


@functools.lru_cache(maxsize=1)
def _version() -> str:
    try:
        return metadata.version("treelab")
    except metadata.PackageNotFoundError:
        try:
            import treelab

            return str(getattr(treelab, "__version__", "unknown"))
        except Exception:  # pragma: no cover - defensive: never fail a result over a version
            return "unknown"


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray | xr.DataArray):
        arr = np.asarray(value)
        if arr.size <= 8:
            return arr.tolist()
        return f"<array shape={list(arr.shape)} dtype={arr.dtype}>"
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    return repr(value)


def make_attrs(function: str, params: Mapping[str, Any], cite: Sequence[str] = ()) -> dict:
    """Provenance attrs of a result (netCDF-safe: strings only).

    Parameters
    ----------
    function : str
        Public name of the function that made the result (``"treelab.analysis.<name>"``).
    params : mapping
        Parameters of the call; arrays are summarised by shape, ``None`` becomes JSON ``null``.
    cite : sequence of str
        Sources of the definitions in the result; joined with ``"; "``.
    """
    unique = list(dict.fromkeys(c for c in cite if c))
    return {
        "treelab_version": _version(),
        "function": function,
        "params": json.dumps(dict(params), default=_json_default, sort_keys=True),
        "cite": "; ".join(unique) if unique else CITE_TREELAB,
    }


def _var_attrs(var: Var) -> dict:
    attrs: dict[str, Any] = {"long_name": var.long_name, "units": var.units, "cite": var.cite}
    if var.valid_range is not None:
        attrs["valid_range"] = [float(var.valid_range[0]), float(var.valid_range[1])]
    if var.description:
        attrs["description"] = var.description
    return attrs


class Checked(NamedTuple):
    """A result variable as :func:`to_dataset` puts it into its Dataset, in plain NumPy: its
    dims, its values (booleans as int8) and its attrs (``long_name``, ``units``, ``cite``, ...)."""

    dims: tuple[str, ...]
    data: np.ndarray
    attrs: dict

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype


def checked_variables(
    variables: Mapping[str, Var],
    coords: Mapping[str, Any] | None = None,
    *,
    check_dims: bool = True,
) -> tuple[dict[str, Checked], dict[str, np.ndarray]]:
    """The data variables and the coordinate values of their dims that :func:`to_dataset`
    puts into its Dataset (checked the same way), as NumPy arrays: for a caller that reads
    them without building xarray objects (the experiment runner stores a few values per cell,
    and building a Variable per value cost more than the measures of a small data set)."""
    coords = dict(coords or {})
    data_vars = {}
    sizes: dict[str, int] = {}
    for name, var in variables.items():
        data = np.asarray(var.data)
        if data.ndim != len(var.dims):
            raise AssertionError(f"{name}: {data.ndim}-d data for dims {var.dims}")
        for dim, size in zip(var.dims, data.shape, strict=True):
            if check_dims and dim not in _KNOWN_DIMS:
                raise AssertionError(f"{name}: dim {dim!r} is not a treelab._dims name")
            if sizes.setdefault(dim, size) != size:
                raise AssertionError(f"{name}: dim {dim!r} has sizes {sizes[dim]} and {size}")
        if data.dtype == np.bool_:
            data = data.astype(np.int8)
        data_vars[name] = Checked(tuple(var.dims), data, _var_attrs(var))
    coord_values = {}
    for dim, size in sizes.items():
        values = coords.get(dim)
        values = np.arange(size) if values is None else np.asarray(values)
        if values.shape != (size,):
            raise AssertionError(f"coordinate {dim!r} has shape {values.shape}, dim size {size}")
        if values.dtype == object:
            values = values.astype(str)
        coord_values[dim] = values
    return data_vars, coord_values


def dataset_variables(
    variables: Mapping[str, Var],
    coords: Mapping[str, Any] | None = None,
    *,
    check_dims: bool = True,
) -> tuple[dict[str, xr.Variable], dict[str, xr.Variable]]:
    """The data and coordinate variables :func:`to_dataset` puts into its Dataset
    (:func:`checked_variables` as xarray Variables)."""
    data_vars, coord_values = checked_variables(variables, coords, check_dims=check_dims)
    return ({name: xr.Variable(var.dims, var.data, attrs=var.attrs)
             for name, var in data_vars.items()},
            {dim: xr.Variable((dim,), values) for dim, values in coord_values.items()})


def to_dataset(
    variables: Mapping[str, Var],
    *,
    function: str,
    params: Mapping[str, Any],
    coords: Mapping[str, Any] | None = None,
    check_dims: bool = True,
) -> xr.Dataset:
    """Assemble a result Dataset with named dims, coordinates and attrs.

    Parameters
    ----------
    variables : mapping of str to Var
        Output variables.
    function : str
        Short name of the public function (prefixed with ``treelab.analysis.``).
    params : mapping
        Parameters of the call, stored as a JSON string.
    coords : mapping, optional
        Coordinate values per dim (1-D). Dims without one get ``0..n-1``.
    check_dims : bool, default True
        Require every dim to be a :mod:`treelab._dims` name (off only for dims a caller's own
        DataArray brought in).

    Returns
    -------
    xarray.Dataset
    """
    data_vars, coord_vars = dataset_variables(variables, coords, check_dims=check_dims)
    cites = [var.cite for var in variables.values()]
    attrs = make_attrs(f"treelab.analysis.{function}", params, cites)
    return xr.Dataset(data_vars, coords=coord_vars, attrs=attrs)


def to_dataarray(
    name: str,
    var: Var,
    *,
    function: str,
    params: Mapping[str, Any],
    coords: Mapping[str, Any] | None = None,
    check_dims: bool = True,
) -> xr.DataArray:
    """Like :func:`to_dataset` for a single variable; provenance attrs join the variable's."""
    ds = to_dataset(
        {name: var}, function=function, params=params, coords=coords, check_dims=check_dims
    )
    out = ds[name]
    out.attrs = {**ds.attrs, **out.attrs}
    return out


def class_coord(n_classes: int, classes: Any = None) -> np.ndarray:
    """Class coordinate: the original labels when given, else the codes."""
    return np.arange(n_classes) if classes is None else np.asarray(classes)


def vote_counts(labels: np.ndarray, n_classes: int, mask: np.ndarray | None = None
                ) -> np.ndarray:
    """Votes per (..., sample, class): how many members predict each class on each row.

    ``labels`` are class codes (..., tree, sample); leading dims are kept. With ``mask`` (the
    shape of ``labels``) only the votes where it is True count (out-of-bag votes, say).
    """
    *lead, n_trees, n_samples = labels.shape
    n_lead = int(np.prod(lead, dtype=np.int64))
    base = (np.arange(n_lead)[:, None] * n_samples + np.arange(n_samples)[None, :]) * n_classes
    flat = base[:, None, :] + labels.reshape(n_lead, n_trees, n_samples)
    if mask is not None:
        flat = flat[mask.reshape(flat.shape)]
    counts = np.bincount(flat.ravel(), minlength=n_lead * n_samples * n_classes)
    return counts.reshape(*lead, n_samples, n_classes)


def merge_results(
    results: Sequence[xr.Dataset | xr.DataArray],
    *,
    function: str,
    params: Mapping[str, Any],
) -> xr.Dataset:
    """Merge result Datasets/DataArrays made by :func:`to_dataset` into one, re-stamped.

    Variable attrs are kept; the provenance attrs are replaced by those of ``function``, with
    the union of the parts' ``cite`` attrs. Variable names must not collide.
    """
    data_vars: dict[str, xr.Variable] = {}
    coord_vars: dict[str, xr.Variable] = {}
    cites: list[str] = []
    for res in results:
        ds = res.to_dataset() if isinstance(res, xr.DataArray) else res
        cites.extend(str(ds.attrs.get("cite", "")).split("; "))
        for name, da in ds.data_vars.items():
            if name in data_vars:
                raise AssertionError(f"merge_results: variable {name!r} appears twice")
            attrs = {k: v for k, v in da.attrs.items() if k in _VAR_ATTRS}
            data_vars[str(name)] = xr.Variable(da.dims, da.values, attrs=attrs)
        for name, da in ds.coords.items():
            if name in coord_vars and not coord_vars[name].equals(da.variable):
                raise AssertionError(f"merge_results: coordinate {name!r} differs between parts")
            coord_vars[str(name)] = da.variable
    merged = xr.Dataset(data_vars, coords=coord_vars)
    merged.attrs = make_attrs(f"treelab.analysis.{function}", params, cites)
    return merged


_VAR_ATTRS = ("long_name", "units", "valid_range", "cite", "description")


def margin_counts(votes: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Margins in votes and the rival class from vote counts (..., sample, class).

    m_i = v_i(y_i) - max_{c != y_i} v_i(c), the rival c(i) being the most-voted class other
    than y_i (ties to the lowest index; with one class only, a class with no votes). Integer
    arithmetic, so margins in units of 1/T are exact.

    Returns
    -------
    m : ndarray of int64, (..., sample)
    rival : ndarray of int64, (..., sample)
    """
    if votes.shape[-1] < 2:  # there is always an "other" class, possibly with no votes
        pad = np.zeros(votes.shape[:-1] + (2 - votes.shape[-1],), votes.dtype)
        votes = np.concatenate([votes, pad], axis=-1)
    yy = y[..., None]
    own = np.take_along_axis(votes, yy, axis=-1)[..., 0]
    others = votes.astype(np.int64)  # a copy: the true class is masked out below
    np.put_along_axis(others, yy, -1, axis=-1)
    rival = np.argmax(others, axis=-1)
    m = own.astype(np.int64) - np.take_along_axis(others, rival[..., None], axis=-1)[..., 0]
    return m, rival
