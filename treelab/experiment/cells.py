"""Cells: the independent units of an experiment (one fit and its evaluation each).

:func:`treelab.experiment.expand.expand` turns a configuration into cells; :func:`run_cell`
computes one cell from its plain-JSON spec (so it can run in any process or on any dask worker)
and returns a record of plain values that the store writes as one line.

Seeds: every random choice of a cell derives from the configuration's ``seed`` and names, never
from the order in which cells run: folds from the protocol's ``random_state`` (default
``seed``); a generator's rows under an index protocol (k-fold, holdout, ...) from (seed, data
set), but under a draw protocol (``draws``, ``bias_variance``) each repeat's rows from (the
protocol's ``random_state``, repeat) alone, so the data sets of one generator draw with the
same random numbers (the same rows where their parameters agree); irrelevant attributes from
(seed, data set, k), under a draw protocol also (repeat, training or test rows); training-row
noise and subsamples from (seed, data set, transform, value, repeat, fold), and the
estimator's ``random_state`` from (seed, data set, transform values, ensemble, repeat, fold).
The estimator seed leaves out alpha, so the alphas of one ensemble share their random numbers
(common random numbers make alpha comparisons less noisy).
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import time
import warnings
from typing import Any

import numpy as np
import xarray as xr

from treelab.datasets import LabeledData
from treelab.engine.sharing import shared_work
from treelab.experiment.data import LRU, train_test
from treelab.experiment.groups import GROUP_MEASURES, cell_outputs
from treelab.experiment.schema import resolve_estimator
from treelab.experiment.seeds import canonical_json, cell_seed
from treelab.experiment.values import (
    Kept,
    kept_scalar,
    own_dims,
    record_values,
    reduce_measure,
    reduce_variables,
)

__all__ = ["TIMING_VARS", "regression_metrics", "run_cell"]

#: Wall-clock variables: they differ between runs, so result comparisons leave them out.
TIMING_VARS = ("fit_time", "predict_time", "eval_time")


# cells run fold-innermost (dataset, ensemble, alpha, transforms, repeat, fold), so a single
# model is wanted again one alpha later: room for every fold of up to six transform values
_SINGLES = LRU(64)


_THREADPOOLS: list[Any] = []  # [(len(sys.modules), ThreadpoolController)] of this process
# a local worker process runs cells alone: its native pools stay at one thread once limited
# (``keep_one_thread``), instead of being limited and restored around every cell
_KEEP_ONE_THREAD: list[Any] = []  # [(len(sys.modules), the limiter kept in force)]


def keep_one_thread() -> None:
    """Let ``run_cell`` leave this process's native thread pools (BLAS, OpenMP) at one thread
    for good: for a process that runs nothing but cells (a local worker process)."""
    _KEEP_ONE_THREAD.append(None)


def _one_thread() -> Any:
    """``threadpool_limits(1)`` without scanning the process's libraries for every cell: the
    controller is made again only when modules were imported since (a native library that
    could hold a thread pool is loaded by an import). After ``keep_one_thread`` the limit is
    set once (again after imports) and left in force."""
    from threadpoolctl import ThreadpoolController

    if not _THREADPOOLS or _THREADPOOLS[0][0] != len(sys.modules):
        _THREADPOOLS[:] = [(len(sys.modules), ThreadpoolController())]
    if not _KEEP_ONE_THREAD:
        return _THREADPOOLS[0][1].limit(limits=1)
    if _KEEP_ONE_THREAD[-1] is None or _KEEP_ONE_THREAD[-1][0] != len(sys.modules):
        _KEEP_ONE_THREAD[-1] = (len(sys.modules), _THREADPOOLS[0][1].limit(limits=1))
    return contextlib.nullcontext()


def _build(estimator: str, params: dict[str, Any], data: LabeledData, seed: int,
           n_jobs: int | None) -> Any:
    est = resolve_estimator(estimator)(**params)
    known = est.get_params(deep=False)
    extra: dict[str, Any] = {}
    if "random_state" in known:
        extra["random_state"] = seed
    if "n_jobs" in known:
        extra["n_jobs"] = n_jobs
    if "categorical_features" in known and data.categorical_features.any() \
            and known.get("categorical_features") is None:
        extra["categorical_features"] = data.categorical_features
    return est.set_params(**extra) if extra else est


def _measure(name: str, options: dict[str, Any], est: Any, train: LabeledData,
             test: LabeledData, single: Any, proba: np.ndarray | None = None,
             counts: Any = None, rows: str | None = None) -> dict[str, Kept]:
    """One measure of a fitted estimator, reduced to what the cell stores
    (:func:`~treelab.experiment.values.reduce_measure`); ``proba`` is its ``predict_proba``
    on the test rows and ``counts`` its ``member_counts`` (an array) or its ``_member_pass``
    (a tuple), when already computed (the cell times one pass over the trees and hands its
    result to every measure); ``rows`` names the training rows (``_fitted_single``)."""
    import inspect

    import treelab.analysis as analysis
    from treelab.analysis._dataset import checked_variables
    from treelab.analysis.diagnose import diagnose_parts

    fn = getattr(analysis, name)
    proba_true = test.true_proba
    if proba_true is not None and not np.array_equal(np.asarray(test.classes),
                                                      np.asarray(est.classes_)):
        proba_true = None  # the training rows missed a class: columns would not line up
    if name == "diagnose":
        if hasattr(single, "get_params"):  # an unfitted estimator: fitted once, shared
            single = _fitted_single(single, train, rows)
        if isinstance(counts, tuple):
            options = {**options, "member_pass": counts}
        elif counts is not None:
            options = {**options, "member_counts": counts}
        # diagnose's variables without its Dataset or any xarray object: the same values,
        # attrs and coordinates
        parts = diagnose_parts(est, test.X, test.y, single=single, true_proba=proba_true,
                               X_train=train.X, y_train=train.y, **options)
        return reduce_variables(*checked_variables(parts.variables, parts.coords))
    else:
        first = next(iter(inspect.signature(fn).parameters))
        if first == "ensemble":
            out = fn(est, **options)
        elif first == "member_labels":
            out = fn(est.member_predict(test.X), test.y, classes=est.classes_, **options)
        else:
            second = list(inspect.signature(fn).parameters)[1]
            if proba is None:
                proba = est.predict_proba(test.X)
            if second == "true_proba":
                if proba_true is None:
                    return {}
                out = fn(proba, proba_true, **options)
            else:
                out = fn(proba, test.y, classes=est.classes_, **options)
    if isinstance(out, xr.DataArray):
        out = out.to_dataset(name=out.name or name)
    return reduce_measure(out)


def _single_for(spec: dict[str, Any], est: Any, train: LabeledData, seed: int) -> Any:
    """The cell's single model, unfitted: the configured one, the ensemble's own
    ``single_model()`` ("auto"; None without one), or NaN when switched off."""
    single = spec["ensemble"]["single"]
    if single is False:
        return float("nan")
    if single == "auto":
        return est.single_model() if hasattr(est, "single_model") else None
    return _build(single["estimator"], dict(single.get("params", {})), train, seed, 1)


def _rows_key(spec: dict[str, Any]) -> str:
    """What a cell's training rows are made from (``data.train_test`` reads these alone), with
    the digest of the rows of a file of the user's or another bundle (``rows``): a file
    rewritten between two runs of one process holds other rows under the same path."""
    return canonical_json([spec["dataset"], spec["seed"], spec["protocol"], spec["transforms"],
                           spec["repeat"], spec["fold"], spec.get("root"), spec.get("rows")])


def _fitted_single(model: Any, train: LabeledData, rows: str | None = None) -> Any:
    """``model`` fitted on the cell's training rows, shared by the cells that fit the same one.

    The cells of one ensemble that differ only in alpha fit the same single model: its
    parameters do not include alpha, the estimator seed leaves alpha out, and the rows are the
    same. A process fits it once (keyed by its type, parameters and training rows) and reuses
    it; the warnings of that fit are replayed on every use, so each cell records the same ones
    whether it fitted the model or not. ``rows`` (``_rows_key``) stands for the training
    rows in the key where given: the same rows, without hashing their contents for every cell
    (a quarter of a magic cell's evaluation).
    """
    from joblib import hash as content_hash
    from sklearn.base import clone

    data = (rows,) if rows is not None else (train.X, train.y)
    key = content_hash((type(model).__module__, type(model).__qualname__,
                        model.get_params(deep=False), *data))

    def make() -> tuple[Any, list[tuple[Any, type[Warning]]]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fitted = clone(model).fit(train.X, train.y)
        _predict_once(fitted)
        return fitted, [(w.message, w.category) for w in caught]

    fitted, caught = _SINGLES.get(key, make)
    for message, category in caught:
        warnings.warn(message, category, stacklevel=2)
    return fitted


#: test-row sets whose predictions a shared single model keeps (its cells share one set)
_KEPT_PREDICTIONS = 2


def _rows_digest(X: Any) -> tuple | None:
    """A key of a numeric array's contents (shape, dtype and a SHA-256 of its bytes), or None
    for anything else."""
    if not isinstance(X, np.ndarray) or X.dtype.kind not in "biuf":
        return None
    data = np.ascontiguousarray(X)
    return X.shape, X.dtype.str, hashlib.sha256(data.view(np.uint8)).hexdigest()


def _predict_once(fitted: Any) -> None:
    """Let the shared single model ``fitted`` answer ``predict`` on rows it has predicted
    before from what it answered then (a copy), the warnings of that call replayed.

    The cells of one ensemble that differ only in alpha score the same single model on the
    same test rows (``_fitted_single``): predicting them once instead of once per alpha left
    a grid cell's measures a tenth of their time. Rows are told apart by their contents."""
    real = fitted.predict
    kept: dict[tuple, tuple[np.ndarray, list[tuple[Any, type[Warning]]]]] = {}

    def predict(X: Any) -> Any:
        key = _rows_digest(X)
        if key is None:
            return real(X)
        if key not in kept:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                answer = np.asarray(real(X))
            while len(kept) >= _KEPT_PREDICTIONS:
                kept.pop(next(iter(kept)))
            kept[key] = answer, [(w.message, w.category) for w in caught]
        answer, warned = kept[key]
        for message, category in warned:
            warnings.warn(message, category, stacklevel=2)
        return answer.copy()

    with contextlib.suppress(AttributeError):  # an object that takes no attribute: as it is
        fitted.predict = predict


def run_cell(spec: dict[str, Any], *, n_jobs: int | None = 1, share: bool = True
             ) -> dict[str, Any]:
    """Compute one cell: build its data, fit its estimator, evaluate its measures.

    Parameters
    ----------
    spec : dict
        :attr:`Cell.spec`.
    n_jobs : int or None, default 1
        Threads inside the fit (the result does not depend on it).
    share : bool, default True
        Fit inside the process's sharing scope (``treelab.engine.sharing``): the fits of
        other cells on the same training rows that ran in this process before leave their
        feature preparation and all-deterministic trees for this one (the result does not
        depend on it).

    Returns
    -------
    dict
        ``{"vars": {name: {"dims", "data", "attrs"}}, "coords": {dim: values}}`` for the
        non-grid dims (threshold, k, ...), all plain JSON values; with a group measure
        (:mod:`treelab.experiment.groups`) also ``"outputs"``, the arrays its group reads.
    """
    scope = shared_work() if share else contextlib.nullcontext()
    with _one_thread(), scope, warnings.catch_warnings(record=True) as caught:
        # BLAS thread count must not change sums between backends; warnings are returned
        # with the record instead of being printed by (possibly many) workers
        warnings.simplefilter("always")
        train, test = train_test(spec)
        est_seed = cell_seed(spec["seed"], "estimator", spec["dataset"]["name"],
                             [t["value"] for t in spec["transforms"]], spec["ensemble"]["name"],
                             spec["repeat"], spec["fold"])
        ens = spec["ensemble"]
        est = _build(ens["estimator"], dict(ens["params"]), train, est_seed, n_jobs)
        t0 = time.perf_counter()
        est.fit(train.X, train.y)
        t1 = time.perf_counter()
        if spec.get("task") == "regression":
            variables, outputs, t2, t3 = _regression_cell(spec, est, train, test)
            n_unseen = None
        else:
            variables, outputs, t2, t3, n_unseen = _classification_cell(
                spec, est, train, test, est_seed)
    scalars = {
        "fit_time": (t1 - t0, "fit time", "s"),
        "predict_time": (t2 - t1, "prediction time on the test rows (member_counts where "
                         "the measures read them, else predict_proba)" if n_unseen is not None
                         else "prediction time on the test rows (predict)", "s"),
        "eval_time": (t3 - t2, "time of the measures", "s"),
        "n_train": (train.n_samples, "training rows", "count"),
        "n_test": (test.n_samples, "test rows scored", "count"),
        "n_test_unseen": (n_unseen, "test rows whose class training missed (errors)", "count"),
    }
    if n_unseen is None:  # a regression cell: no classes to miss
        del scalars["n_test_unseen"]
    for name, (value, long_name, units) in scalars.items():
        variables[name] = kept_scalar(value, {"long_name": long_name, "units": units})
    out = record_values(variables, caught)
    if outputs:
        out["outputs"] = outputs
    return out


#: What a regression cell reports (besides diagnose_regression's variables).
_REGRESSION_METRICS = {
    "mse": ("mean squared error of the ensemble's predict, (1/n) sum (y - f)^2",
            "squared units of y"),
    "mae": ("mean absolute error of the ensemble's predict, (1/n) sum |y - f|", "units of y"),
    "r2": ("coefficient of determination R^2 = 1 - SSE / SST of the ensemble's predict (NaN "
           "when the test targets are constant)", "1"),
}


def regression_metrics(y: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """MSE, MAE and R^2 of predictions ``pred`` of targets ``y`` (R^2 is NaN when ``y`` is
    constant: there is no variance to explain)."""
    y = np.asarray(y, dtype=np.float64)
    resid = y - np.asarray(pred, dtype=np.float64)
    sse = float(np.sum(resid**2))
    sst = float(np.sum((y - y.mean()) ** 2))
    return {"mse": sse / y.size, "mae": float(np.mean(np.abs(resid))),
            "r2": 1.0 - sse / sst if sst > 0 else float("nan")}


def _has_members(est: Any) -> bool:
    return hasattr(est, "member_predict") or hasattr(est, "estimators_")


def _regression_cell(spec: dict[str, Any], est: Any, train: LabeledData, test: LabeledData
                     ) -> tuple[Any, ...]:
    """A fitted regressor's values: (variables, group outputs, t2, t3). The cell stores MSE,
    MAE and R^2 of its ``predict``; with ``diagnose`` (an ensemble) also
    :func:`treelab.analysis.diagnose_regression`'s variables without a sample dim (per-tree
    ones as their means over trees), out of bag where the model records its training rows."""
    from treelab.analysis.regression_diagnose import diagnose_regression

    if not hasattr(est, "forest_") and "n_jobs" in est.get_params(deep=False):
        # scikit-learn's forests add their trees' predictions in the order their threads
        # finish (the last bit differs between runs): predicted with one thread, the same
        # bit for bit on every backend
        est.set_params(n_jobs=1)
    pred = est.predict(test.X)
    t2 = time.perf_counter()
    variables: dict[str, Kept] = {}
    for name, value in regression_metrics(test.y, pred).items():
        long_name, units = _REGRESSION_METRICS[name]
        variables[name] = kept_scalar(value, {"long_name": long_name, "units": units})
    if "diagnose" in spec["measures"] and _has_members(est):
        oob = _records_oob(est)
        ds = diagnose_regression(est, test.X, test.y, X_train=train.X if oob else None,
                                 y_train=train.y if oob else None)
        for var, da in reduce_measure(ds.drop_vars(["mse", "r2"])).items():
            variables[var] = da
    where = f"datasets[{spec['dataset']['name']!r}]"
    outputs = cell_outputs(est, test, spec["measures"], where, "regression")
    t3 = time.perf_counter()
    return variables, outputs, t2, t3


def _records_oob(est: Any) -> bool:
    """Whether ``est`` records which training rows each member saw, with some left out
    (a bootstrap or subsample): its out-of-bag bound is then defined."""
    if hasattr(est, "forest_") and hasattr(est, "member_predict"):
        from treelab.analysis.regression_diagnose import _treelab_bagged

        return _treelab_bagged(est)
    if hasattr(est, "estimators_samples_"):
        return bool(getattr(est, "bootstrap", False))
    return False


def _classification_cell(spec: dict[str, Any], est: Any, train: LabeledData,
                         test: LabeledData, est_seed: int) -> tuple[Any, ...]:
    """A fitted classifier's values: (variables, group outputs, t2, t3, unseen test rows)."""
    # a test row whose class the training rows missed stays: every measure counts it as
    # an error of every member (dropping it would bias E_e, E_s and phi_e downwards)
    n_unseen = int((~np.isin(test.y, est.classes_)).sum())
    proba = counts = None
    measures = [m for m in spec["measures"] if m not in GROUP_MEASURES]
    if "diagnose" in measures and hasattr(est, "member_proba") and hasattr(
            est, "member_counts") and hasattr(est, "forest_"):  # diagnose's treelab pass
        # the one pass over the trees that diagnose reads (its probabilities and labels
        # derive from these counts): timed as the prediction, not walked again; the votes
        # and summed frequencies straight from the walk where no Laplace correction
        # applies (no (tree, sample, class) array: the same values)
        if hasattr(est, "_member_pass") and not getattr(est, "laplace", False):
            counts = est._member_pass(test.X)
        else:
            counts = est.member_counts(test.X)
    if counts is None or any(m != "diagnose" for m in measures):
        if hasattr(est, "predict_proba"):
            proba = est.predict_proba(test.X)
        else:
            est.predict(test.X)
    t2 = time.perf_counter()
    variables: dict[str, Kept] = {}
    if hasattr(est, "member_proba"):
        single = _single_for(spec, est, train, est_seed)
        owners: dict[str, str] = {}
        rows = _rows_key(spec)
        for name, options in spec["measures"].items():
            if name in GROUP_MEASURES:  # over the K repeats: from the outputs kept below
                continue
            kept = _measure(name, dict(options), est, train, test, single, proba, counts,
                            rows)
            for var, da in own_dims(name, kept, owners).items():
                variables[var if var not in variables else f"{name}_{var}"] = da
    else:  # an estimator without member outputs: its error only
        err = float(np.mean(est.predict(test.X) != test.y))
        variables["ensemble_error"] = kept_scalar(err, {
            "long_name": "ensemble error rate E_e", "units": "1"})
    where = f"datasets[{spec['dataset']['name']!r}]"
    outputs = cell_outputs(est, test, spec["measures"], where)
    t3 = time.perf_counter()
    return variables, outputs, t2, t3, n_unseen
