"""The files of an experiment's result, ``result.nc`` and ``summary.csv``: the summary table,
their writing, and the readying of that writing while a run's workers start."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from treelab import _dims
from treelab.experiment._files import replace_file

__all__ = ["failed_cells", "ready_writer", "summary", "write_files"]

log = logging.getLogger("treelab.experiment")


def ready_writer(write: bool) -> None:
    """Build a one-value Dataset, and with ``write`` encode it as netCDF in memory, as the
    result's assembly and ``result.nc`` will: what xarray imports the first time it does so
    (dask's array module, for its check of every variable's array type; dask.distributed and
    the netCDF library, to write) is imported now instead of after the last cell.

    :func:`~treelab.experiment.run` calls it while the workers' server warms the kernels up
    before it forks any worker, when the run's process would wait on it and a core is free:
    about 0.6 s of imports, which ended a two-core run (benchmarks/README.md, "The result's
    writer readied during the warm-up").
    The imports are the same, only earlier. Nothing here may fail a run: the assembly
    imports whatever this missed."""
    try:
        ds = xr.Dataset({"ready": ("cell", np.zeros(1))}, coords={"cell": ["a"]})
        if write:
            ds.to_netcdf()
    except Exception:  # noqa: BLE001 - the result's own assembly reports any real problem
        log.debug("the result's writer could not be readied", exc_info=True)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def write_files(ds: xr.Dataset, folder: Path) -> None:
    """Write result.nc and summary.csv, each through a temporary file that is renamed into
    place, so a failed write (full disk, read-only folder) leaves neither a partial file nor a
    ``.tmp`` behind. Without ``ensemble_error`` (measures that leave out ``diagnose``) there is
    no summary to write."""
    replace_file(folder / "result.nc", ds.to_netcdf, folder)
    if "ensemble_error" in ds:
        replace_file(folder / "summary.csv", summary(ds).to_csv, folder)
    elif "mse" in ds:  # a regression experiment: its mean squared error
        replace_file(folder / "summary.csv", summary(ds, "mse").to_csv, folder)


def summary(ds: xr.Dataset, var: str = "ensemble_error") -> pd.DataFrame:
    """Mean of ``var`` over repeats and folds, one row per data set and ensemble, alphas as
    columns (the table of Liu et al. 2008 with its alpha spectrum).

    Parameters
    ----------
    ds : xarray.Dataset
        A result of :func:`~treelab.experiment.run`.
    var : str, default "ensemble_error"
        The variable to tabulate.

    Returns
    -------
    pandas.DataFrame
        Index (dataset, ensemble, and every other dim of ``var``: a transform's, ``class``,
        ``k``, ``threshold``); columns the alphas ("alpha=nan" for
        ensembles without alpha); entries the means, NaN where a cell of the mean failed
        (``on_error = "continue"``) rather than a mean of the folds that finished (a row
        whose every cell failed is kept, all NaN; without a measure's own dim). A data
        set with fewer folds than the ``fold`` dim (leave-one-out over data sets of other
        sizes; the result's ``folds_per_dataset`` attribute) is the mean over its own folds.
    """
    if var not in ds:
        raise ValueError(f"var must be a variable of ds; got {var!r}")
    da = ds[var]
    over = [d for d in (_dims.REPEAT, _dims.FOLD) if d in da.dims]
    means = da.mean(over)
    complete, done = means, None
    if "fit_time" in ds and over:
        # a cell that failed (on_error = "continue") has no record: the mean over the folds
        # that happened to finish is not the mean the caption promises, so it is NaN, its
        # row kept; combinations with no cell at all (an ensemble without alpha at an
        # alpha) are NaN by themselves
        failed = failed_cells(ds)
        complete = means.where(~failed.any([d for d in over if d in failed.dims]))
        done = ds["fit_time"].notnull().sum([d for d in over if d in ds["fit_time"].dims])
    frame = _by_alpha(means, var)
    keep = frame.notna().any(axis=1)
    if done is not None and _dims.ALPHA in done.dims:
        # every (data set, ensemble, transform values) of the grid has cells at one alpha at
        # least: a row without a finished cell at any alpha is one whose every cell failed,
        # kept (NaN) rather than left out as if the ensemble had not been run
        all_failed = (done.sum(_dims.ALPHA) == 0).to_series()
        if set(all_failed.index.names) == set(frame.index.names):
            if all_failed.index.nlevels > 1:
                all_failed = all_failed.reorder_levels(frame.index.names)
            keep |= all_failed.reindex(frame.index, fill_value=False)
    return _by_alpha(complete, var).loc[frame.index[keep.to_numpy()]]


def failed_cells(ds: xr.Dataset) -> xr.DataArray | None:
    """True on the cells of a result that failed (``on_error = "continue"``): those without a
    record (``fit_time`` NaN) at a fold their data set has. None where ``ds`` has no
    ``fit_time`` (not a runner's result).

    A data set has every position of the ``fold`` dim, or, with the result's
    ``folds_per_dataset`` attribute, its own folds 0 .. n - 1: data sets differ in their
    folds under leave-one-out, and a smaller one has no cell at the last folds, which is not
    a failure. An ensemble without alpha has no cell at the other alphas either; a mean with
    no finished cell at all is NaN by itself, so callers need not tell the two apart. The
    summary (:func:`summary`) and the figures (:mod:`treelab.plot`) read this one rule.
    """
    if "fit_time" not in ds.data_vars:
        return None
    missing = ds["fit_time"].isnull()
    known = ds.attrs.get("folds_per_dataset")
    if isinstance(known, str) and _dims.FOLD in missing.dims and _dims.DATASET in ds.coords:
        folds = json.loads(known)
        names = ds[_dims.DATASET]
        n = names.copy(data=np.reshape([folds.get(str(v), math.inf)
                                        for v in np.ravel(names.values)], names.shape))
        missing = missing & (ds[_dims.FOLD] < n)
    return missing


def _by_alpha(da: xr.DataArray, var: str) -> pd.DataFrame:
    """Means (dataset, ensemble, ... x alpha) as a table with the alphas as columns; every
    other dim of ``var`` (class, k, threshold, a transform's) is a level of the index."""
    frame = da.to_dataframe(name=var)[var].unstack(_dims.ALPHA)
    order = [a for a in da[_dims.ALPHA].values if any(_same(a, c) for c in frame.columns)]
    frame = frame[[next(c for c in frame.columns if _same(a, c)) for a in order]]
    names = [f"alpha={a:g}" for a in order]
    if len(set(names)) < len(names):  # alphas closer than %g shows them: all their digits
        names = [f"alpha={float(a)!r}" for a in order]
    frame.columns = names
    return frame
