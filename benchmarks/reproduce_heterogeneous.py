"""Reproduce Gashler, Giraud-Carrier & Martinez (2008), heterogeneous ensembles, in full mode.

The two experiments of notebook 04 in its full mode (the same configurations, so the notebook
finds the cells this script stores): 1. bagged RDT (complete-random trees), ERDT (entropy
trees), MMDT and CVDT of 100 trees and homogeneous RDT and ERDT ensembles of 1,000 trees, by
5x2 cross-validation on scikit-learn's wine and iris, waveform (1,000 rows from the generator)
and twelve UCI sets of the bundle; 2. the four 100-tree ensembles on wine with 0, 1, 2, 4, ...,
256 irrelevant Gaussian attributes, 5x2 CV. Prints the Markdown tables of
docs/reproductions/gashler2008.md: accuracy per data set; the p-values of Alpaydin's combined
5x2cv F test of CVDT against each ensemble; the Friedman and Iman-Davenport tests with the
average ranks and the Nemenyi critical difference; wins/ties/losses against CVDT; accuracy on
wine against the irrelevant attributes. Cells are stored as they finish; run the same command
again to resume.

The bundle-wide MMDT comparisons are ``benchmarks/reproduce_gashler.py`` (docs/reproductions/
mmdt.md); the image-interpolation figure is drawn by the notebook.

Usage::

    python benchmarks/reproduce_heterogeneous.py               # full mode, 2 workers
    python benchmarks/reproduce_heterogeneous.py --estimate    # projected time
    python benchmarks/reproduce_heterogeneous.py --parts gashler

``--trees N`` sets the bagged ensembles' size (the notebook's 100) and the large homogeneous
ensembles' to 10 N (the notebook's 1,000), so ``--estimate`` extrapolates both from 10 and 30
trees (100 and 300 for the large ones).
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
from treelab.experiment import ExperimentConfig

N_TREES, BIG = 100, 1000
N_ROWS = 1000
IRRELEVANT = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
UCI_NAMES = ["australian", "breast-w", "cleveland", "credit-g", "glass", "heart-statlog",
             "ionosphere", "liver", "sonar", "vote", "vowel", "zoo"]  # wine, iris: scikit-learn
SEED = 0
OUT = NOTEBOOK_OUT / "04_heterogeneous_ensembles"


def _ensembles(n: int, big: int) -> list[dict]:
    """The notebook's ensembles: the four bagged kinds of ``n`` trees, then RDT and ERDT of
    ``big`` trees (none when ``big`` is 0)."""
    bag = {"n_estimators": n}
    out = [
        {"name": "RDT", "estimator": "VRTrees", "alphas": [0.0],
         "params": {**bag, "sampling": "bootstrap"}},
        {"name": "ERDT", "estimator": "BaggedTrees",
         "params": {**bag, "criterion": "entropy", "c45": False}},
        {"name": "MMDT", "estimator": "BaggedMMDT", "params": bag},
        {"name": "CVDT", "estimator": "BaggedCVDT", "params": bag},
    ]
    if big:
        out += [
            {"name": f"{big} x RDT", "estimator": "VRTrees", "alphas": [0.0],
             "params": {"n_estimators": big, "sampling": "bootstrap"}},
            {"name": f"{big} x ERDT", "estimator": "BaggedTrees",
             "params": {"n_estimators": big, "criterion": "entropy", "c45": False}},
        ]
    return [{**e, "single": False} for e in out]


def _datasets() -> list[dict]:
    root = str(find_uci_root())
    return [{"name": "wine", "builtin": "wine"}, {"name": "iris", "builtin": "iris"},
            {"name": "waveform", "generator": "waveform", "n_samples": N_ROWS}] + [
        {"name": name, "uci": name, "root": root, "min_class_size": 10} for name in UCI_NAMES]


def gashler(n: int) -> ExperimentConfig:
    """CVDT against the other ensembles; the large ones have ``BIG / N_TREES`` times n trees."""
    return ExperimentConfig(
        name="heterogeneous vs homogeneous", datasets=_datasets(),
        ensembles=_ensembles(n, n * BIG // N_TREES),
        protocol={"name": "5x2"}, seed=SEED, backend="local")


def irrelevant(n: int) -> ExperimentConfig:
    return ExperimentConfig(
        name="irrelevant attributes", datasets=_datasets()[:1],
        ensembles=_ensembles(n, 0),
        transforms=[{"kind": "irrelevant", "values": IRRELEVANT, "distribution": "gaussian"}],
        protocol={"name": "5x2"}, seed=SEED, backend="local")


GRIDS = {"gashler": gashler, "irrelevant": irrelevant}


def tables(results: dict) -> None:
    """The page's tables (the notebook's analysis of its two experiments)."""
    if "gashler" in results:
        per_alpha = stats.select_alpha(results["gashler"], 0.0)
        accuracy = 1 - per_alpha.ensemble_error.mean(["repeat", "fold"])
        section("Accuracy, mean over 5 x 2 folds", markdown(accuracy.to_pandas(), digits=3))
        rows = {f"CVDT vs {other}": stats.five_by_two_cv_f(per_alpha, "CVDT", other)
                .p_value.to_pandas() for other in per_alpha.ensemble.values if other != "CVDT"}
        section("p-values of the combined 5x2cv F test, CVDT against each ensemble (blank: "
                "the same accuracy on every fold, no test)",
                markdown(pd.DataFrame(rows).T.rename_axis("comparison"), digits=3))
        fried, nem = stats.friedman(per_alpha), stats.nemenyi(per_alpha)
        ranks = nem[["mean_value", "average_rank"]].to_pandas().sort_values("average_rank")
        section(f"Average ranks over the {per_alpha.sizes['dataset']} data sets (error; "
                f"Friedman p = {float(fried.chi2_p_value):.3f}, Iman-Davenport p = "
                f"{float(fried.f_p_value):.3f}; Nemenyi critical difference "
                f"{float(nem.critical_difference):.2f})", markdown(ranks, digits=3))
        section("Wins/ties/losses of each ensemble against CVDT (error, over the data sets)",
                markdown(stats.wins_ties_losses(per_alpha, control="CVDT")))
    if "irrelevant" in results:
        irr = stats.select_alpha(results["irrelevant"], 0.0)
        acc = 1 - irr.ensemble_error.mean(["repeat", "fold"]).sel(dataset="wine")
        section("wine with injected Gaussian attributes: accuracy, mean over 5 x 2 folds "
                "(columns: attributes added)",
                markdown(acc.to_pandas().T if acc.dims[0] != "ensemble" else acc.to_pandas(),
                         digits=3))


def main(argv=None) -> None:
    ap = parser(__doc__, OUT)
    ap.add_argument("--parts", nargs="+", choices=list(GRIDS), default=list(GRIDS),
                    help="which experiments to run (default both)")
    args = ap.parse_args(argv)
    grids = {name: GRIDS[name] for name in args.parts}
    if args.estimate:
        print_estimates([estimate_grid(name, grid, args) for name, grid in grids.items()], args)
        return
    tables({name: run_grid(grid(args.trees), args.out / name, args)
            for name, grid in grids.items()})


if __name__ == "__main__":
    main()
