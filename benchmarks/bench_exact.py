"""The exact deterministic search on the Liu spectrum workload (not a test).

Fits the spectrum study's VR-Trees (``treelab.reproduce.liu2008.spectrum(100)``: the same data
sets, training folds, parameters and seeds as the study's cells) in this process, one thread,
and prints each fit's CPU seconds (``time.process_time``) and a digest of its trees, so that
two versions of the code can be timed in alternating processes and checked to grow the same
trees bit for bit::

    python benchmarks/bench_exact.py --datasets sonar,ionosphere,vote --alphas 1,0.5 \
        --ensembles Bagging --folds 0 --out after.json
    python benchmarks/bench_exact.py --uci magic,letter --batch --out after.json

``--batch`` runs whole fold batches instead (every ensemble and alpha of a fold, as the
runner does, sharing work between the cells), timing ``run_cell``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import numpy as np

from treelab.experiment import expand
from treelab.experiment.cells import _build, run_cell
from treelab.experiment.data import train_test
from treelab.experiment.seeds import cell_seed
from treelab.reproduce.liu2008 import spectrum


def _digest(est) -> str:
    h = hashlib.sha256()
    for a in est.forest_:
        if isinstance(a, np.ndarray):
            h.update(np.ascontiguousarray(a).tobytes())
    proba = getattr(est, "_digest_proba", None)
    if proba is not None:
        h.update(proba.tobytes())
    return h.hexdigest()[:16]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", default="")
    p.add_argument("--ensembles", default="Bagging")
    p.add_argument("--alphas", default="1,0.5")
    p.add_argument("--folds", default="0")
    p.add_argument("--batch", action="store_true")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--uci", default="", help="UCI bundle sets of the 48-set study "
                   "(examples/spectrum_uci.toml) instead of the reproduction's 14")
    p.add_argument("--out", default="")
    args = p.parse_args()
    if args.uci:
        names_uci = args.uci.split(",")
        cells = expand(spectrum(100, datasets=[{"name": n, "uci": n} for n in names_uci]))
    else:
        cells = expand(spectrum(100))
    names = set(args.datasets.split(",")) if args.datasets else None
    folds = {int(f) for f in args.folds.split(",")}
    alphas = {float(a) for a in args.alphas.split(",")}
    ens = set(args.ensembles.split(","))
    chosen = [c for c in cells if c.coords["fold"] in folds
              and (names is None or c.spec["dataset"]["name"] in names)
              and (args.batch or (float(c.coords["alpha"]) in alphas
                                  and c.spec["ensemble"]["name"] in ens))]
    # warm: data loaded, kernels compiled or loaded from the cache
    run_cell(chosen[0].spec, share=False)
    out = {}
    total = 0.0
    for c in chosen:
        spec = c.spec
        key = f"{spec['dataset']['name']}|{spec['ensemble']['name']}|{c.coords['alpha']}"
        if args.batch:
            t0 = time.process_time()
            rec = run_cell(spec, n_jobs=1, share=True)
            dt = time.process_time() - t0
            dig = hashlib.sha256(json.dumps(
                {k: v for k, v in rec["vars"].items() if "time" not in k},
                sort_keys=True).encode()).hexdigest()[:16]
        else:
            train, test = train_test(spec)
            seed = cell_seed(spec["seed"], "estimator", spec["dataset"]["name"],
                             [t["value"] for t in spec["transforms"]],
                             spec["ensemble"]["name"], spec["repeat"], spec["fold"])
            dt = np.inf
            for _ in range(args.repeat):
                est = _build(spec["ensemble"]["estimator"], dict(spec["ensemble"]["params"]),
                             train, seed, 1)
                t0 = time.process_time()
                est.fit(train.X, train.y)
                dt = min(dt, time.process_time() - t0)
            est._digest_proba = est.predict_proba(test.X)
            dig = _digest(est)
        total += dt
        out[key] = {"cpu_s": dt, "digest": dig}
        print(f"{key:45s} {dt:8.3f} {dig}", flush=True)
    print(f"total {total:.3f}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
