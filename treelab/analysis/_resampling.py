"""How the intervals' bootstrap draws its replicates, and the options that choose it (``ci``,
``ci_method``, ``n_boot``, ``ci_seed``, ``ci_resample``), checked before any work: the
stratified bootstrap (Davison & Hinkley 1997, section 3.2) redraws n_k rows within every true
class k, the row bootstrap n rows from all n (Efron & Tibshirani 1993, chapter 6); BCa's
acceleration comes from a (grouped) jackknife. Re-exported by :mod:`treelab.analysis.intervals`.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

CI_METHODS = ("bca", "percentile")
#: How the test rows are redrawn (``ci_resample``): within every class, or from all rows.
CI_RESAMPLES = ("stratified", "rows")
#: What ``params["ci"]["resampling"]`` says: classification by ``ci_resample``, regression.
STRATIFIED = "test rows, stratified by class"
ROWS = "test rows, not stratified (ci_resample='rows': the class counts vary)"
PLAIN = "test rows"

#: Above this many rows the BCa acceleration uses a grouped jackknife of this many groups.
_JACKKNIFE_GROUPS = 1000


class CIOptions(NamedTuple):
    """Checked interval options (:func:`check_interval_options`)."""

    level: float
    method: str
    n_boot: int
    seed: int
    resample: str = "stratified"


def check_interval_options(ci: Any, method: Any, n_boot: Any, seed: Any,
                           resample: Any = "stratified") -> CIOptions:
    """The interval options, refused before any work when undefined."""
    if isinstance(ci, bool) or not isinstance(ci, numbers.Real) or not 0.0 < float(ci) < 1.0:
        raise ValueError(f"ci must be a confidence level in (0, 1) such as 0.95, or None for "
                         f"no intervals; got {ci!r}")
    if method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {CI_METHODS}, got {method!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, numbers.Integral) or n_boot < 100:
        raise ValueError(f"n_boot must be an int >= 100 (bootstrap replicates; 2000 or more "
                         f"for 95% BCa intervals), got {n_boot!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"ci_seed must be a non-negative int (the resampling seed, recorded "
                         f"in the result), got {seed!r}")
    if not isinstance(resample, str) or resample not in CI_RESAMPLES:
        raise ValueError(f"ci_resample must be one of {CI_RESAMPLES} (\"stratified\": every "
                         f"class keeps its row count; \"rows\": n rows drawn from all n), "
                         f"got {resample!r}")
    return CIOptions(float(ci), str(method), int(n_boot), int(seed), resample)


def resampling_words(resample: str, classes: bool) -> str:
    """What ``params["ci"]["resampling"]`` records: :data:`STRATIFIED` or :data:`ROWS` for
    classification (``classes``), :data:`PLAIN` for regression (no classes to keep)."""
    if not classes:
        return PLAIN
    return STRATIFIED if resample == "stratified" else ROWS


def interval_how(options: CIOptions, classes: bool) -> str:
    """An interval's description: method, level, replicates, resampling and seed."""
    ci, method, n_boot, seed, resample = options
    if classes and resample == "stratified":
        return (f"{method} {ci:.0%} interval from {n_boot} stratified bootstrap replicates "
                f"of the test rows (seed {seed})")
    drawn = " drawn from all rows, not by class (ci_resample='rows')" if classes else ""
    return (f"{method} {ci:.0%} interval from {n_boot} bootstrap replicates of the test "
            f"rows{drawn} (seed {seed})")


def stratified_weights(y: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot, sample) counts of a bootstrap that redraws n_k rows within every class k."""
    w = np.zeros((n_boot, y.size))
    for k in np.unique(y):
        rows = np.flatnonzero(y == k)
        w[:, rows] = rng.multinomial(rows.size, np.full(rows.size, 1.0 / rows.size),
                                     size=n_boot)
    return w


def replicate_weights(strata: np.ndarray | None, n_rows: int, n_boot: int,
                      rng: np.random.Generator, resample: str) -> np.ndarray:
    """(n_boot, sample) row counts of the bootstrap replicates: within every class of
    ``strata`` for ``resample="stratified"`` (:func:`stratified_weights`), else one
    multinomial draw of n_rows rows from all n_rows (``"rows"``, and regression, whose
    ``strata`` is None), the draw of a single stratum."""
    if strata is not None and resample == "stratified":
        return stratified_weights(np.asarray(strata), n_boot, rng)
    return stratified_weights(np.zeros(n_rows, dtype=np.int64), n_boot, rng)


def _jackknife_weights(n_rows: int, rng: np.random.Generator) -> np.ndarray:
    """Leave-one-out weights, or leave-one-group-out over seeded groups for many rows."""
    if n_rows <= _JACKKNIFE_GROUPS:
        return 1.0 - np.eye(n_rows)
    groups = rng.permutation(n_rows) % _JACKKNIFE_GROUPS
    return 1.0 - (groups[None, :] == np.arange(_JACKKNIFE_GROUPS)[:, None])
