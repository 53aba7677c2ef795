"""treelab's RandomForestRegressor beside scikit-learn's and the other peers, in one process.

Workload: Friedman #1 (``make_friedman1(rows, 20, noise=1.0, random_state=0)``), the first 75%
for training, 100 trees, 2 threads, ``max_features=1.0`` (scikit-learn's default for
regression; YDF is given the same: all features at every node), trees grown to purity. Each
repeat fits and predicts with every learner in turn (alternating, so all see the same load);
the table gives the medians over repeats and the ratio learner / scikit-learn (below 1: faster
than scikit-learn), with the test R^2. ``--bins`` adds treelab's binned search
(``max_bins=255``).

Peers, each skipped with a note when it does not import (``pip install treelab[bench]``):
scikit-learn-intelex's ``RandomForestRegressor`` (``sklearnex.ensemble``; its trees search
histogram bins, so it is the peer of treelab's binned search) and YDF's
``RandomForestLearner`` in regression mode (no bootstrap in YDF's default; set to sample with
replacement here as the others do, trees to depth 64 with 1 row per leaf).

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


class YDFRegressor:
    """YDF's random forest in regression mode behind fit / predict on arrays (YDF reads a
    DataFrame with the label as a column)."""

    def __init__(self, n_trees: int):
        self.n_trees = n_trees

    @staticmethod
    def _frame(X):
        import pandas as pd

        return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])

    def fit(self, X, y):
        import ydf

        df = self._frame(X)
        df["label"] = y
        self.model = ydf.RandomForestLearner(
            label="label", task=ydf.Task.REGRESSION, num_trees=self.n_trees,
            num_threads=THREADS, bootstrap_training_dataset=True, max_depth=64,
            min_examples=1, num_candidate_attributes=X.shape[1],
            winner_take_all=False).train(df, verbose=0)
        return self

    def predict(self, X):
        return self.model.predict(self._frame(X))


def peers(n_trees: int) -> dict:
    """The peers that import here, by name."""
    out = {}
    try:
        from sklearnex.ensemble import RandomForestRegressor as IntelForest

        out["sklearnex"] = lambda: IntelForest(n_estimators=n_trees, random_state=0,
                                               n_jobs=THREADS)
    except ImportError as exc:
        print(f"note: scikit-learn-intelex skipped ({exc})")
    try:
        import ydf  # noqa: F401

        out["ydf"] = lambda: YDFRegressor(n_trees)
    except ImportError as exc:
        print(f"note: ydf skipped ({exc})")
    return out


def workload(rows: int) -> tuple:
    """Friedman #1 with 20 features (15 irrelevant) and noise 1: the first three quarters of
    ``rows`` to fit, the rest to predict (Xtr, ytr, Xte, yte)."""
    X, y = make_friedman1(rows, 20, noise=1.0, random_state=0)
    cut = 3 * rows // 4
    return X[:cut], y[:cut], X[cut:], y[cut:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trees", type=int, default=TREES)
    parser.add_argument("--bins", action="store_true", help="also treelab's max_bins=255")
    args = parser.parse_args()

    Xtr, ytr, Xte, yte = workload(args.rows)
    learners = {
        "treelab": lambda: treelab.RandomForestRegressor(
            n_estimators=args.trees, random_state=0, n_jobs=THREADS),
        "sklearn": lambda: SkForest(n_estimators=args.trees, random_state=0, n_jobs=THREADS),
    }
    if args.bins:
        learners["treelab max_bins=255"] = lambda: treelab.RandomForestRegressor(
            n_estimators=args.trees, max_bins=255, random_state=0, n_jobs=THREADS)
    learners.update(peers(args.trees))
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
            # each timing as it comes, so an interrupted run still reports what it measured
            print(f"repeat {len(times[name]['fit'])}: {name} fit {t1 - t0:.2f} s, predict "
                  f"{t2 - t1:.3f} s, R^2 {r2[name]:.4f}", flush=True)
            del model

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Friedman #1, {args.rows:,} rows x 20 ({len(ytr):,} to fit), {args.trees} trees, "
          f"{THREADS} threads, {args.repeats} repeats, load average {load:.1f}")
    sk = {k: statistics.median(v) for k, v in times["sklearn"].items()}
    print(f"{'learner':24s} {'fit s':>8s} {'predict s':>10s} {'fit ratio':>10s} "
          f"{'predict ratio':>14s} {'test R^2':>9s}")
    for name in learners:
        fit = statistics.median(times[name]["fit"])
        pred = statistics.median(times[name]["predict"])
        print(f"{name:24s} {fit:8.2f} {pred:10.3f} {fit / sk['fit']:10.2f} "
              f"{pred / sk['predict']:14.2f} {r2[name]:9.4f}")

    def paired(a: str, b: str, what: str) -> None:
        if a in times and b in times:
            ratios = [x / z for x, z in zip(times[a][what], times[b][what], strict=True)]
            print(f"paired {what} ratios {a} / {b}:", " ".join(f"{r:.2f}" for r in ratios))

    paired("treelab", "sklearn", "fit")
    paired("treelab max_bins=255", "sklearnex", "fit")
    for peer in ("sklearn", "sklearnex", "ydf"):
        paired("treelab", peer, "predict")


if __name__ == "__main__":
    main()
