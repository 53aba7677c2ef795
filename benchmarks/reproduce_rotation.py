"""Reproduce the rotation forest study (after Rodriguez, Kuncheva & Alonso 2006), full mode.

Notebook 05 in its full mode (the same configuration, so the notebook finds the cells this
script stores): random forest against rotation forests (random axes and PCA of feature
groups), 100 trees each, by 10-fold stratified cross-validation on the noisy 2-D function
(2,000 rows, 10% label noise), scikit-learn's wine and breast cancer and nine UCI sets of the
bundle, with 0, 4, 16 and 64 irrelevant Gaussian attributes added. Prints the Markdown tables
of docs/reproductions/rotation_forest.md: accuracy per data set, the Friedman test with the
average ranks on the clean data and with 64 irrelevant attributes, and wins/ties/losses against
random forest. Cells are stored as they finish; run the same command again to resume.

Usage::

    python benchmarks/reproduce_rotation.py               # full mode, 2 workers
    python benchmarks/reproduce_rotation.py --estimate    # projected time from a small slice
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

N_ROWS, N_FOLDS = 2000, 10
IRRELEVANT = [0, 4, 16, 64]
UCI_NAMES = ["breast-w", "glass", "heart-statlog", "ionosphere", "liver", "sonar",
             "segmentation", "vowel", "waveform-21"]  # wine: scikit-learn's (the same data)
SEED = 0
OUT = NOTEBOOK_OUT / "05_rotation_forest"


def rotation(n: int) -> ExperimentConfig:
    params = {"n_estimators": n}
    root = str(find_uci_root())
    return ExperimentConfig(
        name="rotation vs random forest",
        datasets=[{"name": "noisy 2-D", "generator": "noisy_function_2d", "n_samples": N_ROWS},
                  {"name": "wine", "builtin": "wine"},
                  {"name": "breast cancer", "builtin": "breast_cancer"}] + [
            {"name": name, "uci": name, "root": root, "min_class_size": 10}
            for name in UCI_NAMES],
        ensembles=[{"name": "Random forest", "estimator": "RandomForest", "params": params},
                   {"name": "Rotation (random)", "estimator": "RotationForest",
                    "params": params},
                   {"name": "Rotation (PCA)", "estimator": "RotationForest",
                    "params": {**params, "rotation": "pca"}}],
        transforms=[{"kind": "irrelevant", "values": IRRELEVANT, "distribution": "gaussian"}],
        protocol={"name": "stratified_kfold", "n_splits": N_FOLDS},
        seed=SEED, backend="local")


def tables(result) -> None:
    accuracy = 1 - result.ensemble_error.mean(["repeat", "fold"])
    frame = accuracy.to_dataframe("accuracy").accuracy.unstack(["n_irrelevant", "ensemble"])
    frame.columns = [f"{e}, {k} irr." for k, e in frame.columns]
    section(f"Accuracy, mean over {N_FOLDS} folds (columns: ensemble, irrelevant attributes "
            "added)", markdown(frame, digits=3))
    tests = {k: stats.friedman(result.sel(n_irrelevant=k))
             for k in (IRRELEVANT[0], IRRELEVANT[-1])}
    table = pd.DataFrame({f"{k} irrelevant": t.average_rank.to_pandas()
                          for k, t in tests.items()})
    table.loc["Friedman p"] = [float(t.chi2_p_value) for t in tests.values()]
    table.loc["Iman-Davenport p"] = [float(t.f_p_value) for t in tests.values()]
    section(f"Average ranks over the {result.sizes['dataset']} data sets (error) and Friedman "
            "tests", markdown(table, digits=3))
    for k in (IRRELEVANT[0], IRRELEVANT[-1]):
        section(f"Wins/ties/losses of each rotation forest against random forest (error), {k} "
                "irrelevant attributes",
                markdown(stats.wins_ties_losses(result.sel(n_irrelevant=k),
                                                control="Random forest")))


def main(argv=None) -> None:
    args = parser(__doc__, OUT).parse_args(argv)
    if args.estimate:
        print_estimates([estimate_grid("rotation vs random forest (runner)", rotation, args)],
                        args)
        return
    # no ensemble here has an alpha: drop the runner's alpha dim (a single NaN coordinate)
    tables(run_grid(rotation(args.trees), args.out / "rotation", args).isel(alpha=0, drop=True))


if __name__ == "__main__":
    main()
