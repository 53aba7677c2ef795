"""Ali & Pazzani (1995), error correlation and error reduction: grids and measured tables.

* ``table2_*``: one tree against eleven stochastic ID3 trees (uniform voting) on the study's
  training sizes, one grid per training size (the protocol's test size is per grid): 30
  random trials training on the stated number of rows and testing on the rest (UCI sets), or
  on 1,000 fresh rows (LED, KRK: training and test drawn independently; noise applied to the
  training rows only, the test rows noise-free); DNA promoters by leave-one-out. Attribute
  noise of level p is Quinlan's (1986): a value is replaced, with probability p, by a value of
  the attribute drawn at random (``draw="any"``), so an LED segment is inverted with
  probability p / 2; the study does not define it, and this reading comes closer to its LED
  rows than inverting with probability p (``docs/reproductions/claims/alipazzani1995.md``).
* ``figure1``: the four combination functions on notebook 02's 18 data sets with 10%, 20%,
  ..., 100% of the 2/3 training split (the study's ten meta-trials), for the fit of the error
  ratio E_r on the error correlation phi_e.
* ``stochastic_id3`` (full mode only): notebook 02's full-mode grid (class noise 0 to 0.3),
  unchanged, so the notebook finds its cells.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from treelab.experiment import ExperimentConfig
from treelab.stats._signed_rank import signed_rank

__all__ = ["TABLE2", "grids", "measure", "not_provided"]

N_TRIALS, N_ROWS, N_TEST = 30, 1000, 1000
NOISE = [0.0, 0.1, 0.2, 0.3]
FRACTIONS = [round(0.1 * i, 1) for i in range(1, 11)]
UCI_NAMES = ["breast-cancer", "vote", "promoters", "hepatitis", "primary-tumor", "zoo",
             "car", "splice", "soybean", "kr-vs-kp", "mushroom"]  # tic-tac-toe: the generator
COMBINATIONS = {"uniform voting": "vote", "distribution summation": "sum",
                "likelihood": "likelihood", "Bayesian": "bayesian"}
SEED = 0
ENSEMBLE = {"name": "uniform voting", "estimator": "StochasticID3",
            "params": {"n_estimators": 11, "beta": 1.25, "combine": "vote",
                       "tie_break": "random"}}

#: The study's Table 2 row -> (grid, data set name in the grid, transform selection).
#: Rows the study has and treelab cannot provide: :func:`not_provided`.
TABLE2: dict[str, tuple[str, str, dict]] = {
    "Led 8i": ("table2_led30", "led +8", {"attribute_noise": 0.0}),
    "Led 17i": ("table2_led30", "led +17", {"attribute_noise": 0.0}),
    "Led 20a": ("table2_led30", "led", {"attribute_noise": 0.2}),
    "Led 40a": ("table2_led30", "led", {"attribute_noise": 0.4}),
    "Tic-tac-toe": ("table2_tic-tac-toe", "tic-tac-toe", {}),
    "Krk 100e": ("table2_krk100", "krk", {}),
    "Krk 200e": ("table2_krk200", "krk", {}),
    "Krk 160e 5a": ("table2_krk160", "krk", {"attribute_noise": 0.05, "noise": 0.0}),
    "Krk 320e 5a": ("table2_krk320", "krk", {"attribute_noise": 0.05, "noise": 0.0}),
    "Krk 160e 20c": ("table2_krk160", "krk", {"attribute_noise": 0.0, "noise": 0.2}),
    "Krk 320e 20c": ("table2_krk320", "krk", {"attribute_noise": 0.0, "noise": 0.2}),
    "DNA": ("table2_promoters", "promoters", {}),
    "Splice": ("table2_splice", "splice", {}),
    "Mushroom": ("table2_mushroom", "mushroom", {}),
    "Hypothyroid": ("table2_hypothyroid", "hypothyroid", {}),
    "Voting": ("table2_vote", "vote", {}),
    "Wine": ("table2_wine", "wine", {}),
    "Soybean": ("table2_soybean", "soybean", {}),
    "Audiology": ("table2_audiology", "audiology", {}),
    "Krkp": ("table2_kr-vs-kp", "kr-vs-kp", {}),
    "BC-Wisconsin": ("table2_breast-w", "breast-w", {}),
    "Iris": ("table2_iris", "iris", {}),
    "Horse-colic": ("table2_horse-colic", "horse-colic", {}),
    "Hepatitis": ("table2_hepatitis", "hepatitis", {}),
    "B.Cancer": ("table2_breast-cancer", "breast-cancer", {}),
    # Cleveland's five classes: its majority share (164 of 303) is Table 2's base error 45.9%
    "Heart": ("table2_cleveland", "cleveland", {}),
    "Primary-tumor": ("table2_primary-tumor", "primary-tumor", {}),
}


def not_provided() -> dict[str, str]:
    """Table 2's rows treelab cannot run, each with the reason, computed from the shipped
    paper table (``data/papers/alipazzani1995_table2.csv``) against :data:`TABLE2`.

    Examples
    --------
    >>> sorted(not_provided())
    ['Diabetes', 'Lymph.']
    """
    from treelab.reproduce._papers import paper_table

    return {row: "data set not in the bundle"
            for row in paper_table("alipazzani1995_table2")["data_set"] if row not in TABLE2}
#: UCI rows: bundle name -> training rows of the study
_UCI_TRAIN = {"tic-tac-toe": 670, "splice": 200, "mushroom": 100, "hypothyroid": 200,
              "vote": 100, "wine": 118, "soybean": 290, "audiology": 145, "kr-vs-kp": 200,
              "breast-w": 200, "iris": 50, "horse-colic": 245, "hepatitis": 103,
              "breast-cancer": 190, "cleveland": 200, "primary-tumor": 225}


def _uci(name: str) -> dict[str, Any]:
    from treelab.datasets import find_uci_root

    return {"name": name, "uci": name, "root": str(find_uci_root())}


def _config(name: str, datasets: list[dict], protocol: dict, transforms: list | None = None,
            ensembles: list[dict] | None = None) -> ExperimentConfig:
    return ExperimentConfig(name=name, datasets=datasets, ensembles=ensembles or [ENSEMBLE],
                            transforms=transforms or [], protocol=protocol, seed=SEED,
                            backend="local", on_error="raise")


def table2_grids(trials: int) -> dict[str, ExperimentConfig]:
    """One grid per training size of Table 2, ``trials`` random trials each."""
    from treelab.datasets import list_uci

    sizes = list_uci()["n_samples"]
    draws = {"name": "draws", "n_repeats": trials, "n_test": N_TEST}
    led = [{"name": "led", "generator": "led", "params": {"noise": 0.0}}] + [
        {"name": f"led +{k}", "generator": "led", "params": {"noise": 0.0, "n_irrelevant": k}}
        for k in (8, 17)]
    out = {"table2_led30": _config(
        "Table 2, LED", led, {**draws, "n_train": 30},
        [{"kind": "attribute_noise", "values": [0.0, 0.2, 0.4], "draw": "any"}])}
    krk = [{"name": "krk", "generator": "krk"}]
    for n in (100, 200):
        out[f"table2_krk{n}"] = _config(f"Table 2, KRK {n}", krk, {**draws, "n_train": n})
    for n in (160, 320):
        out[f"table2_krk{n}"] = _config(
            f"Table 2, KRK {n}, noise", krk, {**draws, "n_train": n},
            [{"kind": "attribute_noise", "values": [0.0, 0.05], "draw": "any"},
             {"kind": "class_noise", "values": [0.0, 0.2]}])
    out["table2_promoters"] = _config("Table 2, DNA promoters", [_uci("promoters")],
                                      {"name": "loo"})
    for name, n_train in _UCI_TRAIN.items():
        out[f"table2_{name}"] = _config(
            f"Table 2, {name}", [_uci(name)],
            {"name": "holdout", "n_repeats": trials, "test_size": int(sizes[name]) - n_train,
             "stratify": False})
    return out


def _datasets() -> list[dict]:
    return [{"name": "tic-tac-toe", "generator": "tictactoe"},
            {"name": "monks-2", "generator": "monks", "params": {"problem": 2}},
            {"name": "led", "generator": "led", "n_samples": N_ROWS},
            {"name": "krk", "generator": "krk", "n_samples": N_ROWS},
            {"name": "monks-1", "generator": "monks", "params": {"problem": 1}},
            {"name": "monks-3", "generator": "monks", "params": {"problem": 3}},
            {"name": "2-of-4", "generator": "m_of_n", "n_samples": N_ROWS}] + [
        {**_uci(name), "min_class_size": 10} for name in UCI_NAMES]


def _combinations(n: int) -> list[dict]:
    return [{"name": name, "estimator": "StochasticID3",
             "params": {"n_estimators": n, "beta": 1.25, "combine": combine,
                        "tie_break": "random"}}
            for name, combine in COMBINATIONS.items()]


def stochastic_id3(n: int, noise: list[float] = NOISE) -> ExperimentConfig:
    """Notebook 02's full-mode experiment with ``n`` trees per ensemble (the study's 11)."""
    return ExperimentConfig(
        name="stochastic ID3", datasets=_datasets(), ensembles=_combinations(n),
        transforms=[{"kind": "class_noise", "values": noise}],
        protocol={"name": "holdout", "n_repeats": N_TRIALS, "test_size": 1 / 3},
        seed=SEED, backend="local", on_error="raise")


def figure1(trials: int, fractions: list[float], datasets: list[dict] | None = None
            ) -> ExperimentConfig:
    """The meta-trials of Figure 1: the four combination functions, each fraction of the
    2/3 training split (subsample transform, stratified), ``trials`` trials."""
    return ExperimentConfig(
        name="Ali & Pazzani Figure 1", datasets=datasets or _datasets(),
        ensembles=_combinations(11),
        transforms=[{"kind": "subsample", "values": fractions}],
        protocol={"name": "holdout", "n_repeats": trials, "test_size": 1 / 3},
        seed=SEED, backend="local", on_error="raise")


def grids(mode: str) -> dict[str, ExperimentConfig]:
    """``full``: Table 2 with 30 trials, Figure 1's ten fractions with 30 trials, notebook 02's
    grid; ``quick``: Table 2 with 10 trials, Figure 1 at fractions 0.3 and 1.0 with 10 trials on
    seven small sets;
    ``ci``: Table 2's KRK 100 row, 3 trials.

    Examples
    --------
    >>> from treelab.experiment import expand
    >>> configs = grids("ci")
    >>> sorted(configs)
    ['table2_krk100']
    >>> all(len(expand(c)) > 0 for c in configs.values())
    True
    """
    if mode == "full":
        return {**table2_grids(N_TRIALS), "figure1": figure1(N_TRIALS, FRACTIONS),
                "stochastic_id3": stochastic_id3(11)}
    if mode == "quick":
        keep = ("monks-2", "breast-cancer", "vote", "promoters", "hepatitis", "primary-tumor",
                "zoo")
        small = [d for d in _datasets() if d["name"] in keep]
        # 10 trials a point: the fit reads only the points whose reduction the signed-rank
        # test finds significant (section 5.1), and that test needs at least 6 nonzero
        # differences to reach 0.05 (its smallest two-sided p is 2 / 2^n); 2 never could
        return {**table2_grids(10), "figure1": figure1(10, [0.3, 1.0], small)}
    if mode == "ci":
        return {"table2_krk100": table2_grids(3)["table2_krk100"]}
    raise ValueError(f"mode must be 'full', 'quick' or 'ci', got {mode!r}")


def _row(ds: xr.Dataset, name: str, where: dict) -> dict[str, float]:
    sel = ds.sel(dataset=name, ensemble="uniform voting")
    sel = sel.sel({k: v for k, v in where.items() if k in sel.dims})
    extra = [d for d in sel.dims if d not in ("repeat", "fold")]
    sel = sel.isel({d: 0 for d in extra})  # the alpha dim (one NaN coordinate)
    single = sel.single_error.values.ravel()
    ens = sel.ensemble_error.values.ravel()
    loo = sel.sizes.get("fold", 1) > 1 and sel.sizes.get("repeat", 1) == 1
    d = single - ens
    p = signed_rank(d)[1] if not loo and np.any(d != 0) else np.nan
    if loo:  # one pass: McNemar-free summary, pooled errors
        p = np.nan
    return {"single": 100 * float(single.mean()), "ensemble": 100 * float(ens.mean()),
            "E_r": float(ens.mean() / single.mean()) if single.mean() > 0 else np.nan,
            "phi_e": float(np.nanmean(sel.phi_e.values)),
            "mean_g": float(np.nanmean(sel.mean_g.values)) if "mean_g" in sel else np.nan,
            "trials": int(d.size), "p_wilcoxon": p}


def _point_p(d: np.ndarray) -> float:
    """The Wilcoxon signed-rank p of one Figure 1 point's trial differences (missing trials
    left out), NaN where no difference is nonzero."""
    d = d[~np.isnan(d)]
    return signed_rank(d)[1] if d.size and np.any(d != 0) else np.nan


def measure(results: dict[str, xr.Dataset], mode: str) -> dict[str, pd.DataFrame]:
    """``table2`` (one row per Table 2 row run: errors %, E_r, phi_e, gain ties, trials, the
    Wilcoxon p of single vs ensemble over the trials) and ``figure1_points`` (per combination
    function, data set and fraction: E_r of the mean errors, the mean phi_e and, as for Table
    2, the Wilcoxon signed-rank p of single vs ensemble over the trials: the study fits
    Figure 1 over the points with a significant reduction, section 5.1)."""
    out = {}
    rows = {label: _row(results[grid], name, where)
            for label, (grid, name, where) in TABLE2.items() if grid in results}
    if rows:
        out["table2"] = pd.DataFrame.from_dict(rows, orient="index").rename_axis("data_set")
    if "figure1" in results:
        ds = results["figure1"]
        mean = ds[["single_error", "ensemble_error", "phi_e"]].mean(["repeat", "fold"])
        mean = mean.isel(alpha=0, drop=True) if "alpha" in mean.dims else mean
        frame = mean.to_dataframe().reset_index()
        frame["E_r"] = frame["ensemble_error"] / frame["single_error"].where(
            frame["single_error"] > 0)
        diff = (ds["single_error"] - ds["ensemble_error"])
        diff = diff.isel(alpha=0, drop=True) if "alpha" in diff.dims else diff
        p = xr.apply_ufunc(_point_p, diff.stack(trial=["repeat", "fold"]),
                           input_core_dims=[["trial"]], vectorize=True, output_dtypes=[float])
        frame = frame.set_index(["ensemble", "dataset", "train_size"])
        # the frame's level order, whatever order the run's dims came in
        frame["p_wilcoxon"] = p.transpose(*frame.index.names).to_series().reindex(frame.index)
        out["figure1_points"] = frame[["single_error", "ensemble_error", "E_r", "phi_e",
                                       "p_wilcoxon"]]
    return out
