"""Speed of the analysis measures relative to the tree passes that feed them (issue 3).

Targets:

1. ``error_correlation`` (phi_e and phi*), ``strength_correlation`` and ``error_arrangement`` on
   500 trees x 10,000 rows x 10 classes each take less time than ``member_predict`` of the
   500-tree ensemble on those rows (ratio < 1).
2. ``diagnose`` of a 100-tree ensemble on 10,000 test rows takes at most 2 x ``predict_proba``
   on the same rows (ratio <= 2).
3. The diversity workbench (issue 18) on 500 trees x 10,000 rows x 10 classes: pairwise and
   non-pairwise diversity, margins and their CDF, probability quality, the 0-1 bias-variance
   decompositions (the 500 member label rows read as 500 repeats) and the
   bias-variance-diversity decomposition for the three losses (the 500 members read as 5
   repeats of 100), all together, against predicting those member outputs
   (``member_predict`` + ``member_proba``); target ratio < 1.

Run: ``.venv/bin/python benchmarks/bench_analysis.py`` (``--quick`` for a smaller check). Times
are the best of ``--repeat`` runs after one warm-up (numba compilation excluded).
"""

from __future__ import annotations

import argparse
import time

from sklearn.datasets import make_classification

import treelab
from treelab.analysis import (
    bias_variance_01,
    bias_variance_diversity,
    diagnose,
    error_arrangement,
    error_correlation,
    margin_cdf,
    margins,
    nonpairwise_diversity,
    pairwise_diversity,
    strength_correlation,
)
from treelab.stats import probability_quality


def best_time(func, repeat):
    func()  # warm-up: compilation, caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--diagnose-trees", type=int, default=100)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--train", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="50 trees, 2,000 rows")
    args = parser.parse_args(argv)
    if args.quick:
        args.trees, args.diagnose_trees, args.rows, args.train = 50, 20, 2_000, 500

    X, y = make_classification(
        n_samples=args.train + args.rows,
        n_features=20,
        n_informative=12,
        n_classes=args.classes,
        n_clusters_per_class=1,
        random_state=0,
    )
    Xtr, ytr, Xte, yte = X[: args.train], y[: args.train], X[args.train :], y[args.train :]

    start = time.perf_counter()
    # Laplace estimates: every member probability is positive (the cross-entropy decomposition)
    big = treelab.VRTrees(alpha=0.5, n_estimators=args.trees, laplace=True, random_state=0)
    big.fit(Xtr, ytr)
    print(f"fit {args.trees} trees on {args.train} rows: {time.perf_counter() - start:.2f} s")
    t_member = best_time(lambda: big.member_predict(Xte), args.repeat)
    labels = big.member_predict(Xte)
    shape = f"{args.trees} trees x {args.rows} rows x {args.classes} classes"
    print(f"\n[1] {shape}; member_predict: {t_member * 1e3:.1f} ms")
    for name, fn in (
        ("error_correlation (phi_e, phi*)", error_correlation),
        ("strength_correlation", strength_correlation),
        ("error_arrangement", error_arrangement),
    ):
        t = best_time(lambda fn=fn: fn(labels, yte, n_classes=args.classes), args.repeat)
        flag = "ok" if t < t_member else "SLOWER"
        print(f"    {name:34s} {t * 1e3:8.1f} ms   ratio {t / t_member:.3f}  {flag}")

    workbench(big, Xte, yte, labels, args)

    small = treelab.VRTrees(alpha=0.5, n_estimators=args.diagnose_trees, random_state=0)
    small.fit(Xtr, ytr)
    t_proba = best_time(lambda: small.predict_proba(Xte), args.repeat)
    t_diag = best_time(lambda: diagnose(small, Xte, yte), args.repeat)
    flag = "ok" if t_diag <= 2 * t_proba else "SLOWER"
    print(f"\n[2] {args.diagnose_trees} trees x {args.rows} rows")
    print(
        f"    predict_proba {t_proba * 1e3:.1f} ms; diagnose {t_diag * 1e3:.1f} ms; "
        f"ratio {t_diag / t_proba:.2f} (target <= 2)  {flag}"
    )
    t_mp = best_time(lambda: small.member_proba(Xte), args.repeat)
    print(f"    (member_proba alone: {t_mp * 1e3:.1f} ms, ratio {t_mp / t_proba:.2f})")


def workbench(big, Xte, yte, labels, args):
    """[3]: every workbench measure on the member outputs of ``big``, timed one by one."""
    t_labels = best_time(lambda: big.member_predict(Xte), args.repeat)
    t_proba = best_time(lambda: big.member_proba(Xte), args.repeat)
    member_p = big.member_proba(Xte)
    n_trees, n_rows, n_classes = member_p.shape
    k = 5 if n_trees % 5 == 0 else 1
    p_rep = member_p.reshape(k, n_trees // k, n_rows, n_classes)
    l_rep = labels.reshape(k, n_trees // k, n_rows)
    ens_p = member_p.mean(axis=0)
    jobs = {
        "pairwise_diversity": lambda: pairwise_diversity(labels, yte, n_classes=n_classes),
        "nonpairwise_diversity": lambda: nonpairwise_diversity(labels, yte, n_classes=n_classes),
        "margins + margin_cdf": lambda: margin_cdf(margins(labels, yte, n_classes=n_classes)),
        "probability_quality": lambda: probability_quality(ens_p, yte),
    }
    for method in ("domingos", "kohavi_wolpert", "breiman"):
        jobs[f"bias_variance_01 {method}"] = (
            lambda method=method: bias_variance_01(labels, yte, method=method,
                                                   n_classes=n_classes))
    for loss in ("squared", "cross_entropy"):
        jobs[f"bias_variance_diversity {loss}"] = (
            lambda loss=loss: bias_variance_diversity(p_rep, yte, loss=loss))
    jobs["bias_variance_diversity zero_one"] = (
        lambda: bias_variance_diversity(l_rep, yte, loss="zero_one", n_classes=n_classes))
    t_pred = t_labels + t_proba
    print(f"\n[3] workbench, {n_trees} trees x {n_rows} rows x {n_classes} classes; "
          f"member_predict {t_labels * 1e3:.1f} ms + member_proba {t_proba * 1e3:.1f} ms")
    total = 0.0
    for name, job in jobs.items():
        t = best_time(job, args.repeat)
        total += t
        print(f"    {name:36s} {t * 1e3:8.1f} ms   ratio {t / t_pred:.3f}")
    flag = "ok" if total < t_pred else "SLOWER"
    print(f"    {'all of them':36s} {total * 1e3:8.1f} ms   ratio {total / t_pred:.3f}  {flag}")


if __name__ == "__main__":
    main()
