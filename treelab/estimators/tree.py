"""The single deterministic tree (``DecisionTree``, pruned or not) and the C4.5 baseline that
ensembles compare with (analysis spec 1: the single model of the error ratio).

Every other estimator module imports this one, and this one imports none of them, so the
baseline has no import circle.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from treelab.estimators._base import TreeEnsembleClassifier
from treelab.estimators._docstrings import fill_shared_doc
from treelab.estimators._spec import TreeSpec
from treelab.estimators._validation import check_option, check_real
from treelab.estimators._weights import engine_weights

__all__ = ["C45Baseline", "DecisionTree"]

_BASELINE_PARAMS = ("criterion", "c45", "min_objs", "min_samples_split", "min_samples_leaf",
                    "max_depth", "max_bins", "curtail_min", "laplace", "categorical_features",
                    "random_state", "class_weight")


class C45Baseline:
    """Mixin of the families whose single model is a ``DecisionTree`` sharing their tree options."""

    def single_model(self):
        """The single deterministic model of this family (analysis spec 1), unfitted."""
        p = self.get_params(deep=False)
        return DecisionTree(**{k: p[k] for k in _BASELINE_PARAMS if k in p})


@fill_shared_doc
class DecisionTree(C45Baseline, TreeEnsembleClassifier):
    """A single deterministic C4.5/ID3/CART-style tree (a VR-Tree with alpha = 1).

    Defaults follow C4.5 as in the variable-random family: gain ratio with the C4.5 details,
    n_min = 4, no pruning, curtailment at 2. For a CART-like tree use ``criterion="gini",
    c45=False, min_samples_split=2, curtail_min=1``.

    Pruned single-tree baselines (algorithms spec 3): ``prune="reduced_error"`` holds out a
    stratified ``tuning_fraction`` of the rows (``tuning_mask_``), grows on the rest and turns
    subtrees into leaves bottom-up while the tuning accuracy does not drop (Quinlan 1987);
    ``prune="pessimistic"`` grows on every row and applies C4.5's error-based pruning at
    confidence 0.25 (Quinlan 1993; subtree replacement, no subtree raising). See
    :mod:`treelab.engine.pruning`.

    Parameters
    ----------
    max_features : int, float, "sqrt", "log2" or None
        Candidate features per node (None: all).
    prune : {None, "reduced_error", "pessimistic"}, default None
        Post-pruning of the grown tree.
    tuning_fraction : float in (0, 1), default 1/3
        Share of the rows of every class held out for reduced-error pruning: round(fraction
        * n_c) rows of class c, at most n_c - 1. A fit that would hold out no row (every
        class too small, or only rows of sample weight 0) is refused with a ValueError,
        since pruning on no tuning row would cut the tree to its root.
    %(class_weight)s
    %(max_bins)s
    %(shared)s
    """

    def __init__(self, *, criterion="gain_ratio", c45=True, min_objs=2, min_samples_split=4,
                 min_samples_leaf=1, max_depth=None, max_features=None, max_bins=None,
                 curtail_min=2, laplace=False, categorical_features=None, random_state=None,
                 prune=None, tuning_fraction=1 / 3, class_weight=None):
        self.criterion = criterion
        self.c45 = c45
        self.min_objs = min_objs
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.max_features = max_features
        self.max_bins = max_bins
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.prune = prune
        self.tuning_fraction = tuning_fraction
        self.class_weight = class_weight

    def _check_params(self) -> None:
        super()._check_params()
        check_prune_params(self.prune, self.tuning_fraction)

    def _fit_encoded(self, Xv, y_codes, weights=None) -> None:
        # a refit forgets the held-out rows of an earlier reduced-error fit
        self.__dict__.pop("tuning_mask_", None)
        if self.prune is None:
            super()._fit_encoded(Xv, y_codes, weights)
            return
        fit_pruned(self, Xv, y_codes, super()._fit_encoded, weights)

    def _spec(self, n_features):
        return TreeSpec(
            n_trees=1, alphas=np.ones(1), criterion=self.criterion, c45=self.c45,
            min_objs=self.min_objs, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf, max_depth=self.max_depth,
            max_features=self.max_features, max_bins=self.max_bins,
        )


# -- pruning (DecisionTree(prune=...)) ---------------------------------------------
PRUNE_OPTIONS = ("reduced_error", "pessimistic")
PESSIMISTIC_CONFIDENCE = 0.25


def check_prune_params(prune, tuning_fraction) -> None:
    """Validate ``DecisionTree``'s pruning parameters (names in the messages)."""
    if prune is not None:
        check_option("prune", prune, PRUNE_OPTIONS)
    check_real("tuning_fraction", tuning_fraction, 0.0, 1.0, low_open=True)
    if tuning_fraction >= 1.0:
        raise ValueError(f"tuning_fraction must be in (0, 1), got {tuning_fraction}")


def tuning_mask(y_codes: np.ndarray, fraction: float, random_state) -> np.ndarray:
    """Stratified held-out rows: round(fraction * n_c) rows of every class c drawn at random,
    but at most n_c - 1 (every class keeps a growing row)."""
    rng = check_random_state(random_state)
    mask = np.zeros(y_codes.shape[0], dtype=bool)
    for c in np.unique(y_codes):
        idx = np.flatnonzero(y_codes == c)
        k = min(int(round(fraction * idx.shape[0])), idx.shape[0] - 1)
        if k > 0:
            mask[rng.choice(idx, size=k, replace=False)] = True
    return mask


def check_tuning_rows(n_tune: int, y_codes: np.ndarray, fraction: float,
                      weighted: bool) -> None:
    """Refuse reduced-error pruning without a tuning row: with none, every subtree makes no
    tuning error as a leaf, so the whole tree would be cut to its root leaf (a majority-class
    model) without a word. ``n_tune``: the held-out rows, each repeated by its weight units."""
    if n_tune > 0:
        return
    sizes = np.bincount(y_codes).tolist()
    if weighted:
        why = "every held-out row has sample weight 0"
    else:
        why = (f"round(tuning_fraction * n_c), at most n_c - 1, is 0 for every class "
               f"(class sizes {sizes})")
    raise ValueError(
        f"prune='reduced_error' with tuning_fraction={fraction:g} holds out no tuning row: "
        f"{why}, and pruning on no tuning row would cut the tree to its root; raise "
        "tuning_fraction, give more rows, or use prune='pessimistic'")


def fit_pruned(est, Xv: np.ndarray, y_codes: np.ndarray, grow,
               weights: np.ndarray | None = None) -> None:
    """Grow and prune ``est.forest_`` (``grow(Xv, y_codes, weights)`` is the unpruned growth).

    ``"pessimistic"``: grow on every row, then C4.5 pessimistic pruning at confidence 0.25
    (on the weighted class counts, as C4.5 prunes with its fractional case weights).
    ``"reduced_error"``: hold out a stratified ``tuning_fraction`` of the rows
    (``tuning_mask_``, drawn over rows whatever their weights), grow on the rest, then
    reduced-error pruning on the held-out rows, each tuning error counted with its row's
    weight.
    """
    # the pruning kernels are imported by the fits that prune, not with every estimator
    from treelab.engine.pruning import pessimistic_prune, reduced_error_prune

    if est.prune == "pessimistic":
        grow(Xv, y_codes, weights)
        est.forest_, _ = pessimistic_prune(est.forest_, PESSIMISTIC_CONFIDENCE)
        return
    mask = tuning_mask(y_codes, est.tuning_fraction, est.random_state)
    tune = np.flatnonzero(mask)
    if weights is not None:
        # a tuning row of weight w counts w errors; the comparison is scale-free, so rows are
        # repeated by their units (integer weights: the weights themselves)
        units = engine_weights(weights[mask], False).units
        tune = np.repeat(tune, units)
    check_tuning_rows(tune.shape[0], y_codes, est.tuning_fraction, weights is not None)
    if weights is not None:
        grow(Xv[~mask], y_codes[~mask], weights[~mask])
    else:
        grow(Xv[~mask], y_codes[~mask])
    est.forest_, _ = reduced_error_prune(est.forest_, Xv[tune], y_codes[tune], est._min_n())
    est.tuning_mask_ = mask
