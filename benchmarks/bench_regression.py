"""treelab's RandomForestRegressor beside scikit-learn's, in one process.

Workload: Friedman #1 (``make_friedman1(rows, 20, noise=1.0, random_state=0)``), the first 75%
for training, 100 trees, 2 threads, ``max_features=1.0`` (both libraries' default for
regression), trees grown to purity. Each repeat fits and predicts with every learner in turn
(alternating, so both see the same load); the table gives the medians over repeats and the
ratio treelab / scikit-learn (below 1: treelab is faster), with the test R^2. ``--bins`` adds
treelab's binned search (``max_bins=255``).

A first run compiles treelab's kernels (a warm-up fit on a small sample does that before
anything is timed).

Run:  python benchmarks/bench_regression.py [--rows 100000] [--repeats 3] [--bins]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from sklearn.datasets import make_friedman1
from sklearn.ensemble import RandomForestRegressor as SkForest
from sklearn.metrics import r2_score

import treelab

TREES = 100
THREADS = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trees", type=int, default=TREES)
    parser.add_argument("--bins", action="store_true", help="also treelab's max_bins=255")
    args = parser.parse_args()

    X, y = make_friedman1(args.rows, 20, noise=1.0, random_state=0)
    cut = 3 * args.rows // 4
    Xtr, ytr, Xte, yte = X[:cut], y[:cut], X[cut:], y[cut:]
    learners = {
        "treelab": lambda: treelab.RandomForestRegressor(
            n_estimators=args.trees, random_state=0, n_jobs=THREADS),
        "sklearn": lambda: SkForest(n_estimators=args.trees, random_state=0, n_jobs=THREADS),
    }
    if args.bins:
        learners["treelab max_bins=255"] = lambda: treelab.RandomForestRegressor(
            n_estimators=args.trees, max_bins=255, random_state=0, n_jobs=THREADS)
    # compile treelab's kernels before anything is timed
    for name, make in learners.items():
        if name.startswith("treelab"):
            make().set_params(n_estimators=2).fit(Xtr[:500], ytr[:500]).predict(Xte[:10])

    times: dict[str, dict[str, list[float]]] = {k: {"fit": [], "predict": []} for k in learners}
    r2 = {}
    for _ in range(args.repeats):
        for name, make in learners.items():
            model = make()
            t0 = time.perf_counter()
            model.fit(Xtr, ytr)
            t1 = time.perf_counter()
            pred = model.predict(Xte)
            t2 = time.perf_counter()
            times[name]["fit"].append(t1 - t0)
            times[name]["predict"].append(t2 - t1)
            r2[name] = r2_score(yte, pred)
            del model

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Friedman #1, {args.rows:,} rows x 20 ({cut:,} to fit), {args.trees} trees, "
          f"{THREADS} threads, {args.repeats} repeats, load average {load:.1f}")
    sk = {k: statistics.median(v) for k, v in times["sklearn"].items()}
    print(f"{'learner':24s} {'fit s':>8s} {'predict s':>10s} {'fit ratio':>10s} "
          f"{'predict ratio':>14s} {'test R^2':>9s}")
    for name in learners:
        fit = statistics.median(times[name]["fit"])
        pred = statistics.median(times[name]["predict"])
        print(f"{name:24s} {fit:8.2f} {pred:10.3f} {fit / sk['fit']:10.2f} "
              f"{pred / sk['predict']:14.2f} {r2[name]:9.4f}")
    ratios = [a / b for a, b in zip(times["treelab"]["fit"], times["sklearn"]["fit"],
                                    strict=True)]
    print("paired fit ratios treelab / sklearn:", " ".join(f"{r:.2f}" for r in ratios))


if __name__ == "__main__":
    main()
