"""Liu, Ting, Yu & Zhou (2008), spectrum of variable-random trees: the experiment grids.

Full mode runs notebook 01's four full-mode grids unchanged (``spectrum``, ``compare``,
``irrelevant``, ``noise``: the notebook finds the cells stored here) plus ``table3`` (Table 3
on every data set of the paper the bundle and the generators provide) and ``table4_1024`` /
``table4_64`` (Table 4's conditions) and ``table5`` (Table 5: all attributes vs the more
important half by a random forest's importance, ranked inside each training fold). The
tables and verdicts are in
:mod:`treelab.reproduce._liu2008_report`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import xarray as xr

from treelab.experiment import ExperimentConfig

__all__ = ["BUNDLE", "NOT_COMPARABLE", "grids", "measure", "missing"]

ALPHAS = [round(0.1 * i, 1) for i in range(11)]
N_FOLDS, N_ROWS, N_DRAWS, LATTICE = 10, 1000, 10, 100
IRRELEVANT = [0, 1, 2, 4, 8, 16, 32]
UCI_NAMES = ["breast-w", "credit-a", "glass", "heart-statlog", "ionosphere", "iris", "sonar",
             "tic-tac-toe", "vote", "waveform-21", "zoo"]  # wine: scikit-learn's (the same)
SEED = 0

#: The paper's data set (Table 6 name) -> where treelab finds it: a UCI bundle name, or a
#: generator spec. The paper's printed Table 3 names differ for three rows (PRINTED).
BUNDLE: dict[str, Any] = {
    "audiology": "audiology", "breast-w": "breast-w", "breast-y": "breast-cancer",
    "chess": "kr-vs-kp", "cleveland": "cleveland", "credit-a": "credit-a",
    "credit-g": "credit-g", "dna": "dna", "glass": "glass", "hepatitis": "hepatitis",
    "horse": "horse-colic", "hypo": "hypothyroid", "ionosphere": "ionosphere", "iris": "iris",
    "led24": "led24", "led7": "led7", "liver": "liver", "primary": "primary-tumor",
    "satimage": "satimage", "segment": "segmentation", "sonar": "sonar", "soybean": "soybean",
    "tic-tac-toe": "tic-tac-toe", "vote": "vote", "waveform21": "waveform-21",
    "waveform40": "waveform-40", "wine": "wine", "zoo": "zoo",
    # all 2^9 bit vectors, positive when at least 3 of the 9 bits are 1 (512 rows, Table 6)
    "threeOf9": {"generator": "m_of_n", "params": {"m": 3, "n": 9}, "n_samples": None},
    # the UCI balance-scale data are the 625 weight-distance combinations, enumerated
    "balance": {"generator": "balance_scale"},
}
#: Table 3's printed row names that differ from Table 6's.
PRINTED = {"autos": "auto", "breastw": "breast-w", "breasty": "breast-y", "Z00": "zoo"}
#: Why a paper data set the bundle holds in some form still cannot stand in for it; every
#: other data set of the paper that BUNDLE does not map is missing from the bundle.
WHY_MISSING = {
    "abalone": "the bundle holds the 28 ring counts as classes; the paper's class count is "
               "unreadable in the text, so its class grouping cannot be matched",
}


def missing() -> dict[str, str]:
    """Table 3's data sets treelab cannot run, each with the reason, computed from the
    shipped paper table (``data/papers/liu2008_table3.csv``) and the UCI bundle.

    Returns
    -------
    dict
        Table 6 name -> reason (``WHY_MISSING``'s, else "data set not in the bundle").

    Examples
    --------
    >>> "abalone" in missing() and "iris" not in missing()
    True
    """
    from treelab.datasets import list_uci
    from treelab.reproduce._papers import paper_table

    names = [PRINTED.get(n, n) for n in paper_table("liu2008_table3")["dataset"]
             if n != "mean"]
    bundle = set(list_uci().index)
    out = {}
    for name in names:
        where = BUNDLE.get(name)
        if name in WHY_MISSING:
            out[name] = WHY_MISSING[name]
        elif where is None or (isinstance(where, str) and where not in bundle):
            out[name] = "data set not in the bundle"
    return out


#: Provided sets that are not the paper's data: run, shown, but left out of the comparison.
NOT_COMPARABLE = {
    "liver": "the bundle's class is the dichotomised drinks attribute (5 attributes), the "
             "paper's 6-attribute version used the 'selector' field as its class",
}
#: Provided sets whose encoding differs from Table 6 but whose rows are the paper's.
ENCODING = {
    "breast-w": "9 attributes (the sample id left out)", "credit-g": "20 attributes "
    "(numeric codes) for Table 6's 24", "dna": "180 binary attributes (one-hot) for 60 "
    "nominal", "soybean": "675 rows for 683", "glass, primary, satimage": "a class with no "
    "row in the data is not counted",
}
#: Sets of at most 1,000 rows: quick mode's Table 3.
SMALL = ["audiology", "balance", "breast-w", "breast-y", "cleveland", "credit-a", "credit-g",
         "glass", "hepatitis", "horse", "ionosphere", "iris", "liver", "primary", "sonar",
         "soybean", "threeOf9", "tic-tac-toe", "vote", "wine", "zoo"]
#: Table 3's columns treelab has (C5.0 boosting has no treelab counterpart).
TABLE3 = {"coalescence": "Coalescence", "agg_vrtrees_alpha0": "Max-Diverse",
          "bag_vrtrees_alpha1": "Bagging", "subspace_vrtrees_alpha1": "Random Subspace",
          "random_forests": "Random Forests"}
#: Table 5's columns: (method, attributes kept) -> the paper table's column.
TABLE5 = {("Coalescence", 1.0): "coalescence_full_att",
          ("Coalescence", 0.5): "coalescence_half_att",
          ("Random Forests", 1.0): "random_forests_full_att",
          ("Random Forests", 0.5): "random_forests_half_att"}
#: Table 5's data sets the bundle provides (the paper's 18 less echo, flare, hayes, labor,
#: pima and others it lacks); quick mode's are those of at most 1,000 rows.
TABLE5_SETS = ["cleveland", "dna", "hepatitis", "iris", "liver", "satimage", "sonar",
               "tic-tac-toe", "vote", "wine"]
#: Table 5's sets of at most 1,000 rows: quick mode's Table 5.
TABLE5_SMALL = [d for d in TABLE5_SETS if d in SMALL]
TABLE4 = {"vrtrees_alpha0_err_pct": "alpha = 0", "coalescence_err_pct": "Coalescence",
          "vrtrees_alpha05_err_pct": "alpha = 0.5", "random_forests_err_pct": "Random Forests"}


def _uci(name: str) -> dict[str, Any]:
    from treelab.datasets import find_uci_root

    return {"name": name, "uci": name, "root": str(find_uci_root()), "min_class_size": 10}


def _datasets() -> list[dict]:
    return [{"name": "waveform", "generator": "waveform", "n_samples": N_ROWS},
            {"name": "led", "generator": "led", "n_samples": N_ROWS},
            {"name": "wine", "builtin": "wine"}] + [_uci(n) for n in UCI_NAMES]


def _paper_datasets(names: list[str]) -> list[dict]:
    from treelab.datasets import find_uci_root

    root = str(find_uci_root())
    out = []
    for name in names:
        where = BUNDLE[name]
        if isinstance(where, dict):
            out.append({"name": name, **where})
        else:  # the paper's own name; every class kept (small ones miss some folds)
            out.append({"name": name, "uci": where, "root": root})
    return out


def _concepts(resolution: int = LATTICE) -> list[dict]:
    return [{"name": f"concept {c}", "generator": "concepts", "params": {"concept": c},
             "test": {"generator": "concepts_lattice",
                      "params": {"concept": c, "resolution": resolution}}} for c in "AB"]


def spectrum(n: int, datasets: list[dict] | None = None,
             protocol: dict | None = None) -> ExperimentConfig:
    """Error against alpha of Aggregating, Bagging and Subspacing VR-Trees (Figures 1, 2,
    Table 2); the notebook's grid with the defaults."""
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="spectrum of randomness", datasets=datasets or _datasets(),
        ensembles=[
            {"name": "Aggregating", "estimator": "VRTrees",
             "params": {**params, "sampling": "none"}},
            {"name": "Bagging", "estimator": "VRTrees",
             "params": {**params, "sampling": "bootstrap"}},
            {"name": "Subspacing", "estimator": "VRTrees",
             "params": {**params, "sampling": "subspace", "subspace_fraction": 0.5}},
        ],
        alphas=ALPHAS, protocol=protocol or {"name": "stratified_kfold", "n_splits": N_FOLDS},
        seed=SEED, backend="local")


def _compare_ensembles(n: int) -> list[dict]:
    params = {"n_estimators": n}
    return [
        {"name": "Coalescence", "estimator": "Coalescence", "params": params},
        {"name": "Max-Diverse", "estimator": "MaxDiverseEnsemble", "params": params},
        {"name": "Bagging", "estimator": "VRTrees", "alphas": [1.0],
         "params": {**params, "sampling": "bootstrap"}},
        {"name": "Random Subspace", "estimator": "VRTrees", "alphas": [1.0],
         "params": {**params, "sampling": "subspace"}},
        {"name": "Random Forests", "estimator": "RandomForest", "params": params},
    ]


def coalescence_beside_spectrum(n: int, datasets: list[dict], protocol: dict
                                ) -> ExperimentConfig:
    """Coalescence alone on a spectrum grid's data sets, protocol and seed (the same folds),
    for section 5.3: quick mode's counterpart of the full mode's ``compare`` grid."""
    return ExperimentConfig(
        name="coalescence beside the spectrum", datasets=datasets,
        ensembles=[{"name": "Coalescence", "estimator": "Coalescence",
                    "params": {"n_estimators": n}}],
        protocol=protocol, seed=SEED, backend="local")


#: Figure 9's data sets (the paper's names) and their attribute counts: every F of RF.
FIG9 = {"segment": 19, "waveform21": 21}
#: Figure 9's RF ensembles are named RF_AT + F, read back by :func:`measure`.
RF_AT = "RF F = "


def rf_features(n: int, name: str, protocol: dict) -> ExperimentConfig:
    """Figure 9: Random Forests at every F (1 to the attribute count) beside Aggregating
    VR-Trees at the eleven alphas, on one of Figure 9's data sets, for strength and
    correlation."""
    params = {"n_estimators": n}
    rf = [{"name": f"{RF_AT}{f}", "estimator": "RandomForest",
           "params": {**params, "max_features": f}} for f in range(1, FIG9[name] + 1)]
    agg = {"name": "Aggregating", "estimator": "VRTrees", "alphas": ALPHAS,
           "params": {**params, "sampling": "none"}}
    return ExperimentConfig(
        name=f"Liu et al. Figure 9, {name}", datasets=_paper_datasets([name]),
        ensembles=[*rf, agg], protocol=protocol, seed=SEED, backend="local")


def compare(n: int) -> ExperimentConfig:
    """Notebook 01's Coalescence comparison."""
    return ExperimentConfig(
        name="coalescence vs others", datasets=_datasets(), ensembles=_compare_ensembles(n),
        protocol={"name": "stratified_kfold", "n_splits": N_FOLDS}, seed=SEED, backend="local")


def table3(n: int, names: list[str], n_folds: int = N_FOLDS) -> ExperimentConfig:
    """Table 3: the five methods treelab has, 10-fold CV, on the paper's data sets."""
    return ExperimentConfig(
        name="Liu et al. Table 3", datasets=_paper_datasets(names),
        ensembles=_compare_ensembles(n), measures={"diagnose": {}},
        protocol={"name": "stratified_kfold", "n_splits": n_folds}, seed=SEED,
        backend="local")


def irrelevant(n: int) -> ExperimentConfig:
    """Notebook 01's concepts with 0 to 32 uniform irrelevant attributes."""
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
    """Notebook 01's k = 64 spectrum with and without 40% class noise."""
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="concepts, class noise, k = 64", datasets=_concepts(),
        ensembles=[{"name": "Aggregating", "estimator": "VRTrees", "params": params},
                   {"name": "Coalescence", "estimator": "Coalescence", "params": params}],
        alphas=ALPHAS, transforms=[{"kind": "class_noise", "values": [0.0, 0.4]}],
        protocol={"name": "draws", "n_repeats": N_DRAWS, "n_train": 64,
                  "n_test": LATTICE**2},
        seed=SEED, backend="local")


def _table4_ensembles(n: int) -> list[dict]:
    params = {"n_estimators": n}
    return [{"name": "alpha = 0", "estimator": "VRTrees", "alphas": [0.0], "params": params},
            {"name": "Coalescence", "estimator": "Coalescence", "params": params},
            {"name": "alpha = 0.5", "estimator": "VRTrees", "alphas": [0.5], "params": params},
            {"name": "Random Forests", "estimator": "RandomForest", "params": params}]


def table4(n: int, k: int, draws: int = N_DRAWS, resolution: int = LATTICE) -> ExperimentConfig:
    """Table 4: concepts A and B, ``k`` training rows; at k = 1,024 also 8 uniform irrelevant
    attributes and 40% class noise (training labels only), tested on the lattice."""
    transforms = []
    if k == 1024:
        transforms = [{"kind": "irrelevant", "values": [0, 8], "distribution": "uniform"},
                      {"kind": "class_noise", "values": [0.0, 0.4]}]
    return ExperimentConfig(
        name=f"Liu et al. Table 4, k = {k}", datasets=_concepts(resolution),
        ensembles=_table4_ensembles(n), transforms=transforms,
        protocol={"name": "draws", "n_repeats": draws, "n_train": k,
                  "n_test": resolution**2},
        seed=SEED, backend="local")


def table5(n: int, names: list[str], n_folds: int = N_FOLDS) -> ExperimentConfig:
    """Table 5: Coalescence and Random Forests with all attributes and with the half that a
    random forest ranks most important (Breiman's out-of-bag permutation importance, 100
    trees, computed on each training fold only), the same CV."""
    params = {"n_estimators": n}
    return ExperimentConfig(
        name="Liu et al. Table 5", datasets=_paper_datasets(names),
        ensembles=[{"name": "Coalescence", "estimator": "Coalescence", "params": params},
                   {"name": "Random Forests", "estimator": "RandomForest", "params": params}],
        transforms=[{"kind": "important_attributes", "values": [1.0, 0.5]}],
        protocol={"name": "stratified_kfold", "n_splits": n_folds}, seed=SEED,
        backend="local")


def grids(mode: str) -> dict[str, ExperimentConfig]:
    """The study's grids: ``full`` (the paper's protocol and notebook 01's full mode),
    ``quick`` (Table 3 on the 21 sets of at most 1,000 rows and Table 4 with 3 draws, 100
    trees, 10-fold CV; the spectrum on 6 small sets, 30 trees, 5-fold CV; Table 5 on its 8
    provided sets of at most 1,000 rows, 100 trees, 10-fold CV) or ``ci`` (Table 4
    at k = 64, 2 draws, 20 trees, a 50 x 50 lattice).

    Examples
    --------
    >>> from treelab.experiment import expand
    >>> configs = grids("ci")
    >>> sorted(configs)
    ['table4_64']
    >>> all(len(expand(c)) > 0 for c in configs.values())
    True
    """
    if mode == "full":
        return {"spectrum": spectrum(100), "compare": compare(100), "irrelevant": irrelevant(100),
                "noise": noise(100), "table3": table3(100, list(BUNDLE)),
                "table4_1024": table4(100, 1024), "table4_64": table4(100, 64),
                "table5": table5(100, TABLE5_SETS),
                **{f"figure9_{d}": rf_features(100, d, {"name": "stratified_kfold",
                                                         "n_splits": N_FOLDS}) for d in FIG9}}
    if mode == "quick":
        small = _paper_datasets(["glass", "iris", "sonar", "wine", "zoo", "liver"])
        five = {"name": "stratified_kfold", "n_splits": 5}
        return {"table3": table3(100, SMALL), "table4_1024": table4(100, 1024, draws=3),
                "table4_64": table4(100, 64, draws=3),
                "spectrum_quick": spectrum(30, small, five),
                "compare_quick": coalescence_beside_spectrum(30, small, five),
                **{f"figure9_{d}": rf_features(30, d, five) for d in FIG9},
                "table5": table5(100, TABLE5_SMALL)}
    if mode == "ci":
        return {"table4_64": table4(20, 64, draws=2, resolution=50)}
    raise ValueError(f"mode must be 'full', 'quick' or 'ci', got {mode!r}")


def _pct(da: xr.DataArray) -> xr.DataArray:
    return 100 * da


def _table4_frame(results: dict[str, xr.Dataset]) -> pd.DataFrame:
    rows = {}
    for grid, k in (("table4_1024", 1024), ("table4_64", 64)):
        if grid not in results:
            continue
        err = _pct(results[grid].ensemble_error.mean(["repeat", "fold", "alpha"]))
        for concept in "AB":
            e = err.sel(dataset=f"concept {concept}")
            conditions = {concept if k == 1024 else f"{concept}, k = 64": {}}
            if k == 1024:
                conditions[f"{concept}, 8 irr. att."] = {"n_irrelevant": 8}
                conditions[f"{concept}, 40% class noise"] = {"noise": 0.4}
            for label, where in conditions.items():
                sel = {"n_irrelevant": 0, "noise": 0.0} if k == 1024 else {}
                sel.update(where)
                cell = e.sel(sel) if sel else e
                rows[label] = cell.to_pandas()
    return pd.DataFrame(rows).T.rename_axis("condition")


def measure(results: dict[str, xr.Dataset], mode: str) -> dict[str, pd.DataFrame]:
    """Measured tables: ``table3_folds`` (error % per data set, method and fold),
    ``table4`` (error % per condition), ``compare`` (error % per data set and method
    on the spectrum's data sets and folds: Coalescence, and in full mode the other methods),
    ``rf_features`` (Figure 9: strength, correlation and error of RF per F and of Aggregating
    per alpha on segment and waveform21), ``spectrum`` (error % per construction, data set and
    alpha), ``table5`` (error % per data set, method and fraction of attributes kept) and
    ``strength_correlation`` (mean strength and correlation per construction,
    data set and alpha)."""
    out: dict[str, pd.DataFrame] = {}
    if "table3" in results:
        err = _pct(results["table3"].ensemble_error.mean("alpha", skipna=True))
        out["table3_folds"] = (err.to_dataframe("error").reset_index()
                               .set_index(["dataset", "ensemble", "repeat", "fold"])
                               [["error"]])
    if "table5" in results:
        err = _pct(results["table5"].ensemble_error.mean(["repeat", "fold", "alpha"],
                                                          skipna=True))
        out["table5"] = (err.to_dataframe("error").reset_index()
                         .set_index(["dataset", "ensemble", "attribute_fraction"])[["error"]])
    if any(g.startswith("table4") for g in results):
        out["table4"] = _table4_frame(results)
    fig9 = [results[g] for g in results if g.startswith("figure9_")]
    if fig9:  # strength and correlation of RF at each F and Aggregating at each alpha
        rows = []
        for ds in fig9:
            mean = ds.mean(["repeat", "fold"])
            for e in mean.ensemble.values:
                one = mean.sel(ensemble=e).dropna("alpha", how="all", subset=["strength"])
                for a in one.alpha.values:
                    cell = one.sel(alpha=a)
                    name, rf = str(e), str(e).startswith(RF_AT)
                    rows.append({"dataset": str(ds.dataset.values[0]),
                                 "method": "RF" if rf else name,
                                 "setting": float(name[len(RF_AT):]) if rf else float(a),
                                 "strength": float(cell.strength.squeeze()),
                                 "correlation": float(cell.correlation.squeeze()),
                                 "error": 100 * float(cell.ensemble_error.squeeze())})
        out["rf_features"] = pd.DataFrame(rows).set_index(["dataset", "method", "setting"])
    beside = results.get("compare", results.get("compare_quick"))
    if beside is not None:  # Coalescence on the spectrum's data sets and folds
        err = _pct(beside.ensemble_error.mean("alpha", skipna=True).mean(["repeat", "fold"]))
        out["compare"] = (err.to_dataframe("error").reset_index()
                          .set_index(["dataset", "ensemble"])[["error"]])
    spec = results.get("spectrum", results.get("spectrum_quick"))
    if spec is not None:
        mean = spec.mean(["repeat", "fold"])
        out["spectrum"] = (_pct(mean.ensemble_error).to_dataframe("error").reset_index()
                           .set_index(["ensemble", "dataset", "alpha"])[["error"]])
        out["strength_correlation"] = (mean[["strength", "correlation"]].to_dataframe()
                                       .reset_index()
                                       .set_index(["ensemble", "dataset", "alpha"])
                                       [["strength", "correlation"]])
    return out
