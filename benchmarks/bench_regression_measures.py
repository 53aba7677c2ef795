"""Speed of the regression decompositions over K training sets (issue 45, part 4).

Member outputs of 20 training sets x 100 trees x 10,000 test rows (a random-forest-sized
workload: 20 million predictions) go through the bias-variance-diversity decomposition
(squared loss with a target, Poisson loss with a target), the bias-variance-covariance and
Louppe's variance decomposition, alternating the measures ``--repeats`` times in one process.
Each time is also given as a ratio to one ``numpy.mean`` over the same array (a pass that
only reads the outputs once), a figure that moves less with the machine's load than seconds.

    python benchmarks/bench_regression_measures.py [--repeats 3] [--rows 10000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from treelab.analysis import (
    bias_variance_covariance,
    bias_variance_diversity_regression,
    louppe_variance,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--training-sets", type=int, default=20)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    shape = (args.training_sets, args.trees, args.rows)
    truth = 5.0 + rng.random(args.rows) * 10
    outputs = truth + rng.normal(scale=1.0, size=shape)  # > 0: also valid for Poisson
    y = rng.poisson(truth).astype(float)
    measures = {
        "one numpy.mean pass": lambda: outputs.mean(),
        "bvd squared": lambda: bias_variance_diversity_regression(outputs, y, target=truth),
        "bvd poisson": lambda: bias_variance_diversity_regression(outputs, y, loss="poisson",
                                                                 target=truth),
        "bias_variance_covariance": lambda: bias_variance_covariance(outputs, truth),
        "louppe_variance": lambda: louppe_variance(outputs),
    }
    times: dict[str, list[float]] = {name: [] for name in measures}
    for _ in range(args.repeats):
        for name, run in measures.items():  # alternate the measures within each round
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    base = float(np.median(times["one numpy.mean pass"]))
    print(f"outputs {shape} ({outputs.size / 1e6:.0f} million), median of {args.repeats}")
    print(f"{'measure':28s} {'seconds':>8s} {'x one pass':>11s}")
    for name, values in times.items():
        med = float(np.median(values))
        print(f"{name:28s} {med:8.2f} {med / base:11.1f}")


if __name__ == "__main__":
    main()
