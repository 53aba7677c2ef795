"""Named learners: presets of tree spec, construction and combination (algorithms spec 2-3).

| class | base learner | construction | combination |
|---|---|---|---|
| DecisionTree | deterministic tree (C4.5 details on) | one tree, all rows | -- |
| VRTrees | VR-Tree (alpha) | aggregating / bagging / subspacing | probability averaging |
| Coalescence | VR-Trees, alpha_i = i alpha_max / N | aggregating | probability averaging |
| MaxDiverseEnsemble | VR-Tree, alpha = 0 | aggregating | probability averaging |
| RandomDecisionTrees | RD tree (uniform thresholds, depth <= d) | aggregating | averaging |
| RandomForest | RF tree (mtry features, gini) | bagging | averaging (RF+) or vote (RF) |
| BaggedTrees | deterministic tree | bagging | averaging (BT+) or vote (BT) |
| DisjointSampleTrees | deterministic tree | disjoint samples | probability averaging |
| ExtraTrees | Extra tree (mtry random thresholds) | aggregating | probability averaging |
"""

from __future__ import annotations

import numpy as np

from treelab.estimators._base import TreeEnsembleClassifier
from treelab.estimators._docstrings import fill_shared_doc, store_params
from treelab.estimators._spec import TreeSpec
from treelab.estimators.tree import C45Baseline, DecisionTree

__all__ = [
    "BaggedTrees", "Coalescence", "DecisionTree", "DisjointSampleTrees", "ExtraTrees",
    "MaxDiverseEnsemble", "RandomDecisionTrees", "RandomForest", "VRTrees",
]


def _vr_spec(est, alphas, rows="all", subspace=None):
    return TreeSpec(
        n_trees=len(alphas), alphas=np.asarray(alphas, dtype=np.float64),
        criterion=est.criterion, c45=est.c45, min_objs=est.min_objs,
        min_samples_split=est.min_samples_split, min_samples_leaf=est.min_samples_leaf,
        max_depth=est.max_depth, random_split=est.random_split, rows=rows,
        subspace_fraction=subspace, max_bins=getattr(est, "max_bins", None),
    )


class _VRFamily(C45Baseline, TreeEnsembleClassifier):
    """Shared __init__ of the variable-random family."""

    def __init__(self, *, n_estimators=100, criterion="gain_ratio", c45=True, min_objs=2,
                 min_samples_split=4, min_samples_leaf=1, max_depth=None,
                 random_split="pair_midpoint", curtail_min=2, laplace=False, combine="average",
                 categorical_features=None, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.c45 = c45
        self.min_objs = min_objs
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.random_split = random_split
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs


@fill_shared_doc
class VRTrees(_VRFamily):
    """Variable-random trees (Liu, Ting, Yu & Zhou 2008).

    Each node uses the deterministic test-selection with probability ``alpha`` and the random
    one otherwise: alpha = 1 grows C4.5-like trees, alpha = 0 complete-random trees.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    alpha : float in [0, 1]
        Probability that a node uses the deterministic test-selection. Known shortfall: with
        aggregating (``sampling="none"``) at alpha = 0.5 the deterministic nodes, the same in
        every tree, correlate the members; measured 4.9% on ``wine`` (1.1% at alpha = 0) and
        19.2% on ``sonar`` against 1.9% and 15.7% for scikit-learn's random forest (README,
        "Choosing alpha").
    sampling : {"none", "bootstrap", "subspace", "bootstrap+subspace"}
        Construction: aggregating (every tree sees all rows), bagging, random subspaces of
        round(subspace_fraction * d) features (at least one; Python's round, which takes a
        half to the even number: 2 of 5 features and 4 of 7 at the default 0.5), or both.
    subspace_fraction : float in (0, 1]
        gamma of the random subspace method.
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes: the midpoint of two rows' differing values (Liu et
        al.'s Algorithm 2 with a value drawn per row), of two distinct values drawn uniformly
        over the node's distinct values (the same algorithm with a value drawn per value),
        uniform between the node's minimum and maximum, or PERT's rule.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, alpha=0.5, sampling="none", subspace_fraction=0.5,
                 criterion="gain_ratio", c45=True, min_objs=2, min_samples_split=4,
                 min_samples_leaf=1, max_depth=None, random_split="pair_midpoint",
                 max_bins=None, curtail_min=2, laplace=False, combine="average",
                 categorical_features=None, random_state=None, n_jobs=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, c45=c45, min_objs=min_objs,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            max_depth=max_depth, random_split=random_split, curtail_min=curtail_min,
            laplace=laplace, combine=combine, categorical_features=categorical_features,
            random_state=random_state, n_jobs=n_jobs,
        )
        self.alpha = alpha
        self.sampling = sampling
        self.subspace_fraction = subspace_fraction
        self.max_bins = max_bins

    def _spec(self, n_features):
        rows = "bootstrap" if "bootstrap" in self.sampling else "all"
        sub = self.subspace_fraction if "subspace" in self.sampling else None
        return _vr_spec(self, np.full(self.n_estimators, float(self.alpha)), rows, sub)


@fill_shared_doc
class Coalescence(_VRFamily):
    """Coalescence of VR-Trees (Liu et al. 2008): tree i of N grows with alpha_i = i alpha_max / N.

    Parameters
    ----------
    n_estimators : int
        Number of trees N.
    alpha_max : float in [0, 1]
        Alphas are spread evenly over [0, alpha_max).
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes: the midpoint of two rows' differing values (Liu et
        al.'s Algorithm 2 with a value drawn per row), of two distinct values drawn uniformly
        over the node's distinct values (the same algorithm with a value drawn per value),
        uniform between the node's minimum and maximum, or PERT's rule.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, alpha_max=0.5, criterion="gain_ratio", c45=True,
                 min_objs=2, min_samples_split=4, min_samples_leaf=1, max_depth=None,
                 random_split="pair_midpoint", max_bins=None, curtail_min=2, laplace=False,
                 combine="average", categorical_features=None, random_state=None, n_jobs=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, c45=c45, min_objs=min_objs,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            max_depth=max_depth, random_split=random_split, curtail_min=curtail_min,
            laplace=laplace, combine=combine, categorical_features=categorical_features,
            random_state=random_state, n_jobs=n_jobs,
        )
        self.alpha_max = alpha_max
        self.max_bins = max_bins

    def _spec(self, n_features):
        N = self.n_estimators
        return _vr_spec(self, np.arange(N) * float(self.alpha_max) / N)


@fill_shared_doc
class MaxDiverseEnsemble(_VRFamily):
    """Max-Diverse Ensemble (Liu, Ting & Fan 2005): complete-random VR-Trees (alpha = 0).

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes: the midpoint of two rows' differing values (Liu et
        al.'s Algorithm 2 with a value drawn per row), of two distinct values drawn uniformly
        over the node's distinct values (the same algorithm with a value drawn per value),
        uniform between the node's minimum and maximum, or PERT's rule.
    %(shared)s
    """

    def _spec(self, n_features):
        return _vr_spec(self, np.zeros(self.n_estimators))


@fill_shared_doc
class RandomDecisionTrees(_VRFamily):
    """Random Decision Trees (Fan, Wang, Yu & Ma 2003): complete-random trees with uniform
    thresholds, depth limited to the number of features by default (``max_depth=None``).

    Parameters
    ----------
    n_estimators : int
        Number of trees (10-30 is typical).
    random_split : {"uniform", "pair_midpoint", "pair_distinct", "pert"}
        Threshold rule of random nodes.
    %(shared)s
    """

    def __init__(self, *, n_estimators=30, criterion="entropy", c45=False, min_objs=1,
                 min_samples_split=2, min_samples_leaf=1, max_depth=None, random_split="uniform",
                 curtail_min=1, laplace=False, combine="average", categorical_features=None,
                 random_state=None, n_jobs=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, c45=c45, min_objs=min_objs,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            max_depth=max_depth, random_split=random_split, curtail_min=curtail_min,
            laplace=laplace, combine=combine, categorical_features=categorical_features,
            random_state=random_state, n_jobs=n_jobs,
        )

    def _spec(self, n_features):
        spec = _vr_spec(self, np.zeros(self.n_estimators))
        spec.max_depth = n_features if self.max_depth is None else self.max_depth
        return spec


class _DeterministicEnsemble(C45Baseline, TreeEnsembleClassifier):
    """Shared __init__ of ensembles of deterministic (possibly feature-sampling) trees."""

    def __init__(self, *, n_estimators=100, criterion="gini", max_features="sqrt", c45=False,
                 min_objs=1, min_samples_split=2, min_samples_leaf=1, max_depth=None,
                 curtail_min=1, laplace=False, combine="average", categorical_features=None,
                 random_state=None, n_jobs=None, class_weight=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_features = max_features
        self.c45 = c45
        self.min_objs = min_objs
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.class_weight = class_weight

    def _det_spec(self, rows, random_thresholds=False):
        return TreeSpec(
            n_trees=self.n_estimators, alphas=np.ones(self.n_estimators),
            criterion=self.criterion, c45=self.c45, min_objs=self.min_objs,
            min_samples_split=self.min_samples_split, min_samples_leaf=self.min_samples_leaf,
            max_depth=self.max_depth, max_features=getattr(self, "max_features", None),
            rows=rows, random_thresholds=random_thresholds,
            max_bins=getattr(self, "max_bins", None),
        )


@fill_shared_doc
class RandomForest(_DeterministicEnsemble):
    """Random forest (Breiman 2001): bagged trees choosing among ``max_features`` random
    features at every node, grown to purity. ``combine="average"`` is RF+, ``"vote"`` RF.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    max_features : int, float, "sqrt", "log2" or None
        mtry: candidate features per node (default floor(sqrt(d))).
    bootstrap : bool
        Bagging (True) or every tree on all rows.
    %(class_weight)s
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="gini", max_features="sqrt",
                 bootstrap=True, c45=False, min_objs=1, min_samples_split=2, min_samples_leaf=1,
                 max_depth=None, max_bins=None, curtail_min=1, laplace=False, combine="average",
                 categorical_features=None, random_state=None, n_jobs=None, class_weight=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, max_features=max_features, c45=c45,
            min_objs=min_objs, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, max_depth=max_depth, curtail_min=curtail_min,
            laplace=laplace, combine=combine, categorical_features=categorical_features,
            random_state=random_state, n_jobs=n_jobs, class_weight=class_weight,
        )
        self.bootstrap = bootstrap
        self.max_bins = max_bins

    def _spec(self, n_features):
        return self._det_spec("bootstrap" if self.bootstrap else "all")


@fill_shared_doc
class ExtraTrees(_DeterministicEnsemble):
    """Extremely randomised trees (Geurts, Ernst & Wehenkel 2006): at every node
    ``max_features`` features each draw one uniform threshold, and the best by the criterion is
    kept. Extra-Tree nodes are recorded as deterministic nodes (``forest_.random`` 0, counted
    in ``tree_stats().decision_nodes`` and its gain ties, so ``random_share`` is 0): the
    criterion chooses the test among the drawn candidates, as in the deterministic
    test-selection (algorithms spec 2.1), not a uniform draw of one test as in the random one
    (2.2); only the candidates' thresholds are random.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    max_features : int, float, "sqrt", "log2" or None
        Features drawn per node.
    %(class_weight)s
    %(shared)s
    """

    def _spec(self, n_features):
        return self._det_spec("all", random_thresholds=True)


@fill_shared_doc
class BaggedTrees(_DeterministicEnsemble):
    """Bagging (Breiman 1996) of deterministic unpruned trees (BT+ with ``combine="average"``,
    BT with ``"vote"``); tree defaults as ``DecisionTree``.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="gain_ratio", c45=True, min_objs=2,
                 min_samples_split=4, min_samples_leaf=1, max_depth=None, max_bins=None,
                 curtail_min=2, laplace=False, combine="average", categorical_features=None,
                 random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._det_spec("bootstrap")


@fill_shared_doc
class DisjointSampleTrees(_DeterministicEnsemble):
    """Disjoint-sample trees (DST, Fan et al. 2005): the rows are split at random into
    ``n_estimators`` disjoint parts of equal size, one deterministic tree per part. Where
    ``n_estimators`` does not divide the rows the parts differ by one row (103 rows in 10
    parts: 3 of 11, 7 of 10); with ``sample_weight`` the rows of positive weight are dealt
    first, so it is their numbers that differ by at most one.

    Parameters
    ----------
    n_estimators : int
        Number of trees (parts); at most the number of rows (of positive weight, with
        ``sample_weight``: those rows are dealt first, so every part holds one).
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=10, criterion="gain_ratio", c45=True, min_objs=2,
                 min_samples_split=4, min_samples_leaf=1, max_depth=None, max_bins=None,
                 curtail_min=2, laplace=False, combine="average", categorical_features=None,
                 random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._det_spec("disjoint")
