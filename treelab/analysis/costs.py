"""Cost-sensitive decisions (Fan et al. 2005): true-class thresholds and profit."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_FAN
from treelab.analysis._dataset import Var, to_dataarray
from treelab.analysis._inputs import as_array, encode_labels, encode_unseen
from treelab.analysis.probability import _proba_and_labels

__all__ = ["cost_sensitive_profit", "cost_thresholds"]


def _amounts(n: int, **values: Any) -> dict[str, np.ndarray]:
    """Numbers or per-row arrays (sample,) as float arrays, checked and named."""
    out = {}
    for name, value in values.items():
        arr = np.asarray(value.values if isinstance(value, xr.DataArray) else value)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be numeric, got {arr.dtype}")
        if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n):
            raise ValueError(f"{name} must be a number or have shape ({n},), got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite")
        out[name] = np.broadcast_to(arr.astype(np.float64), (n,))
    return out


def cost_thresholds(
    y: Any, *, benefit: Any, cost: Any, positive: Any = 1, classes: Any = None
) -> np.ndarray:
    """Per-row thresholds of the true class for cost-sensitive decisions (Fan et al. 2005).

    Acting on a row (solicit, challenge) with amount a at cost c pays when
    P(positive | x) a > c, i.e. the positive decision needs P(positive | x) > c / a and the
    negative one P(negative | x) >= 1 - c / a. The thresholded MSE scores the probability of
    the row's *true* class against the threshold for that class:

        v_i = c_i / a_i       for a positive row,
        v_i = 1 - c_i / a_i   for a negative row,

    clipped to [0, 1] (c > a: acting never pays, the negative decision is always right;
    a <= 0 is treated the same way). Pass the result as ``thresholds=`` (or
    ``thresholds={"cost": ...}`` to name it) to :func:`thresholded_mse` or ``diagnose``.

    Parameters
    ----------
    y : array-like or DataArray, (sample,)
        True labels (class codes, or original labels with ``classes=``).
    benefit : float or array-like, (sample,)
        The amount a of each row (donation, transaction amount).
    cost : float or array-like, (sample,)
        The cost c of acting on a row.
    positive : int or label, default 1
        The positive class (code, or original label with ``classes=``). Without
        ``classes=`` it must be a label ``y`` holds (a ``ValueError`` otherwise, since every
        row would be negative); with ``classes=`` one of them.
    classes : array-like, optional
        Original labels; ``y`` and ``positive`` then hold original labels. A label of ``y``
        not among them (a class the model never saw) is a negative row, as
        :func:`thresholded_mse` reads it (which scores it 1 at any threshold).

    Returns
    -------
    numpy.ndarray of float64, (sample,)

    Examples
    --------
    >>> cost_thresholds([1, 0], benefit=[100.0, 100.0], cost=90.0)
    array([0.9, 0.1])
    """
    y_arr, _ = as_array(y, "y", (_dims.SAMPLE,), labels=True)
    n = y_arr.shape[0]
    values = _amounts(n, benefit=benefit, cost=cost)
    a, c = values["benefit"], values["cost"]
    if classes is None:
        # without classes= the positive class is known only through y: one that y never
        # holds (1 for text labels, a code out of range) would make every row negative
        is_pos = np.asarray([v == positive for v in y_arr.tolist()], dtype=bool)
        if n and not is_pos.any():
            shown = np.unique(y_arr).tolist()[:5]
            raise ValueError(f"positive={positive!r} is not a label of y (it holds {shown}): "
                             "pass the positive class's label, or classes= (the model's "
                             "classes) when y holds no positive row")
    else:
        # a true class the model never saw is no positive row (thresholded_mse scores it 1
        # whatever its threshold), not a reason to refuse the rows
        codes, _ = encode_unseen(y_arr, "y", classes)
        pos = encode_labels(np.asarray([positive]), "positive", classes=classes)[0]
        is_pos = codes == pos
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # huge c / tiny a: inf
        ratio = np.where(a > 0, c / np.where(a > 0, a, 1.0), np.inf)
    v = np.where(is_pos, ratio, 1.0 - ratio)
    return np.clip(v, 0.0, 1.0)


def cost_sensitive_profit(
    proba: Any,
    y: Any,
    *,
    benefit: Any,
    cost: Any,
    positive: Any = 1,
    classes: Any = None,
    decision_benefit: Any = None,
) -> xr.DataArray:
    """Total profit of cost-sensitive threshold decisions (Fan et al. 2005).

    Act on row i (solicit a donor, challenge a transaction) when
    P_hat(positive | x_i) * b_i > cost_i, with b_i the benefit known at decision time:
    ``decision_benefit`` when given (an *estimate*, e.g. a predicted donation amount), else
    ``benefit``. An action earns the *realised* benefit_i - cost_i when y_i is the positive
    class and -cost_i otherwise; no action earns 0:
    Profit = sum_i act_i (I(y_i = positive) benefit_i - cost_i).

    Examples of use: donation (KDD-98): the amount a donor gives is only known after the fact,
    so the decision uses an estimated amount (``decision_benefit``) against the cost 0.68 of a
    mailing, and the payout the realised donation (``benefit``). Fraud: the transaction amount
    is known when deciding, so ``benefit`` (the amount) serves both, against the cost 90 of a
    challenge.

    Parameters
    ----------
    proba : array-like or DataArray, (sample, class)
        Predicted class probabilities.
    y : array-like or DataArray, (sample,)
        True class codes.
    benefit : float or array-like (sample,)
        Realised gain of acting on a positive row (e.g. the amount), paid out.
    cost : float or array-like (sample,)
        Cost of acting on any row.
    positive : int or label, default 1
        The positive class, read as ``y`` is: a code, or an original label with ``classes=``
        or where ``proba`` is a DataArray whose ``class`` coordinate labels the columns.
    classes : array-like, optional
        Original labels of the columns; ``y`` and ``positive`` then hold original labels.
    decision_benefit : float or array-like (sample,), optional
        Benefit used for the decision when the realised one is unknown at decision time.

    Returns
    -------
    xarray.DataArray
        0-d ``profit``; attrs ``n_actions`` and ``oracle_profit`` (acting exactly on the
        positive rows with benefit > cost).
    """
    p, codes, _, n_known, read_with = _proba_and_labels(proba, y, classes)
    n = p.shape[0]
    # positive is read as y is: a label of the class coordinate that names the columns too
    pos = encode_labels(np.asarray([positive]), "positive", classes=read_with,
                        n_classes=n_known)[0]
    given = {"benefit": benefit, "cost": cost}
    if decision_benefit is not None:
        given["decision_benefit"] = decision_benefit
    arrays = _amounts(n, **given)
    b, c = arrays["benefit"], arrays["cost"]
    act = p[:, pos] * arrays.get("decision_benefit", b) > c
    is_pos = codes == pos
    gain = np.where(is_pos, b, 0.0) - c
    profit = float(np.sum(gain[act]))
    oracle = float(np.sum(np.maximum(gain[is_pos], 0.0)))
    var = Var(
        (),
        profit,
        "total profit of threshold decisions",
        units="benefit units",
        cite=CITE_FAN,
        description="act when P(positive|x) * decision benefit > cost; realised benefit paid",
    )
    out = to_dataarray(
        "profit",
        var,
        function="cost_sensitive_profit",
        params={"positive": positive, "benefit": benefit, "cost": cost, "classes": classes,
                "decision_benefit": decision_benefit},
    )
    out.attrs["n_actions"] = int(act.sum())
    out.attrs["oracle_profit"] = oracle
    return out
