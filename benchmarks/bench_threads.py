"""Small forests on one thread and on two: where handing trees to threads stops paying (not a
test).

Fits ``VRTrees(alpha=0.5)`` on the first ``n`` rows of sonar (60 continuous features) with
``n_jobs=1`` and ``n_jobs=2``, the latter with the small-forest rule switched off
(``engine.forest.THREADS_MIN_ROW_TREES = 0``) so that every forest goes to the pool, for a
range of rows x trees. Both alternate in one process, ``--repeats`` times; the script prints
the median wall and CPU (``time.process_time``, every thread) seconds of each and their
ratios two threads / one. Below the rule's threshold a forest grows on the calling thread.

Usage::

    python benchmarks/bench_threads.py --repeats 15
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import treelab
from treelab.datasets import load_uci
from treelab.engine import forest

SIZES = ((40, 10), (60, 20), (100, 20), (100, 40), (208, 20), (208, 50), (208, 100))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    data = load_uci("sonar")
    rng = np.random.default_rng(0)
    rows = rng.permutation(data.X.shape[0])
    forest.THREADS_MIN_ROW_TREES = 0  # every forest on the pool with n_jobs=2
    treelab.VRTrees(n_estimators=4, alpha=0.5, random_state=0).fit(data.X, data.y)  # compiled
    report = {}
    for n, trees in SIZES:
        X, y = data.X[rows[:n]], data.y[rows[:n]]
        wall: dict[int, list[float]] = {1: [], 2: []}
        cpu: dict[int, list[float]] = {1: [], 2: []}
        for i in range(args.repeats):
            for jobs in ((1, 2) if i % 2 == 0 else (2, 1)):
                est = treelab.VRTrees(n_estimators=trees, alpha=0.5, random_state=i,
                                      n_jobs=jobs)
                w, c = time.perf_counter(), time.process_time()
                est.fit(X, y)
                wall[jobs].append(time.perf_counter() - w)
                cpu[jobs].append(time.process_time() - c)
        med = {k: {j: statistics.median(v[j]) for j in (1, 2)} for k, v in
               (("wall", wall), ("cpu", cpu))}
        report[f"{n} rows x {trees} trees = {n * trees}"] = {
            "wall_ms_1": round(1e3 * med["wall"][1], 2),
            "wall_ms_2": round(1e3 * med["wall"][2], 2),
            "wall_ratio_2_over_1": round(med["wall"][2] / med["wall"][1], 3),
            "cpu_ratio_2_over_1": round(med["cpu"][2] / med["cpu"][1], 3),
        }
        print(json.dumps({k: report[k] for k in list(report)[-1:]}), flush=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
