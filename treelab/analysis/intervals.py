"""Confidence intervals of the diagnosis measures from the bootstrap over test rows.

Every measure :func:`treelab.analysis.diagnose` computes from member labels on a test set is
a function of sums over the test rows: the ensemble error of the rows' errors, phi_e of the
rows' pairs of identical errors, the strength of their margins, Breiman's correlation of the
margins and of every tree's hits and rival votes. A bootstrap replicate redraws the rows, with
replacement, within every true class (the class shares stay those of the test set: the
stratified bootstrap, ``ci_resample="stratified"``, the default) or from all rows at once
(``ci_resample="rows"``: n rows drawn from all n, the class counts vary as they do between
test sets drawn from the population), and recomputes each measure from the redrawn sums; the
row's own quantities (its margin, its rival class, its votes) do not change, because the
ensemble is fixed and only the test sample is resampled. Replicates are weight vectors (how
often each row is drawn; :mod:`treelab.analysis._resampling` draws them and checks the
options), so all of them are computed at once by matrix products.

Intervals (Efron & Tibshirani 1993, chapters 13-14):

* percentile: the (1 - ci)/2 and (1 + ci)/2 quantiles of the B replicates;
* BCa (bias-corrected and accelerated): the quantiles Phi(z0 + (z0 + z_q) / (1 - a (z0 + z_q)))
  with z0 = Phi^-1(share of replicates below the estimate, ties counted half) and the
  acceleration a = sum d_i^3 / (6 (sum d_i^2)^(3/2)), d_i the jackknife deviations
  mean(theta_(.)) - theta_(i) (leave-one-row-out for up to 1000 rows; above, leave out one
  of 1000 seeded groups of rows, the grouped jackknife).

:func:`grid_intervals` puts an interval on a measure's mean over the folds and data sets of a
grid result (the experiment runner's), by the bootstrap over those cells.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.stats
import xarray as xr

from treelab.analysis._dataset import Var, margin_counts, vote_counts
from treelab.analysis._resampling import (
    CI_METHODS,
    CI_RESAMPLES,
    CIOptions,
    _jackknife_weights,
    check_interval_options,
    interval_how,
    replicate_weights,
    stratified_weights,
)

__all__ = ["CI_METHODS", "CI_RESAMPLES", "INTERVAL_MEASURES", "NO_INTERVAL", "CIOptions",
           "grid_intervals", "interval_vars", "measure_replicates", "no_interval_reasons",
           "replicate_weights", "stratified_weights"]

CITE_BOOTSTRAP = (
    "Efron & Tibshirani (1993), An Introduction to the Bootstrap, Chapman & Hall, chapters "
    "13-14 (percentile and BCa intervals); Davison & Hinkley (1997), Bootstrap Methods and "
    "their Application, section 3.2 (stratified resampling)"
)
#: Measures that get an interval from the row parts below, in output order (others get theirs
#: from :mod:`treelab.analysis._row_means` and :mod:`treelab.analysis._replicates`).
INTERVAL_MEASURES = ("ensemble_error", "mean_member_error", "error_ratio", "phi_e", "phi_star",
                     "phi_gap", "strength", "correlation", "breiman_bound", "margin_variance")
#: diagnose's numeric variables without an interval, and why (a row bootstrap of the test
#: rows is not meaningful for them, or their interval is not computed yet).
_FIT_TIME = "recorded while the trees were grown: fixed by the fit, not a test-row statistic"
NO_INTERVAL = {
    "single_error": "another model's error (or a number given): its rows are not kept",
    "class_share": "the stratified bootstrap keeps every class's row count: it does not vary",
    "margin": "one value per test row, not a mean over rows",
    "rival_class": "a class code per test row",
    "independent_error_se": "the Monte Carlo standard error of independent_error, not an "
                            "estimate of the test population",
    "optimal_error": "a step function (least feasible count of lost rows) of the member error "
                     "counts: the bootstrap of a non-smooth statistic is not consistent",
    "ties": _FIT_TIME, "decision_nodes": _FIT_TIME, "g": _FIT_TIME, "mean_g": _FIT_TIME,
    "pooled_g": _FIT_TIME, "random_share": _FIT_TIME, "tree_alpha": _FIT_TIME,
    "n_nodes": _FIT_TIME, "n_leaves": _FIT_TIME, "depth": _FIT_TIME, "gain_ties": _FIT_TIME,
    "gain_ties_test": _FIT_TIME, "rows_seen": _FIT_TIME,
    "oob_strength": "out-of-bag rows of the training set, not the test rows",
    "oob_correlation": "out-of-bag rows of the training set, not the test rows",
    "oob_breiman_bound": "out-of-bag rows of the training set, not the test rows",
    "pairwise_diversity_member_error": "member_error computed as 1 - accuracy (equal up to "
                                       "rounding): the interval is member_error's",
    "brier_uncertainty": "the stratified bootstrap keeps the class shares: it does not vary",
    "ece_width": "binned: bin edges and bin contents move with the resample (not smooth)",
    "ece_count": "binned: bin edges and bin contents move with the resample (not smooth)",
}
#: The measures of :data:`NO_INTERVAL` that only the stratified bootstrap holds fixed (with
#: ``ci_resample="rows"`` they get intervals: :func:`no_interval_reasons`).
_FIXED_BY_STRATA = ("class_share", "brier_uncertainty")
#: What an interval's description adds for some measures.
_NOTES = {
    "error_ratio": "; the single-model error held fixed",
    "independent_error": "; each replicate reruns the exact vote model on its weighted counts "
                         "(NaN where the value is simulated: a Monte Carlo value would add its "
                         "own noise to every replicate)",
}
#: Replicates computed per matrix product (memory: chunk x trees x classes^2 floats).
_CHUNK = 256


def no_interval_reasons(resample: str) -> dict[str, str]:
    """:data:`NO_INTERVAL` for the resampling ``resample``: under ``"rows"`` the class
    shares vary, so ``class_share`` and ``brier_uncertainty`` get intervals."""
    if resample == "stratified":
        return dict(NO_INTERVAL)
    return {k: v for k, v in NO_INTERVAL.items() if k not in _FIXED_BY_STRATA}


class RowParts(NamedTuple):
    """Per-row quantities of a fixed ensemble on its test rows (one-hot where per tree)."""

    ens_wrong: np.ndarray      # (sample,) 1 where the ensemble errs
    member_wrong: np.ndarray   # (sample,) share of members that err
    same_errors: np.ndarray    # (sample,) pairs of members with the same wrong class
    margin: np.ndarray         # (sample,) margin in votes
    hit: np.ndarray            # (sample, tree) 1 where the member is right
    rival: np.ndarray          # (sample, tree) 1 where the member votes the rival class
    label_onehot: np.ndarray   # (sample, tree * class) the member's label, one-hot
    y: np.ndarray              # (sample,) class codes
    n_classes: int
    n_trees: int


def row_parts(labels: np.ndarray, y: np.ndarray, ens: np.ndarray, n_classes: int,
              votes: np.ndarray | None = None) -> RowParts:
    """The rows' quantities, from member labels (tree, sample) and class codes."""
    n_trees, n_rows = labels.shape
    votes = vote_counts(labels, n_classes) if votes is None else votes
    wrong_votes = votes.astype(np.float64)
    wrong_votes[np.arange(n_rows), y] = 0.0
    m, rival_class = margin_counts(votes, y)
    onehot = np.zeros((n_rows, n_trees, n_classes))
    onehot[np.arange(n_rows)[:, None], np.arange(n_trees)[None, :], labels.T] = 1.0
    return RowParts(
        ens_wrong=(ens != y).astype(np.float64),
        member_wrong=np.mean(labels != y[None, :], axis=0),
        same_errors=np.sum(wrong_votes * (wrong_votes - 1.0), axis=1) / 2.0,
        margin=m.astype(np.float64),
        hit=(labels == y[None, :]).T.astype(np.float64),
        rival=(labels == rival_class[None, :]).T.astype(np.float64),
        label_onehot=onehot.reshape(n_rows, n_trees * n_classes),
        y=y, n_classes=n_classes, n_trees=n_trees)


def measure_replicates(parts: RowParts, weights: np.ndarray, single_error: float = np.nan,
                       measures: tuple[str, ...] = INTERVAL_MEASURES) -> dict[str, np.ndarray]:
    """Every measure at row weights (replicate, sample); ones give the point estimates.

    The formulas are those of :func:`treelab.analysis.errors`, :func:`error_correlation` and
    :func:`strength_correlation` with every sum over rows weighted: n = sum w, the class
    counts n_k = sum of w over the class's rows.
    """
    w = np.asarray(weights, dtype=np.float64)
    n = w.sum(axis=1)
    t = parts.n_trees
    out: dict[str, np.ndarray] = {}
    want = set(measures)
    if want & {"ensemble_error", "error_ratio"}:
        out["ensemble_error"] = w @ parts.ens_wrong / n
        with np.errstate(divide="ignore", invalid="ignore"):
            out["error_ratio"] = (out["ensemble_error"] / single_error if single_error > 0
                                  else np.full(n.shape, np.nan))
    if "mean_member_error" in want:
        out["mean_member_error"] = w @ parts.member_wrong / n
    n_pairs = t * (t - 1) / 2.0
    if want & {"phi_e", "phi_gap"}:
        out["phi_e"] = w @ parts.same_errors / n / n_pairs if t > 1 else np.full(n.shape, np.nan)
    if want & {"phi_star", "phi_gap"}:
        out["phi_star"] = _phi_star(parts, w, n) if t > 1 else np.full(n.shape, np.nan)
    if "phi_gap" in want:
        out["phi_gap"] = out["phi_e"] - out["phi_star"]
    if want & {"strength", "correlation", "breiman_bound", "margin_variance"}:
        s = w @ parts.margin / (t * n)
        var_s = np.maximum(w @ parts.margin**2 / (t * t * n) - s * s, 0.0)
        p1 = (w @ parts.hit) / n[:, None]
        p2 = (w @ parts.rival) / n[:, None]
        mean_sd = np.sqrt(np.maximum(p1 + p2 - (p1 - p2) ** 2, 0.0)).mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(mean_sd > 0, var_s / mean_sd**2, np.nan)
            bound = np.where(s > 0, rho * (1.0 - s * s) / (s * s), np.nan)
        out.update(strength=s, margin_variance=var_s, correlation=rho, breiman_bound=bound)
    return {k: v for k, v in out.items() if k in want}


def _phi_star(parts: RowParts, w: np.ndarray, n: np.ndarray) -> np.ndarray:
    """phi* at row weights: q[t, k, l] = p(f_t = l | y = k) from weighted counts."""
    t, c = parts.n_trees, parts.n_classes
    n_pairs = t * (t - 1) / 2.0
    total = np.zeros(w.shape[0])
    for k in range(c):
        rows = parts.y == k
        if not rows.any():
            continue
        n_k = w[:, rows].sum(axis=1)
        conf = (w[:, rows] @ parts.label_onehot[rows]).reshape(-1, t, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = conf / np.where(n_k > 0, n_k, 1.0)[:, None, None]
        s1 = q.sum(axis=1)
        pair = (s1 * s1 - np.einsum("btl,btl->bl", q, q)) / 2.0
        pair[:, k] = 0.0  # l != k: wrong predictions only
        total += n_k / n * pair.sum(axis=1)
    return total / n_pairs


def _chunked(parts: RowParts, weights: np.ndarray, single_error: float,
             measures: tuple[str, ...]) -> dict[str, np.ndarray]:
    pieces = [measure_replicates(parts, weights[i:i + _CHUNK], single_error, measures)
              for i in range(0, weights.shape[0], _CHUNK)]
    return {k: np.concatenate([p[k] for p in pieces]) for k in pieces[0]}


def recipe_replicates(recipe: Any, weights: np.ndarray) -> np.ndarray:
    """A row-mean measure (:class:`treelab.analysis._row_means.RowMeans`) at row weights
    (replicate, sample): its function of the weighted column means; ones give the estimate."""
    w = np.asarray(weights, dtype=np.float64)
    return recipe.finish(w @ recipe.columns / w.sum(axis=1)[:, None])


def _chunked_recipe(recipe: Any, weights: np.ndarray) -> np.ndarray:
    return np.concatenate([recipe_replicates(recipe, weights[i:i + _CHUNK])
                           for i in range(0, weights.shape[0], _CHUNK)])


def interval(boot: np.ndarray, theta: float, ci: float, method: str,
             jack: np.ndarray | None = None) -> tuple[float, float]:
    """Percentile or BCa interval from replicates ``boot`` of an estimate ``theta``.

    NaN where the estimate or more than 1% of the replicates are undefined; otherwise the
    undefined replicates (a replicate that drew no row of a class the measure divides by) are
    left out, and :func:`limit_vars` says how many in the description. [theta, theta] where
    every replicate equals the estimate (nothing varies)."""
    boot = np.asarray(boot, dtype=np.float64)
    ok = np.isfinite(boot)
    if not np.isfinite(theta) or ok.mean() < 0.99:
        return np.nan, np.nan
    boot = boot[ok]
    tol = 1e-12 * max(1.0, abs(theta))
    if np.all(np.abs(boot - theta) <= tol):
        return float(theta), float(theta)
    q = np.array([(1.0 - ci) / 2.0, (1.0 + ci) / 2.0])
    if method == "bca":
        below = np.mean(boot < theta - tol) + 0.5 * np.mean(np.abs(boot - theta) <= tol)
        z0 = scipy.stats.norm.ppf(np.clip(below, 1.0 / (boot.size + 1), 1 - 1.0 / (boot.size + 1)))
        jack = np.asarray([] if jack is None else jack, dtype=np.float64)  # none: a = 0
        jack = jack[np.isfinite(jack)]
        d = jack.mean() - jack if jack.size else np.zeros(1)
        denom = 6.0 * np.sum(d * d) ** 1.5
        a = float(np.sum(d**3) / denom) if denom > 0 else 0.0
        zq = scipy.stats.norm.ppf(q)
        q = scipy.stats.norm.cdf(z0 + (z0 + zq) / (1.0 - a * (z0 + zq)))
    lo, hi = np.quantile(boot, q)
    return float(lo), float(hi)


def interval_vars(
    labels: np.ndarray,
    y: np.ndarray,
    ens: np.ndarray,
    n_classes: int,
    variables: dict[str, Var],
    *,
    ci: float,
    method: str = "bca",
    n_boot: int = 2000,
    seed: int = 0,
    resample: str = "stratified",
    votes: np.ndarray | None = None,
    recipes: dict[str, Any] | None = None,
    statistics: list[Any] | None = None,
) -> dict[str, Var]:
    """``<measure>_lower`` and ``<measure>_upper`` for every measure of
    :data:`INTERVAL_MEASURES` present in ``variables`` (diagnose's) and every row-mean
    measure of ``recipes`` (:func:`treelab.analysis._row_means.row_mean_recipes`) and every
    measure of ``statistics`` (functions of row weights,
    :func:`treelab.analysis._replicates.replicate_statistics`), from the same bootstrap
    weights over the test rows (:func:`replicate_weights`: stratified by class, or drawn from
    all rows for ``resample="rows"``); the error ratio's keeps the single-model error
    fixed. A measure with dims gets an interval per element."""
    options = check_interval_options(ci, method, n_boot, seed, resample)
    measures = tuple(m for m in INTERVAL_MEASURES if m in variables)
    single = float(variables["single_error"].data) if "single_error" in variables else np.nan
    parts = row_parts(labels, y, ens, n_classes, votes)
    rng = np.random.default_rng(options.seed)
    boot_w = replicate_weights(y, y.size, options.n_boot, rng, options.resample)
    boot = _chunked(parts, boot_w, single, measures)
    jack_w = _jackknife_weights(y.size, rng) if options.method == "bca" else None
    jack = _chunked(parts, jack_w, single, measures) if jack_w is not None else {}
    for name, recipe in (recipes or {}).items():
        boot[name] = _chunked_recipe(recipe, boot_w)
        if jack_w is not None:
            jack[name] = _chunked_recipe(recipe, jack_w)
    named: list[str] = []
    for statistic in statistics or []:
        values = statistic(boot_w)
        boot.update(values)
        named += list(values)
        if jack_w is not None:
            jack.update(statistic(jack_w))
    return limit_vars(variables, (*measures, *(recipes or {}), *named), boot, jack,
                      ci=options.level, method=options.method,
                      how=interval_how(options, classes=True))


def limit_vars(variables: dict[str, Var], names: tuple[str, ...] | list[str],
               boot: dict[str, np.ndarray], jack: dict[str, np.ndarray], *, ci: float,
               method: str, how: str) -> dict[str, Var]:
    """``<name>_lower`` and ``<name>_upper`` (the measure's dims, one interval per element)
    from the replicates ``boot[name]`` (replicate, ...) and jackknife values ``jack[name]``
    of every measure ``names`` of ``variables``: the one convention of every interval."""
    out = {}
    for name in names:
        base = variables[name]
        theta = np.asarray(base.data, dtype=np.float64)
        b = np.asarray(boot[name], dtype=np.float64)
        b = b.reshape(b.shape[0], -1)
        j = jack[name].reshape(jack[name].shape[0], -1) if name in jack else None
        limits = np.array([interval(b[:, e], float(t), ci, method,
                                    None if j is None else j[:, e])
                           for e, t in enumerate(theta.ravel())]).reshape(*theta.shape, 2)
        note = how + _NOTES.get(name, "") + _undefined_note(theta, b)
        for side, value in (("lower", limits[..., 0]), ("upper", limits[..., 1])):
            value = float(value) if value.ndim == 0 else value
            out[f"{name}_{side}"] = Var(base.dims, value, f"{side} {ci:.0%} confidence limit of "
                                        f"{base.long_name}", units=base.units,
                                        valid_range=base.valid_range, cite=CITE_BOOTSTRAP,
                                        description=note)
    return out


def _undefined_note(theta: np.ndarray, boot: np.ndarray) -> str:
    """What the description says of undefined replicates (replicate, element) where the
    estimate is defined: how many :func:`interval` left out, or that it gave NaN limits."""
    n = boot.shape[0]
    bad = np.sum(~np.isfinite(boot), axis=0)[np.isfinite(theta.ravel())]
    nan_limits = (n - bad) / n < 0.99  # interval()'s rule
    note = ""
    left = bad[(bad > 0) & ~nan_limits]
    if left.size:
        note += (f"; {left.max()} of {n} replicates (at most, per element) where the measure "
                 f"is undefined (e.g. no row of a class drawn) are left out of the limits")
    if nan_limits.any():
        note += (f"; limits NaN where more than 1% of the replicates are undefined (up to "
                 f"{bad[nan_limits].max()} of {n})")
    return note


def grid_intervals(
    results: xr.Dataset | xr.DataArray,
    *,
    var: str = "ensemble_error",
    over: tuple[str, ...] = ("repeat", "fold"),
    ci: float = 0.95,
    method: str = "percentile",
    n_boot: int = 2000,
    seed: int = 0,
) -> xr.Dataset:
    """Mean of a measure over folds (and/or data sets) of a grid result, with an interval.

    The cells along the ``over`` dims (e.g. ``("fold",)``, ``("repeat", "fold")``, or
    ``("dataset",)``) are treated as exchangeable draws; the interval is the bootstrap's
    (percentile or BCa, leave-one-cell-out jackknife) of their mean, per coordinate of the
    other dims. Folds of one cross-validation share training rows, so over folds the interval
    is too narrow by the factor Nadeau and Bengio correct for (it shows the spread of the
    estimates, not the uncertainty of the generalisation error: for a test between methods use
    :func:`treelab.stats.corrected_resampled_t` or :func:`treelab.stats.bayesian_correlated_t`).
    Missing cells are refused.

    Parameters
    ----------
    results : xarray.Dataset or DataArray
        A grid result (:func:`treelab.experiment.run`) or any values with the ``over`` dims.
    var : str, default "ensemble_error"
        The variable of a Dataset.
    over : tuple of str, default ("repeat", "fold")
        The dims resampled (those present are used; at least one must be).
    ci : float, default 0.95
        Confidence level.
    method : {"percentile", "bca"}, default "percentile"
        The interval.
    n_boot : int, default 2000
        Bootstrap replicates.
    seed : int, default 0
        Resampling seed (recorded in ``params``).

    Returns
    -------
    xarray.Dataset
        ``mean``, ``lower``, ``upper`` and ``n_cells`` over the other dims.

    Examples
    --------
    >>> import xarray as xr
    >>> da = xr.DataArray([[0.10, 0.12, 0.11, 0.13, 0.09]], dims=("dataset", "fold"))
    >>> res = grid_intervals(da)
    >>> bool(res.lower < res["mean"] < res.upper)
    True
    """
    from treelab.analysis._dataset import to_dataset
    from treelab.stats._common import to_dataarray_input

    ci, method, n_boot, seed, _ = check_interval_options(ci, method, n_boot, seed)
    da = to_dataarray_input(results, "results", var)
    if isinstance(over, str) or not all(isinstance(d, str) for d in over):
        raise TypeError(f"over must be a tuple of dim names, got {over!r}")
    dims = [d for d in over if d in da.dims]
    if not dims:
        raise ValueError(f"results has none of the dims {tuple(over)} to resample over "
                         f"(dims {tuple(da.dims)})")
    if da.dtype.kind not in "fiub":
        raise TypeError(f"results must hold numbers, got dtype {da.dtype}")
    stacked = da.stack(_cell=dims).transpose(..., "_cell")
    values = np.asarray(stacked.values, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"results holds missing or infinite values of {var!r}; select the "
                         "complete cells first (a mean over the cells one has is not the "
                         "mean over the grid)")
    outer = [d for d in stacked.dims if d != "_cell"]
    flat = values.reshape(-1, values.shape[-1])
    n_cells = flat.shape[1]
    if n_cells < 2:
        raise ValueError(f"results must hold at least 2 cells over {dims}, got {n_cells}")
    rng = np.random.default_rng(seed)
    w = rng.multinomial(n_cells, np.full(n_cells, 1.0 / n_cells), size=n_boot)
    jack_w = 1.0 - np.eye(n_cells)
    lo, hi = np.empty(flat.shape[0]), np.empty(flat.shape[0])
    for i, row in enumerate(flat):
        boot = w @ row / n_cells
        jack = jack_w @ row / (n_cells - 1)
        lo[i], hi[i] = interval(boot, float(row.mean()), ci, method, jack)
    shape = values.shape[:-1]
    coords = {d: stacked[d].values for d in outer if d in stacked.indexes}
    dims_t = tuple(str(d) for d in outer)
    units = str(da.attrs.get("units", ""))
    how = (f"{method} {ci:.0%} interval of the mean over {dims} from {n_boot} bootstrap "
           f"replicates (seed {seed})")
    variables = {
        "mean": Var(dims_t, flat.mean(axis=1).reshape(shape), f"mean of {var} over {dims}",
                    units=units, cite=CITE_BOOTSTRAP),
        "lower": Var(dims_t, lo.reshape(shape), f"lower {ci:.0%} confidence limit of the mean",
                     units=units, cite=CITE_BOOTSTRAP, description=how),
        "upper": Var(dims_t, hi.reshape(shape), f"upper {ci:.0%} confidence limit of the mean",
                     units=units, cite=CITE_BOOTSTRAP, description=how),
        "n_cells": Var((), n_cells, "cells the mean is over", units="", cite=CITE_BOOTSTRAP),
    }
    params = {"var": var, "over": dims, "ci": ci, "method": method, "n_boot": n_boot,
              "seed": seed}
    return to_dataset(variables, function="grid_intervals", params=params, coords=coords,
                      check_dims=False)
