"""Draw one PNG of every treelab.plot figure into docs/figures/ (the README shows them).

Every figure comes from a real, small run of the package on generated or bundled data (nothing
is downloaded), except the critical-difference diagram, which draws the worked example of
Demsar (2006, Table 6) so that it can be checked against the paper. Takes a few minutes on two
cores::

    python scripts/make_figures.py            # writes docs/figures/*.png
    python scripts/make_figures.py --out /tmp/figures --trees 10
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # a script: no display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import xarray as xr  # noqa: E402

import treelab  # noqa: E402
from treelab import plot, stats  # noqa: E402
from treelab.analysis import bias_variance, reliability  # noqa: E402
from treelab.datasets import (  # noqa: E402
    concepts,
    fan_synthetic,
    gaussian_mixture,
    image_interpolation,
    noisy_function_2d,
)
from treelab.experiment import ExperimentConfig, run  # noqa: E402
from treelab.protocols import make_protocol  # noqa: E402

log = logging.getLogger("make_figures")

# Demsar (2006), Table 6: AUC of C4.5 variants on 14 UCI data sets (higher is better).
DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
]


def save(fig_or_ax, out: Path, name: str, width: str = "single") -> None:
    (path,) = plot.savefig(fig_or_ax, out / f"{name}.png", width=width, dpi=150)
    log.info("wrote %s", path)
    plt.close("all")


def spectrum_figures(out: Path, work: Path, trees: int) -> None:
    params = {"n_estimators": trees}
    config = ExperimentConfig(
        name="spectrum",
        datasets=[{"name": "waveform", "generator": "waveform", "n_samples": 500},
                  {"name": "led", "generator": "led", "n_samples": 500},
                  {"name": "wine", "builtin": "wine"}],
        ensembles=[
            {"name": "Aggregating", "estimator": "VRTrees", "params": {**params}},
            {"name": "Bagging", "estimator": "VRTrees",
             "params": {**params, "sampling": "bootstrap"}},
            {"name": "Subspacing", "estimator": "VRTrees",
             "params": {**params, "sampling": "subspace"}},
            {"name": "Random Forest", "estimator": "RandomForest", "params": params},
        ],
        alphas=[round(0.1 * i, 1) for i in range(11)],
        protocol={"name": "stratified_kfold", "n_splits": 5},
    )
    result = run(config, out=work / "spectrum", progress=False)
    save(plot.spectrum(result, col="dataset"), out, "spectrum", width="double")
    save(plot.strength_correlation(result, dataset="waveform",
                                   ensembles=["Aggregating", "Bagging", "Subspacing"]),
         out, "strength_correlation")


def error_ratio_figures(out: Path, work: Path) -> None:
    config = ExperimentConfig(
        name="stochastic ID3",
        datasets=[{"name": "tic-tac-toe", "generator": "tictactoe"},
                  {"name": "monks-1", "generator": "monks", "params": {"problem": 1}},
                  {"name": "monks-2", "generator": "monks", "params": {"problem": 2}},
                  {"name": "monks-3", "generator": "monks", "params": {"problem": 3}},
                  {"name": "led", "generator": "led", "n_samples": 500},
                  {"name": "krk", "generator": "krk", "n_samples": 500},
                  {"name": "2-of-4", "generator": "m_of_n", "n_samples": 500}],
        ensembles=[{"name": "uniform voting", "estimator": "StochasticID3",
                    "params": {"n_estimators": 11, "combine": "vote"}},
                   {"name": "distribution summation", "estimator": "StochasticID3",
                    "params": {"n_estimators": 11, "combine": "sum"}}],
        transforms=[{"kind": "class_noise", "values": [0.0, 0.1, 0.2]}],
        protocol={"name": "holdout", "n_repeats": 10, "test_size": 1 / 3},
    )
    result = run(config, out=work / "sid3", progress=False).isel(alpha=0, drop=True)
    means = result.mean(["repeat", "fold"])
    means["error_ratio"] = means.ensemble_error / means.single_error
    save(plot.error_ratio_vs_phi(means, fit="hue"), out, "error_ratio_vs_phi")
    save(plot.error_ratio_vs_gain_ties(means.sel(ensemble=["uniform voting"])), out,
         "error_ratio_vs_gain_ties")


def probability_figures(out: Path, work: Path, trees: int) -> None:
    methods = {"unpruned tree": treelab.DecisionTree(),
               "RD": treelab.RandomDecisionTrees(n_estimators=trees),
               "RF+": treelab.RandomForest(n_estimators=trees)}
    train = fan_synthetic(2000, n_features=5, random_state=0)
    test = fan_synthetic(5000, n_features=5, random_state=1)
    fig, axes = plt.subplots(1, 3, figsize=(10.5, 3.8), layout="constrained")
    for (name, model), ax in zip(methods.items(), axes, strict=True):
        model.set_params(random_state=0).fit(train.X, train.y)
        plot.reliability(reliability(model.predict_proba(test.X), test.y), ax=ax)
        ax.set_title(name, fontsize="medium")
    save(fig, out, "reliability", width="double")

    draws = list(make_protocol({"name": "bias_variance", "n_sets": 20, "n_train": 500,
                                "n_test": 2000, "random_state": 0}).split(
        lambda n, random_state: fan_synthetic(n, n_features=5, random_state=random_state)))
    parts = []
    for model in methods.values():
        probas = np.stack([model.set_params(random_state=s.repeat).fit(s.train.X, s.train.y)
                           .predict_proba(draws[0].test.X) for s in draws])
        parts.append(bias_variance(probas, draws[0].test.true_proba)[["bias", "variance"]])
    decomposition = xr.concat(parts, dim=pd.Index(list(methods), name="ensemble"))
    save(plot.bias_variance(decomposition), out, "bias_variance")

    config = ExperimentConfig(
        name="exact mse",
        datasets=[{"name": "d = 5", "generator": "fan_synthetic", "params": {"n_features": 5}}],
        ensembles=[{"name": name, "estimator": type(m).__name__,
                    "params": {k: v for k, v in m.get_params().items() if k == "n_estimators"},
                    "single": False} for name, m in methods.items()],
        transforms=[{"kind": "subsample", "values": [0.05, 0.1, 0.25, 0.5, 1.0],
                     "stratify": False}],
        protocol={"name": "draws", "n_repeats": 3, "n_train": 2000, "n_test": 5000},
    )
    result = run(config, out=work / "fan", progress=False)
    save(plot.measure_curve(result, var="exact_mse", dim="train_size", xscale="log"), out,
         "exact_mse")


def comparison_figure(out: Path) -> None:
    table = xr.DataArray(DEMSAR_AUC, dims=("dataset", "ensemble"),
                         coords={"ensemble": ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]})
    ax = plot.critical_difference(stats.nemenyi(table, greater_is_better=True,
                                                significance=0.10))
    ax.set_title("Demsar (2006), Table 6: Nemenyi test at alpha = 0.10", fontsize="medium")
    save(ax, out, "critical_difference", width="double")


def surface_figure(out: Path, trees: int) -> None:
    tasks = {
        "concept A, VR-Trees": (concepts("A", 512, random_state=0), treelab.VRTrees(alpha=0.5)),
        "Gaussian mixture, VR-Trees": (gaussian_mixture(300, random_state=0),
                                       treelab.VRTrees(alpha=0.5)),
        "noisy 2-D function, rotation forest": (noisy_function_2d(1500, random_state=0),
                                                treelab.RotationForest()),
        "image interpolation, bagged MMDT": (image_interpolation(20), treelab.BaggedMMDT()),
    }
    fig, axes = plt.subplots(2, 2, figsize=(8, 7.6), layout="constrained")
    for (title, (data, model)), ax in zip(tasks.items(), axes.flat, strict=True):
        model.set_params(n_estimators=trees, random_state=0).fit(data.X, data.y)
        plot.decision_surface(model, data, resolution=160, max_points=400, ax=ax, title=title)
    save(fig, out, "decision_surface", width="double")


def irrelevant_figure(out: Path, work: Path, trees: int) -> None:
    bag = {"n_estimators": trees}
    config = ExperimentConfig(
        name="irrelevant attributes",
        datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[
            {"name": "bagged RDT", "estimator": "VRTrees", "alphas": [0.0],
             "params": {**bag, "sampling": "bootstrap"}, "single": False},
            {"name": "bagged ERDT", "estimator": "BaggedTrees",
             "params": {**bag, "criterion": "entropy", "c45": False}, "single": False},
            {"name": "bagged MMDT", "estimator": "BaggedMMDT", "params": bag, "single": False},
            {"name": "bagged CVDT", "estimator": "BaggedCVDT", "params": bag, "single": False},
        ],
        transforms=[{"kind": "irrelevant", "values": [0, 2, 8, 32, 128]}],
        protocol={"name": "5x2"},
    )
    result = run(config, out=work / "irrelevant", progress=False)
    save(plot.irrelevant_attributes(result), out, "irrelevant_attributes")


FAMILIES = {
    "comparison": lambda out, work, trees: comparison_figure(out),
    "surface": lambda out, work, trees: surface_figure(out, trees),
    "spectrum": spectrum_figures,
    "error_ratio": lambda out, work, trees: error_ratio_figures(out, work),
    "probability": probability_figures,
    "irrelevant": irrelevant_figure,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs"
                                             / "figures"), help="output folder")
    parser.add_argument("--trees", type=int, default=30, help="trees per ensemble")
    parser.add_argument("--only", nargs="*", choices=sorted(FAMILIES), default=None,
                        help="draw only these figure families")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="treelab-figures-") as tmp:
        for name, draw in FAMILIES.items():
            if args.only is None or name in args.only:
                draw(out, Path(tmp), args.trees)
    log.info("done in %.0f s", time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
