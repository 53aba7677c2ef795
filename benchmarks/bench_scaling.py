"""Fit time and peak memory against the number of rows and of features.

Every measurement is its own Python process: ``make_classification(n, d,
n_informative=min(d, 10))``, 100 trees, 2 threads, for treelab's RandomForest (exact and
``max_bins=256``), scikit-learn's and scikit-learn-intelex's RandomForestClassifier. Memory:
the process's peak resident set (``ru_maxrss``: interpreter, libraries and data included), and
the fit's own share, the peak resident set sampled every 5 ms during ``fit`` minus the resident
set just before it. The feature matrix is n x d x 8 bytes; the fitted forest's bytes are its
arrays' sizes (treelab) or its pickle (peers). The last column compares data plus the fit's own
memory with twice the data plus the forest (at most 1: within the target).

Grid: n = 10k, 100k, 1M rows at d = 20, and d = 20, 100, 500 features at n = 50k. A learner
whose previous point took more than ``--budget`` seconds skips the larger ones (printed as
such). Writes a markdown table and a log-log figure (``--figure``).

Run:  python benchmarks/bench_scaling.py [--figure benchmarks/scaling.png] [--budget 400]
      python benchmarks/bench_scaling.py --from-json rows.json --figure benchmarks/scaling.png
      python benchmarks/bench_scaling.py --one treelab-binned 100000 20   (a single point)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time

LEARNERS = ["treelab", "treelab-binned", "sklearnex", "scikit-learn"]
ROWS = [(10_000, 20), (100_000, 20), (1_000_000, 20)]
COLS = [(50_000, 20), (50_000, 100), (50_000, 500)]
TREES = 100
THREADS = 2


def make(learner: str):
    if learner.startswith("treelab"):
        import treelab

        bins = 256 if learner == "treelab-binned" else None
        return treelab.RandomForest(n_estimators=TREES, n_jobs=THREADS, random_state=0,
                                    max_bins=bins)
    if learner == "sklearnex":
        from sklearnex.ensemble import RandomForestClassifier
    else:
        from sklearn.ensemble import RandomForestClassifier
    return RandomForestClassifier(n_estimators=TREES, n_jobs=THREADS, random_state=0)


def model_bytes(model) -> int:
    forest = getattr(model, "forest_", None)
    if forest is not None:
        return int(sum(getattr(forest, f).nbytes for f in forest._fields))
    import pickle

    return len(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))


def rss_bytes() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def one(learner: str, n: int, d: int) -> dict:
    """Fit one learner on one point, in this process; returns the figures."""
    import numpy as np
    from sklearn.datasets import make_classification

    X, y = make_classification(n, d, n_informative=min(d, 10), random_state=0)
    X = np.ascontiguousarray(X)
    if learner.startswith("treelab"):  # compile (or load) the kernels outside the timing
        import treelab

        treelab.RandomForest(n_estimators=2, random_state=0,
                             max_bins=256 if learner == "treelab-binned" else None).fit(
            X[:300], y[:300])
    model = make(learner)
    before = rss_bytes()
    high = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            high[0] = max(high[0], rss_bytes())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    t = time.perf_counter()
    model.fit(X, y)
    fit = time.perf_counter() - t
    done.set()
    sampler.join()
    high[0] = max(high[0], rss_bytes())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"learner": learner, "n": n, "d": d, "fit_s": fit, "peak_bytes": peak,
            "fit_own_bytes": high[0] - before, "data_bytes": X.nbytes,
            "model_bytes": model_bytes(model)}


def measure(learner: str, n: int, d: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", learner, str(n), str(d)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"learner": learner, "n": n, "d": d, "error": out.stderr.strip()[-300:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def figure(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.0), layout="constrained")
    for ax, (key, grid, label) in zip(axes, [("n", ROWS, "training rows (d = 20)"),
                                             ("d", COLS, "features (n = 50,000)")],
                                      strict=True):
        points = {(n, d) for n, d in grid}
        for learner in LEARNERS:
            pts = sorted((r[key], r["fit_s"]) for r in rows
                         if r["learner"] == learner and "fit_s" in r
                         and (r["n"], r["d"]) in points)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label=learner)
        ax.set_xscale("log")
        ax.set_yscale("log")
        values = sorted({n if key == "n" else d for n, d in grid})
        ax.set_xticks(values, [f"{v:,}" for v in values])  # the swept values, not powers
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(label)
        ax.set_ylabel("fit time, s (100 trees, 2 threads)")
    axes[1].legend(fontsize="small", frameon=False)
    fig.savefig(path, dpi=150)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--one", nargs=3, metavar=("LEARNER", "N", "D"))
    parser.add_argument("--learners", default=",".join(LEARNERS))
    parser.add_argument("--budget", type=float, default=400.0,
                        help="skip a learner's larger points once one took longer (s)")
    parser.add_argument("--figure", default="")
    parser.add_argument("--json", default="", help="also write every row to this file")
    parser.add_argument("--from-json", default="", help="only draw --figure from this file")
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as fh:
            figure(json.load(fh), args.figure)
        return
    if args.one:
        learner, n, d = args.one
        print(json.dumps(one(learner, int(n), int(d))))
        return
    rows = []
    print(f"load average at start {os.getloadavg()[0]:.1f}")
    print("| learner | n | d | fit s | peak RSS MB | fit's own MB | data MB | model MB | "
          "(data + own) / (2 data + model) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for grid in (ROWS, COLS):
        for learner in args.learners.split(","):
            slow = False
            for n, d in grid:
                if slow:
                    print(f"| {learner} | {n} | {d} | skipped (previous point over "
                          f"{args.budget:.0f} s) | | | | | |", flush=True)
                    continue
                r = measure(learner, n, d)
                rows.append(r)
                if "error" in r:
                    print(f"| {learner} | {n} | {d} | failed: {r['error']} | | | | | |")
                    continue
                slow = r["fit_s"] > args.budget
                mb = 1e6
                bound = 2 * r["data_bytes"] + r["model_bytes"]
                own = r["fit_own_bytes"]
                print(f"| {learner} | {n} | {d} | {r['fit_s']:.2f} | {r['peak_bytes'] / mb:.0f} "
                      f"| {own / mb:.0f} | {r['data_bytes'] / mb:.0f} | "
                      f"{r['model_bytes'] / mb:.0f} | {(r['data_bytes'] + own) / bound:.2f} |",
                      flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if args.figure:
        figure(rows, args.figure)


if __name__ == "__main__":
    main()
