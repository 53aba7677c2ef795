"""Fan et al. (2005), randomised trees as posterior-probability estimators.

* ``fan`` (Figure 1): exact MSE and error of six methods (unpruned and pessimistically
  pruned tree, RD, RF+, BT+, DST) on the synthetic four-class problem, d = 5, 15, 20,
  training draws cut to 1% ... 100% of 10,000 rows, 10,000 test rows (notebook 03's full-mode
  grid, unchanged);
* Table 1: bias and variance of the probability estimates over K training sets against one
  test set (the paper: 100 sets of 2,000 rows, 2,000 test rows), computed outside the runner
  (:func:`bias_variance_table`; each set's predictions are stored as it finishes and reused
  when run again).

* Table 2's adult row: correct test rows of eight methods on UCI's own train/test split
  (:func:`adult_table2`, also outside the runner and resumable). The bundle's adult holds UCI's
  ``adult.data`` (32,561 rows) followed by ``adult.test`` (16,281 rows) in their original order.

The rest of Tables 2-5 needs data the bundle does not hold (donation, credit-card fraud,
artificial character), see :data:`NOT_PROVIDED`.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from treelab.experiment import ExperimentConfig

__all__ = ["NOT_PROVIDED", "adult_split", "adult_table2", "bias_variance_table", "exact_mse",
           "grids", "measure", "methods"]

N_TRAIN, N_TEST = 10000, 10000
SIZES = [0.01, 0.03, 0.1, 0.3, 1.0]
DIMS = [5, 15, 20]
N_DRAWS = 10
SEED = 0
#: Table 1's protocol (section 6.1): K training sets of N rows, one test set of T rows.
TABLE1 = {"full": (100, 2000, 2000, 100), "quick": (10, 2000, 2000, 30),
          "ci": (3, 300, 300, 5)}  # K, rows, test rows, trees
#: Table 2's adult row: the bundle's first 32,561 rows are UCI's adult.data, the last 16,281
#: its adult.test (the paper counts correct rows of that test set); trees per ensemble per mode
#: (the paper does not state them) and, in ci mode, the first rows of each part only.
ADULT_TRAIN, ADULT_TEST = 32561, 16281
TABLE2 = {"full": (100, None), "quick": (30, None), "ci": (5, 2000)}
#: Table 2's columns (the paper's) -> (estimator family, combination of the members' outputs)
TABLE2_METHODS = {"unpruned": ("unpruned tree", None), "pruned": ("pruned tree", None),
                  "RD": ("RD", "average"), "RF": ("RF", "vote"), "RF_plus": ("RF", "average"),
                  "BT": ("BT", "vote"), "BT_plus": ("BT", "average"), "DT": ("DST", "average")}
NOT_PROVIDED = {
    "Table 2": "donation (KDD Cup 1998) and credit-card fraud are not in the bundle (adult "
               "is, and its row is measured)",
    "Table 3": "donation is not in the bundle",
    "Tables 4 and 5": "UCI's artificial character data were drawn by a program the paper does "
                      "not describe, and they are not in the bundle",
}


def methods(n: int) -> dict[str, tuple[str, dict]]:
    """Name -> (estimator, parameters) of the six methods at ``n`` trees (DST keeps 10)."""
    trees = {"n_estimators": n}
    return {
        "unpruned tree": ("DecisionTree", {}),
        "pruned tree": ("DecisionTree", {"prune": "pessimistic"}),
        "RD": ("RandomDecisionTrees", trees),
        "RF+": ("RandomForest", {**trees, "combine": "average"}),
        "BT+": ("BaggedTrees", {**trees, "combine": "average"}),
        "DST": ("DisjointSampleTrees", {"n_estimators": 10}),
    }


def exact_mse(n: int, dims: list[int] = DIMS, sizes: list[float] = SIZES,
              draws: int = N_DRAWS) -> ExperimentConfig:
    """Figure 1's grid (notebook 03's full mode with the defaults)."""
    return ExperimentConfig(
        name="probability estimation",
        datasets=[{"name": f"d = {d}", "generator": "fan_synthetic",
                   "params": {"n_features": d}} for d in dims],
        ensembles=[{"name": name, "estimator": est, "params": p, "single": False}
                   for name, (est, p) in methods(n).items()],
        transforms=[{"kind": "subsample", "values": sizes, "stratify": False}],
        protocol={"name": "draws", "n_repeats": draws, "n_train": N_TRAIN, "n_test": N_TEST},
        seed=SEED, backend="local")


def grids(mode: str) -> dict[str, ExperimentConfig]:
    """``full``: Figure 1's grid (100 trees, d = 5, 15, 20, five sizes, 10 draws);
    ``quick``: d = 5 and 20, sizes 1%, 10%, 100%, 3 draws, 30 trees; ``ci``: d = 5, 1%, 2
    draws, 5 trees.

    Examples
    --------
    >>> from treelab.experiment import expand
    >>> configs = grids("ci")
    >>> sorted(configs)
    ['fan']
    >>> all(len(expand(c)) > 0 for c in configs.values())
    True
    """
    if mode == "full":
        return {"fan": exact_mse(100)}
    if mode == "quick":
        return {"fan": exact_mse(30, dims=[5, 20], sizes=[0.01, 0.1, 1.0], draws=3)}
    if mode == "ci":
        return {"fan": exact_mse(5, dims=[5], sizes=[0.01], draws=2)}
    raise ValueError(f"mode must be 'full', 'quick' or 'ci', got {mode!r}")


def _fan(n, random_state, d):
    from treelab.datasets import fan_synthetic

    return fan_synthetic(n, n_features=d, random_state=random_state)


def _draws(k: int, n_train: int, n_test: int):
    from treelab.protocols import make_protocol

    protocol = make_protocol({"name": "bias_variance", "n_sets": k, "n_train": n_train,
                              "n_test": n_test, "random_state": SEED})
    return protocol.split(functools.partial(_fan, d=DIMS[0]))


_TABLE1_METHODS = ("unpruned tree", "pruned tree", "RD", "RF+")


def _one_set(k: int, settings: dict) -> np.ndarray:
    import treelab

    split = next(itertools.islice(_draws(settings["n_sets"], settings["n_train"],
                                         settings["n_test"]), k, None))
    chosen = methods(settings["trees"])
    return np.stack([getattr(treelab, chosen[m][0])(random_state=SEED + split.repeat,
                                                    **chosen[m][1])
                     .fit(split.train.X, split.train.y).predict_proba(split.test.X)
                     for m in _TABLE1_METHODS])


def bias_variance_table(folder: Path, mode: str, workers: int = 1) -> pd.DataFrame:
    """Table 1: bias, variance and loss per method (:func:`treelab.analysis.bias_variance`
    against the true probability), each set's predictions stored under ``folder`` in a
    subfolder named by a digest of the settings, so a stopped run resumes."""
    from joblib import Parallel, delayed

    from treelab.analysis import bias_variance

    k_sets, n_train, n_test, trees = TABLE1[mode]
    settings = {"d": DIMS[0], "n_sets": k_sets, "n_train": n_train, "n_test": n_test,
                "seed": SEED, "trees": trees, "methods": list(_TABLE1_METHODS)}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    folder = Path(folder) / f"table1_{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings, indent=1, sort_keys=True))

    def path(k: int) -> Path:
        return folder / f"set_{k:03d}.npy"

    def one(k: int) -> int:
        proba = _one_set(k, settings)
        tmp = path(k).with_suffix(".tmp.npy")
        np.save(tmp, proba)
        tmp.replace(path(k))  # a set is stored whole or not at all
        return k

    todo = [k for k in range(k_sets) if not path(k).is_file()]
    Parallel(n_jobs=max(1, workers))(delayed(one)(k) for k in todo)
    probas = np.stack([np.load(path(k)) for k in range(k_sets)], axis=1)  # method, set, ...
    test = next(_draws(k_sets, n_train, n_test)).test
    parts = [bias_variance(probas[i], test.true_proba)[["bias", "variance", "loss"]]
             for i in range(probas.shape[0])]
    frame = xr.concat(parts, dim=pd.Index(list(_TABLE1_METHODS), name="method")).to_pandas()
    return frame


def adult_split(limit: int | None = None
                ) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray]:
    """UCI's own adult split from the bundle: ``X_train, y_train, X_test, y_test`` (nominal
    columns as pandas categories; ``limit``: only the first rows of each part)."""
    from treelab.datasets import load_uci

    data = load_uci("adult")
    if data.n_samples != ADULT_TRAIN + ADULT_TEST:
        raise ValueError(f"the bundle's adult has {data.n_samples} rows, not UCI's "
                         f"{ADULT_TRAIN} + {ADULT_TEST}; its original split is unknown")
    train = np.arange(ADULT_TRAIN)[:limit]
    test = np.arange(ADULT_TRAIN, ADULT_TRAIN + ADULT_TEST)[:limit]
    frame = data.X_frame
    return frame.iloc[train], data.y[train], frame.iloc[test], data.y[test]


def _table2_estimators(trees: int) -> dict[str, tuple[str, dict]]:
    m = methods(trees)
    return {"unpruned tree": m["unpruned tree"], "pruned tree": m["pruned tree"],
            "RD": m["RD"], "RF": ("RandomForest", {"n_estimators": trees}),
            "BT": ("BaggedTrees", {"n_estimators": trees}), "DST": m["DST"]}


def adult_table2(folder: Path, mode: str, workers: int = 1) -> pd.DataFrame:
    """Table 2's adult row: correct predictions on UCI's test rows per method (the paper's
    columns), with McNemar's exact test of each method against the better single tree.
    Each family's predictions (one fit, every combination) are stored under ``folder`` as they
    finish, so a stopped run resumes."""
    from statsmodels.stats.contingency_tables import mcnemar

    import treelab

    trees, limit = TABLE2[mode]
    settings = {"trees": trees, "limit": limit, "seed": SEED, "split": [ADULT_TRAIN, ADULT_TEST]}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    folder = Path(folder) / f"table2_adult_{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.json").write_text(json.dumps(settings, indent=1, sort_keys=True))
    X_train, y_train, X_test, y_test = adult_split(limit)
    predictions = {}
    for family, (name, params) in _table2_estimators(trees).items():
        path = folder / f"{family.replace(' ', '_')}.npz"
        if not path.is_file():
            est = getattr(treelab, name)(random_state=SEED, **params)
            if "n_jobs" in est.get_params():  # threads never change a result
                est.set_params(n_jobs=workers)
            est.fit(X_train, y_train)
            combos = {c for f, c in TABLE2_METHODS.values() if f == family}
            got = {}
            for combine in sorted(c for c in combos if c is not None):
                est.set_params(combine=combine)
                got[combine] = est.predict(X_test)
            if None in combos:
                got["own"] = est.predict(X_test)
            tmp = path.with_suffix(".tmp.npz")
            np.savez(tmp, **got)
            tmp.replace(path)  # a family is stored whole or not at all
        with np.load(path, allow_pickle=False) as stored:
            predictions[family] = {k: stored[k] for k in stored.files}
    right = {col: predictions[f][c if c is not None else "own"] == y_test
             for col, (f, c) in TABLE2_METHODS.items()}
    best_single = max(("unpruned", "pruned"), key=lambda c: int(right[c].sum()))
    rows = {}
    for col, ok in right.items():
        ref = right[best_single]
        table = [[int(np.sum(ok & ref)), int(np.sum(ok & ~ref))],
                 [int(np.sum(~ok & ref)), int(np.sum(~ok & ~ref))]]
        p = 1.0 if col == best_single else float(mcnemar(table, exact=True).pvalue)
        rows[col] = {"correct": int(ok.sum()), "test_rows": int(ok.size),
                     "accuracy_pct": 100 * float(ok.mean()), "reference": best_single,
                     "mcnemar_p": p}
    return pd.DataFrame(rows).T.rename_axis("method")


def extra(mode: str, root: Path, workers: int | None) -> dict[str, pd.DataFrame]:
    """Table 1 and Table 2's adult row, outside the runner."""
    return {"table1": bias_variance_table(root / "bias_variance", mode, workers or 1),
            "table2_adult": adult_table2(root / "adult", mode, workers or 1)}


def measure(results: dict[str, xr.Dataset], mode: str) -> dict[str, pd.DataFrame]:
    """``figure1``: exact MSE and error (mean over the draws) per d, training rows and
    method."""
    ds = results["fan"].mean(["repeat", "fold"])
    ds = ds.isel(alpha=0, drop=True) if "alpha" in ds.dims else ds
    frame = ds[["exact_mse", "ensemble_error"]].to_dataframe().reset_index()
    frame["train_rows"] = (frame.pop("train_size") * N_TRAIN).round().astype(int)
    return {"figure1": frame.set_index(["dataset", "train_rows", "ensemble"])[
        ["exact_mse", "ensemble_error"]]}
