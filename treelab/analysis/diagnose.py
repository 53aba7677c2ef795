"""One call that diagnoses a fitted ensemble (treelab's, scikit-learn's, a pool of fitted
classifiers or exported member outputs) on a test set."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_ERRORS, CITE_GAIN_TIES, CITE_TREE_STATS
from treelab.analysis._dataset import Var, to_dataset, vote_counts
from treelab.analysis._diagnose_inputs import (
    check_model,
    check_single,
    check_top_thresholds,
    check_training_rows,
    class_vars,
    oob_vars,
    read,
    unknown_tree_vars,
)
from treelab.analysis._inputs import as_array, check_proba, index_coords
from treelab.analysis._measure_intervals import ci_params, documents_ci_options, too_large
from treelab.analysis._model_checks import check_y, is_regressor_model
from treelab.analysis._replicates import PAIR_MATRICES, replicate_statistics
from treelab.analysis._row_means import row_mean_recipes
from treelab.analysis.arrangement import arrangement_vars
from treelab.analysis.diversity import correlation_vars, errors_vars
from treelab.analysis.intervals import check_interval_options, interval_vars, no_interval_reasons
from treelab.analysis.probability import (
    _check_k,
    _thresholds,
    exact_var,
    thresholded_var,
    thresholds_in_row_order,
    topk_var,
)
from treelab.analysis.strength import strength_vars
from treelab.analysis.ties import forest_ties, ties_vars
from treelab.analysis.workbench import check_measures, measure_vars
from treelab.combine import highest_class, vote_tiebreak

__all__ = ["diagnose"]

_ERR = (0.0, 1.0)
_DIM_NAMES = frozenset(v for k, v in vars(_dims).items() if k.isupper() and isinstance(v, str))


def _single_error(
    ensemble: Any, single: Any, X: Any, y_true: Any, X_train: Any, y_train: Any
) -> tuple[float, str]:
    if isinstance(single, numbers.Real) and not isinstance(single, bool):
        return float(single), "given error"
    if single is None:
        if X_train is None or not hasattr(ensemble, "single_model"):
            return np.nan, ("not computed (no single model and no training data)"
                            if hasattr(ensemble, "single_model") else
                            "not computed: the model has no single_model(); pass single= "
                            "(an estimator or a known error)")
        single = ensemble.single_model()
    if not hasattr(single, "classes_"):
        if X_train is None or y_train is None:
            raise ValueError("single is not fitted: pass X_train and y_train to fit it")
        from sklearn.base import clone

        single = clone(single).fit(X_train, y_train)
    check_y(y_true, getattr(single, "classes_", None),
            model=f"the single model ({type(single).__name__})")
    pred = np.asarray(single.predict(X))
    truth = np.asarray(y_true.values if isinstance(y_true, xr.DataArray) else y_true)
    return float(np.mean(pred != truth)), type(single).__name__


@documents_ci_options
def diagnose(
    ensemble: Any,
    X: Any,
    y: Any,
    *,
    single: Any = None,
    true_proba: Any = None,
    X_train: Any = None,
    y_train: Any = None,
    thresholds: Any = ("1.0", "top1", "top2", "top3"),
    k: Any = (1, 2, 3),
    measures: Any = (),
    label: str | None = None,
    combine: str | None = None,
    classes: Any = None,
    member_counts: Any = None,
    ci: float | None = None,
    ci_method: str = "bca",
    n_boot: int = 2000,
    ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> xr.Dataset:
    """Diagnose a fitted ensemble on a test set: errors, diversity, strength, probabilities.

    One pass over the trees (``member_counts``, the curtailed leaf counts) feeds every measure:
    member labels are the argmax of each member's estimate (ties to the lower class index, as
    ``member_predict``), and the ensemble's probabilities are the mean of the members' estimates
    (frequency, or Laplace when the estimator has ``laplace=True``) for ``combine="average"``,
    or vote fractions for ``"vote"`` (predictions with the spec's tie-break: most votes, larger
    summed probability, lower index); ``"sum"``, ``"likelihood"`` and ``"bayesian"`` call
    ``predict_proba`` once more. Every measure is computed once on these arrays and the result
    is assembled in a single Dataset.

    A test row whose class the ensemble never saw (absent from its training rows) is an error
    of every member and of the ensemble, and counts in every measure: it is its own class, with
    no votes and predicted probability 0 (phi_e and phi* condition on it as on any class; its
    thresholded squared error is 1 and it is a top-k error for every k).

    Member estimates are those of the estimator, with curtailment (Zadrozny & Elkan 2001): a
    leaf holding fewer than ``curtail_min`` training rows answers with the class counts n_c of
    its deepest ancestor holding at least that many (an empty leaf with its parent's), and
    P(c | x, tree) = n_c / n, or (n_c + 1) / (n + C) with ``laplace=True``.

    Single-model error E_s (for the error ratio E_e / E_s): ``single`` may be a fitted estimator
    (its error on X, y), an unfitted one (fitted on ``X_train``, ``y_train``), or a number (a
    known error). When ``single`` is None and ``X_train``/``y_train`` are given, the ensemble's
    ``single_model()`` (the spec's single deterministic model of the same family, e.g. the
    alpha = 1 VR-Tree) is cloned and fitted on them. The ensemble does not keep its training
    rows, so with neither ``single`` nor training data, ``single_error`` and ``error_ratio`` are
    NaN (no warning). E_s = 0 gives ``error_ratio`` NaN with a ``RuntimeWarning``.

    A regressor (scikit-learn's regression forests, ``BaggingRegressor``,
    ``VotingRegressor``, a treelab regressor, a list of fitted regressors) is diagnosed by
    :func:`treelab.analysis.diagnose_regression` (MSE, R^2, member MSE, ambiguity, residual
    correlation and Breiman's regression bound; ``X_train``, ``y_train`` and ``label`` pass
    through, and the options of a classifier's diagnosis are refused).

    Any other model is read by :func:`treelab.analysis.member_outputs` (scikit-learn forests,
    ``BaggingClassifier``, ``VotingClassifier``, anything with fitted ``estimators_`` of
    classifiers, a list of fitted classifiers, or member labels / probabilities as arrays),
    and combined by its own rule: the mean of the trees' probabilities for forests and
    bagging, hard or (weighted) soft voting for ``VotingClassifier``, the model's ``predict``
    for other ``estimators_`` ensembles, and ``combine=`` for a pool or raw outputs. The
    ensemble's labels then equal ``model.predict(X)`` exactly, ties included (the first class
    of highest value). What only treelab's tree builder records (gain ties ``ties``, ``g``,
    ``mean_g``, ``pooled_g``, ``decision_nodes``, per-tree ``tree_alpha`` and
    ``random_share``) is NaN for such models, with the reason in each variable's
    ``description``. With ``X_train`` and ``y_train``, a model that keeps
    ``estimators_samples_`` (bootstrapped scikit-learn forests, bagging) adds its out-of-bag
    ``oob_strength``, ``oob_correlation`` and ``oob_breiman_bound`` (Breiman 2001, section
    3.1); the single-model error comes from ``single=``.

    Parameters
    ----------
    ensemble : fitted model, list of fitted classifiers, or member outputs
        A fitted treelab ensemble (``classes_``, ``member_counts`` or ``member_proba``,
        ``forest_``, optionally ``tree_stats()``, ``combine``, ``laplace``,
        ``single_model()``), or anything :func:`treelab.analysis.member_outputs` reads.
    X : array-like, (sample, feature)
        Test rows (None for member outputs given as arrays).
    y : array-like, (sample,)
        Test labels (original labels, as in ``ensemble.classes_``).
    single : estimator or float, optional
        Single-model baseline (see above).
    true_proba : array-like, (sample, class), optional
        True class probabilities; adds ``exact_mse``.
    X_train, y_train : array-like, optional
        The ensemble's training rows, to fit the single model (and, for a foreign bagged
        model, its out-of-bag estimates): both or neither, one label a row. A fitted
        ``single`` whose ``classes_`` share no label with ``y`` is refused.
    thresholds : see :func:`treelab.analysis.thresholded_mse`
        Thresholds of the thresholded MSE.
    k : int or sequence of int, default (1, 2, 3)
        Values of k of the top-k error.
    measures : str or sequence of str, optional
        Workbench measures computed from the same member pass (no second prediction):
        ``"pairwise_diversity"`` (its (tree, tree_other) matrices and ``mean_*``; Kuncheva's
        ``correlation`` becomes ``pairwise_diversity_correlation``), ``"nonpairwise_diversity"``,
        ``"probability_quality"`` (of the ensemble's probabilities) and ``"margin_cdf"`` (the
        distribution of the ``margin`` variable at 201 values theta from -1 to 1, over its own
        dim ``margin_threshold``, apart from the thresholded MSE's ``threshold``).
    label : str, optional
        The ensemble's name, recorded as the scalar coordinate ``ensemble`` (default: the
        estimator's class name, e.g. ``"VRTrees"``).
    combine : {"vote", "average"}, optional
        The combination rule of a pool or of raw member outputs (required for them, except
        member labels, which are voted): most votes or the mean member probability, ties to
        the first class.
    classes : array-like, optional
        Labels of raw member outputs (default: the DataArray's ``class`` coordinate, the
        sorted labels of the members and ``y``, or codes).
    member_counts : array-like, (tree, sample, class), optional
        A treelab ensemble's ``member_counts(X)`` when the caller computed them already
        (the experiment runner times that pass as the cell's prediction): the trees are not
        walked again. Refused for other models.
    ci : float, optional
        Confidence level (e.g. 0.95) of intervals on the scalar measures: the bootstrap
        over the test rows (:mod:`treelab.analysis.intervals`; stratified by class unless
        ``ci_resample="rows"``) adds
        ``<measure>_lower`` and ``<measure>_upper`` for ``ensemble_error``,
        ``mean_member_error``, ``error_ratio`` (E_s held fixed), ``phi_e``, ``phi_star``,
        ``phi_gap``, ``strength``, ``correlation``, ``breiman_bound``,
        ``margin_variance`` and every other measure that is a mean (or a smooth function of
        means) over the test rows: ``observed_error``, ``member_error``, ``p1``, ``p2``,
        ``sd``, ``class_error``, ``thresholded_mse``, ``topk_error``, ``exact_mse``, and of
        ``measures=`` ``brier``, ``log_loss``, the non-pairwise measures, ``mean_disagreement``,
        ``mean_double_fault`` and ``margin_cdf`` (per element where a measure has dims);
        and, recomputed at every replicate's row weights, ``independent_error`` (where exact),
        ``mean_q_statistic``, ``mean_correlation``, ``mean_kappa``, the per-pair matrices
        of ``measures=["pairwise_diversity"]`` (up to a memory bound; beyond it the reason
        is in ``params["ci"]["no_interval"]``), ``brier_reliability``,
        ``brier_resolution`` and ``auc_ovr``; with ``ci_resample="rows"`` also
        ``class_share`` and ``brier_uncertainty``, which vary with the class counts. For a
        regressor: those of
        :func:`treelab.analysis.diagnose_regression` (plain bootstrap of the test rows).
        The variables without one, and why, are listed in ``docs/measures/uncertainty.md``
        (:data:`treelab.analysis.intervals.NO_INTERVAL`). None (default): no intervals.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``member_error`` (tree), ``mean_member_error``, ``ensemble_error``, ``single_error``,
        ``error_ratio``; ``phi_e``, ``phi_star``, ``phi_gap``, ``relation``; ``strength``,
        ``correlation``, ``breiman_bound``, ``margin_variance``, ``margin`` (sample),
        ``rival_class`` (sample), ``p1``, ``p2``, ``sd`` (tree); ``observed_error``,
        ``independent_error``, ``independent_error_se``, ``optimal_error``;
        ``thresholded_mse`` (threshold),
        ``topk_error`` (k), ``exact_mse`` (with ``true_proba``); gain ties ``ties``,
        ``decision_nodes``, ``g`` (tree), ``mean_g``, ``pooled_g``; and every per-tree variable
        of ``ensemble.tree_stats()`` (prefixed ``tree_`` where a name is taken);
        ``class_share`` and ``class_error`` over ``class``, whose coordinate holds the
        classes (the model's, then test labels it never saw; ``rival_class`` holds positions
        in it); the ``oob_*`` variables (see above). Scalar
        coordinates ``ensemble`` (``label``) and ``alpha`` (the estimator's ``alpha``
        parameter, NaN where it has none) let :func:`treelab.plot.stack_results` put several
        results into the (ensemble, alpha) shape the figures take.
    """
    if is_regressor_model(ensemble):
        return _diagnose_regressor(ensemble, X, y, X_train=X_train, y_train=y_train,
                                   label=label, single=single, true_proba=true_proba,
                                   measures=measures, combine=combine, classes=classes,
                                   member_counts=member_counts, ci=ci,
                                   ci_method=ci_method, n_boot=n_boot, ci_seed=ci_seed,
                                   ci_resample=ci_resample)
    parts = diagnose_parts(
        ensemble, X, y, single=single, true_proba=true_proba, X_train=X_train,
        y_train=y_train, thresholds=thresholds, k=k, measures=measures, label=label,
        combine=combine, classes=classes, member_counts=member_counts, ci=ci,
        ci_method=ci_method, n_boot=n_boot, ci_seed=ci_seed, ci_resample=ci_resample)
    out = to_dataset(parts.variables, function="diagnose", params=parts.params,
                     coords=parts.coords)
    out.attrs.update({f"note_{key}": text for key, text in parts.notes.items()})
    return _label(out, ensemble, label, parts.source)


def _diagnose_regressor(ensemble: Any, X: Any, y: Any, *, X_train: Any, y_train: Any,
                        label: str | None, ci: float | None, ci_method: str, n_boot: int,
                        ci_seed: int, ci_resample: str, **classification: Any) -> xr.Dataset:
    """A regressor's diagnosis (:func:`treelab.analysis.diagnose_regression`), refusing the
    options that only a classifier has."""
    given = sorted(k for k, v in classification.items() if v is not None and v != ())
    if given:
        raise TypeError(f"{type(ensemble).__name__} is a regressor: {given} are options of a "
                        "classifier's diagnosis; see treelab.analysis.diagnose_regression "
                        "(models=, target= for the decompositions)")
    from treelab.analysis.regression_diagnose import diagnose_regression

    return diagnose_regression(ensemble, X, y, X_train=X_train, y_train=y_train, label=label,
                               ci=ci, ci_method=ci_method, n_boot=n_boot, ci_seed=ci_seed,
                               ci_resample=ci_resample)


class Parts(NamedTuple):
    """What :func:`diagnose` assembles into its Dataset: the variables, the coordinate
    values of their dims, the call's parameters, notes for the attrs, the model's name."""

    variables: dict[str, Var]
    coords: dict[str, Any]
    params: dict[str, Any]
    notes: dict[str, str]
    source: str


def diagnose_parts(
    ensemble: Any,
    X: Any,
    y: Any,
    *,
    single: Any = None,
    true_proba: Any = None,
    X_train: Any = None,
    y_train: Any = None,
    thresholds: Any = ("1.0", "top1", "top2", "top3"),
    k: Any = (1, 2, 3),
    measures: Any = (),
    label: str | None = None,
    combine: str | None = None,
    classes: Any = None,
    member_counts: Any = None,
    member_pass: Any = None,
    ci: float | None = None,
    ci_method: str = "bca",
    n_boot: int = 2000,
    ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> Parts:
    """:func:`diagnose`'s computation without the Dataset (same arguments and checks); the
    experiment runner stores a cell's values from these parts directly, and may hand it a
    treelab ensemble's ``_member_pass(X)`` (``member_pass``) instead of its counts."""
    _check_label(label)
    check_single(single)
    check_training_rows(X_train, y_train)
    ks = _check_k(k)
    extra_measures = check_measures(measures)
    check_model(ensemble, X)
    options = (check_interval_options(ci, ci_method, n_boot, ci_seed, ci_resample)
               if ci is not None else None)
    p = read(ensemble, X, y, combine=combine, classes=classes, member_counts=member_counts,
             member_pass=member_pass)
    y_codes, unseen = p.y_codes, p.unseen
    n_rows, n_classes = y_codes.size, p.classes.size
    if n_rows == 0:
        raise ValueError("y must hold at least one row")
    _thresholds(thresholds, np.zeros((n_rows, n_classes)))  # names checked before any work
    check_top_thresholds(thresholds, n_classes)
    tp = None
    if true_proba is not None:
        tp, _ = as_array(true_proba, "true_proba", (_dims.SAMPLE, _dims.CLASS))
        tp = check_proba(tp, "true_proba")
        if tp.shape != (n_rows, n_classes):
            raise ValueError(f"true_proba must have shape ({n_rows}, {n_classes}), got {tp.shape}")
    labels, summed, proba, name = p.labels, p.summed, p.proba, p.combine
    n_trees = labels.shape[0]
    # a test class the ensemble never saw: its own class code with no votes and probability
    # 0, so every member and every measure counts the row as an error
    n_all = n_classes + unseen.size
    pad = ((0, 0), (0, unseen.size))
    summed, proba = np.pad(summed, pad), np.pad(proba, pad)
    votes = vote_counts(labels, n_all)
    if p.ensemble is not None:
        ens = p.ensemble
    elif name == "vote":
        ens = vote_tiebreak(votes, summed, n_trees)
    else:
        ens = highest_class(proba)  # predict's rule: equal up to rounding is a tie

    e_s, single_how = _single_error(ensemble, single, X, y, X_train, y_train)
    variables = errors_vars(labels, y_codes, ens, f"combine={name}")
    e_e = float(variables["ensemble_error"].data)
    if e_s == 0:
        warnings.warn(
            "diagnose: single-model error is 0; error_ratio is NaN", RuntimeWarning, stacklevel=2
        )
    variables["single_error"] = Var(
        (),
        e_s,
        "single deterministic model error E_s",
        valid_range=_ERR,
        cite=CITE_ERRORS,
        description=single_how,
    )
    variables["error_ratio"] = Var(
        (),
        e_e / e_s if e_s > 0 else np.nan,
        "error ratio E_e / E_s",
        cite=CITE_ERRORS,
        description="NaN where the single-model error is 0 or unknown",
    )
    variables.update(correlation_vars(labels, y_codes, n_all, votes))
    variables.update(strength_vars(labels, y_codes, n_all, votes))
    variables.update(arrangement_vars(labels, y_codes, n_all, votes,
                                      summed if p.treelab else None, {"n_known": n_classes}))
    # per-row thresholds in the rows' order (the intervals read them too)
    thresholds = thresholds_in_row_order(thresholds, index_coords(y))
    mse, names = thresholded_var(proba, y_codes, thresholds, n_classes)
    variables["thresholded_mse"] = mse
    variables["topk_error"] = topk_var(proba, y_codes, ks, n_classes)
    if tp is not None:
        variables["exact_mse"] = exact_var(proba[:, :n_classes], tp)
    variables.update(ties_vars(*forest_ties(ensemble)) if p.treelab else {})
    extra_vars, extra_coords = measure_vars(extra_measures, labels, y_codes, n_classes, proba,
                                            variables, n_all)
    variables.update(extra_vars)
    if p.treelab and hasattr(ensemble, "tree_stats"):
        variables.update(_tree_stats(_tree_stat_vars(ensemble), variables, n_trees))
    elif not p.treelab:
        variables.update(unknown_tree_vars(n_trees, p.source))
    variables.update(class_vars(y_codes, ens, n_all))
    if X_train is not None and y_train is not None and not p.treelab:
        variables.update(oob_vars(ensemble, X_train, y_train))
    if options is not None:  # intervals from the bootstrap over the test rows
        # class_share and brier_uncertainty vary only when the class counts do (rows)
        fixed = no_interval_reasons(options.resample)
        recipes = {k: v for k, v in row_mean_recipes(
            variables, labels, y_codes, ens, n_all, votes=votes,
            summed=summed if p.treelab else None, proba=proba, true_proba=tp,
            thresholds=thresholds, ks=ks, n_known=n_classes).items() if k not in fixed}
        # the per-pair matrices' replicates take n_boot x T^2 values each: bounded
        too_big = too_large(variables, tuple(PAIR_MATRICES), labels.shape[0] ** 2, options,
                            y_codes.size)
        statistics = replicate_statistics(
            {k: v for k, v in variables.items() if k not in too_big and k not in fixed},
            labels, y_codes, n_all, proba, n_classes)
        variables.update(interval_vars(labels, y_codes, ens, n_all, variables, ci=ci,
                                       method=ci_method, n_boot=n_boot, seed=ci_seed,
                                       resample=ci_resample, votes=votes, recipes=recipes,
                                       statistics=statistics))
    params = {
        "estimator": p.source,
        "estimator_params": _get_params(ensemble),
        "combine": name,
        "single": single_how,
        "thresholds": names,
        "k": ks.tolist(),
        "true_proba": true_proba is not None,
        "measures": list(extra_measures),
    }
    if options is not None:
        params["ci"] = ci_params(options, too_big, classes=True)
        if not too_big:  # diagnose lists only the size-bound reasons (the others: NO_INTERVAL)
            del params["ci"]["no_interval"]
    coords = {**extra_coords, _dims.THRESHOLD: np.array(names), _dims.K: ks,
              _dims.CLASS: np.concatenate([p.classes, unseen]) if unseen.size else p.classes}
    return Parts(variables, coords, params, dict(p.notes), p.source)


def _check_label(label: Any) -> None:
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string or None, got {type(label).__name__}")


def _label(ds: xr.Dataset, ensemble: Any, label: str | None, source: str) -> xr.Dataset:
    """Scalar ``ensemble`` and ``alpha`` coordinates, so that results stack for the figures."""
    alpha = _get_params(ensemble).get("alpha")
    alpha = float(alpha) if isinstance(alpha, int | float) and not isinstance(alpha, bool) \
        else np.nan
    return ds.assign_coords({_dims.ENSEMBLE: label or source,
                             _dims.ALPHA: alpha})


def _tree_stat_vars(ensemble: Any) -> dict[str, tuple[tuple, np.ndarray, dict]]:
    """The data variables of ``ensemble.tree_stats()`` as ``(dims, values, attrs)``; without
    building its Dataset (or any xarray object) where the estimator's ``tree_stats`` is the
    one that assembles them from ``_tree_stat_vars()``."""
    from treelab.estimators._base import TreeEnsembleClassifier

    if getattr(type(ensemble), "tree_stats", None) is TreeEnsembleClassifier.tree_stats:
        return ensemble._tree_stat_vars()
    stats = ensemble.tree_stats()
    # its Variables, read without building a DataArray per variable
    return {name: (var.dims, var.values, var.attrs) for name, var in stats.variables.items()
            if name in stats.data_vars}


def _tree_stats(stats: dict[str, tuple[tuple, np.ndarray, dict]], taken: dict[str, Var],
                n_trees: int) -> dict[str, Var]:
    """Per-tree variables of ``tree_stats()`` (``_tree_stat_vars``): a name already present
    with equal values is dropped; a clashing name, or one that is also a dim name
    (``alpha``), gets ``tree_``."""
    out = {}
    for name, (dims, values, attrs) in stats.items():
        if tuple(dims) != (_dims.TREE,) or values.shape != (n_trees,):
            continue
        name = str(name)
        if name in taken and np.array_equal(
            np.asarray(taken[name].data), values, equal_nan=values.dtype.kind == "f"
        ):
            continue
        new = f"tree_{name}" if name in taken or name in _DIM_NAMES else name
        out[new] = Var(
            (_dims.TREE,),
            values,
            str(attrs.get("long_name", name)),
            units=str(attrs.get("units", "")),
            cite=CITE_GAIN_TIES if name.startswith("gain_ties") else CITE_TREE_STATS,
            description="from the estimator's tree_stats()",
        )
    return out


def _get_params(ensemble: Any) -> dict:
    try:
        params = ensemble.get_params(deep=False)
    except Exception:  # not an sklearn estimator: provenance only
        return {}
    return {
        k: v if isinstance(v, str | int | float | type(None)) else repr(v)
        for k, v in params.items()
    }
