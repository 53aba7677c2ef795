"""Coverage of 95% intervals of the ensemble error when the class errors differ, for both
resamplings of the test rows (``ci_resample``) and for Wilson's interval.

150 test sets of 200 rows (class shares 0.5, class errors 0 and 0.8: population error 0.4),
``treelab.analysis.errors(..., ci=0.95, n_boot=2000)`` with ``ci_resample`` "stratified" and
"rows", percentile and BCa, and Wilson's interval (statsmodels ``proportion_confint``); then an
ensemble that always predicts one class. The figures of docs/measures/uncertainty.md come from
``python benchmarks/ci_resample_coverage.py`` (seed 2026; about 5 minutes on a shared
two-core machine).
"""

from __future__ import annotations

import sys

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from treelab.analysis import errors

N_SETS, N_ROWS, TRUE_ERROR = 150, 200, 0.4


def main(seed: int = 2026) -> None:
    rng = np.random.default_rng(seed)
    hits: dict[str, int] = {}
    widths: dict[str, list[float]] = {}

    def record(key: str, lo: float, hi: float) -> None:
        hits[key] = hits.get(key, 0) + int(lo <= TRUE_ERROR <= hi)
        widths.setdefault(key, []).append(hi - lo)

    for s in range(N_SETS):
        y = (rng.random(N_ROWS) < 0.5).astype(np.int64)
        wrong = (y == 1) & (rng.random(N_ROWS) < 0.8)
        labels = np.where(wrong, 1 - y, y)[None, :]  # one member: the ensemble's labels
        for resample in ("stratified", "rows"):
            for method in ("percentile", "bca"):
                res = errors(labels, y, n_classes=2, ci=0.95, ci_method=method, n_boot=2000,
                             ci_seed=s, ci_resample=resample)
                record(f"{resample}, {method}", float(res.ensemble_error_lower),
                       float(res.ensemble_error_upper))
        record("Wilson", *proportion_confint(int(wrong.sum()), N_ROWS, alpha=0.05,
                                             method="wilson"))
    for key, count in hits.items():
        print(f"{key:24s} covered {count} of {N_SETS} ({100 * count / N_SETS:.1f}%), "
              f"mean width {np.mean(widths[key]):.3f}")
    y = (rng.random(N_ROWS) < 0.5).astype(np.int64)
    labels = np.zeros((1, N_ROWS), dtype=np.int64)  # always class 0: class errors 0 and 1
    for resample in ("stratified", "rows"):
        res = errors(labels, y, n_classes=2, ci=0.95, ci_method="percentile", n_boot=2000,
                     ci_resample=resample)
        print(f"one class predicted, {resample}: error {float(res.ensemble_error):.3f} "
              f"[{float(res.ensemble_error_lower):.3f}, {float(res.ensemble_error_upper):.3f}]")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2026)
