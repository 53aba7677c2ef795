"""treelab's binned RandomForestRegressor (``max_bins=255``) beside scikit-learn-intelex's,
alone, in one process: the pair that ``bench_regression.py --bins`` times among five learners.

Workload: ``bench_regression.py``'s (Friedman #1, ``make_friedman1(rows, 20, noise=1.0,
random_state=0)``, the first 75% fitted, 100 trees, 2 threads, every feature a candidate,
trees grown to purity). The two fits alternate, the first of each repeat switching, so both
see the same load; each fit's wall time and CPU time (``time.process_time``: every thread of
the process, the extension's waiting workers included) are printed as they come, then the
paired ratios treelab / scikit-learn-intelex (below 1: treelab is faster) with the load
average. A first fit compiles treelab's kernels (a warm-up on 500 rows does that first).

Run:  python benchmarks/bench_regression_binned.py [--rows 100000] [--repeats 2] [--trees 100]
(needs ``pip install scikit-learn-intelex``).
"""

from __future__ import annotations

import argparse
import os
import time

from bench_regression import workload
from sklearn.metrics import r2_score

import treelab

THREADS = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--trees", type=int, default=100)
    args = parser.parse_args()
    from sklearnex.ensemble import RandomForestRegressor as IntelForest

    Xtr, ytr, Xte, yte = workload(args.rows)
    learners = {
        "treelab max_bins=255": lambda: treelab.RandomForestRegressor(
            n_estimators=args.trees, max_bins=255, random_state=0, n_jobs=THREADS),
        "sklearnex": lambda: IntelForest(n_estimators=args.trees, random_state=0,
                                         n_jobs=THREADS),
    }
    learners["treelab max_bins=255"]().set_params(n_estimators=2).fit(Xtr[:500], ytr[:500])
    wall: dict[str, list[float]] = {k: [] for k in learners}
    cpu: dict[str, list[float]] = {k: [] for k in learners}
    loads = []
    for r in range(args.repeats):
        names = list(learners) if r % 2 == 0 else list(learners)[::-1]
        for name in names:
            model = learners[name]()
            w0, c0 = time.perf_counter(), time.process_time()
            model.fit(Xtr, ytr)
            w1, c1 = time.perf_counter(), time.process_time()
            wall[name].append(w1 - w0)
            cpu[name].append(c1 - c0)
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            loads.append(load)
            print(f"repeat {r + 1}: {name} fit {w1 - w0:.2f} s wall, {c1 - c0:.2f} s CPU, "
                  f"test R^2 {r2_score(yte, model.predict(Xte)):.4f}, load {load:.1f}",
                  flush=True)
            del model
    a, b = "treelab max_bins=255", "sklearnex"
    print(f"Friedman #1, {args.rows:,} rows x 20 ({len(ytr):,} to fit), {args.trees} trees, "
          f"{THREADS} threads, {args.repeats} repeats, load average {min(loads):.1f} to "
          f"{max(loads):.1f}")
    for what, t in (("wall", wall), ("CPU", cpu)):
        ratios = [x / z for x, z in zip(t[a], t[b], strict=True)]
        print(f"paired fit {what} ratios {a} / {b}:", " ".join(f"{q:.2f}" for q in ratios))


if __name__ == "__main__":
    main()
