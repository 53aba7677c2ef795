"""Fit time of the oblique learners against their axis-aligned peers (issue 6).

Targets on W1 of the engine benchmark (``make_classification(n_samples=100_000,
n_features=20, n_informative=10, random_state=0)``, 75/25 split):

1. ``BaggedMMDT`` fit takes at most 2 x ``BaggedTrees(criterion="entropy")`` with the same
   number of trees;
2. ``RotationForest(rotation="random")`` fit takes at most 1.5 x ``RandomForest`` with the same
   settings (number of trees, ``max_features``, ``min_samples_leaf``, bootstrap).

Run: ``.venv/bin/python benchmarks/bench_learners.py`` (``--quick`` for a smaller check). Times
are the best of ``--repeat`` fits after a warm-up fit on a small sample (numba compilation
excluded); both sides of a pair run with the same ``--jobs``.
"""

from __future__ import annotations

import argparse
import time

from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

import treelab


def best_fit_time(make, X, y, repeat):
    make().fit(X[:2000], y[:2000])  # warm-up: compilation, caches
    times = []
    est = None
    for _ in range(repeat):
        est = make()
        start = time.perf_counter()
        est.fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times), est


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="5 trees, 20,000 rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.trees, args.rows, args.repeat = 5, 20_000, 1

    X, y = make_classification(n_samples=args.rows, n_features=20, n_informative=10,
                               random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    T, nj = args.trees, args.jobs
    pairs = [
        ("BaggedMMDT", lambda: treelab.BaggedMMDT(n_estimators=T, random_state=0, n_jobs=nj),
         "BaggedTrees(entropy)",
         lambda: treelab.BaggedTrees(n_estimators=T, criterion="entropy", random_state=0,
                                     n_jobs=nj),
         2.0),
        ("RotationForest(random)",
         lambda: treelab.RotationForest(n_estimators=T, rotation="random", random_state=0,
                                        n_jobs=nj),
         "RandomForest",
         lambda: treelab.RandomForest(n_estimators=T, random_state=0, n_jobs=nj),
         1.5),
    ]
    print(f"W1: {Xtr.shape[0]} training rows x {Xtr.shape[1]} features, {T} trees, "
          f"n_jobs={nj}, best of {args.repeat}")
    header = f"{'learner':24s} {'fit s':>8s} {'acc':>6s}   {'peer':22s} {'fit s':>8s} " \
             f"{'acc':>6s} {'ratio':>6s} {'target':>7s}"
    print(header)
    print("-" * len(header))
    ok = True
    for name, make, peer, make_peer, target in pairs:
        t, est = best_fit_time(make, Xtr, ytr, args.repeat)
        tp, ref = best_fit_time(make_peer, Xtr, ytr, args.repeat)
        ratio = t / tp
        ok &= ratio <= target
        print(f"{name:24s} {t:8.2f} {est.score(Xte, yte):6.3f}   {peer:22s} {tp:8.2f} "
              f"{ref.score(Xte, yte):6.3f} {ratio:6.2f} {'<= ' + str(target):>7s}")
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
