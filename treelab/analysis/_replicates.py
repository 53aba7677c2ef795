"""Diagnose's measures that are functions of the test rows but not smooth functions of row
means, recomputed at bootstrap row weights for their intervals.

Each measure here is written as a function of row weights w (replicate, sample), the counts of
a bootstrap replicate, that recomputes the measure on the replicate's rows with the ensemble and
the per-row quantities (labels, forecast vectors, scores) held fixed, exactly as
:mod:`treelab.analysis.intervals` does for the other measures; at unit weights it is
diagnose's own value (tested for every one):

* ``independent_error`` (Ali & Pazzani 1995): the independence model's member error rates
  e_t = sum_i w_i [t errs on i] / sum_i w_i, the wrong-vote splits and class shares from the
  weighted counts, then the same exact dynamic programme. Only where diagnose's value is exact:
  a Monte Carlo value would add its simulation noise to every replicate.
* ``mean_q_statistic``, ``mean_correlation``, ``mean_kappa`` (Kuncheva & Whitaker 2003;
  Cohen 1960): every pair's counts N11 = sum_i w_i o_ti o_ki (o the oracle outputs), N10, N01,
  N00 from N = sum w and n_t = sum_i w_i o_ti, and the label agreements sum_i w_i [f_t = f_k]
  and class shares of kappa, then the mean over the pairs where each is defined. A replicate
  costs about (C + 1) T^2 N multiply-adds (C classes, T trees, N rows).
* ``brier_reliability``, ``brier_resolution``, ``brier_uncertainty`` (Murphy 1973): the
  forecast groups (rows with identical probability vectors f_k) are fixed; a replicate's group
  sizes N_k and observed class frequencies o_k are weighted counts, REL =
  sum_k N_k ||f_k - o_k||^2 / N, RES = sum_k N_k ||o_k - o||^2 / N and UNC = sum_c o_c (1 - o_c)
  of the weighted class shares o (constant under the stratified replicates: diagnose asks for
  it only with ``ci_resample="rows"``).
* ``auc_ovr``: the one-vs-rest AUC of class c is sum_{i in c, j not in c} w_i w_j
  ([s_i > s_j] + [s_i = s_j] / 2) / (W_c W_not c), a weighted two-sample U statistic of the
  scores s = p_c (the macro average over classes; class 1's for two classes); NaN in a
  replicate that drew no row of a class (or only rows of it), as ``roc_auc_score`` has no
  value there.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np

from treelab.analysis._dataset import Var
from treelab.analysis._independent import independent_vote_error
from treelab.analysis.probability import unit_rows

__all__ = ["Statistic", "replicate_statistics"]

#: Measures at row weights: (replicate, sample) -> {name: (replicate,)}.
Statistic = Callable[[np.ndarray], dict[str, np.ndarray]]

PAIR_MEANS = ("mean_q_statistic", "mean_correlation", "mean_kappa")
#: diagnose's per-pair matrices (measures=["pairwise_diversity"]) and pairwise_stats' keys.
PAIR_MATRICES = {"q_statistic": "q_statistic", "pairwise_diversity_correlation": "correlation",
                 "disagreement": "disagreement", "double_fault": "double_fault",
                 "kappa": "kappa", "pair_error": "pair_error"}
#: Murphy's terms at row weights, in the order :class:`_Murphy` computes them.
_MURPHY = ("brier_reliability", "brier_resolution", "brier_uncertainty")
#: Cells (replicate x tree x row) of one batch of the pair counts' matrix products.
_BATCH_CELLS = 2**22


def replicate_statistics(
    variables: Mapping[str, Var],
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    proba: np.ndarray,
    n_known: int,
) -> list[Statistic]:
    """The statistics of the measures above present in diagnose's ``variables`` (each gives
    one or more of them).

    ``labels`` (tree, sample) and ``y`` are class codes over ``n_classes`` (the known classes,
    then test classes the ensemble never saw, from ``n_known`` on); ``proba`` (sample,
    n_classes) the ensemble's probabilities, renormalised here as probability_quality's.
    """
    out: list[Statistic] = []
    if "independent_error" in variables:
        out.append(_independent(labels, y, n_classes, n_known))
    wanted = [name for name in PAIR_MEANS if name in variables]
    if wanted and labels.shape[0] > 1:
        out.append(_PairMeans(labels, y, n_classes, wanted).statistic)
    matrices = {name: key for name, key in PAIR_MATRICES.items() if name in variables}
    if matrices:
        out.append(_pair_matrices(labels, y, n_classes, matrices))
    unit = unit_rows(proba)
    wanted = [name for name in _MURPHY if name in variables]
    if wanted:
        out.append(_Murphy(unit, y, wanted).statistic)
    if "auc_ovr" in variables:
        out.append(_auc_ovr(unit, y))
    return out


def _pair_matrices(labels: np.ndarray, y: np.ndarray, n_classes: int,
                   names: dict[str, str]) -> Statistic:
    """The per-pair matrices of :func:`treelab.analysis.pairwise_diversity` on the rows
    repeated w_i times (one vectorised computation over all pairs per replicate)."""
    from treelab.analysis.kuncheva import pairwise_stats

    rows = np.arange(y.size)

    def statistic(weights: np.ndarray) -> dict[str, np.ndarray]:
        values: dict[str, list] = {name: [] for name in names}
        for w in _rows(weights):
            taken = np.repeat(rows, w.astype(np.int64))
            st = pairwise_stats(labels[None, :, taken], y[None, taken], n_classes)
            for name, key in names.items():
                values[name].append(st[key][0])
        return {name: np.stack(v) for name, v in values.items()}

    return statistic


def _rows(weights: np.ndarray) -> np.ndarray:
    return np.atleast_2d(np.asarray(weights, dtype=np.float64))


def _independent(labels: np.ndarray, y: np.ndarray, n_classes: int, n_known: int) -> Statistic:
    exact = independent_vote_error(labels, y, n_classes, n_known=n_known).method == "exact"

    def statistic(weights: np.ndarray) -> dict[str, np.ndarray]:
        w = _rows(weights)
        if not exact:  # no interval around a simulated value: NaN, with the reason documented
            return {"independent_error": np.full(w.shape[0], np.nan)}
        return {"independent_error": np.array([
            independent_vote_error(labels, y, n_classes, n_known=n_known, weights=row).error
            for row in w])}

    return statistic


class _PairMeans:
    """Mean Q, rho and kappa over the pairs of trees at row weights."""

    def __init__(self, labels: np.ndarray, y: np.ndarray, n_classes: int,
                 names: list[str]) -> None:
        n_trees, n_rows = labels.shape
        self.names = names
        # 0/1 products summed with integer weights: exact in float32 below 2^24 rows
        self.dtype = np.float32 if n_rows < 2**24 else np.float64
        self.oracle = (labels == y[None, :]).astype(self.dtype)
        present = [c for c in range(n_classes) if np.any(labels == c)]
        self.onehot = np.stack([(labels == c) for c in present]).astype(self.dtype)
        self.iu = np.triu_indices(n_trees, 1)

    def statistic(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        w = _rows(weights)
        n_trees, n_rows = self.oracle.shape
        # replicates per batch: one matrix product per batch and class (a few MB each), not
        # one small product per replicate
        step = max(1, _BATCH_CELLS // (n_trees * n_rows))
        means = np.concatenate([self._batch(w[i:i + step]) for i in range(0, w.shape[0], step)])
        return {name: means[:, PAIR_MEANS.index(name)] for name in self.names}

    def _gram(self, a: np.ndarray, wf: np.ndarray) -> np.ndarray:
        """sum_i w_bi a_ti a_ki for every replicate b: (batch, tree, tree) in float64."""
        n_trees, n_rows = a.shape
        scaled = (wf[:, None, :] * a[None, :, :]).reshape(-1, n_rows)
        return (scaled @ a.T).reshape(wf.shape[0], n_trees, n_trees).astype(np.float64)

    def _batch(self, w: np.ndarray) -> np.ndarray:
        wf = w.astype(self.dtype)
        n = w.sum(axis=1)[:, None, None]
        o = self.oracle
        n11 = self._gram(o, wf)
        n_t = (wf @ o.T).astype(np.float64)
        a, b = n_t[:, :, None], n_t[:, None, :]
        n10, n01 = a - n11, b - n11
        n00 = n - a - b + n11
        share = np.stack([(wf @ lc.T).astype(np.float64) for lc in self.onehot],
                         axis=2) / n[:, :, 0, None]  # (batch, tree, class)
        p_e = share @ share.transpose(0, 2, 1)
        agree = sum(self._gram(lc, wf) for lc in self.onehot)
        with np.errstate(divide="ignore", invalid="ignore"):
            num = n11 * n00 - n01 * n10
            q = num / (n11 * n00 + n01 * n10)
            rho = num / np.sqrt(a * (n - a) * b * (n - b))
            kappa = (agree / n - p_e) / (1.0 - p_e)
        kappa[np.isclose(p_e, 1.0, rtol=0.0, atol=1e-12)] = np.nan
        iu0, iu1 = self.iu
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # no defined pair: NaN
            return np.stack([np.nanmean(m[:, iu0, iu1], axis=1) for m in (q, rho, kappa)],
                            axis=1)


class _Murphy:
    """Murphy's reliability and resolution at row weights, forecast groups fixed."""

    def __init__(self, unit: np.ndarray, y: np.ndarray, names: list[str]) -> None:
        self.names = names
        self.n_classes = unit.shape[1]
        fc, group = np.unique(unit, axis=0, return_inverse=True)
        self.forecasts = fc
        self.cell = group.ravel() * self.n_classes + y

    def statistic(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        terms = np.stack([self._one(row) for row in _rows(weights)])
        return {name: terms[:, _MURPHY.index(name)] for name in self.names}

    def _one(self, w: np.ndarray) -> np.ndarray:
        k, c = self.forecasts.shape
        counts = np.bincount(self.cell, weights=w, minlength=k * c).reshape(k, c)
        n_k = counts.sum(axis=1)
        n = n_k.sum()
        used = n_k > 0
        obs = counts[used] / n_k[used, None]
        base = counts.sum(axis=0) / n
        rel = np.sum(n_k[used] * np.sum((self.forecasts[used] - obs) ** 2, axis=1)) / n
        res = np.sum(n_k[used] * np.sum((obs - base) ** 2, axis=1)) / n
        return np.array([rel, res, np.sum(base * (1.0 - base))])


def _auc_ovr(unit: np.ndarray, y: np.ndarray) -> Statistic:
    n_c = unit.shape[1]
    if np.unique(y).size != n_c:  # diagnose's value is NaN: so is every replicate
        return lambda weights: {"auc_ovr": np.full(_rows(weights).shape[0], np.nan)}
    columns = [1] if n_c == 2 else list(range(n_c))
    parts: list[tuple[np.ndarray, np.ndarray, int]] = []
    for c in columns:
        _, level = np.unique(unit[:, c], return_inverse=True)
        level = level.ravel()
        parts.append((level, y == c, int(level.max()) + 1))

    def one(w: np.ndarray) -> float:
        aucs = []
        for level, pos, n_levels in parts:
            w_pos = np.bincount(level[pos], weights=w[pos], minlength=n_levels)
            w_neg = np.bincount(level[~pos], weights=w[~pos], minlength=n_levels)
            below = np.cumsum(w_neg) - w_neg  # negatives' weight at lower scores
            with np.errstate(divide="ignore", invalid="ignore"):  # a class not drawn: NaN
                aucs.append(np.sum(w_pos * (below + 0.5 * w_neg)) / (w_pos.sum() * w_neg.sum()))
        return float(np.mean(aucs))

    return lambda weights: {"auc_ovr": np.array([one(row) for row in _rows(weights)])}

