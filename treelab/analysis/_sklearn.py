"""Members of scikit-learn ensembles (and anything exposing fitted ``estimators_``).

scikit-learn fits the members of its forests, ``BaggingClassifier`` and ``VotingClassifier``
on class *indices* (``np.unique(y, return_inverse=True)`` or a ``LabelEncoder``), so a member's
``predict`` returns an index into the ensemble's ``classes_``, never a label: every reader here
maps members through the ensemble's ``classes_``. Each reader also recombines the members the
way the ensemble's own ``predict`` does, in the same order of floating-point operations, so
the ensemble's labels equal ``model.predict(X)`` exactly, ties included (argmax: the first
class of highest value).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from treelab.analysis._inputs import encode_labels
from treelab.analysis._model_checks import member_list

__all__ = ["onehot", "read", "weighted_votes"]


def _sk():
    import sklearn.ensemble as E

    return E


def _check_fitted(model: Any) -> None:
    if not hasattr(model, "classes_") or not hasattr(model, "estimators_"):
        raise TypeError(
            f"model must be a fitted treelab ensemble, a fitted scikit-learn ensemble of "
            f"classifiers (with classes_ and estimators_), a list of fitted classifiers or "
            f"member outputs; got {type(model).__name__} without "
            f"{'classes_' if not hasattr(model, 'classes_') else 'estimators_'}")
    classes = model.classes_
    if isinstance(classes, list) or np.ndim(classes) != 1:
        raise ValueError(f"{type(model).__name__} is multi-output; member outputs need one "
                         "target")


def onehot(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot probabilities (..., class) of class codes (...)."""
    out = np.zeros(codes.shape + (n_classes,))
    np.put_along_axis(out, codes[..., None], 1.0, axis=-1)
    return out


def weighted_votes(labels: np.ndarray, n_classes: int, weights: Any = None) -> np.ndarray:
    """(Weighted) votes per (sample, class) of member codes (tree, sample), added member by
    member in member order: the order of ``np.bincount`` in ``VotingClassifier``, so float
    weights round as they do there."""
    n = labels.shape[1]
    votes = np.zeros((n, n_classes))
    rows = np.arange(n)
    for t in range(labels.shape[0]):
        votes[rows, labels[t]] += 1.0 if weights is None else float(weights[t])
    return votes


def _tree_value_is_fraction() -> bool:
    """scikit-learn >= 1.4 stores a classifier tree's ``tree_.value`` as class fractions
    (and ``predict_proba`` returns them as they are); before, as weighted counts that
    ``predict_proba`` divided by their row sum."""
    import sklearn

    major, minor = (int(p) for p in sklearn.__version__.split(".")[:2])
    return (major, minor) >= (1, 4)


def _forest(model: Any, X: Any) -> tuple:
    """Every tree's leaf values in one pass (``tree_.apply`` then a take of ``tree_.value``);
    the forest's ``predict_proba`` adds them in tree order and divides by T."""
    from scipy import sparse
    from sklearn.utils import check_array

    Xv = check_array(X, dtype=np.float32, accept_sparse="csr", ensure_all_finite=False)
    if sparse.issparse(Xv):
        Xv.sort_indices()
    if Xv.shape[1] != model.n_features_in_:
        raise ValueError(f"X has {Xv.shape[1]} features, but {type(model).__name__} is "
                         f"expecting {model.n_features_in_}")
    trees = model.estimators_
    T, n, C = len(trees), Xv.shape[0], len(model.classes_)
    proba = np.empty((T, n, C))
    labels = np.empty((T, n), dtype=np.int64)
    fraction = _tree_value_is_fraction()

    def one(t: int) -> None:
        tree = trees[t].tree_
        out = tree.value.take(tree.apply(Xv), axis=0, mode="clip")[:, 0, :C]
        labels[t] = np.argmax(out, axis=1)  # DecisionTreeClassifier.predict: first of max
        if fraction:
            proba[t] = out
        else:  # the normalisation of scikit-learn < 1.4
            norm = out.sum(axis=1)[:, None]
            norm[norm == 0.0] = 1.0
            proba[t] = out / norm

    n_jobs = getattr(model, "n_jobs", None)
    if n_jobs in (None, 1) or T < 2:
        for t in range(T):
            one(t)
    else:  # tree_.apply releases the GIL; results land in their own slots, order-free
        from joblib import Parallel, delayed

        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(one)(t) for t in range(T))
    summed = np.zeros((n, C))
    for t in range(T):  # tree order, as the forest's single-job accumulation
        summed += proba[t]
    summed /= T
    return labels, proba, np.argmax(summed, axis=1), summed, "average", {}


def _bagging(model: Any, X: Any) -> tuple:
    """Each member on its own features (``estimators_features_``); ``predict_proba`` sums
    member probabilities, or votes for a member without ``predict_proba``, then divides by
    the number of members."""
    from sklearn.utils import check_array

    Xv = check_array(X, accept_sparse=["csr", "csc"], dtype=None, ensure_all_finite=False)
    C = len(model.classes_)
    n = Xv.shape[0]
    labels, probas, no_proba = [], [], []
    summed = np.zeros((n, C))
    rows = np.arange(n)
    for t, (est, feats) in enumerate(zip(model.estimators_, model.estimators_features_,
                                         strict=True)):
        Xs = Xv[:, feats]
        codes = np.asarray(est.predict(Xs)).astype(np.int64)  # indices into model.classes_
        labels.append(codes)
        if hasattr(est, "predict_proba"):
            p = est.predict_proba(Xs)
            own = np.asarray(est.classes_).astype(np.int64)
            full = np.zeros((n, C))
            full[:, own] = p
            probas.append(full)
            if C == len(own):
                summed += p
            else:
                summed[:, own] += p[:, range(len(own))]
        else:
            no_proba.append(t)
            probas.append(onehot(codes, C))
            summed[rows, codes] += 1
    notes = {}
    if no_proba:
        notes["member_proba"] = f"one-hot of predict for members {no_proba} (no predict_proba)"
    ens_p = summed / model.n_estimators
    ens = np.argmax(ens_p, axis=1)
    if model.n_jobs not in (None, 1):
        # jobs add their own share of the members first: take the model's own prediction
        ens_p = np.asarray(model.predict_proba(X), dtype=np.float64)
        ens = np.argmax(ens_p, axis=1)
    return np.stack(labels), np.stack(probas), ens, ens_p, "average", notes


def _voting(model: Any, X: Any) -> tuple:
    """Hard voting: weighted ``np.bincount`` of member labels, argmax; soft: ``np.average``
    of member probabilities with the weights, argmax. The weights of dropped members are
    left out as ``VotingClassifier`` does."""
    C = len(model.classes_)
    weights = None if model.weights is None else [
        w for est, w in zip(model.estimators, model.weights, strict=True) if est[1] != "drop"]
    labels, probas, no_proba = [], [], []
    for t, est in enumerate(model.estimators_):
        codes = np.asarray(est.predict(X)).astype(np.int64)  # fitted on LabelEncoder codes
        labels.append(codes)
        if hasattr(est, "predict_proba"):
            p = np.asarray(est.predict_proba(X), dtype=np.float64)
            full = np.zeros((p.shape[0], C))
            full[:, np.asarray(est.classes_).astype(np.int64)] = p
            probas.append(full)
        else:
            no_proba.append(t)
            probas.append(onehot(codes, C))
    lab, proba = np.stack(labels), np.stack(probas)
    notes = {}
    if no_proba:
        notes["member_proba"] = f"one-hot of predict for members {no_proba} (no predict_proba)"
    if model.voting == "soft":
        ens_p = np.average(proba, axis=0, weights=weights)
        how = "soft voting" + (" (weighted)" if weights is not None else "")
    else:
        votes = weighted_votes(lab, C, weights)
        ens_p = votes / votes.sum(axis=1, keepdims=True)
        notes["ensemble_proba"] = "(weighted) vote shares"
        how = "hard voting" + (" (weighted)" if weights is not None else "")
        return lab, proba, np.argmax(votes, axis=1), ens_p, how, notes
    return lab, proba, np.argmax(ens_p, axis=1), ens_p, how, notes


def _member_codes(model: Any, est: Any, t: int, classes: np.ndarray) -> np.ndarray:
    """How member ``t``'s classes_ map into the model's: its own labels when they are among
    the model's classes, else class indices (as scikit-learn's ensembles fit them)."""
    own = np.asarray(est.classes_)
    if np.isin(own, classes).all():
        return encode_labels(own, f"estimators_[{t}].classes_", classes=classes)
    if own.dtype.kind in "iuf" and np.all(own == np.round(own)) and own.min() >= 0 \
            and own.max() < classes.size:
        return own.astype(np.int64)
    raise ValueError(f"estimators_[{t}].classes_ {own.tolist()[:5]} are neither labels of "
                     f"the model's classes_ nor indices into them")


def _generic(model: Any, X: Any, need_ensemble: bool) -> tuple:
    """Any fitted ``estimators_`` of classifiers; the ensemble is the model's own
    ``predict`` (and ``predict_proba`` where it has one)."""
    classes = np.asarray(model.classes_)
    C = classes.size
    members = member_list(model.estimators_)
    if not members or not all(hasattr(m, "classes_") and hasattr(m, "predict") for m in members):
        raise TypeError(f"{type(model).__name__}.estimators_ must hold fitted classifiers "
                        "(each with classes_ and predict)")
    labels, probas, no_proba = [], [], []
    for t, est in enumerate(members):
        cols = _member_codes(model, est, t, classes)
        pred = np.asarray(est.predict(X))
        codes = cols[encode_labels(pred, f"estimators_[{t}].predict(X)",
                                   classes=np.asarray(est.classes_))]
        labels.append(codes)
        if hasattr(est, "predict_proba"):
            p = np.asarray(est.predict_proba(X), dtype=np.float64)
            full = np.zeros((p.shape[0], C))
            full[:, cols] = p
            probas.append(full)
        else:
            no_proba.append(t)
            probas.append(onehot(codes, C))
    notes = {"ensemble": "the model's own predict"}
    if no_proba:
        notes["member_proba"] = f"one-hot of predict for members {no_proba} (no predict_proba)"
    ens = ens_p = None
    if need_ensemble:
        ens = encode_labels(np.asarray(model.predict(X)), "predict(X)", classes=classes)
        if hasattr(model, "predict_proba"):
            try:
                ens_p = np.asarray(model.predict_proba(X), dtype=np.float64)
            except AttributeError:
                ens_p = None
        if ens_p is None:
            ens_p = onehot(ens, C)
            notes["ensemble_proba"] = "one-hot of the model's predict (no predict_proba)"
    return np.stack(labels), np.stack(probas), ens, ens_p, "the model's own", notes


def read(model: Any, X: Any, need_ensemble: bool = True) -> tuple:
    """(classes, labels, proba, ensemble, ensemble_proba, combine, source, notes) of a
    fitted scikit-learn-style ensemble on the rows ``X``."""
    _check_fitted(model)
    E = _sk()
    classes = np.asarray(model.classes_)
    if _is_forest(model):
        got = _forest(model, X)
    elif isinstance(model, E.BaggingClassifier):
        got = _bagging(model, X)
    elif isinstance(model, E.VotingClassifier):
        got = _voting(model, X)
    else:
        got = _generic(model, X, need_ensemble)
    return (classes, *got[:4], got[4], type(model).__name__, got[5])


def _is_forest(model: Any) -> bool:
    try:
        from sklearn.ensemble._forest import ForestClassifier
    except ImportError:  # pragma: no cover - private path moved
        return False
    return isinstance(model, ForestClassifier) and all(
        hasattr(t, "tree_") for t in model.estimators_)
