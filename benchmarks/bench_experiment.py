"""Scale benchmark of the experiment runner (not a test).

1. ``spectrum``: the spectrum study of Liu et al. (2008) -- Agg., Bag. and Subspace VR-Trees,
   100 trees, alpha in {0, 0.1, ..., 1}, 10-fold CV -- over every data set of the UCI bundle.
   By default a representative sample runs (every data set, ensemble and alpha, the folds
   given by ``--folds``) on the local process backend, and the wall time of the full study is
   projected from the measured per-cell times; ``--full`` runs it all. Every alpha is sampled
   because a cell's cost depends on alpha unevenly (aggregated trees at alpha = 1 are grown
   once), so a few alphas would weight some costs wrongly.
2. ``dask``: the same cells on a dask ``LocalCluster`` of 1 and of 2 workers: wall times,
   speed-up, and whether the results are identical.
3. ``sharing``: the spectrum study's fold batches (33 cells: 3 constructions x 11 alphas)
   alone and sharing their feature preparation and all-deterministic trees, paired in one
   process per data set, in CPU seconds; the full study projected from the sampled folds.

Usage::

    python benchmarks/bench_experiment.py spectrum --out /tmp/bench-spectrum
    python benchmarks/bench_experiment.py dask --out /tmp/bench-dask
    python benchmarks/bench_experiment.py sharing --folds 0 --procs 2

Reads the UCI bundle that ships with treelab (``data/uci``; ``TREELAB_DATA`` points elsewhere).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import xarray as xr

from treelab.datasets import list_uci
from treelab.experiment import TIMING_VARS, ExperimentConfig, expand
from treelab.experiment.demo import spectrum_ensembles

ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))


def spectrum_config(out: Path, datasets: list[str], *, n_estimators: int = 100,
                    alphas=ALPHAS) -> ExperimentConfig:
    return ExperimentConfig(
        name="spectrum benchmark",
        datasets=[{"uci": name} for name in datasets],
        ensembles=spectrum_ensembles(n_estimators),
        alphas=alphas,
        protocol={"name": "stratified_kfold", "n_splits": 10},
        out=str(out),
    )


def bench_spectrum(args: argparse.Namespace) -> dict:
    names = list(list_uci().index) if not args.datasets else args.datasets.split(",")
    full = spectrum_config(args.out, names)
    n_full = len(expand(full))
    alphas = ALPHAS if args.full else tuple(float(a) for a in args.alphas.split(","))
    config = spectrum_config(args.out, names, alphas=alphas)
    folds = set(range(10)) if args.full else {int(f) for f in args.folds.split(",")}
    cells = [c for c in expand(config) if c.coords["fold"] in folds]
    keep = {c.key for c in cells}
    # run only the sampled cells: a configuration per data set would re-key them, so filter
    # the expansion and hand the runner's backend the chosen cells directly
    from treelab.experiment.backends import execute
    from treelab.experiment.store import CellStore, assemble

    started = time.perf_counter()
    with CellStore(args.out) as store:
        done = store.records()
        todo = [c for c in cells if c.key not in done]
        for cell, result, error in execute(todo, backend="local", n_workers=args.workers):
            if result is None:
                print("FAILED", cell.coords, error.splitlines()[-1])
                continue
            store.write({"key": cell.key, "cell": {k: (None if isinstance(v, float)
                                                       and np.isnan(v) else v)
                                                   for k, v in cell.coords.items()},
                         **result})
            done[cell.key] = result
    wall = time.perf_counter() - started
    ds = assemble([c for c in expand(config) if c.key in keep], store.records())
    cell_time = ds.fit_time + ds.predict_time + ds.eval_time
    # mean seconds per cell of each (data set, ensemble), over the sampled alphas and folds
    per = cell_time.mean(["alpha", "repeat", "fold"], skipna=True)
    n_per = 11 * 10  # alphas x folds of the full study per (data set, ensemble)
    cpu_full = float(per.sum()) * n_per
    cpu_sample = float(cell_time.sum())
    efficiency = cpu_sample / (args.workers * wall) if todo else float("nan")
    by_data = (per.sum("ensemble") * n_per).to_series().sort_values(ascending=False)
    parts = {v: float(ds[v].sum()) for v in TIMING_VARS}
    report = {
        "cells_full_study": n_full,
        "cells_sampled": len(cells),
        "cells_run_now": len(todo),
        "wall_sample_s": wall,
        "cpu_sample_s": cpu_sample,
        "parallel_efficiency": efficiency,
        "projected_cpu_full_s": cpu_full,
        "projected_wall_full_s_at_workers": cpu_full / args.workers / (
            efficiency if np.isfinite(efficiency) and efficiency > 0 else 1.0),
        "workers": args.workers,
        "time_split": {k: v / sum(parts.values()) for k, v in parts.items()},
        "top_datasets_cpu_s": {k: round(float(v), 1) for k, v in by_data.head(10).items()},
        "by_ensemble_cpu_s": {k: round(float(v), 1) for k, v in
                              (per.sum("dataset") * n_per).to_series().items()},
        # projected CPU-s of the full study at each sampled alpha (its 10 folds)
        "by_alpha_cpu_s": {f"{float(k):.1f}": round(float(v), 1) for k, v in
                           (cell_time.mean(["repeat", "fold"], skipna=True)
                            .sum(["dataset", "ensemble"]) * 10).to_series().items()},
    }
    return report


def _warm(specs: list[dict]) -> None:
    from treelab.experiment import run_cell

    for spec in specs:
        run_cell(spec)


def bench_dask(args: argparse.Namespace) -> dict:
    from distributed import Client, LocalCluster

    names = args.datasets.split(",") if args.datasets else ["segmentation", "vowel", "car"]
    config = spectrum_config(args.out / "unused", names, alphas=(0.0, 0.5, 1.0))
    cells = [c for c in expand(config) if c.coords["fold"] < args.n_folds]
    from treelab.experiment.backends import execute
    from treelab.experiment.store import assemble

    results = {}
    walls = {}
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            # warm every worker (imports, numba's cached kernels, data loading) before timing
            warm = [c.spec for c in cells if c.coords["fold"] == 0][::3]
            client.run(_warm, warm)
            started = time.perf_counter()
            records = {c.key: r for c, r, e in execute(cells, backend="dask", client=client)
                       if r is not None}
            walls[n] = time.perf_counter() - started
        results[n] = assemble(cells, records).drop_vars(list(TIMING_VARS))
    try:
        xr.testing.assert_identical(results[1], results[2])
        identical = True
    except AssertionError:
        identical = False
    return {"cells": len(cells), "datasets": names, "wall_1_worker_s": walls[1],
            "wall_2_workers_s": walls[2], "speedup": walls[1] / walls[2],
            "identical": identical}


def _fold_pair(task: tuple[str, list[int], int]) -> dict:
    """One data set's cells of the given folds, alone and sharing (alternating ``pairs``
    times), in this process: CPU seconds of each, and whether every result is the same."""
    from treelab.engine import sharing
    from treelab.experiment.backends import fold_batches
    from treelab.experiment.cells import run_cell

    name, folds, pairs = task
    config = spectrum_config(Path("unused"), [name])
    batches = fold_batches([c for c in expand(config) if c.coords["fold"] in folds])
    run_cell(batches[0][-1].spec, share=False)  # data loaded, kernels loaded or compiled
    cpu: dict[str, list[float]] = {"alone": [], "shared": []}
    results: dict[str, dict] = {"alone": {}, "shared": {}}
    for _ in range(pairs):
        for mode in ("alone", "shared"):
            sharing.release()
            started = time.process_time()
            for batch in batches:
                for cell in batch:
                    rec = run_cell(cell.spec, n_jobs=1, share=mode == "shared")
                    # as the store writes them (NaN == NaN in JSON text)
                    results[mode][cell.key] = json.dumps(
                        {k: v for k, v in rec["vars"].items() if k not in TIMING_VARS},
                        sort_keys=True)
            cpu[mode].append(time.process_time() - started)
    return {"dataset": name, "cells": sum(map(len, batches)), "cpu_alone_s": cpu["alone"],
            "cpu_shared_s": cpu["shared"], "identical": results["alone"] == results["shared"]}


def bench_sharing(args: argparse.Namespace) -> dict:
    """Paired CPU time of fold batches alone (every cell prepares and grows everything) and
    sharing their feature preparation and all-deterministic trees; each data set's batches
    run in one process (``--procs`` of them side by side), and the full study's CPU time
    and wall time on ``--workers`` cores are projected from the sampled folds."""
    import multiprocessing

    names = list(list_uci().index) if not args.datasets else args.datasets.split(",")
    sizes = list_uci().n_samples * list_uci().n_features
    names.sort(key=lambda n: -float(sizes[n]))  # the longest first
    folds = [int(f) for f in args.folds.split(",")]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.procs) as pool:
        rows = []
        for row in pool.imap_unordered(_fold_pair, [(n, folds, args.pairs) for n in names]):
            print(json.dumps(row), file=sys.stderr, flush=True)  # each data set as it ends
            rows.append(row)
    scale = 10 / len(folds)
    alone = sum(min(r["cpu_alone_s"]) for r in rows) * scale
    shared = sum(min(r["cpu_shared_s"]) for r in rows) * scale
    return {
        "datasets": len(rows), "folds_sampled": folds, "pairs": args.pairs,
        "cells_sampled": sum(r["cells"] for r in rows),
        "all_identical": all(r["identical"] for r in rows),
        "projected_cpu_full_alone_s": alone, "projected_cpu_full_shared_s": shared,
        "ratio_shared_alone": shared / alone,
        "projected_wall_full_shared_min_at_workers": shared / args.workers / 60,
        "by_dataset": {r["dataset"]: {"alone": [round(x, 2) for x in r["cpu_alone_s"]],
                                      "shared": [round(x, 2) for x in r["cpu_shared_s"]],
                                      "identical": r["identical"]}
                       for r in sorted(rows, key=lambda r: -min(r["cpu_alone_s"]))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("spectrum", "dask", "sharing"))
    parser.add_argument("--out", type=Path, default=Path("bench-experiment-out"))
    parser.add_argument("--datasets", default="", help="comma-separated UCI names")
    parser.add_argument("--alphas", default=",".join(map(str, ALPHAS)), help="sampled alphas")
    parser.add_argument("--folds", default="0", help="sampled folds")
    parser.add_argument("--full", action="store_true", help="run the whole study")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--n-folds", type=int, default=4, help="folds per cell set (dask)")
    parser.add_argument("--procs", type=int, default=2, help="processes side by side (sharing)")
    parser.add_argument("--pairs", type=int, default=1, help="alone/shared pairs (sharing)")
    args = parser.parse_args()
    bench = {"spectrum": bench_spectrum, "dask": bench_dask, "sharing": bench_sharing}
    report = bench[args.what](args)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
