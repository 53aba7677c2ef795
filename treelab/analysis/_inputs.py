"""Input checks of the analysis measures: arrays and DataArrays with the expected dims, class
labels encoded as codes (a test class the ensemble never saw gets a code of its own), class
lists, and probabilities. Each raises naming the argument, before any work."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims

__all__ = ["SUM_TOLERANCE", "align_to", "as_array", "check_class_coord", "check_classes",
           "check_proba", "check_row_sums", "encode_labels", "encode_unseen", "n_classes_of"]


def index_coords(value: Any) -> dict[str, np.ndarray]:
    """The labels a DataArray carries for its dims (those with an index); {} for anything
    else: what :func:`align_to` pairs arguments by."""
    if not isinstance(value, xr.DataArray):
        return {}
    return {str(d): np.asarray(value.indexes[d]) for d in value.dims if d in value.indexes}


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


def check_class_coord(classes: Any, coords: dict, name: str) -> None:
    """Refuse ``classes=`` that contradicts the ``class`` coordinate a DataArray ``name``
    carries: the coordinate labels the columns, so other labels, or the same ones in another
    order, would silently score each row against another class's column. A coordinate of the
    positions 0..C-1 (what treelab writes for unlabelled columns) labels nothing and lets
    ``classes=`` name the columns."""
    coord = coords.get(_dims.CLASS)
    if classes is None or coord is None:
        return
    coord = np.asarray(coord)
    if coord.dtype.kind in "iu" and np.array_equal(coord, np.arange(coord.size)):
        return
    given = np.asarray(classes).tolist()
    if coord.tolist() != given:
        raise ValueError(
            f"classes= lists {given[:5]} but the class coordinate of {name} labels its columns "
            f"{coord.tolist()[:5]}: leave out classes= (the coordinate names the columns) or "
            "give them in the coordinate's order")


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


def check_row_sums(arr: np.ndarray, what: str) -> None:
    """Refuse a probability array whose rows along the last axis (the classes) do not sum to
    1 within ``SUM_TOLERANCE``, naming ``what`` and the farthest row."""
    gap = np.abs(arr.sum(axis=-1) - 1.0)
    if gap.max() > SUM_TOLERANCE:
        where = [int(i) for i in np.unravel_index(int(np.argmax(gap)), gap.shape)]
        raise ValueError(f"{what} must sum to 1 (within {SUM_TOLERANCE:g}); row {where} sums "
                         f"to {float(arr[tuple(where)].sum()):.9g}")


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
        check_row_sums(arr, f"{name} rows")
    return arr
