"""The regressors' shared estimator (``TreeEnsembleRegressor``): validate, encode, draw
seeds, grow regression trees (``engine.regression``) and predict the members' mean; the
presets are in :mod:`treelab.estimators.regression`."""

from __future__ import annotations

import numbers

import numpy as np
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from treelab.engine.features import prepare_features
from treelab.engine.kernels import _grow as G
from treelab.engine.regression import grow_regression_forest, member_values
from treelab.estimators._base import MAX_BINS, TreeEnsembleClassifier
from treelab.estimators._docstrings import MAX_BINS_DOC
from treelab.estimators._encode import encode_features
from treelab.estimators._spec import (
    RANDOM_SPLITS,
    TreeSpec,
    may_presort,
    reads_values,
    spec_iparams,
)
from treelab.estimators._validation import (
    check_bool,
    check_constructor_arguments,
    check_int,
    check_tree_params,
)
from treelab.estimators._weights import check_sample_weight, forget_unweighted_categories

REGRESSION_CRITERIA = ("squared_error", "poisson")
# every random split law, PERT's read with two rows of different targets for two of different
# classes (engine.kernels._select.random_select)
REGRESSION_RANDOM_SPLITS = tuple(RANDOM_SPLITS)

SHARED_DOC = """
    criterion : {"squared_error", "poisson"}
        Deterministic split criterion: the largest reduction of the weighted squared error
        sum w (y - mean)^2 (CART's variance reduction, Breiman et al. 1984), or of the half
        Poisson deviance sum w (y log(y / mean) - y + mean) (counts: y >= 0, sum(y) > 0; a
        child whose mean would be 0 is not split off), both as scikit-learn's
        ``DecisionTreeRegressor``. Poisson's mean 0 is scikit-learn's test, a child's summed
        w y at most 2.2e-16 (machine epsilon), read with the weights scaled by a power of
        two to a largest weight in [1, 2), so that the unit of the weights changes no tree.
    min_samples_split : int
        A node with fewer training rows (counted with their bootstrap multiplicity) becomes a
        leaf.
    min_samples_leaf : int
        Smallest number of rows (with multiplicity) in a child.
    max_depth : int or None
        Depth limit (root = 0).
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
    n_jobs : int or None
        Threads for growing trees and for prediction (None = 1, -1 = all cores).

    Notes
    -----
    Nominal features (a DataFrame's ``category``, ``bool``, ``object`` and ``string``
    columns) are split multiway, one child per value, as the classifiers split them; a value
    absent from a node's rows leads to a child that predicts the node's mean. Missing values
    (NaN) are grown as scikit-learn's trees grow them: a deterministic threshold sends the
    node's missing rows to the side of the better split (right on a tie), or splits them off
    from the others; a random node sends them to its larger child. At prediction a missing
    value, or a category not seen in training, follows the child the node's missing rows
    went to (where it had none, its child of most training rows, not of most weight; the
    first of equally large ones: a threshold's left child, where scikit-learn takes the
    right one). Infinite values are refused. Sample weights are any non-negative finite
    numbers (rows of weight 0 are left out).
"""


def _fill_doc(cls):
    doc = cls.__doc__.replace("    %(max_bins)s\n", MAX_BINS_DOC.lstrip("\n").replace(
        "class histograms", "target sums"))
    cls.__doc__ = doc.replace("    %(shared)s\n", SHARED_DOC.lstrip("\n"))
    return cls


class TreeEnsembleRegressor(RegressorMixin, BaseEstimator):
    """Base class of treelab's regression learners (not used directly).

    Subclasses declare their parameters and ``_spec(n_features)`` (a ``TreeSpec``). Fitted
    attributes: ``n_features_in_``, ``feature_names_in_`` (DataFrames), ``forest_`` (a
    ``Forest`` whose ``value`` holds each node's weighted mean target).
    """

    # read by the shared feature encoding: nominal columns are a DataFrame's categorical,
    # boolean and text columns
    categorical_features = None

    def __new__(cls, *args, **kwargs):
        if args or kwargs:
            check_constructor_arguments(cls, args, kwargs)
        return super().__new__(cls)

    def _spec(self, n_features: int) -> TreeSpec:  # pragma: no cover - abstract
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # missing values are grown (infinity is refused)
        return tags

    # the classifiers' per-tree statistics read only the node arrays every forest has
    tree_stats = TreeEnsembleClassifier.tree_stats
    _tree_stat_vars = TreeEnsembleClassifier._tree_stat_vars

    def _check_params(self) -> None:
        p = self.get_params(deep=False)
        check_tree_params(p, REGRESSION_CRITERIA, REGRESSION_RANDOM_SPLITS)
        if "bootstrap" in p:
            check_bool("bootstrap", p["bootstrap"])
        if "max_bins" in p:
            check_int("max_bins", p["max_bins"], 2, MAX_BINS, allow_none=True)
        n_jobs = p.get("n_jobs")
        if n_jobs is not None:
            check_int("n_jobs", n_jobs)
            if n_jobs == 0:
                raise ValueError("n_jobs must be a non-zero integer or None, got 0")
        rs = p.get("random_state")
        if rs is not None and not isinstance(rs, numbers.Integral | np.random.RandomState):
            raise TypeError(
                f"random_state must be None, an int or a numpy RandomState, got {rs!r}")
        if isinstance(rs, numbers.Integral) and not 0 <= rs < 2**32:
            raise ValueError(f"random_state must be in [0, 2**32), got {rs}")

    def _n_threads(self) -> int:
        return max(1, int(effective_n_jobs(getattr(self, "n_jobs", None))))

    def _encode(self, X, fit: bool) -> np.ndarray:
        """X validated and encoded as the classifiers' (nominal columns to codes, missing
        values NaN; infinite values refused)."""
        return encode_features(self, X, fit=fit)

    def fit(self, X, y, sample_weight=None):
        """Grow the trees.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_samples, n_features)
            Training features; missing values as NaN, nominal features as a DataFrame's
            categorical, boolean or text columns.
        y : array-like of shape (n_samples,)
            Finite real targets (``criterion="poisson"``: non-negative, not all zero, nor all
            zero over the rows of positive weight).
        sample_weight : array-like of shape (n_samples,), real scalar or None
            Non-negative finite row weights (None: every row 1). A leaf predicts
            sum(w y) / sum(w) over its rows, w the sample weight times the bootstrap
            multiplicity; rows of weight 0 are left out of every tree.

        Returns
        -------
        self
        """
        self._check_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None")
        Xv = self._encode(X, fit=True)
        y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
        y = column_or_1d(y, warn=True)
        if y.shape[0] != Xv.shape[0]:
            raise ValueError(
                f"X and y have different numbers of rows: {Xv.shape[0]} and {y.shape[0]}")
        if self.criterion == "poisson":
            if np.any(y < 0):
                raise ValueError("y must be non-negative for criterion='poisson' (counts), "
                                 f"got a minimum of {y.min()}")
            if not np.sum(y) > 0:
                raise ValueError("y sums to 0: criterion='poisson' needs a positive mean")
        sw = check_sample_weight(sample_weight, Xv.shape[0])
        if self.criterion == "poisson" and sw is not None and not np.sum(sw[y > 0]) > 0:
            # the fit without the rows of weight 0 (which it is) would be refused above
            raise ValueError("y sums to 0 over the rows of positive sample_weight: "
                             "criterion='poisson' needs a positive mean")
        if sw is not None:
            # a category held only by rows of weight 0 is unseen, as in the fit without them
            Xv = forget_unweighted_categories(self, Xv, sw > 0)
        self._fit_encoded(Xv, y, np.ones(Xv.shape[0]) if sw is None else sw)
        return self

    def _fit_encoded(self, Xv: np.ndarray, y: np.ndarray, sw: np.ndarray) -> None:
        n, d = Xv.shape
        spec = self._spec(d)
        iparams, n_sub = spec_iparams(spec, d)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=spec.n_trees).astype(np.uint64)
        part = np.zeros(n, dtype=np.int32)
        row_mode = G.ROWS_ALL
        if spec.rows == "bootstrap":
            row_mode = G.ROWS_BOOTSTRAP
        elif spec.rows == "disjoint":
            counted = sw > 0
            n_counted = int(np.count_nonzero(counted))
            if spec.n_trees > n_counted:
                of = "rows" if n_counted == n else "rows of positive weight"
                raise ValueError(f"n_estimators ({spec.n_trees}) must not exceed the number of "
                                 f"{of} (n_samples = {n_counted}) for disjoint samples")
            row_mode = G.ROWS_DISJOINT
            order = rng.permutation(n)
            if n_counted < n:
                # as the classifiers: rows of positive weight dealt first
                order = np.concatenate([order[counted[order]], order[~counted[order]]])
            part[order] = np.arange(n) % spec.n_trees
        ranks = bool(np.any(np.asarray(spec.alphas) > 0) and iparams[G.P_DET_THRESHOLD] == 0)
        feats = prepare_features(Xv, self.nominal_features_, self.arity_, ranks=ranks,
                                 n_threads=self._n_threads(), max_bins=spec.max_bins,
                                 order=may_presort(iparams, spec, self.nominal_features_, n_sub),
                                 values=reads_values(iparams, spec),
                                 # max_bins: quantiles of the rows of positive weight, so a row
                                 # of weight 0 moves no bin (the fit without it); node sizes
                                 # count rows, not weights, and so do the bins
                                 weights=(sw > 0).astype(np.float64))
        self.forest_ = grow_regression_forest(
            feats, y, sw, iparams, spec.alphas, seeds, row_mode, part, n_sub,
            self._n_threads(), poisson=self.criterion == "poisson")
        # a tree whose sample holds only rows of weight 0 has no rows: it answers the
        # weighted mean of every training row (its empty root's value)
        roots = self.forest_.node_offsets[:-1]
        self.forest_.value[roots[self.forest_.weight[roots] <= 0]] = np.sum(sw * y) / np.sum(sw)

    def _encode_predict(self, X) -> np.ndarray:
        check_is_fitted(self, "forest_")
        return self._encode(X, fit=False)

    def member_predict(self, X) -> np.ndarray:
        """Each tree's prediction, (tree, sample): the weighted mean target of the training
        rows in the leaf the row reaches."""
        Xv = self._encode_predict(X)
        return member_values(self.forest_, Xv, self._n_threads())

    def predict(self, X) -> np.ndarray:
        """The members' mean prediction, (sample,): (1/T) sum_t f_t(x)."""
        return self.member_predict(X).mean(axis=0)

    def score(self, X, y, sample_weight=None) -> float:
        """Coefficient of determination R^2 = 1 - SSE / SST of :meth:`predict` on ``X``
        (``sklearn.metrics.r2_score``, weighted by ``sample_weight``); 1 is a perfect fit, 0
        the constant prediction of y's mean, and it can be negative."""
        return super().score(X, y, sample_weight=sample_weight)

    def apply(self, X) -> np.ndarray:
        """Tree-local leaf index of every row in every tree, shape (n_samples, n_trees)."""
        from treelab.engine.kernels import _predict as P

        Xv = self._encode_predict(X)
        return P.apply_forest(Xv, *self.forest_.walk_arrays(Xv), self._n_threads())


class _RegressionEnsemble(TreeEnsembleRegressor):
    """Shared parameters and spec of the regression presets."""

    def _tree_spec(self, alphas, rows="all", subspace=None, max_features=None,
                   random_thresholds=False, max_depth=None):
        return TreeSpec(
            n_trees=len(alphas), alphas=np.asarray(alphas, dtype=np.float64), criterion="gini",
            c45=False, min_objs=1, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            max_depth=self.max_depth if max_depth is None else max_depth,
            max_features=max_features, random_thresholds=random_thresholds,
            random_split=getattr(self, "random_split", "pair_midpoint"), rows=rows,
            subspace_fraction=subspace, max_bins=getattr(self, "max_bins", None))
