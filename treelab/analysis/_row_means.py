"""Diagnose's measures that are means (or smooth functions of means) of per-row quantities,
written as recipes for the bootstrap intervals: the rows' columns, whose weighted means a
replicate takes, and the function of those means that gives the measure.

A measure M = f(mean_i x_i) over the test rows (x_i a row of ``columns``) is, at bootstrap row
weights w, f(sum_i w_i x_i / sum_i w_i); with unit weights it is diagnose's value (tested for
every recipe). The intervals of :mod:`treelab.analysis.intervals` reweight these columns with
the same weights as the error, diversity and strength measures (stratified by class, or
drawn from all rows for ``ci_resample="rows"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from treelab import _dims
from treelab.analysis._dataset import Var
from treelab.analysis.diversity import _vote_labels
from treelab.analysis.probability import thresholded_rows, topk_rank, unit_rows
from treelab.combine import vote_tiebreak

__all__ = ["MARGIN_THETA", "RowMeans", "row_mean_recipes"]

#: The margin values theta of ``margin_cdf`` (its default grid).
MARGIN_THETA = np.linspace(-1.0, 1.0, 201)


class RowMeans(NamedTuple):
    """A measure as f(weighted column means of per-row quantities)."""

    columns: np.ndarray                          # (sample, m)
    finish: Callable[[np.ndarray], np.ndarray]   # (replicate, m) means -> (replicate, *shape)
    dims: tuple[str, ...]                        # the measure's dims (after replicate)


def _first(means: np.ndarray) -> np.ndarray:
    return means[:, 0]


def _same(means: np.ndarray) -> np.ndarray:
    return means


def _ratio(n_classes: int) -> Callable[[np.ndarray], np.ndarray]:
    """Per class k: mean(wrong and y = k) / mean(y = k); NaN for a class without rows."""
    def finish(means: np.ndarray) -> np.ndarray:
        num, den = means[:, :n_classes], means[:, n_classes:]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, num / den, np.nan)
    return finish


def _sd(n_trees: int) -> Callable[[np.ndarray], np.ndarray]:
    """sd_t = sqrt(p1 + p2 - (p1 - p2)^2) from the means of hits and rival votes."""
    def finish(means: np.ndarray) -> np.ndarray:
        p1, p2 = means[:, :n_trees], means[:, n_trees:]
        return np.sqrt(np.maximum(p1 + p2 - (p1 - p2) ** 2, 0.0))
    return finish


def _nonpairwise(name: str, n_trees: int) -> Callable[[np.ndarray], np.ndarray]:
    """Kuncheva & Whitaker's non-pairwise measures from p_j, the share of rows with j members
    right (j = 0..L; GD and CFD read it reversed, by members wrong): every one is a function
    of that distribution (:func:`treelab.analysis.nonpairwise_diversity` gives the formulas)."""
    big_l = float(n_trees)
    j = np.arange(n_trees + 1, dtype=np.float64)

    def finish(p_j: np.ndarray) -> np.ndarray:
        p_bar = p_j @ (j / big_l)
        kw = p_j @ (j * (big_l - j)) / big_l**2
        if name == "mean_member_accuracy":
            return p_bar
        if name == "kw_variance":
            return kw
        if name == "difficulty":
            return np.maximum(p_j @ (j / big_l) ** 2 - p_bar**2, 0.0)
        if n_trees < 2:
            return np.full(p_j.shape[0], np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            if name == "entropy":
                return p_j @ np.minimum(j, big_l - j) / (big_l - np.ceil(big_l / 2))
            if name == "interrater_kappa":
                kappa = 1.0 - big_l * kw / ((big_l - 1) * p_bar * (1 - p_bar))
                return np.where((p_bar == 0) | (p_bar == 1), np.nan, kappa)
            fails = p_j[:, ::-1]  # share of rows with i members wrong (i = 0..L)
            if name == "generalized_diversity":
                p1 = fails @ (j / big_l)
                p2 = fails @ (j * (j - 1) / (big_l * (big_l - 1)))
                return np.where(p1 > 0, 1.0 - p2 / p1, np.nan)
            cfd_sum = fails[:, 1:] @ ((big_l - j[1:]) / (big_l - 1))  # coincident failure
            return np.where(fails[:, 0] < 1.0, cfd_sum / (1.0 - fails[:, 0]), 0.0)
    return finish


NONPAIRWISE = ("entropy", "kw_variance", "interrater_kappa", "difficulty",
               "generalized_diversity", "coincident_failure_diversity", "mean_member_accuracy")


def row_mean_recipes(
    variables: Mapping[str, Var],
    labels: np.ndarray,
    y: np.ndarray,
    ens: np.ndarray,
    n_all: int,
    *,
    votes: np.ndarray,
    summed: np.ndarray | None,
    proba: np.ndarray,
    true_proba: np.ndarray | None,
    thresholds: Any,
    ks: np.ndarray,
    n_known: int,
) -> dict[str, RowMeans]:
    """The recipes of the measures present in diagnose's ``variables``; ``summed`` breaks
    the vote ties of ``observed_error`` as :func:`arrangement_vars` does (None: one-hot)."""
    n_trees, n_rows = labels.shape
    hit = (labels == y[None, :]).T.astype(np.float64)
    out: dict[str, RowMeans] = {}
    voted = _vote_labels(votes) if summed is None else vote_tiebreak(votes, summed, n_trees)
    out["observed_error"] = RowMeans((voted != y).astype(np.float64)[:, None], _first, ())
    out["member_error"] = RowMeans((labels != y[None, :]).T.astype(np.float64), _same,
                                   (_dims.TREE,))
    if "p1" in variables:
        rival = np.asarray(variables["rival_class"].data)
        rival_votes = (labels == rival[None, :]).T.astype(np.float64)
        out["p1"] = RowMeans(hit, _same, (_dims.TREE,))
        out["p2"] = RowMeans(rival_votes, _same, (_dims.TREE,))
        out["sd"] = RowMeans(np.hstack([hit, rival_votes]), _sd(n_trees), (_dims.TREE,))
    onehot = (y[:, None] == np.arange(n_all)[None, :]).astype(np.float64)
    wrong = (ens != y).astype(np.float64)[:, None]
    out["class_error"] = RowMeans(np.hstack([onehot * wrong, onehot]), _ratio(n_all),
                                  (_dims.CLASS,))
    # the class shares: fixed by the stratified replicates, varying under ci_resample="rows"
    out["class_share"] = RowMeans(onehot, _same, (_dims.CLASS,))
    _, per_row = thresholded_rows(proba, y, thresholds, n_known)
    out["thresholded_mse"] = RowMeans(np.stack(per_row, axis=1), _same, (_dims.THRESHOLD,))
    rank = topk_rank(proba, y, n_known)
    out["topk_error"] = RowMeans((rank[:, None] >= ks[None, :]).astype(np.float64), _same,
                                 (_dims.K,))
    if true_proba is not None:
        se = np.sum((true_proba - proba[:, :n_known]) ** 2, axis=1)
        out["exact_mse"] = RowMeans(se[:, None], _first, ())
    if "brier" in variables:  # probability_quality's, of the renormalised probabilities
        unit = unit_rows(proba)
        out["brier"] = RowMeans(np.sum((unit - onehot) ** 2, axis=1)[:, None], _first, ())
        # scikit-learn's log_loss clips the probabilities to [eps, 1 - eps] (float eps)
        eps = np.finfo(unit.dtype).eps
        p_true = np.clip(unit[np.arange(n_rows), y], eps, 1.0 - eps)
        out["log_loss"] = RowMeans(-np.log(p_true)[:, None], _first, ())
    if "margin_cdf" in variables:
        margin = np.asarray(variables["margin"].data)
        out["margin_cdf"] = RowMeans((margin[:, None] <= MARGIN_THETA[None, :]).astype(float),
                                     _same, (_dims.MARGIN_THRESHOLD,))
    correct = hit.sum(axis=1).astype(np.int64)
    p_j = (correct[:, None] == np.arange(n_trees + 1)[None, :]).astype(np.float64)
    for name in NONPAIRWISE:
        if name in variables:
            out[name] = RowMeans(p_j, _nonpairwise(name, n_trees), ())
    if n_trees > 1 and "mean_disagreement" in variables:
        pairs = n_trees * (n_trees - 1) / 2.0
        fails = n_trees - correct
        out["mean_disagreement"] = RowMeans((correct * fails / pairs)[:, None], _first, ())
        out["mean_double_fault"] = RowMeans((fails * (fails - 1) / 2.0 / pairs)[:, None],
                                            _first, ())
    return {k: v for k, v in out.items() if k in variables}
