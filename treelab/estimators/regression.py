"""Regression learners: the classifiers' presets grown as regression trees (scikit-learn
regressors, ``score`` = R^2).

| class | base learner | construction |
|---|---|---|
| RegressionTree | deterministic regression tree (CART, alpha = 1) | one tree, all rows |
| VRTreesRegressor | VR-Tree (alpha) | aggregating / bagging / subspacing |
| CoalescenceRegressor | VR-Trees, alpha_i = i alpha_max / N | aggregating |
| MaxDiverseRegressor | VR-Tree, alpha = 0 (complete-random) | aggregating |
| RandomDecisionTreesRegressor | RD tree (uniform thresholds, depth <= d) | aggregating |
| RandomForestRegressor | RF tree (max_features candidates) | bagging |
| ExtraTreesRegressor | Extra tree (max_features random thresholds) | aggregating |
| BaggedTreesRegressor | deterministic tree | bagging |
| DisjointSampleTreesRegressor | deterministic tree | disjoint samples |

Every member predicts the weighted mean target of the leaf a row reaches; the ensemble
predicts the members' mean. The trees are grown by the classifiers' growth routine,
``engine.kernels._grow.grow_tree``, in its regression version.
"""

from __future__ import annotations

import numpy as np

from treelab.estimators._docstrings import store_params
from treelab.estimators._regression_base import (  # noqa: F401 - read from here too
    REGRESSION_CRITERIA,
    REGRESSION_RANDOM_SPLITS,
    SHARED_DOC,
    TreeEnsembleRegressor,
    _fill_doc,
    _RegressionEnsemble,
)

__all__ = [
    "BaggedTreesRegressor", "CoalescenceRegressor", "DisjointSampleTreesRegressor",
    "ExtraTreesRegressor", "MaxDiverseRegressor", "RandomDecisionTreesRegressor",
    "RandomForestRegressor", "RegressionTree", "TreeEnsembleRegressor", "VRTreesRegressor",
]


@_fill_doc
class RegressionTree(_RegressionEnsemble):
    """One deterministic regression tree (CART's squared-error splits; alpha = 1).

    With ``max_features=None`` it grows scikit-learn's ``DecisionTreeRegressor`` up to the
    choice between equally good splits (tests/test_regression_trees.py).

    Parameters
    ----------
    max_features : int, float, "sqrt", "log2" or None
        Candidate features per node, drawn at random (None: all).
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, criterion="squared_error", max_features=None, min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_bins=None, random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.ones(1), max_features=self.max_features)


@_fill_doc
class VRTreesRegressor(_RegressionEnsemble):
    """Variable-random regression trees (Liu, Ting, Yu & Zhou 2008, for regression): each node
    uses the deterministic test-selection with probability ``alpha``, the random one otherwise.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    alpha : float in [0, 1]
        Probability that a node uses the deterministic test-selection.
    sampling : {"none", "bootstrap", "subspace", "bootstrap+subspace"}
        Construction: aggregating, bagging, random subspaces of round(subspace_fraction * d)
        features, or both.
    subspace_fraction : float in (0, 1]
        gamma of the random subspace method.
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes (as ``VRTrees``).
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, alpha=0.5, sampling="none", subspace_fraction=0.5,
                 criterion="squared_error", min_samples_split=2, min_samples_leaf=1,
                 max_depth=None, random_split="pair_midpoint", max_bins=None,
                 random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        rows = "bootstrap" if "bootstrap" in self.sampling else "all"
        sub = self.subspace_fraction if "subspace" in self.sampling else None
        return self._tree_spec(np.full(self.n_estimators, float(self.alpha)), rows, sub)


@_fill_doc
class CoalescenceRegressor(_RegressionEnsemble):
    """Coalescence of VR-Trees for regression: tree i of N grows with
    alpha_i = i alpha_max / N (Liu et al. 2008).

    Parameters
    ----------
    n_estimators : int
        Number of trees N.
    alpha_max : float in [0, 1]
        Alphas are spread evenly over [0, alpha_max).
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, alpha_max=0.5, criterion="squared_error",
                 min_samples_split=2, min_samples_leaf=1, max_depth=None,
                 random_split="pair_midpoint", max_bins=None, random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        N = self.n_estimators
        return self._tree_spec(np.arange(N) * float(self.alpha_max) / N)


@_fill_doc
class MaxDiverseRegressor(_RegressionEnsemble):
    """Max-Diverse Ensemble for regression (Liu, Ting & Fan 2005): complete-random trees
    (alpha = 0), each leaf the mean of its rows.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    random_split : {"pair_midpoint", "pair_distinct", "uniform", "pert"}
        Threshold rule of random nodes.
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="squared_error", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, random_split="pair_midpoint",
                 random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.zeros(self.n_estimators))


@_fill_doc
class RandomDecisionTreesRegressor(_RegressionEnsemble):
    """Random Decision Trees for regression (Fan, Wang, Yu & Ma 2003): complete-random trees
    with uniform thresholds, depth limited to the number of features by default.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    random_split : {"uniform", "pair_midpoint", "pair_distinct", "pert"}
        Threshold rule of random nodes.
    %(shared)s
    """

    def __init__(self, *, n_estimators=30, criterion="squared_error", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, random_split="uniform", random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.zeros(self.n_estimators), max_depth=(
            n_features if self.max_depth is None else self.max_depth))


@_fill_doc
class RandomForestRegressor(_RegressionEnsemble):
    """Random forest for regression (Breiman 2001): bagged trees choosing among
    ``max_features`` random features at every node, grown to purity.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    max_features : int, float, "sqrt", "log2" or None
        Candidate features per node (default 1.0: all, scikit-learn's default for
        regression; Breiman's choice for regression is 1/3).
    bootstrap : bool
        Bagging (True) or every tree on all rows.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="squared_error", max_features=1.0,
                 bootstrap=True, min_samples_split=2, min_samples_leaf=1, max_depth=None,
                 max_bins=None, random_state=None, n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.ones(self.n_estimators),
                               "bootstrap" if self.bootstrap else "all",
                               max_features=self.max_features)


@_fill_doc
class ExtraTreesRegressor(_RegressionEnsemble):
    """Extremely randomised trees for regression (Geurts, Ernst & Wehenkel 2006): at every
    node ``max_features`` features each draw one uniform threshold, and the best by the
    criterion is kept.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    max_features : int, float, "sqrt", "log2" or None
        Features drawn per node (default 1.0: all, as Geurts et al. and scikit-learn for
        regression).
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="squared_error", max_features=1.0,
                 min_samples_split=2, min_samples_leaf=1, max_depth=None, random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.ones(self.n_estimators), max_features=self.max_features,
                               random_thresholds=True)


@_fill_doc
class BaggedTreesRegressor(_RegressionEnsemble):
    """Bagging (Breiman 1996) of deterministic regression trees.

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=100, criterion="squared_error", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_bins=None, random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.ones(self.n_estimators), "bootstrap")


@_fill_doc
class DisjointSampleTreesRegressor(_RegressionEnsemble):
    """Disjoint-sample trees for regression (Fan et al. 2005): the rows are dealt at random
    into ``n_estimators`` disjoint parts of equal size, one deterministic tree per part. Where
    ``n_estimators`` does not divide the rows the parts differ by one row; with
    ``sample_weight`` the rows of positive weight are dealt first, so it is their numbers that
    differ by at most one.

    Parameters
    ----------
    n_estimators : int
        Number of trees (parts); at most the number of rows of positive weight.
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, n_estimators=10, criterion="squared_error", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_bins=None, random_state=None,
                 n_jobs=None):
        store_params(self, locals())

    def _spec(self, n_features):
        return self._tree_spec(np.ones(self.n_estimators), "disjoint")
