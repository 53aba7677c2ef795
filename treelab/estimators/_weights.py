"""Sample and class weights: validation, and their conversion to the engine's row multiplicities.

The engine grows every tree on integer row multiplicities (a bootstrap sample counts a row as
often as it was drawn). A sample weight multiplies a row's multiplicity, so integer weights are
exactly repeated rows and a zero weight is a missing row. Fractional weights are counted in
units of 2**-k of a weight (``engine_weights``): every count the engine compares (node sizes,
``min_samples_*``, ``min_objs``, the MDL penalty's n) is then taken in weight units again, and
the fitted counts are divided back, so a leaf's counts are the summed weights of its rows.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from treelab.engine._row_bounds import MAX_WEIGHTED_ROWS, bootstrap_weight_bound
from treelab.engine.kernels import _grow as G

#: most units a row may count (the engine packs a multiplicity into 16 bits); learners that
#: draw bootstrap samples keep room for a row drawn up to 16 times (a row is drawn 16 times or
#: more with probability 2e-14 per tree; the growth kernel refuses a product beyond 65535)
MAX_UNITS = 0xFFFF
MAX_UNITS_BOOTSTRAP = MAX_UNITS // 16
#: most weighted units one tree may hold when fractional weights are scaled: the x log2 x
#: table of a fit has one float64 entry per unit (2**22 entries: 32 MiB)
MAX_TABLE_UNITS = 1 << 22
#: finest scaling tried for fractional weights (2**-MAX_SHIFT of a weight)
MAX_SHIFT = 30
#: relative change of a weight by rounding beyond which a fit warns (WeightRoundingWarning)
ROUNDING_WARN = 1e-2


class WeightRoundingWarning(UserWarning):
    """Fractional sample weights were rounded by more than ``ROUNDING_WARN`` of a weight."""


class SmallWeightsWarning(UserWarning):
    """The weights sum to less than a size limit that counts weight: every tree is a leaf."""


def warn_small_weights(w: np.ndarray, params: dict) -> None:
    """Warn when the row weights sum to less than ``min_samples_split`` (or two
    ``min_samples_leaf``): size limits count weight, so no node could split (weights
    normalised to sum 1, as boosting hands them, need rescaling, e.g. by n / sum)."""
    if "min_samples_split" not in params and "min_samples_leaf" not in params:
        return
    total = float(np.sum(w))
    need = max(int(params.get("min_samples_split", 2)), 2 * int(params.get("min_samples_leaf", 1)))
    if total < need:
        warnings.warn(
            f"the row weights sum to {total:g}, below the {need} that a node needs to split "
            "(min_samples_split and min_samples_leaf count summed weights, not rows): every "
            "tree is a single leaf; scale the weights up, e.g. by n / sum(sample_weight)",
            SmallWeightsWarning, stacklevel=3)


class EmptyMembersWarning(UserWarning):
    """Some trees drew only rows of weight 0: each answers the uniform distribution."""


def warn_empty_members(forest, n_classes: int) -> None:
    """Warn when trees of ``forest`` saw no weight at all (their bootstrap sample or disjoint
    part held only rows of weight 0): such a tree's root is an empty leaf, which answers the
    uniform distribution 1/C for every row in ``member_proba``, ``predict_proba`` and every
    measure."""
    roots = np.asarray(forest.counts)[np.asarray(forest.node_offsets)[:-1]]
    empty = int(np.count_nonzero(roots.sum(axis=1) <= 0))
    if empty:
        warnings.warn(
            f"{empty} of {forest.n_trees} trees drew only rows of weight 0 (their bootstrap "
            f"sample or part held no weighted row): each answers the uniform distribution "
            f"1/{n_classes} for every row, in member_proba, predict_proba and every measure",
            EmptyMembersWarning, stacklevel=3)


def forget_unweighted_categories(estimator, Xv: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """``Xv`` with every nominal category that occurs only in rows of weight 0 made unseen.

    A zero weight is an absent row, so such a category is coded as the fit on the other rows
    alone codes it: it leaves ``categories_`` and ``arity_`` (the remaining categories keep
    their order and take codes 0..m-1), and its values become missing (NaN) in ``Xv``, which
    only rows of weight 0 hold; at prediction it follows the missing-value route. ``counted``:
    the rows of positive weight. Returns ``Xv`` itself when nothing changes, else a copy.
    """
    mask = getattr(estimator, "nominal_features_", None)
    if mask is None or counted.all() or not np.any(mask):
        return Xv
    out = None
    for j in np.flatnonzero(mask):
        cats = estimator.categories_[j]
        if cats is None or len(cats) == 0:
            continue
        col = Xv[:, j]
        present = ~np.isnan(col)
        used = np.zeros(len(cats), dtype=bool)
        used[col[present & counted].astype(np.int64)] = True
        if used.all():
            continue
        remap = np.full(len(cats), np.nan)
        remap[used] = np.arange(np.count_nonzero(used), dtype=np.float64)
        if out is None:
            out = np.array(Xv, dtype=np.float64, order="C")
            estimator.categories_ = list(estimator.categories_)
            estimator.arity_ = np.array(estimator.arity_, dtype=np.int64)
        recoded = np.full(col.shape[0], np.nan)
        recoded[present] = remap[col[present].astype(np.int64)]
        out[:, j] = recoded
        estimator.categories_[j] = np.asarray(cats)[used]
        estimator.arity_[j] = int(np.count_nonzero(used))
    return Xv if out is None else out


class EngineWeights(NamedTuple):
    """Integer row multiplicities for the engine, and the scaling that made them."""

    units: np.ndarray  # int32 (n,): weight * 2**shift, rounded to the nearest integer
    shift: int  # k: one unit is 2**-k of a sample-weight unit
    exact: bool  # whether every weight is units * 2**-shift exactly


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """``sample_weight`` as a float64 array of n non-negative finite weights (a copy), or None.

    A real scalar applies to every row. Refused with the argument named: a shape other than
    (n,), non-numeric or complex values, NaN or infinite values, negative values, all weights
    zero.
    """
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Real) and not isinstance(sample_weight, bool):
        sw = np.full(n, float(sample_weight))
    else:
        raw = np.asarray(sample_weight)
        if raw.dtype.kind == "c" or (raw.dtype.kind == "O" and any(
                isinstance(v, complex | np.complexfloating) for v in raw.ravel().tolist())):
            # NumPy's cast would drop the imaginary part with only a ComplexWarning
            raise ValueError(f"sample_weight must hold real numbers; complex data not supported "
                             f"(got dtype {raw.dtype}), as in scikit-learn")
        if raw.dtype.kind not in "biuf":
            try:
                raw = raw.astype(np.float64)
            except (TypeError, ValueError) as err:
                raise TypeError(f"sample_weight must hold numbers, got dtype {raw.dtype}") from err
        if raw.ndim != 1:
            raise ValueError(f"sample_weight must be 1-dimensional, got shape {raw.shape}")
        if raw.shape[0] != n:
            raise ValueError(f"sample_weight has {raw.shape[0]} entries but X has {n} rows")
        sw = np.array(raw, dtype=np.float64)
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite (it holds NaN or infinite values)")
    if np.any(sw < 0):
        raise ValueError(f"sample_weight must be non-negative, got {sw.min()}")
    if n and not np.any(sw > 0):
        raise ValueError("sample_weight is zero for every row; at least one weight must be "
                         "positive")
    return sw


def class_weight_vector(class_weight, classes: np.ndarray, y_codes: np.ndarray) -> np.ndarray:
    """One weight per class (index = class code) from ``class_weight``.

    ``"balanced"``: n / (C n_c) over the rows of y (scikit-learn's rule; classes without rows
    get 1); a dict: the given weight of each label named (non-negative finite; other labels 1);
    None: ones.
    """
    C = classes.shape[0]
    out = np.ones(C)
    if class_weight is None:
        return out
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be 'balanced', a dict or None, got "
                             f"{class_weight!r}")
        n_c = np.bincount(y_codes, minlength=C).astype(np.float64)
        seen = n_c > 0
        out[seen] = y_codes.shape[0] / (C * n_c[seen])
        return out
    if not isinstance(class_weight, dict):
        raise TypeError(f"class_weight must be 'balanced', a dict or None, got "
                        f"{type(class_weight).__name__}")
    index = {label: c for c, label in enumerate(classes.tolist())}
    for label, value in class_weight.items():
        key = label.item() if isinstance(label, np.generic) else label
        if key not in index:
            raise ValueError(f"class_weight names the label {label!r}, which is not among the "
                             f"classes of y {classes.tolist()}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"class_weight[{label!r}] must be a real number, got {value!r}")
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"class_weight[{label!r}] must be non-negative and finite, got "
                             f"{value}")
        out[index[key]] = float(value)
    return out


def check_class_weight_param(class_weight) -> None:
    """Refuse a ``class_weight`` of the wrong type before any work (labels are checked at fit)."""
    if (class_weight is None or isinstance(class_weight, dict)
            or (isinstance(class_weight, str) and class_weight == "balanced")):
        return
    raise ValueError(f"class_weight must be 'balanced', a dict or None, got {class_weight!r}")


def row_weights(sample_weight: np.ndarray | None, class_weight,
                classes: np.ndarray, y_codes: np.ndarray) -> np.ndarray | None:
    """Each row's weight: its sample weight times its class's weight (None: all ones)."""
    if class_weight is None:
        return sample_weight
    w = class_weight_vector(class_weight, classes, y_codes)[y_codes]
    if sample_weight is not None:
        w = w * sample_weight
    if y_codes.shape[0] and not np.any(w > 0):
        raise ValueError("class_weight and sample_weight leave every row a zero weight")
    return w


def engine_weights(w: np.ndarray, bootstrap: bool) -> EngineWeights:
    """Integer multiplicities for weights ``w``: ``units = w * 2**k``, k as small as makes every
    weight whole (integer weights: k = 0), else as large as the engine's limits allow, with
    the units rounded to the nearest integer (a weight below half a unit becomes 0); a change
    of a weight beyond ``ROUNDING_WARN`` of it warns (``WeightRoundingWarning``).

    Limits: a row at most ``MAX_UNITS`` units (``MAX_UNITS_BOOTSTRAP`` for bootstrap
    learners); for fractional weights, a tree's units at most ``MAX_TABLE_UNITS`` (its sum, or
    for a bootstrap ``engine._row_bounds.bootstrap_weight_bound``). Integer weights beyond the row
    limit are refused with the limit named.
    """
    w = np.asarray(w, dtype=np.float64)
    n = w.shape[0]
    top = float(w.max(initial=0.0))
    row_cap = MAX_UNITS_BOOTSTRAP if bootstrap else MAX_UNITS
    if np.all(w == np.floor(w)):
        if top > row_cap:
            raise ValueError(f"sample_weight times class weight reaches {top:g}; a row's "
                             f"weight is at most {row_cap} for this learner")
        tree_units = bootstrap_weight_bound(w) if bootstrap else float(w.sum())
        if tree_units > MAX_WEIGHTED_ROWS:
            raise ValueError(
                f"sample_weight lets a tree count up to {tree_units:.0f} rows (the weights' sum, "
                f"or about that of a bootstrap sample), beyond the {MAX_WEIGHTED_ROWS} a fit "
                "allows (8 bytes a row in its x log2 x table); use smaller sample weights")
        return EngineWeights(w.astype(np.int32), 0, True)
    tree_units = bootstrap_weight_bound(w) if bootstrap else float(w.sum())
    shift = 0
    while (shift < MAX_SHIFT and top * 2.0 ** (shift + 1) <= row_cap
           and tree_units * 2.0 ** (shift + 1) <= MAX_TABLE_UNITS):
        shift += 1
        scaled = w * 2.0 ** shift
        if np.all(scaled == np.floor(scaled)):
            break
    scaled = w * 2.0 ** shift
    if shift == 0 and np.rint(top) > row_cap:
        raise ValueError(f"sample_weight times class weight reaches {top:g}; a row's "
                         f"weight is at most {row_cap} for this learner")
    # nearest rounding, also for weights below half a unit (they become 0): rounding those up
    # to one unit would add far more weight than dropping them removes
    units = np.rint(scaled)
    pos = w > 0
    change = np.abs(units[pos] - scaled[pos]) / scaled[pos]
    if change.size and change.max() > ROUNDING_WARN:
        i = int(np.flatnonzero(pos)[np.argmax(change)])
        warnings.warn(
            f"sample weights (times class weights) are counted in units of 2**-{shift} of a "
            f"weight, the finest that a row's {row_cap} units and this fit's {n} rows allow; "
            f"rounding changes row {i}'s weight {w[i]:g} to {units[i] * 2.0 ** -shift:g} "
            f"({change.max():.1%}). Weights spanning fewer orders of magnitude, or fewer rows, "
            "round less.", WeightRoundingWarning, stacklevel=4)
    if not units.any():
        raise ValueError(f"sample_weight: every weight rounds to zero at the finest unit {n} "
                         f"rows allow (2**-{shift}); scale the weights up")
    return EngineWeights(units.astype(np.int32), shift, bool(np.all(units == scaled)))


def weighted_iparams(iparams: np.ndarray, weights: EngineWeights | None) -> np.ndarray:
    """The growth kernel's parameters for rows counted in units of 2**-shift of a weight:
    the size limits (``min_objs``, ``min_samples_split``, ``min_samples_leaf``) in those units
    and the shift itself (the MDL penalty's n, ``_select``). Unchanged without weights."""
    if weights is None or weights.shift == 0:
        return iparams
    out = iparams.copy()
    unit = 1 << weights.shift
    for slot in (G.P_MIN_OBJS, G.P_MIN_SPLIT, G.P_MIN_LEAF):
        out[slot] = iparams[slot] * unit
    out[G.P_COUNT_SHIFT] = weights.shift
    return out


def unscale_counts(forest, weights: EngineWeights | None):
    """A forest grown on units of 2**-shift of a weight, with its class counts and rows seen
    in weight units again (float64); unchanged for integer weights."""
    if weights is None or weights.shift == 0:
        return forest
    unit = 2.0 ** -weights.shift
    return forest._replace(counts=forest.counts * unit,
                           rows_seen=forest.rows_seen * unit)


def units_of(weights: EngineWeights | None) -> np.ndarray | None:
    """The int32 row multiplicities of ``EngineWeights`` (None: unweighted)."""
    return None if weights is None else weights.units
