"""Diversity of regression ensembles: the ambiguity decomposition, Ueda & Nakano's
bias-variance-covariance and Louppe's variance decomposition; Breiman's bound for regression
forests is in :mod:`treelab.analysis.regression_breiman` and the bias-variance-diversity
decomposition in :mod:`treelab.analysis.regression_decomposition` (both re-exported here).

Every measure takes real-valued member outputs: a fitted regression ensemble (scikit-learn's
forests, ``BaggingRegressor``, ``VotingRegressor``, a treelab regressor), a list of fitted
regressors, or an array / DataArray, read by
:func:`treelab.analysis._regression_members.resolve_regression`. Formulas and sources:
docs/measures/regression.md. Each term is computed from its own definition; that the terms of
a decomposition sum to the directly measured loss is checked by the tests, not built in.
"""

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
from treelab.analysis._regression_members import (  # noqa: F401 (regression_outputs: here too)
    UNITS,
    combine,
    read_outputs,
    regression_outputs,
    resolve_regression,
    tree_sample_coords,
)
from treelab.analysis.regression_breiman import breiman_regression_bound  # noqa: F401
from treelab.analysis.regression_decomposition import (
    CITE_KROGH_VEDELSBY,
    CITE_LOUPPE,
    CITE_UEDA_NAKANO,
    bias_variance_diversity,
    check_values,
    repeated_member_outputs,
)

__all__ = [
    "ambiguity",
    "bias_variance_covariance",
    "bias_variance_diversity",
    "breiman_regression_bound",
    "louppe_variance",
    "regression_outputs",
    "repeated_member_outputs",
]



@documents_ci_options
def ambiguity(model_or_outputs: Any, X: Any = None, y: Any = None, *,
              weights: Any = None, ci: float | None = None, ci_method: str = "bca",
              n_boot: int = 2000, ci_seed: int = 0,
              ci_resample: str = "stratified") -> xr.Dataset:
    """The ambiguity decomposition of a regression ensemble (Krogh & Vedelsby 1995).

    For member outputs f_i(x) with convex weights w_i (equal by default; a ``VotingRegressor``'s
    own weights) and the ensemble f_bar = sum_i w_i f_i, exactly on every row

        (f_bar - y)^2 = sum_i w_i (f_i - y)^2 - sum_i w_i (f_i - f_bar)^2,

    the ensemble's squared error is the members' average squared error less their ambiguity
    (spread around the ensemble). Each side is computed from its own definition.

    Parameters
    ----------
    model_or_outputs : fitted regression ensemble, list of fitted regressors, or array-like
        See :func:`regression_outputs`; outputs (tree, sample) need no ``X``.
    X : array-like, (sample, feature), optional
        The rows the model predicts.
    y : array-like, (sample,)
        Their true values.
    weights : array-like, (tree,), optional
        Non-negative member weights (normalised to sum to 1); default the model's own.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        every number that is not per row: the plain bootstrap of the test rows, as in
        :func:`treelab.analysis.diagnose` (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``ensemble_mse``, ``average_member_mse``, ``ambiguity`` (means over rows), their
        per-row ``sample_*`` versions, and ``member_mse`` and ``member_ambiguity`` (tree);
        with ``ci`` the limits of all but the per-row ones.

    References
    ----------
    Krogh & Vedelsby (1995), Neural network ensembles, cross validation, and active
    learning, NIPS 7, eq. (5)-(6).

    Examples
    --------
    >>> from treelab.analysis import ambiguity
    >>> ds = ambiguity([[1.0, 2.0], [3.0, 2.0], [2.0, 5.0]], y=[2.0, 4.0])
    >>> [round(float(ds[v]), 4) for v in ("ensemble_mse", "average_member_mse", "ambiguity")]
    [0.5, 1.8333, 1.3333]
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    m, y_arr = read_outputs(model_or_outputs, X, y, "model_or_outputs", weights=weights)
    f, w = m.outputs, m.weights
    variables = ambiguity_vars(f, w, y_arr)
    params: dict[str, Any] = {"source": m.source, "weights": None if w is None else w}
    if options is not None:
        limits, skipped = row_intervals(
            variables, lambda rows: ambiguity_vars(f[:, rows], w, y_arr[rows]), y_arr.size,
            options, strata=None)
        variables = {**variables, **limits}
        params["ci"] = ci_params(options, skipped, classes=False)
    return to_dataset(variables, function="ambiguity", params=params,
                      coords=tree_sample_coords(m.coords))


def ambiguity_vars(f: np.ndarray, w: np.ndarray | None, y_arr: np.ndarray) -> dict[str, Var]:
    """Variables of :func:`ambiguity` from outputs (tree, sample) and normalised weights."""
    n_trees = f.shape[0]
    wt = np.full(n_trees, 1.0 / n_trees) if w is None else w
    f_bar = combine(f, w)
    ens = (f_bar - y_arr) ** 2
    member_sq = (f - y_arr) ** 2
    spread = (f - f_bar) ** 2
    avg = wt @ member_sq
    amb = wt @ spread
    cite = CITE_KROGH_VEDELSBY
    desc = "ensemble_mse = average_member_mse - ambiguity (on every row)"
    return {
        "ensemble_mse": Var((), ens.mean(), "squared error of the ensemble, mean over rows",
                            UNITS, cite=cite, description=desc),
        "average_member_mse": Var((), avg.mean(), "weighted average member squared error, "
                                  "mean over rows", UNITS, cite=cite, description=desc),
        "ambiguity": Var((), amb.mean(), "ambiguity (weighted spread of the members around "
                         "the ensemble), mean over rows", UNITS, cite=cite, description=desc),
        "sample_ensemble_mse": Var((_dims.SAMPLE,), ens, "squared error of the ensemble per "
                                   "row", UNITS, cite=cite),
        "sample_average_member_mse": Var((_dims.SAMPLE,), avg, "weighted average member "
                                         "squared error per row", UNITS, cite=cite),
        "sample_ambiguity": Var((_dims.SAMPLE,), amb, "ambiguity per row", UNITS, cite=cite),
        "member_mse": Var((_dims.TREE,), member_sq.mean(axis=1), "squared error of each "
                          "member, mean over rows", UNITS, cite=cite),
        "member_ambiguity": Var((_dims.TREE,), spread.mean(axis=1), "squared distance of each "
                                "member to the ensemble, mean over rows", UNITS, cite=cite),
    }


def bias_variance_covariance(outputs: Any, target: Any) -> xr.Dataset:
    """Ueda & Nakano's bias-variance-covariance decomposition of an averaging ensemble.

    Member outputs f_i (i = 1..M) from K training sets, E the mean over training sets,
    t the target on each row (the true function E[y|x] when known, else the observed y),
    f_bar = (1/M) sum_i f_i. Per row, exactly

        E[(f_bar - t)^2] = bias^2 + var / M + (1 - 1/M) covar,

    with bias = (1/M) sum_i (E f_i - t), var = (1/M) sum_i E[(f_i - E f_i)^2] and covar =
    1/(M(M-1)) sum_i sum_{j != i} E[(f_i - E f_i)(f_j - E f_j)] (NaN for M = 1, where its
    weight 1 - 1/M is 0).

    E divides by K (plug-in moments), which makes the identity exact on the K sets:
    var / M + (1 - 1/M) covar is the forests' variance with divisor K, (K - 1) / K of
    :func:`louppe_variance`'s unbiased ``forest_variance`` on the same outputs, and bias^2
    carries in expectation the forests' variance / K.

    Parameters
    ----------
    outputs : array-like or DataArray, (repeat, tree, sample)
        Member outputs of models trained on K training sets, on the same rows.
    target : array-like, (sample,)
        The target on those rows.

    Returns
    -------
    xarray.Dataset
        ``expected_loss``, ``squared_bias``, ``variance``, ``covariance`` (means over rows)
        and ``sample_*`` versions per row; attr ``n_trees``.

    References
    ----------
    Ueda & Nakano (1996), Generalization error of ensemble estimators, ICNN, eq. (9).

    Examples
    --------
    >>> from treelab.analysis import bias_variance_covariance
    >>> out = [[[1.0, 2.0], [3.0, 2.0]], [[2.0, 2.0], [2.0, 4.0]]]
    >>> ds = bias_variance_covariance(out, [2.0, 3.0])
    >>> float(ds.expected_loss), float(ds.squared_bias), float(ds.covariance)
    (0.25, 0.125, -0.125)
    """
    f, t, coords = check_values(outputs, target, "outputs", "target")
    n_trees = f.shape[1]
    f_bar = f.mean(axis=1)
    expected = np.mean((f_bar - t) ** 2, axis=0)
    centre = f.mean(axis=0)  # E f_i, (tree, sample)
    bias = centre.mean(axis=0) - t
    dev = f - centre
    var = np.mean(dev**2, axis=(0, 1))
    if n_trees > 1:
        pair_sum = np.mean(dev.sum(axis=1) ** 2 - np.sum(dev**2, axis=1), axis=0)
        covar = pair_sum / (n_trees * (n_trees - 1))
    else:
        covar = np.full(t.shape, np.nan)
    cite = CITE_UEDA_NAKANO
    desc = "expected_loss = squared_bias + variance / M + (1 - 1/M) covariance"
    names = {"expected_loss": (expected, "expected squared distance of the ensemble to the "
                               "target"),
             "squared_bias": (bias**2, "squared average member bias"),
             "variance": (var, "average member variance"),
             "covariance": (covar, "average covariance between two members")}
    variables = {}
    for key, (values, text) in names.items():
        variables[key] = Var((), values.mean(), f"{text}, mean over rows", UNITS, cite=cite,
                             description=desc)
    for key, (values, text) in names.items():
        variables[f"sample_{key}"] = Var((_dims.SAMPLE,), values, f"{text} per row", UNITS,
                                         cite=cite)
    ds = to_dataset(variables, function="bias_variance_covariance",
                    params={"n_repeat": f.shape[0], "n_trees": n_trees}, coords=coords)
    ds.attrs["n_trees"] = n_trees
    return ds


def louppe_variance(outputs: Any) -> xr.Dataset:
    """Louppe's decomposition of a forest's variance over training sets and randomisation.

    For trees phi_{L,theta}(x) grown on a training set L with randomisation theta, sigma^2(x)
    = Var_{L,theta} phi(x) the variance of one tree, and rho(x) = Cov(phi_{L,theta}(x),
    phi_{L,theta'}(x)) / sigma^2(x) the correlation between two trees grown on the same L
    with independent theta, theta', the M-tree forest's variance is (Louppe 2014,
    Theorem 4.3)

        Var_{L,theta_1..M}(forest(x)) = rho(x) sigma^2(x) + (1 - rho(x)) sigma^2(x) / M.

    With outputs f_{k,i} from K >= 2 training sets and M >= 2 trees on each, every moment is
    estimated without bias from products of independent draws: (E phi)^2 by C, the mean of
    f_bar_k f_bar_l over pairs of distinct training sets k != l (f_bar_k the forest of set k);
    sigma^2(x) = mean of f^2 - C; rho(x) sigma^2(x) = Cov(phi_{L,theta}, phi_{L,theta'}) =
    mean over sets and pairs of distinct trees i != j of f_{k,i} f_{k,j}, minus C; and
    ``forest_variance`` = mean over sets of f_bar_k^2 - C, measured directly. The identity
    holds for these estimates exactly. (Centring on the mean of all K M outputs instead
    would take the between-set variance as (K - 1) / K of itself: a rho biased low by a
    third with K = 3.) Products are taken of outputs centred on their mean (the moments do
    not depend on the centre), which keeps large outputs from cancelling.

    Parameters
    ----------
    outputs : array-like or DataArray, (repeat, tree, sample)
        M >= 2 trees from each of K >= 2 training sets, on the same rows.

    Returns
    -------
    xarray.Dataset
        Per row ``rho``, ``tree_variance`` (sigma^2), ``correlated_variance`` (rho sigma^2),
        ``uncorrelated_variance`` ((1 - rho) sigma^2 / M), ``forest_variance``; and their
        means over rows ``mean_*`` (``mean_rho`` over rows where sigma^2 > 0).

    References
    ----------
    Louppe (2014), Understanding random forests: from theory to practice, PhD thesis,
    University of Liege, section 4.2.2 (Theorem 4.3).

    Examples
    --------
    >>> from treelab.analysis import louppe_variance

    Two training sets of two trees, one row: forests 1.5 and 4, C = 1.5 x 4 = 6; sigma^2 =
    (1 + 4 + 9 + 25) / 4 - 6 = 3.75; rho sigma^2 = (1 x 2 + 3 x 5) / 2 - 6 = 2.5; the forest's
    variance (2.25 + 16) / 2 - 6 = 3.125 = 2.5 + (3.75 - 2.5) / 2.

    >>> ds = louppe_variance([[[1.0], [2.0]], [[3.0], [5.0]]])
    >>> float(ds.mean_tree_variance), float(ds.mean_correlated_variance), float(ds.mean_rho)
    (3.75, 2.5, 0.6666666666666666)
    >>> float(ds.mean_forest_variance)
    3.125
    """
    f, _, coords = check_values(outputs, None, "outputs", None)
    n_trees = f.shape[1]
    if n_trees < 2:
        raise ValueError("outputs has one tree per training set: rho pairs two trees grown "
                         "on the same training set")
    n_sets = f.shape[0]
    if n_sets < 2:
        raise ValueError("outputs has one training set (repeat): the variance over training "
                         "sets needs K >= 2 of them")
    c = f - f.mean(axis=(0, 1))
    set_sums = c.sum(axis=1)  # (repeat, sample)
    set_means = set_sums / n_trees
    # (E phi)^2: products of the forests of two distinct training sets
    square_of_mean = (set_means.sum(axis=0) ** 2 - np.sum(set_means**2, axis=0)) / (
        n_sets * (n_sets - 1))
    sigma2 = np.mean(c**2, axis=(0, 1)) - square_of_mean
    pairs = np.mean(set_sums**2 - np.sum(c**2, axis=1), axis=0) / (
        n_trees * (n_trees - 1)) - square_of_mean
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(sigma2 > 0, pairs / np.where(sigma2 > 0, sigma2, 1.0), np.nan)
    uncorr = (sigma2 - pairs) / n_trees
    forest = np.mean(set_means**2, axis=0) - square_of_mean
    cite = CITE_LOUPPE
    desc = "forest_variance = correlated_variance + uncorrelated_variance"
    names = {
        "rho": (rho, "correlation between two trees grown on the same training set", "1"),
        "tree_variance": (sigma2, "variance of one tree", UNITS),
        "correlated_variance": (pairs, "rho sigma^2", UNITS),
        "uncorrelated_variance": (uncorr, "(1 - rho) sigma^2 / M", UNITS),
        "forest_variance": (forest, "variance of the forest over training sets", UNITS),
    }
    variables = {}
    for key, (values, text, units) in names.items():
        variables[key] = Var((_dims.SAMPLE,), values, f"{text} per row", units, cite=cite,
                             description=desc)
    for key, (values, text, units) in names.items():
        mean = np.nanmean(values) if key == "rho" and np.isfinite(values).any() else (
            np.nan if key == "rho" else values.mean())
        variables[f"mean_{key}"] = Var((), mean, f"{text}, mean over rows", units, cite=cite)
    ds = to_dataset(variables, function="louppe_variance",
                    params={"n_repeat": f.shape[0], "n_trees": n_trees}, coords=coords)
    ds.attrs["n_trees"] = n_trees
    return ds

