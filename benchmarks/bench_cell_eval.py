"""Everything in a spectrum-study cell but the fit (not a test).

Fits the fold batches of the 48-set study (``examples/spectrum_uci.toml``: Agg., Bag. and
Subspace VR-Trees, 100 trees, 11 alphas) once and pickles the fitted ensembles (``--fit``);
then (``--time``) runs every cell through ``run_cell`` with its fit replaced by the pickled
one, and prints the CPU seconds (``time.process_time``) of the rest of the cell per data set:
member prediction, the measures, the single model, the runner's bookkeeping. Two versions of
the code can thus be timed on the same fits in alternating processes, and ``--digest`` prints
a digest of the stored values (timings left out) to check they are equal::

    python benchmarks/bench_cell_eval.py --fit --uci iris,abalone --folds 0 --fits /tmp/f.pkl
    python benchmarks/bench_cell_eval.py --time --fits /tmp/f.pkl --repeat 2 --digest
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import time
import tomllib
import warnings
from pathlib import Path

import treelab.experiment.cells as cells_mod
from treelab.experiment import expand, load_config
from treelab.experiment.cells import TIMING_VARS, run_cell

CONFIG = Path(__file__).resolve().parents[1] / "examples" / "spectrum_uci.toml"


def _cells(names: list[str], folds: set[int]) -> list:
    with open(CONFIG, "rb") as fh:
        cfg = tomllib.load(fh)
    cfg["datasets"] = [d for d in cfg["datasets"] if d["uci"] in names]
    return [c for c in expand(load_config(cfg)) if c.coords["fold"] in folds]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fit", action="store_true", help="fit the cells and pickle the fits")
    p.add_argument("--time", action="store_true", help="time the cells on the pickled fits")
    p.add_argument("--uci", default="iris", help="data sets of the 48-set study (with --fit)")
    p.add_argument("--folds", default="0")
    p.add_argument("--fits", required=True, help="pickle of the fitted ensembles")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--digest", action="store_true")
    args = p.parse_args()
    warnings.simplefilter("ignore")
    build = cells_mod._build
    if args.fit:
        names = args.uci.split(",")
        folds = {int(f) for f in args.folds.split(",")}
        fitted = {}

        def keep(*a, **k):
            keep.last = build(*a, **k)
            return keep.last

        cells_mod._build = keep
        for cell in _cells(names, folds):
            run_cell(cell.spec, share=True)
            fitted[cell.key] = keep.last
        cells_mod._build = build
        with open(args.fits, "wb") as fh:
            pickle.dump({"names": names, "folds": sorted(folds), "fitted": fitted}, fh)
    if not args.time:
        return
    with open(args.fits, "rb") as fh:
        saved = pickle.load(fh)
    chosen = _cells(saved["names"], set(saved["folds"]))
    for est in saved["fitted"].values():
        est.fit = (lambda e: lambda X, y: e)(est)  # the fit is replayed, not timed here
    cells_mod._build = lambda *a, **k: cells_mod._build.current
    cells_mod._build.current = saved["fitted"][chosen[0].key]
    run_cell(chosen[0].spec)  # warm: data loaded, kernels loaded from the cache
    per: dict[str, float] = {}
    h = hashlib.sha256()
    for r in range(args.repeat):
        for cell in chosen:
            cells_mod._build.current = saved["fitted"][cell.key]
            t0 = time.process_time()
            rec = run_cell(cell.spec, n_jobs=1, share=True)
            dt = time.process_time() - t0
            name = cell.spec["dataset"]["name"]
            per[name] = per.get(name, 0.0) + dt / args.repeat
            if r == 0 and args.digest:
                kept = {k: v for k, v in rec["vars"].items() if k not in TIMING_VARS}
                h.update(json.dumps([kept, rec["coords"], rec["warnings"]]).encode())
    print(" ".join(f"{k} {v:.3f}" for k, v in per.items()),
          f"total {sum(per.values()):.3f} CPU-s over {len(chosen)} cells",
          f"digest {h.hexdigest()[:16]}" if args.digest else "")


if __name__ == "__main__":
    main()
