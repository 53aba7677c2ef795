"""Out-of-bag estimates for a fitted bagged treelab ensemble (spec analysis section 4)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import xarray as xr

from treelab.analysis._dataset import encode_labels
from treelab.analysis.strength import strength_correlation
from treelab.estimators._weights import check_sample_weight, engine_weights, row_weights

__all__ = ["in_bag_counts", "oob_strength_correlation", "sklearn_in_bag"]


def sklearn_in_bag(model: Any, n_rows: int, *, strict: bool = True) -> np.ndarray | None:
    """In-bag counts (tree, sample) from a scikit-learn ensemble's ``estimators_samples_``
    (the training rows each member was drawn, with repeats under the bootstrap).

    With ``strict=False``, None where the model keeps no such record (or every member saw
    every row, which leaves nothing out of bag); with ``strict=True`` a ``ValueError``.
    """
    samples = None
    if hasattr(model, "estimators_") and not hasattr(model, "forest_"):
        try:
            samples = model.estimators_samples_
        except (AttributeError, ValueError, TypeError):
            samples = None
    if samples is None:
        if strict:
            raise ValueError(f"{type(model).__name__} keeps no estimators_samples_: out-of-bag "
                             "estimates need the rows each member was trained on")
        return None
    counts = np.zeros((len(samples), n_rows), dtype=np.int64)
    for t, rows in enumerate(samples):
        rows = np.asarray(rows)
        if rows.dtype == np.bool_:
            rows = np.flatnonzero(rows)
        if rows.size and rows.max() >= n_rows:
            raise ValueError(f"estimators_samples_[{t}] indexes row {int(rows.max())}; y_train "
                             f"has {n_rows} rows: pass the training rows the model was fit on")
        counts[t] = np.bincount(rows, minlength=n_rows)
    if not strict and counts.min() > 0:
        return None
    return counts


def in_bag_counts(ensemble: Any, y: Any, sample_weight: Any = None) -> np.ndarray:
    """How often each tree's bootstrap sample holds each training row, (tree, sample).

    The bootstrap draws are replayed from the ensemble's integer ``random_state`` with the
    engine's own generator, and checked against the fitted forest: the class counts at each
    tree's root must equal the in-bag class counts of ``y``. A mismatch (``y`` is not the
    training labels, or the draws cannot be replayed) is a ``ValueError``, never a silently
    wrong mask.

    Parameters
    ----------
    ensemble : fitted treelab ensemble with bootstrap rows
        ``BaggedTrees``, ``RandomForest(bootstrap=True)`` or a VR-Trees family member with
        ``sampling="bootstrap"`` (or ``"bootstrap+subspace"``), or a bagged treelab regressor
        (``RandomForestRegressor``, ``BaggedTreesRegressor``, bagged ``VRTreesRegressor``),
        fitted with an integer ``random_state``.
    y : array-like, (sample,)
        The training labels (a regressor: targets) the ensemble was fitted on, in the same
        order.
    sample_weight : array-like, (sample,), optional
        The sample weights the ensemble was fitted with. A tree's weight of a row is its
        bootstrap count times the row's weight (and its class weight, where the ensemble has
        ``class_weight``), so a row of weight 0 is out of every tree's bag.

    Returns
    -------
    numpy.ndarray, (tree, sample)
        int32 bootstrap counts; float64 weighted counts for an ensemble fitted with weights
        (``sample_weight`` or ``class_weight``).
    """
    from sklearn.utils import check_random_state

    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._rng import new_state

    forest = getattr(ensemble, "forest_", None)
    if forest is None or not hasattr(ensemble, "_spec"):
        raise TypeError("ensemble must be a fitted treelab ensemble (with forest_)")
    seed = getattr(ensemble, "random_state", None)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(
            "out-of-bag estimates replay the bootstrap draws: fit the ensemble with an integer "
            f"random_state (got {seed!r})"
        )
    spec = ensemble._spec(int(getattr(ensemble, "n_features_in_", 1)))
    if spec.rows != "bootstrap":
        raise ValueError(
            "out-of-bag estimates need a bagged ensemble (every tree grown on a bootstrap "
            f"sample); {type(ensemble).__name__} grows its trees on {spec.rows!r} rows"
        )
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if forest.value.size:  # a regression forest (treelab.estimators.regression)
        return _regression_in_bag(forest, y_arr, sample_weight, int(seed))
    codes = encode_labels(y_arr, "y", classes=np.asarray(ensemble.classes_))
    n, C, T = codes.size, len(ensemble.classes_), forest.n_trees
    seeds = check_random_state(int(seed)).randint(0, np.iinfo(np.int32).max, size=T)
    part = np.zeros(n, dtype=np.int32)
    sw = check_sample_weight(sample_weight, n)
    rw = row_weights(sw, getattr(ensemble, "class_weight", None), np.asarray(ensemble.classes_),
                     codes)
    ew = None if rw is None or np.all(rw == 1.0) else engine_weights(rw, True)
    counts = np.empty((T, n), dtype=np.int32 if ew is None else np.float64)
    for t in range(T):
        w, _ = G.draw_construction(n, 1, G.ROWS_BOOTSTRAP, part, t, 0,
                                   new_state(np.uint64(seeds[t])))
        if ew is not None:
            # the engine's units, summed as the growth kernel sums them, then in weights
            w = (w.astype(np.int64) * ew.units) * 2.0 ** -ew.shift
        root = np.asarray(forest.counts[forest.node_offsets[t]])
        if not np.array_equal(root, np.bincount(codes, weights=w, minlength=C)):
            raise ValueError(
                f"tree {t}: its root class counts {root.tolist()} are not the in-bag counts "
                "of y; pass the training labels (and the sample_weight) the ensemble was "
                "fitted with"
            )
        counts[t] = w
    return counts


def _regression_in_bag(forest: Any, y: np.ndarray, sample_weight: Any,
                       seed: int) -> np.ndarray:
    """``in_bag_counts`` of a bagged regression forest: the replayed bootstrap counts, checked
    against each tree's root (its rows with multiplicity and its weighted mean target). Rows
    of weight 0 are out of every tree's bag; with weights, the counts times the weights."""
    from sklearn.utils import check_random_state

    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._rng import new_state

    y = np.asarray(y, dtype=np.float64)
    n, T = y.shape[0], forest.n_trees
    sw = check_sample_weight(sample_weight, n)
    seeds = check_random_state(seed).randint(0, np.iinfo(np.int32).max, size=T)
    part = np.zeros(n, dtype=np.int32)
    counts = np.empty((T, n), dtype=np.int32 if sw is None else np.float64)
    for t in range(T):
        w, _ = G.draw_construction(n, 1, G.ROWS_BOOTSTRAP, part, t, 0,
                                   new_state(np.uint64(seeds[t])))
        wt = w.astype(np.float64) if sw is None else w * sw
        root = forest.node_offsets[t]
        seen = int(np.sum(w[wt > 0]))
        mean = np.sum(wt * y) / np.sum(wt) if np.sum(wt) > 0 else np.nan
        if forest.counts[root, 0] != seen or not (
                np.sum(wt) <= 0 or np.isclose(forest.value[root], mean, rtol=1e-9, atol=0.0)):
            raise ValueError(
                f"tree {t}: its root's rows ({int(forest.counts[root, 0])}) and mean target "
                f"({forest.value[root]!r}) are not those of the in-bag rows of y ({seen}, "
                f"{mean!r}); pass the training targets (and the sample_weight) the forest was "
                "fitted with")
        counts[t] = w if sw is None else wt
    return counts


def oob_strength_correlation(ensemble: Any, X: Any, y: Any,
                             sample_weight: Any = None) -> xr.Dataset:
    """Out-of-bag strength, correlation and Breiman's bound of a bagged ensemble.

    Breiman (2001, section 3.1): every training row is scored only by the trees whose
    bootstrap sample missed it. Member labels on the training rows ``X`` (as
    ``member_predict``) and the in-bag counts of :func:`in_bag_counts` go to
    :func:`strength_correlation` with ``in_bag=``; see there for the estimates.

    A scikit-learn ensemble that keeps ``estimators_samples_`` (forests with
    ``bootstrap=True``, ``BaggingClassifier``) gives its in-bag rows from there
    (:func:`sklearn_in_bag`).

    Parameters
    ----------
    ensemble : fitted bagged treelab ensemble (see :func:`in_bag_counts`) or scikit-learn
        ensemble with ``estimators_samples_``
    X : array-like, (sample, feature)
        The training rows the ensemble was fitted on.
    y : array-like, (sample,)
        Their labels.
    sample_weight : array-like, (sample,), optional
        The sample weights the ensemble was fitted with: they decide which rows each tree saw
        (:func:`in_bag_counts`); every out-of-bag row then counts once in the estimates.

    Returns
    -------
    xarray.Dataset
        As :func:`strength_correlation`, with ``n_rows`` the rows some tree did not see.
    """
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y)
    if not hasattr(ensemble, "forest_") and hasattr(ensemble, "estimators_"):
        from treelab.analysis.members import resolve

        bag = sklearn_in_bag(ensemble, y_arr.shape[0])
        m = resolve(ensemble, X, y=y_arr, need_ensemble=False)
        return strength_correlation(m.classes[m.labels], y_arr, classes=m.classes, in_bag=bag)
    bag = in_bag_counts(ensemble, y, sample_weight)
    if bag.dtype.kind == "f":
        bag = bag > 0  # weighted counts: in the bag or not
    labels = ensemble.member_predict(X)
    return strength_correlation(labels, y_arr, classes=ensemble.classes_, in_bag=bag)
