"""Shared parameter docs and the scikit-learn ``__init__`` storage helper of the axis-aligned
estimators."""

from __future__ import annotations

SHARED_DOC = """
    criterion : {"gain_ratio", "entropy", "gini", "parabola"}
        Deterministic split criterion ("parabola" is Gini up to a constant). "gain_ratio" is
        C4.5's (Quinlan 1993): the gain ratio is maximised among the tests whose
        gain is at least the average gain of the candidates, with ``c45`` True or False.
        Tests that tie for the best score go to the lowest feature index, then the lowest
        threshold, never to a draw; the ties are counted (``tree_stats()``'s gain ties).
    c45 : bool
        C4.5 details (algorithms spec 2.1): a test needs two branches of at least ``min_objs``
        rows, and continuous gains pay the MDL penalty log2(N - 1) / n under the entropy
        criteria (``"gain_ratio"``, ``"entropy"``); a Gini decrease is not in bits and pays
        none (``"gini"``, ``"parabola"``).
    min_objs : int
        C4.5's -m.
    min_samples_split : int
        n_min: a node with fewer training rows becomes a leaf (rows counted with their
        ``sample_weight``, as every size limit is).
    min_samples_leaf : int
        Smallest number of rows in a non-empty child.
    max_depth : int or None
        Depth limit (root = 0).
    curtail_min : int
        Curtailment at prediction: a leaf with fewer training rows answers with its deepest
        ancestor holding at least this many (0 or 1: only empty leaves borrow from the parent).
    laplace : bool
        Laplace estimate (n_c + 1) / (n + C) instead of the frequency n_c / n, in
        ``member_proba``, ``combine="average"`` and the vote tie-break of ``"vote"``;
        ``"sum"`` adds counts, ``"likelihood"`` and ``"bayesian"`` use Laplace estimates
        either way.
    combine : {"average", "vote", "sum", "likelihood", "bayesian"}
        Combination function (algorithms spec 4). ``"bayesian"`` weighs each tree by the
        evidence of the rows it was grown on: trees grown on the same rows (aggregating,
        stochastic ID3, as in Buntine 1990 and Ali & Pazzani 1995) are compared on the same
        data, but trees grown on different bootstrap samples or parts are weighed by the
        evidence of different data, p(D_t | T_t), which is not the posterior p(T | D) over one
        training set D (a tree grown on fewer rows tends to have the larger evidence).
    categorical_features : array-like of int, str or bool, or "from_dtype", optional
        Integer-coded nominal columns (indices, names or a boolean mask). A DataFrame's pandas
        category, bool, object and string columns are nominal without it (scikit-learn's
        ``"from_dtype"``, also accepted as the value): ``fit(data.X_frame, data.y)`` reads a
        loaded data set's nominal columns from their dtypes.
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
    n_jobs : int or None
        Threads for growing trees and for prediction (None = 1, -1 = all cores).
"""


MAX_BINS_DOC = """
    max_bins : int >= 2 or None, default None
        Binned split search. None: exact thresholds, the midpoints between consecutive
        distinct values at the node (what the paper reproductions use). An int: each
        continuous feature is cut once per fit into at most ``max_bins`` bins of about equal
        row counts (every distinct value its own bin when there are fewer), and deterministic
        nodes search only the bin edges, counting rows into per-node class histograms. Faster
        on many-valued features (``benchmarks/README.md``), but it can change every threshold
        and so every tree: a test x <= t can only fall on a bin edge. Random nodes are
        unaffected.
"""


CLASS_WEIGHT_DOC = """
    class_weight : "balanced", dict or None, default None
        Weights of the classes, multiplied into every row's ``sample_weight`` (as in
        scikit-learn's forests): ``"balanced"`` gives class c the weight n / (C n_c) (n_c its
        rows in y), a dict maps labels to non-negative weights (labels not named: 1). With
        bagging the weights are those of the whole training set (scikit-learn's
        ``"balanced_subsample"`` is not offered).
"""


def store_params(est, params: dict) -> None:
    """Store __init__ arguments unchanged (the scikit-learn contract)."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)


def fill_shared_doc(cls):
    doc = cls.__doc__.replace("    %(max_bins)s\n", MAX_BINS_DOC.lstrip("\n"))
    doc = doc.replace("    %(class_weight)s\n", CLASS_WEIGHT_DOC.lstrip("\n"))
    cls.__doc__ = doc.replace("    %(shared)s\n", SHARED_DOC.lstrip("\n"))
    return cls
