"""Combination functions over member outputs (Ali & Pazzani 1995; Fan et al. 2005; Buntine 1990).

Every function takes the leaf class counts each test row reaches in each tree, a float array
``counts`` of shape (tree, sample, class), and returns class probabilities (or vote fractions)
of shape (sample, class) as NumPy arrays, so the same fitted trees can be compared under every
combination without refitting. Estimators accept the names of :data:`COMBINERS` as
``combine=``; :func:`combine_proba` dispatches on them.

A leaf without training rows (all counts 0) answers with the uniform distribution in every
function here (the estimators normally pass the parent's counts for empty leaves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import gammaln, logsumexp

__all__ = [
    "COMBINERS",
    "TIE_TOLERANCE",
    "average",
    "bayesian",
    "combine_proba",
    "distribution_sum",
    "highest_class",
    "likelihood",
    "likelihood_log_odds",
    "log_odds_proba",
    "tree_log_evidence",
    "vote",
    "vote_predict",
    "vote_tiebreak",
]


#: Probabilities within this of the highest count as tied (summed over T trees: T times it):
#: rounding makes mathematically equal means and sums differ in their last bits, and a tie
#: is decided by the lower class index, not by those bits (:func:`vote_tiebreak`,
#: :func:`highest_class`).
TIE_TOLERANCE = 1e-12


def _check_counts(counts: Any, name: str = "counts") -> np.ndarray:
    arr = np.asarray(counts)
    if arr.ndim != 3:
        raise ValueError(f"{name} must be 3-d (tree, sample, class), got shape {arr.shape}")
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be numeric, got {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.shape[0] < 1 or arr.shape[2] < 1:
        raise ValueError(f"{name} needs at least one tree and one class, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or (arr.size and arr.min() < 0):
        raise ValueError(f"{name} must hold finite non-negative counts")
    return arr


def _frequency(counts: np.ndarray) -> np.ndarray:
    """Per-tree frequency estimates n_c / n; uniform for an empty leaf."""
    total = counts.sum(axis=2, keepdims=True)
    n_classes = counts.shape[2]
    safe = np.where(total > 0, total, 1.0)
    return np.where(total > 0, counts / safe, 1.0 / n_classes)


def _laplace(counts: np.ndarray) -> np.ndarray:
    """Per-tree Laplace estimates (n_c + 1) / (n + C)."""
    n_classes = counts.shape[2]
    return (counts + 1.0) / (counts.sum(axis=2, keepdims=True) + n_classes)


def average(counts: Any, *, laplace: bool = False) -> np.ndarray:
    """Probability averaging: the mean over trees of the leaf estimates.

    P(c | x) = (1/T) sum_t n_tc / n_t, or with ``laplace=True`` (1/T) sum_t (n_tc + 1) / (n_t + C).
    The default combination and the ensemble's ``predict_proba``; argmax predicts.

    Curtailment happens before: the estimator passes, per tree, the counts of the node that
    answers (the leaf, or its deepest ancestor holding at least ``curtail_min`` rows).

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts (curtailed as the estimator does).
    laplace : bool, default False
        Use Laplace-corrected leaf estimates.

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    arr = _check_counts(counts)
    est = _laplace(arr) if laplace else _frequency(arr)
    return est.mean(axis=0)


def _tree_votes(arr: np.ndarray) -> np.ndarray:
    """Votes per (sample, class): each tree votes its leaf's majority class (ties: lowest)."""
    n_trees, n_samples, n_classes = arr.shape
    winners = np.argmax(arr, axis=2)  # (tree, sample)
    flat = (np.arange(n_samples) * n_classes)[None, :] + winners
    return np.bincount(flat.ravel(), minlength=n_samples * n_classes).reshape(n_samples, n_classes)


def vote(counts: Any) -> np.ndarray:
    """Uniform voting: the fraction of trees whose leaf majority is each class.

    Each tree votes argmax_c n_tc (ties to the lower class index). Returns vote fractions
    (sample, class); use :func:`vote_predict` for the class with the spec's tie-break.

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts.

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    arr = _check_counts(counts)
    return _tree_votes(arr) / arr.shape[0]


def vote_predict(counts: Any, laplace: bool = False) -> np.ndarray:
    """Class indices by uniform voting with the spec's tie-break.

    Most votes wins; among tied classes, the larger summed leaf probability sum_t n_tc / n_t
    (the Laplace estimates sum_t (n_tc + 1) / (n_t + C) with ``laplace``; equal within
    1e-12 T counts as tied); then the lower class index. An estimator's ``predict`` with
    ``combine="vote"`` is ``vote_predict(member_counts(X), laplace=est.laplace)``.

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts (as the estimators answer them: curtailed, an empty leaf its
        parent's).
    laplace : bool, default False
        Break ties by the summed Laplace estimates instead of the frequencies.

    Returns
    -------
    numpy.ndarray of int64, (sample,)
    """
    arr = _check_counts(counts)
    if not isinstance(laplace, bool | np.bool_):
        raise TypeError(f"laplace must be a bool, got {laplace!r}")
    leaf = _laplace(arr) if laplace else _frequency(arr)
    return vote_tiebreak(_tree_votes(arr), leaf.sum(axis=0), arr.shape[0])


def vote_tiebreak(votes: Any, summed: Any, n_trees: int) -> np.ndarray:
    """Winning class per row: most votes, then the larger summed probability, then the lower
    class index.

    Sums within 1e-12 T of the largest among the classes with most votes count as tied, since
    rounding makes mathematically equal sums (6/7 + 0 and 2/7 + 4/7) differ in the last bit.

    Parameters
    ----------
    votes : array-like, (sample, class)
        Each class's number of tree votes.
    summed : array-like, (sample, class)
        Each class's summed leaf probability over the trees.
    n_trees : int
        Number of trees T (the tolerance's scale).

    Returns
    -------
    numpy.ndarray of int64, (sample,)
    """
    votes = np.asarray(votes)
    summed = np.asarray(summed, dtype=np.float64)
    if votes.ndim != 2 or votes.shape != summed.shape or votes.shape[1] < 1:
        raise ValueError(f"votes and summed must be (sample, class) arrays of one shape, got "
                         f"{votes.shape} and {summed.shape}")
    if isinstance(n_trees, bool) or int(n_trees) != n_trees or n_trees < 1:
        raise ValueError(f"n_trees must be a positive integer, got {n_trees!r}")
    top = votes == votes.max(axis=1, keepdims=True)
    score = np.where(top, summed, -np.inf)
    best = score.max(axis=1, keepdims=True)
    tied = score >= best - TIE_TOLERANCE * n_trees
    return np.argmax(tied, axis=1).astype(np.int64)


def highest_class(proba: Any) -> np.ndarray:
    """Class index of the highest probability per row, ties to the lower class index.

    Probabilities within 1e-12 of the row's largest count as tied, since rounding makes
    mathematically equal means differ in their last bits: the mean of ten trees' estimates
    that is exactly 1/2 for both classes came out 0.49999999999999994 and 0.5, and the bare
    argmax then answered the second class by that bit. The same rule as
    :func:`vote_tiebreak`'s on sums (1e-12 T); a genuine difference below 1e-12 is beyond
    what the floats resolve anyway.

    Parameters
    ----------
    proba : array-like, (sample, class)

    Returns
    -------
    numpy.ndarray of int64, (sample,)

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.1, 0.7, 0.7], [0.49999999999999994, 0.5, 0.0]])
    >>> highest_class(p).tolist(), np.argmax(p, axis=1).tolist()
    ([1, 0], [1, 1])
    """
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 1:
        raise ValueError(f"proba must be a (sample, class) array, got shape {p.shape}")
    best = p.max(axis=1, keepdims=True)
    return np.argmax(p >= best - TIE_TOLERANCE, axis=1).astype(np.int64)


def distribution_sum(counts: Any) -> np.ndarray:
    """Distribution summation: add the leaves' class-count vectors, then normalise.

    P(c | x) = sum_t n_tc / sum_t n_t (uniform when every leaf is empty); argmax predicts.

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts.

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    arr = _check_counts(counts)
    return _frequency(arr.sum(axis=0)[None])[0]


def _check_class_totals(class_totals: Any, shape: tuple[int, ...]) -> np.ndarray:
    tot = np.asarray(class_totals)
    if tot.dtype.kind not in "fiu":
        raise TypeError(f"class_totals must be numeric, got {tot.dtype}")
    if tot.shape != (shape[0], shape[2]):
        raise ValueError(
            f"class_totals must have shape (tree, class) = ({shape[0]}, {shape[2]}), "
            f"got {tot.shape}"
        )
    tot = tot.astype(np.float64)
    if not np.all(np.isfinite(tot)) or (tot.size and tot.min() < 0):
        raise ValueError("class_totals must hold finite non-negative counts")
    return tot


def likelihood_log_odds(counts: Any, class_totals: Any) -> np.ndarray:
    """Posterior log odds of the likelihood combination (Ali & Pazzani 1995).

    log O(c | x) = log O(c) + sum_t log LS_t(c), with the logical sufficiencies LS_t(c) and
    prior odds O(c) of :func:`likelihood`. The paper assigns a row to the class of highest
    posterior odds: take the argmax of these, not of :func:`likelihood`'s probabilities, in
    which classes of large odds all round to the same value (odds e^43 and e^45 both give
    p = O / (1 + O) = 1.0 in floating point).

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts, not curtailed (the estimators pass an empty leaf's parent counts).
    class_totals : array-like, (tree, class)
        Training class counts of each tree (its root counts).

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    arr = _check_counts(counts)
    tot = _check_class_totals(class_totals, arr.shape)
    n_leaf = arr.sum(axis=2, keepdims=True)
    n_tree = tot.sum(axis=1)[:, None]
    log_ls = (
        np.log(arr + 1.0)
        - np.log(tot + 2.0)[:, None, :]
        - np.log(n_leaf - arr + 1.0)
        + np.log(n_tree - tot + 2.0)[:, None, :]
    ).sum(axis=0)
    mean_tot = tot.mean(axis=0)
    n_classes = arr.shape[2]
    prior = (mean_tot + 1.0) / (mean_tot.sum() + n_classes)
    log_odds = np.log(prior) - np.log1p(-prior) if n_classes > 1 else np.zeros(1)
    return log_odds[None, :] + log_ls


def likelihood(counts: Any, class_totals: Any) -> np.ndarray:
    """Likelihood combination by logical sufficiency (Ali & Pazzani 1995).

    For tree t with training totals N_tc (N_t = sum_c N_tc) and the row's leaf counts n_tc
    (n_t = sum_c n_tc), the Laplace-corrected logical sufficiency of the leaf for class c is

        LS_t(c) = [(n_tc + 1) / (N_tc + 2)] / [(n_t - n_tc + 1) / (N_t - N_tc + 2)],

    i.e. p(x in leaf | c) / p(x in leaf | not c), each a Laplace estimate of a two-outcome event.
    The prior is p(c) = (N̄_c + 1) / (N̄ + C) from the mean training totals over trees, with
    odds O(c) = p(c) / (1 - p(c)). Posterior odds: log O(c | x) = log O(c) + sum_t log LS_t(c),
    in log space (:func:`likelihood_log_odds`). Odds become probabilities p = O / (1 + O),
    normalised to sum to one over the classes (already exact for two classes, where
    O(c0) O(c1) = 1). Classes whose odds are all very large get equal probabilities after
    rounding; the predicted class, the highest posterior odds, is the argmax of
    :func:`likelihood_log_odds`.

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts, not curtailed (the estimators pass an empty leaf's parent counts).
    class_totals : array-like, (tree, class)
        Training class counts of each tree (its root counts).

    Returns
    -------
    numpy.ndarray, (sample, class)

    Examples
    --------
    Two trees; the row reaches a leaf with counts (3, 0) in a tree trained on (6, 4) rows and
    (1, 2) in one trained on (5, 5): LS = 3 and 2/3 for class 0, prior odds 13/11, posterior
    odds 26/11.

    >>> import numpy as np
    >>> from treelab.combine import likelihood
    >>> p = likelihood(np.array([[[3.0, 0.0]], [[1.0, 2.0]]]), np.array([[6, 4], [5, 5]]))
    >>> bool(np.allclose(p, [[26 / 37, 11 / 37]]))
    True
    """
    return log_odds_proba(likelihood_log_odds(counts, class_totals))


def log_odds_proba(log_odds: Any) -> np.ndarray:
    """:func:`likelihood`'s probabilities from posterior log odds z (sample, class):
    p = O / (1 + O), normalised to sum to one over the classes, in log space."""
    z = np.asarray(log_odds, dtype=np.float64)
    log_p = -np.logaddexp(0.0, -z)  # log(O / (1 + O))
    return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))


def bayesian(counts: Any, log_evidence: Any) -> np.ndarray:
    """Bayesian combination (Buntine 1990): trees weighted by their posterior.

    w_t = exp(log_evidence_t) / sum_s exp(log_evidence_s) (computed as exp(l_t - max_s l_s)
    normalised to sum 1, exact at any magnitude of the log evidence; a uniform structure
    prior), and P(c | x) = sum_t w_t (n_tc + 1) / (n_t + C), the weighted average of the trees'
    Laplace estimates. ``log_evidence`` comes from :func:`tree_log_evidence`. The weights
    compare trees on one data set D: the estimators pass each tree's evidence of the rows it was
    grown on, which is that D only where every tree saw the same rows (not for bagged trees).

    Parameters
    ----------
    counts : array-like, (tree, sample, class)
        Leaf class counts, not curtailed (the estimators pass an empty leaf's parent counts).
    log_evidence : array-like, (tree,)
        Log marginal likelihood of each tree (plus any log structure prior).

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    arr = _check_counts(counts)
    ev = np.asarray(log_evidence)
    if ev.dtype.kind not in "fiu":
        raise TypeError(f"log_evidence must be numeric, got {ev.dtype}")
    if ev.shape != (arr.shape[0],):
        raise ValueError(f"log_evidence must have shape ({arr.shape[0]},), got {ev.shape}")
    ev = ev.astype(np.float64)
    if np.any(np.isnan(ev)) or np.any(ev == np.inf) or np.all(ev == -np.inf):
        raise ValueError("log_evidence must be finite (or -inf for some trees only)")
    # shift by the largest log evidence, then normalise the weights themselves: at large
    # magnitudes ev - logsumexp(ev) rounds to 0 for every tied tree and the weights sum to
    # the number of ties (e.g. 2 for two trees at 1e17)
    weights = np.exp(ev - ev.max())
    weights /= weights.sum()
    return np.einsum("t,tsc->sc", weights, _laplace(arr))


def tree_log_evidence(leaf_counts: Any, leaf_tree: Any, n_trees: int) -> np.ndarray:
    """Log marginal likelihood of each tree under a uniform Dirichlet prior at every leaf.

    log p(D | T) = sum_leaves [log Gamma(C) - log Gamma(n + C) + sum_c log Gamma(n_c + 1)]
    (Buntine 1990), via ``scipy.special.gammaln``.

    Parameters
    ----------
    leaf_counts : array-like, (n_leaves, class)
        Training class counts of every leaf of every tree.
    leaf_tree : array-like of int, (n_leaves,)
        Tree index (0..n_trees-1) of each leaf.
    n_trees : int
        Number of trees; a tree without leaves gets 0.

    Returns
    -------
    numpy.ndarray, (tree,)
    """
    lc = np.asarray(leaf_counts)
    lt = np.asarray(leaf_tree)
    if lc.ndim != 2 or lc.dtype.kind not in "fiu":
        raise ValueError(f"leaf_counts must be a numeric (n_leaves, class) array, got {lc.shape}")
    if lt.shape != (lc.shape[0],) or lt.dtype.kind not in "iu":
        raise ValueError(f"leaf_tree must be integers of shape ({lc.shape[0]},), got {lt.shape}")
    if int(n_trees) != n_trees or n_trees < 1:
        raise ValueError(f"n_trees must be a positive integer, got {n_trees!r}")
    if lt.size and (lt.min() < 0 or lt.max() >= n_trees):
        raise ValueError(f"leaf_tree must lie in 0..{n_trees - 1}")
    lc = lc.astype(np.float64)
    if lc.size and lc.min() < 0:
        raise ValueError("leaf_counts must be non-negative")
    n_classes = lc.shape[1]
    per_leaf = gammaln(n_classes) - gammaln(lc.sum(axis=1) + n_classes)
    per_leaf = per_leaf + gammaln(lc + 1.0).sum(axis=1)
    return np.bincount(lt, weights=per_leaf, minlength=int(n_trees))


COMBINERS: dict[str, Callable[..., np.ndarray]] = {
    "average": average,
    "vote": vote,
    "sum": distribution_sum,
    "likelihood": likelihood,
    "bayesian": bayesian,
}


def combine_proba(
    name: str,
    counts: Any,
    *,
    class_totals: Any = None,
    log_evidence: Any = None,
    laplace: bool = False,
) -> np.ndarray:
    """Combine member leaf counts with the combination function called ``name``.

    Parameters
    ----------
    name : {"average", "vote", "sum", "likelihood", "bayesian"}
        Combination function (``"distribution_sum"`` is accepted for ``"sum"``).
    counts : array-like, (tree, sample, class)
        Leaf class counts.
    class_totals : array-like, (tree, class), optional
        Required by ``"likelihood"``.
    log_evidence : array-like, (tree,), optional
        Required by ``"bayesian"``.
    laplace : bool, default False
        Laplace-corrected leaf estimates for ``"average"`` (the other functions ignore it:
        likelihood and Bayesian combination always use Laplace estimates).

    Returns
    -------
    numpy.ndarray, (sample, class)
    """
    key = "sum" if name == "distribution_sum" else name
    if key not in COMBINERS:
        raise ValueError(f"combine: unknown name {name!r}; choose from {sorted(COMBINERS)}")
    if key == "average":
        return average(counts, laplace=laplace)
    if key == "likelihood":
        if class_totals is None:
            raise ValueError("combine='likelihood' needs class_totals (tree, class)")
        return likelihood(counts, class_totals)
    if key == "bayesian":
        if log_evidence is None:
            raise ValueError("combine='bayesian' needs log_evidence (tree,)")
        return bayesian(counts, log_evidence)
    return COMBINERS[key](counts)
