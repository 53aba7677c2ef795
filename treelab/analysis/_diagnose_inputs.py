"""What :func:`treelab.analysis.diagnose` reads from a model: one member pass, the model's
own combination, and the variables only some models can fill."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_BREIMAN, CITE_GAIN_TIES
from treelab.analysis._dataset import Var
from treelab.analysis._inputs import encode_labels, encode_unseen
from treelab.analysis._model_checks import check_kind
from treelab.analysis.members import check_model as check_inputs
from treelab.analysis.members import is_model, is_pool, is_treelab, resolve

__all__ = ["DEFAULT_THRESHOLDS", "Pass", "check_model", "check_single",
           "check_top_thresholds", "class_vars", "oob_vars", "read", "unknown_tree_vars"]

_ERR = (0.0, 1.0)
#: Why a variable only treelab's tree builder can fill is NaN for other models.
TREELAB_ONLY = ("recorded only by treelab's tree builder; NaN for a {source}")


class Pass(NamedTuple):
    """One member pass: classes, codes of y (unseen labels after the classes), member codes
    (tree, sample), summed member probabilities (sample, class), ensemble probabilities
    (sample, class), the ensemble's codes (None: derive them from ``combine``), its rule,
    the model's name, whether it is a treelab ensemble, and notes for the result's attrs."""

    classes: np.ndarray
    y_codes: np.ndarray
    unseen: np.ndarray
    labels: np.ndarray
    summed: np.ndarray
    proba: np.ndarray
    ensemble: np.ndarray | None
    combine: str
    source: str
    treelab: bool
    notes: dict


def check_model(ensemble: Any, X: Any) -> None:
    """Refuse what no adapter reads, before any work."""
    if isinstance(ensemble, xr.DataArray | np.ndarray) or is_pool(ensemble) or is_treelab(
            ensemble):
        return
    if isinstance(ensemble, list | tuple):
        return  # raw member outputs as nested lists; checked by the reader
    if not is_model(ensemble):
        raise TypeError(
            "ensemble must be a fitted treelab ensemble, a fitted scikit-learn ensemble of "
            "classifiers, a list of fitted classifiers, or member outputs (tree, sample[, "
            f"class]); got {type(ensemble).__name__}")
    check_kind(ensemble, "ensemble")  # a search, pipeline, regressor...: what would work
    if X is None:
        raise TypeError(f"X is required to diagnose a {type(ensemble).__name__}")


#: diagnose's default thresholds: their "top3" on two classes stays 0 by definition (the true
#: class is always among the top K >= C), so the default works for every class count
DEFAULT_THRESHOLDS = ("1.0", "top1", "top2", "top3")


def check_single(single: Any) -> None:
    """A known single-model error must be an error rate in [0, 1]; NaN says that there is
    none (the experiment runner's ``single = false``): the error ratio is then NaN."""
    if isinstance(single, numbers.Real) and not isinstance(single, bool) and not (
            0.0 <= float(single) <= 1.0) and not math.isnan(float(single)):
        raise ValueError(f"single must be an error rate in [0, 1] (or an estimator), got "
                         f"{single!r}")


def check_training_rows(X_train: Any, y_train: Any) -> None:
    """``X_train`` and ``y_train`` come together (the single model's fit, the out-of-bag
    rows), one label a row."""
    if (X_train is None) != (y_train is None):
        given, missing = ("X_train", "y_train") if y_train is None else ("y_train", "X_train")
        raise ValueError(f"{given} was given without {missing}: the training rows need both "
                         "(or neither)")
    if X_train is None:
        return
    n_x, n_y = np.shape(X_train)[0], np.shape(np.asarray(getattr(y_train, "values", y_train)))
    n_y = n_y[0] if n_y else 0
    if n_x != n_y:
        raise ValueError(f"X_train has {n_x} rows but y_train has {n_y} labels")


def check_top_thresholds(thresholds: Any, n_classes: int) -> None:
    """Refuse a "topK" threshold asked for with K above the model's class count: it is 0 on
    every row whatever the probabilities, a number that measures nothing (the default
    thresholds are kept as they are)."""
    from treelab.analysis.probability import _TOP

    if isinstance(thresholds, str):
        specs = [thresholds]
    elif isinstance(thresholds, Mapping):
        specs = list(thresholds.values())
    elif isinstance(thresholds, list | tuple):
        specs = list(thresholds)
    else:
        return
    names = [t for t in specs if isinstance(t, str)]
    if isinstance(thresholds, tuple) and len(names) == len(specs) and \
            thresholds == DEFAULT_THRESHOLDS:
        return
    for spec in names:
        match = _TOP.match(spec)
        if match and int(match.group(1)) > n_classes:
            raise ValueError(f"thresholds: {spec!r} asks for the top {match.group(1)} of "
                             f"{n_classes} classes; K must be at most the class count")


def _encode_y(classes: np.ndarray, y: Any) -> tuple[np.ndarray, np.ndarray]:
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if y_arr.ndim != 1:
        raise ValueError(f"y must be 1-d (sample,), got shape {y_arr.shape}")
    return encode_unseen(y_arr, "y", classes)


def _check_member_shape(arr: np.ndarray, n_rows: int, n_classes: int) -> None:
    if arr.ndim != 3 or arr.shape[1:] != (n_rows, n_classes):
        raise ValueError(f"X gives member outputs of shape {arr.shape}; y has {n_rows} rows")


def _treelab_pass(ensemble: Any, X: Any, n_rows: int, n_classes: int,
                  counts: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Member labels (tree, sample) and summed member probabilities (sample, class);
    ``counts``: the ensemble's ``member_counts(X)`` when the caller has them already."""
    if counts is not None or hasattr(ensemble, "member_counts"):
        if counts is None:
            counts = np.asarray(ensemble.member_counts(X), dtype=np.float64)
            _check_member_shape(counts, n_rows, n_classes)
        else:
            counts = np.asarray(counts, dtype=np.float64)
            if counts.ndim != 3 or counts.shape[1:] != (n_rows, n_classes):
                raise ValueError(f"member_counts must have shape (tree, {n_rows}, {n_classes}), "
                                 f"got {counts.shape}")
        labels = np.argmax(counts, axis=2)
        tot = counts @ np.ones(n_classes)  # (tree, sample); matmul beats a small-axis sum
        if getattr(ensemble, "laplace", False):
            w = 1.0 / (tot + n_classes)
            summed = np.einsum("tsc,ts->sc", counts, w) + w.sum(axis=0)[:, None]
        else:
            empty = tot <= 0  # an empty answering node gives the uniform distribution
            w = np.where(empty, 0.0, 1.0 / np.where(empty, 1.0, tot))
            summed = np.einsum("tsc,ts->sc", counts, w)
            summed += empty.sum(axis=0)[:, None] / n_classes
        return labels, summed
    member_p = np.asarray(ensemble.member_proba(X), dtype=np.float64)
    _check_member_shape(member_p, n_rows, n_classes)
    return np.argmax(member_p, axis=2), member_p.sum(axis=0)


def read(ensemble: Any, X: Any, y: Any, *, combine: str | None, classes: Any,
         member_counts: np.ndarray | None = None,
         member_pass: tuple[np.ndarray, np.ndarray] | None = None) -> Pass:
    """The member pass of :func:`treelab.analysis.diagnose` for any accepted model
    (``member_counts``: a treelab ensemble's ``member_counts(X)``, already computed;
    ``member_pass``: its ``_member_pass(X)``, the labels and summed frequencies themselves)."""
    from treelab.analysis._dataset import vote_counts
    from treelab.analysis._inputs import check_proba

    if is_treelab(ensemble):
        if combine is not None or classes is not None:
            raise ValueError("combine= and classes= are for a pool or raw member outputs; a "
                             "treelab ensemble has its own")
        check_inputs(ensemble, X, y)  # resolve() checks every other model
        cls = np.asarray(ensemble.classes_)
        y_codes, unseen = _encode_y(cls, y)
        if member_pass is not None:
            labels, summed = member_pass
            if labels.shape[1:] != (y_codes.size,) or summed.shape != (y_codes.size, cls.size):
                raise ValueError("member_pass does not match X and the ensemble's classes")
        else:
            labels, summed = _treelab_pass(ensemble, X, y_codes.size, cls.size, member_counts)
        n_trees = labels.shape[0]
        name = getattr(ensemble, "combine", "average") or "average"
        ens = None
        if name == "average":
            proba = summed / n_trees
        elif name == "vote":
            proba = vote_counts(labels, cls.size) / n_trees
        elif name == "likelihood" and hasattr(ensemble, "_likelihood_log_odds"):
            # one pass for both: the class is that of the highest posterior odds, as predict's
            # (classes of very large odds have equal probabilities after rounding, and
            # argmax(proba) would pick the first of them)
            from treelab.combine import log_odds_proba

            z = ensemble._likelihood_log_odds(X)
            proba, ens = check_proba(log_odds_proba(z), "proba"), np.argmax(z, axis=1)
        else:
            proba = check_proba(np.asarray(ensemble.predict_proba(X), dtype=np.float64),
                                "proba")
        return Pass(cls, y_codes, unseen, labels, summed, proba, ens, name,
                    type(ensemble).__name__, True, {})
    if member_counts is not None or member_pass is not None:
        raise ValueError("member_counts= is for a treelab ensemble with member_counts(); got "
                         f"a {type(ensemble).__name__}")
    raw = isinstance(ensemble, xr.DataArray | np.ndarray) or (
        isinstance(ensemble, list | tuple) and not is_pool(ensemble))
    if raw and combine is None and np.ndim(
            ensemble.values if isinstance(ensemble, xr.DataArray) else ensemble) == 2:
        combine = "vote"  # member labels can only be voted
    m = resolve(ensemble, X, classes=classes, combine=combine, y=y)
    if m.ensemble is None:
        raise ValueError(f"a {'pool' if is_pool(ensemble) else 'set of member outputs'} has no "
                         "combination rule of its own: pass combine='vote' (most votes, ties "
                         "to the lowest class index) or combine='average' (mean probability)")
    y_codes, unseen = _encode_y(m.classes, y)
    if m.labels.shape[1] != y_codes.size:
        raise ValueError(f"the members predict {m.labels.shape[1]} rows; y has {y_codes.size}")
    C = m.classes.size
    if m.proba is not None:
        summed = np.zeros((m.labels.shape[1], C))
        for p in m.proba:
            summed += p
    else:
        summed = vote_counts(m.labels, C).astype(np.float64)
    return Pass(m.classes, y_codes, unseen, m.labels, summed,
                np.asarray(m.ensemble_proba, dtype=np.float64), m.ensemble, m.combine,
                m.source, False, m.notes)


def unknown_tree_vars(n_trees: int, source: str) -> dict[str, Var]:
    """Gain ties, per-tree alpha and random-node shares: NaN for a model that does not record
    them, with the reason."""
    why = TREELAB_ONLY.format(source=source)
    nan_t = np.full(n_trees, np.nan)
    tree = (_dims.TREE,)
    cite = CITE_GAIN_TIES
    return {
        "ties": Var(tree, nan_t, "gain ties recorded while growing the tree", units="count",
                    cite=cite, description=why),
        "decision_nodes": Var(tree, nan_t, "deterministic decision nodes", units="count",
                              cite=cite, description=why),
        "g": Var(tree, nan_t, "gain ties per decision node g", cite=cite, description=why),
        "mean_g": Var((), np.nan, "mean of g over trees with decision nodes", cite=cite,
                      description=why),
        "pooled_g": Var((), np.nan, "total ties / total decision nodes", cite=cite,
                        description=why),
        "random_share": Var(tree, nan_t, "share of decision nodes chosen at random",
                            description=why),
        "tree_alpha": Var(tree, nan_t, "probability of a deterministic node",
                          description=why),
    }


def class_vars(y_codes: np.ndarray, ens: np.ndarray, n_classes: int) -> dict[str, Var]:
    """Per true class: its share of the test rows and the ensemble's error on them (the
    ``class`` coordinate holds the labels, so ``rival_class`` codes can be read off it)."""
    n_k = np.bincount(y_codes, minlength=n_classes)
    wrong = np.bincount(y_codes, weights=(ens != y_codes).astype(np.float64),
                        minlength=n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.where(n_k > 0, wrong / np.maximum(n_k, 1), np.nan)
    return {
        "class_share": Var((_dims.CLASS,), n_k / y_codes.size, "share of test rows per class",
                           valid_range=_ERR),
        "class_error": Var((_dims.CLASS,), err, "ensemble error on the rows of each class",
                           valid_range=_ERR, description="NaN for a class without test rows"),
    }


def oob_vars(model: Any, X_train: Any, y_train: Any) -> dict[str, Var]:
    """Out-of-bag strength, correlation and bound from ``estimators_samples_`` (Breiman 2001,
    section 3.1), where the model keeps its members' training rows; {} otherwise."""
    from treelab.analysis.oob import sklearn_in_bag
    from treelab.analysis.strength import strength_stats

    bag = sklearn_in_bag(model, np.asarray(y_train).shape[0], strict=False, y=y_train)
    if bag is None:
        return {}
    m = resolve(model, X_train, y=y_train, need_ensemble=False)
    y_arr = np.asarray(y_train.values if isinstance(y_train, xr.DataArray) else y_train)
    codes = encode_labels(y_arr, "y_train", classes=m.classes)
    st = strength_stats(m.labels, codes, m.classes.size, in_bag=bag)
    how = "out of bag, from estimators_samples_ on X_train, y_train"
    return {
        "oob_strength": Var((), st["strength"], "out-of-bag strength s", valid_range=(-1.0, 1.0),
                            cite=CITE_BREIMAN, description=how),
        "oob_correlation": Var((), st["correlation"], "out-of-bag correlation rho",
                               cite=CITE_BREIMAN, description=how),
        "oob_breiman_bound": Var((), st["breiman_bound"], "out-of-bag Breiman bound",
                                 cite=CITE_BREIMAN, description=how),
    }
