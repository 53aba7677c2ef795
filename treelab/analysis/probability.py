"""Quality of probability estimates (Fan et al. 2005): squared errors and top-k error.

Cost-sensitive thresholds and profit are in :mod:`treelab.analysis.costs`, the reliability
curve in :mod:`treelab.analysis.calibration`.

Every function takes predicted probabilities ``proba`` of shape (sample, class) and true labels
``y`` (sample,) as class codes 0..C-1 (or original labels with ``classes=``, or with a
``proba`` DataArray whose ``class`` coordinate holds them, which then also
labels the ``class`` coordinate).

Curtailment: the probabilities are taken as given. A treelab ensemble's ``predict_proba`` and
``member_proba`` already apply curtailment (Zadrozny & Elkan 2001): a leaf holding fewer than
``curtail_min`` training rows answers with the counts n_c of its deepest ancestor holding at
least that many, P(c | x) = n_c / n (or (n_c + 1) / (n + C) with ``laplace=True``); the
variable-random family curtails at 2 by default, so no single-row leaf answers 0/1 alone.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_FAN, treelab_docs
from treelab.analysis._dataset import Var, class_coord, to_dataarray
from treelab.analysis._inputs import (
    align_to,
    as_array,
    check_class_coord,
    check_proba,
    encode_labels,
    encode_unseen,
)

__all__ = [
    "exact_mse",
    "thresholded_mse",
    "topk_error",
]

_TOP = re.compile(r"^top([1-9][0-9]*)$")


def _proba_and_labels(
    proba: Any, y: Any, classes: Any
) -> tuple[np.ndarray, np.ndarray, dict, int, np.ndarray | None]:
    """Checked probabilities, true codes, coordinates, the number of model classes and the
    labels ``y`` was read with (``classes``, or the ``class`` coordinate that names the
    columns; None where ``y`` holds codes), by which any other label argument is read too.

    With ``classes``, a true label not among them gets a code after the model's classes and a
    zero-probability column, so the row counts as an error of every measure."""
    p, coords = as_array(proba, "proba", (_dims.SAMPLE, _dims.CLASS))
    p = check_proba(p, "proba")
    y_arr, y_coords = as_array(y, "y", (_dims.SAMPLE,), labels=True)
    y_arr = align_to(y_arr, y_coords, coords, "y", "proba", (_dims.SAMPLE,))
    if y_arr.shape[0] != p.shape[0]:
        raise ValueError(f"proba has {p.shape[0]} samples but y has {y_arr.shape[0]}")
    if p.shape[1] < 1:
        raise ValueError("proba needs at least one class column")
    if classes is not None and len(classes) != p.shape[1]:
        raise ValueError(f"classes has {len(classes)} labels but proba has {p.shape[1]} columns")
    check_class_coord(classes, coords, "proba")
    coords = {**y_coords, **coords}
    n_known = p.shape[1]
    if classes is None and _dims.CLASS in coords:
        # the class coordinate of a DataArray (from member_outputs, say) names the columns:
        # labels need no classes=; integer codes stay codes where it is 0..C-1 or text
        coord = np.asarray(coords[_dims.CLASS])
        numeric_y, numeric_c = y_arr.dtype.kind in "iufb", coord.dtype.kind in "iufb"
        if not numeric_y or (numeric_c and not np.array_equal(coord, np.arange(n_known))):
            classes = coord
    if classes is None:
        codes = encode_labels(y_arr, "y", n_classes=n_known)
    else:
        # a true class the model never saw: a column of zero probability, an error everywhere
        codes, unseen = encode_unseen(y_arr, "y", classes)
        if unseen.size:
            p = np.concatenate([p, np.zeros((p.shape[0], unseen.size))], axis=1)
        coords[_dims.CLASS] = np.concatenate([class_coord(n_known, classes), unseen])
    if _dims.CLASS not in coords:
        coords[_dims.CLASS] = class_coord(n_known)
    return p, codes, coords, n_known, None if classes is None else np.asarray(classes)


def unit_rows(proba: np.ndarray) -> np.ndarray:
    """An ensemble's scores as the probabilities ``stats.probability_quality`` reads.

    Rows that sum to 1 within its tolerance (1e-6) are kept as they are, bit for bit: dividing
    them by sums that differ from 1 in the last bit, a different bit for different rows, would
    split equal scores, and the ROC AUC counts ties as halves. Other rows (the scores of the
    ``max`` and ``product`` combinations) are divided by their sums.
    """
    sums = proba.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.abs(sums - 1.0) <= 1e-6, proba, proba / sums)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _thresholds(
    thresholds: Any, sorted_desc: np.ndarray, other_max: np.ndarray | None = None
) -> list[tuple[str, np.ndarray]]:
    """Resolve threshold specs into (name, per-row v) pairs (``other_max``: the largest
    other-class probability of each row, for ``"bayes"`` with more than two classes)."""
    n, n_classes = sorted_desc.shape
    if isinstance(thresholds, str):
        thresholds = (thresholds,)
    if _is_number(thresholds):
        thresholds = {repr(float(thresholds)): thresholds}
    elif (
        isinstance(thresholds, list | tuple)
        and thresholds
        and all(_is_number(t) for t in thresholds)
    ):
        # a plain list of numbers is one threshold per row (several constant thresholds are
        # given as a mapping, or mixed with names)
        thresholds = {"custom": np.asarray(thresholds, dtype=np.float64)}
    if isinstance(thresholds, Mapping):
        items = [(str(k), v) for k, v in thresholds.items()]
    elif (
        isinstance(thresholds, np.ndarray | xr.DataArray)
        and np.ndim(thresholds) == 1
        and np.asarray(thresholds).dtype.kind in "fiu"
    ):
        items = [("custom", thresholds)]
    elif isinstance(thresholds, np.ndarray):
        items = [(str(t), str(t)) for t in thresholds.ravel()]
    elif isinstance(thresholds, Sequence):
        items = []
        n_arrays = sum(not isinstance(t, str) and np.ndim(t) > 0 for t in thresholds)
        for t in thresholds:
            if isinstance(t, str):
                items.append((t, t))
            elif np.ndim(t) == 0:
                items.append((repr(float(t)), t))
            else:
                n_named = sum(name.startswith("custom") for name, _ in items)
                items.append(("custom" if n_arrays == 1 else f"custom{n_named}", t))
    else:
        raise TypeError(f"thresholds must be names, numbers or arrays, got {type(thresholds)}")
    if not items:
        raise ValueError("thresholds is empty")
    out = []
    for name, spec in items:
        if isinstance(spec, str):
            match = _TOP.match(spec)
            if spec == "1.0":
                v = np.ones(n)
            elif spec == "bayes":
                if n_classes <= 2 or other_max is None:
                    v = np.full(n, 0.5)
                else:  # the 0-1 decision: the true class must reach every other class
                    v = other_max
            elif match:
                k = int(match.group(1))
                v = sorted_desc[:, k - 1] if k <= n_classes else np.zeros(n)
            else:
                raise ValueError(
                    f"thresholds: unknown name {spec!r} (use '1.0', 'topK', 'bayes', a number "
                    "or a per-row array)"
                )
        else:
            v = np.asarray(spec.values if isinstance(spec, xr.DataArray) else spec)
            if v.dtype.kind not in "fiu":
                raise TypeError(f"thresholds: {name!r} must be numeric")
            v = np.broadcast_to(v.astype(np.float64), (n,)) if v.ndim == 0 else v.astype(float)
            if v.shape != (n,):
                raise ValueError(f"thresholds: {name!r} has shape {v.shape}, expected ({n},)")
            if np.any(np.isnan(v)) or np.any(v < 0):
                raise ValueError(f"thresholds: {name!r} must be non-negative numbers")
        out.append((name, v))
    names = [name for name, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"thresholds: duplicate names {names}")
    return out


def thresholded_mse(
    proba: Any,
    y: Any,
    *,
    thresholds: Any = ("1.0", "top1", "top2", "top3"),
    classes: Any = None,
) -> xr.DataArray:
    """Thresholded ("improved") squared error of probability estimates (Fan et al. 2005).

    For the true class t_i and a decision threshold v_i:
    ISE_i = (1 - [P_hat(t_i | x_i) / v_i])^2 with [a] = min(1, a), and MSE = mean_i ISE_i. A
    correct decision (P_hat >= v) costs 0 whatever its probability; a wrong one costs how far
    the estimate is from the threshold. Where v_i = 0 every estimate clears it ([.] = 1).

    Thresholds (coordinate ``threshold``):

    * ``"1.0"``: v = 1, giving (1 - P_hat(t | x))^2;
    * ``"topK"`` (``"top1"``, ``"top2"``, ...): v = the K-th highest predicted probability of the
      row, so ISE is 0 exactly when P_hat(t) reaches it (t among the top K); K > C gives 0.
      A class tied with the K-th highest probability reaches it, so ties count in the true
      class's favour here, where :func:`topk_error` breaks them to the lower class index
      (P_hat = (0.5, 0.5) with t = 1: ISE 0 at ``"top1"``, a top-1 error);
    * ``"bayes"``, the 0-1 loss decision: v = 0.5 for two classes; for more classes
      v = the largest probability of another class, max_{c != t} P_hat(c | x), so ISE is 0
      exactly when the true class is (one of) the most probable;
    * a number (``thresholds=0.5``: constant v), or per-row thresholds (sample,) as an array,
      a DataArray or a plain list of numbers; a mapping ``{name: spec}`` names them, and a
      sequence may mix names, numbers (constants) and arrays.

    With ``classes``, a true label not among them (a class the model never saw) costs 1
    whatever the threshold.

    The threshold is the one for the row's *true* class. For cost-sensitive decisions (act on
    a row with amount a at cost c) that is v = c / a for a positive row and v = 1 - c / a for a
    negative row: :func:`cost_thresholds` builds them from the labels.

    Parameters
    ----------
    proba : array-like or DataArray, (sample, class)
        Predicted class probabilities.
    y : array-like or DataArray, (sample,)
        True class codes.
    thresholds : str, number, array, list of numbers, or sequence/mapping of them
        Thresholds to evaluate.
    classes : array-like, optional
        Original labels of the columns; ``y`` then holds original labels.

    Returns
    -------
    xarray.DataArray
        ``thresholded_mse`` with dim ``threshold``.

    References
    ----------
    Fan, Greengrass, McCloskey, Yu & Drummey (2005), section 3.

    Examples
    --------
    >>> import numpy as np
    >>> from treelab.analysis import thresholded_mse
    >>> proba = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
    >>> thresholded_mse(proba, [1, 1], thresholds=("1.0", "top1", "top2")).values.round(4)
    array([0.37 , 0.125, 0.   ])
    >>> thresholded_mse(proba, [1, 1], thresholds=0.5).values.round(4)
    array([0.08])
    """
    p, codes, coords, n_known, _ = _proba_and_labels(proba, y, classes)
    var, names = thresholded_var(p, codes, thresholds_in_row_order(thresholds, coords), n_known)
    params = {"thresholds": names, "classes": classes}
    return to_dataarray(
        "thresholded_mse",
        var,
        function="thresholded_mse",
        params=params,
        coords={_dims.THRESHOLD: np.array(names)},
    )


def thresholds_in_row_order(thresholds: Any, coords: Mapping[str, Any]) -> Any:
    """``thresholds`` with every per-row DataArray paired with the rows by its ``sample``
    labels (``coords``: the rows' own), never by position: the same labels in another order
    are reordered, different ones refused (docs/measures/correctness.md)."""
    def rows(name: str, v: Any) -> Any:
        if not (isinstance(v, xr.DataArray) and v.ndim == 1):
            return v
        arr, own = as_array(v, f"thresholds {name!r}", (_dims.SAMPLE,))
        return align_to(arr, own, coords, f"thresholds {name!r}", "the rows", (_dims.SAMPLE,))

    if isinstance(thresholds, xr.DataArray):
        return rows("custom", thresholds)
    if isinstance(thresholds, Mapping):
        return {k: rows(str(k), v) for k, v in thresholds.items()}
    if isinstance(thresholds, list | tuple):
        return type(thresholds)(rows("custom", t) for t in thresholds)
    return thresholds


def thresholded_var(
    p: np.ndarray, codes: np.ndarray, thresholds: Any, n_known: int | None = None
) -> tuple[Var, list[str]]:
    """The ``thresholded_mse`` variable and threshold names from checked inputs (``n_known``:
    the model's classes; columns after them are unseen true classes of probability 0)."""
    names, per_row = thresholded_rows(p, codes, thresholds, n_known)
    values = [float(np.mean(col)) if p.shape[0] else np.nan for col in per_row]
    var = Var(
        (_dims.THRESHOLD,),
        np.array(values),
        "thresholded mean squared error of the true-class probability",
        valid_range=(0.0, 1.0),
        cite=CITE_FAN,
        description="ISE_i = (1 - min(1, P(t_i|x_i) / v_i))^2",
    )
    return var, names


def thresholded_rows(
    p: np.ndarray, codes: np.ndarray, thresholds: Any, n_known: int | None = None
) -> tuple[list[str], list[np.ndarray]]:
    """Threshold names and every row's squared error ISE_i per threshold (the thresholded MSE
    is their mean; the bootstrap intervals reweight them)."""
    rows = np.arange(p.shape[0])
    p_true = p[rows, codes]
    sorted_desc = -np.sort(-p, axis=1)
    others = p.copy()
    others[rows, codes] = -np.inf
    other_max = np.maximum(others.max(axis=1), 0.0) if p.shape[1] > 1 else np.zeros(p.shape[0])
    names: list[str] = []
    values: list[np.ndarray] = []
    n_known = p.shape[1] if n_known is None else n_known
    for name, v in _thresholds(thresholds, sorted_desc[:, :n_known], other_max):
        clipped = np.ones_like(p_true)
        below = p_true < v
        clipped[below] = p_true[below] / v[below]
        clipped[codes >= n_known] = 0.0  # a class the model never saw: cost 1 at any v
        names.append(name)
        values.append((1.0 - clipped) ** 2)
    return names, values


def exact_mse(proba: Any, true_proba: Any) -> xr.DataArray:
    """Exact squared error against known true probabilities (Fan et al. 2005).

    SE_i = sum_c (P(c | x_i) - P_hat(c | x_i))^2 and MSE = mean_i SE_i.

    Parameters
    ----------
    proba : array-like or DataArray, (sample, class)
        Predicted class probabilities.
    true_proba : array-like or DataArray, (sample, class)
        True class probabilities P(y | x), e.g. from a synthetic generator.

    Returns
    -------
    xarray.DataArray
        0-d ``exact_mse``.
    """
    p, p_coords = as_array(proba, "proba", (_dims.SAMPLE, _dims.CLASS))
    t, t_coords = as_array(true_proba, "true_proba", (_dims.SAMPLE, _dims.CLASS))
    t = align_to(t, t_coords, p_coords, "true_proba", "proba", (_dims.SAMPLE, _dims.CLASS))
    p, t = check_proba(p, "proba"), check_proba(t, "true_proba")
    if p.shape != t.shape:
        raise ValueError(f"proba has shape {p.shape} but true_proba has {t.shape}")
    return to_dataarray("exact_mse", exact_var(p, t), function="exact_mse", params={})


def exact_var(p: np.ndarray, t: np.ndarray) -> Var:
    """The ``exact_mse`` variable from checked inputs of equal shape."""
    value = float(np.mean(np.sum((t - p) ** 2, axis=1))) if p.shape[0] else np.nan
    return Var(
        (),
        value,
        "exact mean squared error of probability estimates",
        valid_range=(0.0, 2.0),
        cite=CITE_FAN,
    )


def topk_error(proba: Any, y: Any, *, k: Any = (1, 2, 3), classes: Any = None) -> xr.DataArray:
    """Top-k error: the share of rows whose true class is not among the k most probable.

    Classes are ranked by predicted probability, ties to the lower class index (so top-1 error is
    the error of argmax prediction): rank(t) = #{c : P_c > P_t} + #{c < t : P_c = P_t}, and a row
    is a top-k error when rank(t) >= k.

    Parameters
    ----------
    proba : array-like or DataArray, (sample, class)
        Predicted class probabilities.
    y : array-like or DataArray, (sample,)
        True class codes.
    k : int or sequence of int, default (1, 2, 3)
        Values of k (coordinate ``k``).
    classes : array-like, optional
        Original labels of the columns; ``y`` then holds original labels.

    Returns
    -------
    xarray.DataArray
        ``topk_error`` with dim ``k``.
    """
    ks = _check_k(k)
    p, codes, _, n_known, _ = _proba_and_labels(proba, y, classes)
    return to_dataarray(
        "topk_error",
        topk_var(p, codes, ks, n_known),
        function="topk_error",
        params={"k": ks.tolist(), "classes": classes},
        coords={_dims.K: ks},
    )


def topk_rank(p: np.ndarray, codes: np.ndarray, n_known: int | None = None) -> np.ndarray:
    """Every row's rank of its true class (0: first; ties to the lower class index); a row is
    a top-k error where the rank is >= k."""
    n, n_classes = p.shape
    p_true = p[np.arange(n), codes][:, None]
    lower = np.arange(n_classes)[None, :] < codes[:, None]
    rank = np.sum(p > p_true, axis=1) + np.sum((p == p_true) & lower, axis=1)
    if n_known is not None:
        rank = np.where(codes >= n_known, n_classes + 1, rank)
    return rank


def _check_k(k: Any) -> np.ndarray:
    ks = np.atleast_1d(np.asarray(k))
    if ks.ndim != 1 or ks.size == 0 or ks.dtype.kind not in "iu" or np.any(ks < 1):
        raise ValueError(f"k must be positive integers, got {k!r}")
    if np.unique(ks).size != ks.size:
        raise ValueError(f"k has duplicate values: {k!r}")
    return ks.astype(np.int64)


def topk_var(p: np.ndarray, codes: np.ndarray, ks: np.ndarray, n_known: int | None = None) -> Var:
    """The ``topk_error`` variable from checked inputs (a code from ``n_known`` on is a class
    the model never saw: an error for every k)."""
    n = p.shape[0]
    rank = topk_rank(p, codes, n_known)
    values = np.array([np.mean(rank >= kk) if n else np.nan for kk in ks], dtype=np.float64)
    return Var((_dims.K,), values, "top-k error rate", valid_range=(0.0, 1.0),
               cite=treelab_docs("measures/probability"))
