"""Member outputs from any model: the one adapter between models and the measures.

:func:`member_outputs` reads the members of a fitted treelab ensemble, a scikit-learn forest,
bagging or voting ensemble, anything else exposing fitted ``estimators_`` of classifiers, a
list of fitted classifiers (a pool), or member outputs exported from elsewhere, and returns
them over (``tree``, ``sample``[, ``class``]) with the model's classes as the ``class``
coordinate. :func:`resolve` is its internal twin: class codes, member probabilities and the
model's own combination of them, which :func:`treelab.analysis.diagnose` and every measure
that accepts a model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis import _sklearn
from treelab.analysis._dataset import Var, to_dataarray
from treelab.analysis._inputs import as_array, check_class_coord, check_classes, encode_labels
from treelab.analysis._model_checks import (
    check_kind,
    check_X,
    check_y,
    is_pool,
    is_regressor_model,
    is_treelab,
)
from treelab.analysis._sklearn import onehot as _onehot
from treelab.analysis._sklearn import weighted_votes as _vote
from treelab.combine import highest_class

__all__ = [
    "Members",
    "ReadLabels",
    "check_model",
    "complete_classes",
    "infer_classes",
    "is_model",
    "member_outputs",
    "read_members",
    "resolve",
]

KINDS = ("proba", "labels")
COMBINES = ("vote", "average")


class Members(NamedTuple):
    """Members of a model on some rows, as class codes into ``classes``.

    ``labels`` (tree, sample) are the members' own predictions; ``proba`` (tree, sample,
    class) their probabilities (one-hot of the labels where a member has none; None for raw
    labels); ``ensemble`` (sample,) and ``ensemble_proba`` (sample, class) the model's own
    combination (None where the rule is not known: a pool or raw outputs without
    ``combine=``); ``combine`` names that rule; ``notes`` say what was derived and how.
    """

    classes: np.ndarray
    labels: np.ndarray
    proba: np.ndarray | None
    ensemble: np.ndarray | None
    ensemble_proba: np.ndarray | None
    combine: str
    source: str
    notes: dict
    coords: dict


def is_model(obj: Any) -> bool:
    """Anything :func:`resolve` reads with ``X``: a fitted model or a pool (not an array)."""
    if isinstance(obj, xr.DataArray | np.ndarray):
        return False
    return is_pool(obj) or hasattr(obj, "predict") or hasattr(obj, "estimators_")


def complete_classes(classes: np.ndarray, y: Any) -> np.ndarray:
    """``classes`` followed by the labels of ``y`` it lacks (sorted): a true class no member
    can predict still needs a code."""
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y).ravel()
    extra = np.setdiff1d(np.unique(y_arr), classes) if y_arr.size else y_arr[:0]
    return np.concatenate([classes, extra]) if extra.size else classes


def combined(labels: np.ndarray, proba: np.ndarray | None, n_classes: int, combine: str
             ) -> tuple[np.ndarray, np.ndarray]:
    """Ensemble codes and probabilities of a pool or raw outputs under ``combine``:
    ``"vote"`` (most votes, ties to the lowest class index; probabilities are vote shares),
    ``"average"`` (mean member probability, ties to the lowest class index)."""
    if combine == "vote":
        votes = _vote(labels, n_classes)
        return np.argmax(votes, axis=1), votes / labels.shape[0]
    if proba is None:
        raise ValueError("combine='average' needs member probabilities, got member labels")
    summed = np.zeros(proba.shape[1:])
    for p in proba:  # member order, as scikit-learn's forests accumulate
        summed += p
    avg = summed / proba.shape[0]
    return highest_class(avg), avg


def _check_combine(combine: Any) -> None:
    if combine is not None and combine not in COMBINES:
        raise ValueError(f"combine must be one of {list(COMBINES)} or None, got {combine!r}")


def _check_y_codes(y: Any, n_columns: int) -> None:
    """Member probabilities without ``classes=`` (or a ``class`` coordinate) have the codes
    0..C-1 as their classes; a ``y`` holding another label (labels 1..C, text) was coded
    some other way, and every measure would count its rows as a class no member knows."""
    if y is None:
        return
    arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y).ravel()
    if arr.dtype.kind in "iub":
        outside = arr[(arr < 0) | (arr >= n_columns)]
    elif arr.dtype.kind == "f":
        outside = arr[~np.isin(arr, np.arange(n_columns))]
    else:
        outside = arr
    if outside.size:
        shown = (np.unique(outside).tolist() if outside.dtype.kind in "iubf"
                 else sorted({str(v) for v in outside.tolist()}))[:5]
        raise ValueError(
            f"y holds labels {shown} that are not codes of the member probabilities' "
            f"{n_columns} columns (0..{n_columns - 1}, their classes without classes=): "
            "pass classes= with the columns' labels in order, or y as those codes")


def _raw(values: Any, classes: Any, combine: str | None, y: Any) -> Members:
    """Member labels (tree, sample) or probabilities (tree, sample, class) given as arrays."""
    if isinstance(values, list | tuple):
        for i, m in enumerate(values):
            if (hasattr(m, "fit") or hasattr(m, "predict")) and not hasattr(m, "classes_"):
                raise TypeError(f"a pool must hold fitted classifiers (with classes_ and "
                                f"predict); element {i}, a {type(m).__name__}, is not one")
    if isinstance(values, xr.DataArray):
        if _dims.CLASS in values.dims:
            arr, coords = as_array(values, "member outputs",
                                   (_dims.TREE, _dims.SAMPLE, _dims.CLASS))
        else:
            arr, coords = as_array(values, "member outputs", (_dims.TREE, _dims.SAMPLE),
                                   labels=True)
            if classes is None and "classes" in values.attrs:
                classes = np.asarray(values.attrs["classes"])
    else:
        arr = np.asarray(values)
        if arr.ndim not in (2, 3):
            raise ValueError("member outputs must be labels (tree, sample) or probabilities "
                             f"(tree, sample, class), got shape {arr.shape}")
        dims = (_dims.TREE, _dims.SAMPLE) + ((_dims.CLASS,) if arr.ndim == 3 else ())
        arr, coords = as_array(arr, "member outputs", dims, labels=arr.ndim == 2)
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"member outputs need at least one tree and one sample, got {arr.shape}")
    notes: dict[str, str] = {}
    if arr.ndim == 3:
        from treelab.analysis._inputs import check_proba

        proba = check_proba(arr, "member outputs")
        check_class_coord(classes, coords, "member outputs")
        if classes is None and _dims.CLASS not in coords:
            _check_y_codes(y, proba.shape[2])
        if classes is None:
            classes = coords.get(_dims.CLASS, np.arange(proba.shape[2]))
        classes = check_classes(classes)
        if classes.size != proba.shape[2]:
            raise ValueError(f"classes has {classes.size} labels but the member probabilities "
                             f"have {proba.shape[2]} columns")
        labels = np.argmax(proba, axis=2)
        notes["member_labels"] = "argmax of each member's probabilities (ties to the first class)"
    else:
        if classes is None and arr.dtype.kind == "f" and not (
                np.all(np.isfinite(arr)) and np.all(arr == np.round(arr))):
            from treelab.analysis._model_checks import REGRESSION_MEASURES

            raise ValueError("member outputs (tree, sample) hold real values (or NaN), not "
                             "class labels: for the outputs of a regression use "
                             f"{REGRESSION_MEASURES}; for labels stored as floats pass "
                             "classes=")
        if classes is None:
            if arr.dtype.kind in "iub" and y is None:
                classes = np.arange(int(arr.max()) + 1 if arr.size else 1)
            else:
                pool = [arr.ravel()] if y is None else [arr.ravel(), np.asarray(
                    y.values if isinstance(y, xr.DataArray) else y).ravel()]
                try:
                    classes = np.unique(np.concatenate(pool))
                except TypeError as exc:
                    raise TypeError(f"member labels and y hold labels that do not compare: "
                                    f"{exc}; pass classes=") from exc
                if arr.dtype.kind in "iub" and classes.dtype.kind in "iub" and classes.min() >= 0:
                    classes = np.arange(int(classes.max()) + 1)  # integer codes stay codes
        classes = check_classes(classes)
        labels = encode_labels(arr, "member labels", classes=classes)
        proba = None
    coords.pop(_dims.CLASS, None)
    ens = ens_p = None
    if combine is not None:
        ens, ens_p = combined(labels, proba, classes.size, combine)
    return Members(classes, labels, proba, ens, ens_p, combine or "unknown", "member outputs",
                   notes, coords)


def _pool(pool: Sequence[Any], X: Any, combine: str | None) -> Members:
    """A list of fitted classifiers, aligned on the union of their classes."""
    try:
        classes = np.unique(np.concatenate([np.asarray(m.classes_) for m in pool]))
    except TypeError as exc:
        raise TypeError(f"the pool's members have classes_ of types that do not compare: {exc}"
                        ) from exc
    C = classes.size
    labels, probas, no_proba = [], [], []
    for i, m in enumerate(pool):
        own = np.asarray(m.classes_)
        pred = np.asarray(m.predict(X))
        codes = encode_labels(pred, f"pool[{i}].predict(X)", classes=classes)
        labels.append(codes)
        if hasattr(m, "predict_proba"):
            p = np.asarray(m.predict_proba(X), dtype=np.float64)
            full = np.zeros((p.shape[0], C))
            full[:, encode_labels(own, f"pool[{i}].classes_", classes=classes)] = p
            probas.append(full)
        else:
            no_proba.append(i)
            probas.append(_onehot(codes, C))
    labels_arr = np.stack(labels)
    proba = np.stack(probas)
    notes = {"classes": "union of the members' classes_; a class a member lacks has probability 0"}
    if no_proba:
        notes["member_proba"] = f"one-hot of predict for members {no_proba} (no predict_proba)"
    ens = ens_p = None
    if combine is not None:
        ens, ens_p = combined(labels_arr, proba, C, combine)
    names = np.array([type(m).__name__ for m in pool])
    return Members(classes, labels_arr, proba, ens, ens_p, combine or "unknown", "pool", notes,
                   {"member": names})


def _treelab(model: Any, X: Any, need_ensemble: bool) -> Members:
    classes = np.asarray(model.classes_)
    proba = np.asarray(model.member_proba(X), dtype=np.float64)
    labels = np.argmax(proba, axis=2)
    ens = ens_p = None
    if need_ensemble:
        ens_p = np.asarray(model.predict_proba(X), dtype=np.float64)
        ens = encode_labels(np.asarray(model.predict(X)), "predict(X)", classes=classes)
    name = getattr(model, "combine", "average") or "average"
    return Members(classes, labels, proba, ens, ens_p, name, type(model).__name__, {}, {})


def check_model(model: Any, X: Any, y: Any = None) -> None:
    """The checks of a model (or a pool), its rows and its true labels, made once before any
    member is read (:mod:`treelab.analysis._model_checks`): what kind of model it is, the
    width and column names of ``X`` against it and each member, missing labels in ``y`` and
    ``y`` sharing no label with its classes."""
    if is_pool(model):
        for i, m in enumerate(model):
            check_kind(m, f"pool[{i}]")
        try:
            classes = np.unique(np.concatenate([np.asarray(m.classes_) for m in model]))
        except TypeError:
            classes = None  # the reader names the classes that do not compare
        who = "the pool"
    else:
        if not is_treelab(model):
            check_kind(model)
        classes, who = getattr(model, "classes_", None), type(model).__name__
    check_X(model, X)
    check_y(y, classes if classes is None or np.ndim(classes) == 1 else None, model=who)


def resolve(obj: Any, X: Any = None, *, classes: Any = None, combine: str | None = None,
            y: Any = None, need_ensemble: bool = True) -> Members:
    """Members of ``obj`` on the rows ``X`` (see :func:`member_outputs` for what ``obj`` may
    be), after :func:`check_model` (with ``y``, the true labels, when given). ``y`` also
    helps to infer the classes of raw string labels."""
    _check_combine(combine)
    if isinstance(obj, xr.DataArray | np.ndarray) or (
        isinstance(obj, list | tuple) and not is_pool(obj)
    ):
        check_y(y)
        return _raw(obj, classes, combine, y)
    if X is None:
        raise TypeError(f"X is required to read the members of a {type(obj).__name__}")
    check_model(obj, X, y)
    if is_pool(obj):
        return _pool(obj, X, combine)
    if combine is not None:
        raise ValueError(f"combine= is for a pool or raw member outputs; a "
                         f"{type(obj).__name__} combines its members its own way")
    if is_treelab(obj):
        return _treelab(obj, X, need_ensemble)
    got = _sklearn.read(obj, X, need_ensemble)
    return Members(*got, {})


def member_outputs(
    model: Any,
    X: Any = None,
    *,
    kind: str | None = None,
    classes: Any = None,
) -> xr.DataArray:
    """The members' outputs of any ensemble on the rows ``X``, over (``tree``, ``sample``
    [, ``class``]).

    Accepted models:

    * every fitted treelab ensemble (``member_proba``);
    * scikit-learn's ``RandomForestClassifier`` and ``ExtraTreesClassifier`` (and their
      subclasses, e.g. imbalanced-learn's balanced forests), read in one pass over the trees'
      arrays (``tree_.apply`` and ``tree_.value``); ``BaggingClassifier`` with its
      ``estimators_features_`` and any base estimator; ``VotingClassifier``; anything else
      exposing fitted ``estimators_`` of classifiers (the members of scikit-learn's ensembles
      are fitted on class indices; they are mapped back through the model's ``classes_``);
    * a list or tuple of fitted classifiers (a pool), aligned on the union of their
      ``classes_``: a class a member never saw has probability 0 in that member;
    * member labels (tree, sample) or probabilities (tree, sample, class) as arrays or
      DataArrays (``X`` is not needed), with ``classes=`` their labels (default: the
      DataArray's ``class`` coordinate, the sorted distinct labels, or codes 0..C-1).

    Before any member predicts, :func:`check_model` refuses what would give silently wrong
    outputs: a model that is no ensemble of its classes (a search, a pipeline, one-vs-rest or
    one-vs-one, stacking, a regressor or an outlier detector, each with what would work
    instead), ``X`` whose width does not match the model or a member, and DataFrame columns
    whose names differ from ``feature_names_in_`` or come in another order (as scikit-learn's
    ``predict`` refuses them); see docs/diagnose_your_forest.md.

    Member labels are each member's own ``predict`` (for scikit-learn trees, the first class
    of highest leaf value, as ``DecisionTreeClassifier.predict``); member probabilities its
    ``predict_proba`` (one-hot of its labels where it has none; the ``member_proba`` attr says
    so).

    Parameters
    ----------
    model : fitted model, list of fitted classifiers, or array-like / DataArray
        See above.
    X : array-like, (sample, feature)
        The rows to predict (not needed for member outputs given as arrays).
    kind : {"proba", "labels", "predictions"}, optional
        Member probabilities over (tree, sample, class) (the default for classifiers), or
        member labels over (tree, sample) holding the original labels (attr ``classes``
        lists them in order). For a regressor (scikit-learn's forests, bagging and voting
        regressors, a treelab regressor, a list of fitted regressors) the members'
        predictions (tree, sample), as :func:`treelab.analysis.regression_outputs`.
    classes : array-like, optional
        Labels of raw member outputs.

    Returns
    -------
    xarray.DataArray
        ``member_proba`` (tree, sample, class) with the model's classes as the ``class``
        coordinate, or ``member_labels`` (tree, sample); attrs ``source`` (the model's class),
        ``combine`` (its combination rule) and notes on anything derived.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from treelab.analysis import member_outputs
    >>> X, y = load_iris(return_X_y=True)
    >>> rf = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    >>> member_outputs(rf, X[:4]).sizes
    Frozen({'tree': 5, 'sample': 4, 'class': 3})
    """
    if is_regressor_model(model):
        if kind not in (None, "predictions"):
            raise ValueError(f"kind={kind!r} is for classifiers; a regressor's members give "
                             "predictions (kind='predictions' or None)")
        from treelab.analysis._regression_members import regression_outputs

        return regression_outputs(model, X)
    kind = "proba" if kind is None else kind
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    m = resolve(model, X, classes=classes, need_ensemble=False)
    attrs = {"source": m.source, "combine": m.combine, **m.notes}
    coords = {k: v for k, v in m.coords.items() if k in (_dims.TREE, _dims.SAMPLE)}
    if kind == "proba":
        proba = m.proba
        if proba is None:
            proba = _onehot(m.labels, m.classes.size)
            attrs["member_proba"] = "one-hot of the member labels (no probabilities given)"
        var = Var((_dims.TREE, _dims.SAMPLE, _dims.CLASS), proba, "member class probabilities",
                  valid_range=(0.0, 1.0), description="each member's predict_proba")
        out = to_dataarray("member_proba", var, function="member_outputs",
                           params={"kind": kind, "source": m.source},
                           coords={**coords, _dims.CLASS: m.classes})
    else:
        var = Var((_dims.TREE, _dims.SAMPLE), m.classes[m.labels], "member labels", units="",
                  description="each member's own predict, as original labels")
        out = to_dataarray("member_labels", var, function="member_outputs",
                           params={"kind": kind, "source": m.source}, coords=coords)
        attrs["classes"] = _attr_list(m.classes)
    if "member" in m.coords:
        out = out.assign_coords(member=(_dims.TREE, m.coords["member"]))
    out.attrs.update(attrs)
    return out


def _attr_list(classes: np.ndarray) -> list:
    """Classes as a netCDF-safe attr: numbers stay numbers, anything else becomes text."""
    if classes.dtype.kind in "iufb":
        return classes.tolist()
    return [str(c) for c in classes]


def repeated_outputs(models: Any, X: Any, *, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Member outputs of K models fitted on K training sets, on the same rows ``X``:
    (repeat, tree, sample, class) probabilities or (repeat, tree, sample) class codes, aligned
    on the union of the models' classes, and those classes. A single model is one repeat."""
    if is_model(models) and not (isinstance(models, list | tuple) and all(
            is_model(m) and (hasattr(m, "estimators_") or is_treelab(m) or is_pool(m))
            for m in models)):
        models = [models]
    if X is None:
        raise TypeError("X is required to read the members of models")
    got = [resolve(m, X, need_ensemble=False) for m in models]
    sizes = {g.labels.shape[0] for g in got}
    if len(sizes) > 1:
        raise ValueError(f"the models have different numbers of members {sorted(sizes)}; the "
                         "decomposition pairs member i across the training sets")
    try:
        classes = np.unique(np.concatenate([g.classes for g in got]))
    except TypeError as exc:
        raise TypeError(f"the models' classes do not compare: {exc}") from exc
    cols = [encode_labels(g.classes, "classes_", classes=classes) for g in got]
    if kind == "labels":
        return np.stack([c[g.labels] for c, g in zip(cols, got, strict=True)]), classes
    out = np.zeros((len(got),) + got[0].labels.shape + (classes.size,))
    for k, (c, g) in enumerate(zip(cols, got, strict=True)):
        out[k][..., c] = g.proba if g.proba is not None else _onehot(g.labels, c.size)
    return out, classes


class ReadLabels(NamedTuple):
    """Member labels (original labels) of a model read on ``X``, its classes (None for member
    outputs given as they are) and the model's own ensemble labels (None unless asked for and
    known)."""

    labels: Any
    classes: Any
    ensemble: Any = None


def read_members(member_labels: Any, X: Any, y: Any = None, name: str = "member_labels", *,
                 need_ensemble: bool = False) -> ReadLabels:
    """The one preamble of every measure over member labels: a model or a pool read on ``X``
    (:func:`resolve`, after :func:`check_model`), giving its members' labels (original
    labels), its classes and, with ``need_ensemble``, its own ensemble labels; member outputs
    pass through (classes None). ``y``, the true labels, is checked in both cases."""
    if not is_model(member_labels):
        if X is not None:
            raise ValueError(f"X= is for a model or a list of models; {name} already holds "
                             "member outputs")
        check_y(y)
        return ReadLabels(member_labels, None)
    if X is None:
        raise TypeError(f"{name} is a {type(member_labels).__name__}: pass X= (the rows its "
                        "members predict)")
    m = resolve(member_labels, X, y=y, need_ensemble=need_ensemble)
    ens = None if m.ensemble is None else m.classes[m.ensemble]
    return ReadLabels(m.classes[m.labels], m.classes, ens)


def infer_classes(member_labels: Any, labels: np.ndarray, y: np.ndarray, classes: Any) -> Any:
    """``classes`` when given; else the ``classes`` attr of a DataArray made by
    :func:`treelab.analysis.member_outputs`; else, for labels that are not integer codes
    (strings, objects), the sorted distinct labels of the members and ``y``; else None."""
    if classes is not None:
        return classes
    if isinstance(member_labels, xr.DataArray) and "classes" in member_labels.attrs:
        return np.asarray(member_labels.attrs["classes"])
    numbers_l, numbers_y = labels.dtype.kind in "iufb", y.dtype.kind in "iufb"
    if numbers_l and numbers_y:
        return None  # class codes, checked as codes
    if "O" not in (labels.dtype.kind, y.dtype.kind) and numbers_l != numbers_y:
        raise TypeError(f"member_labels hold {'numbers' if numbers_l else 'text'} but y holds "
                        f"{'numbers' if numbers_y else 'text'}; give both the same labels (or "
                        "pass classes=)")
    try:
        return np.unique(np.concatenate([labels.ravel(), y.ravel()]))
    except TypeError as exc:
        raise TypeError(f"member_labels and y hold labels that do not compare ({exc}); use one "
                        "type for every label") from exc
