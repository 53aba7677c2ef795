"""Axis-aligned learners of the founding papers that are modes or presets of the one engine.

| class | base learner | construction | combination |
|---|---|---|---|
| StochasticID3 | stochastic ID3 (Laplace entropy, choice set within beta) | aggregating | vote |
| PERT | perfect random tree (pert split rule, grown to purity) | bagging | averaging |

Oblique learners are in :mod:`treelab.estimators.oblique`, the rotation forest in
:mod:`treelab.estimators.rotation`; the single deterministic tree, pruned or not, is
:mod:`treelab.estimators.tree`.
"""

from __future__ import annotations

import warnings

import numpy as np

from treelab.engine.kernels import _grow as G
from treelab.engine.kernels._stochastic_modes import beta_to_bits, mode_bits
from treelab.estimators._base import TreeEnsembleClassifier
from treelab.estimators._spec import TreeSpec
from treelab.estimators._validation import check_int, check_option, check_real
from treelab.estimators.tree import C45Baseline

__all__ = ["PERT", "LookaheadCostWarning", "StochasticID3"]

#: T d^2 m above which fitting with lookahead warns: 11 trees on 2,000 rows x 20 features
#: (8.8e6) take about 20 s on one core, so the bound is a few minutes.
LOOKAHEAD_WORK_WARN = 1e8


class LookaheadCostWarning(RuntimeWarning):
    """Fitting stochastic ID3 with lookahead is estimated to take minutes or more."""


class StochasticID3(TreeEnsembleClassifier):
    """Stochastic ID3 trees (Ali & Pazzani 1995; algorithms spec 2.7).

    At every node each available feature offers one candidate test (a continuous feature its
    best threshold, a nominal feature its m-ary split), scored by the weighted entropy of its
    branches

    .. math:: E = \\sum_b \\frac{n_b}{n} \\Big(-\\sum_c p_{bc} \\log_2 p_{bc}\\Big),

    with p_bc = n_bc / n_b (``entropy_laplace="weights"``) or the Laplace-corrected
    (n_bc + 1) / (n_b + C) (``entropy_laplace="all"``). With ``lookahead=1`` a candidate is
    scored instead by the weighted entropy after the best further split of each of its
    children. The choice set is the candidates with E <= beta * E_min (``choice="entropy"``)
    or with information gain H(node) - E >= (best gain) / beta (``choice="gain"``; with no
    positive gain, the best candidate and its ties). One member of the set is drawn with
    probability proportional to 1 / E_L, E_L the Laplace-corrected entropy of the same test
    (the study's footnote gives the Laplace correction as the way to avoid a zero entropy in
    these weights). Trees grow until their nodes are pure (no pruning); every tree sees all
    rows (aggregating). The single-model baseline (``single_model()``) is the same learner
    with ``beta=1``: the best candidate, ties to the lowest feature index, with the ties
    recorded (``tree_stats().gain_ties``): ID3 with one-step lookahead and no pruning, the
    study's baseline.

    The study is ambiguous about the reading (its section 5.2 speaks of splits "whose gain is
    within some factor beta of the best"); the default (``choice="gain"``,
    ``entropy_laplace="all"``, ``lookahead=1``) is the reading that reproduced its Table 2
    best over all eight rows together (``benchmarks/reproduce_ali_pazzani.py``, 2 trials per
    row, promoters by leave-one-out on 30 rows; mean error ratio E_r over the rows where it
    is defined, mean distance of the one-tree error from the study's, rows where eleven trees
    err more than one):

    ==================  ========  =============  ===================
    choice, laplace     mean E_r  one tree gap   11 trees worse on
    ==================  ========  =============  ===================
    study               0.63      --             none
    gain, all           0.68      3.6 points     promoters (0 / 30)
    entropy, all        0.98      3.6 points     4 of 8 rows
    gain, weights       0.67      10.2 points    promoters, vote
    entropy, weights    0.57      10.2 points    vote
    ==================  ========  =============  ===================

    With plain entropies (``"weights"``) the lookahead score of many candidates is 0 on a
    small sample (every grandchild pure), so the single tree breaks ties by feature order and
    errs far more than the study's (mushroom 19.6% vs 1.6%); with the choice set on Laplace
    entropies (``choice="entropy"``, ``"all"``) nearly every candidate falls within beta of
    E_min where many attributes compete with few rows, and eleven trees err more than one
    (splice 37.9% vs 23.0%). Full table: ``docs/reproductions/stochastic_id3.md``.

    Rows missing a candidate's feature join its branch with the most non-missing rows.

    Parameters
    ----------
    n_estimators : int, default 11
        Number of trees (the source uses 11).
    beta : float >= 1, default 1.25
        Width of the choice set; 1 keeps only the best candidate (deterministic).
    lookahead : {0, 1}, default 1
        One-step lookahead in the score (see Notes for its cost; a ``LookaheadCostWarning``
        is given when the estimate is large). Only splits the tree could make are looked
        ahead to: a child that could not be split (pure, under ``min_samples_split`` rows, or
        at ``max_depth``) scores its own entropy, so a node whose children reach ``max_depth``
        scores as without lookahead (``max_depth=1``: no lookahead at all).
    choice : {"gain", "entropy"}, default "gain"
        The choice set: ``"gain"``, the candidates whose gain H(node) - E is at least the best
        gain / beta; ``"entropy"``, those with E <= beta E_min.
    entropy_laplace : {"all", "weights"}, default "all"
        Where the Laplace correction applies: ``"all"``, in every entropy (the algorithms
        spec's wording); ``"weights"``, only in the 1 / E draw weights (scores and the choice
        set use plain entropies).
    tie_break : {"first", "random"}, default "first"
        How a tree grown with ``beta=1`` (the single-model baseline) chooses among candidates
        whose score ties E_min exactly: the lowest feature index, or one drawn uniformly
        (seeded by ``random_state``). The study's single model "must arbitrarily choose from
        among the set of tied candidates" (its section 1); ``"first"`` makes the choice depend
        on the column order, which favours whatever the data put first (on treelab's LED
        generator the seven segments, ahead of the irrelevant bits: noise-free LED with 8 and
        17 random bits, 30 rows, one tree errs 7.0% and 8.3% with ``"first"``, 11.5% and 14.6%
        with ``"random"``, the study 23.7% and 31.4%; ``docs/reproductions/claims/
        alipazzani1995.md``). The reproduction of the study uses ``"random"``. With beta > 1
        ties are already drawn (with the other members of the choice set).
    min_samples_split : int, default 2
        A node with fewer training rows becomes a leaf.
    min_samples_leaf : int, default 1
        Smallest number of rows in a non-empty child.
    max_depth : int or None, default None
        Depth limit (root = 0).
    max_bins : int >= 2 or None, default None
        Binned split search (see ``RandomForest``): a continuous feature's candidate threshold
        is a bin edge instead of a midpoint between its distinct values at the node. None
        (exact) is the study's reading.
    curtail_min : int, default 1
        Curtailment at prediction: a leaf with fewer training rows answers with its deepest
        ancestor holding at least this many (1: only empty leaves borrow from the parent).
    laplace : bool, default False
        Laplace leaf estimates.
    combine : {"vote", "average", "sum", "likelihood", "bayesian"}, default "vote"
        Combination function (the source compares all four of uniform voting, distribution
        summation, likelihood and Bayesian combination).
    categorical_features : array-like of int, str or bool, or "from_dtype", optional
        Integer-coded nominal columns (indices, names or a boolean mask). A DataFrame's pandas
        category, bool, object and string columns are nominal without it (scikit-learn's
        ``"from_dtype"``, also accepted as the value): ``fit(data.X_frame, data.y)`` reads a
        loaded data set's nominal columns from their dtypes.
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
    n_jobs : int or None
        Threads for growing trees and for prediction.

    Notes
    -----
    A node costs O(d m log m) for m rows and d features without lookahead, and O(d^2 m) more
    with it (every candidate's children are scored on every feature in one pass over the
    node's rows presorted per feature); e.g. 11 trees on 2,000 rows x 20 features take about
    1 s without and 20 s with lookahead on one core.

    References
    ----------
    Ali & Pazzani (1995), On the link between error correlation and error reduction in decision
    tree ensembles, UCI ICS TR 95-38. Quinlan (1986), Induction of decision trees.
    """

    def __init__(self, *, n_estimators=11, beta=1.25, lookahead=1, choice="gain",
                 entropy_laplace="all", tie_break="first", min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, max_bins=None, curtail_min=1,
                 laplace=False, combine="vote", categorical_features=None, random_state=None,
                 n_jobs=None):
        self.n_estimators = n_estimators
        self.beta = beta
        self.lookahead = lookahead
        self.choice = choice
        self.entropy_laplace = entropy_laplace
        self.tie_break = tie_break
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Grow the trees; warns (``LookaheadCostWarning``) before work that may take minutes.

        With ``lookahead=1`` the estimated work is n_estimators x d^2 x m (d features, m rows);
        above ``LOOKAHEAD_WORK_WARN`` (1e8) a warning gives the estimate and the remedy.
        ``sample_weight`` (non-negative whole numbers, or None) counts a row of weight k as k
        copies of it, as ``TreeEnsembleClassifier.fit`` describes; fractional weights are
        refused, because the Laplace-corrected entropies add one row to every class count.
        """
        shape = getattr(X, "shape", None)
        if shape is None:
            try:
                shape = np.shape(X)
            except (TypeError, ValueError):  # array-likes that refuse NumPy's protocol
                shape = ()
        if self.lookahead == 1 and len(shape) == 2 and isinstance(self.n_estimators, int):
            work = float(self.n_estimators) * shape[1] ** 2 * shape[0]
            if work > LOOKAHEAD_WORK_WARN:
                warnings.warn(
                    f"lookahead=1 on {shape[0]} rows x {shape[1]} features with "
                    f"{self.n_estimators} trees: estimated work n_estimators x d^2 x m = "
                    f"{work:.1e} (11 trees on 2,000 x 20, 8.8e6, take about 20 s on one core); "
                    "use lookahead=0 (work ~ d m log m per node) or fewer features",
                    LookaheadCostWarning, stacklevel=2)
        return super().fit(X, y, sample_weight=sample_weight)

    def _engine_weights(self, w, bootstrap):
        ew = super()._engine_weights(w, bootstrap)
        if ew is not None and ew.shift:
            raise ValueError(
                "StochasticID3 takes whole-number sample weights only (its Laplace-corrected "
                "entropies add one row to every class count, which fractional weights make "
                "ambiguous); got fractional sample_weight or class weights")
        return ew

    def _check_params(self) -> None:
        super()._check_params()
        check_real("beta", self.beta, 1.0, np.inf)
        check_int("lookahead", self.lookahead, 0, 1)
        check_option("choice", self.choice, ("entropy", "gain"))
        check_option("entropy_laplace", self.entropy_laplace, ("weights", "all"))
        check_option("tie_break", self.tie_break, ("first", "random"))

    def _spec(self, n_features):
        return TreeSpec(
            n_trees=self.n_estimators, alphas=np.ones(self.n_estimators), criterion="entropy",
            c45=False, min_objs=1, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
            max_bins=self.max_bins,
            extra_iparams={G.P_STOCHASTIC: 1 + mode_bits(self.lookahead, self.choice,
                                                          self.entropy_laplace,
                                                          self.tie_break),
                           G.P_BETA_BITS: beta_to_bits(float(self.beta))},
        )

    def single_model(self):
        """The single-model baseline: the same learner with beta = 1 and one tree, unfitted."""
        p = self.get_params(deep=False)
        p.update(n_estimators=1, beta=1.0)
        return StochasticID3(**p)


class PERT(C45Baseline, TreeEnsembleClassifier):
    """Perfect random tree ensembles (PERT, Cutler & Zhao 2001; algorithms spec 2.2).

    Complete-random trees grown to purity: at each node two rows of different classes are
    drawn, then a random feature on which they differ, and the threshold is uniform between
    their two values; after 10 failed attempts the node is a leaf. The engine's VR-Tree with
    alpha = 0 and ``random_split="pert"``. Each tree is grown on a bootstrap sample by default
    (``bootstrap=False`` grows every tree on all rows).

    Parameters
    ----------
    n_estimators : int
        Number of trees.
    bootstrap : bool, default True
        Bagging (True) or every tree on all rows.
    min_samples_split : int, default 2
        n_min: a node with fewer training rows becomes a leaf (2: grown to purity).
    min_samples_leaf : int, default 1
        Smallest number of rows in a non-empty child.
    max_depth : int or None
        Depth limit (root = 0).
    curtail_min : int, default 1
        Curtailment at prediction (1: only empty leaves borrow from the parent).
    laplace : bool
        Laplace estimate (n_c + 1) / (n + C) instead of the frequency n_c / n.
    combine : {"average", "vote", "sum", "likelihood", "bayesian"}
        Combination function (algorithms spec 4).
    categorical_features : array-like of int, str or bool, or "from_dtype", optional
        Integer-coded nominal columns (indices, names or a boolean mask). A DataFrame's pandas
        category, bool, object and string columns are nominal without it (scikit-learn's
        ``"from_dtype"``, also accepted as the value): ``fit(data.X_frame, data.y)`` reads a
        loaded data set's nominal columns from their dtypes.
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
    n_jobs : int or None
        Threads for growing trees and for prediction (None = 1, -1 = all cores).

    References
    ----------
    Cutler & Zhao (2001), PERT - Perfect random tree ensembles, Computing Science and
    Statistics 33.
    """

    def __init__(self, *, n_estimators=100, bootstrap=True, min_samples_split=2,
                 min_samples_leaf=1, max_depth=None, curtail_min=1, laplace=False,
                 combine="average", categorical_features=None, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.bootstrap = bootstrap
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _spec(self, n_features):
        return TreeSpec(
            n_trees=self.n_estimators, alphas=np.zeros(self.n_estimators), criterion="gini",
            c45=False, min_objs=1, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
            random_split="pert", rows="bootstrap" if self.bootstrap else "all",
        )
