"""Out-of-bag estimates for a fitted bagged treelab ensemble (spec analysis section 4)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import xarray as xr

from treelab.analysis._inputs import encode_labels
from treelab.analysis._model_checks import member_list
from treelab.analysis.strength import strength_correlation
from treelab.estimators._weights import check_sample_weight, engine_weights, row_weights

__all__ = ["in_bag_counts", "oob_strength_correlation", "regression_in_bag_counts",
           "sklearn_in_bag"]


def sklearn_in_bag(model: Any, n_rows: int, *, strict: bool = True, y: Any = None,
                   sample_weight: Any = None) -> np.ndarray | None:
    """In-bag counts (tree, sample) from a scikit-learn ensemble's ``estimators_samples_``
    (the training rows each member was drawn, with repeats under the bootstrap).

    Where the model keeps no such record, or every member saw every row (``bootstrap=False``
    without a subsample, which leaves nothing out of bag): None with ``strict=False``, a
    ``ValueError`` with ``strict=True``.

    ``estimators_samples_`` holds row positions, so the same counts fit any rows of that
    length. With ``y`` (the training labels or targets, in the order of the fit) every
    member that is a scikit-learn tree is checked against them (:func:`_check_sklearn_roots`):
    a ``y`` of other rows, or of the same rows in another order, is a ``ValueError``, never a
    silently wrong mask.
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
    if counts.size and counts.min() > 0:
        if not strict:
            return None
        # bootstrap=False (and no subsample) trains every member on every row: nothing is out
        # of any bag, so an out-of-bag estimate would be NaN from no row at all
        raise ValueError(f"every member of the {type(model).__name__} was trained on every one "
                         f"of the {n_rows} rows (no bootstrap, no subsample): no row is out of "
                         "any bag; out-of-bag estimates need bootstrap=True (or "
                         "max_samples < 1)")
    if y is not None:
        _check_sklearn_roots(model, counts, y, sample_weight)
    return counts


def _check_sklearn_roots(model: Any, counts: np.ndarray, y: Any, sample_weight: Any) -> None:
    """Each member's root against its in-bag rows of ``y``: a classification tree's root
    holds the in-bag class counts, in proportion; a regression tree's root their mean target
    and total weight. Rows count with their in-bag multiplicity, or with it times
    ``sample_weight`` when given (older scikit-learn forests weighted the counts; newer
    ones draw the bootstrap in proportion to the weights and pass the counts alone). Members
    that are no scikit-learn tree, and classifiers with ``class_weight`` (which reweights the
    root's classes), are not checked."""
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y).ravel()
    if y_arr.shape[0] != counts.shape[1]:
        raise ValueError(f"y has {y_arr.shape[0]} rows but estimators_samples_ indexes "
                         f"{counts.shape[1]}")
    classes = getattr(model, "classes_", None)
    if classes is not None:
        index = {v: i for i, v in enumerate(np.asarray(classes).tolist())}
        codes = np.array([index.get(v, -1) for v in y_arr.tolist()], dtype=np.int64)
        if (codes < 0).any():
            unknown = y_arr[codes < 0][:5].tolist()
            raise ValueError(f"y holds labels the model was not fitted on ({unknown}): pass "
                             "the labels of the rows it was fitted on")
        if getattr(model, "class_weight", None) is not None:
            return
        target = codes
    else:
        target = y_arr.astype(np.float64)
    weightings = [np.ones(counts.shape[1])]
    if sample_weight is not None:
        weightings.append(np.asarray(sample_weight, dtype=np.float64).ravel())
    members = member_list(model.estimators_)
    for t, member in enumerate(members[:counts.shape[0]]):
        tree = getattr(member, "tree_", None)
        if tree is None or getattr(member, "class_weight", None) is not None:
            continue
        found = [_root_of(counts[t] * sw, target, classes, member) for sw in weightings]
        root = _tree_root(tree, classes)
        if not any(_same_root(root, f) for f in found):
            what = (f"class shares {root}, the in-bag rows of y {found[0]}" if classes is not None
                    else f"mean target and weight {root}, the in-bag rows of y {found[0]}")
            raise ValueError(
                f"estimators_[{t}]: its root's {what}; y is not the training "
                f"{'labels' if classes is not None else 'targets'} of the rows "
                "estimators_samples_ indexes: pass the rows the model was fitted on, in the "
                "order of the fit (and the sample_weight it was fitted with)")


def _root_of(w: np.ndarray, target: np.ndarray, classes: Any, member: Any) -> list[float]:
    """What a tree root holds for in-bag weights ``w``: the class shares in the member's
    class order (its ``classes_`` are codes into the model's), or the mean target and the
    total weight."""
    total = float(w.sum())
    if classes is not None:
        own = np.asarray(member.classes_).astype(np.int64)
        found = np.bincount(target, weights=w, minlength=len(classes))[own]
        return (found / total).tolist() if total > 0 else found.tolist()
    return [float(w @ target / total) if total > 0 else np.nan, total]


def _tree_root(tree: Any, classes: Any) -> list[float]:
    root = np.asarray(tree.value[0, 0], dtype=np.float64)
    if classes is not None:
        return (root / root.sum()).tolist() if root.sum() > 0 else root.tolist()
    return [float(root[0]), float(tree.weighted_n_node_samples[0])]


def _same_root(a: list[float], b: list[float]) -> bool:
    """Equal to rounding: scikit-learn sums the root in its own order (float32 inputs for
    regression trees' thresholds do not touch the targets)."""
    return len(a) == len(b) and bool(np.allclose(a, b, rtol=1e-9, atol=1e-12))


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
        (``RandomForestRegressor``, ``BaggedTreesRegressor``, bagged ``VRTreesRegressor``:
        :func:`regression_in_bag_counts`, any ``random_state``); a classifier fitted with an
        integer ``random_state``.
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
    if forest.value.size:  # a regression forest, its draws replayed from its trees' seeds
        counts = regression_in_bag_counts(ensemble, y, sample_weight)
        sw = check_sample_weight(sample_weight, counts.shape[1])
        return counts if sw is None else counts * np.asarray(sw, dtype=np.float64)
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


def regression_in_bag_counts(regressor: Any, y: Any, sample_weight: Any = None) -> np.ndarray:
    """How often each tree of a fitted treelab regressor drew each training row, (tree, sample).

    A bagged treelab regressor keeps each tree's seed (``forest_.seed``); tree t's bootstrap
    multiplicities are the first draws of its generator (n draws of a row uniformly among n,
    the engine's ``draw_construction``), replayed here. The replay is checked against the
    fitted forest: each tree's root holds sum_i w_ti rows (with multiplicity, the rows of
    positive weight) and predicts sum_i w_ti s_i y_i / sum_i w_ti s_i (s the sample weights);
    a mismatch (``y`` is not the training targets, or the draws cannot be replayed) is a
    ``ValueError``, never a silently wrong mask.

    Parameters
    ----------
    regressor : fitted treelab regressor with bootstrap rows
        ``BaggedTreesRegressor``, ``RandomForestRegressor(bootstrap=True)`` or a VR-Trees
        family regressor with ``sampling="bootstrap"`` (or ``"bootstrap+subspace"``).
    y : array-like, (sample,)
        The training targets it was fitted on, in the same order.
    sample_weight : array-like, (sample,), optional
        The sample weights it was fitted with (a row of weight 0 is out of every bag).

    Returns
    -------
    numpy.ndarray, (tree, sample)
        int32 bootstrap counts; 0 where a row of weight 0 was drawn (it is left out).

    Examples
    --------
    >>> from sklearn.datasets import make_friedman1
    >>> from treelab import RandomForestRegressor
    >>> from treelab.analysis.oob import regression_in_bag_counts
    >>> X, y = make_friedman1(60, random_state=0)
    >>> rf = RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y)
    >>> bag = regression_in_bag_counts(rf, y)
    >>> bag.shape, [int(c) for c in bag.sum(axis=1)]
    ((3, 60), [60, 60, 60])
    """
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._rng import new_state

    forest = getattr(regressor, "forest_", None)
    if forest is None or not hasattr(regressor, "member_predict") \
            or hasattr(regressor, "classes_"):
        raise TypeError("regressor must be a fitted treelab regressor (with forest_)")
    spec = regressor._spec(int(getattr(regressor, "n_features_in_", 1)))
    if spec.rows != "bootstrap":
        raise ValueError(
            "out-of-bag estimates need a bagged regressor (every tree grown on a bootstrap "
            f"sample); {type(regressor).__name__} grows its trees on {spec.rows!r} rows")
    y_arr = np.asarray(y.values if isinstance(y, xr.DataArray) else y, dtype=np.float64)
    if y_arr.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y_arr.shape}")
    n, T = y_arr.size, forest.n_trees
    sw = check_sample_weight(sample_weight, n)
    sw = np.ones(n) if sw is None else np.asarray(sw, dtype=np.float64)
    part = np.zeros(n, dtype=np.int32)
    counts = np.empty((T, n), dtype=np.int32)
    for t in range(T):
        w, _ = G.draw_construction(n, 1, G.ROWS_BOOTSTRAP, part, t, 0,
                                   new_state(np.uint64(forest.seed[t])))
        w = np.where(sw > 0, w, 0).astype(np.int32)
        root = forest.node_offsets[t]
        size = int(np.asarray(forest.counts[root]).sum())
        ww = w * sw
        mean = float(ww @ y_arr / ww.sum()) if ww.sum() > 0 else np.nan
        value = float(forest.value[root])
        if size != int(w.sum()) or not (ww.sum() <= 0 or np.isclose(
                value, mean, rtol=1e-9, atol=1e-12 * max(1.0, float(np.abs(y_arr).max())))):
            raise ValueError(
                f"tree {t}: its root holds {size} rows predicting {value!r}, not the "
                f"{int(w.sum())} in-bag rows of y (mean {mean!r}); pass the training targets "
                "the regressor was fitted with (and the sample_weight, if it was fitted with "
                "weights)")
        counts[t] = w
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
    (:func:`sklearn_in_bag`); one whose every member saw every row (``bootstrap=False``, the
    default of ``ExtraTreesClassifier``) is refused, as a treelab ensemble without bootstrap
    is.

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

        bag = sklearn_in_bag(ensemble, y_arr.shape[0], y=y_arr, sample_weight=sample_weight)
        m = resolve(ensemble, X, y=y_arr, need_ensemble=False)
        return strength_correlation(m.classes[m.labels], y_arr, classes=m.classes, in_bag=bag)
    bag = in_bag_counts(ensemble, y, sample_weight)
    if bag.dtype.kind == "f":
        bag = bag > 0  # weighted counts: in the bag or not
    labels = ensemble.member_predict(X)
    return strength_correlation(labels, y_arr, classes=ensemble.classes_, in_bag=bag)
