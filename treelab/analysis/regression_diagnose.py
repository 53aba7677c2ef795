"""One call that diagnoses a regression ensemble on a test set (what
:func:`treelab.analysis.diagnose` answers for a regressor)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._dataset import Var, make_attrs, to_dataset
from treelab.analysis._inputs import align_to, as_array
from treelab.analysis._measure_intervals import (
    ci_options,
    ci_params,
    documents_ci_options,
    row_intervals,
)
from treelab.analysis._regression_members import (
    check_outputs,
    combine,
    resolve_regression,
    stack_repeats,
    values_on,
)
from treelab.analysis.regression import (
    ambiguity,
    ambiguity_vars,
    bias_variance_covariance,
    louppe_variance,
)
from treelab.analysis.regression_breiman import breiman_regression_bound, breiman_vars
from treelab.analysis.regression_decomposition import bias_variance_diversity

__all__ = ["diagnose_regression"]

_AMBIGUITY = ("ensemble_mse", "average_member_mse", "ambiguity", "member_mse",
              "member_ambiguity")
_BREIMAN = ("tree_mse", "rho_bar", "breiman_bound", "finite_forest_bound",
            "mean_residual_correlation", "mean_residual")


@documents_ci_options
def diagnose_regression(regressor: Any, X: Any, y: Any, *, models: Any = None,
                        target: Any = None, X_train: Any = None, y_train: Any = None,
                        label: str | None = None, ci: float | None = None,
                        ci_method: str = "bca", n_boot: int = 2000,
                        ci_seed: int = 0,
                        ci_resample: str = "stratified") -> xr.Dataset:
    """Diagnose a regression ensemble on a test set: error, ambiguity, residual correlation,
    Breiman's bound and, given K fitted models, the decompositions over training sets.

    ``mse`` and ``r2`` are those of the model's own ``predict`` (for a list of regressors or
    raw outputs: the mean of the members); the ambiguity decomposition
    (:func:`treelab.analysis.ambiguity`: ``ensemble_mse = average_member_mse - ambiguity``,
    ``member_mse``, ``member_ambiguity``) and Breiman's regression bound on the test rows
    (:func:`treelab.analysis.breiman_regression_bound`: ``tree_mse``, ``rho_bar``,
    ``breiman_bound``, ``finite_forest_bound``, ``mean_residual_correlation``,
    ``mean_residual``) follow. With ``X_train`` and ``y_train`` (the training rows of a model
    that records them, ``estimators_samples_``, or a bagged treelab regressor, whose
    bootstrap draws are replayed from its trees' seeds) the bound is also estimated out of
    bag (``oob_*``); a model that leaves no row out of any member (no bootstrap, voting) has
    no out-of-bag numbers and gets the rest. A model of one member has no pair of members:
    its diagnosis leaves out Breiman's bound, on the test rows and out of bag.

    With ``models``, K fitted regression ensembles of the same kind and size, one per
    training set (for example the regressor refitted on K bootstrap samples), their member
    outputs on ``X`` give ``bvd_*`` (:func:`treelab.analysis.regression.
    bias_variance_diversity`, squared loss), ``bvc_*``
    (:func:`treelab.analysis.bias_variance_covariance`, against ``target`` when given, else
    ``y``) and ``louppe_*`` (:func:`treelab.analysis.louppe_variance`, with at least two
    members each).

    Parameters
    ----------
    regressor : fitted regression ensemble, list of fitted regressors, or outputs
        See :func:`treelab.analysis.regression_outputs`.
    X : array-like, (sample, feature)
        Test rows (None for outputs given as an array).
    y : array-like, (sample,)
        Their true values.
    models : list of fitted regression ensembles, or array-like (repeat, tree, sample)
        K >= 2 models trained on K training sets, or their member outputs on ``X``
        (:func:`treelab.analysis.repeated_member_outputs`), for the decompositions; one
        training set is refused (no variance over training sets to decompose).
    target : array-like, (sample,), optional
        The true function E[y|x] on the test rows, for the decompositions.
    X_train, y_train : array-like, optional
        The regressor's training rows, for the out-of-bag bound.
    label : str, optional
        Name recorded as the scalar coordinate ``ensemble`` (default: the model's class);
        the scalar coordinate ``alpha`` is the model's alpha (NaN without one), so that
        results stack (:func:`treelab.plot.stack_results`).
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on the
        numbers of the test rows (``mse``, ``r2``, the ambiguity decomposition, Breiman's
        bound and residual correlation; per member for ``member_mse`` and
        ``member_ambiguity``): the plain bootstrap of the test rows with the members' and the
        model's outputs on a row held fixed (docs/measures/uncertainty.md); the options and
        the variables without one (``oob_*``, ``bvd_*``, ``bvc_*``, ``louppe_*``: other rows
        or other training sets) are recorded in ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        The variables above; ``member_mse`` and ``member_ambiguity`` over ``tree``.

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> from treelab.analysis import diagnose
    >>> X, y = make_friedman1(120, random_state=0)
    >>> rf = RandomForestRegressor(n_estimators=10, random_state=0).fit(X[:80], y[:80])
    >>> ds = diagnose(rf, X[80:], y[80:])
    >>> bool(abs(ds.ensemble_mse - (ds.average_member_mse - ds.ambiguity)) < 1e-9)
    True
    """
    options = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    m = resolve_regression(regressor, X, y=y, need_ensemble=True)
    # DataArrays are paired with the rows by their sample labels, never by position: the
    # member outputs' labels where they carry some, else y's
    rows = m.coords if _dims.SAMPLE in m.coords else as_array(y, "y", (_dims.SAMPLE,))[1]
    y_arr = values_on(y, "y", rows, "the member outputs").astype(np.float64)
    if target is not None:
        target = values_on(target, "target", rows, "y")
    outputs = m.outputs
    rep = None if models is None else _read_models(models, X, rows, y_arr.size)
    pred = m.ensemble if m.ensemble is not None else combine(outputs, m.weights)
    out = xr.Dataset()
    for name, var in _fit_vars(pred, y_arr).items():
        attrs = {"long_name": var.long_name, "units": var.units, "cite": var.cite}
        out[name] = xr.DataArray(var.data, attrs=attrs | (
            {"description": var.description} if var.description else {}))
    parts = [(ambiguity(outputs, y=y_arr, weights=m.weights), _AMBIGUITY, "")]
    if outputs.shape[0] > 1:
        parts.append((breiman_regression_bound(outputs, y=y_arr, weights=m.weights), _BREIMAN,
                      ""))
    # one member has no pair: no residual correlation, on the test rows or out of bag
    if X_train is not None and y_train is not None and outputs.shape[0] > 1:
        # a scikit-learn ensemble's in-bag rows, read (and checked against y_train) once
        bag = _sklearn_in_bag(regressor, y_train)
        if bag is not None or _treelab_bagged(regressor):
            oob = breiman_regression_bound(regressor, X_train, y_train, oob=bag is None,
                                           in_bag=bag)
            parts.append((oob, ("forest_mse",) + _BREIMAN + ("n_rows",), "oob_"))
    if rep is not None:
        star = y_arr if target is None else target
        parts.append((bias_variance_diversity(rep, y_arr, target=target), None, "bvd_"))
        parts.append((bias_variance_covariance(rep, star), None, "bvc_"))
        if rep.shape[1] > 1:
            parts.append((louppe_variance(rep), None, "louppe_"))
    cites = []
    for ds, names, prefix in parts:
        chosen = names if names is not None else [
            k for k, v in ds.data_vars.items() if v.ndim == 0]
        for name in chosen:
            out[prefix + name] = ds[name]
        cites.append(ds.attrs.get("cite", ""))
    tree_coords = {k: v for k, v in m.coords.items() if k == _dims.TREE}
    # K, read from the stacked (repeat, tree, sample) outputs: a DataArray's first dim need
    # not be repeat
    params: dict[str, Any] = {
        "source": m.source, "models": None if rep is None else int(rep.shape[0]),
        "target": target is not None, "oob": any(p == "oob_" for _, _, p in parts)}
    if options is not None:
        def test_rows(rows: np.ndarray | slice) -> dict[str, Var]:
            return _test_row_vars(pred[rows], outputs[:, rows], m.weights, y_arr[rows])

        limits, skipped = row_intervals(test_rows(slice(None)), test_rows, y_arr.size,
                                        options, strata=None)
        for name, var in to_dataset(limits, function="diagnose_regression", params={},
                                    coords=tree_coords).data_vars.items():
            out[name] = var
        skipped.update({name: _OTHER_ROWS for name in out.data_vars
                        if name.startswith(("oob_", "bvd_", "bvc_", "louppe_"))})
        params["ci"] = ci_params(options, skipped, classes=False)
    if tree_coords:
        out = out.assign_coords({_dims.TREE: tree_coords[_dims.TREE]})
    out.attrs = make_attrs("treelab.analysis.diagnose_regression", params, cites)
    name = label if label is not None else m.source
    # the model's alpha (NaN without one), so that results stack for the spectrum figures
    model_params = regressor.get_params(deep=False) if hasattr(regressor, "get_params") else {}
    alpha = model_params.get("alpha")
    alpha = float(alpha) if isinstance(alpha, int | float) and not isinstance(alpha, bool) \
        else np.nan
    return out.assign_coords({"ensemble": name, _dims.ALPHA: alpha})


def _read_models(models: Any, X: Any, rows: dict, n_rows: int) -> np.ndarray:
    """Member outputs (repeat, tree, sample) of the K models, read and checked before any
    measure runs: on the test rows, from K >= 2 training sets."""
    dims = (_dims.REPEAT, _dims.TREE, _dims.SAMPLE)
    if isinstance(models, np.ndarray | xr.DataArray):
        rep, own = check_outputs(models, "models", dims)
        rep = align_to(rep, own, rows, "models", "y", dims)
    else:
        rep = stack_repeats(models, X)
    if rep.shape[2] != n_rows:
        raise ValueError(f"models give outputs on {rep.shape[2]} rows but y has {n_rows}")
    if rep.shape[0] < 2:
        raise ValueError("models holds one training set (K = 1): the decompositions over "
                         "training sets (bvd_*, bvc_*, louppe_*) need K >= 2 models; leave "
                         "models out for the rest of the diagnosis")
    return rep


_OTHER_ROWS = ("out-of-bag training rows or K models' training sets, not a statistic of the "
               "test rows alone")


def _fit_vars(pred: np.ndarray, y_arr: np.ndarray) -> dict[str, Var]:
    """``mse`` and ``r2`` of the model's predictions."""
    sse = float(np.sum((pred - y_arr) ** 2))
    sst = float(np.sum((y_arr - y_arr.mean()) ** 2))
    cite = "treelab documentation, measures/regression (docs/measures/regression.md)"
    return {
        "mse": Var((), sse / y_arr.size, "mean squared error of the ensemble's predict",
                   "squared units of y", cite=cite),
        "r2": Var((), 1.0 - sse / sst if sst > 0 else np.nan,
                  "coefficient of determination R^2 of the ensemble's predict", "1", cite=cite,
                  description="1 - SSE / SST (NaN when y is constant)"),
    }


def _test_row_vars(pred: np.ndarray, outputs: np.ndarray, weights: np.ndarray | None,
                   y_arr: np.ndarray) -> dict[str, Var]:
    """The diagnosis's numbers of the test rows, as the public measures compute them."""
    out = _fit_vars(pred, y_arr)
    amb = ambiguity_vars(outputs, weights, y_arr)
    out.update({name: amb[name] for name in _AMBIGUITY})
    if outputs.shape[0] > 1:
        bound = breiman_vars(outputs, y_arr, None, weights)
        out.update({name: bound[name] for name in _BREIMAN})
    return out


def _sklearn_in_bag(model: Any, y_train: Any) -> np.ndarray | None:
    """The in-bag counts of a scikit-learn ensemble that records its members' training rows
    with some row left out of some member (bootstrap or subsampled bagging), its trees'
    roots checked against ``y_train``; None for others (no ``estimators_samples_``, or every
    member saw every row), whose out-of-bag numbers the diagnosis leaves out, as the
    classifiers' does."""
    from treelab.analysis.oob import sklearn_in_bag

    if not hasattr(model, "estimators_"):
        return None
    n_rows = int(np.shape(np.asarray(getattr(y_train, "values", y_train)))[0])
    return sklearn_in_bag(model, n_rows, strict=False, y=y_train)


def _treelab_bagged(model: Any) -> bool:
    """A fitted treelab regressor whose trees grow on bootstrap samples (out-of-bag rows)."""
    if not (hasattr(model, "forest_") and hasattr(model, "member_predict")
            and hasattr(model, "_spec")):
        return False
    return model._spec(int(getattr(model, "n_features_in_", 1))).rows == "bootstrap"
