"""What the reproduce_<study>.py scripts share: the command line, running a study's grids with
the experiment runner (stored cell by cell, resumed when run again), projecting the full
run's time from a small slice, and Markdown tables.

A study is a few experiment grids (``ExperimentConfig`` built for a number of trees) plus,
for some, a computation outside the runner. ``--estimate`` runs, for every grid, one cell of
each stratum (the first repeat and fold of every data set, ensemble, alpha and transform
value) at two small tree counts, each count in a fresh process as a runner's worker would,
and projects the full run: a cell's time is affine in the number of trees (a fixed part --
data, the single-tree baseline, a tree grown once -- plus a part per tree), so the sample's
total at 100 trees is extrapolated from the two counts and multiplied by the repeats x folds
each stratum has. The projection uses CPU seconds, which a shared machine's load does not
stretch (a cell runs on one thread); the wall-clock ratio measured alongside says how much
longer the run takes under the load of the moment.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from treelab.experiment import ExperimentConfig, expand, run, run_cell

ROOT = Path(__file__).resolve().parents[1]
#: Where the notebooks' full mode keeps its runs (``../treelab-out/notebooks`` seen from
#: ``notebooks/``): a study run by its script is found there, cell for cell, by the notebook.
NOTEBOOK_OUT = ROOT.parent / "treelab-out" / "notebooks"

#: A grid of a study: (n_trees) -> the experiment configuration.
Grid = Callable[[int], ExperimentConfig]


def parser(doc: str, out: Path) -> argparse.ArgumentParser:
    """The command line every reproduction script takes."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(doc.splitlines()[1:]))
    ap.add_argument("--out", type=Path, default=out,
                    help=f"folder of the stored cells (default {out}; the notebook's full mode "
                         "reads the same folder)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--trees", type=int, default=100, help="trees per ensemble (default 100)")
    ap.add_argument("--estimate", action="store_true",
                    help="run one cell of each stratum at two small tree counts and print the "
                         "projected time of the full run instead of running it")
    ap.add_argument("--estimate-trees", type=int, nargs=2, default=(10, 30),
                    metavar=("N1", "N2"), help="the two tree counts of --estimate (default 10 "
                                               "30; closer counts leave the slope to noise)")
    ap.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return ap


def run_grid(config: ExperimentConfig, out: Path, args: argparse.Namespace):
    """The grid's result: its cells run on the local backend, stored under ``out`` as they
    finish; cells stored by an earlier run (of this script or of the notebook) are skipped."""
    return run(config, out=out, backend="local" if args.workers > 1 else "serial",
               n_workers=args.workers, progress=not args.no_progress)


def _sample(config: ExperimentConfig) -> tuple[list[Any], list[Any]]:
    """One cell per stratum (the first repeat and fold), and one cell per ensemble from
    another repeat or fold to warm up with."""
    cells = expand(config)
    pairs = sorted({(c.coords["repeat"], c.coords["fold"]) for c in cells})
    sample = [c for c in cells if (c.coords["repeat"], c.coords["fold"]) == pairs[0]]
    other = [c for c in cells if (c.coords["repeat"], c.coords["fold"]) == pairs[-1]]
    return sample, list({c.coords["ensemble"]: c for c in other}.values())


def _time_sample(grid: Grid, n: int) -> tuple[float, float]:
    """CPU and wall seconds to run the sample of ``grid(n)``, after the warm-up cells."""
    sample, warm = _sample(grid(n))
    for cell in warm:
        run_cell(cell.spec)
    return _timed(lambda: [run_cell(cell.spec) for cell in sample])


def _timed(work: Callable[[], Any]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of ``work()``. A cell runs on one thread, so its CPU time
    is its time on a free core; on a shared machine the wall time is longer by the load."""
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def _project(name: str, cells: int, sample: int, times: dict, trees: int, factor: float,
             parallel: bool) -> dict[str, Any]:
    """Affine extrapolation of the CPU seconds measured at two tree counts to ``trees``."""
    (n1, (c1, w1)), (n2, (c2, w2)) = sorted(times.items())
    per_tree = max(0.0, (c2 - c1) / (n2 - n1))
    fixed = max(0.0, c1 - per_tree * n1)
    return {"part": name, "cells": cells, "sample cells": sample,
            f"sample CPU s ({n1} trees)": c1, f"sample CPU s ({n2} trees)": c2,
            "projected s": max(c2, fixed + per_tree * trees) * factor,
            "wall / CPU": (w1 + w2) / (c1 + c2), "parallel": parallel}


def estimate_grid(name: str, grid: Grid, args: argparse.Namespace) -> dict[str, Any]:
    """Projected single-process seconds of ``grid`` at ``args.trees``, from its sample.

    Each tree count runs in a fresh process, as a worker of the runner would: a cell's
    single-tree baseline is cached within a process, so a second count run in the same one
    would find it done and the difference of the two would not be the trees' cost.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    n1, n2 = args.estimate_trees
    full = expand(grid(args.trees))
    cells, _ = _sample(grid(args.trees))
    times = {}
    for n in (n1, n2):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            times[n] = pool.submit(_time_sample, grid, n).result()
    return _project(name, len(full), len(cells), times, args.trees, len(full) / len(cells),
                    True)


def estimate_loop(name: str, unit: Callable[[int], Any], units: int,
                  args: argparse.Namespace, *, parallel: bool = True) -> dict[str, Any]:
    """Projected single-process seconds of a computation outside the runner: ``units``
    independent units (training sets), one of which ``unit(n_trees)`` computes."""
    n1, n2 = args.estimate_trees
    unit(n1)  # warm
    times = {n: _timed(lambda n=n: unit(n)) for n in (n1, n2)}
    return _project(name, units, 1, times, args.trees, units, parallel)


def print_estimates(rows: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """The projection table: single process, and with ``args.workers`` workers (cells spread
    over the workers; the local backend's efficiency is near 1, benchmarks/README.md)."""
    frame = pd.DataFrame(rows).set_index("part")
    workers = max(1, args.workers)
    parallel = frame.pop("parallel").astype(bool)
    ratio = frame.pop("wall / CPU")
    frame[f"projected, {workers} workers"] = np.where(parallel, frame["projected s"] / workers,
                                                      frame["projected s"])
    total = frame["projected s"].sum()
    total_w = frame[f"projected, {workers} workers"].sum()
    print(markdown(frame.rename(columns={"projected s": "projected, 1 process"}), digits=0))
    print()
    print(f"full run at {args.trees} trees on free cores: about {_hours(total)} in one process, "
          f"{_hours(total_w)} with {workers} workers. While measuring, wall time was "
          f"{ratio.min():.1f}-{ratio.max():.1f} x the CPU time (load average {_load()}): a "
          "shared machine stretches the run by that much.")


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h ({seconds:,.0f} s)" if seconds >= 3600 \
        else f"{seconds / 60:.0f} min ({seconds:,.0f} s)"


def _load() -> str:
    try:
        return ", ".join(f"{v:.1f}" for v in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:  # not on every platform
        return "unknown"


def markdown(frame: pd.DataFrame | pd.Series, digits: int = 3) -> str:
    """A DataFrame as a Markdown table (index as the first columns), numbers rounded."""
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    frame = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame

    def cell(v: Any) -> str:
        if isinstance(v, float | np.floating):
            return "" if math.isnan(v) else f"{v:,.{digits}f}" if digits == 0 else f"{v:.{digits}f}"
        return str(v)

    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join([head, rule, *body])


def section(title: str, text: str) -> None:
    """A heading and its table, ready to paste."""
    print(f"\n### {title}\n\n{text}")


def study_main(doc: str, study: str, grids: dict[str, Grid], argv=None) -> None:
    """A reproduction script as a thin caller of ``treelab reproduce STUDY``.

    ``--estimate`` projects the full run of ``grids`` (name -> (n_trees) -> configuration);
    otherwise :func:`treelab.reproduce.run_study` runs the study's full mode (or ``--parts``
    of it) with its cells stored where the notebook's full mode reads them, and the page
    (paper beside treelab) is printed and written beside them.
    """
    from treelab.reproduce import get_study, run_study

    out = NOTEBOOK_OUT / get_study(study).notebook
    ap = parser(doc, out)
    ap.add_argument("--parts", nargs="+", choices=list(grids), default=None,
                    help="run only these grids (default: all)")
    args = ap.parse_args(argv)
    if args.estimate:
        chosen = {n: g for n, g in grids.items() if args.parts is None or n in args.parts}
        print_estimates([estimate_grid(n, g, args) for n, g in chosen.items()], args)
        return
    report = run_study(study, mode="full", out=args.out, grid_root=args.out,
                       workers=args.workers, progress=not args.no_progress, parts=args.parts)
    print(report.markdown)
