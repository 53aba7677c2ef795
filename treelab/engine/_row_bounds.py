"""How many rows, counted with their multiplicity, one tree can see: the bound the growth
kernels' x log2 x table is sized by, for plain, bootstrap and weighted constructions."""

from __future__ import annotations

import numpy as np

from treelab.engine.kernels import _grow as G


def bootstrap_weight_bound(w: np.ndarray) -> float:
    """A bound on the weighted rows of one bootstrap sample (n draws, with replacement, of
    rows of weights ``w``) that no sample exceeds but with probability below 1e-26.

    The sum S of n independent draws lies in [0, n max w]; by Bernstein's inequality
    P(S > E S + t) <= exp(-t^2 / (2 (n var + max t / 3))), and t = 40 sqrt(n E[w^2]) makes the
    exponent at least 60 (E[w^2] >= max^2 / n). Sized by it, a table holds skewed weights (a
    few large class weights) in far less memory than n max w; should a sample exceed it, the
    growth kernel refuses the tree (never reads past the table).
    """
    w = np.asarray(w, dtype=np.float64)
    n = w.shape[0]
    top = float(w.max(initial=0.0))
    if n == 0:
        return 0.0
    mean = float(w.mean())
    rms = float(np.sqrt(np.mean(w * w)))
    return min(n * top, n * mean + 40.0 * np.sqrt(n) * rms + top)


def weighted_rows(n: int, row_mode: int, part: np.ndarray,
                  sample_weight: np.ndarray | None = None) -> int:
    """The most rows, counted with multiplicity, that one tree can see: the bound on every
    class count, node size and branch size the ``xlogx`` table is indexed by. With
    ``ROWS_WEIGHTS`` it is the sum of the multiplicities (a rotation tree grows on its distinct
    bootstrap rows, n rows in all); otherwise n (a bootstrap draws n rows). Integer sample
    weights multiply each row's multiplicity: the bound is then their sum, or for a bootstrap
    ``bootstrap_weight_bound``."""
    if row_mode == G.ROWS_WEIGHTS:
        return max(n, int(np.asarray(part, dtype=np.int64).sum()))
    if sample_weight is not None:
        sw = np.asarray(sample_weight, dtype=np.int64)
        if row_mode == G.ROWS_BOOTSTRAP:
            return int(np.ceil(bootstrap_weight_bound(sw)))
        return int(sw.sum())
    return n


# most rows, counted with their weights, a weighted fit's tree may hold: its x log2 x table
# takes 8 bytes a row (2 GiB here), and class counts are int32
MAX_WEIGHTED_ROWS = 1 << 28
