"""Reproduce Fan, Greengrass, McCloskey, Yu & Drummey (2005), probability estimation, full mode.

Notebook 03 in its full mode (the same configuration, so the notebook finds the cells this
script stores): 1. the exact MSE of six methods (unpruned and pessimistically pruned C4.5-style
tree, RD, RF+, BT+ with 100 trees, DST with 10) on the synthetic four-class problem with d = 5,
15 and 20 attributes, training draws of 10,000 rows cut to 1%, 3%, 10%, 30% and 100%, 10,000
test rows, 10 independent draws (experiment runner: cells stored as they finish, resumed when
run again); 2. the thresholded MSE (1.0, top1, top2, top3) and the top-k error at the full
training size; 3. the bias-variance decomposition of the squared loss over K = 100 training
sets of 5,000 rows (d = 5) against one test set of 10,000 rows (each set's predictions are
stored as it finishes and reused when run again). Prints the Markdown tables of
docs/reproductions/fan2005.md.

Usage::

    python benchmarks/reproduce_fan2005.py               # full mode, 2 workers
    python benchmarks/reproduce_fan2005.py --estimate    # projected time from a small slice
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
from _reproduce import (
    NOTEBOOK_OUT,
    estimate_grid,
    estimate_loop,
    markdown,
    parser,
    print_estimates,
    run_grid,
    section,
)

import treelab
from treelab.analysis import bias_variance
from treelab.datasets import fan_synthetic
from treelab.experiment import ExperimentConfig
from treelab.protocols import make_protocol

N_TRAIN, N_TEST = 10000, 10000
SIZES = [0.01, 0.03, 0.1, 0.3, 1.0]
DIMS = [5, 15, 20]
N_DRAWS, K_SETS = 10, 100
SEED = 0
OUT = NOTEBOOK_OUT / "03_probability_estimation"


def methods(n: int) -> dict[str, tuple[str, dict]]:
    """Name -> (estimator, parameters) of the six methods at ``n`` trees (DST keeps 10)."""
    trees = {"n_estimators": n}
    return {
        "unpruned tree": ("DecisionTree", {}),
        "pruned tree": ("DecisionTree", {"prune": "pessimistic"}),
        "RD": ("RandomDecisionTrees", trees),
        "RF+": ("RandomForest", {**trees, "combine": "average"}),
        "BT+": ("BaggedTrees", {**trees, "combine": "average"}),
        "DST": ("DisjointSampleTrees", {"n_estimators": 10}),
    }


def exact_mse(n: int) -> ExperimentConfig:
    return ExperimentConfig(
        name="probability estimation",
        datasets=[{"name": f"d = {d}", "generator": "fan_synthetic",
                   "params": {"n_features": d}} for d in DIMS],
        ensembles=[{"name": name, "estimator": est, "params": p, "single": False}
                   for name, (est, p) in methods(n).items()],
        transforms=[{"kind": "subsample", "values": SIZES, "stratify": False}],
        protocol={"name": "draws", "n_repeats": N_DRAWS, "n_train": N_TRAIN, "n_test": N_TEST},
        seed=SEED, backend="local")


# ------------------------------------------------------------------ bias and variance


def _draws():
    protocol = make_protocol({"name": "bias_variance", "n_sets": K_SETS,
                              "n_train": N_TRAIN // 2, "n_test": N_TEST, "random_state": SEED})
    return protocol.split(functools.partial(_fan, d=DIMS[0]))


def _fan(n, random_state, d):
    return fan_synthetic(n, n_features=d, random_state=random_state)


def _one_set(k: int, n: int) -> np.ndarray:
    """(method, test row, class) probabilities of the methods fitted on training set ``k``."""
    split = next(itertools.islice(_draws(), k, None))
    return np.stack([getattr(treelab, est)(random_state=SEED + split.repeat, **p)
                     .fit(split.train.X, split.train.y).predict_proba(split.test.X)
                     for est, p in methods(n).values()])


def bias_variance_table(folder: Path, n: int, workers: int) -> pd.DataFrame:
    """Bias, variance and loss per method, each set's predictions stored under ``folder`` in
    a subfolder named by a digest of the settings (other settings never reuse them)."""
    from joblib import Parallel, delayed

    settings = {"d": DIMS[0], "n_sets": K_SETS, "n_train": N_TRAIN // 2, "n_test": N_TEST,
                "seed": SEED, "methods": methods(n)}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    folder = folder / f"trees_{n}_{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings, indent=1, sort_keys=True))

    def path(k: int) -> Path:
        return folder / f"set_{k:03d}.npy"

    todo = [k for k in range(K_SETS) if not path(k).is_file()]

    def one(k: int) -> int:
        proba = _one_set(k, n)
        tmp = path(k).with_suffix(".tmp.npy")
        np.save(tmp, proba)
        tmp.replace(path(k))  # a set is stored whole or not at all
        return k

    Parallel(n_jobs=workers, verbose=5)(delayed(one)(k) for k in todo)
    probas = np.stack([np.load(path(k)) for k in range(K_SETS)], axis=1)  # method, set, ...
    test = next(_draws()).test
    parts = [bias_variance(probas[i], test.true_proba)[["bias", "variance", "loss"]]
             for i in range(probas.shape[0])]
    return xr.concat(parts, dim=pd.Index(list(methods(n)), name="ensemble")).to_pandas()


# ------------------------------------------------------------------ tables


def tables(result: xr.Dataset, decomposition: pd.DataFrame) -> None:
    mse = result.exact_mse
    mean, sd = mse.mean(["repeat", "fold"]), mse.std(["repeat", "fold"], ddof=1)
    cells = xr.apply_ufunc(np.vectorize(lambda m, s: f"{m:.4f} ± {s:.4f}"), mean, sd)
    frame = cells.to_dataframe("mse").mse.unstack("train_size")
    frame.columns = [f"{int(round(s * N_TRAIN)):,} rows" for s in frame.columns]
    section(f"Exact MSE, mean ± sd over {N_DRAWS} draws ({N_TEST:,} test rows)",
            markdown(frame))
    for name in result.dataset.values:
        full = result.sel(train_size=1.0, dataset=name).mean(["repeat", "fold"])
        table = pd.concat([full.thresholded_mse.to_pandas().add_prefix("MSE "),
                           full.topk_error.to_pandas().add_prefix("top-").add_suffix(" error"),
                           full.exact_mse.to_pandas().rename("exact MSE")], axis=1)
        section(f"{name}, {N_TRAIN:,} training rows: thresholded MSE and top-k error "
                f"(mean over {N_DRAWS} draws)", markdown(table, digits=4))
    section(f"Bias and variance of the probability estimates (d = {DIMS[0]}, {K_SETS} training "
            f"sets of {N_TRAIN // 2:,} rows, {N_TEST:,} test rows)",
            markdown(decomposition, digits=4))


def main(argv=None) -> None:
    args = parser(__doc__, OUT).parse_args(argv)
    if args.estimate:
        def one_set(n: int) -> float:
            started = time.perf_counter()
            _one_set(0, n)
            return time.perf_counter() - started

        print_estimates([estimate_grid("exact MSE (runner)", exact_mse, args),
                         estimate_loop("bias-variance sets", one_set, K_SETS, args)], args)
        return
    # no method here has an alpha: drop the runner's alpha dim (a single NaN coordinate)
    result = run_grid(exact_mse(args.trees), args.out / "fan", args).isel(alpha=0, drop=True)
    decomposition = bias_variance_table(args.out / "bias_variance", args.trees, args.workers)
    tables(result, decomposition)


if __name__ == "__main__":
    main()
