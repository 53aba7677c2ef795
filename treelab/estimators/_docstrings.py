"""Shared parameter docs and the scikit-learn ``__init__`` storage helper of the axis-aligned
estimators."""

from __future__ import annotations

SHARED_DOC = """
    criterion : {"gain_ratio", "entropy", "gini", "parabola"}
        Deterministic split criterion ("parabola" is Gini up to a constant).
    c45 : bool
        C4.5 details (algorithms spec 2.1): a test needs two branches of at least ``min_objs``
        rows, continuous gains pay the MDL penalty log2(N - 1) / n, and gain ratio is maximised
        among tests of at least average gain.
    min_objs : int
        C4.5's -m.
    min_samples_split : int
        n_min: a node with fewer training rows becomes a leaf.
    min_samples_leaf : int
        Smallest number of rows in a non-empty child.
    max_depth : int or None
        Depth limit (root = 0).
    curtail_min : int
        Curtailment at prediction: a leaf with fewer training rows answers with its deepest
        ancestor holding at least this many (0 or 1: only empty leaves borrow from the parent).
    laplace : bool
        Laplace estimate (n_c + 1) / (n + C) instead of the frequency n_c / n.
    combine : {"average", "vote", "sum", "likelihood", "bayesian"}
        Combination function (algorithms spec 4).
    categorical_features : array-like of int, str or bool, optional
        Integer-coded nominal columns (indices, names or a boolean mask); pandas category,
        bool and object columns are nominal without it.
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
    n_jobs : int or None
        Threads for growing trees and for prediction (None = 1, -1 = all cores).
"""


def store_params(est, params: dict) -> None:
    """Store __init__ arguments unchanged (the scikit-learn contract)."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)


def fill_shared_doc(cls):
    cls.__doc__ = cls.__doc__.replace("    %(shared)s\n", SHARED_DOC.lstrip("\n"))
    return cls
