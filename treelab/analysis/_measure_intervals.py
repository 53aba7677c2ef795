"""Intervals for every public measure that reduces test rows to numbers: one wrapper around
the bootstrap of :mod:`treelab.analysis.intervals`.

A measure given ``ci=`` recomputes its own numbers on every bootstrap replicate of the test
rows: the replicate's row counts w_i (stratified by class for classification with
``ci_resample="stratified"``, the default; drawn from all rows with ``ci_resample="rows"`` and
for regression; from the seed exactly as :func:`treelab.analysis.diagnose` draws them) become
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

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from treelab import _dims
from treelab.analysis._dataset import Var
from treelab.analysis._resampling import (
    _JACKKNIFE_GROUPS,
    CIOptions,
    _jackknife_weights,
    check_interval_options,
    interval_how,
    replicate_weights,
    resampling_words,
)
from treelab.analysis.intervals import limit_vars

__all__ = ["MAX_REPLICATE_BYTES", "batch_intervals", "ci_options", "ci_params",
           "row_intervals"]

#: Largest memory the replicates of a measure's variables may take (8 bytes per value of
#: every replicate and jackknife value); above, a variable gets no interval, with its size.
MAX_REPLICATE_BYTES = 256 * 2**20

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
        Resampling seed, recorded in ``params["ci"]``.
    ci_resample : {"stratified", "rows"}, default "stratified"
        How a replicate redraws the test rows: ``"stratified"`` within every true class
        (each class keeps its row count: the interval is the precision given the test set's
        class counts), ``"rows"`` n rows from all n (the class counts vary as between test
        sets; covers a measure that differs by class, docs/measures/uncertainty.md). A
        replicate that draws no row of a class gives what the measure gives on such rows
        (NaN where it divides by the class: ``class_error``, ``auc_ovr``); up to 1% of
        undefined replicates are left out of the limits and counted in their description,
        more give NaN limits. Regression has no classes: both draw from all rows. Recorded
        in ``params["ci"]["resampling"]`` and each limit's description."""

#: The interval options and their defaults, as every measure with ``ci=`` takes them.
CI_DEFAULTS = {"ci_method": "bca", "n_boot": 2000, "ci_seed": 0, "ci_resample": "stratified"}


def documents_ci_options(fn: Callable) -> Callable:
    """Write the interval options (:data:`CI_OPTIONS_DOC`) where ``fn``'s docstring says
    ``%(ci_options)s``: one text for every measure that takes them; a measure whose
    signature lacks one of them (:data:`CI_DEFAULTS`) or gives it another default is refused
    at import, so that no measure documents an option it does not take."""
    mark = "    %(ci_options)s"
    if fn.__doc__ is None or mark not in fn.__doc__:
        raise AssertionError(f"{fn.__name__}'s docstring has no {mark.strip()} to fill")
    params = inspect.signature(fn).parameters
    wrong = {name: default for name, default in CI_DEFAULTS.items()
             if name not in params or params[name].default != default}
    if wrong:
        raise AssertionError(f"{fn.__name__} must take the interval options {wrong} "
                             f"(keyword, with these defaults)")
    fn.__doc__ = fn.__doc__.replace(mark, CI_OPTIONS_DOC)
    return fn


def ci_options(ci: Any, ci_method: Any, n_boot: Any, ci_seed: Any,
               ci_resample: Any = "stratified") -> CIOptions | None:
    """None for ``ci=None`` (no intervals), else the checked options; refused before any
    work when undefined, naming the argument."""
    if ci is None:
        return None
    return check_interval_options(ci, ci_method, n_boot, ci_seed, ci_resample)


def ci_params(options: CIOptions, no_interval: Mapping[str, str], *, classes: bool) -> dict:
    """What the result's ``params["ci"]`` records: diagnose's keys (``resampling`` in words,
    :func:`treelab.analysis._resampling.resampling_words`; ``classes``: classification), and
    the variables without an interval with the reason."""
    return {"level": options.level, "method": options.method, "n_boot": options.n_boot,
            "seed": options.seed, "resampling": resampling_words(options.resample, classes),
            "no_interval": dict(no_interval)}


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
    options: CIOptions,
    *,
    strata: np.ndarray | None,
    no_interval: Mapping[str, str] | None = None,
    lead: int = 0,
) -> tuple[dict[str, Var], dict[str, str]]:
    """``<name>_lower`` / ``<name>_upper`` of every numeric variable of ``variables`` that
    is not per row (``sample`` dim) nor in ``no_interval``, and the reasons of those left out.

    ``recompute(rows)`` gives the measure's variables (their data) on the test rows ``rows``
    (indices, with repeats); ``strata`` the class codes of the rows (a classification: the
    replicates keep every class's row count unless ``options.resample`` is ``"rows"``), or
    None (regression: drawn from all rows). ``lead`` counts the batch axes in front of a
    variable's dims (left out of ``Var.dims``). The weights come from the seed as diagnose
    draws them (:func:`treelab.analysis.intervals.replicate_weights`): replicates first,
    then the jackknife.
    """
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
    rng = np.random.default_rng(options.seed)
    boot_w = replicate_weights(strata, n_rows, options.n_boot, rng, options.resample)
    jack_w = _jackknife_weights(n_rows, rng) if options.method == "bca" else None
    boot = _replicates(recompute, boot_w, names)
    jack = _replicates(recompute, jack_w, names) if jack_w is not None else {}
    how = interval_how(options, classes=strata is not None)
    flat = {name: variables[name]._replace(dims=(*(f"_lead{i}" for i in range(lead)),
                                                 *variables[name].dims))
            for name in names}
    out = limit_vars(flat, names, boot, jack, ci=options.level, method=options.method,
                     how=how)
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


def replicate_count(options: CIOptions, n_rows: int) -> int:
    """Replicates an interval computes: n_boot, plus the BCa jackknife's."""
    return options.n_boot + (min(n_rows, _JACKKNIFE_GROUPS) if options.method == "bca" else 0)


def too_large(variables: Mapping[str, Var], names: tuple[str, ...], n_values: int,
              options: CIOptions, n_rows: int) -> dict[str, str]:
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
    options: CIOptions,
    *,
    no_interval: Mapping[str, str] | None = None,
) -> tuple[dict[str, Var], dict]:
    """:func:`row_intervals` for variables computed over a flat batch axis first
    (:func:`treelab.analysis._batch.build`): the variables with their limits, and
    ``params["ci"]``. ``y`` (batch, sample) must be one set of rows for the whole batch."""
    strata = strata_of(y)
    limits, skipped = row_intervals(variables, recompute, strata.size, options,
                                    strata=strata, no_interval=no_interval, lead=1)
    return {**variables, **limits}, ci_params(options, skipped, classes=True)
