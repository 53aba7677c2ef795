"""Diversity of regression ensembles: the ambiguity decomposition, Breiman's bound for
regression forests, Ueda & Nakano's bias-variance-covariance and Louppe's variance
decomposition; the bias-variance-diversity decomposition is in
:mod:`treelab.analysis.regression_decomposition` (re-exported here).

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
    PLAIN,
    ci_options,
    ci_params,
    documents_ci_options,
    row_intervals,
)
from treelab.analysis._regression_members import (  # noqa: F401 (regression_outputs: here too)
    combine,
    read_outputs,
    regression_outputs,
    resolve_regression,
)
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

CITE_BREIMAN_REGRESSION = ("Breiman (2001), Random forests, Machine Learning 45, section 11 "
                           "(Theorem 11.2)")
_UNITS = "squared units of y"


@documents_ci_options
def ambiguity(model_or_outputs: Any, X: Any = None, y: Any = None, *,
              weights: Any = None, ci: float | None = None, ci_method: str = "bca",
              n_boot: int = 2000, ci_seed: int = 0) -> xr.Dataset:
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
    options = ci_options(ci, ci_method, n_boot, ci_seed)
    m, y_arr = read_outputs(model_or_outputs, X, y, "model_or_outputs", weights=weights)
    f, w = m.outputs, m.weights
    variables = ambiguity_vars(f, w, y_arr)
    params: dict[str, Any] = {"source": m.source, "weights": None if w is None else w}
    if options is not None:
        limits, skipped = row_intervals(
            variables, lambda rows: ambiguity_vars(f[:, rows], w, y_arr[rows]), y_arr.size,
            options, strata=None)
        variables = {**variables, **limits}
        params["ci"] = ci_params(options, PLAIN, skipped)
    return to_dataset(variables, function="ambiguity", params=params,
                      coords=_coords(m.coords))


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
                            _UNITS, cite=cite, description=desc),
        "average_member_mse": Var((), avg.mean(), "weighted average member squared error, "
                                  "mean over rows", _UNITS, cite=cite, description=desc),
        "ambiguity": Var((), amb.mean(), "ambiguity (weighted spread of the members around "
                         "the ensemble), mean over rows", _UNITS, cite=cite, description=desc),
        "sample_ensemble_mse": Var((_dims.SAMPLE,), ens, "squared error of the ensemble per "
                                   "row", _UNITS, cite=cite),
        "sample_average_member_mse": Var((_dims.SAMPLE,), avg, "weighted average member "
                                         "squared error per row", _UNITS, cite=cite),
        "sample_ambiguity": Var((_dims.SAMPLE,), amb, "ambiguity per row", _UNITS, cite=cite),
        "member_mse": Var((_dims.TREE,), member_sq.mean(axis=1), "squared error of each "
                          "member, mean over rows", _UNITS, cite=cite),
        "member_ambiguity": Var((_dims.TREE,), spread.mean(axis=1), "squared distance of each "
                                "member to the ensemble, mean over rows", _UNITS, cite=cite),
    }


#: Why ``n_rows`` gets no interval.
ROWS_COUNTED = "the count of rows used: every replicate has as many"


def _coords(coords: dict) -> dict:
    return {k: v for k, v in coords.items() if k in (_dims.TREE, _dims.SAMPLE)}


def bias_variance_covariance(outputs: Any, target: Any) -> xr.Dataset:
    """Ueda & Nakano's bias-variance-covariance decomposition of an averaging ensemble.

    Member outputs f_i (i = 1..M) from K training sets, E the mean over training sets,
    t the target on each row (the true function E[y|x] when known, else the observed y),
    f_bar = (1/M) sum_i f_i. Per row, exactly

        E[(f_bar - t)^2] = bias^2 + var / M + (1 - 1/M) covar,

    with bias = (1/M) sum_i (E f_i - t), var = (1/M) sum_i E[(f_i - E f_i)^2] and covar =
    1/(M(M-1)) sum_i sum_{j != i} E[(f_i - E f_i)(f_j - E f_j)] (NaN for M = 1, where its
    weight 1 - 1/M is 0).

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
    f, t = check_values(outputs, target, "outputs", "target")
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
        variables[key] = Var((), values.mean(), f"{text}, mean over rows", _UNITS, cite=cite,
                             description=desc)
    for key, (values, text) in names.items():
        variables[f"sample_{key}"] = Var((_dims.SAMPLE,), values, f"{text} per row", _UNITS,
                                         cite=cite)
    ds = to_dataset(variables, function="bias_variance_covariance",
                    params={"n_repeat": f.shape[0], "n_trees": n_trees}, coords={})
    ds.attrs["n_trees"] = n_trees
    return ds


@documents_ci_options
def breiman_regression_bound(model_or_outputs: Any, X: Any = None, y: Any = None, *,
                             oob: bool = False, in_bag: Any = None, weights: Any = None,
                             ci: float | None = None,
                             ci_method: str = "bca", n_boot: int = 2000,
                             ci_seed: int = 0) -> xr.Dataset:
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
    in opposite directions) they are NaN, with the reason in their description.

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
        pairwise residual correlations E r_i r_j / (sd_i sd_j)), ``mean_residual``,
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
    options = ci_options(ci, ci_method, n_boot, ci_seed)
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
        params["ci"] = ci_params(options, PLAIN, skipped)
    return to_dataset(variables, function="breiman_regression_bound", params=params,
                      coords=_coords(m.coords))


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
    used = n_seen > 0
    forest = forest_resid[used] / n_seen[used]  # mean out-of-bag residual per row
    forest_mse = np.mean(forest**2)
    cite = CITE_BREIMAN_REGRESSION
    desc = "forest_mse <= finite_forest_bound; breiman_bound bounds the infinite forest"
    bound = rho_bar * tree_mse
    finite = tree_mse / n_trees + (1 - 1 / n_trees) * rho_bar * tree_mse if weights is None \
        else float((weights * weights) @ member_mse) + (1 - own) * rho_bar * tree_mse
    if rho_bar < 0:
        # both bounds replace (mean sd)^2 by mean sd^2, an upper bound for rho_bar >= 0 only
        desc = (f"NaN: rho_bar = {rho_bar:.4g} < 0, where rho_bar PE*(tree) bounds nothing "
                "(Theorem 11.2 takes (mean sd)^2 <= mean sd^2, true only for rho_bar >= 0)")
        bound = finite = np.nan
    return {
        "forest_mse": Var((), forest_mse, "mean squared error of the forest", _UNITS,
                          cite=cite, description=desc),
        "tree_mse": Var((), tree_mse, "PE*(tree): mean squared error of the members, "
                        "averaged", _UNITS, cite=cite),
        "rho_bar": Var((), rho_bar, "weighted correlation of the residuals of two members",
                       cite=cite, description="rho_bar = mean_{i!=j} E r_i r_j / "
                       "(mean_i sd_i)^2"),
        "breiman_bound": Var((), bound, "Breiman's bound rho_bar PE*(tree)",
                             _UNITS, cite=cite, description=desc),
        "finite_forest_bound": Var((), finite, "bound for the M-member forest", _UNITS,
                                   cite=cite, description=desc),
        "mean_residual_correlation": Var((), np.nanmean(rho_ij[off]), "mean correlation of "
                                         "the residuals of two members", cite=cite),
        "mean_residual": Var((), mean_residual, "mean member residual y - f_i", "units of y",
                             cite=cite, description="Theorem 11.2 assumes 0"),
        "member_mse": Var((_dims.TREE,), member_mse, "mean squared error of each member",
                          _UNITS, cite=cite),
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
    f, _ = check_values(outputs, None, "outputs", None)
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
        "tree_variance": (sigma2, "variance of one tree", _UNITS),
        "correlated_variance": (pairs, "rho sigma^2", _UNITS),
        "uncorrelated_variance": (uncorr, "(1 - rho) sigma^2 / M", _UNITS),
        "forest_variance": (forest, "variance of the forest over training sets", _UNITS),
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
                    params={"n_repeat": f.shape[0], "n_trees": n_trees}, coords={})
    ds.attrs["n_trees"] = n_trees
    return ds

