"""Binned random forest against scikit-learn-intelex, paired in one process (issue 28 item 1).

For each point of the scaling grid, ``make_classification(n + n // 3, d,
n_informative=min(d, 10), random_state=0)``: the first n rows train, the rest test. treelab's
``RandomForest(max_bins=256)`` and scikit-learn-intelex's ``RandomForestClassifier`` (100
trees, 2 threads each, ``random_state=0``) are fitted alternately, ``--repeats`` times each;
the script prints medians of wall time and of process CPU time (``time.process_time``, which
counts every thread of the process, the extension's included) and their ratios
(treelab / extension; below 1: treelab faster), the accuracies, and the load average.

    python benchmarks/bench_binned.py --points 10000x20,50000x20,50000x100 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

GRID = "10000x20,100000x20,1000000x20,50000x20,50000x100,50000x500"


def _timed(model, X, y):
    w = time.perf_counter()
    c = time.process_time()
    model.fit(X, y)
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", default=GRID)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--bins", type=int, default=256)
    args = ap.parse_args()

    import numpy as np
    from sklearn.datasets import make_classification
    from sklearnex.ensemble import RandomForestClassifier

    import treelab

    treelab.RandomForest(n_estimators=2, random_state=0, max_bins=args.bins).fit(
        np.random.default_rng(0).normal(size=(300, 5)), np.arange(300) % 2)
    print("| n | d | treelab wall s | sklearnex wall s | wall ratio | treelab CPU s | "
          "sklearnex CPU s | CPU ratio | accuracy % treelab / sklearnex | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for point in args.points.split(","):
        n, d = (int(v) for v in point.split("x"))
        X, y = make_classification(n + n // 3, d, n_informative=min(d, 10), random_state=0)
        X = np.ascontiguousarray(X)
        Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
        times = {"t": [], "s": []}
        acc = {}
        for _ in range(args.repeats):
            for key in ("t", "s"):
                if key == "t":
                    m = treelab.RandomForest(n_estimators=args.trees, n_jobs=args.threads,
                                             random_state=0, max_bins=args.bins)
                else:
                    m = RandomForestClassifier(n_estimators=args.trees, n_jobs=args.threads,
                                               random_state=0)
                times[key].append(_timed(m, Xtr, ytr))
                acc[key] = 100.0 * float(np.mean(m.predict(Xte) == yte))
                del m
        tw = statistics.median(t[0] for t in times["t"])
        sw = statistics.median(t[0] for t in times["s"])
        tc = statistics.median(t[1] for t in times["t"])
        sc = statistics.median(t[1] for t in times["s"])
        load = "/".join(f"{v:.1f}" for v in os.getloadavg())
        print(f"| {n} | {d} | {tw:.2f} | {sw:.2f} | {tw / sw:.2f} | {tc:.2f} | {sc:.2f} | "
              f"{tc / sc:.2f} | {acc['t']:.2f} / {acc['s']:.2f} | {load} |", flush=True)


if __name__ == "__main__":
    main()
