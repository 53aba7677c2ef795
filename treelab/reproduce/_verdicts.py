"""What every study's verdicts share: the outcomes, Holm's correction, exact comparisons and
ranks computed once, and the place of the Bayesian signed-rank test.

A verdict's rule is written from the paper's words before any number is read, and printed
beside the verdict (:class:`treelab.reproduce.Verdict`'s ``rule``). Outcomes:

* ``holds``; ``does not hold``;
* ``inconclusive``: the test or interval the rule reads cannot decide at the stated level;
* ``partly (...)``: a claim with parts, the parenthesis naming the part that holds;
* ``not measured``: the run did not cover the claim.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from treelab.stats._ties import TIE_TOLERANCE, snap_ties

__all__ = ["FOR_REFERENCE", "OUTCOMES", "ROPE_PERCENT", "ROPE_RATE", "TIE_TOLERANCE",
           "average_ranks", "bayesian_signed_rank", "check_outcome", "exact_wins", "holm",
           "posterior_evidence", "snap_ties"]

#: Region of practical equivalence of the Bayesian signed-rank test on errors in percent:
#: one point of error, fixed from the measurement scale before any result is read.
ROPE_PERCENT = 1.0
#: The same rope for error rates or accuracies in [0, 1]: 0.01, one point.
ROPE_RATE = 0.01
#: What every rule that shows a posterior says of it.
FOR_REFERENCE = ("the Bayesian signed-rank posterior in the evidence is shown for reference "
                 "and does not enter the rule")

OUTCOMES = ("holds", "does not hold", "inconclusive", "partly", "not measured")


def check_outcome(verdict: str) -> str:
    """``verdict`` when it is one of :data:`OUTCOMES` (``partly`` followed by the part in
    parentheses), else ValueError.

    Examples
    --------
    >>> check_outcome("partly (concept B)")
    'partly (concept B)'
    """
    if verdict in OUTCOMES and verdict != "partly":
        return verdict
    if verdict.startswith("partly (") and verdict.endswith(")"):
        return verdict
    raise ValueError(f"verdict must be one of {', '.join(OUTCOMES)} (partly with its part in "
                     f"parentheses); got {verdict!r}")


def part_verdict(parts: dict[str, str]) -> str:
    """One verdict from the verdicts of a claim's parts: holds when every part holds, does
    not hold when none holds and one does not, partly (the parts that hold) when some hold,
    inconclusive otherwise."""
    held = [k for k, v in parts.items() if v == "holds"]
    if len(held) == len(parts):
        return "holds"
    if held:
        return f"partly ({', '.join(held)})"
    return "does not hold" if "does not hold" in parts.values() else "inconclusive"


def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: sorted ascending p_(1) <= ... <= p_(m),
    p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)), returned in the input order.

    Examples
    --------
    >>> holm([0.04, 0.3, 0.01]).round(3).tolist()
    [0.08, 0.3, 0.03]
    """
    from treelab.stats._common import holm_step_down

    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("pvalues must be a 1-D sequence of finite values in [0, 1]")
    # the same step-down as treelab.stats.wilcoxon_holm and pairwise_over_datasets
    return holm_step_down(p, 0.05)[0]


def exact_wins(scores: pd.DataFrame, a: str, b: str) -> tuple[int, int, int]:
    """Data sets where ``a`` scores higher than ``b``, ties, and where ``b`` scores higher,
    after :func:`snap_ties` (counts of correct rows compare exactly as they are). A data set
    where ``a`` or ``b`` has no score (NaN) is in none of the three counts.

    Examples
    --------
    >>> c = pd.DataFrame({"ERDT": [142, 10, 7], "MMDT": [142, 9, 8]})
    >>> exact_wins(c, "ERDT", "MMDT")
    (1, 1, 1)
    """
    snapped = snap_ties(scores[[a, b]])
    x, y = snapped[a].to_numpy(), snapped[b].to_numpy()
    return int((x > y).sum()), int((x == y).sum()), int((x < y).sum())


def average_ranks(scores: pd.DataFrame, *, higher_is_better: bool = True) -> pd.Series:
    """Average rank of each method (column) over the data sets (rows), rank 1 the best,
    tied methods (after :func:`snap_ties`) sharing the mean of their ranks; computed once, for
    a study's table and its figure alike. A missing score is refused: an average over the
    data sets a method happens to have is not comparable with one over all of them.

    Examples
    --------
    >>> average_ranks(pd.DataFrame({"a": [3, 5], "b": [3, 4], "c": [1, 6]})).tolist()
    [1.75, 2.25, 2.0]
    """
    missing = scores.isna().to_numpy()
    if missing.any():
        i, j = np.argwhere(missing)[0]
        raise ValueError(f"scores has no value for data set {scores.index[i]!r}, method "
                         f"{scores.columns[j]!r}; average ranks need every method on every "
                         f"data set: drop that data set or method first")
    snapped = snap_ties(scores)
    return snapped.rank(axis=1, ascending=not higher_is_better, method="average").mean()


def bayesian_signed_rank(a: Any, b: Any, *, rope: float) -> dict[str, float]:
    """The Bayesian signed-rank test (Benavoli et al. 2017) of paired per-data-set scores
    (lower is better), from :func:`treelab.stats.bayesian_signed_rank` with its defaults
    (prior strength 0.5, 50,000 seeded posterior draws).

    Returns
    -------
    dict
        ``p_left``, ``p_rope``, ``p_right`` (posterior probabilities that ``a - b`` lies
        below, inside and above ``[-rope, rope]``: ``p_left`` is the probability that ``a``
        is better by more than the rope).
    """
    import xarray as xr

    from treelab.stats import bayesian_signed_rank as test

    values = np.column_stack([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    scores = xr.DataArray(values, dims=("dataset", "ensemble"),
                          coords={"ensemble": ["a", "b"]})
    ds = test(scores, "a", "b", rope=rope)
    return {"p_left": float(ds.p_a_better), "p_rope": float(ds.p_rope),
            "p_right": float(ds.p_b_better)}


def posterior_evidence(name_a: str, name_b: str, a: Any, b: Any, *, rope: float,
                       unit: str) -> tuple[str, dict[str, float]]:
    """The Bayesian signed-rank posterior of ``name_a`` against ``name_b`` over the data sets
    (:func:`bayesian_signed_rank` of the paired values, lower is better; a pair with a
    missing value is dropped), as the sentence a verdict's evidence shows, and the
    probabilities.

    Examples
    --------
    >>> text, p = posterior_evidence("A", "B", [10.0, 20.0, 30.0, 12.0],
    ...                              [15.0, 26.0, 32.0, 20.0], rope=1.0, unit="point of error")
    >>> text.startswith("Bayesian signed-rank test of A - B over 4 data sets, ROPE +-1 point")
    True
    >>> round(sum(p.values()), 12)
    1.0
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a and b must be 1-D and of one length (one value per data set); "
                         f"got shapes {x.shape} and {y.shape}")
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 2:
        raise ValueError(f"a and b need at least two data sets where both are measured; "
                         f"got {int(keep.sum())}")
    p = bayesian_signed_rank(x[keep], y[keep], rope=rope)
    text = (f"Bayesian signed-rank test of {name_a} - {name_b} over {int(keep.sum())} data "
            f"sets, ROPE +-{rope:g} {unit}: P({name_a} better) {p['p_left']:.2f}, "
            f"P(practically equivalent) {p['p_rope']:.2f}, P({name_b} better) "
            f"{p['p_right']:.2f}")
    return text, p
