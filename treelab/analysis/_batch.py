"""Checked member labels for the measures: (tree, sample) with :func:`member_inputs`, and with
extra leading dims (``alpha``, ``fold``, ...) for the workbench measures.

The measures of :mod:`treelab.analysis.pairwise`, :mod:`~treelab.analysis.margins` and friends
compute over the last dims (``tree``, ``sample``) and broadcast over any dims in front of them.
:func:`batched_labels` checks and flattens those leading dims into one batch axis;
:func:`build` restores them on the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import _KNOWN_DIMS, Var, class_coord, to_dataset
from treelab.analysis._inputs import (
    align_to,
    as_array,
    check_classes,
    encode_labels,
    encode_unseen,
    index_coords,
    n_classes_of,
)
from treelab.analysis.members import complete_classes, infer_classes, read_members

__all__ = [
    "Batch",
    "MemberInputs",
    "batched_labels",
    "build",
    "member_dataset",
    "member_inputs",
    "split_input",
]


class Batch(NamedTuple):
    """Checked member labels (batch, tree, sample), true labels (batch, sample), class count,
    names and sizes of the leading dims, and the coordinates the inputs carried."""

    labels: np.ndarray
    y: np.ndarray
    n_classes: int
    lead_dims: tuple[str, ...]
    lead_shape: tuple[int, ...]
    coords: dict


def split_input(value: Any, name: str, core: tuple[str, ...], *, labels: bool = False
                ) -> tuple[np.ndarray, tuple, dict]:
    """An array or DataArray whose *last* dims are ``core``: the array with those dims last,
    the names of the leading dims (``dim_0``, ... for NumPy input) and the carried coords."""
    if isinstance(value, xr.Dataset):
        raise TypeError(f"{name} must be an array or DataArray, got a Dataset")
    if isinstance(value, xr.DataArray):
        missing = [d for d in core if d not in value.dims]
        if missing:
            raise ValueError(f"{name} must have dims {core} (after any leading dims), got "
                             f"{value.dims}")
        lead = tuple(str(d) for d in value.dims if d not in core)
        value = value.transpose(*lead, *core)
        coords = index_coords(value)
        arr = np.asarray(value.values)
    else:
        try:
            arr = np.asarray(value)
        except Exception as exc:  # ragged lists
            raise TypeError(f"{name} must be array-like: {exc}") from exc
        if arr.ndim < len(core):
            raise ValueError(f"{name} must have at least {len(core)} dims {core}, got shape "
                             f"{arr.shape}")
        lead = tuple(f"dim_{i}" for i in range(arr.ndim - len(core)))
        coords = {}
    if arr.dtype == object and not labels:
        raise TypeError(f"{name} must hold numbers, got dtype object")
    return arr, lead, coords


def batched_labels(
    member_labels: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    classes: Any = None,
    member_dim: str = _dims.TREE,
    name: str = "member_labels",
    X: Any = None,
) -> Batch:
    """Validate member labels (..., tree, sample) and true labels (..., sample); encode both.

    ``y`` may carry any of the leading dims of ``member_labels`` (e.g. ``fold``, when each fold
    has its own test rows) or none of them. ``member_dim`` names the dim that plays ``tree``
    (``repeat`` for predictions from K training sets). ``member_labels`` may also be a model
    or a list of models, read on ``X``; string and object labels need no ``classes=`` (see
    :func:`~treelab.analysis._dataset.infer_classes`).
    """
    source, given = member_labels, classes
    member_labels, model_classes, _ = read_members(member_labels, X, y, name)
    classes = model_classes if classes is None else classes
    core = (member_dim, _dims.SAMPLE)
    labels, lead, coords = split_input(member_labels, name, core, labels=True)
    if isinstance(y, xr.DataArray):
        extra = [d for d in y.dims if d not in lead and d != _dims.SAMPLE]
        if extra or _dims.SAMPLE not in y.dims:
            raise ValueError(f"y must have dim 'sample' and only leading dims of {name} "
                             f"{lead}, got {y.dims}")
        y_coords = index_coords(y)
        y = y.expand_dims([d for d in lead if d not in y.dims]).transpose(*lead, _dims.SAMPLE)
        # paired with the member labels by coordinate, never by position: the same labels in
        # another order are reordered, different ones refused (docs/measures/correctness.md)
        y_arr = align_to(np.asarray(y.values), y_coords, coords, "y", name,
                         (*lead, _dims.SAMPLE))
    else:
        y_arr = np.asarray(y)
        y_coords = {}
        if y_arr.ndim not in (1, labels.ndim - 1):
            raise ValueError(f"y must be (sample,) or match the leading dims of {name}, "
                             f"got shape {y_arr.shape}")
    lead_shape = labels.shape[:-2]
    if labels.shape[-1] != y_arr.shape[-1]:
        raise ValueError(f"{name} has {labels.shape[-1]} samples but y has "
                         f"{y_arr.shape[-1]}")
    if labels.shape[-2] < 1 or labels.shape[-1] < 1:
        raise ValueError(f"{name} needs at least one {member_dim} and one sample, got "
                         f"{labels.shape}")
    try:
        y_arr = np.broadcast_to(y_arr, lead_shape + y_arr.shape[-1:])
    except ValueError as exc:
        raise ValueError(f"y of shape {y_arr.shape} does not match the leading dims of "
                         f"{name} {lead_shape}") from exc
    classes = infer_classes(source, labels, y_arr, classes)
    if classes is not None and given is None:
        # a true label no member predicts still needs a code (it is an error of every member)
        classes = complete_classes(check_classes(classes), y_arr)
    labels = encode_labels(labels, name, classes=classes, n_classes=n_classes)
    y_arr = encode_labels(y_arr, "y", classes=classes, n_classes=n_classes)
    n = n_classes_of(labels, y_arr, classes=classes, n_classes=n_classes)
    batch = int(np.prod(lead_shape, dtype=np.int64))
    return Batch(
        labels.reshape((batch,) + labels.shape[-2:]),
        np.ascontiguousarray(y_arr).reshape(batch, y_arr.shape[-1]),
        n,
        lead,
        lead_shape,
        {**y_coords, **coords},
    )


def build(
    variables: Mapping[str, Var],
    lead_dims: tuple[str, ...],
    lead_shape: tuple[int, ...],
    *,
    function: str,
    params: Mapping[str, Any],
    coords: Mapping[str, Any],
) -> xr.Dataset:
    """:func:`treelab.analysis._dataset.to_dataset` for variables computed over a flat batch
    axis first: the batch axis is unflattened into ``lead_dims`` in front of each variable's
    own dims."""
    out = {}
    for name, var in variables.items():
        data = np.asarray(var.data)
        data = data.reshape(tuple(lead_shape) + data.shape[1:])
        out[name] = var._replace(dims=tuple(lead_dims) + tuple(var.dims), data=data)
    check = all(d in _KNOWN_DIMS for d in lead_dims)
    used = {d for v in out.values() for d in v.dims}
    coords = {k: v for k, v in coords.items() if k in used}
    return to_dataset(out, function=function, params=params, coords=coords, check_dims=check)


class MemberInputs(NamedTuple):
    """Checked member labels (tree, sample), true labels (sample,) and their class count
    (``n_known`` classes of ``classes``, then the true labels no member can predict)."""

    labels: np.ndarray
    y: np.ndarray
    n_classes: int
    coords: dict
    n_known: int


def member_inputs(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None,
    X: Any = None,
) -> MemberInputs:
    """Validate ``member_labels`` (tree, sample) against ``y`` (sample,) and encode both.

    ``member_labels`` may also be a model or a list of models, read on ``X``."""
    member_labels, model_classes, _ = read_members(member_labels, X, y)
    classes = model_classes if classes is None else classes
    labels, coords = as_array(
        member_labels, "member_labels", (_dims.TREE, _dims.SAMPLE), labels=True
    )
    y_arr, y_coords = as_array(y, "y", (_dims.SAMPLE,), labels=True)
    classes = infer_classes(member_labels, labels, y_arr, classes)
    y_arr = align_to(y_arr, y_coords, coords, "y", "member_labels", (_dims.SAMPLE,))
    if labels.shape[1] != y_arr.shape[0]:
        raise ValueError(f"member_labels has {labels.shape[1]} samples but y has {y_arr.shape[0]}")
    if labels.shape[0] < 1 or labels.shape[1] < 1:
        raise ValueError(
            f"member_labels needs at least one tree and one sample, got {labels.shape}"
        )
    labels = encode_labels(labels, "member_labels", classes=classes, n_classes=n_classes)
    coords = {**y_coords, **coords}
    if classes is None:
        y_arr = encode_labels(y_arr, "y", n_classes=n_classes)
        n = n_classes_of(labels, y_arr, n_classes=n_classes)
        coords[_dims.CLASS] = class_coord(n)
        return MemberInputs(labels, y_arr, n, coords, n)
    # a true class the members never saw is an error of every member, counted as a class
    y_arr, unseen = encode_unseen(y_arr, "y", classes)
    n = n_classes_of(labels, y_arr, classes=classes, n_classes=n_classes)
    coords[_dims.CLASS] = np.concatenate([np.asarray(classes), unseen])
    return MemberInputs(labels, y_arr, n + unseen.size, coords, n)


def member_dataset(
    vars_of: Callable[[np.ndarray, np.ndarray, int], dict[str, Var]],
    function: str,
    member_labels: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    classes: Any = None,
    X: Any = None,
    ci: tuple | None = None,
    no_interval: Mapping[str, str] | None = None,
) -> xr.Dataset:
    """The Dataset of a measure over member labels: validate and encode the inputs
    (:func:`member_inputs`), compute ``vars_of(labels, y, n_classes)`` and build the result
    (no class coordinate: these measures have no class dim). ``ci``: checked interval options
    (:func:`treelab.analysis._measure_intervals.ci_options`) for the bootstrap
    intervals of :func:`treelab.analysis._measure_intervals.row_intervals`."""
    from treelab.analysis._measure_intervals import ci_params, row_intervals

    inp = member_inputs(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    coords = {k: v for k, v in inp.coords.items() if k != _dims.CLASS}
    variables = vars_of(inp.labels, inp.y, inp.n_classes)
    params: dict[str, Any] = {"n_classes": inp.n_classes}
    if ci is not None:
        limits, skipped = row_intervals(
            variables, lambda rows: vars_of(inp.labels[:, rows], inp.y[rows], inp.n_classes),
            inp.y.size, ci, strata=inp.y, no_interval=no_interval)
        variables = {**variables, **limits}
        params["ci"] = ci_params(ci, skipped, classes=True)
    return to_dataset(variables, function=function, params=params, coords=coords)
