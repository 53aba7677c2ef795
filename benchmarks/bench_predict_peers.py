"""Prediction time beside the peers, in one process, paired.

Fits every learner of ``bench_peers.py`` once on W1 and W2 (100 trees, 2 threads), then times
``predict_proba`` and ``predict`` on the workload's test rows in rounds: each round calls every
learner once, in a rotated order, so a slow spell of the shared machine falls on all of them.
Reports medians over rounds of wall time and of process CPU time (user + system, all threads:
a peer's threads are counted as treelab's are), each as a ratio to the fastest peer.

Run:  python benchmarks/bench_predict_peers.py [--rounds 15] [--workloads W1,W2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_peers import select_peers, workload  # noqa: E402


def _timed(fn, *args):
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - w, time.process_time() - c


def _predict(p, X):
    if hasattr(p.model, "predict") and not p.name.startswith("ydf"):
        return p.model.predict(X)
    return p.classes[np.argmax(p.proba(X), axis=1)]


def run(name: str, learners, rounds: int) -> None:
    Xa, Xb, ya, yb, _ = workload(name)
    for p in learners:
        p.fit(Xa, ya)
    calls = {"predict_proba": lambda p: p.proba(Xb), "predict": lambda p: _predict(p, Xb)}
    for p in learners:  # warm every path once
        for f in calls.values():
            f(p)
    load = [os.getloadavg()[0]]
    for what, f in calls.items():
        wall = {p.name: [] for p in learners}
        cpu = {p.name: [] for p in learners}
        for r in range(rounds):
            order = learners[r % len(learners):] + learners[:r % len(learners)]
            for p in order:
                _, w, c = _timed(f, p)
                wall[p.name].append(w)
                cpu[p.name].append(c)
            load.append(os.getloadavg()[0])
        med_w = {k: statistics.median(v) for k, v in wall.items()}
        med_c = {k: statistics.median(v) for k, v in cpu.items()}
        peer_names = [p.name for p in learners if not p.name.startswith("treelab")]
        fast_w = min(peer_names, key=med_w.get)
        fast_c = min(peer_names, key=med_c.get)
        print(f"\n{name} {what} ({len(yb)} rows; medians of {rounds} rounds; load average "
              f"{min(load):.1f}-{max(load):.1f}); ratios to the fastest peer "
              f"(wall: {fast_w}, CPU: {fast_c})")
        print("| learner | wall s | / fastest | CPU s | / fastest |")
        print("|---|---:|---:|---:|---:|")
        for p in learners:
            print(f"| {p.name} | {med_w[p.name]:.4f} | {med_w[p.name] / med_w[fast_w]:.2f} | "
                  f"{med_c[p.name]:.4f} | {med_c[p.name] / med_c[fast_c]:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--workloads", default="W1,W2")
    parser.add_argument("--only", default="", help="comma-separated parts of peer names to "
                        "keep (treelab's are always kept)")
    args = parser.parse_args()
    learners = select_peers(args.only)
    for name in args.workloads.split(","):
        run(name.strip(), learners, args.rounds)


if __name__ == "__main__":
    main()
