"""First fit on a fresh install: import, first fit + predict_proba of each family, first diagnose.

Every measurement runs in its own Python process with an empty numba cache
(``NUMBA_CACHE_DIR`` set to a new folder), so each row pays the compilation a newcomer pays.
Compilation is CPU-bound, so user+sys CPU time of the child (``resource.getrusage``) is printed
beside wall time: on a shared machine the CPU time moves less than the wall time. Rows are
medians over ``--repeats`` processes; the load average is printed before and after.

The last rows time the same steps with the cache written (a second process on the same folder),
and ``treelab warmup`` with an empty cache.

Python's bytecode is written and read as for an installed package (pip compiles it at install):
the children share one temporary ``PYTHONPYCACHEPREFIX``, filled by a first import before any
row, and ``PYTHONDONTWRITEBYTECODE`` is dropped from their environment; otherwise every process
would compile treelab's sources again (about 0.15 s, which the cache-written rows would count).

Run:  python benchmarks/bench_first_compile.py [--repeats 3] [--only VRTrees,diagnose]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

FAMILIES = {
    "VRTrees": "treelab.VRTrees(n_estimators=10, random_state=0)",
    "RandomForest": "treelab.RandomForest(n_estimators=10, random_state=0)",
    "StochasticID3": "treelab.StochasticID3(n_estimators=10, random_state=0)",
    "MMDT": "treelab.MMDT(random_state=0)",
    "RotationForest": "treelab.RotationForest(n_estimators=10, random_state=0)",
}

# the child prints one JSON line: seconds spent importing, fitting + predicting, diagnosing
CHILD = """
import json, time
t0 = time.perf_counter()
import treelab
t1 = time.perf_counter()
from sklearn.datasets import load_iris
X, y = load_iris(return_X_y=True)
t2 = time.perf_counter()
model = {make}.fit(X, y)
model.predict_proba(X)
t3 = time.perf_counter()
diag = 0.0
if {diagnose}:
    from treelab.analysis import diagnose
    t4 = time.perf_counter()
    diagnose(model, X, y)
    diag = time.perf_counter() - t4
print(json.dumps({{"import": t1 - t0, "fit": t3 - t2, "diagnose": diag}}))
"""


# bytecode folder shared by the children (see the module notes); set in main()
PYCACHE = {}


def run_child(code: str, cache: str, argv: tuple[str, ...] = ()) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, **PYCACHE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    cmd = [sys.executable, *argv] if argv else [sys.executable, "-c", code]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row = {"wall": wall, "cpu": cpu}
    if not argv:
        row.update(json.loads(out.strip().splitlines()[-1]))
    return row


def median_rows(rows: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated rows (default: all)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    pycache = tempfile.TemporaryDirectory()
    PYCACHE["PYTHONPYCACHEPREFIX"] = pycache.name
    with tempfile.TemporaryDirectory() as cache:
        run_child("", cache, ("-c", "import treelab, treelab.analysis, treelab.cli, "
                                    "sklearn.datasets"))
    cases = [(name, make, False) for name, make in FAMILIES.items()]
    cases.append(("diagnose", FAMILIES["VRTrees"], True))
    print(f"load average before: {os.getloadavg()}")
    print("| row (empty cache) | wall s | CPU s | import s | fit+predict s | diagnose s |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, make, diag in cases:
        if only and name not in only:
            continue
        code = CHILD.format(make=make, diagnose=diag)
        rows = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                rows.append(run_child(code, cache))
        m = median_rows(rows)
        print(f"| {name} | {m['wall']:.1f} | {m['cpu']:.1f} | {m['import']:.2f} | "
              f"{m['fit']:.1f} | {m['diagnose']:.1f} |", flush=True)
    if not only or "warm" in only:
        code = CHILD.format(make=FAMILIES["VRTrees"], diagnose=False)
        rows, sk = [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                run_child(code, cache)
                # alternating with scikit-learn's import, so both see the same load
                rows.append(run_child(code, cache))
                sk.append(run_child("", cache, ("-c", "import sklearn.base")))
        m = median_rows(rows)
        print(f"| VRTrees, cache written | {m['wall']:.2f} | {m['cpu']:.2f} | "
              f"{m['import']:.2f} | {m['fit']:.2f} | |")
        m = median_rows(sk)
        print(f"| `import sklearn.base` alone | {m['wall']:.2f} | {m['cpu']:.2f} | | | |")
        extra = statistics.median(r["cpu"] - k["cpu"] for r, k in zip(rows, sk, strict=True))
        print(f"treelab's process minus scikit-learn's import, median: {extra:.2f} CPU-s")
    if not only or "warmup" in only:
        rows = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache:
                rows.append(run_child("", cache, ("-m", "treelab", "warmup")))
        m = median_rows(rows)
        print(f"| `python -m treelab warmup` | {m['wall']:.1f} | {m['cpu']:.1f} | | | |")
    print(f"load average after: {os.getloadavg()}")
    pycache.cleanup()


if __name__ == "__main__":
    main()
