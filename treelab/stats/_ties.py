"""Ties that differ only in floating-point noise, made exact before values are compared.

Two methods right on the same rows of every fold get averaged scores that may differ in the
last bit (3/50 and 3/50 average to 0.06, 1/50 and 5/50 to 0.060000000000000005); a
comparison of the raw floats would call that a win and give the two methods different ranks.
:func:`snap_rows` makes such values exactly equal, so that every rank and every count of wins,
ties and losses reads them as the ties they are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from treelab.combine import TIE_TOLERANCE as COMBINE_TIE_TOLERANCE

__all__ = ["TIE_TOLERANCE", "row_tolerance", "snap_rows", "snap_ties"]

#: Two scores of a row closer than this times max(1, the row's largest magnitude) are one
#: score: the tolerance the combinations' ties read (:data:`treelab.combine.TIE_TOLERANCE`).
#: For rates in [0, 1] that is 1e-12: far below any real difference of fold-mean accuracies or
#: errors (the smallest is 1 / (folds x the lcm of the fold sizes), above 1e-10 for the folds
#: of any data set of at most 10,000 rows), far above float noise (1e-16). The noise of a mean
#: grows with the values' magnitude, so the tolerance does too.
TIE_TOLERANCE = COMBINE_TIE_TOLERANCE


def row_tolerance(values: np.ndarray, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """Per row of the 2-d ``values``: ``tolerance`` x max(1, the row's largest finite
    magnitude), the distance below which two of its values are one value."""
    values = np.asarray(values, dtype=float)
    magnitude = np.where(np.isfinite(values), np.abs(values), 0.0)
    largest = magnitude.max(axis=1, initial=0.0)
    return tolerance * np.maximum(1.0, largest)


def snap_rows(values: np.ndarray, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """A copy of the 2-d ``values`` with the values of each row that lie within
    :func:`row_tolerance` of one another made exactly equal (each chain of near-equal values
    takes its smallest). A missing value (NaN) stays missing and joins no chain."""
    values = np.array(values, dtype=float)
    for row, tol in zip(values, row_tolerance(values, tolerance), strict=True):
        original = row.copy()
        # NaN - x >= tolerance is False, so a NaN sorted last would take the value of the
        # chain before it and a missing score would read as a real one
        order = np.argsort(original, kind="stable")
        order = order[~np.isnan(original[order])]
        base = original[order[0]] if order.size else np.nan
        for i in range(1, order.size):
            if original[order[i]] - original[order[i - 1]] >= tol:
                base = original[order[i]]
            row[order[i]] = base
    return values


def snap_ties(scores: pd.DataFrame, tolerance: float = TIE_TOLERANCE) -> pd.DataFrame:
    """``scores`` (data set x method) with the values of each row that lie within
    ``tolerance`` x max(1, the row's largest magnitude) of one another made exactly equal
    (each chain of near-equal values takes its smallest), so that comparisons and ranks treat
    them as the ties they are: two methods right on the same rows of every fold get averaged
    accuracies that may differ in the last bit. A missing value (NaN) stays missing.

    Examples
    --------
    >>> s = pd.DataFrame({"ERDT": [0.9466666666666668], "MMDT": [0.9466666666666667]})
    >>> t = snap_ties(s)
    >>> bool((s["ERDT"] > s["MMDT"]).iloc[0]), bool((t["ERDT"] > t["MMDT"]).iloc[0])
    (True, False)
    """
    values = snap_rows(scores.to_numpy(dtype=float), tolerance)
    return pd.DataFrame(values, index=scores.index, columns=scores.columns)
