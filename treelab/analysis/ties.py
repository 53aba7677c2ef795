"""Gain ties recorded while growing trees (Ali & Pazzani 1995, section 5.2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._cite import CITE_GAIN_TIES
from treelab.analysis._dataset import Var, to_dataset

__all__ = ["gain_ties", "gain_ties_from_counts"]

_PER = {"feature": "ties_feature", "test": "ties_test"}


def _forest(ensemble: Any) -> Any:
    forest = getattr(ensemble, "forest_", ensemble)
    missing = [f for f in ("ties_feature", "ties_test", "n_decision") if not hasattr(forest, f)]
    if missing:
        raise TypeError(
            "ensemble must be a fitted treelab estimator (with forest_) or a Forest; "
            f"missing {missing}"
        )
    return forest


def gain_ties_from_counts(ties: Any, decision_nodes: Any, *, per: str = "feature") -> xr.Dataset:
    """Gain-tie statistics from per-tree tie and decision-node counts (array form).

    See :func:`gain_ties` for the definitions.

    Parameters
    ----------
    ties : array-like of int, (tree,)
        Ties recorded while growing each tree.
    decision_nodes : array-like of int, (tree,)
        Deterministic decision nodes of each tree.
    per : {"feature", "test"}, default "feature"
        What counted as a candidate (stored in the attrs).

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    ValueError
        For a ``per`` other than ``"feature"`` or ``"test"``, and for ties recorded by a tree
        without decision nodes: ties are recorded only while a decision node picks its test,
        so such counts are not those of a grown tree (they would still enter ``pooled_g``).
    """
    if per not in _PER:
        raise ValueError(f"per must be 'feature' or 'test', got {per!r}")
    t = np.asarray(ties)
    d = np.asarray(decision_nodes)
    if t.ndim != 1 or t.shape != d.shape or t.size == 0:
        raise ValueError(
            f"ties and decision_nodes must be 1-d of equal size, got {t.shape}, {d.shape}"
        )
    if t.dtype.kind not in "iu" or d.dtype.kind not in "iu":
        raise TypeError("ties and decision_nodes must be integer counts")
    if np.any(t < 0) or np.any(d < 0):
        raise ValueError("ties and decision_nodes must be non-negative")
    orphan = np.flatnonzero((d == 0) & (t > 0))
    if orphan.size:
        raise ValueError(
            f"ties records {int(t[orphan[0]])} ties for tree {int(orphan[0])}, whose "
            "decision_nodes is 0: ties are recorded only at decision nodes (are the two "
            "arrays of the same trees, in the same order?)")
    t, d = t.astype(np.int64), d.astype(np.int64)
    return to_dataset(ties_vars(t, d), function="gain_ties", params={"per": per})


def ties_vars(t: np.ndarray, d: np.ndarray) -> dict[str, Var]:
    """Variables of :func:`gain_ties` from checked per-tree counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(d > 0, t / np.where(d > 0, d, 1), np.nan)
    has = d > 0
    mean_g = float(g[has].mean()) if has.any() else np.nan
    pooled = float(t.sum() / d.sum()) if d.sum() > 0 else np.nan
    tree = (_dims.TREE,)
    cite = CITE_GAIN_TIES
    return {
        "ties": Var(tree, t, "gain ties recorded while growing the tree", units="count", cite=cite),
        "decision_nodes": Var(tree, d, "deterministic decision nodes", units="count", cite=cite),
        "g": Var(
            tree,
            g,
            "gain ties per decision node g",
            cite=cite,
            description="NaN for a tree without deterministic decision nodes",
        ),
        "mean_g": Var((), mean_g, "mean of g over trees with decision nodes", cite=cite),
        "pooled_g": Var((), pooled, "total ties / total decision nodes", cite=cite),
    }


def gain_ties(ensemble: Any, *, per: str = "feature") -> xr.Dataset:
    """Gain ties per decision node, per tree and on average (Ali & Pazzani 1995 §5.2).

    While a deterministic test-selection runs at a node, the tree builder counts the candidate
    tests whose score ties the best (equal within relative tolerance 1e-12; exactly for
    count-based criteria): n tied tests record n - 1 ties. g_t = ties recorded while growing
    tree t / its number of deterministic decision nodes (NaN when it has none, e.g. a
    complete-random tree). ``mean_g`` averages g over trees with decision nodes; ``pooled_g``
    divides the total ties by the total decision nodes.

    Parameters
    ----------
    ensemble : fitted treelab estimator or Forest
        Anything with ``forest_`` (or a Forest itself) holding ``ties_feature``, ``ties_test``
        and ``n_decision`` per tree.
    per : {"feature", "test"}, default "feature"
        ``"feature"``: a candidate is a feature with its best threshold; ``"test"``: every
        threshold counts.

    Returns
    -------
    xarray.Dataset
        ``ties``, ``decision_nodes``, ``g`` (dim tree), ``mean_g``, ``pooled_g``.
    """
    ties, decision_nodes = forest_ties(ensemble, per)
    return gain_ties_from_counts(ties, decision_nodes, per=per)


def forest_ties(ensemble: Any, per: str = "feature") -> tuple[np.ndarray, np.ndarray]:
    """Checked per-tree (ties, decision nodes) of a fitted ensemble."""
    if per not in _PER:
        raise ValueError(f"per must be 'feature' or 'test', got {per!r}")
    forest = _forest(ensemble)
    t = np.asarray(getattr(forest, _PER[per])).astype(np.int64)
    return t, np.asarray(forest.n_decision).astype(np.int64)
