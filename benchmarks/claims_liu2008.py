"""Liu, Ting, Yu & Zhou (2008), Table 3: why Coalescence does not rank first in treelab.

Investigates the claim of ``docs/reproductions/claims/liu2008.md``. Two parts:

``ranks``: from the paper's own Table 3 (the 33 printed rows, ``--table``), the average ranks
of the methods and how stable the first place is: the share of bootstrap resamples of the data
sets (2,000) in which each method has the best average rank, with and without C5 boosting;
the Nemenyi critical difference at 0.05 for that many methods and sets.

``datasets``: the bundle's counterpart of every Table 6 data set (Appendix A: size,
attributes, classes) beside the paper's, flagging those that differ (another target or other
attributes make the paper's error and treelab's incomparable).

``dna``: Coalescence and Max-Diverse Ensemble on dna as the bundle holds it (180 binary
indicators, three per position) and as the paper's Table 6 describes it (60 nominal
attributes with 4 values; the indicators 100, 010, 001, 000 decoded to A, C, G, T), 10-fold
stratified CV, beside the paper's Table 3 values.

``encoding``: the gap to the paper of Coalescence and RF (the stored full-mode Table 3) on
the sets whose bundle copy numbers a numeric column with missing values in string order,
beside the other comparable sets.

``readings`` (default): 10-fold stratified cross-validation (one seed) on a subset of the
bundle's sets that are in Table 3, error (%) of Coalescence (100 trees) under each reading
of the paper's VR-Tree below, and of Random Forests with averaged probabilities (treelab's
default) and with majority votes (R's ``randomForest``, the paper's implementation), beside
the paper's value:

* ``default``: treelab's Coalescence as the reproduction runs it (C4.5 gain ratio, n_min 4,
  pair-midpoint random thresholds, curtailment at 2 rows);
* ``uniform``: random thresholds uniform between the node's minimum and maximum;
* ``distinct``: Algorithm 2's two values drawn over the node's distinct values, not its rows;
* ``nmin5``: a node needs 5 rows to split (section 6: trees stop at "four or less");
* ``no-c45``: gain ratio without C4.5's average-gain filter and continuous-gain correction;
* ``curtail1``: leaf estimates from any leaf with at least one row.

Usage::

    nice -n 19 python benchmarks/claims_liu2008.py ranks
    nice -n 19 python benchmarks/claims_liu2008.py readings --sets sonar glass \
        --readings default uniform
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from treelab import Coalescence, MaxDiverseEnsemble, RandomForest
from treelab.datasets import load_uci
from treelab.protocols import StratifiedKFold

TABLE = Path(__file__).resolve().parents[1] / "data" / "papers" / "liu2008_table3.csv"
#: bundle name -> Table 3 name
SETS = {"sonar": "sonar", "ionosphere": "ionosphere", "glass": "glass", "credit-a": "credit-a",
        "vote": "vote", "iris": "iris", "wine": "wine", "breast-w": "breastw", "zoo": "Z00",
        "hepatitis": "hepatitis", "liver": "liver", "tic-tac-toe": "tic-tac-toe"}
#: Table 6 name -> bundle name (the sets of Table 3 that the bundle holds)
BUNDLE = {"abalone": "abalone", "audiology": "audiology", "breast-w": "breast-w",
          "breast-y": "breast-cancer", "chess": "kr-vs-kp", "cleveland": "cleveland",
          "credit-a": "credit-a", "credit-g": "credit-g", "dna": "dna", "glass": "glass",
          "hepatitis": "hepatitis", "horse": "horse-colic", "hypo": "hypothyroid",
          "ionosphere": "ionosphere", "iris": "iris", "led24": "led24", "led7": "led7",
          "liver": "liver", "primary": "primary-tumor", "satimage": "satimage",
          "segment": "segmentation", "sonar": "sonar", "soybean": "soybean",
          "tic-tac-toe": "tic-tac-toe", "vote": "vote", "waveform21": "waveform-21",
          "waveform40": "waveform-40", "wine": "wine", "zoo": "zoo"}
APPENDIX = Path(__file__).resolve().parents[1] / "data" / "papers" / "liu2008_table6.csv"
SHARED_APPENDIX = Path("/work/shared/papers/tables/liu2008_table6.csv")
READINGS = {
    "default": {},
    "uniform": {"random_split": "uniform"},
    "distinct": {"random_split": "pair_distinct"},
    "nmin5": {"min_samples_split": 5},
    "no-c45": {"c45": False},
    "curtail1": {"curtail_min": 1},
}


def load_table(path: str | None) -> pd.DataFrame:
    for p in ([Path(path)] if path else [TABLE]):
        if p.exists():
            t = pd.read_csv(p).set_index("dataset").drop(index="mean", errors="ignore")
            return t.drop(columns=[c for c in t.columns if c == "note"]).apply(
                pd.to_numeric, errors="coerce")
    raise FileNotFoundError("Table 3 CSV not found; pass --table")


def ranks(table: pd.DataFrame, boot: int = 2000, seed: int = 0) -> None:
    from scipy.stats import studentized_range

    t = table.dropna()
    for cols in (list(t.columns), [c for c in t.columns if c != "c5_boost"]):
        avg = t[cols].rank(axis=1).mean().sort_values()
        rng = np.random.default_rng(seed)
        top = dict.fromkeys(cols, 0)
        for _ in range(boot):
            r = t[cols].iloc[rng.integers(0, len(t), len(t))].rank(axis=1).mean()
            top[r.idxmin()] += 1
        k, n = len(cols), len(t)
        cd = studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * n))
        print(f"\n{k} methods, {n} data sets; Nemenyi CD (0.05) = {cd:.2f}")
        print("| method | mean error | average rank | best rank in bootstrap resamples |")
        print("|---|---|---|---|")
        for c in avg.index:
            print(f"| {c} | {t[c].mean():.2f} | {avg[c]:.2f} | {top[c] / boot:.2f} |")


def datasets() -> None:
    path = APPENDIX if APPENDIX.exists() else SHARED_APPENDIX
    t6 = pd.read_csv(path).set_index("dataset")
    print("| paper set | bundle set | size (paper) | attributes (paper) | classes (paper) | "
          "same? |")
    print("|---|---|---|---|---|---|")
    for paper, name in BUNDLE.items():
        d = load_uci(name)
        row = t6.loc[paper]
        n_att = sum(int(x.strip()[:-1]) for x in str(row["n_attributes"]).split(",")) \
            if isinstance(row["n_attributes"], str) else None
        n_cls = int(row["n_classes"]) if pd.notna(row["n_classes"]) else None
        same = (d.n_samples == int(row["size"]) and (n_att is None or d.n_features == n_att)
                and (n_cls is None or len(d.classes) == n_cls))
        print(f"| {paper} | {name} | {d.n_samples} ({row['size']}) | {d.n_features} "
              f"({row['n_attributes']}) | {len(d.classes)} ({row['n_classes']}) | "
              f"{'yes' if same else 'NO'} |")


def dna(a) -> None:
    data = load_uci("dna")
    cube = data.X.reshape(data.n_samples, 60, 3)
    nominal = np.where(cube.sum(axis=2) == 0, 3, cube.argmax(axis=2)).astype(np.float64)
    cv = StratifiedKFold(10, random_state=a.seed)
    folds = [(tr, te) for _, _, tr, te in cv.indices(data.y)]
    from treelab.reproduce import paper_table

    row = paper_table("liu2008_table3").set_index("dataset").loc["dna"]
    print("| dna as | Coalescence | Max-Diverse |\n|---|---|---|\n| paper (Table 3) | "
          f"{row['coalescence']:g} | {row['agg_vrtrees_alpha0']:g} |")
    for label, X in (("180 binary indicators (bundle)", data.X), ("60 nominal, 4 values", nominal)):
        d = dataclasses.replace(data, X=X, feature_types=("nominal",) * X.shape[1],
                                feature_names=tuple(f"f{j}" for j in range(X.shape[1])))
        errs = []
        for cls in (Coalescence, MaxDiverseEnsemble):
            est = cls(n_estimators=a.trees, categorical_features=list(range(X.shape[1])),
                      random_state=a.seed)
            errs.append(cv_error(est, d, folds))
        print(f"| {label} | {errs[0]:.1f} | {errs[1]:.1f} |", flush=True)


def cv_error(est, data, folds) -> float:
    wrong = 0
    for tr, te in folds:
        est.fit(data.X[tr], data.y[tr])
        wrong += int(np.sum(est.predict(data.X[te]) != data.y[te]))
    return 100.0 * wrong / data.n_samples


def readings(a, table) -> None:
    rows = []
    for name in a.sets:
        data = load_uci(name)
        cv = StratifiedKFold(10, random_state=a.seed)
        folds = [(tr, te) for _, _, tr, te in cv.indices(data.y)]
        row = {"set": name, "paper Coalescence": table.loc[SETS[name], "coalescence"],
               "paper RF": table.loc[SETS[name], "random_forests"]}
        t0 = time.process_time()
        for label in a.readings:
            est = Coalescence(n_estimators=a.trees, categorical_features=data.categorical_features,
                              random_state=a.seed, **READINGS[label])
            row[f"Coalescence {label}"] = cv_error(est, data, folds)
        if a.rf:
            for combine in ("average", "vote"):
                est = RandomForest(n_estimators=a.trees, combine=combine, random_state=a.seed,
                                   categorical_features=data.categorical_features)
                row[f"RF {combine}"] = cv_error(est, data, folds)
        rows.append(row)
        print(f"  {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in row.items() if k != "set")
              + f" ({time.process_time() - t0:.0f} s CPU)", flush=True)
    frame = pd.DataFrame(rows).set_index("set")
    mean = frame.mean().rename("mean")
    gap = {}
    for c in frame.columns:
        if c.startswith("Coalescence"):
            gap[c] = (frame[c] - frame["paper Coalescence"]).mean()
        elif c.startswith("RF"):
            gap[c] = (frame[c] - frame["paper RF"]).mean()
    gap = pd.Series(gap, name="mean (treelab - paper)")
    print("\n" + pd.concat([frame, mean.to_frame().T, gap.to_frame().T]).round(2)
          .to_markdown())
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


def encoding(table: pd.DataFrame) -> None:
    """Gap to the paper (treelab - paper, Table 3's stored full-mode run) of Coalescence and
    RF on the sets whose bundle copy numbers a numeric column with missing values in string
    order (the index's notes say so), beside the other comparable sets."""
    import json

    from treelab.datasets import find_uci_root
    from treelab.reproduce.liu2008 import NOT_COMPARABLE, PRINTED

    table = table.rename(index=PRINTED)

    notes = {e["name"]: " ".join(e.get("notes", [])) for e in
             json.loads((find_uci_root() / "index.json").read_text())}
    folds = pd.read_csv(Path(__file__).resolve().parents[1] / "data" / "reproductions"
                        / "liu2008" / "table3_folds.csv")
    mine = folds.groupby(["dataset", "ensemble"])["error"].mean().unstack()
    rows = []
    for paper, name in BUNDLE.items():
        if paper not in table.index or paper not in mine.index or paper in NOT_COMPARABLE:
            continue
        coded = isinstance(name, str) and "sorting the values as strings" in notes.get(name, "")
        rows.append({"set": paper, "string-ordered": coded,
                     "Coalescence": mine.loc[paper, "Coalescence"] - table.loc[paper,
                                                                               "coalescence"],
                     "RF": mine.loc[paper, "Random Forests"] - table.loc[paper,
                                                                         "random_forests"]})
    t = pd.DataFrame(rows).set_index("set")
    print("string-ordered sets:", ", ".join(t.index[t["string-ordered"]]))
    print("| sets | n | Coalescence gap | RF gap |\n|---|---|---|---|")
    for flag, label in ((True, "numeric columns with missing values in string order"),
                        (False, "the other comparable sets")):
        g = t[t["string-ordered"] == flag]
        print(f"| {label} | {len(g)} | {g['Coalescence'].mean():+.2f} | {g['RF'].mean():+.2f} |")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="readings",
                    choices=["readings", "ranks", "datasets", "dna", "encoding"])
    ap.add_argument("--table", help="Table 3 CSV (default: data/papers or the shared copy)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--readings", nargs="+", default=list(READINGS), choices=list(READINGS))
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-rf", dest="rf", action="store_false")
    ap.add_argument("--json", help="write the rows to this file")
    a = ap.parse_args(argv)
    table = load_table(a.table)
    if a.part == "ranks":
        ranks(table)
    elif a.part == "datasets":
        datasets()
    elif a.part == "dna":
        dna(a)
    elif a.part == "encoding":
        encoding(table)
    else:
        readings(a, table)


if __name__ == "__main__":
    main()
