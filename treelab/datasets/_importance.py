"""Keep the attributes a random forest ranks most important (Liu et al. 2008, Table 5).

Breiman's (2001, section 10) variable importance: grow each tree on a bootstrap sample with a
random subset of sqrt(d) candidate attributes per node; on the tree's out-of-bag rows, the
importance of attribute j is the drop in accuracy when the values of j are permuted among
those rows, averaged over the trees,

    I_j = (1 / T) sum_t [acc_t(OOB_t) - acc_t(OOB_t with column j permuted)].

Only the rows given are used: in an experiment the runner passes the training fold, so the
ranking never sees a test row.

References
----------
Breiman, L. (2001). Random forests. *Machine Learning* 45, 5-32 (section 10).
Liu, F. T., Ting, K. M., Yu, Y. & Zhou, Z.-H. (2008). Spectrum of variable-random trees.
*JAIR* 32, 355-384 (section 5.4, Table 5).
"""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any

import numpy as np

from treelab.datasets._data import LabeledData
from treelab.datasets._validation import RandomState, check_int, check_random_state

__all__ = ["forest_importance", "keep_important"]


def _xy(data: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(data, LabeledData):
        return data.X, data.y
    X = np.asarray(data, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}")
    if y is None:
        raise ValueError("y is required when X is an array")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},); got {y.shape}")
    return X, y


def forest_importance(X: Any, y: Any = None, *, n_estimators: int = 100,
                      random_state: RandomState = None) -> np.ndarray:
    """Breiman's out-of-bag permutation importance of every attribute.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d) or LabeledData
        The rows to rank the attributes on (missing values as NaN are allowed).
    y : array-like of shape (n,), optional
        Labels; taken from ``X`` when it is a LabeledData.
    n_estimators : int, default 100
        Trees of the forest.
    random_state : int, numpy Generator or None, default None
        Seed of the bootstrap samples, the trees and the permutations.

    Returns
    -------
    numpy.ndarray of shape (d,)
        Mean drop in out-of-bag accuracy per attribute (0 for one no tree splits on).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.random((200, 4))
    >>> y = (X[:, 2] > 0.5).astype(int)
    >>> int(np.argmax(forest_importance(X, y, n_estimators=20, random_state=0)))
    2
    """
    from sklearn.tree import DecisionTreeClassifier

    X, y = _xy(X, y)
    n_estimators = check_int("n_estimators", n_estimators, minimum=1)
    rng = check_random_state(random_state)
    n, d = X.shape
    mtry = max(1, int(np.sqrt(d)))
    total = np.zeros(d)
    for _ in range(n_estimators):
        boot = rng.integers(0, n, n)
        oob = np.setdiff1d(np.arange(n), boot)
        seed = int(rng.integers(2**31 - 1))
        if oob.size == 0:
            continue
        tree = DecisionTreeClassifier(max_features=mtry, random_state=seed).fit(X[boot], y[boot])
        Xo, yo = X[oob], y[oob]
        base = np.mean(tree.predict(Xo) == yo)
        # permuting an attribute the tree never tests changes no prediction: its drop is 0
        for j in np.unique(tree.tree_.feature[tree.tree_.feature >= 0]):
            shuffled = Xo.copy()
            shuffled[:, j] = Xo[rng.permutation(oob.size), j]
            total[j] += base - np.mean(tree.predict(shuffled) == yo)
    return total / n_estimators


def keep_important(train: LabeledData, fraction: float, *, n_estimators: int = 100,
                   random_state: RandomState = None) -> np.ndarray:
    """The columns to keep: the ``ceil(fraction * d)`` most important by
    :func:`forest_importance` on ``train`` (ties to the earlier column), in their order.

    ``fraction = 0.5`` removes the less-important half, as Liu et al. (2008) did for Table 5
    (an odd count keeps the middle attribute); ``fraction = 1`` keeps every column and grows
    no forest.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.random((200, 4))
    >>> data = LabeledData(X=X, y=(X[:, 0] + X[:, 3] > 1).astype(int),
    ...                    feature_types=("continuous",) * 4)
    >>> keep_important(data, 0.5, n_estimators=30, random_state=0).tolist()
    [0, 3]
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) \
            or not 0 < float(fraction) <= 1:
        raise ValueError(f"fraction must be in (0, 1]; got {fraction!r}")
    d = train.n_features
    k = max(1, int(np.ceil(float(fraction) * d - 1e-9)))
    if k >= d:
        return np.arange(d)
    imp = forest_importance(train, n_estimators=n_estimators, random_state=random_state)
    order = np.lexsort((np.arange(d), -imp))  # descending importance, ties by column
    return np.sort(order[:k])


def take_columns(data: LabeledData, cols: np.ndarray) -> LabeledData:
    """``data`` with only the columns ``cols`` (schema and names follow)."""
    names = None if data.feature_names is None else tuple(data.feature_names[j] for j in cols)
    return replace(data, X=data.X[:, cols],
                   feature_types=tuple(data.feature_types[j] for j in cols),
                   feature_names=names)
