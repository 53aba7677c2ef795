"""The random subspace each tree of a fitted treelab ensemble was grown in (algorithms spec 1:
an ensemble's per-tree metadata includes its subspace membership)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["subspace_features"]


def subspace_features(ensemble: Any, y: Any = None, sample_weight: Any = None) -> np.ndarray:
    """Which features each tree could split on, (tree, feature) bool.

    Random subspaces (``sampling="subspace"`` or ``"bootstrap+subspace"``; Ho 1998, Liu et
    al. 2008's Subspacing) give tree t the features of a uniform draw of
    k = round(subspace_fraction * d) of the d features, made from the tree's seed
    (``forest_.seed``) before it is grown. The draws are replayed here with the engine's own
    generator (its ``draw_construction``) and checked: every feature a tree splits on must be
    among its k, else a ``ValueError``, never a silently wrong mask. An ensemble without
    subspaces gives every tree every feature.

    Parameters
    ----------
    ensemble : fitted treelab ensemble of axis-parallel trees
        A VR-Trees family classifier or regressor (``VRTrees``, ``Coalescence``,
        ``VRTreesRegressor``, ...) or another treelab ensemble with a tree spec.
    y : array-like, (sample,), optional
        The training labels (targets) it was fitted on, in the same order. Needed only where
        the trees are also bagged: each tree's generator draws its bootstrap rows, n of them,
        before its features, so the replay needs n, and the rows are checked as
        :func:`treelab.analysis.in_bag_counts` checks them.
    sample_weight : array-like, (sample,), optional
        The sample weights it was fitted with (with ``y``, for that check).

    Returns
    -------
    numpy.ndarray of bool, (tree, feature)
        True where the tree's subspace holds the feature; each row has k True values.

    Examples
    --------
    >>> import numpy as np
    >>> from treelab import VRTrees
    >>> from treelab.analysis import subspace_features
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.random((60, 5)), rng.integers(0, 2, 60)
    >>> vr = VRTrees(n_estimators=3, sampling="subspace", random_state=0).fit(X, y)
    >>> subspace_features(vr).sum(axis=1).tolist()  # round(0.5 * 5) = 2 (halves to even)
    [2, 2, 2]
    """
    from treelab.analysis.oob import in_bag_counts
    from treelab.engine.kernels import _grow as G
    from treelab.engine.kernels._rng import new_state
    from treelab.estimators._spec import spec_iparams

    forest = getattr(ensemble, "forest_", None)
    if forest is None or not hasattr(ensemble, "_spec") or forest.projections is not None \
            and np.size(forest.projections):
        raise TypeError("ensemble must be a fitted treelab ensemble of axis-parallel trees "
                        "(with forest_ and a tree spec)")
    d = int(ensemble.n_features_in_)
    spec = ensemble._spec(d)
    _, n_sub = spec_iparams(spec, d)
    T = forest.n_trees
    if not 0 < n_sub < d:
        return np.ones((T, d), dtype=bool)
    row_mode, n = G.ROWS_ALL, 1
    if spec.rows == "bootstrap":
        if y is None:
            raise ValueError(
                f"{type(ensemble).__name__} bags its trees: each tree's generator draws its "
                "bootstrap rows before its features, so pass y (and sample_weight, if it was "
                "fitted with weights), the training labels it was fitted on")
        n = in_bag_counts(ensemble, y, sample_weight).shape[1]  # checks the rows' draws
        row_mode = G.ROWS_BOOTSTRAP
    part = np.zeros(n, dtype=np.int32)
    masks = np.empty((T, d), dtype=bool)
    split = forest.n_children > 0
    for t in range(T):
        _, mask = G.draw_construction(n, d, row_mode, part, t, n_sub,
                                      new_state(np.uint64(forest.seed[t])))
        masks[t] = mask.astype(bool)
        nodes = slice(forest.node_offsets[t], forest.node_offsets[t + 1])
        used = np.unique(forest.feature[nodes][split[nodes]])
        outside = used[~masks[t][used]]
        if outside.size:
            raise ValueError(
                f"tree {t} splits on feature(s) {outside.tolist()} outside its replayed "
                f"subspace {np.flatnonzero(masks[t]).tolist()}: the draws cannot be replayed "
                "(pass the training labels the ensemble was fitted on)")
    return masks
