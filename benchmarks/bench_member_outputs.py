"""Reading a scikit-learn forest's members against the forest's own ``predict_proba`` (issue 25).

Target: ``treelab.analysis.member_outputs(rf, X)`` (every tree's probabilities, and the
member labels from the same pass) on 300 trees x 20,000 rows within 2.5 x
``RandomForestClassifier.predict_proba(X)`` on the same rows. Also timed, for context:
``member_outputs(kind="labels")``, ``diagnose(rf, X, y)`` (every measure, from one member
pass) and a plain per-tree ``predict_proba`` loop.

The two sides run alternately in one process (``--pairs`` pairs, order swapped every pair)
with one thread each (``n_jobs=1``); the machine is shared, so each pair gives a ratio of CPU
times (``time.process_time``) and of wall times, and the medians are the figures to quote.

Run: ``python benchmarks/bench_member_outputs.py`` (``--quick`` for a small check).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

from treelab.analysis import diagnose, member_outputs


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    func()
    return time.perf_counter() - wall, time.process_time() - cpu


def paired(a, b, pairs):
    """Median ratio b / a of CPU and wall times over alternating pairs, and the medians."""
    a(), b()  # warm-up
    rows = []
    for i in range(pairs):
        if i % 2:
            tb, ta = timed(b), timed(a)
        else:
            ta, tb = timed(a), timed(b)
        rows.append((ta[0], tb[0], ta[1], tb[1]))
    r = np.asarray(rows)
    return {
        "a_wall": float(np.median(r[:, 0])), "b_wall": float(np.median(r[:, 1])),
        "a_cpu": float(np.median(r[:, 2])), "b_cpu": float(np.median(r[:, 3])),
        "ratio_wall": float(np.median(r[:, 1] / r[:, 0])),
        "ratio_cpu": float(np.median(r[:, 3] / r[:, 2])),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--train", type=int, default=10_000)
    parser.add_argument("--classes", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="30 trees x 2,000 rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.trees, args.rows, args.train, args.pairs = 30, 2_000, 2_000, 3
    X, y = make_classification(args.train + args.rows, 20, n_informative=10,
                               n_classes=args.classes, random_state=0)
    Xtr, ytr, Xte, yte = X[:args.train], y[:args.train], X[args.train:], y[args.train:]
    print(f"{args.trees} trees, {args.train} training rows, {args.rows} test rows, "
          f"{args.classes} classes, {args.pairs} alternating pairs, one thread each")
    for cls in (RandomForestClassifier, ExtraTreesClassifier):
        model = cls(n_estimators=args.trees, random_state=0, n_jobs=2).fit(Xtr, ytr)
        model.set_params(n_jobs=1)
        nodes = np.mean([t.tree_.node_count for t in model.estimators_])
        print(f"\n{cls.__name__} ({nodes:.0f} nodes a tree)")
        base = lambda m=model: m.predict_proba(Xte)  # noqa: E731
        cases = {
            "member_outputs(kind='proba')": lambda m=model: member_outputs(m, Xte),
            "member_outputs(kind='labels')": lambda m=model: member_outputs(m, Xte,
                                                                           kind="labels"),
            "diagnose(model, X, y)": lambda m=model: diagnose(m, Xte, yte),
            "per-tree predict_proba loop": lambda m=model: [t.predict_proba(Xte)
                                                            for t in m.estimators_],
        }
        print(f"{'':32s} {'predict_proba':>14s} {'this':>8s} {'ratio cpu':>10s} "
              f"{'ratio wall':>11s}")
        for name, func in cases.items():
            res = paired(base, func, args.pairs)
            print(f"{name:32s} {res['a_cpu']:12.3f} s {res['b_cpu']:6.3f} s "
                  f"{res['ratio_cpu']:10.2f} {res['ratio_wall']:11.2f}")


if __name__ == "__main__":
    main()
