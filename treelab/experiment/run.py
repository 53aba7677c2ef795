"""Run an experiment: expand, skip finished cells, run the rest, write each at once, assemble."""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import time
import traceback
from functools import partial
from pathlib import Path
from typing import Any

import xarray as xr

from treelab._bars import progress_bar
from treelab._slow import slow_notice as _slow_notice
from treelab.engine.sharing import release as release_shared_work
from treelab.experiment._files import ExperimentError, output_error, replace_text
from treelab.experiment._progress import Eta as _Eta
from treelab.experiment._progress import shared_notices as _shared_notices
from treelab.experiment.backends import (
    connect,
    default_workers,
    estimator_names,
    execute,
    start_worker_server,
)
from treelab.experiment.cells import TIMING_VARS
from treelab.experiment.config import BACKENDS, ExperimentConfig, load_config
from treelab.experiment.expand import expand
from treelab.experiment.groups import (
    Group,
    groups_of,
    outputs_path,
    read_outputs,
    reduce_group,
    write_outputs,
)
from treelab.experiment.result_files import ready_writer, summary, write_files
from treelab.experiment.store import CellStore, assemble

__all__ = ["ExperimentError", "result_attrs", "run", "status", "summary"]

log = logging.getLogger("treelab.experiment")


def _out(config: ExperimentConfig, out: str | os.PathLike[str] | None) -> Path:
    folder = out if out is not None else config.out
    if folder is None:
        raise ValueError("out must be given (argument or configuration) to store the cells")
    if not isinstance(folder, str | os.PathLike):
        raise TypeError(f"out must be a folder path; got {folder!r}")
    return Path(folder)


def result_attrs(config: ExperimentConfig) -> dict[str, Any]:
    """Dataset attributes of an experiment's result (netCDF-safe, no timestamps)."""
    try:
        from importlib.metadata import version

        treelab_version = version("treelab")
    except Exception:  # a source tree that was not installed
        treelab_version = "0.0.0"
    return {
        "title": config.name,
        "treelab_version": treelab_version,
        "function": "treelab.experiment.run",
        "config": json.dumps(config.identity(), sort_keys=True),
        "protocol": json.dumps(config.protocol, sort_keys=True),
        "alpha_convention": "ensembles without an alpha parameter sit at alpha = NaN "
                            "(the last alpha coordinate); select them with "
                            "ds.sel(alpha=float('nan')) or ds.isel(alpha=-1)",
        "timing_vars": list(TIMING_VARS),
    }


def status(config: Any, out: str | os.PathLike[str] | None = None) -> dict[str, int]:
    """How many cells of ``config`` are finished in its output folder.

    Parameters
    ----------
    config : ExperimentConfig, mapping or TOML path
        The experiment.
    out : str or path-like, optional
        Output folder (default ``config.out``).

    Returns
    -------
    dict
        ``total``, ``done``, ``pending`` and ``failed`` (failures recorded by the last run).
    """
    config = load_config(config)
    folder = _out(config, out)
    store = CellStore(folder)
    cells = expand(config)
    done = _finished(store, groups_of(cells, config.measures), folder, log.debug)
    n_done = sum(c.key in done for c in cells)
    keys = {c.key for c in cells}
    failed = len({e["key"] for e in store.errors() if e.get("key") in keys})
    return {"total": len(cells), "done": n_done, "pending": len(cells) - n_done,
            "failed": failed}


# tqdm's own estimate left out: it extrapolates from the first cells, which include worker
# start-up (a first demo showed 2:47:57 left for a run of 64 s); _Eta gives one in the postfix
_BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


def _progress(total: int, initial: int, name: str, enabled: bool) -> Any:
    return progress_bar(enabled, total=total, initial=initial, desc=name, unit="cell",
                        dynamic_ncols=True, bar_format=_BAR_FORMAT,
                        postfix=f"skipped={initial}, failed=0")


def _warm_up(cells: list[Any], progress: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels of the cells' estimators before the
    first cell starts, so the progress bar's rate and estimate count cells, not compilation
    (a first demo on a fresh install otherwise estimated 21 hours from its first cell).
    Worker processes then load the kernels from the cache this writes."""
    from treelab._warmup import warmup

    names = estimator_names(cells)
    started = time.perf_counter()
    try:
        # the bar shows progress through the compilation, step by step
        warmup(names, progress=progress)
    except Exception as exc:  # the cells compile what they need themselves; results unchanged
        log.warning("engine warm-up failed (%s: %s); the first cells will compile instead",
                    type(exc).__name__, exc)
        return
    log.info("engine ready for %s in %.1f s", ", ".join(names), time.perf_counter() - started)


def run(
    config: Any,
    *,
    out: str | os.PathLike[str] | None = None,
    backend: str | None = None,
    n_workers: int | None = None,
    client: Any = None,
    threads: bool = False,
    progress: bool = True,
    write_result: bool = True,
    share: bool = True,
) -> xr.Dataset:
    """Run an experiment, resuming from the cells already in its output folder.

    The configuration expands into independent cells (one fit and its evaluation each). Cells
    whose results are already stored are skipped; the others run on the backend and are
    appended to ``OUT/cells.jsonl`` the moment each finishes, so a run stopped at any point
    (even by SIGKILL) loses only the cells in flight, and running the same configuration again
    finishes the rest and assembles the same Dataset. A measure over the K training sets is
    computed, and appended as a line of its own, once the K cells it reads are finished.

    Parameters
    ----------
    config : ExperimentConfig, mapping or str/path of a TOML file
        The experiment (see :class:`~treelab.experiment.ExperimentConfig`).
    out : str or path-like, optional
        Output folder; default ``config.out``.
    backend : {"serial", "local", "dask"}, optional
        Overrides ``config.backend``.
    n_workers : int, optional
        Overrides ``config.n_workers`` (local processes, or dask LocalCluster workers).
    client : distributed.Client, optional
        Use this dask client (implies ``backend="dask"``).
    threads : bool, default False
        With ``backend="local"``: threads instead of processes.
    progress : bool, default True
        Show a tqdm progress bar (notebook-aware) with cells done, skipped and an ETA.
    write_result : bool, default True
        Also write ``OUT/result.nc`` and ``OUT/summary.csv``.
    share : bool, default True
        Run the cells that fit on the same training rows (a fold's ensembles and alphas)
        together and let them share the fold's feature preparation and all-deterministic
        trees (:func:`~treelab.experiment.backends.execute`; with a measure over repeats the
        cells keep the grid's order, the repeats of a group together); the stored results
        are the same, bit for bit, either way.

    Returns
    -------
    xarray.Dataset
        Dims ``dataset``, ``ensemble``, ``alpha``, one per swept transform, ``repeat``, ``fold``
        and the measures' own (``threshold``, ``k``; a dim name that an earlier measure of
        ``measures`` already reports becomes ``<measure>_<dim>``). Variables: everything
        :func:`treelab.analysis.diagnose` reports per cell (``ensemble_error``,
        ``mean_member_error``, ``single_error``, ``error_ratio``, ``phi_e``, ``phi_star``,
        ``strength``, ``correlation``, ``breiman_bound``, ``thresholded_mse``, ``topk_error``,
        ``mean_g``, ...), per-tree statistics as their means over trees (``mean_n_nodes``,
        ``mean_depth``, ``mean_random_share``, ...), ``n_train``, ``n_test``,
        ``n_test_unseen`` and the timings ``fit_time``, ``predict_time``, ``eval_time``
        (seconds; they differ between runs, see ``TIMING_VARS``). Measures over the K training
        sets of the ``bias_variance`` protocol (``bias_variance_01``,
        ``bias_variance_diversity``; :mod:`treelab.experiment.groups`) have the grid dims
        without ``repeat`` and ``fold``. Ensembles without an alpha parameter sit at
        ``alpha = NaN``.

    Raises
    ------
    ValueError, TypeError
        Bad arguments, or data sets too small for the protocol's folds (before any cell runs).
    ExperimentError
        When a cell fails and ``config.on_error == "raise"`` (after the cells that finished are
        written); when every cell of the experiment failed (with the first errors; no
        ``result.nc`` or ``summary.csv`` is written); when the output folder cannot be written
        (read-only, full disk: no partial file is left behind).
    """
    config = load_config(config)
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}; got {backend!r}")
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int)
                                  or n_workers < 1):
        raise ValueError(f"n_workers must be a positive integer; got {n_workers!r}")
    if client is not None:
        backend = "dask"
    backend = backend or config.backend
    folder = _out(config, out)
    # a rerun of a finished experiment spends its time here (a word if it is slow)
    with _slow_notice(f"{config.name}: checking the data sets and the folds of the experiment"):
        cells = expand(config)
    groups = groups_of(cells, config.measures)
    group_of = {c.key: g for g in groups for c in g.cells}
    with _open_store(folder, config) as store:
        if store.stale_lock:
            log.warning("%s: the run that held %s did not finish cleanly (%s); resuming "
                        "from its finished cells", config.name, folder / ".lock",
                        store.stale_lock)
        with _slow_notice(f"{config.name}: reading the finished cells in {folder}"):
            done = _finished(store, groups, folder, log.warning)
        _report_rejected(store, done)
        store.clear_errors()
        _tidy_outputs(folder, groups, done)
        # heaviest first (a stable sort: expansion order among equals): a long cell started
        # last would run alone while the other workers idle. The backends keep this order
        # between fold batches. Results do not depend on order
        todo = sorted((c for c in cells if c.key not in done), key=lambda c: -c.weight)
        skipped = len(cells) - len(todo)
        log.info("%s: %d cells, %d already finished, %d to run on %s", config.name,
                 len(cells), skipped, len(todo), backend)
        failures: list[tuple[Any, str]] = []
        group_failures: list[tuple[Any, str]] = []
        warned: dict[str, int] = {}
        closer = _GroupCloser(store, folder, done, warned, group_failures, config.on_error)
        for group in groups:  # finished before a run stopped, not yet reduced
            closer(group, None)
        notices = contextlib.ExitStack()
        if todo and backend == "dask" and client is None and config.scheduler is not None:
            # an unreachable scheduler is said at once, before the warm-up and any cell
            client = connect(config.scheduler)
            notices.callback(client.close)
        notices.enter_context(_shared_notices())
        # local worker processes: the fork server they are forked from warms up, once, while
        # this process goes on (treelab.experiment._preload); elsewhere this process does
        if todo and backend == "local" and not threads and start_worker_server(
                estimator_names(todo)):
            ready_writer(write_result)
        elif todo:
            _warm_up(todo, progress)
        bar = _progress(len(cells), skipped, config.name, progress)
        eta = _Eta(len(todo), n_workers or config.n_workers or default_workers()
                   if backend != "serial" else 1)
        try:
            outcomes = execute(todo, backend=backend, n_workers=n_workers or config.n_workers,
                               n_jobs=config.n_jobs, client=client, scheduler=config.scheduler,
                               threads=threads, share=share,
                               # a group measure's repeats finish together instead: its
                               # cells' outputs wait on disk until the group is reduced
                               batch=share and not groups)
            for cell, result, error in outcomes:
                if result is not None:
                    for message in result.get("warnings", ()):
                        warned[message] = warned.get(message, 0) + 1
                    arrays = result.pop("outputs", None)
                    record = {"key": cell.key, "cell": _plain(cell.coords), **result}
                    if arrays:  # saved before the line that says the cell is finished
                        _append(partial(write_outputs, folder, cell.key), arrays, outcomes,
                                folder)
                        record["outputs"] = outputs_path(folder, cell.key).relative_to(
                            folder).as_posix()
                    _append(store.write, record, outcomes, folder)
                    done[cell.key] = record
                    if cell.key in group_of:
                        closer(group_of[cell.key], outcomes)
                else:
                    _append(store.write_error, {"key": cell.key, "cell": _plain(cell.coords),
                                                "error": error}, outcomes, folder)
                    failures.append((cell, error or ""))
                    log.warning("cell %s failed", _plain(cell.coords))
                    if config.on_error == "raise":
                        outcomes.close()
                        raise ExperimentError(
                            f"cell {_plain(cell.coords)} failed; {len(done)} finished cells "
                            f"are stored in {folder}:\n{error}")
                bar.update(1)
                bar.set_postfix_str(eta.postfix(skipped, len(failures)), refresh=False)
        finally:
            bar.close()
            release_shared_work()  # what this process kept for the cells it ran
            notices.close()
            for message, count in warned.items():
                log.info("%d cells warned: %s", count, message)
        _tidy_outputs(folder, groups, done)
    if failures and not any(c.key in done for c in cells):
        raise ExperimentError(_all_failed(failures, len(cells), folder))
    with _slow_notice(f"{config.name}: assembling and writing the result of {len(done)} "
                      f"cells"):
        ds = assemble(cells, done, attrs=result_attrs(config), groups=groups)
        if failures:
            ds.attrs["failed_cells"] = len(failures)
        if group_failures:
            ds.attrs["failed_groups"] = len(group_failures)
        if write_result:
            write_files(ds, folder)
    return ds


def _open_store(folder: Path, config: ExperimentConfig) -> CellStore:
    """The folder's store, opened, with the configuration written next to it; a folder that
    cannot be written (read-only, full disk) gives a clear message before any cell runs."""
    store = CellStore(folder)
    try:
        store.open()
        replace_text(folder / "config.json",
                      json.dumps(config.to_dict(), indent=2, sort_keys=True))
    except OSError as exc:
        store.close()
        raise output_error(exc, folder, "cannot write to the output folder") from exc
    return store


def _append(write: Any, record: Any, outcomes: Any, folder: Path) -> None:
    """Append a cell's line (or save its outputs); a write that fails (full disk) stops the
    run with a clear message (the next run cuts a partial last line and resumes)."""
    try:
        write(record)
    except OSError as exc:
        if outcomes is not None:
            outcomes.close()
        raise output_error(exc, folder, "cannot append a cell to the files in") from exc


def _finished(store: CellStore, groups: list[Group], folder: Path, say: Any
              ) -> dict[str, dict[str, Any]]:
    """The store's finished records, less the cells of unreduced groups whose outputs are
    missing or fail their check (they run again; ``say`` reports each)."""
    done = store.records()
    for group in groups:
        if group.key in done:
            continue
        for cell in group.cells:
            if cell.key not in done:
                continue
            arrays, why = read_outputs(folder, cell.key)
            if arrays is None:
                del done[cell.key]
                say("cell %s is computed again: its outputs for the measures over repeats "
                    "are lost (%s)", _plain(cell.coords), why)
    return done


def _tidy_outputs(folder: Path, groups: list[Group], done: dict[str, Any]) -> None:
    """Delete outputs no longer needed (of reduced groups; temporary files of a run that was
    stopped mid-write) and the outputs folder once empty."""
    where = outputs_path(folder, "x").parent
    if not where.is_dir():
        return
    for path in where.glob("*.tmp"):
        path.unlink(missing_ok=True)
    for group in groups:
        if group.key in done:
            for cell in group.cells:
                outputs_path(folder, cell.key).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        where.rmdir()  # only when empty


class _GroupCloser:
    """Reduces a group once all its cells are finished: reads their outputs, appends the
    group's line and deletes the outputs. A failure is recorded like a failed cell's."""

    def __init__(self, store: CellStore, folder: Path, done: dict[str, Any],
                 warned: dict[str, int], failures: list[tuple[Any, str]], on_error: str
                 ) -> None:
        self.store, self.folder, self.done, self.warned = store, folder, done, warned
        self.failures, self.on_error = failures, on_error

    def __call__(self, group: Group, outcomes: Any) -> None:
        if group.key in self.done or any(c.key not in self.done for c in group.cells):
            return
        try:
            outputs = []
            for cell in group.cells:
                arrays, why = read_outputs(self.folder, cell.key)
                if arrays is None:  # the next run computes the cell again
                    raise ValueError(f"the outputs of cell {_plain(cell.coords)} are lost: "
                                     f"{why}")
                outputs.append(arrays)
            values = reduce_group(group, outputs)
        except Exception:
            error = traceback.format_exc()
            _append(self.store.write_error, {"key": group.key, "cell": _plain(group.coords),
                                             "error": error}, outcomes, self.folder)
            self.failures.append((group, error))
            log.warning("measures over the repeats of %s failed", _plain(group.coords))
            if self.on_error == "raise":
                if outcomes is not None:
                    outcomes.close()
                raise ExperimentError(
                    f"the measures over the repeats of {_plain(group.coords)} "
                    f"({', '.join(group.measures)}) failed; the finished cells are stored in "
                    f"{self.folder}:\n{error}") from None
            return
        for message in values.get("warnings", ()):
            self.warned[message] = self.warned.get(message, 0) + 1
        record = {"key": group.key, "group": _plain(group.coords),
                  "cells": [c.key for c in group.cells], **values}
        _append(self.store.write, record, outcomes, self.folder)
        self.done[group.key] = record
        for cell in group.cells:
            with contextlib.suppress(OSError):
                outputs_path(self.folder, cell.key).unlink(missing_ok=True)


def _report_rejected(store: CellStore, done: dict[str, Any]) -> None:
    """Warn about the lines of the cell file that were skipped; lines that a later valid
    record of the same cell replaces (computed again by an earlier run) are only counted."""
    path = store.folder / "cells.jsonl"
    open_ = [r for r in store.rejected if r[2] is None or r[2] not in done]
    replaced = len(store.rejected) - len(open_)
    if replaced:
        log.info("%s: %d skipped lines are replaced by later records", path, replaced)
    if not open_:
        return
    shown = "; ".join(f"line {n}: {why}" for n, why, _ in open_[:5])
    more = f" (and {len(open_) - 5} more)" if len(open_) > 5 else ""
    log.warning("%s: %d lines skipped, their cells are computed again: %s%s", path,
                len(open_), shown, more)


def _all_failed(failures: list[tuple[Any, str]], total: int, folder: Path) -> str:
    """The message of a run in which no cell finished: the count and the first errors."""
    lines = [f"every cell failed ({len(failures)} of {total}); no result "
             f"was written. The errors are in {folder / 'errors.jsonl'}; the first:"]
    for cell, error in failures[:3]:
        last = [x for x in error.strip().splitlines() if x.strip()][-1:] or ["(no message)"]
        lines.append(f"  cell {_plain(cell.coords)}: {last[0].strip()}")
    return "\n".join(lines)


def _plain(coords: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in coords.items()}
