"""Strength, correlation and Breiman's upper bound on generalisation error."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import member_dataset, member_inputs
from treelab.analysis._cite import CITE_BREIMAN
from treelab.analysis._dataset import Var, margin_counts, to_dataset, vote_counts
from treelab.analysis._inputs import align_to, as_array
from treelab.analysis._measure_intervals import ci_options, documents_ci_options

__all__ = ["strength_correlation", "strength_stats"]


def strength_stats(
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    votes: np.ndarray | None = None,
    in_bag: np.ndarray | None = None,
) -> dict[str, Any]:
    """Strength, correlation, bound, margins and per-tree sd from checked class codes.

    NumPy twin of :func:`strength_correlation`; returns a dict of arrays and floats. With
    ``in_bag`` (tree, sample) only out-of-bag votes count (rows without one get NaN margins).
    """
    n_trees, n_samples = labels.shape
    oob = None if in_bag is None else in_bag == 0  # (tree, sample)
    if oob is not None:
        votes = vote_counts(labels, n_classes, mask=oob)
    elif votes is None:
        votes = vote_counts(labels, n_classes)
    # the margin of treelab.analysis.margins, in votes, and the rival class c(i) (most-voted
    # wrong class, ties to the lowest index)
    m, c = margin_counts(votes, y)
    if oob is None:
        # margins in units of 1/T are integers: sums in int64 give s and var(s) exactly
        # (up to the final division), so the sign of s, and whether var(s) = 0, never rounds
        margin = m / n_trees
        sum_m = int(m.sum())
        s = sum_m / (n_trees * n_samples)
        var_s = (n_samples * int(np.dot(m, m)) - sum_m * sum_m) / (n_trees * n_samples) ** 2
        scored = np.ones((n_trees, n_samples), dtype=bool)
        n_rows = n_samples
    else:
        n_oob = oob.sum(axis=0)
        has = n_oob > 0
        n_rows = int(has.sum())
        with np.errstate(invalid="ignore", divide="ignore"):
            margin = np.where(has, m / np.where(has, n_oob, 1), np.nan)
        s = float(margin[has].mean()) if n_rows else np.nan
        var_s = float(np.mean(margin[has] ** 2) - s * s) if n_rows else np.nan
        scored = oob & has[None, :]
    n_scored = scored.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1 = np.count_nonzero((labels == y[None, :]) & scored, axis=1) / n_scored
        p2 = np.count_nonzero((labels == c[None, :]) & scored, axis=1) / n_scored
    sd = np.sqrt(np.maximum(p1 + p2 - (p1 - p2) ** 2, 0.0))
    mean_sd = float(np.nanmean(sd)) if np.any(n_scored > 0) else np.nan
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
        "n_rows": n_rows,
    }


@documents_ci_options
def strength_correlation(
    member_labels: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    classes: Any = None,
    X: Any = None,
    in_bag: Any = None,
    ci: float | None = None,
    ci_method: str = "bca",
    n_boot: int = 2000,
    ci_seed: int = 0,
    ci_resample: str = "stratified",
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
      correct ensemble, where var(s) = 0 too). This is Breiman's (2001) estimate, the one his
      bound needs. Liu et al. (2008, Appendix C, eq. 5) print the denominator with the
      unsquared mean standard deviation; treelab does not follow that deviation;
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
    in_bag : array-like, (tree, sample), optional
        Out-of-bag estimates (the spec's ``oob=True``; Breiman 2001, section 3.1): how often
        each tree's bootstrap sample holds each row (counts or booleans). Then ``y`` and
        ``member_labels`` are the *training* rows, each row is scored only by the trees that
        did not see it (T_i of them: votes, c(i) and s_i = (votes for y_i - votes for c(i))
        / T_i), s and var(s) are means over the rows with T_i > 0 (the others get a NaN
        margin; ``n_rows`` counts the rows used), and p1_t, p2_t are means over the rows tree
        t did not see (sd_t is NaN for a tree that saw every row and is left out of the mean).
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number that is not per row (not with ``in_bag``): the stratified bootstrap of
        the test rows, as :func:`treelab.analysis.diagnose` draws it
        (docs/measures/uncertainty.md); recorded in ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``strength``, ``correlation``, ``breiman_bound``, ``margin_variance``, ``n_rows``
        (with ``in_bag``), per-sample ``margin`` and ``rival_class`` (class code c(i)),
        per-tree ``p1``, ``p2``, ``sd``; with ``ci`` the ``_lower`` and ``_upper`` limits of
        all but the per-sample ones (a row's rival class held fixed, as diagnose does).

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
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    if in_bag is None:
        return member_dataset(strength_vars, "strength_correlation", member_labels, y,
                              n_classes=n_classes, classes=classes, X=X, ci=options)
    if options is not None:
        raise ValueError("ci with in_bag: the out-of-bag estimates use the training rows, "
                         "each scored by its own subset of trees; the row bootstrap of test "
                         "rows does not apply (pass ci=None)")
    inp = member_inputs(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    bag, bag_coords = as_array(in_bag, "in_bag", (_dims.TREE, _dims.SAMPLE))
    bag = align_to(bag, bag_coords, inp.coords, "in_bag", "member_labels",
                   (_dims.TREE, _dims.SAMPLE))
    if bag.shape != inp.labels.shape:
        raise ValueError(f"in_bag must have shape {inp.labels.shape} (tree, sample), got "
                         f"{bag.shape}")
    if bag.dtype.kind not in "biu" or (bag.size and bag.min() < 0):
        raise ValueError("in_bag must hold non-negative counts or booleans")
    coords = {k: v for k, v in inp.coords.items() if k != _dims.CLASS}
    return to_dataset(strength_vars(inp.labels, inp.y, inp.n_classes, in_bag=bag),
                      function="strength_correlation",
                      params={"n_classes": inp.n_classes, "oob": True}, coords=coords)


def strength_vars(
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    votes: np.ndarray | None = None,
    in_bag: np.ndarray | None = None,
) -> dict[str, Var]:
    """Variables of :func:`strength_correlation` from checked codes."""
    st = strength_stats(labels, y, n_classes, votes, in_bag)
    cite = CITE_BREIMAN
    extra = {} if in_bag is None else {
        "n_rows": Var((), st["n_rows"], "rows scored by at least one tree that did not see them",
                      units="count", cite=cite),
    }
    signed = (-1.0, 1.0)
    unit = (0.0, 1.0)
    no_rows = "" if in_bag is None else "NaN when no row is out of a tree's bag (n_rows = 0)"
    return extra | {
        "strength": Var(
            (), st["strength"], "strength s (mean margin)", valid_range=signed, cite=cite,
            description=no_rows,
        ),
        "correlation": Var(
            (), st["correlation"], "mean correlation rho of the raw margins", units="1",
            cite=cite,
            description="NaN (0 / 0) when every sd_t is 0: each member right on every row, or "
            "voting c(i) on every row, or neither on every row; var(s) is 0 then too"
            + (f"; {no_rows}" if no_rows else ""),
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
