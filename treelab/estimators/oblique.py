"""Oblique and cross-validation-selected learners (algorithms spec 2.8, 2.10; the rotation
forest of 2.9, which shares their real features, is in ``estimators.rotation``).

| class | base learner | construction | combination |
|---|---|---|---|
| MMDT | mean-margins decision tree (oblique) | one tree, all rows | -- |
| BaggedMMDT | MMDT | bagging | probability averaging |
| CVDT | entropy tree or MMDT, chosen by 2-fold CV | one tree, all rows | -- |
| BaggedCVDT | CVDT (heterogeneous) | bagging | probability averaging |
| RotationForest | rotation tree (random or PCA axes) | bagging | probability averaging |

These learners read *real features*: numeric columns with missing values replaced by their
training mean, nominal columns as one-hot blocks (a missing nominal value is 1/m in each
column of its block). Their trees store oblique splits ``x . w <= t`` (node kind 3) with the
vectors w in ``forest_.projections``, so ``apply``, ``member_proba``, ``predict_proba``,
``tree_stats`` and :func:`treelab.analysis.diagnose` work on them as on every other learner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from treelab import _dims
from treelab.engine.features import prepare_features
from treelab.engine.oblique import (
    CVContext,
    apply_real_map,
    fit_real_map,
    grow_cvdt_forest,
    grow_mmdt_forest,
)
from treelab.estimators._base import TreeEnsembleClassifier
from treelab.estimators._conditioning import apply_scaling, fit_scaling
from treelab.estimators._docstrings import MAX_BINS_DOC
from treelab.estimators._spec import TreeSpec, spec_iparams
from treelab.estimators._validation import check_option
from treelab.estimators._weights import units_of, unscale_counts, weighted_iparams

if TYPE_CHECKING:
    import xarray as xr

__all__ = ["CVDT", "MMDT", "BaggedCVDT", "BaggedMMDT"]

CANDIDATES = ("entropy_tree", "mmdt", "random_tree")
SCALES = ("minmax", "standard", None)
_COMMON_DOC = """
    curtail_min : int, default 1
        Curtailment at prediction: a leaf with fewer training rows answers with its deepest
        ancestor holding at least this many (0 or 1: only empty leaves borrow from the parent).
    laplace : bool, default False
        Laplace estimate (n_c + 1) / (n + C) instead of the frequency n_c / n.
    categorical_features : array-like of int, str or bool, or "from_dtype", optional
        Integer-coded nominal columns (indices, names or a boolean mask). A DataFrame's pandas
        category, bool, object and string columns are nominal without it (scikit-learn's
        ``"from_dtype"``, also accepted as the value): ``fit(data.X_frame, data.y)`` reads a
        loaded data set's nominal columns from their dtypes.
    random_state : int, RandomState or None
        Seeds one generator per tree; the same value gives bit-identical trees for any n_jobs.
"""

DEFAULT_SCALE = "standard"

_SCALE_DOC = """
    scale : {"standard", "minmax", None}, default "standard"
        Scaling of the real features of every MMDT, with statistics from that tree's own
        training rows (a bootstrap sample counted with its multiplicities; in CVDT's
        cross-validation, the fold's rows): z-scores (``"standard"``), (x - min) / (max - min)
        (``"minmax"``) or none. A feature constant over a tree's rows is left unscaled. The
        factors are stored per tree (``tree_scale_``, (tree, real feature), relative to the
        conditioning ``scaling_`` of all rows given to ``fit``; NaN rows for CVDT trees that
        are not MMDTs) and folded into the tree's split directions, so prediction applies
        them and routes every training row as growth did. The mean-margins direction is a
        difference of class means, so without scaling a feature with a large range dominates
        it (wine: bagged MMDT 0.725 raw vs 0.983 scaled). Features beyond 2**100 in magnitude
        or below 2**-100 (subnormal numbers included) are first brought near 1 by an exact
        power of two: each column by its own under ``"standard"`` and ``"minmax"``, all
        columns by one without scaling. See ``docs/reproductions/mmdt.md``.
"""

_ENSEMBLE_DOC = """
    combine : {"average", "vote", "sum", "likelihood", "bayesian"}, default "average"
        Combination function (algorithms spec 4).
    n_jobs : int or None
        Threads for growing trees and for prediction (None = 1, -1 = all cores).
"""


def _doc(cls):
    text = cls.__doc__.replace("    %(common)s\n", _COMMON_DOC.lstrip("\n"))
    text = text.replace("    %(scale)s\n", _SCALE_DOC.lstrip("\n"))
    text = text.replace("    %(max_bins)s\n", MAX_BINS_DOC.lstrip("\n"))
    cls.__doc__ = text.replace("    %(ensemble)s\n", _ENSEMBLE_DOC.lstrip("\n"))
    return cls


def _seeds(random_state, n_trees: int) -> np.ndarray:
    """Per-tree seeds, drawn as the axis-aligned learners draw theirs."""
    rng = check_random_state(random_state)
    return rng.randint(0, np.iinfo(np.int32).max, size=n_trees).astype(np.uint64)


class _RealFeatureLearner(TreeEnsembleClassifier):
    """Learners whose trees read the real features (fitted attributes ``real_map_`` and
    ``scaling_``, see ``fit_scaling``: the conditioning, with statistics from the rows given to
    ``fit``; the MMDT learners add each tree's own scaling, ``tree_scale_``)."""

    def _check_params(self) -> None:
        super()._check_params()
        if getattr(self, "scale", None) not in SCALES:
            raise ValueError(f"scale must be one of {SCALES}, got {self.scale!r}")

    def _fit_encoded(self, Xv, y_codes, weights=None) -> None:
        self.real_map_ = fit_real_map(Xv, self.nominal_features_, self.arity_, weights)
        Z = apply_real_map(self.real_map_, Xv)
        self.scaling_ = fit_scaling(Z, getattr(self, "scale", None), self._per_column,
                                    weights)
        Z = apply_scaling(self.scaling_, Z)
        seeds = _seeds(self.random_state, self._n_trees())
        ew = self._engine_weights(weights, bool(getattr(self, "_bootstrap",
                                                        getattr(self, "bootstrap", False))))
        self.forest_ = unscale_counts(self._grow(Xv, Z, y_codes, seeds, ew), ew)

    def _real_features(self, Xv) -> np.ndarray:
        return apply_scaling(self.scaling_, apply_real_map(self.real_map_, Xv))

    def _encode_predict(self, X) -> np.ndarray:
        Xv = super()._encode_predict(X)
        return self._real_features(Xv)

    #: condition each column by its own power of two (None: when ``scale`` is not None)
    _per_column: bool | None = None

    def _n_trees(self) -> int:
        return int(getattr(self, "n_estimators", 1))

    def _grow(self, Xv, Z, y_codes, seeds, weights):  # pragma: no cover - abstract
        """Grow the forest; ``weights`` are the engine's row multiplicities (None: ones)."""
        raise NotImplementedError


class _SingleTree:
    """Mixin of the one-tree learners (MMDT, CVDT): one tree, which is its own single model."""

    def _n_trees(self) -> int:
        return 1

    def single_model(self):
        """An unfitted copy of this tree."""
        return type(self)(**self.get_params(deep=False))


@_doc
class BaggedMMDT(_RealFeatureLearner):
    """Bagged mean-margins decision trees (Gashler, Giraud-Carrier & Martinez 2008).

    Each tree is an MMDT grown on a bootstrap sample. At a node the rows are split into two
    groups T and F (by class with two classes present; otherwise by the sign of
    (l - mu_L) . nu_L, where l is a row's one-hot label, mu_L their mean and nu_L their first
    principal component by 10 steps of power iteration from a standard-normal start), and a
    row p goes right when

    .. math:: (p - \\mu) \\cdot \\nu \\ge 0, \\quad \\mu = (\\mu_T + \\mu_F) / 2,
              \\quad \\nu = \\mu_T - \\mu_F,

    with mu_T, mu_F the mean real-feature vectors of T and F. A node is a leaf when it is pure
    or a side is empty; there are no other parameters.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    %(scale)s
    %(common)s
    %(ensemble)s

    References
    ----------
    Gashler, Giraud-Carrier & Martinez (2008), Decision tree ensemble: small heterogeneous is
    better than large homogeneous, ICMLA.
    """

    _bootstrap = True

    def __init__(self, *, n_estimators=100, scale=DEFAULT_SCALE, curtail_min=1, laplace=False,
                 combine="average", categorical_features=None, random_state=None, n_jobs=None):
        self.n_estimators = n_estimators
        self.scale = scale
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _grow(self, Xv, Z, y_codes, seeds, weights):
        forest, self.tree_scale_ = grow_mmdt_forest(Z, y_codes, self.n_classes_, seeds,
                                                    self._bootstrap, self._n_threads(),
                                                    self.scale, units_of(weights))
        return forest

    def single_model(self):
        """One MMDT on all rows, unfitted."""
        return MMDT(scale=self.scale, curtail_min=self.curtail_min, laplace=self.laplace,
                    categorical_features=self.categorical_features,
                    random_state=self.random_state)


@_doc
class MMDT(_SingleTree, BaggedMMDT):
    """One mean-margins decision tree (MMDT) on all rows; see :class:`BaggedMMDT`.

    Parameters
    ----------
    %(scale)s
    %(common)s
    """

    _bootstrap = False

    def __init__(self, *, scale=DEFAULT_SCALE, curtail_min=1, laplace=False,
                 categorical_features=None, random_state=None):
        self.scale = scale
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.categorical_features = categorical_features
        self.random_state = random_state



@_doc
class BaggedCVDT(_RealFeatureLearner):
    """Bagged cross-validation decision trees (Gashler et al. 2008; algorithms spec 2.10).

    For every tree (grown on a bootstrap sample), each candidate learner is run through one
    2-fold cross-validation on the tree's rows (its distinct rows split at random into two
    halves, errors counted with bootstrap multiplicity); the learner with the fewest errors
    (ties to the earlier candidate) is then grown on all the tree's rows. The forest is a
    heterogeneous mixture: ``learners_`` and ``tree_stats().learner`` name the learner of
    every tree, ``cv_errors_`` (tree, candidate) holds the CV errors.

    Candidates: ``"entropy_tree"`` (ERDT: information gain without the C4.5 details, grown
    until no test has positive gain, algorithms spec 2.1: pure leaves where a test separates
    the classes, an impure leaf where none gains, as on XOR), ``"mmdt"`` (:class:`MMDT`) and
    ``"random_tree"`` (a complete-random VR-Tree, alpha = 0). Axis-aligned candidates split
    the encoded features (nominal m-ary splits, missing values to the branch chosen while
    growing); MMDT splits the real features.

    Parameters
    ----------
    n_estimators : int, default 100
        Number of trees.
    candidates : sequence of {"entropy_tree", "mmdt", "random_tree"}
        Learners to choose from, in tie-breaking order.
    %(scale)s
    %(max_bins)s
    %(common)s
    %(ensemble)s

    References
    ----------
    Gashler, Giraud-Carrier & Martinez (2008), Decision tree ensemble: small heterogeneous is
    better than large homogeneous, ICMLA.
    """

    _bootstrap = True

    def __init__(self, *, n_estimators=100, candidates=("entropy_tree", "mmdt"),
                 scale=DEFAULT_SCALE, max_bins=None, curtail_min=1, laplace=False,
                 combine="average", categorical_features=None, random_state=None,
                 n_jobs=None):
        self.n_estimators = n_estimators
        self.candidates = candidates
        self.scale = scale
        self.max_bins = max_bins
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.combine = combine
        self.categorical_features = categorical_features
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        super()._check_params()
        cands = self.candidates
        if isinstance(cands, str) or not hasattr(cands, "__iter__"):
            raise TypeError(f"candidates must be a sequence of names from {CANDIDATES}, "
                            f"got {cands!r}")
        cands = list(cands)
        if not cands:
            raise ValueError("candidates must name at least one learner")
        for name in cands:
            check_option("candidates", name, CANDIDATES)
        if len(set(cands)) != len(cands):
            raise ValueError(f"candidates must not repeat a learner, got {tuple(cands)}")

    def _iparams(self, d: int, weights=None) -> dict:
        entropy = TreeSpec(n_trees=1, alphas=np.ones(1), criterion="entropy", c45=False,
                           min_objs=1, min_samples_split=2, max_bins=self.max_bins)
        random = TreeSpec(n_trees=1, alphas=np.zeros(1), criterion="entropy", c45=False,
                          min_objs=1, min_samples_split=2)
        return {"entropy_tree": weighted_iparams(spec_iparams(entropy, d)[0], weights),
                "random_tree": weighted_iparams(spec_iparams(random, d)[0], weights)}

    def _grow(self, Xv, Z, y_codes, seeds, weights):
        units = units_of(weights)
        ctx = CVContext(
            feats=prepare_features(Xv, self.nominal_features_, self.arity_,
                                   max_bins=self.max_bins, weights=units),
            Xv=np.ascontiguousarray(Xv), Z=Z, y=np.ascontiguousarray(y_codes, dtype=np.int32),
            n_classes=self.n_classes_, iparams=self._iparams(Xv.shape[1], weights),
            min_n=self._min_n(), scale=self.scale,
        )
        cands = tuple(self.candidates)
        forest, chosen, errors, self.tree_scale_ = grow_cvdt_forest(
            ctx, cands, seeds, self._bootstrap, self._n_threads(), units)
        if weights is not None and weights.shift:
            errors = errors * 2.0 ** -weights.shift
        self.learners_ = np.array([cands[c] for c in chosen])
        self.cv_errors_ = errors
        return forest

    def _encode_predict(self, X) -> np.ndarray:
        Xv = TreeEnsembleClassifier._encode_predict(self, X)
        # axis-aligned trees read the encoded columns, MMDT the real features appended to them
        return np.ascontiguousarray(np.hstack([Xv, self._real_features(Xv)]))

    def tree_stats(self) -> xr.Dataset:
        """Per-tree statistics (see ``TreeEnsembleClassifier.tree_stats``) plus ``learner``,
        the candidate each tree's cross-validation chose."""
        import xarray as xr  # only needed here; keeps `import treelab` light

        check_is_fitted(self, "learners_")
        ds = super().tree_stats()
        ds["learner"] = xr.Variable(_dims.TREE, self.learners_.astype(str),
                                    {"long_name": "learner chosen by 2-fold CV", "units": ""})
        return ds

    def single_model(self):
        """One CVDT on all rows, unfitted."""
        return CVDT(candidates=self.candidates, scale=self.scale, max_bins=self.max_bins,
                    curtail_min=self.curtail_min, laplace=self.laplace,
                    categorical_features=self.categorical_features,
                    random_state=self.random_state)


@_doc
class CVDT(_SingleTree, BaggedCVDT):
    """One cross-validation decision tree on all rows; see :class:`BaggedCVDT`.

    Parameters
    ----------
    candidates : sequence of {"entropy_tree", "mmdt", "random_tree"}
        Learners to choose from, in tie-breaking order.
    %(scale)s
    %(max_bins)s
    %(common)s
    """

    _bootstrap = False

    def __init__(self, *, candidates=("entropy_tree", "mmdt"), scale=DEFAULT_SCALE,
                 max_bins=None, curtail_min=1, laplace=False, categorical_features=None,
                 random_state=None):
        self.candidates = candidates
        self.scale = scale
        self.max_bins = max_bins
        self.curtail_min = curtail_min
        self.laplace = laplace
        self.categorical_features = categorical_features
        self.random_state = random_state
