"""Gashler, Giraud-Carrier & Martinez (2008), small heterogeneous vs large homogeneous.

* ``gashler`` and ``irrelevant``: notebook 04's full-mode grids, unchanged (bagged RDT, ERDT,
  MMDT, CVDT of 100 trees and 1,000-tree RDT and ERDT by 5x2 CV on 15 data sets; the four
  100-tree ensembles on wine with 0 to 256 Gaussian irrelevant attributes);
* ``irrelevant_vowel``: the same four ensembles on vowel, the paper's Figure 5 data set, with
  0 to 256 Gaussian irrelevant attributes (the Figure 5 verdict reads this grid);
* ``bundle`` (full mode): the same six ensembles on every bundle set of at most 10,000 rows
  (the paper's 43 UCI sets are not listed in its text);
* ``density`` (quick mode): bagged ERDT against bagged MMDT (100 trees, 5x2 CV) on the bundle
  sets of at most 500 rows, for the sample-density claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from treelab.experiment import ExperimentConfig

__all__ = ["grids", "measure"]

N_TREES, BIG, N_ROWS = 100, 1000, 1000
IRRELEVANT = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
UCI_NAMES = ["australian", "breast-w", "cleveland", "credit-g", "glass", "heart-statlog",
             "ionosphere", "liver", "sonar", "vote", "vowel", "zoo"]  # wine, iris: scikit-learn
SEED = 0
#: bundle sets that are synthetic Boolean benchmarks, not UCI data
_SYNTHETIC = {"mux6", "parity5+5", "xd6"}


def _ensembles(n: int, big: int, only: tuple[str, ...] | None = None) -> list[dict]:
    """The four bagged kinds of ``n`` trees, then RDT and ERDT of ``big`` trees."""
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
    if only:
        out = [e for e in out if e["name"] in only]
    return [{**e, "single": False} for e in out]


def _datasets() -> list[dict]:
    from treelab.datasets import find_uci_root

    root = str(find_uci_root())
    return [{"name": "wine", "builtin": "wine"}, {"name": "iris", "builtin": "iris"},
            {"name": "waveform", "generator": "waveform", "n_samples": N_ROWS}] + [
        {"name": name, "uci": name, "root": root, "min_class_size": 10} for name in UCI_NAMES]


def _bundle(max_rows: int) -> list[dict]:
    from treelab.datasets import find_uci_root, list_uci

    table = list_uci()
    root = str(find_uci_root())
    names = [n for n in table.index if table.loc[n, "n_samples"] <= max_rows
             and n not in _SYNTHETIC]
    return [{"name": n, "uci": n, "root": root, "min_class_size": 2} for n in names]


FIVE_BY_TWO = {"name": "5x2"}
#: quick mode's cross-validation: one repeat of stratified 2-fold CV (the paper: five)
ONE_BY_TWO = {"name": "stratified_kfold", "n_splits": 2, "n_repeats": 1}


def gashler(n: int, protocol: dict = FIVE_BY_TWO) -> ExperimentConfig:
    """Notebook 04: CVDT against the other ensembles (the large ones 10 n trees)."""
    return ExperimentConfig(
        name="heterogeneous vs homogeneous", datasets=_datasets(),
        ensembles=_ensembles(n, n * BIG // N_TREES),
        protocol=protocol, seed=SEED, backend="local")


def irrelevant(n: int, ks: list[int] = IRRELEVANT, protocol: dict = FIVE_BY_TWO,
               dataset: str = "wine") -> ExperimentConfig:
    """Wine (notebook 04) or vowel (the paper's Figure 5) with 0 to 256 Gaussian irrelevant
    attributes."""
    chosen = [d for d in _datasets() if d["name"] == dataset]
    return ExperimentConfig(
        name="irrelevant attributes" + ("" if dataset == "wine" else f", {dataset}"),
        datasets=chosen,
        ensembles=_ensembles(n, 0),
        transforms=[{"kind": "irrelevant", "values": ks, "distribution": "gaussian"}],
        protocol=protocol, seed=SEED, backend="local")


def bundle(n: int, max_rows: int, only: tuple[str, ...] | None = None,
           protocol: dict = FIVE_BY_TWO) -> ExperimentConfig:
    """The ensembles (or ``only`` some) on the bundle's UCI sets of at most ``max_rows``."""
    big = n * BIG // N_TREES if only is None else 0
    return ExperimentConfig(
        name="Gashler et al. over the bundle", datasets=_bundle(max_rows),
        ensembles=_ensembles(n, big, only), protocol=protocol, seed=SEED,
        backend="local")


def grids(mode: str) -> dict[str, ExperimentConfig]:
    """``full``: notebook 04's grids, vowel with 0 to 256 irrelevant attributes (the paper's
    Figure 5) and the six ensembles on the bundle's UCI sets of at most 10,000 rows;
    ``quick``: one repeat of 2-fold CV, ensembles a quarter of the size (25 bagged trees
    against 250-tree RDT and ERDT) on notebook 04's data sets, wine and vowel with 0, 4, 16,
    64 and 256 irrelevant attributes, and ERDT against MMDT on the bundle's UCI sets of at
    most 500 rows; ``ci``: ERDT, MMDT on sets of at most 160 rows, 10 trees, 5x2 CV.

    Examples
    --------
    >>> from treelab.experiment import expand
    >>> configs = grids("ci")
    >>> sorted(configs)
    ['density']
    >>> all(len(expand(c)) > 0 for c in configs.values())
    True
    """
    if mode == "full":
        return {"gashler": gashler(N_TREES), "irrelevant": irrelevant(N_TREES),
                "irrelevant_vowel": irrelevant(N_TREES, dataset="vowel"),
                "bundle": bundle(N_TREES, 10000)}
    if mode == "quick":
        return {"gashler_quick": gashler(25, ONE_BY_TWO),
                "irrelevant_quick": irrelevant(25, [0, 4, 16, 64, 256], ONE_BY_TWO),
                "irrelevant_vowel_quick": irrelevant(25, [0, 4, 16, 64, 256], ONE_BY_TWO,
                                                     dataset="vowel"),
                "density": bundle(25, 500, only=("ERDT", "MMDT"), protocol=ONE_BY_TWO)}
    if mode == "ci":
        return {"density": bundle(10, 160, only=("ERDT", "MMDT"))}
    raise ValueError(f"mode must be 'full', 'quick' or 'ci', got {mode!r}")


def _log10_density(name: str) -> float:
    from treelab.analysis import sample_density
    from treelab.datasets import generate, list_uci, load_builtin, load_uci

    if name in list_uci().index:
        data = load_uci(name)
    elif name == "waveform":
        data = generate("waveform", n_samples=N_ROWS, random_state=SEED)
    else:
        data = load_builtin(name)
    return float(sample_density(data, log10=True))


def _accuracy(ds: xr.Dataset) -> xr.DataArray:
    err = ds.ensemble_error
    if "alpha" in err.dims:  # RDT at alpha 0, the others without alpha: one alpha each
        from treelab.stats._common import collapse_alpha

        err = collapse_alpha(err, "ensemble")
    return 1 - err


def measure(results: dict[str, xr.Dataset], mode: str) -> dict[str, pd.DataFrame]:
    """``accuracy_folds``: accuracy per grid, data set, ensemble, repeat and fold (the 5x2
    folds, for the significance tests); ``density``: log10 sample density per data set;
    ``irrelevant`` (wine) and ``irrelevant_vowel`` (the paper's data set): mean accuracy per
    number of irrelevant attributes and ensemble."""
    out = {}
    parts = []
    for grid in ("gashler", "gashler_quick", "bundle", "density"):
        if grid in results:
            acc = _accuracy(results[grid]).to_dataframe("accuracy").reset_index()
            acc.insert(0, "grid", grid)
            parts.append(acc[["grid", "dataset", "ensemble", "repeat", "fold", "accuracy"]])
    if parts:
        folds = pd.concat(parts, ignore_index=True)
        out["accuracy_folds"] = folds.set_index(["grid", "dataset", "ensemble", "repeat",
                                                 "fold"])
        names = sorted(folds["dataset"].unique())
        out["density"] = pd.DataFrame({"log10_density": [_log10_density(n) for n in names]},
                                      index=pd.Index(names, name="dataset"))
    for table, name in (("irrelevant", "wine"), ("irrelevant_vowel", "vowel")):
        irr = results.get(table, results.get(f"{table}_quick"))
        if irr is not None:
            acc = _accuracy(irr).sel(dataset=name).mean(["repeat", "fold"])
            frame = acc.to_pandas().T if acc.dims[0] == "ensemble" else acc.to_pandas()
            frame.index.name = "n_irrelevant"
            out[table] = frame.astype(np.float64)
    return out
