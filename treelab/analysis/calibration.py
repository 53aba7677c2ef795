"""The reliability (calibration) curve of probability estimates (Fan et al. 2005): per class,
the mean predicted probability against the observed frequency in bins of the predictions.

Its inputs are read as :mod:`treelab.analysis.probability` reads them (``proba`` (sample,
class), ``y`` as codes or labels with ``classes=`` or a labelled ``class`` coordinate).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_FAN
from treelab.analysis._dataset import Var, to_dataset
from treelab.analysis.probability import _proba_and_labels

__all__ = ["reliability"]


def reliability(
    proba: Any, y: Any, *, bins: int = 10, strategy: str = "uniform", classes: Any = None
) -> xr.Dataset:
    """Reliability (calibration) curve per class (Fan et al. 2005, section 6 of the spec).

    For each class c the predicted probabilities P_hat(c | x_i) are split into ``bins`` bins:
    equal width on [0, 1] (``"uniform"``; a value equal to an inner edge goes to the upper bin,
    1.0 to the last bin) or equal count (``"quantile"``: edges at the quantiles of that class's
    predictions). Per bin: the mean predicted probability, the observed frequency of class c
    (mean of I(y_i = c)) and the number of rows. Empty bins have NaN mean and frequency, so plots
    break the line there; their ``count`` is 0.

    Parameters
    ----------
    proba : array-like or DataArray, (sample, class)
        Predicted class probabilities.
    y : array-like or DataArray, (sample,)
        True class codes.
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-count bins.
    classes : array-like, optional
        Original labels of the columns; ``y`` then holds original labels.

    Returns
    -------
    xarray.Dataset
        dims (class, bin): ``mean_predicted``, ``observed_frequency``, ``count``,
        ``bin_lower``, ``bin_upper``.
    """
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    if strategy not in ("uniform", "quantile"):
        raise ValueError(f"strategy must be 'uniform' or 'quantile', got {strategy!r}")
    p, codes, coords, _, _ = _proba_and_labels(proba, y, classes)
    n, n_classes = p.shape
    if strategy == "uniform":
        # edges k / bins, each the nearest double (linspace's 3 * 0.1 is 0.30000000000000004),
        # and every value compared with them: floor(p * bins) put p = 15/22 in bin 14 since
        # (15/22) * 22 rounds to 14.999999999999998
        uniform = np.arange(bins + 1) / bins
        edges = np.broadcast_to(uniform, (n_classes, bins + 1))
        which = np.searchsorted(uniform[1:-1], p, side="right").astype(np.int64)
    else:
        q = np.linspace(0.0, 1.0, bins + 1)
        edges = np.quantile(p, q, axis=0).T if n else np.tile(q, (n_classes, 1))
        edges = np.ascontiguousarray(edges)
        which = np.empty((n, n_classes), dtype=np.int64)
        for c in range(n_classes):  # one searchsorted per class column
            which[:, c] = np.searchsorted(edges[c, 1:-1], p[:, c], side="right")
    flat = (np.arange(n_classes)[None, :] * bins + which).ravel()
    size = n_classes * bins
    count = np.bincount(flat, minlength=size).reshape(n_classes, bins)
    sum_p = np.bincount(flat, weights=p.ravel(), minlength=size).reshape(n_classes, bins)
    hits = (codes[:, None] == np.arange(n_classes)[None, :]).astype(np.float64)
    sum_y = np.bincount(flat, weights=hits.ravel(), minlength=size).reshape(n_classes, bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.where(count > 0, sum_p / count, np.nan)
        freq = np.where(count > 0, sum_y / count, np.nan)
    dims = (_dims.CLASS, _dims.BIN)
    unit = (0.0, 1.0)
    variables = {
        "mean_predicted": Var(
            dims, mean_p, "mean predicted probability in the bin", valid_range=unit, cite=CITE_FAN
        ),
        "observed_frequency": Var(
            dims,
            freq,
            "observed frequency of the class in the bin",
            valid_range=unit,
            cite=CITE_FAN,
        ),
        "count": Var(dims, count.astype(np.int64), "rows in the bin", units="count", cite=CITE_FAN),
        "bin_lower": Var(dims, np.array(edges[:, :-1]), "lower bin edge", valid_range=unit),
        "bin_upper": Var(dims, np.array(edges[:, 1:]), "upper bin edge", valid_range=unit),
    }
    coords = {_dims.CLASS: coords[_dims.CLASS]}
    params = {"bins": int(bins), "strategy": strategy, "classes": classes}
    return to_dataset(variables, function="reliability", params=params, coords=coords)
