"""The one place where analysis results become xarray objects, and where inputs are checked.

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
import numbers
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
    "align_to",
    "as_array",
    "check_classes",
    "check_proba",
    "class_coord",
    "encode_labels",
    "encode_unseen",
    "make_attrs",
    "merge_results",
    "n_classes_of",
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


# --------------------------------------------------------------------------- input checks


def as_array(
    value: Any, name: str, dims: tuple[str, ...], *, labels: bool = False
) -> tuple[np.ndarray, dict]:
    """Turn a NumPy array or a DataArray with the expected dims into an ndarray.

    Returns the array in ``dims`` order and the coordinates the DataArray carried for those dims.
    Raises ``ValueError`` naming ``name`` when the number of dims or their names do not match.
    ``labels=True`` accepts class labels of any dtype (strings, objects), else numbers only.
    """
    coords: dict[str, np.ndarray] = {}
    if isinstance(value, xr.Dataset):
        raise TypeError(f"{name} must be an array or DataArray, got a Dataset")
    if isinstance(value, xr.DataArray):
        if set(value.dims) != set(dims) or value.ndim != len(dims):
            raise ValueError(f"{name} must have dims {dims}, got {value.dims}")
        value = value.transpose(*dims)
        for dim in dims:
            if dim in value.indexes:
                coords[dim] = np.asarray(value.indexes[dim])
        arr = np.asarray(value.values)
    else:
        try:
            arr = np.asarray(value)
        except Exception as exc:  # e.g. ragged lists
            raise TypeError(f"{name} must be array-like: {exc}") from exc
        if arr.ndim != len(dims):
            raise ValueError(
                f"{name} must be {len(dims)}-d with dims {dims}, got shape {arr.shape}"
            )
    if arr.dtype == object and not labels:
        raise TypeError(f"{name} must hold numbers, got dtype object")
    if arr.dtype == object and arr.size:
        types = set(map(type, arr.ravel()))
        floats = [t for t in types if issubclass(t, float)]
        if type(None) in types or (
            floats and any(isinstance(v, float) and v != v for v in arr.ravel())
        ):
            raise ValueError(f"{name} holds a missing label (None or NaN)")
        if len({_kind(t) for t in types}) > 1:
            raise TypeError(
                f"{name} mixes label types {sorted(t.__name__ for t in types)}; "
                "use one type for every label"
            )
    return arr, coords


def _kind(kind: type) -> str:
    """Labels of one kind compare with each other: numbers, strings, or one other type."""
    if issubclass(kind, numbers.Number):
        return "number"
    return "str" if issubclass(kind, str) else kind.__name__


def align_to(
    arr: np.ndarray, coords: dict, ref_coords: dict, name: str, ref_name: str, dims: tuple
) -> np.ndarray:
    """Reorder ``arr`` (with ``coords`` for ``dims``) to the coordinates of ``ref_coords``.

    DataArray inputs are paired by coordinate, never by position: where both carry a
    coordinate for a dim, equal coordinates pass, the same labels in another order are
    reordered, and anything else is a ``ValueError`` naming both arguments.
    """
    for axis, dim in enumerate(dims):
        if dim not in coords or dim not in ref_coords:
            continue
        mine, ref = np.asarray(coords[dim]), np.asarray(ref_coords[dim])
        if mine.shape == ref.shape and np.array_equal(mine, ref):
            continue
        if (
            mine.shape == ref.shape
            and np.unique(ref).size == ref.size
            and np.array_equal(np.sort(mine), np.sort(ref))
        ):
            order = np.argsort(mine, kind="stable")[np.argsort(np.argsort(ref, kind="stable"))]
            arr = np.take(arr, order, axis=axis)
            continue
        only_mine = np.setdiff1d(mine, ref)[:5].tolist()
        only_ref = np.setdiff1d(ref, mine)[:5].tolist()
        raise ValueError(
            f"{name} and {ref_name} have different {dim!r} coordinates (only in {name}: "
            f"{only_mine}, only in {ref_name}: {only_ref}); select the common labels first "
            "(e.g. xarray.align(..., join='inner')) rather than pairing them by position"
        )
    return arr


def encode_unseen(arr: np.ndarray, name: str, classes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Map true labels onto codes with ``classes``; a label not in ``classes`` (a class the
    model never saw) gets code C + j, j its position among the sorted unseen labels.

    Returns the codes and the unseen labels (empty when every label is known).
    """
    classes = check_classes(classes)
    known = np.isin(arr, classes)
    if known.all():
        return encode_labels(arr, name, classes=classes), classes[:0]
    unseen = np.unique(arr[~known])
    codes = np.empty(arr.shape, dtype=np.int64)
    codes[known] = encode_labels(arr[known], name, classes=classes)
    codes[~known] = len(classes) + np.searchsorted(unseen, arr[~known])
    return codes, unseen


def encode_labels(
    arr: np.ndarray, name: str, *, classes: Any = None, n_classes: int | None = None
) -> np.ndarray:
    """Check integer class codes, or map original labels onto codes with ``classes``."""
    if classes is not None:
        classes = check_classes(classes)
        sorter = np.argsort(classes, kind="stable")
        pos = np.searchsorted(classes, arr, sorter=sorter).clip(0, len(classes) - 1)
        codes = sorter[pos]
        if arr.size and not np.all(classes[codes] == arr):
            bad = arr[classes[codes] != arr].ravel()[0]
            raise ValueError(f"{name} holds label {bad!r} that is not in classes")
        return codes.astype(np.int64)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            from treelab.analysis._model_checks import REGRESSION_MEASURES

            raise ValueError(f"{name} must hold integer class codes 0..C-1; it holds real "
                             "values (or NaN), which are no class labels: for the outputs of "
                             f"a regression use {REGRESSION_MEASURES}")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must hold integer class codes (or pass classes=), got {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} holds negative class codes")
    if n_classes is not None and arr.size and arr.max() >= n_classes:
        raise ValueError(f"{name} holds class code {arr.max()} >= n_classes={n_classes}")
    return arr


def check_classes(classes: Any) -> np.ndarray:
    """``classes`` as a 1-d array of distinct labels (``ValueError`` naming it otherwise)."""
    arr = np.asarray(classes)
    if arr.ndim != 1:
        raise ValueError(f"classes must be 1-d, got shape {arr.shape}")
    try:
        distinct = np.unique(arr).size
    except TypeError as exc:  # labels of types that do not compare
        raise TypeError(f"classes must hold labels of one comparable type: {exc}") from exc
    if distinct != arr.size:
        raise ValueError(f"classes holds duplicate labels: {arr.tolist()}")
    return arr


def n_classes_of(*codes: np.ndarray, classes: Any = None, n_classes: int | None = None) -> int:
    """Number of classes: ``len(classes)``, else ``n_classes``, else the largest code + 1."""
    if classes is not None:
        n = len(check_classes(classes))
        if n_classes is not None and n_classes != n:
            raise ValueError(f"n_classes={n_classes} disagrees with len(classes)={n}")
        return n
    if n_classes is not None:
        if int(n_classes) != n_classes or n_classes < 1:
            raise ValueError(f"n_classes must be a positive integer, got {n_classes!r}")
        return int(n_classes)
    return int(max((c.max() for c in codes if c.size), default=0)) + 1


#: How far a probability row may sum from 1.
SUM_TOLERANCE = 1e-6


def check_proba(arr: np.ndarray, name: str, *, rows_sum_to_one: bool = True) -> np.ndarray:
    """Check a finite probability array (values in [0, 1]) whose rows along the last axis
    (the classes) sum to 1 within 1e-6 (unless ``rows_sum_to_one=False``)."""
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must hold numbers, got {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} holds NaN or infinite values")
    if arr.size and (arr.min() < 0 or arr.max() > 1 + 1e-9):
        raise ValueError(f"{name} must hold probabilities in [0, 1]")
    if rows_sum_to_one and arr.size:
        gap = np.abs(arr.sum(axis=-1) - 1.0)
        if gap.max() > SUM_TOLERANCE:
            where = np.unravel_index(int(np.argmax(gap)), gap.shape)
            raise ValueError(
                f"{name} rows must sum to 1 (within {SUM_TOLERANCE:g}); row {list(where)} sums "
                f"to {float(arr[where].sum()):.9g}"
            )
    return arr


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
