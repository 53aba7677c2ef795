"""Voting error of an ensemble whose members err independently (Ali & Pazzani 1995, §5.3).

The model, per true class k: member t votes k with probability 1 - e_t (its error rate over all
rows) and a wrong class l with probability e_t r_t(l | k), where r_t(l | k) is the share of t's
wrong votes on rows of class k that went to l (if t never erred on class k: the share among
its wrong votes for classes other than k on all rows; if none either: uniform over the classes
l != k that members can vote, those of ``classes`` and not a true class no member saw; with no
such class, t votes k).
The ensemble errs on a row of class k when k loses the vote under the estimator's tie rule for
one-hot members: most votes wins, a tie goes to the lower class index. The error is
sum_k p(y = k) P(k loses | y = k), p(y = k) the share of rows of class k.

P(k loses | y = k) is computed exactly by dynamic programming over the vote counts of the wrong
classes that can receive votes (the correct count is T minus their sum), while that table has
at most ``max_states`` cells; beyond, by seeded Monte Carlo over ``n_draws`` simulated rows,
with its standard error reported. The union bound sum_l P(V_l >= V_k) (each term exact, by DP
over the vote difference) comes first: below 1e-12 the class counts as never losing (exact to
1e-12); where the table is too large and the bound is below 1 / n_draws (less than the draws
could resolve), the class's loss is reported as 0 with the bound as its standard error (the
value lies between 0 and the bound). The method (``"exact"``, ``"union bound"``,
``"monte carlo"``, joined with ``+``) says which were used.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from treelab.engine.kernels._votes import difference_tails, lost_draws, vote_table

__all__ = ["IndependentError", "independent_vote_error", "vote_model"]

#: Default size limit of the exact table (cells of (T + 1)^W, W the wrong classes in play).
MAX_STATES = 250_000


class IndependentError(NamedTuple):
    """The independent-errors voting error, its Monte Carlo standard error (0 when exact)
    and how it was computed (``"exact"`` or ``"monte carlo"``)."""

    error: float
    se: float
    method: str


def vote_model(labels: np.ndarray, y: np.ndarray, n_classes: int,
               weights: np.ndarray | None = None, n_known: int | None = None) -> np.ndarray:
    """``model[t, k, l]`` = P(member t votes l | true class k) under the independence model;
    ``weights`` (sample,) count each row that many times (a bootstrap replicate); classes
    from ``n_known`` on are true classes no member saw, which get no votes."""
    n_trees, n_samples = labels.shape
    C = n_classes
    n_known = C if n_known is None else n_known
    wrong = labels != y[None, :]
    # conf[t, k, l]: t's votes l on rows of class k (wrong votes only, l != k)
    flat = (np.arange(n_trees)[:, None] * C + y[None, :]) * C + labels
    if weights is None:
        e = wrong.sum(axis=1) / n_samples
        conf = np.bincount(flat[wrong], minlength=n_trees * C * C).reshape(n_trees, C, C)
    else:
        w = np.broadcast_to(weights[None, :], wrong.shape)
        e = np.where(wrong, w, 0.0).sum(axis=1) / weights.sum()
        conf = np.bincount(flat[wrong], weights=w[wrong],
                           minlength=n_trees * C * C).reshape(n_trees, C, C)
    conf = conf.astype(np.float64)
    pooled = conf.sum(axis=1)[:, None, :] * (1.0 - np.eye(C))[None]  # wrong votes l != k
    # a member cannot vote a class it never saw: those get no share of the uniform split
    uniform = (1.0 - np.eye(C)) * (np.arange(C) < n_known)[None, :]
    uniform = np.broadcast_to(uniform[None], conf.shape)
    split = np.where(conf.sum(axis=2, keepdims=True) > 0, conf, pooled)
    split = np.where(split.sum(axis=2, keepdims=True) > 0, split, uniform)
    total = split.sum(axis=2, keepdims=True)
    split = split / np.where(total > 0, total, 1.0)
    # no class to err to (C = 1, or k the only class members can vote): t votes k
    right = 1.0 - e[:, None] * (total[..., 0] > 0)
    model = e[:, None, None] * split
    model[:, np.arange(C), np.arange(C)] = right
    return model


#: Below this union bound on P(k loses) the class counts as never losing.
NEGLIGIBLE = 1e-12


def _union_bound(p: np.ndarray, k: int, wrong: np.ndarray) -> float:
    """sum over wrong classes l of P(V_l >= V_k): an upper bound on P(k loses), exact per pair
    by DP over the vote difference V_l - V_k (each member adds +1, -1 or 0)."""
    tails = difference_tails(np.ascontiguousarray(p), int(k), wrong.astype(np.int64))
    return float(tails.sum())


def _loses_exact(p: np.ndarray, k: int, wrong: np.ndarray) -> float:
    """P(class k loses) by DP over the vote counts of the classes ``wrong``; p (tree, class)."""
    n_trees = p.shape[0]
    W = wrong.size
    # the DP in a kernel (one pass over the table a member, no temporaries): the same bits as
    # the NumPy steps it replaces, which a test keeps beside it
    table = vote_table(np.ascontiguousarray(p, dtype=np.float64), int(k),
                       np.ascontiguousarray(wrong, dtype=np.int64)).reshape((n_trees + 1,) * W)
    grids = np.indices(table.shape)
    v_k = n_trees - grids.sum(axis=0)
    wins = v_k >= 0
    for axis, cls in enumerate(wrong):
        # a tie with a lower-index class loses; with a higher-index class it wins
        wins &= grids[axis] < v_k if cls < k else grids[axis] <= v_k
    return float(max(0.0, 1.0 - table[wins].sum()))


def _loses_mc(p: np.ndarray, k: int, n_draws: int, seed: int) -> float:
    """Share of ``n_draws`` simulated rows on which class k loses; p (tree, class)."""
    cum = np.cumsum(p, axis=1)
    cum[:, -1] = 1.0  # guard the last edge against rounding
    return lost_draws(np.ascontiguousarray(cum), int(k), int(n_draws), np.uint64(seed)) / n_draws


def independent_vote_error(
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    *,
    max_states: int = MAX_STATES,
    n_draws: int = 2_000,
    random_state: int = 0,
    n_known: int | None = None,
    weights: np.ndarray | None = None,
) -> IndependentError:
    """Voting error under independent member errors (see the module docstring); classes from
    ``n_known`` on are true classes no member saw, lost on every row. ``weights`` (sample,),
    counts of the rows (a bootstrap replicate), weigh every count of the model and the class
    shares; None counts each row once."""
    n_trees, n_samples = labels.shape
    n_known = n_classes if n_known is None else n_known
    model = vote_model(labels, y, n_classes, weights, n_known)
    if weights is None:
        share = np.bincount(y, minlength=n_classes) / n_samples
    else:
        share = np.bincount(y, weights=weights, minlength=n_classes) / weights.sum()
    # one seed per class, so a class's estimate does not depend on which others were simulated
    seeds = np.random.default_rng(random_state).integers(0, 2**63, size=n_classes)
    error, var, methods = 0.0, 0.0, set()
    for k in np.flatnonzero(share):
        if k >= n_known:  # no member can vote a class it never saw
            error += share[k]
            continue
        p = model[:, k, :]
        wrong = np.array([c for c in range(n_classes) if c != k and p[:, c].any()], dtype=int)
        bound = _union_bound(p, int(k), wrong) if wrong.size else 0.0
        if bound < NEGLIGIBLE:
            continue
        if float(n_trees + 1) ** wrong.size <= max_states:
            methods.add("exact")
            lost = _loses_exact(p, int(k), wrong)
        elif bound < 1.0 / n_draws:
            # below what the draws could resolve: the loss lies in [0, bound]; report 0 with
            # the bound as its uncertainty instead of simulating
            methods.add("union bound")
            lost = 0.0
            var += (share[k] * bound) ** 2
        else:
            methods.add("monte carlo")
            lost = _loses_mc(p, int(k), n_draws, int(seeds[k]))
            var += share[k] ** 2 * lost * (1.0 - lost) / n_draws
        error += share[k] * lost
    method = " + ".join(sorted(methods)) if methods else "exact"
    return IndependentError(min(1.0, error), float(np.sqrt(var)), method)
