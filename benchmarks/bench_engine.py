"""Engine benchmark against scikit-learn (issue: engine and axis-aligned family, section 5).

Workload W1: ``make_classification(n_samples=100_000, n_features=20, n_informative=10,
random_state=0)``, first 75% for training, 100 trees, n_jobs=2. Each pair is timed in one
process, alternating treelab and scikit-learn, and the median over repeats is reported as a ratio
(treelab / scikit-learn; below 1 means treelab is faster).

Run:  python benchmarks/bench_engine.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time

from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

import treelab


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def pair(make_a, make_b, X, y, repeats):
    """Alternate fits of A and B; return median fit times and the last fitted models."""
    ta, tb = [], []
    for _ in range(repeats):
        t, a = timed(lambda: make_a().fit(X, y))
        ta.append(t)
        t, b = timed(lambda: make_b().fit(X, y))
        tb.append(t)
    return statistics.median(ta), statistics.median(tb), a, b


def predict_pair(a, b, X, repeats):
    ta, tb = [], []
    a.predict_proba(X[:100])
    for _ in range(repeats):
        ta.append(timed(lambda: a.predict_proba(X))[0])
        tb.append(timed(lambda: b.predict_proba(X))[0])
    return statistics.median(ta), statistics.median(tb)


STARTUP = (
    "import time; t=time.perf_counter(); import treelab; "
    "from sklearn.datasets import load_iris; X, y = load_iris(return_X_y=True); "
    "treelab.VRTrees(n_estimators=10, random_state=0).fit(X, y).predict(X); "
    "print(time.perf_counter() - t)"
)


def startup(env):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP], check=True, env=env, capture_output=True)
    return time.perf_counter() - t


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    X, y = make_classification(n_samples=100_000, n_features=20, n_informative=10,
                               random_state=0)
    Xtr, Xte, ytr, yte = X[:75_000], X[75_000:], y[:75_000], y[75_000:]
    # compile (or load the cache) before timing
    treelab.RandomForest(n_estimators=2, random_state=0).fit(Xtr[:2000], ytr[:2000])
    treelab.VRTrees(n_estimators=2, alpha=0.0).fit(Xtr[:2000], ytr[:2000]).predict_proba(Xte)
    rows = []

    t_rf, t_skrf, rf, skrf = pair(
        lambda: treelab.RandomForest(n_estimators=100, n_jobs=2, random_state=0),
        lambda: RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=0),
        Xtr, ytr, args.repeats)
    acc_rf = (rf.predict(Xte) == yte).mean()
    acc_sk = (skrf.predict(Xte) == yte).mean()
    rows.append(("RandomForest fit vs RandomForestClassifier", t_rf, t_skrf, "<= 0.5"))
    rows.append(("  test accuracy (points)", 100 * acc_rf, 100 * acc_sk, "within 0.5"))

    t_vr, t_et, _, _ = pair(
        lambda: treelab.VRTrees(n_estimators=100, alpha=0.0, n_jobs=2, random_state=0),
        lambda: ExtraTreesClassifier(n_estimators=100, max_features=1, n_jobs=2,
                                     random_state=0),
        Xtr, ytr, args.repeats)
    rows.append(("VRTrees(alpha=0) fit vs ExtraTrees(max_features=1)", t_vr, t_et, "<= 0.45"))
    t_vr4, t_et4, _, _ = pair(
        lambda: treelab.VRTrees(n_estimators=100, alpha=0.0, n_jobs=2, random_state=0),
        lambda: ExtraTreesClassifier(n_estimators=100, max_features=1, min_samples_split=4,
                                     n_jobs=2, random_state=0),
        Xtr, ytr, args.repeats)
    rows.append(("  same, both with min_samples_split=4", t_vr4, t_et4, "<= 0.45"))

    # a call takes well under a second: more repeats steady the median
    t_p, t_skp = predict_pair(rf, skrf, X, max(7, args.repeats))
    rows.append(("predict_proba, 100 trees, 100,000 rows", t_p, t_skp, "<= 0.5"))
    size_a, size_b = len(pickle.dumps(rf)), len(pickle.dumps(skrf))
    rows.append(("pickled RandomForest size (MB)", size_a / 1e6, size_b / 1e6, "<= 1"))

    env = dict(os.environ)
    warm = statistics.median(startup(env) for _ in range(3))
    with tempfile.TemporaryDirectory() as cache:
        cold_env = dict(env, NUMBA_CACHE_DIR=cache)
        cold = startup(cold_env)
    print(f"W1: make_classification(100000, 20, 10 informative), 75/25 split, 100 trees, "
          f"n_jobs=2, median of {args.repeats}")
    print()
    print("| measurement | treelab | scikit-learn | ratio | target |")
    print("|---|---:|---:|---:|---|")
    for name, a, b, target in rows:
        ratio = "" if "accuracy" in name else f"{a / b:.2f}"
        print(f"| {name} | {a:.2f} | {b:.2f} | {ratio} | {target} |")
    print()
    print(f"fresh process: import treelab + fit 10 trees on iris, numba cache warm: {warm:.2f} s "
          f"(target < 2 s); first-ever compile (empty cache): {cold:.1f} s")


if __name__ == "__main__":
    main()
