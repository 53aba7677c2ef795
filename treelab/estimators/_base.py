"""The shared estimator: validate, encode, draw seeds, call the engine, keep the flat arrays.

A learner is a tree spec (how a node chooses its test), a construction (which rows and features
each tree sees) and a combination (how member outputs become a prediction). Named ensembles are
presets of those three parts: subclasses only declare their parameters and ``_spec``.
"""

from __future__ import annotations

import functools
import numbers
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from treelab import _dims
from treelab.engine.features import prepare_features
from treelab.engine.forest import grow_forest
from treelab.engine.kernels import _grow as G
from treelab.engine.kernels import _predict as P
from treelab.estimators._encode import encode_features
from treelab.estimators._spec import (
    CRITERIA,
    RANDOM_SPLITS,
    TreeSpec,
    may_presort,
    reads_values,
    spec_iparams,
)
from treelab.estimators._tree_stats import tree_stat_vars
from treelab.estimators._validation import (
    check_bool,
    check_constructor_arguments,
    check_int,
    check_option,
    check_tree_params,
)
from treelab.estimators._weights import (
    EngineWeights,
    check_class_weight_param,
    check_sample_weight,
    engine_weights,
    forget_unweighted_categories,
    row_weights,
    unscale_counts,
    warn_empty_members,
    warn_small_weights,
    weighted_iparams,
)

if TYPE_CHECKING:
    import xarray as xr

COMBINE = ("average", "vote", "sum", "likelihood", "bayesian")
# bin codes are global ranks (int32), and more bins than this is the exact search in effect
MAX_BINS = 1 << 16


def check_label_types(y):
    """Refuse labels that are missing (None, NaN, pd.NA) or mix text with other types, before
    NumPy coerces a list such as ``[1, "a"]`` to strings or scikit-learn calls it an unknown
    type. Returns y, with pandas' nullable labels (``Int64``, ``boolean``, ``string``, ...) as
    the NumPy array of their values' type: ``Int64`` labels give integer ``classes_``, not the
    floats NumPy's conversion would make of them."""
    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, pd.api.extensions.ExtensionDtype) and not isinstance(
            dtype, pd.CategoricalDtype):
        if np.asarray(pd.isna(y)).any():
            raise ValueError("y contains missing values (pd.NA)")
        y = np.asarray(y, dtype=getattr(dtype, "numpy_dtype", None) or object)
        dtype = y.dtype
    if dtype is not None and dtype.kind != "O":
        return y
    if dtype is None and not isinstance(y, list | tuple):
        return y
    values = np.asarray(y, dtype=object).ravel()
    if any(v is None or (isinstance(v, float) and v != v) for v in values):
        raise ValueError("y contains missing values (None or NaN)")
    text = {isinstance(v, str) for v in values}
    if len(text) > 1:
        raise TypeError("y mixes strings with other types; give every label the same type")
    return y


@functools.cache
def _param_names(cls: type) -> tuple[str, ...]:
    """scikit-learn's ``BaseEstimator._get_param_names`` of ``cls`` (its constructor's
    parameter names, sorted), computed once per class."""
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class TreeEnsembleClassifier(ClassifierMixin, BaseEstimator):
    """Base class of every treelab tree learner (not used directly).

    Subclasses implement ``_spec(n_features)`` returning a ``TreeSpec``. Common fitted
    attributes: ``classes_``, ``n_classes_``, ``n_features_in_``, ``feature_names_in_`` (for
    DataFrames), ``nominal_features_``, ``categories_``, ``forest_`` (a ``Forest``).
    """

    def __new__(cls, *args, **kwargs):
        # presets without an __init__ of their own (MaxDiverseEnsemble, ExtraTrees) would let
        # Python name their private base class in the error: refuse here, naming the class
        if args or kwargs:
            check_constructor_arguments(cls, args, kwargs)
        return super().__new__(cls)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        # scikit-learn reads the constructor's signature again on every get_params, set_params
        # and clone (a cell of an experiment grid made about a dozen such calls): read once
        # per class
        return list(_param_names(cls))

    # -- subclass hooks -------------------------------------------------------------------
    def _spec(self, n_features: int) -> TreeSpec:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_params(self) -> None:
        """Validate the parameters every learner shares (names exist only if declared)."""
        p = self.get_params(deep=False)
        check_tree_params(p, CRITERIA, RANDOM_SPLITS)
        if "curtail_min" in p:
            check_int("curtail_min", p["curtail_min"], 0)
        if "laplace" in p:
            check_bool("laplace", p["laplace"])
        if "combine" in p:
            check_option("combine", p["combine"], COMBINE)
        if "c45" in p:
            check_bool("c45", p["c45"])
        if "min_objs" in p:
            check_int("min_objs", p["min_objs"], 1)
        if "bootstrap" in p:
            check_bool("bootstrap", p["bootstrap"])
        if "max_bins" in p:
            check_int("max_bins", p["max_bins"], 2, MAX_BINS, allow_none=True)
        if "class_weight" in p:
            check_class_weight_param(p["class_weight"])
        n_jobs = p.get("n_jobs")
        if n_jobs is not None:
            check_int("n_jobs", n_jobs)
            if n_jobs == 0:
                raise ValueError("n_jobs must be a non-zero integer or None, got 0")
        rs = p.get("random_state")
        if rs is not None and not isinstance(rs, numbers.Integral | np.random.RandomState):
            raise TypeError(
                f"random_state must be None, an int or a numpy RandomState, got {rs!r}"
            )
        if isinstance(rs, numbers.Integral) and not 0 <= rs < 2**32:
            raise ValueError(f"random_state must be in [0, 2**32), got {rs}")

    # -- fitting -------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Grow the trees on training data.

        Parameters
        ----------
        X : array-like or pandas.DataFrame of shape (n_samples, n_features)
            Training features. Missing values (NaN) are allowed; pandas ``category``,
            ``bool`` and ``object`` columns (and columns named by ``categorical_features``) are
            nominal.
        y : array-like of shape (n_samples,)
            Class labels: integers, strings, booleans or other discrete values (pandas
            ``category`` and nullable ``Int64``/``boolean``/``string`` labels included, the
            latter restored with their NumPy type), encoded internally and restored by
            ``predict``. scikit-learn's rule for floats applies: integral floats (0.0, 1.0)
            are class labels, any other float (0.5, 1.5) makes a continuous target and is
            refused (ValueError "Unknown label type: continuous"); map such values to labels
            first. Missing labels (None, NaN, pd.NA) are refused.
        sample_weight : array-like of shape (n_samples,), real scalar or None
            Non-negative finite row weights (None: every row 1), multiplied by ``class_weight``
            where the learner has it. A row of integer weight k counts as k copies of the row
            (0: as if absent), so class counts, node sizes, ``min_samples_split``,
            ``min_samples_leaf``, ``min_objs`` and ``curtail_min`` are summed weights; a
            bootstrap multiplicity multiplies the weight. Fractional weights are counted in
            units of 2**-k (see README, "Sample weights"). A nominal category whose rows all
            have weight 0 is unseen, as without those rows. A tree whose bootstrap sample
            holds only rows of weight 0 answers the uniform distribution 1/C in
            ``member_proba``, ``predict_proba`` and every measure (``EmptyMembersWarning``).

        Returns
        -------
        self
        """
        self._check_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        y = check_label_types(y)
        Xv = encode_features(self, X, fit=True)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != Xv.shape[0]:
            raise ValueError(
                f"X and y have different numbers of rows: {Xv.shape[0]} and {y.shape[0]}"
            )
        if not (y.dtype.kind in "iub" and y.ndim == 1 and y.size):
            # integers in one column are class labels to scikit-learn's type_of_target
            # ('binary' or 'multiclass'), whose scan took a twentieth of a small set's fit
            check_classification_targets(y)
        if y.dtype == object and any(v is None or v != v for v in y):
            raise ValueError("y contains missing values (None or NaN)")
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise ValueError("y contains NaN")
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        if self.n_classes_ < 2:
            raise ValueError(
                f"y has 1 class ({self.classes_[0]!r}); at least 2 classes are needed to grow "
                "a classifier"
            )
        sw = check_sample_weight(sample_weight, Xv.shape[0])
        w = row_weights(sw, getattr(self, "class_weight", None), self.classes_, y_codes)
        if w is not None and np.all(w == 1.0):
            w = None  # unit weights: the unweighted fit, bit for bit
        if w is not None:
            warn_small_weights(w, self.get_params(deep=False))
            Xv = forget_unweighted_categories(self, Xv, w > 0)
        self._fit_encoded(Xv, y_codes, w)
        if w is not None:
            warn_empty_members(self.forest_, self.n_classes_)
        return self

    def _engine_weights(self, w: np.ndarray | None, bootstrap: bool) -> EngineWeights | None:
        """The engine's multiplicities of row weights ``w`` (None: unweighted)."""
        return None if w is None else engine_weights(w, bootstrap)

    def _fit_encoded(self, Xv: np.ndarray, y_codes: np.ndarray,
                     weights: np.ndarray | None = None) -> None:
        """Grow ``forest_`` from encoded features, class codes and row weights (None: every
        row 1); learners with their own engine override this; ``fit`` has validated and
        encoded everything before."""
        spec = self._spec(Xv.shape[1])
        n, d = Xv.shape
        ew = self._engine_weights(weights, spec.rows == "bootstrap")
        iparams, n_sub = spec_iparams(spec, d)
        iparams = weighted_iparams(iparams, ew)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, np.iinfo(np.int32).max, size=spec.n_trees).astype(np.uint64)
        part = np.zeros(n, dtype=np.int32)
        row_mode = G.ROWS_ALL
        if spec.rows == "bootstrap":
            row_mode = G.ROWS_BOOTSTRAP
        elif spec.rows == "disjoint":
            counted = np.ones(n, dtype=bool) if ew is None else ew.units > 0
            n_counted = int(np.count_nonzero(counted))
            if spec.n_trees > n_counted:
                of = "rows" if n_counted == n else "rows of positive weight"
                raise ValueError(
                    f"n_estimators ({spec.n_trees}) must not exceed the number of {of} "
                    f"({n_counted}) for disjoint samples"
                )
            row_mode = G.ROWS_DISJOINT
            order = rng.permutation(n)
            if n_counted < n:
                # rows of positive weight dealt first, so every part holds at least one (a
                # zero weight is an absent row); the same parts when every weight is positive
                order = np.concatenate([order[counted[order]], order[~counted[order]]])
            part[order] = np.arange(n) % spec.n_trees
        # complete-random forests never read ranks (no deterministic node)
        ranks = bool(np.any(np.asarray(spec.alphas) > 0) or iparams[G.P_STOCHASTIC] > 0)
        feats = prepare_features(Xv, self.nominal_features_, self.arity_, ranks=ranks,
                                 n_threads=self._n_threads(), max_bins=spec.max_bins,
                                 order=may_presort(iparams, spec, self.nominal_features_, n_sub,
                                                   n_rows=Xv.shape[0]),
                                 values=reads_values(iparams, spec),
                                 weights=None if ew is None else ew.units)
        forest = grow_forest(
            feats, y_codes, self.n_classes_, iparams, spec.alphas, seeds, row_mode, part, n_sub,
            self._n_threads(), sample_weight=None if ew is None else ew.units,
        )
        self.forest_ = unscale_counts(forest, ew)

    def _n_threads(self) -> int:
        n_jobs = getattr(self, "n_jobs", None)
        return max(1, int(effective_n_jobs(n_jobs)))

    # -- prediction ----------------------------------------------------------------------
    def _encode_predict(self, X) -> np.ndarray:
        check_is_fitted(self, "forest_")
        return encode_features(self, X, fit=False)

    def _min_n(self) -> int:
        return max(int(getattr(self, "curtail_min", 1)), 1)

    def _with_threads(self, func, *args):
        """``func(*args, n)`` on the estimator's ``n`` threads (a prediction driver, which cuts
        the rows into one block a thread)."""
        return func(*args, self._n_threads())

    def _combination(self) -> str:
        return getattr(self, "combine", "average")

    def _combined(self, Xv):
        fr = self.forest_
        mode = {"average": P.MODE_AVERAGE, "vote": P.MODE_VOTE, "sum": P.MODE_SUM}
        min_n, laplace, how = self._min_n(), bool(getattr(self, "laplace", False)), \
            mode[self._combination()]
        answer, vote = fr.leaf_answers(min_n, laplace, how, Xv.shape[0] * fr.n_trees)
        acc, votes = self._with_threads(
            P.combine_forest, Xv, *fr.walk_arrays(Xv), fr.answering_nodes(min_n), fr.counts,
            laplace, how, answer, vote,
        )
        return acc, votes

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities under the estimator's combination function.

        ``average``: mean of the trees' leaf estimates (frequency or Laplace, with
        curtailment); ``vote``: share of tree votes; ``sum``: normalised sum of the answering
        leaves' class counts; ``likelihood`` / ``bayesian``: see ``treelab.combine``, on each
        row's leaf counts without curtailment (an empty leaf: its parent's counts).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        from treelab import combine

        Xv = self._encode_predict(X)
        how = self._combination()
        T = self.forest_.n_trees
        if how in ("likelihood", "bayesian"):
            counts = self._leaf_counts(Xv)
            return combine.combine_proba(how, counts, **self._combine_extras(how))
        acc, votes = self._combined(Xv)
        if how == "average":
            return acc / T
        if how == "vote":
            return votes / T
        # the summed counts normalised as combine.distribution_sum does (uniform 1/C where
        # every answering node is empty: trees grown only on rows of weight 0)
        return combine.distribution_sum(acc[None])

    def _combine_extras(self, how: str) -> dict:
        fr = self.forest_
        if how == "likelihood":
            return {"class_totals": fr.counts[fr.node_offsets[:-1]].astype(np.float64)}
        from treelab import combine

        leaves = fr.kind == 0
        log_ev = combine.tree_log_evidence(
            fr.counts[leaves].astype(np.float64), fr.tree_of_node()[leaves], fr.n_trees
        )
        return {"log_evidence": log_ev}

    def predict(self, X) -> np.ndarray:
        """Predicted class labels.

        ``vote``: most votes, then the larger summed probability (the trees' leaf estimates,
        Laplace-corrected with ``laplace``; sums within 1e-12 T of each other are tied, as
        rounding makes mathematically equal sums differ), then the lower class index, the rule
        of ``treelab.combine.vote_tiebreak`` that ``treelab.analysis.diagnose`` applies.
        ``likelihood``: the class of highest posterior odds (Ali & Pazzani 1995; the argmax of
        ``treelab.combine.likelihood_log_odds``, as the probabilities of classes with very
        large odds round to the same value). Otherwise the first class of highest
        ``predict_proba``, probabilities within 1e-12 of the highest counting as tied
        (``treelab.combine.highest_class``: rounding makes mathematically equal means
        differ in their last bit).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "forest_")
        if self._combination() == "vote":
            Xv = self._encode_predict(X)
            acc, votes = self._combined(Xv)
            from treelab.combine import vote_tiebreak

            return self.classes_[vote_tiebreak(votes, acc, self.forest_.n_trees)]
        if self._combination() == "likelihood":
            return self.classes_[np.argmax(self._likelihood_log_odds(X), axis=1)]
        from treelab.combine import highest_class

        return self.classes_[highest_class(self.predict_proba(X))]

    def _likelihood_log_odds(self, X) -> np.ndarray:
        """Posterior log odds of the likelihood combination, (sample, class)."""
        from treelab import combine

        counts = self._leaf_counts(self._encode_predict(X))
        return combine.likelihood_log_odds(counts, **self._combine_extras("likelihood"))

    def _leaf_counts(self, Xv: np.ndarray) -> np.ndarray:
        """Class counts of each row's leaf in each tree, (tree, sample, class), without
        curtailment, an empty leaf answering with its parent's counts (spec 1: a nominal value
        never seen at the node, an empty side): what the likelihood and Bayesian combinations
        read. Not ``answering_nodes(1)``, which would also lift a leaf of total weight below 1."""
        fr = self.forest_
        nc = fr.n_children.astype(np.int64)
        internal = np.flatnonzero(nc > 0)
        tot = fr.counts.sum(axis=1)
        if internal.size == 0 or not np.any((nc == 0) & (tot <= 0)):
            anchor = np.empty(0, dtype=np.int64)  # every leaf answers itself
        else:
            first = fr.node_offsets[fr.tree_of_node()[internal]] + fr.child_start[internal]
            k = nc[internal]
            children = np.repeat(first - np.cumsum(k) + k, k) + np.arange(k.sum())
            anchor = np.arange(nc.size, dtype=np.int64)
            empty = (nc[children] == 0) & (tot[children] <= 0)
            anchor[children[empty]] = np.repeat(internal, k)[empty]
        return self._with_threads(P.member_counts, Xv, *fr.walk_arrays(Xv), anchor, fr.counts,
                                  False)

    def apply(self, X) -> np.ndarray:
        """Tree-local leaf index of every row in every tree, shape (n_samples, n_trees)."""
        Xv = self._encode_predict(X)
        return self._with_threads(P.apply_forest, Xv, *self.forest_.walk_arrays(Xv))

    def member_counts(self, X, *, curtail: bool = True, _encoded: bool = False) -> np.ndarray:
        """Class counts of the node answering each row in each tree, (tree, sample, class).

        With ``curtail=True`` the answering node is the leaf, or its deepest ancestor holding
        at least ``curtail_min`` training rows (an empty leaf answers with its parent); with
        ``curtail=False`` it is always the leaf (possibly empty).
        """
        Xv = X if _encoded else self._encode_predict(X)
        fr = self.forest_
        return self._with_threads(
            P.member_counts, Xv, *fr.walk_arrays(Xv), fr.answering_nodes(self._min_n()),
            fr.counts, not curtail,
        )

    def _member_pass(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Each tree's vote (tree, sample) and the trees' summed class frequencies (sample,
        class) in one walk, without the (tree, sample, class) counts: what
        ``treelab.analysis.diagnose`` derives from ``member_counts(X)``, the same bits
        (``_predict.member_pass``). Without the Laplace correction only."""
        Xv = self._encode_predict(X)
        fr = self.forest_
        return self._with_threads(P.member_pass, Xv, *fr.walk_arrays(Xv),
                                  fr.answering_nodes(self._min_n()), fr.counts)

    def member_proba(self, X) -> np.ndarray:
        """Each tree's class probabilities, shape (tree, sample, class).

        A tree's answer is its answering node's class frequencies, c_k / sum(c) (with
        ``laplace``: (c_k + 1) / (sum(c) + C)). An empty answering node, such as the root
        of a tree whose bootstrap sample or part held only rows of weight 0, answers the
        uniform distribution 1/C, as ``predict_proba`` and every measure of
        ``treelab.analysis`` count it (README, "Sample weights").
        """
        check_is_fitted(self, "forest_")
        counts = self.member_counts(X)
        tot = counts.sum(axis=2, keepdims=True)
        if getattr(self, "laplace", False):
            return (counts + 1.0) / (tot + self.n_classes_)
        empty = tot <= 0
        if not empty.any():
            return counts / tot
        return np.where(empty, 1.0 / self.n_classes_, counts / np.where(empty, 1.0, tot))

    def member_predict(self, X) -> np.ndarray:
        """Each tree's predicted label (first class of highest probability), (tree, sample)."""
        check_is_fitted(self, "forest_")
        return self.classes_[np.argmax(self.member_proba(X), axis=2)]

    # -- statistics ----------------------------------------------------------------------
    def tree_stats(self) -> xr.Dataset:
        """Per-tree statistics as an ``xarray.Dataset`` with dim ``tree``.

        Variables: ``n_nodes``, ``n_leaves``, ``depth`` (of the deepest leaf), ``random_share``
        (share of decision nodes chosen by the random test-selection), ``gain_ties`` and
        ``gain_ties_test`` (analysis spec 5: per feature and per test), ``decision_nodes``
        (deterministic decision nodes), ``alpha`` and ``rows_seen``.
        """
        import xarray as xr  # only needed here; keeps `import treelab` light

        return xr.Dataset(self._tree_stat_vars(), coords={_dims.TREE: np.arange(
            self.forest_.n_trees)}, attrs={"estimator": type(self).__name__})

    def _tree_stat_vars(self) -> dict:
        """``tree_stats()``'s variables (name: ``(dims, values, attrs)`` over ``tree``), without
        the Dataset (``treelab.analysis.diagnose`` reads them directly)."""
        check_is_fitted(self, "forest_")
        return tree_stat_vars(self.forest_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
