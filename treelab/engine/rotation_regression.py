"""The driver of rotation regression forests: the rotation classifier's rotation of each
tree (``engine.rotation.tree_rotation``, one mechanism for both tasks) and the regression trees'
growth routine (``engine.regression.grow_regression_forest``) on the projected features.

A tree's oblique nodes ``x . W[k] <= t`` refer to rows of ``Forest.projections`` as the
classifier's do, so prediction (``engine.regression.member_values``) walks them unchanged.
"""

from __future__ import annotations

import numpy as np

from treelab.engine._resources import run_threads
from treelab.engine.forest import Forest
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._construction import draw_construction
from treelab.engine.kernels._rng import new_state
from treelab.engine.oblique import TreeArrays, concat_trees, tree_of_forest
from treelab.engine.regression import grow_regression_forest
from treelab.engine.rotation import as_oblique, rotation_features, tree_rotation

__all__ = ["grow_rotation_regression_forest", "grow_rotation_regression_tree"]


def grow_rotation_regression_tree(Z: np.ndarray, y: np.ndarray, sample_weight: np.ndarray,
                                  iparams: np.ndarray, alpha: float, seed: int, rotation: str,
                                  bootstrap: bool, group_size: int,
                                  max_bins: int | None = None,
                                  poisson: bool = False) -> tuple[TreeArrays, np.ndarray,
                                                                  np.ndarray]:
    """One rotation regression tree: its rows (all, or a bootstrap sample drawn as every
    bagged regressor draws it), the classifier's rotation (``tree_rotation``, without classes;
    rows weighted by multiplicity x ``sample_weight``), then a regression tree at ``alpha``
    (``engine.regression.grow_regression_forest``) on the projected features.
    Returns (tree, each node's weighted mean target, each node's summed weight)."""
    n = Z.shape[0]
    w = np.ones(n, dtype=np.int32)
    if bootstrap:
        # the draws of every bagged regressor (the growth kernel's first n draws from the
        # tree's seed), so the out-of-bag readers replay them (analysis.oob)
        w, _ = draw_construction(n, 1, G.ROWS_BOOTSTRAP, np.zeros(n, dtype=np.int32), 0, 0,
                                 new_state(np.uint64(seed)))
    rng = np.random.default_rng(seed)
    # the rotation reads weights relative to the largest (the same moments and draws): sums
    # of weights near the largest double stay finite
    top = float(sample_weight.max(initial=0.0))
    W = tree_rotation(rng, Z, w, rotation, group_size, None,
                      sample_weight / top if top > 0 else sample_weight)
    # the tree's node draws continue from the rotation's generator, not from the start of
    # the bootstrap's stream again
    node_seed = np.uint64(rng.integers(0, np.iinfo(np.int64).max))
    rows = np.flatnonzero(w).astype(np.int64)
    # (rows of sample weight 0 are absent rows: they move no bin)
    feats = rotation_features(Z, rows, W, max_bins,
                              (sample_weight[rows] > 0).astype(np.float64))
    fr = grow_regression_forest(feats, y[rows], sample_weight[rows], iparams,
                                np.array([alpha]), np.array([node_seed], dtype=np.uint64),
                                G.ROWS_WEIGHTS, np.ascontiguousarray(w[rows], dtype=np.int32),
                                0, 1, poisson)
    return as_oblique(tree_of_forest(fr), W), fr.value, fr.weight


def grow_rotation_regression_forest(Z: np.ndarray, y: np.ndarray, sample_weight: np.ndarray,
                                    iparams: np.ndarray, alphas: np.ndarray, seeds: np.ndarray,
                                    rotation: str, bootstrap: bool, group_size: int,
                                    n_threads: int, max_bins: int | None = None,
                                    poisson: bool = False) -> Forest:
    """Rotation regression trees, tree t from its own seed ``seeds[t]`` at ``alphas[t]``, on
    real features Z (the same forest bit for bit on any number of threads); the Forest's
    ``value`` and ``weight`` hold each node's weighted mean target and summed weight."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    sw = np.ascontiguousarray(sample_weight, dtype=np.float64)

    def one(t):
        return grow_rotation_regression_tree(Z, y, sw, iparams, float(alphas[t]),
                                             int(seeds[t]), rotation, bootstrap, group_size,
                                             max_bins, poisson)

    out = run_threads(one, range(len(seeds)), n_threads)
    forest = concat_trees([o[0] for o in out], alphas, seeds, Z.shape[1])
    return forest._replace(value=np.concatenate([o[1] for o in out]),
                           weight=np.concatenate([o[2] for o in out]))
