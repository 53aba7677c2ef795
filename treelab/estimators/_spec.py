"""What a tree grows, resolved from an estimator's parameters: the tree spec and the growth
kernel's integer parameters (``engine.kernels._params``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._params import RS_PAIR_DISTINCT
from treelab.estimators._validation import resolve_max_features

CRITERIA = {"entropy": 0, "gain_ratio": 1, "gini": 2, "parabola": 2}
RANDOM_SPLITS = {"pair_midpoint": G.RS_PAIR, "uniform": G.RS_UNIFORM, "pert": G.RS_PERT,
                 "pair_distinct": RS_PAIR_DISTINCT}
_NO_DEPTH_LIMIT = np.iinfo(np.int32).max


@dataclass
class TreeSpec:
    """Resolved, validated description of what to grow (internal)."""

    n_trees: int
    alphas: np.ndarray
    criterion: str = "gain_ratio"
    c45: bool = True
    min_objs: int = 2
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    max_depth: int | None = None
    max_features: object = None
    random_thresholds: bool = False
    random_split: str = "pair_midpoint"
    rows: str = "all"  # all | bootstrap | disjoint
    subspace_fraction: float | None = None
    extra_iparams: dict | None = None  # growth-kernel slot -> value (e.g. stochastic ID3 mode)
    max_bins: int | None = None  # binned split search (engine.forest.bin_feature); None: exact


def spec_iparams(spec: TreeSpec, d: int) -> tuple[np.ndarray, int]:
    """The growth kernel's integer parameters for a tree spec over d features, and the
    subspace size (0: every feature visible)."""
    iparams = np.zeros(G.N_PARAMS, dtype=np.int64)
    iparams[G.P_CRITERION] = CRITERIA[spec.criterion]
    iparams[G.P_C45] = int(spec.c45)
    iparams[G.P_MIN_OBJS] = spec.min_objs
    iparams[G.P_MIN_SPLIT] = spec.min_samples_split
    iparams[G.P_MIN_LEAF] = spec.min_samples_leaf
    iparams[G.P_MAX_DEPTH] = _NO_DEPTH_LIMIT if spec.max_depth is None else spec.max_depth
    n_sub = 0
    n_visible = d
    if spec.subspace_fraction is not None:
        n_sub = min(d, max(1, int(round(spec.subspace_fraction * d))))
        n_visible = n_sub
    iparams[G.P_MAX_FEATURES] = min(resolve_max_features(spec.max_features, n_visible),
                                    n_visible)
    iparams[G.P_DET_THRESHOLD] = int(spec.random_thresholds)
    iparams[G.P_RANDOM_SPLIT] = RANDOM_SPLITS[spec.random_split]
    iparams[G.P_PRESORT] = 1
    iparams[G.P_LOCAL] = 1
    iparams[G.P_BINNED] = int(spec.max_bins is not None)
    for slot, value in (spec.extra_iparams or {}).items():
        iparams[slot] = value
    return iparams, n_sub


def may_presort(iparams: np.ndarray, spec: TreeSpec, nominal: np.ndarray, n_sub: int,
                n_rows: int | None = None) -> bool:
    """Whether any tree could keep presorted lists (``_grow.grow_tree``'s condition, loosened
    so it never says no where the kernel would say yes): only then are the global sort orders
    kept (n x d x 4 bytes). Without them the kernel sorts at each node: the same trees."""
    if iparams[G.P_PRESORT] == 2:
        return True
    if (iparams[G.P_PRESORT] == 0 or iparams[G.P_DET_THRESHOLD] != 0
            or iparams[G.P_STOCHASTIC] != 0 or not np.any(np.asarray(spec.alphas) >= 0.5)):
        return False
    # classification trees on ``n_rows`` rows list features with more distinct values than
    # half the rows too (``_presort.list_min_distinct``); regression trees pass no n_rows
    list_min = G.LIST_MIN_DISTINCT if n_rows is None else G.list_min_distinct.py_func(n_rows)
    if spec.max_bins is not None and spec.max_bins <= list_min:
        return False  # no feature has more distinct values (bins) than the lists' minimum
    d = nominal.shape[0]
    n_visible = n_sub if 0 < n_sub < d else d
    # fewest continuous features a tree can see: every nominal one among its visible features
    least_cont = max(1, n_visible - int(np.sum(nominal)))
    return bool(2 * iparams[G.P_MAX_FEATURES] >= least_cont)


def reads_values(iparams: np.ndarray, spec: TreeSpec) -> bool:
    """Whether growth reads feature values, not only ranks: random nodes (alpha < 1),
    Extra-Trees thresholds and stochastic ID3 do (nominal features too; ``prepare_features``
    adds those). Without it the feature-major copy of X (n x d x 8 bytes) is not made."""
    return bool(np.any(np.asarray(spec.alphas) < 1.0) or iparams[G.P_DET_THRESHOLD] != 0
                or iparams[G.P_STOCHASTIC] != 0)
