"""Voting margins (Schapire, Freund, Bartlett & Lee 1998) and their distribution.

:func:`margin_counts` is the one computation of the margin in the package: Breiman's strength
(:mod:`treelab.analysis.strength`) is its mean, and :func:`margins` returns it per row.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import batched_labels, build, split_input
from treelab.analysis._cite import CITE_BREIMAN
from treelab.analysis._dataset import Var, margin_counts, vote_counts  # noqa: F401 (its home was here)

__all__ = ["margin_cdf", "margin_counts", "margins"]

CITE_SCHAPIRE = (
    "Schapire, Freund, Bartlett & Lee (1998), Boosting the margin: a new explanation for the "
    "effectiveness of voting methods, Annals of Statistics 26"
)


def margins(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None,
    X: Any = None,
) -> xr.DataArray:
    """Voting margin of every row: share of votes for the true class minus the largest share
    of votes for any other class.

    margin(x_i) = (1/T) sum_t I(f_t(x_i) = y_i) - max_{c != y_i} (1/T) sum_t I(f_t(x_i) = c),

    in [-1, 1]; positive exactly where uniform voting is right without a tie. Breiman's strength
    s is its mean over rows (:func:`treelab.analysis.strength_correlation` computes it from the
    same function, :func:`margin_counts`). Schapire et al. bound the generalisation error of a
    voting classifier by the share of training margins below theta plus a term shrinking with
    theta; the margin distribution (:func:`margin_cdf`) is what their figures show.

    Parameters
    ----------
    member_labels : array-like or DataArray, (..., tree, sample)
        Class codes predicted by every member; leading dims (``alpha``, ``fold``) broadcast.
    y : array-like or DataArray, (sample,) or (..., sample)
        True class codes.
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.

    Returns
    -------
    xarray.DataArray
        ``margin`` over (..., sample), with attr ``n_trees``.

    References
    ----------
    Schapire, Freund, Bartlett & Lee (1998), section 2; Breiman (2001), section 2.

    Examples
    --------
    >>> from treelab.analysis import margins
    >>> margins([[0, 1, 2], [0, 1, 1], [0, 2, 1]], [0, 1, 2]).values.round(3).tolist()
    [1.0, 0.333, -0.333]
    """
    b = batched_labels(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    n_trees = b.labels.shape[1]
    m, _ = margin_counts(vote_counts(b.labels, b.n_classes), b.y)
    var = Var((_dims.SAMPLE,), m / n_trees, "voting margin", valid_range=(-1.0, 1.0),
              cite=f"{CITE_SCHAPIRE}; {CITE_BREIMAN}")
    ds = build({"margin": var}, b.lead_dims, b.lead_shape, function="margins",
               params={"n_classes": b.n_classes, "n_trees": n_trees}, coords=b.coords)
    out = ds["margin"]
    out.attrs = {**ds.attrs, **out.attrs, "n_trees": n_trees}
    return out


def margin_cdf(margin: Any, thresholds: Any = None) -> xr.DataArray:
    """Cumulative distribution of margins over rows: F(theta) = (1/N) sum_i I(margin_i <= theta).

    Parameters
    ----------
    margin : array-like or DataArray, (..., sample)
        Margins, e.g. from :func:`margins`; leading dims broadcast.
    thresholds : array-like, optional
        Values theta (default: 201 points from -1 to 1); NaN is refused.

    Returns
    -------
    xarray.DataArray
        ``margin_cdf`` over (..., margin_threshold), the ``margin_threshold`` coordinate
        holding theta (a dim of its own, so the distribution sits beside the thresholded MSE's
        ``threshold`` in one Dataset, as in ``diagnose(measures=["margin_cdf"])``).

    References
    ----------
    Schapire, Freund, Bartlett & Lee (1998), figures of cumulative margin distributions.
    """
    arr, lead, coords = split_input(margin, "margin", (_dims.SAMPLE,))
    arr = arr.astype(np.float64)
    if arr.shape[-1] < 1 or not np.all(np.isfinite(arr)):
        raise ValueError("margin must hold at least one finite value per row set")
    theta = np.linspace(-1.0, 1.0, 201) if thresholds is None else np.asarray(
        thresholds, dtype=np.float64)
    if theta.ndim != 1 or theta.size < 1:
        raise ValueError("thresholds must be a non-empty 1-d array")
    if np.isnan(theta).any():
        # no margin is <= NaN, but a sorted search puts NaN after every margin (F = 1)
        where = np.flatnonzero(np.isnan(theta))[:5].tolist()
        raise ValueError(f"thresholds holds NaN at positions {where}: F(theta) needs a number "
                         "(-inf and inf are allowed)")
    srt = np.sort(arr, axis=-1).reshape(-1, arr.shape[-1])
    cdf = np.stack([np.searchsorted(row, theta, side="right") for row in srt]) / arr.shape[-1]
    var = Var((_dims.MARGIN_THRESHOLD,), cdf, "share of rows with margin <= theta",
              valid_range=(0.0, 1.0), cite=CITE_SCHAPIRE)
    ds = build({"margin_cdf": var}, lead, arr.shape[:-1], function="margin_cdf",
               params={"n_thresholds": theta.size},
               coords={**coords, _dims.MARGIN_THRESHOLD: theta})
    out = ds["margin_cdf"]
    out.attrs = {**ds.attrs, **out.attrs}
    return out
