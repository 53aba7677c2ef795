"""Strength, correlation and Breiman's upper bound on generalisation error."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import CITE_BREIMAN, Var, member_dataset, vote_counts
from treelab.analysis.margins import margin_counts

__all__ = ["strength_correlation", "strength_stats"]


def strength_stats(
    labels: np.ndarray, y: np.ndarray, n_classes: int, votes: np.ndarray | None = None
) -> dict[str, Any]:
    """Strength, correlation, bound, margins and per-tree sd from checked class codes.

    NumPy twin of :func:`strength_correlation`; returns a dict of arrays and floats.
    """
    n_trees, n_samples = labels.shape
    if votes is None:
        votes = vote_counts(labels, n_classes)
    # the margin of treelab.analysis.margins, in votes, and the rival class c(i)
    # (most-voted wrong class, ties to the lowest index). Margins in units of 1/T are
    # integers: sums in int64 give s and var(s) exactly (up to the final division), so the
    # sign of s, and whether var(s) = 0, never rounds
    m, c = margin_counts(votes, y)
    margin = m / n_trees
    sum_m = int(m.sum())
    s = sum_m / (n_trees * n_samples)
    var_s = (n_samples * int(np.dot(m, m)) - sum_m * sum_m) / (n_trees * n_samples) ** 2
    p1 = np.count_nonzero(labels == y[None, :], axis=1) / n_samples
    p2 = np.count_nonzero(labels == c[None, :], axis=1) / n_samples
    sd = np.sqrt(np.maximum(p1 + p2 - (p1 - p2) ** 2, 0.0))
    mean_sd = float(sd.mean())
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = var_s / mean_sd**2 if mean_sd > 0 else np.nan
        bound = rho * (1.0 - s * s) / (s * s) if s > 0 else np.nan
    return {
        "strength": s,
        "margin_variance": var_s,
        "correlation": float(rho),
        "breiman_bound": float(bound),
        "margin": margin,
        "rival_class": c,
        "p1": p1,
        "p2": p2,
        "sd": sd,
    }


def strength_correlation(
    member_labels: Any, y: Any, *, n_classes: int | None = None, classes: Any = None
) -> xr.Dataset:
    """Strength s, correlation rho and Breiman's bound rho (1 - s^2) / s^2 (Breiman 2001).

    Estimates as corrected by Buttrey & Kobayashi (2003), as used by Liu et al. (2008):

    * c(i): the class other than y_i with the most member votes on row i (ties: lowest index;
      with no votes for any other class, the lowest-index other class);
    * margin s_i = (1/T) sum_t I(f_t(x_i) = y_i) - (1/T) sum_t I(f_t(x_i) = c(i));
    * strength s = mean_i s_i, var(s) = mean_i s_i^2 - s^2;
    * per tree p1_t = mean_i I(f_t(x_i) = y_i), p2_t = mean_i I(f_t(x_i) = c(i)),
      sd_t = sqrt(p1_t + p2_t - (p1_t - p2_t)^2);
    * correlation rho = var(s) / (mean_t sd_t)^2 (NaN when every sd_t is 0, e.g. a unanimous
      correct ensemble, where var(s) = 0 too);
    * Breiman's *upper* bound on the generalisation error, PE* <= rho (1 - s^2) / s^2, defined
      for s > 0 (NaN otherwise, and NaN where rho is). One secondary source prints the
      inequality the wrong way round; it is an upper bound.

    Parameters
    ----------
    member_labels : array-like or DataArray, (tree, sample)
        Class codes predicted by every member (on hold-out rows).
    y : array-like or DataArray, (sample,)
        True class codes.
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.

    Returns
    -------
    xarray.Dataset
        ``strength``, ``correlation``, ``breiman_bound``, ``margin_variance``, per-sample
        ``margin`` and ``rival_class`` (class code c(i)), per-tree ``p1``, ``p2``, ``sd``.

    References
    ----------
    Breiman (2001); Buttrey & Kobayashi (2003); Liu, Ting, Yu & Zhou (2008), Appendix C.

    Examples
    --------
    >>> from treelab.analysis import strength_correlation
    >>> ds = strength_correlation([[0, 1, 2], [0, 1, 2]], [0, 1, 2])
    >>> float(ds.strength)
    1.0
    """
    return member_dataset(strength_vars, "strength_correlation", member_labels, y,
                          n_classes=n_classes, classes=classes)


def strength_vars(
    labels: np.ndarray, y: np.ndarray, n_classes: int, votes: np.ndarray | None = None
) -> dict[str, Var]:
    """Variables of :func:`strength_correlation` from checked codes."""
    st = strength_stats(labels, y, n_classes, votes)
    cite = CITE_BREIMAN
    signed = (-1.0, 1.0)
    unit = (0.0, 1.0)
    return {
        "strength": Var(
            (), st["strength"], "strength s (mean margin)", valid_range=signed, cite=cite
        ),
        "correlation": Var(
            (), st["correlation"], "mean correlation rho of the raw margins", units="1", cite=cite
        ),
        "breiman_bound": Var(
            (),
            st["breiman_bound"],
            "Breiman's upper bound rho (1 - s^2) / s^2 on generalisation error",
            cite=cite,
            description="upper bound: PE* <= rho (1 - s^2) / s^2; NaN unless s > 0",
        ),
        "margin_variance": Var(
            (), st["margin_variance"], "var(s) = mean margin^2 - s^2", cite=cite
        ),
        "margin": Var((_dims.SAMPLE,), st["margin"], "margin s_i", valid_range=signed, cite=cite),
        "rival_class": Var(
            (_dims.SAMPLE,),
            st["rival_class"],
            "most-voted wrong class code c(i)",
            units="",
            cite=cite,
        ),
        "p1": Var(
            (_dims.TREE,),
            st["p1"],
            "p1_t: share of rows tree t gets right",
            valid_range=unit,
            cite=cite,
        ),
        "p2": Var(
            (_dims.TREE,),
            st["p2"],
            "p2_t: share of rows tree t votes c(i)",
            valid_range=unit,
            cite=cite,
        ),
        "sd": Var((_dims.TREE,), st["sd"], "sd_t = sqrt(p1 + p2 - (p1 - p2)^2)", cite=cite),
    }
