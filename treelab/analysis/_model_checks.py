"""The checks every measure makes on a model, its rows ``X`` and the true labels ``y``, once,
before any work (:func:`treelab.analysis.members.resolve` calls them; so does
:func:`treelab.analysis.diagnose` for a treelab ensemble).

* what kind of model it is: a classifier ensemble whose members predict the model's own
  classes, not a search, a pipeline, a one-vs-rest or one-vs-one model, a stacking model, a
  regressor or an outlier detector (each refused with what would work instead);
* the width of ``X`` against the model and every member (``n_features_in_``, the columns of
  ``BaggingClassifier``'s ``estimators_features_``): too few and too many columns;
* the column names of ``X`` against ``feature_names_in_``, as scikit-learn's own ``predict``
  checks them: the same names in another order, or other names, are refused (scikit-learn
  refuses them too, and reordering silently would hide a mistake in the data); names on one
  side only give scikit-learn's warning;
* the labels of ``y``: no missing label (NaN, None, ``pd.NA``), and at least one label shared
  with the model's ``classes_`` (integer labels for a model with string classes would
  otherwise be counted as classes the model never saw: an error of 1 without a word).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["check_kind", "check_regressor_kind", "check_X", "check_y", "check_y_values",
           "feature_names", "has_missing", "is_pool", "is_regressor_model", "is_regressor_pool",
           "is_treelab", "member_list"]

#: Where a regressor goes instead of the classification measures.
REGRESSION_MEASURES = ("the regression measures (treelab.analysis.regression_outputs, "
                       "ambiguity, bias_variance_diversity_regression, "
                       "bias_variance_covariance, breiman_regression_bound, "
                       "louppe_variance, diagnose; docs/measures/regression.md)")


def _safely(test: Any, model: Any) -> bool:
    """scikit-learn's ``is_regressor`` and friends; False for an object without estimator
    tags (a hand-written classifier that does not derive from ``BaseEstimator``)."""
    try:
        return bool(test(model))
    except (AttributeError, TypeError):
        return False


def _sklearn_kind(model: Any) -> str | None:
    """Why scikit-learn's ``model`` cannot be read as an ensemble of classifiers (None: it
    can, as far as its type tells)."""
    try:
        from sklearn.base import is_outlier_detector, is_regressor
        from sklearn.ensemble import StackingClassifier
        from sklearn.model_selection._search import BaseSearchCV
        from sklearn.multiclass import (
            OneVsOneClassifier,
            OneVsRestClassifier,
            OutputCodeClassifier,
        )
        from sklearn.pipeline import Pipeline
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return None
    name = type(model).__name__
    if isinstance(model, BaseSearchCV):
        return (f"a {name} is a search over models, not an ensemble: pass its refitted best "
                f"model, {name.lower()}.best_estimator_ (refit=True)")
    if isinstance(model, Pipeline):
        return ("a Pipeline is not an ensemble: pass its last step, pipeline[-1], with the "
                "rows transformed by the steps before it, pipeline[:-1].transform(X)")
    if isinstance(model, OneVsRestClassifier | OneVsOneClassifier | OutputCodeClassifier):
        return (f"the members of a {name} answer binary questions ('class k or not', 'class j "
                "or class k'), not the model's classes, so they are no ensemble of its "
                "classes: diagnose a multi-class ensemble (a forest fitted on the whole "
                "problem), or one member on its own binary target")
    if isinstance(model, StackingClassifier):
        return ("a StackingClassifier combines its members with a learned final estimator, "
                "no vote or average: diagnose an ensemble inside it (one of named_estimators_, "
                "fitted on class indices 0..C-1, with y encoded the same way)")
    if _safely(is_regressor, model):
        return (f"{name} is a regressor: these measures need an ensemble of classifiers (e.g. "
                f"RandomForestClassifier); for a regressor use {REGRESSION_MEASURES}")
    if _safely(is_outlier_detector, model):
        return (f"{name} is an outlier detector (no classes): the measures need an ensemble "
                "of classifiers (e.g. RandomForestClassifier)")
    if getattr(model, "_estimator_type", None) == "clusterer":
        return f"{name} is a clusterer: the measures need an ensemble of classifiers"
    return None


def check_kind(model: Any, name: str = "model") -> None:
    """Refuse a model no reader can read as an ensemble of classifiers, naming what would work
    (a search's ``best_estimator_``, a pipeline's last step, the forest inside)."""
    why = _sklearn_kind(model)
    if why is not None:
        raise TypeError(f"{name}: {why}")
    if not hasattr(model, "classes_"):
        raise TypeError(
            f"{name} must be a fitted treelab ensemble, a fitted scikit-learn ensemble of "
            "classifiers, a list of fitted classifiers, or member outputs (tree, sample[, "
            f"class]); got {type(model).__name__}, which is not fitted (no classes_)")


def is_regressor_pool(obj: Any) -> bool:
    """A non-empty list or tuple of fitted regressors (``predict``, no ``classes_``, and
    scikit-learn's regressor tag or fitted attributes)."""
    return (isinstance(obj, list | tuple) and len(obj) > 0
            and all(hasattr(m, "predict") and not hasattr(m, "classes_")
                    and (_is_sklearn_regressor(m) or hasattr(m, "n_features_in_"))
                    for m in obj))


def _is_sklearn_regressor(model: Any) -> bool:
    from sklearn.base import is_regressor

    return _safely(is_regressor, model)


def is_regressor_model(obj: Any) -> bool:
    """A regression model the regression measures read with ``X``: a scikit-learn regressor,
    a treelab regressor (``member_predict`` and no ``classes_``) or a list of regressors."""
    if isinstance(obj, xr.DataArray | np.ndarray):
        return False
    if isinstance(obj, list | tuple):
        return is_regressor_pool(obj)
    if hasattr(obj, "classes_") or _is_sklearn_classifier(obj):
        return False  # an unfitted classifier has no classes_ yet
    return _is_sklearn_regressor(obj) or (hasattr(obj, "member_predict")
                                          and hasattr(obj, "predict"))


def _is_sklearn_classifier(model: Any) -> bool:
    from sklearn.base import is_classifier

    return _safely(is_classifier, model)


def check_regressor_kind(model: Any, name: str = "model", *, member: bool = False) -> None:
    """Refuse what the regression measures cannot read as an average of fitted regressors:
    a classifier (pointing to the classification measures), an unfitted model, a search or a
    pipeline, and a scikit-learn ensemble that does not average its members (boosting,
    stacking). With ``member``, any fitted regressor passes (a member of a list)."""
    kind = type(model).__name__
    if hasattr(model, "classes_") or getattr(model, "_estimator_type", None) == "classifier":
        raise TypeError(f"{name}: {kind} is a classifier: the regression measures need "
                        "regressors; use the classification measures (treelab.analysis."
                        "diagnose, errors, member_outputs, ...) for a classifier")
    if not is_regressor_model(model) and not (member and hasattr(model, "predict")):
        raise TypeError(f"{name} must be a fitted regression ensemble (RandomForestRegressor, "
                        "ExtraTreesRegressor, BaggingRegressor, VotingRegressor, a treelab "
                        "regressor), a list of fitted regressors, or member outputs (tree, "
                        f"sample); got {kind}")
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    if not hasattr(model, "member_predict") or hasattr(model, "get_params"):
        try:
            check_is_fitted(model)
        except NotFittedError as exc:
            raise TypeError(f"{name}: {kind} is not fitted") from exc
        except TypeError:
            pass  # not a scikit-learn estimator: its predict says whether it is fitted
    if member or hasattr(model, "member_predict"):
        return
    from sklearn.ensemble import BaggingRegressor, VotingRegressor
    from sklearn.ensemble._forest import ForestRegressor

    if isinstance(model, ForestRegressor | BaggingRegressor | VotingRegressor):
        return
    why = _sklearn_kind(model)
    if why is not None and "is a regressor" not in why:
        raise TypeError(f"{name}: {why}")
    if hasattr(model, "estimators_"):
        raise TypeError(f"{name}: a {kind} does not predict the plain average of its members "
                        "(boosting sums stages, stacking learns a combiner): its member "
                        "outputs would not combine to its predictions; the regression "
                        "measures take averaging ensembles")
    raise TypeError(f"{name}: a {kind} exposes no members that average to its predictions "
                    "(a single model, or an ensemble without estimators_): pass an averaging "
                    "ensemble, or a list of fitted regressors to compare several models")


def check_y_values(y: Any, n_rows: int | None = None, *, name: str = "y") -> None:
    """Refuse true values of a regression that are not one finite number per row: text,
    NaN or infinities, a 2-d ``y`` (one target per row is read) or another row count."""
    if y is None:
        return
    arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        raise ValueError(f"{name} has shape {arr.shape}: pass one value per row, "
                         f"{name}.ravel() (multi-output regression is not read)")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d (one true value per row), got shape {arr.shape}")
    if arr.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers for a regression, got dtype "
                        f"{arr.dtype}")
    bad = ~np.isfinite(arr.astype(np.float64))
    if bad.any():
        where = np.flatnonzero(bad)
        raise ValueError(f"{name} holds NaN or infinite values at {where.size} position(s), "
                         f"the first {where[:5].tolist()}: drop those rows")
    if n_rows is not None and arr.shape[0] != n_rows:
        raise ValueError(f"{name} has {arr.shape[0]} values but X has {n_rows} rows")


def feature_names(X: Any) -> np.ndarray | None:
    """Column names of ``X`` as scikit-learn reads them: a DataFrame whose column names are
    all strings has names; one with no string names has none; mixed names are refused."""
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    names = np.asarray(columns, dtype=object)
    text = [isinstance(c, str) for c in names]
    if all(text) and names.size:
        return names
    if any(text):
        raise TypeError("X has column names of mixed types (strings and others): give every "
                        "column a string name, as scikit-learn requires")
    return None


def _width(X: Any) -> int | None:
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged rows: the reader reports them
            return None
    return int(shape[1]) if len(shape) == 2 else None


def member_list(estimators: Any) -> list[Any]:
    """A model's fitted ``estimators_`` as a flat list: a NumPy array of them (gradient
    boosting's stages by class) raveled, a list taken as it is. ``np.asarray`` of a list is
    no way to flatten it: members that are ``Pipeline`` objects (sized and indexable) would
    be split into their steps, one step per member."""
    if isinstance(estimators, np.ndarray):
        return list(estimators.ravel())
    return list(estimators)


def _members(model: Any) -> list[tuple[str, Any, Any]]:
    """(name, member, its columns or None) of a model's fitted members."""
    est = getattr(model, "estimators_", None)
    if est is None:
        return []
    members = member_list(est)
    feats = getattr(model, "estimators_features_", None)
    if feats is not None and len(feats) == len(members):
        return [(f"estimators_[{t}]", m, np.asarray(f)) for t, (m, f) in
                enumerate(zip(members, feats, strict=True))]
    return [(f"estimators_[{t}]", m, None) for t, m in enumerate(members)]


def _check_names(fitted: Any, X_names: np.ndarray | None, who: str, warn: bool) -> None:
    """scikit-learn's ``_check_feature_names(X, reset=False)``: other names or another order
    are refused; names on one side only are a warning."""
    if fitted is None and X_names is None:
        return
    if X_names is None:
        if warn:
            warnings.warn(f"X does not have valid feature names, but {who} was fitted with "
                          "feature names", UserWarning, stacklevel=4)
        return
    if fitted is None:
        if warn:
            warnings.warn(f"X has feature names, but {who} was fitted without feature names",
                          UserWarning, stacklevel=4)
        return
    fitted = np.asarray(fitted, dtype=object)
    if fitted.size == X_names.size and np.array_equal(fitted, X_names):
        return
    if fitted.size == X_names.size and set(fitted.tolist()) == set(X_names.tolist()):
        raise ValueError(
            f"X has the feature names {who} was fitted with, in another order (first "
            f"difference at column {int(np.argmax(fitted != X_names))}: "
            f"{X_names[np.argmax(fitted != X_names)]!r} where the fit had "
            f"{fitted[np.argmax(fitted != X_names)]!r}); scikit-learn refuses this too: "
            "reorder the columns with X[model.feature_names_in_]")
    unseen = [n for n in X_names.tolist() if n not in set(fitted.tolist())]
    missing = [n for n in fitted.tolist() if n not in set(X_names.tolist())]
    raise ValueError(
        f"The feature names should match those that were passed during fit of {who}: "
        f"names unseen at fit time {unseen[:5]}, names seen at fit time but missing "
        f"{missing[:5]}")


def is_treelab(obj: Any) -> bool:
    """A fitted treelab ensemble (the contract of ``diagnose``: ``forest_`` and member
    counts or probabilities)."""
    return hasattr(obj, "forest_") and (hasattr(obj, "member_counts")
                                        or hasattr(obj, "member_proba"))


def is_pool(obj: Any) -> bool:
    """A non-empty list or tuple of fitted classifiers."""
    return (isinstance(obj, list | tuple) and len(obj) > 0
            and all(hasattr(m, "predict") and hasattr(m, "classes_") for m in obj))


def check_X(model: Any, X: Any) -> None:
    """Refuse rows ``X`` whose width or column names do not match the model and each of its
    members (a pool: each classifier), as each one's own ``predict`` would."""
    n_cols = _width(X)
    X_names = feature_names(X)
    top = type(model).__name__
    if is_pool(model):
        parts = [(f"pool[{i}] ({type(m).__name__})", m, None) for i, m in enumerate(model)]
    else:
        parts = [(top, model, None)]
        # a treelab ensemble checks its rows itself (scikit-learn's validate_data, which also
        # warns about names on one side only): no second warning here
        if not is_treelab(model):
            parts += [(f"{top}.{who} ({type(m).__name__})", m, f)
                      for who, m, f in _members(model)]
    warn = not is_treelab(model)
    for label, est, feats in parts:
        expected = getattr(est, "n_features_in_", None)
        if feats is not None:
            if n_cols is not None and feats.size and int(feats.max()) >= n_cols:
                raise ValueError(f"X has {n_cols} features, but {label} reads column "
                                 f"{int(feats.max())} (estimators_features_)")
            if expected is not None and int(expected) != feats.size:
                raise ValueError(f"{label} was fitted on {int(expected)} features but "
                                 f"estimators_features_ lists {feats.size}")
            continue  # a member of a bagging ensemble sees its own columns, unnamed
        if expected is not None and n_cols is not None and int(expected) != n_cols:
            raise ValueError(f"X has {n_cols} features, but {label} is expecting "
                             f"{int(expected)} features as input")
        if hasattr(est, "feature_names_in_") or est is model or is_pool(model):
            _check_names(getattr(est, "feature_names_in_", None), X_names, label,
                         warn and est is model)


def has_missing(values: np.ndarray) -> np.ndarray:
    """Where labels are missing: NaN in floats; NaN, None or ``pd.NA`` in objects."""
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind == "O":
        import pandas as pd

        return np.asarray(pd.isna(values), dtype=bool)
    return np.zeros(values.shape, dtype=bool)


def check_y(y: Any, classes: Any = None, *, name: str = "y", model: str = "the model"
            ) -> None:
    """Refuse missing labels in ``y``; with ``classes`` (a model's ``classes_``), refuse
    ``y`` that shares no label with them (a type mismatch such as integer labels for string
    classes), naming both."""
    if y is None:
        return
    arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if arr.dtype.kind == "O" or arr.dtype.kind in "fc":
        missing = has_missing(arr)
        if missing.any():
            where = np.flatnonzero(missing.ravel())
            raise ValueError(f"{name} holds a missing label (NaN or None) at {where.size} "
                             f"position(s), the first {where[:5].tolist()}: a missing label "
                             "is no class; drop those rows")
    if classes is None or arr.size == 0:
        return
    own = np.asarray(classes)
    try:
        shared = set(np.unique(arr).tolist()) & set(own.tolist())
    except TypeError:  # labels of types that do not sort: compare one by one
        shared = set(arr.ravel().tolist()) & set(own.tolist())
    if not shared:
        y_first = np.unique(arr.ravel()[:1000]).tolist()[:5] if arr.dtype.kind != "O" else \
            arr.ravel()[:5].tolist()
        raise ValueError(
            f"{name} shares no label with {model}'s classes_: {name} holds {y_first} "
            f"({arr.dtype}), classes_ are {own.tolist()[:5]} ({own.dtype}); give {name} the "
            "labels the model was fitted on")
