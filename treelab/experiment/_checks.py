"""Checks of a configuration's values and the estimators it names: JSON-able values, names,
alphas, an estimator resolved from its name and checked against the task, and its
parameters. :mod:`treelab.experiment.schema` builds its specs with them (and re-exports
them)."""

from __future__ import annotations

import importlib
import inspect
import json
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def check_jsonable(value: Any, where: str) -> Any:
    """Check that ``value`` survives JSON (configurations are hashed as canonical JSON)."""
    try:
        return json.loads(json.dumps(value, allow_nan=True))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where} must hold only numbers, strings, booleans, lists and "
                        f"tables: {exc}") from None


def check_name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{where} must be a non-empty string; got {value!r}")
    return value


def check_alphas(values: Any, where: str) -> tuple[float, ...]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"{where} must be a list of numbers in [0, 1]; got {values!r}")
    out = []
    for a in values:
        if isinstance(a, bool) or not isinstance(a, numbers.Real) or not 0.0 <= float(a) <= 1.0:
            raise ValueError(f"{where} must hold numbers in [0, 1]; got {a!r}")
        out.append(float(a))
    if len(set(out)) != len(out) or not out:
        raise ValueError(f"{where} must be a non-empty list of distinct values; got {out}")
    return tuple(out)


def check_classifier(cls: type, where: str) -> None:
    """Refuse a regressor or an outlier detector (scikit-learn's tags say which) before any
    cell runs: every cell fits a classifier and evaluates its class probabilities."""
    from sklearn.base import is_outlier_detector, is_regressor

    try:
        est = cls()
    except Exception:  # reported by the caller's own construction check
        return
    for test, kind in ((is_regressor, "a regressor"), (is_outlier_detector,
                                                        "an outlier detector")):
        try:
            found = test(est)
        except Exception:  # an estimator without scikit-learn's tags
            found = False
        if found:
            raise ValueError(f"{where}: {cls.__name__} is {kind}; an experiment fits "
                             "classifiers (a treelab ensemble, or a scikit-learn classifier "
                             "such as sklearn.ensemble:RandomForestClassifier)")


def check_estimator_task(cls: type, task: str, where: str) -> None:
    """Refuse an estimator of the wrong kind for the experiment's ``task``, before any cell
    runs: a classification experiment takes classifiers (:func:`check_classifier`), a
    regression experiment regressors (scikit-learn's ``is_regressor`` tag)."""
    if task != "regression":
        check_classifier(cls, where)
        return
    from sklearn.base import is_regressor

    try:
        found = is_regressor(cls())
    except Exception:  # an estimator without scikit-learn's tags, or failing construction
        found = False
    if not found:
        raise ValueError(f"{where}: {cls.__name__} is not a regressor; a regression experiment "
                         "fits regressors (a treelab regressor such as VRTreesRegressor, or "
                         "sklearn.ensemble:RandomForestRegressor)")


def check_alpha_conflict(params: Mapping[str, Any], alphas: tuple[float, ...],
                         where_params: str, where_alphas: str) -> None:
    """Refuse an ``alpha`` in an ensemble's params that its swept alphas would override: the
    sweep sets every cell's alpha, so a different params alpha would be ignored without a word.
    The same single value in both is accepted."""
    if "alpha" not in params:
        return
    alpha = params["alpha"]
    same = (isinstance(alpha, numbers.Real) and not isinstance(alpha, bool)
            and alphas == (float(alpha),))
    if not same:
        raise ValueError(f"{where_params} sets alpha = {alpha!r} and {where_alphas} sweeps "
                         f"{list(alphas)}: the sweep would override it; give the alphas in "
                         "one place only")


def resolve_estimator(name: str) -> type:
    """The estimator class named by ``name``.

    Parameters
    ----------
    name : str
        A treelab estimator (``"VRTrees"``, ``"RandomForest"``, ...) or an import path
        ``"package.module:Class"`` / ``"package.module.Class"`` of any scikit-learn style
        classifier.

    Returns
    -------
    type
    """
    check_name(name, "estimator")
    if ":" not in name and "." not in name:
        import treelab

        if name not in getattr(treelab, "__all__", ()) or not inspect.isclass(
                getattr(treelab, name, None)):
            raise ValueError(f"estimator {name!r} is not a treelab estimator; give an import "
                             "path 'package.module:Class' for others")
        return getattr(treelab, name)
    module, _, attr = name.rpartition(":") if ":" in name else name.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"estimator {name!r} cannot be imported: {exc}") from None
    if not inspect.isclass(cls) or not hasattr(cls, "fit"):
        raise ValueError(f"estimator {name!r} is not an estimator class")
    return cls


def check_params(cls: type, params: Mapping[str, Any], where: str) -> None:
    """Check estimator parameters with the estimator's own checks, before any cell runs.

    treelab estimators validate in ``_check_params`` and scikit-learn's in ``_validate_params``
    (both otherwise run only in ``fit``); an error names ``where``.
    """
    try:
        est = cls(**params)
        if callable(getattr(est, "_check_params", None)):
            est._check_params()
        elif hasattr(est, "_parameter_constraints") \
                and callable(getattr(est, "_validate_params", None)):
            est._validate_params()
    except (TypeError, ValueError) as exc:
        raise (ValueError if isinstance(exc, ValueError) else TypeError)(
            f"{where}: {exc}") from None
