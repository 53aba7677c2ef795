"""Member outputs of regression ensembles: the regression side of the one member-outputs place.

:func:`resolve_regression` reads scikit-learn's ``RandomForestRegressor`` and
``ExtraTreesRegressor`` (every member predicts on all columns), ``BaggingRegressor`` (each
member predicts on its own columns, ``estimators_features_``), ``VotingRegressor`` (its
weights become the members' weights), a list of fitted regressors (equal weights), a fitted
treelab regressor (``member_predict(X)`` over (tree, sample)) and raw member outputs (an array
or a DataArray over (tree, sample)), and returns real-valued outputs (tree, sample). The
checks of :mod:`treelab.analysis._model_checks` run first, once; a model's members are then
checked to combine to the model's own ``predict`` (an ensemble that does not average its
members is refused rather than read wrongly).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var, to_dataset
from treelab.analysis._inputs import align_to, as_array
from treelab.analysis._model_checks import (
    check_regressor_kind,
    check_X,
    check_y_values,
    is_regressor_model,
    is_regressor_pool,
)

__all__ = ["RegressionMembers", "is_regressor_model", "read_outputs", "resolve_regression",
           "stack_repeats", "values_on"]

#: the units of a squared error of the regression measures
UNITS = "squared units of y"


def tree_sample_coords(coords: dict) -> dict:
    """The ``tree`` and ``sample`` labels of member outputs, as a measure's result keeps them."""
    return {k: v for k, v in coords.items() if k in (_dims.TREE, _dims.SAMPLE)}


# relative tolerance of the check that the members combine to the model's own predict: the
# float64 sum of up to thousands of members in another order differs by a few ulps
_COMBINE_RTOL = 1e-8


class RegressionMembers(NamedTuple):
    """Real-valued member outputs (tree, sample), the members' convex weights in the model's
    own average (None: equal weights), the model's own predictions (sample,) (None for raw
    outputs and lists), where they come from, notes and DataArray coordinates."""

    outputs: np.ndarray
    weights: np.ndarray | None
    ensemble: np.ndarray | None
    source: str
    notes: dict
    coords: dict


def check_outputs(values: Any, name: str, dims: tuple[str, ...]) -> tuple[np.ndarray, dict]:
    """Real-valued outputs over ``dims`` as float64, refusing wrong dims, non-numbers, NaN and
    infinities with a message naming ``name``."""
    if isinstance(values, xr.DataArray) and _dims.CLASS in values.dims:
        raise ValueError(f"{name} has a {_dims.CLASS!r} dim: class probabilities are "
                         "classification outputs; the regression measures take real-valued "
                         f"outputs over {dims}")
    arr, coords = as_array(values, name, dims)
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if min(arr.shape, default=1) < 1:
        raise ValueError(f"{name} needs at least one element along each of {dims}, got "
                         f"shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return arr, coords


def _sklearn_members(model: Any, X: Any) -> tuple[list[np.ndarray], np.ndarray | None, str]:
    """Each member's predictions on ``X`` (as the model's own predict feeds it), the weights
    of the model's average, and a note on how the members were read."""
    from sklearn.ensemble import BaggingRegressor, VotingRegressor
    from sklearn.ensemble._forest import ForestRegressor

    if isinstance(model, ForestRegressor):
        X_arr = model._validate_X_predict(X)  # float32, as the forest's own predict
        preds = [np.asarray(t.predict(X_arr, check_input=False), dtype=np.float64).ravel()
                 for t in model.estimators_]
        return preds, None, "each tree's predict on the rows the forest validates (float32)"
    if isinstance(model, BaggingRegressor):
        X_arr = np.asarray(X.values if hasattr(X, "columns") else X)
        preds = [np.asarray(m.predict(X_arr[:, np.asarray(f)]), dtype=np.float64).ravel()
                 for m, f in zip(model.estimators_, model.estimators_features_, strict=True)]
        return preds, None, "each member's predict on its own columns (estimators_features_)"
    if isinstance(model, VotingRegressor):
        preds = [np.asarray(m.predict(X), dtype=np.float64).ravel() for m in model.estimators_]
        w = getattr(model, "_weights_not_none", None)
        weights = None if w is None else np.asarray(w, dtype=np.float64)
        return preds, weights, "each member's predict; weights from VotingRegressor.weights"
    raise TypeError(f"{type(model).__name__} is not read as an average of its members")


def _normalised(weights: np.ndarray | None, n_trees: int, name: str) -> np.ndarray | None:
    if weights is None:
        return None
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != n_trees:
        raise ValueError(f"{name} has {w.size} weights for {n_trees} members")
    if not np.all(np.isfinite(w)) or w.min() < 0 or w.sum() <= 0:
        raise ValueError(f"{name} must be non-negative finite weights with a positive sum")
    return w / w.sum()


def combine(outputs: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """The (weighted) arithmetic mean of member outputs over the tree axis (axis -2)."""
    if weights is None:
        return outputs.mean(axis=-2)
    return np.einsum("t,...ts->...s", weights, outputs)


def resolve_regression(obj: Any, X: Any = None, *, y: Any = None, weights: Any = None,
                       need_ensemble: bool = True, name: str = "member outputs"
                       ) -> RegressionMembers:
    """Member outputs (tree, sample) of a regression ensemble, a list of fitted regressors or
    raw outputs, on the rows ``X``, after the checks of the model, ``X`` and ``y`` (the true
    values: numbers, no NaN, one per row)."""
    if isinstance(obj, xr.DataArray | np.ndarray) or (
            isinstance(obj, list | tuple) and not is_regressor_pool(obj)):
        if X is not None:
            raise ValueError("X= is for a model or a list of fitted regressors; the member "
                             "outputs are given already")
        arr, coords = check_outputs(obj, name, (_dims.TREE, _dims.SAMPLE))
        check_y_values(y)  # its length: against the outputs, by the caller
        w = _normalised(weights, arr.shape[0], "weights")
        return RegressionMembers(arr, w, None, "member outputs", {}, coords)
    if X is None:
        raise TypeError(f"X is required to read the members of a {type(obj).__name__}")
    if is_regressor_pool(obj):
        for i, m in enumerate(obj):
            check_regressor_kind(m, f"pool[{i}]", member=True)
            check_X(m, X)
    else:
        check_regressor_kind(obj)
        check_X(obj, X)
    n_rows = int(np.shape(X)[0])
    check_y_values(y, n_rows)
    notes: dict[str, str] = {}
    ensemble = None
    if is_regressor_pool(obj):
        preds = [np.asarray(m.predict(X), dtype=np.float64).ravel() for m in obj]
        own_w, source = None, "pool"
        coords = {"member": np.array([type(m).__name__ for m in obj])}
    elif hasattr(obj, "member_predict"):
        preds = list(np.asarray(obj.member_predict(X), dtype=np.float64))
        own_w, source, coords = None, type(obj).__name__, {}
        notes["members"] = "member_predict(X)"
    else:
        preds, own_w, how = _sklearn_members(obj, X)
        source, coords = type(obj).__name__, {}
        notes["members"] = how
    outputs = np.stack(preds)
    if outputs.ndim != 2 or outputs.shape[1] != n_rows:
        raise ValueError(f"the members of {source} gave outputs of shape {outputs.shape}, "
                         f"not (tree, {n_rows}): one real value per member and row is needed")
    if not np.all(np.isfinite(outputs)):
        raise ValueError(f"the members of {source} predict NaN or infinite values")
    own_w = _normalised(own_w, outputs.shape[0], f"{source}'s weights")
    w = _normalised(weights, outputs.shape[0], "weights") if weights is not None else own_w
    if source != "pool" and (need_ensemble or weights is None):
        ensemble = np.asarray(obj.predict(X), dtype=np.float64).ravel()
        mean = combine(outputs, own_w)
        scale = max(1.0, float(np.max(np.abs(ensemble), initial=0.0)))
        if ensemble.shape != mean.shape or not np.allclose(mean, ensemble, rtol=0,
                                                           atol=_COMBINE_RTOL * scale):
            raise ValueError(f"the members of {source} do not average to its predict(X): the "
                             "regression measures need an ensemble that averages its members")
    return RegressionMembers(outputs, w, ensemble, source, notes, coords)


def read_outputs(obj: Any, X: Any, y: Any, name: str, *, weights: Any = None
                 ) -> tuple[RegressionMembers, np.ndarray]:
    """The preamble of every regression measure: members (tree, sample) of ``obj`` and the
    true values ``y`` (sample,) as float64, checked to pair one to one."""
    if y is None:
        raise TypeError(f"y is required: the true values of the rows {name} predicts")
    m = resolve_regression(obj, X, y=y, weights=weights, need_ensemble=False, name=name)
    y_arr, y_coords = as_array(y, "y", (_dims.SAMPLE,))
    if y_arr.shape[0] != m.outputs.shape[1]:
        raise ValueError(f"{name} has {m.outputs.shape[1]} samples but y has {y_arr.shape[0]}")
    y_arr = align_to(y_arr, y_coords, m.coords, "y", name, (_dims.SAMPLE,))
    return m, y_arr.astype(np.float64)


def values_on(value: Any, name: str, coords: dict, ref_name: str) -> np.ndarray:
    """``value`` (sample,) as an array in the order of the rows ``coords`` label: a DataArray
    is paired with them by its ``sample`` coordinate (reordered where it holds the same
    labels in another order, refused where they differ), never by position."""
    arr, own = as_array(value, name, (_dims.SAMPLE,))
    return align_to(arr, own, coords, name, ref_name, (_dims.SAMPLE,))


def stack_repeats(models: Any, X: Any) -> np.ndarray:
    """Member outputs (repeat, tree, sample) of K fitted models (one per training set) on the
    same rows ``X``; each model must have the same number of members."""
    if is_regressor_model(models) and not isinstance(models, list | tuple):
        models = [models]
    if not isinstance(models, list | tuple) or not models:
        raise TypeError("models must be a list of fitted regression ensembles, one per "
                        "training set")
    read = [resolve_regression(m, X, need_ensemble=False) for m in models]
    for k, m in enumerate(read):
        if m.weights is not None and not np.allclose(m.weights, m.weights[0], rtol=0,
                                                     atol=1e-15):
            raise ValueError(f"models[{k}] averages its members with unequal weights "
                             f"{np.round(m.weights, 4).tolist()}: these decompositions are "
                             "of the members' plain mean; give models whose members count "
                             "equally")
    got = [m.outputs for m in read]
    sizes = sorted({g.shape[0] for g in got})
    if len(sizes) > 1:
        raise ValueError(f"the models have different numbers of members {sizes}; the "
                         "decompositions pair member i across the training sets")
    return np.stack(got)


def regression_outputs(model: Any, X: Any = None) -> xr.DataArray:
    """Member predictions (tree, sample) of a regression ensemble on the rows ``X``.

    Parameters
    ----------
    model : fitted regression ensemble, list of fitted regressors, or array-like
        ``RandomForestRegressor``, ``ExtraTreesRegressor``, ``BaggingRegressor`` (each member
        on its ``estimators_features_``), ``VotingRegressor``, a treelab regressor
        (``member_predict``), a list of fitted regressors, or outputs (tree, sample).
    X : array-like, (sample, feature)
        The rows to predict.

    Returns
    -------
    xarray.DataArray
        ``member_predictions`` (tree, sample), float64; attrs ``source`` and ``weights`` (the
        members' weights in the model's own average, for ``VotingRegressor``).

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> from treelab.analysis import regression_outputs
    >>> X, y = make_friedman1(50, random_state=0)
    >>> rf = RandomForestRegressor(n_estimators=4, random_state=0).fit(X, y)
    >>> regression_outputs(rf, X[:3]).sizes
    Frozen({'tree': 4, 'sample': 3})
    """
    m = resolve_regression(model, X, need_ensemble=False)
    var = Var((_dims.TREE, _dims.SAMPLE), m.outputs, "member predictions", units="units of y",
              description="each member's own predict")
    coords = {k: v for k, v in m.coords.items() if k in (_dims.TREE, _dims.SAMPLE)}
    ds = to_dataset({"member_predictions": var}, function="regression_outputs",
                    params={"source": m.source}, coords=coords)
    out = ds["member_predictions"]
    out.attrs = {**ds.attrs, **out.attrs, "source": m.source, **m.notes}
    if m.weights is not None:
        out.attrs["weights"] = m.weights.tolist()
    if "member" in m.coords:
        out = out.assign_coords(member=(_dims.TREE, m.coords["member"]))
    return out
