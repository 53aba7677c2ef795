"""Pairwise diversity of a large forest without the pair matrices (issue 39, item 23).

Target: ``treelab.analysis.pairwise_diversity(labels, y, pair_matrix=False)`` (the five mean
measures, streamed over pairs) on 10,000 trees x 1,000 rows in under 60 s and under 1 GB of
peak memory on the project's two cores. Before, the same call built every (tree, tree_other)
matrix: 153 s and a 4.8 GB Dataset.

The member labels are those of a ``RandomForestClassifier`` of stumps (``max_depth=1``) on a
three-class ``make_classification`` problem, computed once in a child process and saved. Each
repeat then runs in a fresh child process that imports treelab, compiles the pair-count
kernel on a small call, and times the large call; its peak resident memory (``ru_maxrss``,
the whole process: Python, NumPy, xarray, numba and the labels themselves) is read from
``resource.getrusage`` in the child. ``--check`` also compares the streamed means with the
means of the matrices on a subset of trees small enough for them (relative difference), and
times both on it in one process, alternating (CPU time; the matrices are the code before).

Run: ``python benchmarks/bench_pairwise.py`` (``--trees 2000`` for a quicker check).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make_labels(path: Path, trees: int, rows: int, seed: int) -> None:
    import numpy as np
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from treelab.analysis import member_outputs

    X, y = make_classification(n_samples=2 * rows, n_features=20, n_informative=6,
                               n_classes=3, random_state=seed)
    rf = RandomForestClassifier(n_estimators=trees, max_depth=1, random_state=seed,
                                n_jobs=2).fit(X[:rows], y[:rows])
    labels = member_outputs(rf, X[rows:], kind="labels").values.astype(np.uint8)
    np.savez(path, labels=labels, y=y[rows:].astype(np.int64))


def child(path: Path, check: int) -> dict:
    import resource

    import numpy as np

    from treelab.analysis import pairwise_diversity

    data = np.load(path)
    labels, y = data["labels"], data["y"]
    pairwise_diversity(labels[:3, :10], y[:10], n_classes=3, pair_matrix=False)  # compile
    wall, cpu = time.perf_counter(), time.process_time()
    ds = pairwise_diversity(labels, y, n_classes=3, pair_matrix=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    out = {"trees": int(labels.shape[0]), "rows": int(labels.shape[1]), "wall_s": wall,
           "cpu_s": cpu,
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "means": {k: float(ds[k]) for k in ds.data_vars if k.startswith("mean_")}}
    if check:
        sub = labels[:check]
        cpu = {True: [], False: []}
        for r in range(4):  # alternating: the matrices (the code before) and the stream
            for matrix in ((True, False) if r % 2 == 0 else (False, True)):
                start = time.process_time()
                got = pairwise_diversity(sub, y, n_classes=3, pair_matrix=matrix)
                cpu[matrix].append(time.process_time() - start)
                if matrix:
                    full = got
                else:
                    streamed = got
        out["check_trees"] = check
        out["max_relative_difference"] = max(
            abs(float(streamed[k]) - float(full[k])) / max(abs(float(full[k])), 1e-300)
            for k in out["means"])
        out["cpu_matrix_s"] = float(np.median(cpu[True]))
        out["cpu_stream_s"] = float(np.median(cpu[False]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--check", type=int, default=1_000,
                        help="trees of the subset compared with the matrices (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child), args.check)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "labels.npz"
        make_labels(path, args.trees, args.rows, args.seed)
        for r in range(args.repeats):
            res = subprocess.run(
                [sys.executable, __file__, "--child", str(path),
                 "--check", str(args.check if r == 0 else 0)],
                capture_output=True, text=True, check=True)
            got = json.loads(res.stdout.strip().splitlines()[-1])
            print(f"repeat {r}: {got['trees']} trees x {got['rows']} rows: "
                  f"{got['wall_s']:.1f} s wall, {got['cpu_s']:.1f} s CPU, peak RSS "
                  f"{got['peak_rss_mib']:.0f} MiB")
            if "max_relative_difference" in got:
                print(f"  means against the matrices on {got['check_trees']} trees: largest "
                      f"relative difference {got['max_relative_difference']:.1e}; CPU "
                      f"{got['cpu_matrix_s']:.2f} s with the matrices, "
                      f"{got['cpu_stream_s']:.2f} s streamed (medians of 4, alternating)")
            print("  " + ", ".join(f"{k} {v:.6f}" for k, v in got["means"].items()))


if __name__ == "__main__":
    main()
