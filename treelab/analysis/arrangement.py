"""Error arrangements (Ali & Pazzani 1995, section 5.3): how the uniform-voting ensemble's error
sits between the best arrangement of the members' errors over the rows and the arrangement of
members erring independently within each class."""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from treelab import _dims
from treelab.analysis._batch import member_inputs
from treelab.analysis._cite import CITE_ARRANGEMENT, CITE_ERRORS, treelab_docs
from treelab.analysis._dataset import Var, to_dataset, vote_counts
from treelab.analysis._independent import MAX_STATES, independent_vote_error
from treelab.analysis._measure_intervals import (
    ci_options,
    ci_params,
    documents_ci_options,
    row_intervals,
)
from treelab.analysis.diversity import _ERR, _member_error, _vote_labels
from treelab.analysis.intervals import NO_INTERVAL
from treelab.combine import vote_tiebreak

__all__ = ["arrangement_vars", "error_arrangement"]


def _optimal_lost_rows(k: np.ndarray, n_samples: int) -> int:
    """Fewest rows with more than floor(T/2) errors over all arrangements of the errors.

    With L lost rows each member puts min(k_t, L) errors there; the rest, sum max(k_t - L, 0),
    must fit in the n - L other rows at most floor(T/2) per row (one per member per row; always
    possible when the total fits). The answer is the least feasible L.
    """
    m = k.size // 2
    ks = np.sort(k)
    csum = np.concatenate([[0], np.cumsum(ks)])
    cand = np.arange(n_samples + 1)
    # members with k_t > L: their surplus sum is (sum of those k) - L * count
    idx = np.searchsorted(ks, cand, side="right")
    surplus = (csum[-1] - csum[idx]) - cand * (k.size - idx)
    feasible = surplus <= m * (n_samples - cand)
    return int(np.argmax(feasible))


@documents_ci_options
def error_arrangement(
    member_labels: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    classes: Any = None,
    X: Any = None,
    max_states: int = MAX_STATES,
    n_draws: int = 2_000,
    random_state: int = 0,
    ci: float | None = None,
    ci_method: str = "bca",
    n_boot: int = 2000,
    ci_seed: int = 0,
    ci_resample: str = "stratified",
) -> xr.Dataset:
    """Observed, independent and optimal arrangements of member errors (Ali & Pazzani §5.3).

    Given the member error counts k_t = n e_t and uniform voting (T members, m = floor(T/2)):

    * ``observed_error``: the ensemble's uniform-voting error on the rows. Ties follow the
      estimator's rule (most votes, then larger summed member probability, then lower class
      index); members given as labels are one-hot, so a tie goes to the lower class index.
    * ``independent_error``: the voting error if members erred independently. Per true class
      k, member t votes k with probability 1 - e_t and a wrong class l with probability
      e_t r_t(l | k), r_t(l | k) the share of t's wrong votes on rows of class k that went to l
      (if t never erred on class k: its wrong votes for classes l != k on all rows; if none
      either: uniform over the classes l != k of ``classes``, never over a true class no
      member saw, which no member can vote). The ensemble errs when k loses the vote (a tie
      goes to the lower class index), and independent_error = sum_k p(y = k) P(k loses | y = k);
      a row of a class no member saw is lost.
      For two classes and odd T this is P(K > m) with K ~ Poisson-binomial(e_1, ..., e_T).
      Computed exactly, by dynamic programming over the vote counts of the wrong classes, while
      that table has at most ``max_states`` cells ((T + 1)^W for W wrong classes that get
      votes: any T for three classes, about 60 members for four); beyond, by Monte Carlo over
      ``n_draws`` rows per class seeded by ``random_state``, with the standard error in
      ``independent_error_se`` (0 when exact; the binomial sqrt(p (1 - p) / n_draws) per class,
      so a class never or always lost in the draws adds 0: read that as "below 1 / n_draws")
      and the method in the variable's description. A class whose chance of losing is provably
      below 1 / n_draws (the union bound sum_l P(V_l >= V_k), exact per pair) is not
      simulated: it adds 0 to the error and the bound to the standard error.
    * ``optimal_error``: L / n with L the fewest rows that must hold more than m errors over all
      re-arrangements of each member's errors across the rows (each member errs on k_t distinct
      rows; rows with at most m errors count as correct, and once a row is lost further errors go
      there). As in the source, it counts errors, not votes: a row with T/2 errors (even T)
      counts as correct whatever the tie rule.

    Parameters
    ----------
    member_labels : array-like or DataArray, (tree, sample)
        Class codes predicted by every member.
    y : array-like or DataArray, (sample,)
        True class codes.
    n_classes : int, optional
        Number of classes (default: largest code + 1).
    classes : array-like, optional
        Original labels; when given, labels are looked up in it instead of being codes.
    max_states : int, default 250000
        Largest exact table; beyond it the independent error is simulated.
    n_draws : int, default 2000
        Simulated rows per class for the Monte Carlo estimate.
    random_state : int, default 0
        Seed of the Monte Carlo estimate.
    X : array-like, (sample, feature), optional
        With a model (or a list of models) as ``member_labels``: the rows its members
        predict (:func:`treelab.analysis.member_outputs`); its classes need no ``classes=``.

    ci : float, optional
        Confidence level (e.g. 0.95) of intervals ``<name>_lower`` / ``<name>_upper`` on
        ``observed_error``, ``member_error`` and the exact ``independent_error``
        (none for a simulated one, ``independent_error_se`` or ``optimal_error``: the reasons
        are in ``params``): the stratified bootstrap of the test rows, as
        :func:`treelab.analysis.diagnose` draws it (docs/measures/uncertainty.md); recorded in
        ``params["ci"]``. None (default): none.
    %(ci_options)s

    Returns
    -------
    xarray.Dataset
        ``observed_error``, ``independent_error``, ``independent_error_se``, ``optimal_error``
        and ``member_error`` (tree); with ``ci`` the ``_lower`` and ``_upper`` limits above.
    """
    ci_opts = ci_options(ci, ci_method, n_boot, ci_seed, ci_resample)
    for name, value, low in (("max_states", max_states, 1), ("n_draws", n_draws, 1),
                             ("random_state", random_state, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    options = {"max_states": int(max_states), "n_draws": int(n_draws),
               "random_state": int(random_state)}

    inp = member_inputs(member_labels, y, n_classes=n_classes, classes=classes, X=X)
    options["n_known"] = inp.n_known

    def variables_of(rows: np.ndarray | slice) -> dict[str, Var]:
        labels, codes = inp.labels[:, rows], inp.y[rows]
        out = arrangement_vars(labels, codes, inp.n_classes, independent=options)
        out["member_error"] = Var((_dims.TREE,), _member_error(labels, codes),
                                  "member error rate e_t", valid_range=_ERR, cite=CITE_ERRORS)
        return out

    variables = variables_of(slice(None))
    params: dict[str, Any] = {"n_classes": inp.n_classes, **options}
    if ci_opts is not None:
        skip = {name: NO_INTERVAL[name] for name in ("independent_error_se", "optimal_error")}
        if variables["independent_error"].description.split(";")[0] != "exact":
            skip["independent_error"] = ("simulated (Monte Carlo): each replicate would add "
                                         "its own simulation noise")
        limits, skipped = row_intervals(variables, variables_of, inp.y.size, ci_opts,
                                        strata=inp.y, no_interval=skip)
        variables = {**variables, **limits}
        params["ci"] = ci_params(ci_opts, skipped, classes=True)
    coords = {k: v for k, v in inp.coords.items() if k != _dims.CLASS}
    return to_dataset(variables, function="error_arrangement", params=params, coords=coords)


def arrangement_vars(
    labels: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    votes: np.ndarray | None = None,
    summed: np.ndarray | None = None,
    independent: dict | None = None,
) -> dict[str, Var]:
    """Variables of :func:`error_arrangement` (without ``member_error``) from checked codes.

    ``summed`` (sample, class), the summed member probabilities, breaks vote ties as the
    estimator does; without it the members count as one-hot (ties to the lower class index).
    ``independent`` holds keyword arguments of the independent-errors computation
    (``max_states``, ``n_draws``, ``random_state``, ``n_known``).
    """
    k = np.count_nonzero(labels != y[None, :], axis=1)
    n_samples = labels.shape[1]
    votes = vote_counts(labels, n_classes) if votes is None else votes
    if summed is None:
        observed = np.mean(_vote_labels(votes) != y)
    else:
        observed = np.mean(vote_tiebreak(votes, summed, labels.shape[0]) != y)
    indep = independent_vote_error(labels, y, n_classes, **(independent or {}))
    optimal = _optimal_lost_rows(k, n_samples) / n_samples
    return {
        "observed_error": Var(
            (), observed, "uniform-voting ensemble error", valid_range=_ERR, cite=CITE_ARRANGEMENT
        ),
        "independent_error": Var(
            (),
            indep.error,
            "voting error if members erred independently (true class loses the vote)",
            valid_range=_ERR,
            cite=CITE_ARRANGEMENT,
            description=f"{indep.method}; vote ties to the lower class index",
        ),
        "independent_error_se": Var(
            (),
            indep.se,
            "Monte Carlo standard error of independent_error (0 when exact)",
            valid_range=_ERR,
            cite=treelab_docs("measures/correctness"),
        ),
        "optimal_error": Var(
            (),
            optimal,
            "lowest voting error over re-arrangements of member errors",
            valid_range=_ERR,
            cite=CITE_ARRANGEMENT,
        ),
    }
