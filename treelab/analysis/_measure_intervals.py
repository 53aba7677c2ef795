"""Intervals for every public measure that reduces test rows to numbers: one wrapper around
the bootstrap of :mod:`treelab.analysis.intervals`.

A measure given ``ci=`` recomputes its own numbers on every bootstrap replicate of the test
rows: the replicate's row counts w_i (stratified by class for classification, plain for
regression, drawn from the seed exactly as :func:`treelab.analysis.diagnose` draws them) become
the rows repeated w_i times, the measure's variables are recomputed on them (the members'
outputs of a row held fixed: only the test sample is resampled), and the percentile or BCa
limits of :func:`treelab.analysis.intervals.interval` are put next to each estimate as
``<name>_lower`` and ``<name>_upper`` (:func:`treelab.analysis.intervals.limit_vars`). The BCa
acceleration uses the same jackknife (leave one row, or one of 1000 seeded groups of rows,
out). Replicates cost one call of the measure's computation each: n_boot calls, plus one per
row (up to 1000) for BCa.

Variables per test row (no interval: not a mean over rows) and those the measure lists in
its ``no_interval`` reasons are left without one; the reasons are recorded in the result's
``params["ci"]["no_interval"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from treelab import _dims
from treelab.analysis._dataset import Var
from treelab.analysis.intervals import (
    _JACKKNIFE_GROUPS,
    _jackknife_weights,
    check_interval_options,
    limit_vars,
    stratified_weights,
)

__all__ = ["MAX_REPLICATE_BYTES", "batch_intervals", "ci_options", "ci_params", "row_intervals"]

#: Largest memory the replicates of a measure's variables may take (8 bytes per value of
#: every replicate and jackknife value); above, a variable gets no interval, with its size.
MAX_REPLICATE_BYTES = 256 * 2**20

#: What ``params["ci"]["resampling"]`` says (diagnose's words for classification).
STRATIFIED = "test rows, stratified by class"
PLAIN = "test rows"
#: Why a variable per test row gets no interval.
PER_ROW = "one value per test row, not a mean over rows"
#: Refusal of leading dims whose rows differ (each cell has its own test rows).
_DIFFERENT_ROWS = ("ci needs one set of test rows: y differs between the leading dims "
                   "(fold, alpha, ...); call the measure per cell, or use "
                   "treelab.analysis.grid_intervals over the cells")


#: The interval options every measure with ``ci=`` takes, as its docstring lists them
#: (``%(ci_options)s`` in a docstring; :func:`documents_ci_options` fills it).
CI_OPTIONS_DOC = """    ci_method : {"bca", "percentile"}, default "bca"
        The bootstrap interval.
    n_boot : int, default 2000
        Bootstrap replicates (at least 100).
    ci_seed : int, default 0
        Resampling seed, recorded in ``params["ci"]``."""


def documents_ci_options(fn: Callable) -> Callable:
    """Write the interval options (:data:`CI_OPTIONS_DOC`) where ``fn``'s docstring says
    ``%(ci_options)s``: one text for every measure that takes them."""
    mark = "    %(ci_options)s"
    if fn.__doc__ is None or mark not in fn.__doc__:
        raise AssertionError(f"{fn.__name__}'s docstring has no {mark.strip()} to fill")
    fn.__doc__ = fn.__doc__.replace(mark, CI_OPTIONS_DOC)
    return fn


def ci_options(ci: Any, ci_method: Any, n_boot: Any, ci_seed: Any) -> tuple | None:
    """None for ``ci=None`` (no intervals), else the checked options; refused before any
    work when undefined, naming the argument."""
    if ci is None:
        return None
    return check_interval_options(ci, ci_method, n_boot, ci_seed)


def ci_params(options: tuple, resampling: str, no_interval: Mapping[str, str]) -> dict:
    """What the result's ``params["ci"]`` records: diagnose's keys, and the variables
    without an interval with the reason."""
    ci, method, n_boot, seed = options
    return {"level": ci, "method": method, "n_boot": n_boot, "seed": seed,
            "resampling": resampling, "no_interval": dict(no_interval)}


def strata_of(y: np.ndarray) -> np.ndarray:
    """The class codes of the test rows, one set for all leading dims (refused otherwise)."""
    y = np.asarray(y)
    if y.ndim == 1:
        return y
    flat = y.reshape(-1, y.shape[-1])
    if not np.all(flat == flat[:1]):
        raise ValueError(_DIFFERENT_ROWS)
    return flat[0]


def row_intervals(
    variables: Mapping[str, Var],
    recompute: Callable[[np.ndarray], Mapping[str, Any]],
    n_rows: int,
    options: tuple,
    *,
    strata: np.ndarray | None,
    no_interval: Mapping[str, str] | None = None,
    lead: int = 0,
) -> tuple[dict[str, Var], dict[str, str]]:
    """``<name>_lower`` / ``<name>_upper`` of every numeric variable of ``variables`` that
    is not per row (``sample`` dim) nor in ``no_interval``, and the reasons of those left out.

    ``recompute(rows)`` gives the measure's variables (their data) on the test rows ``rows``
    (indices, with repeats); ``strata`` the class codes of the rows (stratified resampling:
    every class keeps its row count), or None for a plain bootstrap (regression). ``lead``
    counts the batch axes in front of a variable's dims (left out of ``Var.dims``). The
    weights come from the seed as diagnose draws them: replicates first, then the jackknife.
    """
    ci, method, n_boot, seed = options
    skipped = dict(no_interval or {})
    names = []
    for name, var in variables.items():
        if name in skipped:
            continue
        if _dims.SAMPLE in var.dims:
            skipped[name] = PER_ROW
        elif np.asarray(var.data).dtype.kind in "fiu":
            names.append(name)
        else:
            skipped[name] = "not a number"
    rng = np.random.default_rng(seed)
    groups = np.zeros(n_rows, dtype=np.int64) if strata is None else np.asarray(strata)
    boot_w = stratified_weights(groups, n_boot, rng)
    jack_w = _jackknife_weights(n_rows, rng) if method == "bca" else None
    boot = _replicates(recompute, boot_w, names)
    jack = _replicates(recompute, jack_w, names) if jack_w is not None else {}
    how = (f"{method} {ci:.0%} interval from {n_boot} "
           f"{'stratified ' if strata is not None else ''}bootstrap replicates of the test "
           f"rows (seed {seed})")
    flat = {name: variables[name]._replace(dims=(*(f"_lead{i}" for i in range(lead)),
                                                 *variables[name].dims))
            for name in names}
    out = limit_vars(flat, names, boot, jack, ci=ci, method=method, how=how)
    return {k: v._replace(dims=v.dims[lead:]) for k, v in out.items()}, skipped


def _replicates(recompute: Callable[[np.ndarray], Mapping[str, Any]], weights: np.ndarray,
                names: list[str]) -> dict[str, np.ndarray]:
    """Every measure on the rows repeated w_i times, for every row of ``weights``."""
    rows = np.arange(weights.shape[1])
    values: dict[str, list] = {name: [] for name in names}
    for w in weights:
        got = recompute(np.repeat(rows, w.astype(np.int64)))
        for name in names:
            data = got[name]
            data = data.data if isinstance(data, Var) else data
            values[name].append(np.asarray(data, dtype=np.float64))
    return {name: np.stack(v) for name, v in values.items()}


def replicate_count(options: tuple, n_rows: int) -> int:
    """Replicates an interval computes: n_boot, plus the BCa jackknife's."""
    _, method, n_boot, _ = options
    return n_boot + (min(n_rows, _JACKKNIFE_GROUPS) if method == "bca" else 0)


def too_large(variables: Mapping[str, Var], names: tuple[str, ...], n_values: int,
              options: tuple, n_rows: int) -> dict[str, str]:
    """The reasons of ``names`` whose replicates together take more than
    :data:`MAX_REPLICATE_BYTES` (``n_values`` values each)."""
    present = [name for name in names if name in variables]
    size = 8 * replicate_count(options, n_rows) * n_values * len(present)
    if size <= MAX_REPLICATE_BYTES:
        return {}
    reason = (f"its replicates with {', '.join(present)} would take {size / 2**20:.0f} MiB "
              f"(above MAX_REPLICATE_BYTES, {MAX_REPLICATE_BYTES / 2**20:.0f} MiB): select "
              f"fewer trees or lower n_boot")
    return dict.fromkeys(present, reason)


def batch_intervals(
    variables: dict[str, Var],
    recompute: Callable[[np.ndarray], Mapping[str, Any]],
    y: np.ndarray,
    options: tuple,
    *,
    no_interval: Mapping[str, str] | None = None,
) -> tuple[dict[str, Var], dict]:
    """:func:`row_intervals` for variables computed over a flat batch axis first
    (:func:`treelab.analysis._batch.build`): the variables with their limits, and
    ``params["ci"]``. ``y`` (batch, sample) must be one set of rows for the whole batch."""
    strata = strata_of(y)
    limits, skipped = row_intervals(variables, recompute, strata.size, options,
                                    strata=strata, no_interval=no_interval, lead=1)
    return {**variables, **limits}, ci_params(options, STRATIFIED, skipped)
