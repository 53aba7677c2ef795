"""The driver of regression forests: per-tree seeds, trees grown on the fit's threads by the
classifiers' growth routine, ``kernels._grow.grow_tree``, in its regression version (argument
``regression``: float64 targets and sample weights, the Poisson criterion), joined into one
flat ``Forest``, and the members' predictions (each tree's leaf value per row) from the
classifiers' walk."""

from __future__ import annotations

import numpy as np

from treelab.engine._resources import run_threads
from treelab.engine.features import FeatureArrays
from treelab.engine.forest import THREADS_MIN_ROW_TREES, Forest
from treelab.engine.kernels import _predict as P
from treelab.engine.kernels._grow import grow_tree
from treelab.engine.kernels._nodes import NO_REFERENCE


def _power_of_two_shift(top: float, to_unit: bool = False) -> int:
    """k such that 2^k top lies in [2^-64, 2^64] (0 where it does already), or in [1, 2) with
    ``to_unit``; 0 for top = 0. Scaling by 2^k is exact, so sums and scores scale exactly."""
    if top <= 0.0 or (not to_unit and 2.0**-64 <= top <= 2.0**64):
        return 0
    exponent = int(np.frexp(top)[1])  # top = m 2^exponent, m in [0.5, 1)
    return 1 - exponent if to_unit else -exponent


def grow_regression_forest(feats: FeatureArrays, y: np.ndarray, sample_weight: np.ndarray,
                           iparams: np.ndarray, alphas: np.ndarray, seeds: np.ndarray,
                           row_mode: int, part: np.ndarray, n_sub: int, n_threads: int,
                           poisson: bool = False) -> Forest:
    """Grow ``len(seeds)`` regression trees and join them into one ``Forest``.

    Tree t grows from its own seed ``seeds[t]`` at ``alphas[t]``, so the forest is the same
    bit for bit on any number of threads. ``sample_weight``: n non-negative finite float64
    weights (ones for an unweighted fit). The forest's ``value`` holds each node's weighted
    mean target, ``weight`` its summed weight, ``counts`` (N, 1) its rows with multiplicity.
    """
    n = y.shape[0]
    y = np.ascontiguousarray(y, dtype=np.float64)
    sw = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if sw.shape != (n,):
        raise ValueError(f"sample_weight must hold {n} weights, got shape {sw.shape}")
    # the split scores square weighted sums (S^2 / W): weights far from 1 overflow them to
    # inf (a NaN leaf value, or any split scoring alike) or underflow them to 0. Scaling by
    # a power of two scales every sum and score exactly, so the trees are the given weights'
    # trees, bit for bit; the node weights are scaled back
    top = float(sw.max()) if n else 1.0
    # Poisson's mean-0 rule compares a child's S with eps (scikit-learn's guard against the
    # rounding of S - S_left): it reads weights scaled to a largest weight in [1, 2), so that
    # the unit of the weights changes no tree (uniform weights of 2^-60 left 9 of an
    # unweighted tree's 103 nodes); unweighted fits are unchanged
    shift = _power_of_two_shift(top, to_unit=poisson)
    if shift:
        sw = np.ldexp(sw, shift)
    # the targets scale the same way, exactly: S^2 / W overflows where |y| is beyond about 1e154 and
    # underflows below about 1e-162 (every split scoring alike: the tree took the first split
    # of each node), and the node values are scaled back. (The Poisson score S log(S / W) is
    # not scaled exactly, and its mean-0 rule, S <= eps, reads S itself.)
    y_shift = 0 if poisson else _power_of_two_shift(float(np.max(np.abs(y))) if n else 1.0)
    if y_shift:
        y = np.ldexp(y, y_shift)
    alphas = np.asarray(alphas, dtype=np.float64)
    if n * len(seeds) < THREADS_MIN_ROW_TREES:
        n_threads = 1

    # one "class": every row's code is 0, so a node's class count is its rows with
    # multiplicity; no x log2 x table (the classifiers' criteria: numba drops their
    # selection from this version), no reference tree, no stochastic selection, and the
    # regression search's own binned scan (binned=None)
    codes = np.zeros(n, dtype=np.int32)
    regression = (y, sw, bool(poisson))
    # the version with nominal splits only where some feature is nominal: numba drops them,
    # and the growth of the node tables, from the other (less to compile)
    multiway = True if np.any(feats.nominal) else None

    def one(t: int) -> tuple:
        return grow_tree(
            feats.Xc, feats.R, feats.order, feats.n_distinct, feats.uniq, feats.uniq_off,
            feats.nominal, codes, 1, iparams, float(alphas[t]), None, np.uint64(seeds[t]),
            row_mode, part, t, n_sub, *NO_REFERENCE, None, True, None, None, None,
            regression, multiway)

    trees = run_threads(one, range(len(seeds)), n_threads)
    sizes = np.array([tr[0].shape[0] for tr in trees], dtype=np.int64)
    offsets = np.zeros(len(seeds) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(sizes)

    def joined(i: int) -> np.ndarray:
        return np.concatenate([tr[i] for tr in trees]) if trees else np.zeros(0)

    return Forest(
        node_offsets=offsets, kind=joined(0), feature=joined(1), threshold=joined(2),
        child_start=joined(3), n_children=joined(4), nan_child=joined(5), random=joined(6),
        depth=joined(7), counts=joined(8), alpha=alphas,
        ties_feature=np.zeros(len(seeds), dtype=np.int64),
        ties_test=np.zeros(len(seeds), dtype=np.int64),
        n_decision=np.array([tr[11] for tr in trees], dtype=np.int64),
        rows_seen=np.array([tr[12] for tr in trees], dtype=np.int64),
        seed=np.asarray(seeds, dtype=np.uint64), value=np.ldexp(joined(13), -y_shift),
        weight=np.ldexp(joined(14), -shift),
    )


def member_values(forest: Forest, X: np.ndarray, n_threads: int = 1) -> np.ndarray:
    """Each tree's prediction for each row, (tree, sample): the value of the leaf the row
    reaches (``_predict.apply_forest``, the classifiers' walk)."""
    leaves = P.apply_forest(X, *forest.walk_arrays(X), n_threads)
    return forest.value[leaves + forest.node_offsets[:-1]].T
