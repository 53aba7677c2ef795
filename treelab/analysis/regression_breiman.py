"""Breiman's bound for regression forests (Breiman 2001, section 11), on the test rows or out
of bag; re-exported by :mod:`treelab.analysis.regression`. Formulas and sources:
docs/measures/regression.md."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var, to_dataset
from treelab.analysis._measure_intervals import (
    ci_options,
    ci_params,
    documents_ci_options,
    row_intervals,
)
from treelab.analysis._regression_members import UNITS, read_outputs, tree_sample_coords

__all__ = ["breiman_regression_bound", "breiman_vars"]

CITE_BREIMAN_REGRESSION = ("Breiman (2001), Random forests, Machine Learning 45, section 11 "
                           "(Theorem 11.2)")
#: Why ``n_rows`` gets no interval.
ROWS_COUNTED = "the count of rows used: every replicate has as many"


@documents_ci_options
def breiman_regression_bound(model_or_outputs: Any, X: Any = None, y: Any = None, *,
                             oob: bool = False, in_bag: Any = None, weights: Any = None,
                             ci: float | None = None,
                             ci_method: str = "bca", n_boot: int = 2000,
                             ci_seed: int = 0,
                             ci_resample: str = "stratified") -> xr.Dataset:
    """Breiman's bound for a regression forest: PE*(forest) <= rho_bar PE*(tree).

    With residuals r_i = y - f_i of the members (Breiman 2001, section 11), PE*(tree) = the
    members' mean squared error (1/M) sum_i E r_i^2, sd_i = sqrt(E r_i^2), and the weighted
    correlation of the residuals of two distinct members

        rho_bar = [1/(M(M-1)) sum_{i != j} E r_i r_j] / ((1/M) sum_i sd_i)^2

    (Breiman's rho(Theta, Theta') sd(Theta) sd(Theta') is E r r' under his assumption that
    the residuals have mean 0; ``mean_residual`` shows how far that holds). Theorem 11.2
    bounds the infinite forest's error by ``breiman_bound`` = rho_bar PE*(tree); the
    M-member forest's error is exactly (1/M) mean sd_i^2 + (1 - 1/M) rho_bar (mean sd_i)^2,
    never above ``finite_forest_bound`` = PE*(tree) / M + (1 - 1/M) rho_bar PE*(tree).
    Both bounds take (mean sd_i)^2 <= mean sd_i^2, which bounds from above only where
    rho_bar >= 0: with rho_bar < 0 (members whose errors cancel, such as two models biased
    in opposite directions) they are NaN, with the reason in their description. Where every
    member's residual is 0 on the rows used (a constant y that every member predicts),
    rho_bar is 0 / 0: it and both bounds are NaN, with that reason in their descriptions.

    A model that averages its members with weights w_i (``VotingRegressor(weights=...)``, or
    ``weights=``) is read as the same average: its residual is sum_i w_i r_i, PE*(tree) =
    sum_i w_i E r_i^2, rho_bar = [sum_{i != j} w_i w_j E r_i r_j / sum_{i != j} w_i w_j] /
    (sum_i w_i sd_i)^2, and its error is exactly sum_i w_i^2 sd_i^2 + sum_{i != j} w_i w_j
    E r_i r_j, never above ``finite_forest_bound`` = sum_i w_i^2 sd_i^2 + (1 - sum_i w_i^2)
    rho_bar PE*(tree) (rho_bar >= 0); equal weights are Breiman's forest.

    Out of bag (``oob=True`` or ``in_bag=``), X and y are the training rows and every
    expectation over rows E is taken over the rows a member (or both members of a pair) did
    not see; the forest's error is that of each row's out-of-bag members' mean, over the
    rows some member did not see.

    Parameters
    ----------
    model_or_outputs : fitted regression ensemble, list of fitted regressors, or array-like
        See :func:`regression_outputs`.
    X : array-like, (sample, feature), optional
        The rows the members predict (the training rows for out-of-bag estimates).
    y : array-like, (sample,)
        Their true values.
    oob : bool, default False
        Out-of-bag estimates from the in-bag rows the model records (scikit-learn forests
        with ``bootstrap=True`` and ``BaggingRegressor``: ``estimators_samples_``; bagged
        treelab regressors: their trees' bootstrap draws, replayed from the seeds they keep
        and checked against the fitted trees, :func:`treelab.analysis.oob.
        regression_in_bag_counts`; fitted with sample weights, pass ``in_bag=`` from that
        function with the weights).
    in_bag : array-like, (tree, sample), optional
        In-bag counts (or booleans) given directly; a row with count 0 is out of a member's
        bag.
    weights : array-like, (tree,), optional
        Non-negative member weights (normalised to sum to 1); default the model's own.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number but ``n_rows`` (not out of bag): the plain bootstrap of the test rows, as
        in :func:`treelab.analysis.diagnose` (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``forest_mse``, ``tree_mse``, ``rho_bar``, ``breiman_bound``,
        ``finite_forest_bound``, ``mean_residual_correlation`` (the unweighted mean of the
        pairwise residual correlations E r_i r_j / (sd_i sd_j) over the pairs with
        sd_i sd_j > 0), ``mean_residual``,
        ``member_mse`` (tree) and ``n_rows`` (the rows used); with ``ci`` the limits.

    References
    ----------
    Breiman (2001), Random forests, Machine Learning 45, section 11, Theorem 11.2.

    Examples
    --------
    >>> from treelab.analysis import breiman_regression_bound
    >>> ds = breiman_regression_bound([[1.0, 2.0, 0.0], [3.0, 3.0, 0.0]], y=[2.0, 1.0, 1.0])
    >>> round(float(ds.rho_bar), 4), round(float(ds.breiman_bound), 4)
    (0.4575, 0.6863)
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    if options is not None and (oob or in_bag is not None):
        raise ValueError("ci with oob or in_bag: out-of-bag estimates use the training rows, "
                         "each member its own; the row bootstrap of test rows does not apply "
                         "(pass ci=None)")
    m, y_arr = read_outputs(model_or_outputs, X, y, "model_or_outputs", weights=weights)
    f, wt = m.outputs, m.weights
    n_trees, n_rows = f.shape
    if n_trees < 2:
        raise ValueError("model_or_outputs has one member: rho_bar pairs two members")
    mask = _oob_mask(model_or_outputs, oob, in_bag, n_trees, n_rows, y_arr)
    variables = breiman_vars(f, y_arr, mask, wt)
    params: dict[str, Any] = {"source": m.source, "oob": mask is not None,
                              "weights": None if wt is None else wt}
    if options is not None:
        limits, skipped = row_intervals(
            variables, lambda rows: breiman_vars(f[:, rows], y_arr[rows], None, wt), n_rows,
            options, strata=None, no_interval={"n_rows": ROWS_COUNTED})
        variables = {**variables, **limits}
        params["ci"] = ci_params(options, skipped, classes=False)
    return to_dataset(variables, function="breiman_regression_bound", params=params,
                      coords=tree_sample_coords(m.coords))


def breiman_vars(f: np.ndarray, y_arr: np.ndarray, mask: np.ndarray | None,
                 weights: np.ndarray | None = None) -> dict[str, Var]:
    """Variables of :func:`breiman_regression_bound` from outputs (tree, sample), the
    out-of-bag mask (None: every row) and the members' convex weights in the model's average
    (None: equal, Breiman's forest, computed as the plain means)."""
    n_trees = f.shape[0]
    resid = y_arr - f
    w = np.ones_like(f) if mask is None else mask.astype(np.float64)
    rw = resid * w
    counts = w @ w.T  # rows shared by each pair (all rows without a mask)
    with np.errstate(invalid="ignore", divide="ignore"):
        cross = (rw @ rw.T) / counts  # E r_i r_j over the rows both members did not see
    member_mse = np.diag(cross).copy()
    if np.isnan(member_mse).any():
        raise ValueError("some member has no out-of-bag row: no error to estimate for it")
    sd = np.sqrt(member_mse)
    off = ~np.eye(n_trees, dtype=bool) & (counts > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho_ij = cross / np.outer(sd, sd)
    if weights is None:
        tree_mse, mean_sd, pair_mean = member_mse.mean(), sd.mean(), cross[off].mean()
        n_seen = w.sum(axis=0)
        forest_resid = rw.sum(axis=0)
        mean_residual = float(rw.sum() / w.sum())
    else:
        # the model's weighted average: its residual is sum_i w_i r_i, its exact error
        # sum_i w_i^2 sd_i^2 + sum_{i!=j} w_i w_j E r_i r_j
        pair_w = np.outer(weights, weights)[off]
        tree_mse, mean_sd = float(weights @ member_mse), float(weights @ sd)
        pair_mean = float(pair_w @ cross[off] / pair_w.sum()) if pair_w.sum() > 0 else np.nan
        own = float(weights @ weights)  # sum_i w_i^2 (1/M for equal weights)
        n_seen = weights @ w
        forest_resid = weights @ rw
        mean_residual = float((weights @ rw.sum(axis=1)) / (weights @ w.sum(axis=1)))
    rho_bar = pair_mean / mean_sd ** 2 if mean_sd > 0 else np.nan
    rho_desc = "rho_bar = mean_{i!=j} E r_i r_j / (mean_i sd_i)^2"
    if not mean_sd > 0:
        # members without error on these rows (a constant y every member predicts): the
        # correlation of residuals that are all 0 is 0 / 0
        rho_desc = ("NaN: every member's residual is 0 on the rows used (sd_i = 0), where no "
                    "residual correlation is defined")
    elif np.isnan(pair_mean):
        rho_desc = ("NaN: no pair of distinct members carries weight (w_i w_j = 0 for every "
                    "i != j)")
    used = n_seen > 0
    forest = forest_resid[used] / n_seen[used]  # mean out-of-bag residual per row
    forest_mse = np.mean(forest**2)
    # a pair with a member without error (sd_i = 0) has no correlation: left out of the mean
    defined = np.isfinite(rho_ij[off])
    mean_corr = float(rho_ij[off][defined].mean()) if defined.any() else np.nan
    corr_desc = ("mean over the pairs of distinct members with sd_i sd_j > 0" if defined.any()
                 else "NaN: no pair of distinct members has sd_i sd_j > 0")
    cite = CITE_BREIMAN_REGRESSION
    desc = "forest_mse <= finite_forest_bound; breiman_bound bounds the infinite forest"
    bound = rho_bar * tree_mse
    finite = tree_mse / n_trees + (1 - 1 / n_trees) * rho_bar * tree_mse if weights is None \
        else float((weights * weights) @ member_mse) + (1 - own) * rho_bar * tree_mse
    if np.isnan(rho_bar):
        desc = rho_desc
    elif rho_bar < 0:
        # both bounds replace (mean sd)^2 by mean sd^2, an upper bound for rho_bar >= 0 only
        desc = (f"NaN: rho_bar = {rho_bar:.4g} < 0, where rho_bar PE*(tree) bounds nothing "
                "(Theorem 11.2 takes (mean sd)^2 <= mean sd^2, true only for rho_bar >= 0)")
        bound = finite = np.nan
    return {
        "forest_mse": Var((), forest_mse, "mean squared error of the forest", UNITS,
                          cite=cite, description=desc),
        "tree_mse": Var((), tree_mse, "PE*(tree): mean squared error of the members, "
                        "averaged", UNITS, cite=cite),
        "rho_bar": Var((), rho_bar, "weighted correlation of the residuals of two members",
                       cite=cite, description=rho_desc),
        "breiman_bound": Var((), bound, "Breiman's bound rho_bar PE*(tree)",
                             UNITS, cite=cite, description=desc),
        "finite_forest_bound": Var((), finite, "bound for the M-member forest", UNITS,
                                   cite=cite, description=desc),
        "mean_residual_correlation": Var((), mean_corr, "mean correlation of the residuals "
                                         "of two members", cite=cite, description=corr_desc),
        "mean_residual": Var((), mean_residual, "mean member residual y - f_i", "units of y",
                             cite=cite, description="Theorem 11.2 assumes 0"),
        "member_mse": Var((_dims.TREE,), member_mse, "mean squared error of each member",
                          UNITS, cite=cite),
        "n_rows": Var((), int(used.sum()), "rows used for the forest's error", units="",
                      cite=cite),
    }


def _oob_mask(model: Any, oob: bool, in_bag: Any, n_trees: int, n_rows: int,
              y: np.ndarray | None = None) -> np.ndarray | None:
    """Out-of-bag mask (tree, sample): True where a member did not see the row."""
    if in_bag is not None:
        bag = np.asarray(in_bag)
        if bag.shape != (n_trees, n_rows):
            raise ValueError(f"in_bag must be (tree, sample) = {(n_trees, n_rows)}, got shape "
                             f"{bag.shape}")
        # counts (how often a member drew the row) or booleans: anything else is no bag
        counted = bag.dtype.kind in "biu" or (bag.dtype.kind == "f" and bool(
            np.all(np.isfinite(bag)) and np.all(bag == np.round(bag))))
        if not counted or (bag.dtype.kind != "b" and np.any(bag < 0)):
            raise ValueError("in_bag must hold in-bag counts (non-negative whole numbers) or "
                             "booleans, one per member and row")
        return bag == 0
    if not oob:
        return None
    from treelab.analysis.oob import regression_in_bag_counts, sklearn_in_bag

    if hasattr(model, "forest_") and hasattr(model, "member_predict"):
        # a treelab regressor: its trees' bootstrap draws replayed from their seeds
        try:
            bag = regression_in_bag_counts(model, y)
        except ValueError as exc:
            raise ValueError(
                f"{exc}. oob=True replays the draws of an unweighted fit; for a regressor "
                "fitted with sample_weight pass in_bag=treelab.analysis.oob."
                "regression_in_bag_counts(model, y_train, sample_weight=...) instead (in "
                "diagnose, leave out X_train and y_train)") from exc
    elif hasattr(model, "member_predict") and not hasattr(model, "estimators_"):
        raise ValueError("oob=True reads scikit-learn's estimators_samples_ or a treelab "
                         "regressor's bootstrap draws; for this model pass in_bag= (tree, "
                         "sample) with its in-bag counts")
    else:
        bag = sklearn_in_bag(model, n_rows, y=y)
    if bag.shape[0] != n_trees:
        raise ValueError(f"estimators_samples_ lists {bag.shape[0]} members, the model "
                         f"{n_trees}")
    return bag == 0
