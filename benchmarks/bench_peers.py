"""treelab's RandomForest beside the fastest CPU forests, side by side in one process.

Peers (each skipped with a printed note when it does not import; install them with
``pip install treelab[bench]``): scikit-learn's RandomForestClassifier, scikit-learn-intelex's
patched RandomForestClassifier and ExtraTreesClassifier (``sklearnex``), YDF's
RandomForestLearner (``ydf``) and ranger through ``skranger``.

Workloads, 100 trees and 2 threads for every learner:

- W1: ``make_classification(100_000, 20, n_informative=10, random_state=0)``, first 75% for
  training: fit, ``predict_proba`` on the 25,000 test rows, pickled model bytes;
- W2: ``make_classification(15_000, 100, n_informative=20, n_classes=5, random_state=0)``,
  first 75% for training: fit and predict;
- W3: UCI ``splice`` from the bundle (60 nominal columns), a stratified 75/25 split: nominal
  columns as categories for treelab and YDF (which take them as such), as integer codes for
  the others (scikit-learn's and the extension's forests and ranger here split codes as
  numbers).

Each repeat runs every learner once, in the same order; the table gives medians over repeats,
ratios to treelab (above 1: the peer is slower) and test accuracy.

Run:  python benchmarks/bench_peers.py [--repeats 3] [--workloads W1,W2,W3]
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

import treelab

TREES = 100
THREADS = 2


class Peer:
    """A learner behind one interface: ``fit(X, y)``, ``proba(X)``, ``classes``, ``nbytes``."""

    def __init__(self, name: str, make: Callable[[], object], nominal_as_codes: bool = True):
        self.name = name
        self.make = make
        self.nominal_as_codes = nominal_as_codes

    def fit(self, X, y):
        self.model = self.make().fit(X, y)
        self.classes = np.asarray(self.model.classes_)

    def proba(self, X):
        return self.model.predict_proba(X)

    def nbytes(self) -> int:
        return len(pickle.dumps(self.model, protocol=pickle.HIGHEST_PROTOCOL))


class YDFPeer(Peer):
    """YDF takes a DataFrame with the label as a column and returns class probabilities
    (for two classes, the second class's only)."""

    def __init__(self):
        super().__init__("ydf RandomForestLearner", None, nominal_as_codes=False)

    def fit(self, X, y):
        import ydf

        df = pd.DataFrame(X).copy()
        df.columns = [f"f{i}" for i in range(df.shape[1])]
        df["label"] = np.asarray(y).astype(str)
        self.model = ydf.RandomForestLearner(label="label", num_trees=TREES,
                                             num_threads=THREADS).train(df, verbose=0)
        self.classes = np.array(self.model.label_classes())

    def proba(self, X):
        df = pd.DataFrame(X).copy()
        df.columns = [f"f{i}" for i in range(df.shape[1])]
        p = np.asarray(self.model.predict(df))
        return np.column_stack([1 - p, p]) if p.ndim == 1 else p

    def nbytes(self) -> int:
        with tempfile.TemporaryDirectory() as folder:
            self.model.save(folder)
            return sum(f.stat().st_size for f in Path(folder).rglob("*") if f.is_file())


def peers() -> list[Peer]:
    from sklearn.ensemble import RandomForestClassifier

    out = [
        Peer("treelab RandomForest", lambda: treelab.RandomForest(
            n_estimators=TREES, n_jobs=THREADS, random_state=0), nominal_as_codes=False),
        Peer("treelab RandomForest(max_bins=256)", lambda: treelab.RandomForest(
            n_estimators=TREES, n_jobs=THREADS, random_state=0, max_bins=256),
            nominal_as_codes=False),
        Peer("scikit-learn RandomForestClassifier", lambda: RandomForestClassifier(
            n_estimators=TREES, n_jobs=THREADS, random_state=0)),
    ]
    try:
        from sklearnex.ensemble import ExtraTreesClassifier as XET
        from sklearnex.ensemble import RandomForestClassifier as XRF

        out.append(Peer("sklearnex RandomForestClassifier", lambda: XRF(
            n_estimators=TREES, n_jobs=THREADS, random_state=0)))
        out.append(Peer("sklearnex ExtraTreesClassifier", lambda: XET(
            n_estimators=TREES, n_jobs=THREADS, random_state=0)))
    except ImportError as exc:
        print(f"note: scikit-learn-intelex skipped ({exc})")
    try:
        import ydf  # noqa: F401

        out.append(YDFPeer())
    except ImportError as exc:
        print(f"note: ydf skipped ({exc})")
    try:
        from skranger.ensemble import RangerForestClassifier

        out.append(Peer("ranger (skranger)", lambda: RangerForestClassifier(
            n_estimators=TREES, n_jobs=THREADS, seed=0)))
    except ImportError as exc:
        print(f"note: skranger skipped ({exc})")
    return out


def select_peers(only: str = "") -> list[Peer]:
    """The learners of :func:`peers`, keeping treelab's and the peers whose name contains one
    of the comma-separated parts of ``only`` (all when empty)."""
    learners = peers()
    if not only:
        return learners
    keep = [k.strip() for k in only.split(",")]
    return [p for p in learners if p.name.startswith("treelab") or any(k in p.name for k in keep)]


def workload(name: str):
    """(X_train, X_test, y_train, y_test, nominal columns as codes or None)."""
    if name == "W1":
        X, y = make_classification(100_000, 20, n_informative=10, random_state=0)
        return X[:75_000], X[75_000:], y[:75_000], y[75_000:], None
    if name == "W2":
        X, y = make_classification(15_000, 100, n_informative=20, n_classes=5,
                                   random_state=0)
        return X[:11_250], X[11_250:], y[:11_250], y[11_250:], None
    if name == "W3":
        from treelab.datasets import load_uci

        data = load_uci("splice")
        frame = data.to_frame().drop(columns="target")  # nominal columns as categories
        y = pd.factorize(np.asarray(data.y))[0]
        a, b = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=0)
        # integer codes (data.X) for the learners that take numbers only
        return (frame.iloc[a], frame.iloc[b], y[a], y[b], (data.X[a], data.X[b]))
    raise ValueError(f"unknown workload {name!r}")


def run_workload(name: str, learners: list[Peer], repeats: int) -> None:
    Xa, Xb, ya, yb, codes = workload(name)
    times: dict[str, dict[str, list[float]]] = {p.name: {"fit": [], "predict": []}
                                                for p in learners}
    result: dict[str, tuple[float, int]] = {}
    for _ in range(repeats):
        for p in learners:
            A, B = (codes if (codes is not None and p.nominal_as_codes) else (Xa, Xb))
            t = time.perf_counter()
            p.fit(A, ya)
            times[p.name]["fit"].append(time.perf_counter() - t)
            t = time.perf_counter()
            proba = p.proba(B)
            times[p.name]["predict"].append(time.perf_counter() - t)
            pred = p.classes[np.argmax(proba, axis=1)]
            acc = float(np.mean(pred.astype(str) == np.asarray(yb).astype(str)))
            result[p.name] = (acc, p.nbytes())
    base = {k: statistics.median(v) for k, v in times[learners[0].name].items()}
    print(f"\n{name} ({len(ya)} training rows, {len(yb)} test rows; medians of {repeats}; "
          f"load average {os.getloadavg()[0]:.1f})")
    print("| learner | fit s | / treelab | predict s | / treelab | accuracy % | model MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in learners:
        fit = statistics.median(times[p.name]["fit"])
        pr = statistics.median(times[p.name]["predict"])
        acc, nb = result[p.name]
        print(f"| {p.name} | {fit:.2f} | {fit / base['fit']:.2f} | {pr:.3f} | "
              f"{pr / base['predict']:.2f} | {100 * acc:.2f} | {nb / 1e6:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workloads", default="W1,W2,W3")
    parser.add_argument("--only", default="",
                        help="comma-separated parts of learner names to keep (treelab's are "
                             "always kept), e.g. 'sklearnex RandomForest'")
    args = parser.parse_args()
    learners = select_peers(args.only)
    # compile treelab's kernels (or load them from the cache) outside the timings
    Xa, _, ya, _, _ = workload("W2")
    treelab.RandomForest(n_estimators=2, random_state=0).fit(Xa[:500], ya[:500])
    for name in args.workloads.split(","):
        run_workload(name.strip(), learners, args.repeats)


if __name__ == "__main__":
    main()
