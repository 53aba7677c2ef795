"""Reproduce Liu, Ting, Yu & Zhou (2008), spectrum of variable-random trees, in full mode.

The four experiment grids of notebook 01 in its full mode (the same configurations, so the
notebook finds the cells this script stores): 1. error against alpha for Aggregating, Bagging
and Subspacing VR-Trees (100 trees, alpha 0, 0.1, ..., 1, 10-fold stratified CV, waveform and
LED generators, wine and eleven UCI sets); 2. Coalescence against Max-Diverse Ensemble,
Bagging, Random Subspace and Random Forests on the same sets; 3. concepts A and B with 0 to 32
uniform irrelevant attributes (1,024 training rows, 10 draws, the 100 x 100 lattice); 4.
concepts A and B with k = 64 training rows, with and without 40% class noise; and the
strength and correlation of the trees along the spectrum. Prints the Markdown tables of
docs/reproductions/liu2008_spectrum.md. Cells are stored as they finish; run the same command
again to resume.

Usage::

    python benchmarks/reproduce_liu2008.py               # full mode, 2 workers
    python benchmarks/reproduce_liu2008.py --estimate    # projected time from a small slice
"""

from __future__ import annotations

import pandas as pd
from _reproduce import (
    NOTEBOOK_OUT,
    estimate_grid,
    markdown,
    parser,
    print_estimates,
    run_grid,
    section,
)

from treelab import stats
from treelab.datasets import find_uci_root
from treelab.experiment import ExperimentConfig, summary

ALPHAS = [round(0.1 * i, 1) for i in range(11)]
N_FOLDS, N_ROWS, N_DRAWS, LATTICE = 10, 1000, 10, 100
IRRELEVANT = [0, 1, 2, 4, 8, 16, 32]
UCI_NAMES = ["breast-w", "credit-a", "glass", "heart-statlog", "ionosphere", "iris", "sonar",
             "tic-tac-toe", "vote", "waveform-21", "zoo"]  # wine: scikit-learn's (the same)
SEED = 0
OUT = NOTEBOOK_OUT / "01_spectrum_of_randomness"


def _datasets() -> list[dict]:
    root = str(find_uci_root())
    return [{"name": "waveform", "generator": "waveform", "n_samples": N_ROWS},
            {"name": "led", "generator": "led", "n_samples": N_ROWS},
            {"name": "wine", "builtin": "wine"}] + [
        {"name": name, "uci": name, "root": root, "min_class_size": 10} for name in UCI_NAMES]


def _concepts() -> list[dict]:
    return [{"name": f"concept {c}", "generator": "concepts", "params": {"concept": c},
             "test": {"generator": "concepts_lattice",
                      "params": {"concept": c, "resolution": LATTICE}}} for c in "AB"]


def spectrum(n: int) -> ExperimentConfig:
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="spectrum of randomness", datasets=_datasets(),
        ensembles=[
            {"name": "Aggregating", "estimator": "VRTrees",
             "params": {**params, "sampling": "none"}},
            {"name": "Bagging", "estimator": "VRTrees",
             "params": {**params, "sampling": "bootstrap"}},
            {"name": "Subspacing", "estimator": "VRTrees",
             "params": {**params, "sampling": "subspace", "subspace_fraction": 0.5}},
        ],
        alphas=ALPHAS, protocol={"name": "stratified_kfold", "n_splits": N_FOLDS},
        seed=SEED, backend="local")


def compare(n: int) -> ExperimentConfig:
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="coalescence vs others", datasets=_datasets(),
        ensembles=[
            {"name": "Coalescence", "estimator": "Coalescence", "params": params},
            {"name": "Max-Diverse", "estimator": "MaxDiverseEnsemble", "params": params},
            {"name": "Bagging", "estimator": "VRTrees", "alphas": [1.0],
             "params": {**params, "sampling": "bootstrap"}},
            {"name": "Random Subspace", "estimator": "VRTrees", "alphas": [1.0],
             "params": {**params, "sampling": "subspace"}},
            {"name": "Random Forests", "estimator": "RandomForest", "params": params},
        ],
        protocol={"name": "stratified_kfold", "n_splits": N_FOLDS}, seed=SEED, backend="local")


def irrelevant(n: int) -> ExperimentConfig:
    params = {"n_estimators": n}
    ensembles = [{"name": f"alpha = {a:g}", "estimator": "VRTrees", "alphas": [a],
                  "params": params} for a in (0.0, 0.5, 1.0)]
    return ExperimentConfig(
        name="concepts with irrelevant attributes", datasets=_concepts(),
        ensembles=ensembles + [{"name": "Coalescence", "estimator": "Coalescence",
                                "params": params}],
        transforms=[{"kind": "irrelevant", "values": IRRELEVANT, "distribution": "uniform"}],
        protocol={"name": "draws", "n_repeats": N_DRAWS, "n_train": 1024,
                  "n_test": LATTICE**2},
        measures=["diagnose"], seed=SEED, backend="local")


def noise(n: int) -> ExperimentConfig:
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="concepts, class noise, k = 64", datasets=_concepts(),
        ensembles=[{"name": "Aggregating", "estimator": "VRTrees", "params": params},
                   {"name": "Coalescence", "estimator": "Coalescence", "params": params}],
        alphas=ALPHAS, transforms=[{"kind": "class_noise", "values": [0.0, 0.4]}],
        protocol={"name": "draws", "n_repeats": N_DRAWS, "n_train": 64,
                  "n_test": LATTICE**2},
        seed=SEED, backend="local")


GRIDS = {"spectrum": spectrum, "compare": compare, "irrelevant": irrelevant, "noise": noise}


def _percent(frame: pd.DataFrame) -> pd.DataFrame:
    return frame * 100


def tables(results: dict) -> None:
    """The page's tables from the four results."""
    spec = results["spectrum"]
    section(f"Error (%) against alpha, mean over {N_FOLDS} folds",
            markdown(_percent(summary(spec)), digits=1))
    rows = {}
    for construction in spec.ensemble.values:
        res = stats.friedman(spec.sel(ensemble=construction), dim_method="alpha")
        rows[construction] = {"chi2_F": float(res.chi2), "p (chi2)": float(res.chi2_p_value),
                              "F_F": float(res.iman_davenport_f), "p (F)": float(res.f_p_value),
                              "best alpha (average rank)": f"{res.average_rank.idxmin().item():g}"}
    frame = pd.DataFrame(rows).T.rename_axis("construction")
    section(f"Friedman test across the {len(ALPHAS)} alphas ({spec.sizes['dataset']} data "
            "sets)", markdown(frame, digits=3))
    first = list(spec.dataset.values)[:3]  # the data sets of the notebook's figure
    pairs = spec[["strength", "correlation"]].sel(dataset=first).mean(["repeat", "fold"])
    frame = pairs.to_dataframe()[["strength", "correlation"]].stack().rename("value")
    frame = frame.unstack("alpha")
    frame.columns = [f"alpha={a:g}" for a in frame.columns]
    section("Strength s and correlation rho of the trees against alpha (mean over the folds)",
            markdown(frame.rename_axis(["dataset", "construction", "measure"]), digits=3))
    comp = results["compare"]
    fried = stats.friedman(comp)
    # every ensemble has its values at one alpha (1 for Bagging and Random Subspace, NaN for
    # the others): the mean over alpha skips the empty ones
    errors = _percent(comp.ensemble_error.mean(["repeat", "fold", "alpha"]).to_pandas())
    section("Coalescence against the others: error (%)", markdown(errors, digits=1))
    ranks = fried[["mean_value", "average_rank"]].to_pandas().sort_values("average_rank")
    section(f"Average ranks (Friedman chi2_F = {float(fried.chi2):.2f}, "
            f"p = {float(fried.chi2_p_value):.3f}; Iman-Davenport F_F = "
            f"{float(fried.iman_davenport_f):.2f}, p = {float(fried.f_p_value):.3f})",
            markdown(ranks, digits=3))
    section("Wins/ties/losses of each ensemble against Coalescence (error, over the data sets)",
            markdown(stats.wins_ties_losses(comp, control="Coalescence")))
    irr = results["irrelevant"]
    acc = 1 - irr.ensemble_error.mean(["repeat", "fold", "alpha"])  # one alpha each
    section(f"Concepts A and B, accuracy against irrelevant attributes (1,024 training rows, "
            f"{N_DRAWS} draws, {LATTICE**2:,} lattice points)",
            markdown(acc.to_dataframe("accuracy").accuracy.unstack("n_irrelevant"), digits=3))
    noisy = _percent(summary(results["noise"])).rename(columns={"alpha=nan": "no alpha"})
    section(f"Concepts A and B, k = 64: error (%) against alpha, without and with 40% class "
            f"noise ({N_DRAWS} draws)", markdown(noisy, digits=1))


def main(argv=None) -> None:
    args = parser(__doc__, OUT).parse_args(argv)
    if args.estimate:
        print_estimates([estimate_grid(name, grid, args) for name, grid in GRIDS.items()],
                        args)
        return
    results = {name: run_grid(grid(args.trees), args.out / name, args)
               for name, grid in GRIDS.items()}
    tables(results)


if __name__ == "__main__":
    main()
