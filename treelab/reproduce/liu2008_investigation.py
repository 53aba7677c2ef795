"""Liu, Ting, Yu & Zhou (2008), Table 3: why Coalescence does not rank first in treelab.

The investigation behind the claims section of the study's page
(``docs/reproductions/claims/liu2008.md``). Each part is a function that returns its table;
:func:`main` is the command line (``treelab investigate liu2008 PART`` or
``python -m treelab.reproduce.liu2008_investigation PART``), which prints them as Markdown.

* :func:`ranks`: from the paper's own Table 3 (its printed rows), the average ranks of the
  methods and how stable the first place is: the share of bootstrap resamples of the data
  sets in which each method has the best average rank, with and without C5 boosting; the
  Nemenyi critical difference at 0.05 for that many methods and sets.
* :func:`datasets`: the bundle's counterpart of every Table 6 data set (Appendix A: size,
  attributes, classes) beside the paper's, flagging those that differ (another target or other
  attributes make the paper's error and treelab's incomparable).
* :func:`dna`: Coalescence and Max-Diverse Ensemble on dna as the bundle holds it (180 binary
  indicators, three per position) and as the paper's Table 6 describes it (60 nominal
  attributes with 4 values; the indicators 100, 010, 001, 000 decoded to A, C, G, T), by
  stratified cross-validation, beside the paper's Table 3 values.
* :func:`encoding`: the gap to the paper of Coalescence and RF (the stored full-mode Table 3)
  on the sets whose bundle copy numbers a numeric column with missing values in string order,
  beside the other comparable sets.
* :func:`readings` (the command line's default): 10-fold stratified cross-validation (one
  seed) on a subset of the bundle's sets that are in Table 3, error (%) of Coalescence under
  each reading of the paper's VR-Tree in :data:`READINGS`, and of Random Forests with averaged
  probabilities (treelab's default) and with majority votes (R's ``randomForest``, the paper's
  implementation), beside the paper's value.

Usage::

    nice -n 19 treelab investigate liu2008 ranks
    nice -n 19 treelab investigate liu2008 readings --sets sonar glass --readings default uniform
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from treelab.report._render import to_markdown
from treelab.reproduce._papers import paper_table

__all__ = ["BUNDLE", "READINGS", "SETS", "datasets", "dna", "encoding", "load_table", "main",
           "ranks", "readings"]

#: the stored full-mode results of the study in a checkout (``data/reproductions/liu2008``)
STORED = Path(__file__).resolve().parents[2] / "data" / "reproductions" / "liu2008"
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
#: the readings of the paper's VR-Tree that :func:`readings` compares: name -> Coalescence
#: parameters. ``default``: treelab's Coalescence as the reproduction runs it (C4.5 gain ratio,
#: n_min 4, pair-midpoint random thresholds, curtailment at 2 rows); ``uniform``: random
#: thresholds uniform between the node's minimum and maximum; ``distinct``: Algorithm 2's two
#: values drawn over the node's distinct values, not its rows; ``nmin5``: a node needs 5 rows
#: to split (section 6: trees stop at "four or less"); ``no-c45``: gain ratio without C4.5's
#: average-gain filter and continuous-gain correction; ``curtail1``: leaf estimates from any
#: leaf with at least one row.
READINGS = {
    "default": {},
    "uniform": {"random_split": "uniform"},
    "distinct": {"random_split": "pair_distinct"},
    "nmin5": {"min_samples_split": 5},
    "no-c45": {"c45": False},
    "curtail1": {"curtail_min": 1},
}


def load_table(path: str | Path | None = None) -> pd.DataFrame:
    """The paper's Table 3 (errors in %, one row per printed data set, without the mean row
    and the C5.0 note): the shipped ``liu2008_table3``, or a CSV with the same columns."""
    t = pd.read_csv(path) if path is not None else paper_table("liu2008_table3")
    t = t.set_index("dataset").drop(index="mean", errors="ignore")
    return t.drop(columns=[c for c in t.columns if c == "note"]).apply(
        pd.to_numeric, errors="coerce")


def ranks(table: pd.DataFrame | None = None, boot: int = 2000, seed: int = 0
          ) -> dict[str, pd.DataFrame]:
    """Average ranks over the rows of Table 3 and the stability of the first place.

    For the methods with and without C5 boosting: each method's mean error, its average rank
    (rank 1 = lowest error, ties averaged) and the share of ``boot`` bootstrap resamples of
    the data sets in which it has the best average rank. Each frame's ``attrs`` hold the
    Nemenyi critical difference at 0.05, :math:`q_{0.05}(k, \\infty) / \\sqrt{2} \\cdot
    \\sqrt{k (k + 1) / (6 n)}` (Demsar 2006), and the number of data sets ``n``.

    Parameters
    ----------
    table : DataFrame, optional
        Table 3 as :func:`load_table` returns it (default: the shipped table).
    boot : int
        Bootstrap resamples.
    seed : int
        Seed of the resampling.

    Returns
    -------
    dict of str to DataFrame
        ``"all methods"`` and ``"without C5 boosting"``, sorted by average rank.
    """
    from scipy.stats import studentized_range

    if boot < 1:
        raise ValueError(f"boot must be a positive number of resamples, got {boot}")
    t = (load_table() if table is None else table).dropna()
    out = {}
    for label, cols in (("all methods", list(t.columns)),
                        ("without C5 boosting", [c for c in t.columns if c != "c5_boost"])):
        avg = t[cols].rank(axis=1).mean().sort_values()
        rng = np.random.default_rng(seed)
        top = dict.fromkeys(cols, 0)
        for _ in range(boot):
            r = t[cols].iloc[rng.integers(0, len(t), len(t))].rank(axis=1).mean()
            top[r.idxmin()] += 1
        k, n = len(cols), len(t)
        frame = pd.DataFrame({"mean error": t[avg.index].mean(), "average rank": avg,
                              "best rank in bootstrap resamples": [top[c] / boot
                                                                   for c in avg.index]})
        frame.index.name = "method"
        frame.attrs["critical_difference"] = float(
            studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * n)))
        frame.attrs["n"] = n
        out[label] = frame
    return out


def _n_attributes(text: object) -> int | None:
    """The attribute count of a Table 6 cell such as ``"9n, 6c"`` (None when not printed)."""
    if not isinstance(text, str):
        return None
    return sum(int(x.strip()[:-1]) for x in text.split(","))


def datasets() -> pd.DataFrame:
    """Every Table 6 set the bundle holds: the bundle's size, attributes and classes beside
    the paper's, and whether all three agree."""
    from treelab.datasets import load_uci

    t6 = paper_table("liu2008_table6").set_index("dataset")
    rows = []
    for paper, name in BUNDLE.items():
        d = load_uci(name)
        row = t6.loc[paper]
        n_att = _n_attributes(row["n_attributes"])
        n_cls = int(row["n_classes"]) if pd.notna(row["n_classes"]) else None
        same = (d.n_samples == int(row["size"]) and (n_att is None or d.n_features == n_att)
                and (n_cls is None or len(d.classes) == n_cls))
        rows.append({"paper set": paper, "bundle set": name,
                     "size (paper)": f"{d.n_samples} ({row['size']})",
                     "attributes (paper)": f"{d.n_features} ({row['n_attributes']})",
                     "classes (paper)": f"{len(d.classes)} ({row['n_classes']})",
                     "same?": "yes" if same else "NO"})
    return pd.DataFrame(rows).set_index("paper set")


def cv_error(est, data, folds) -> float:
    """Error (%) of ``est`` over the test rows of ``folds`` (each row tested once)."""
    wrong = 0
    for tr, te in folds:
        est.fit(data.X[tr], data.y[tr])
        wrong += int(np.sum(est.predict(data.X[te]) != data.y[te]))
    return 100.0 * wrong / data.n_samples


def dna(trees: int = 100, seed: int = 0, n_folds: int = 10) -> pd.DataFrame:
    """Coalescence and Max-Diverse Ensemble (``trees`` trees, ``n_folds``-fold stratified CV)
    on dna as 180 binary indicators (the bundle) and as 60 nominal attributes with 4 values
    (Table 6), below the paper's Table 3 values (error %)."""
    from treelab import Coalescence, MaxDiverseEnsemble
    from treelab.datasets import load_uci
    from treelab.protocols import StratifiedKFold

    data = load_uci("dna")
    cube = data.X.reshape(data.n_samples, 60, 3)
    nominal = np.where(cube.sum(axis=2) == 0, 3, cube.argmax(axis=2)).astype(np.float64)
    cv = StratifiedKFold(n_folds, random_state=seed)
    folds = [(tr, te) for _, _, tr, te in cv.indices(data.y)]
    row = paper_table("liu2008_table3").set_index("dataset").loc["dna"]
    rows = {"paper (Table 3)": [float(row["coalescence"]), float(row["agg_vrtrees_alpha0"])]}
    for label, X in (("180 binary indicators (bundle)", data.X),
                     ("60 nominal, 4 values", nominal)):
        d = dataclasses.replace(data, X=X, feature_types=("nominal",) * X.shape[1],
                                feature_names=tuple(f"f{j}" for j in range(X.shape[1])))
        rows[label] = [cv_error(cls(n_estimators=trees, categorical_features=list(
            range(X.shape[1])), random_state=seed), d, folds)
            for cls in (Coalescence, MaxDiverseEnsemble)]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["Coalescence", "Max-Diverse"])
    frame.index.name = "dna as"
    return frame


def readings(sets: Sequence[str] = tuple(SETS), names: Sequence[str] = tuple(READINGS),
             trees: int = 100, seed: int = 0, rf: bool = True, n_folds: int = 10,
             table: pd.DataFrame | None = None, progress: bool = False) -> pd.DataFrame:
    """Error (%) of Coalescence under each reading ``names`` of :data:`READINGS` (and of RF
    with averaged probabilities and with majority votes when ``rf``) on each bundle set of
    ``sets`` (keys of :data:`SETS`), beside the paper's; then the mean row and the mean of
    treelab - paper per column."""
    from treelab import Coalescence, RandomForest
    from treelab.datasets import load_uci
    from treelab.protocols import StratifiedKFold

    unknown = [s for s in sets if s not in SETS] + [r for r in names if r not in READINGS]
    if unknown:
        raise ValueError(f"sets/readings not investigated: {unknown} (sets: {list(SETS)}; "
                         f"readings: {list(READINGS)})")
    table = load_table() if table is None else table
    rows = []
    for name in sets:
        data = load_uci(name)
        cv = StratifiedKFold(n_folds, random_state=seed)
        folds = [(tr, te) for _, _, tr, te in cv.indices(data.y)]
        row = {"set": name, "paper Coalescence": table.loc[SETS[name], "coalescence"],
               "paper RF": table.loc[SETS[name], "random_forests"]}
        t0 = time.process_time()
        for label in names:
            est = Coalescence(n_estimators=trees, categorical_features=data.categorical_features,
                              random_state=seed, **READINGS[label])
            row[f"Coalescence {label}"] = cv_error(est, data, folds)
        if rf:
            for combine in ("average", "vote"):
                est = RandomForest(n_estimators=trees, combine=combine, random_state=seed,
                                   categorical_features=data.categorical_features)
                row[f"RF {combine}"] = cv_error(est, data, folds)
        rows.append(row)
        if progress:
            print(f"  {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in row.items()
                                            if k != "set")
                  + f" ({time.process_time() - t0:.0f} s CPU)", flush=True)
    frame = pd.DataFrame(rows).set_index("set")
    mean = frame.mean().rename("mean")
    gap = {}
    for c in frame.columns:
        if c.startswith("Coalescence"):
            gap[c] = (frame[c] - frame["paper Coalescence"]).mean()
        elif c.startswith("RF"):
            gap[c] = (frame[c] - frame["paper RF"]).mean()
    return pd.concat([frame, mean.to_frame().T,
                      pd.Series(gap, name="mean (treelab - paper)").to_frame().T])


def encoding(table: pd.DataFrame | None = None, stored: str | Path = STORED) -> pd.DataFrame:
    """Mean gap to the paper (treelab - paper, the stored full-mode Table 3 under ``stored``)
    of Coalescence and RF on the sets whose bundle copy numbers a numeric column with missing
    values in string order (the bundle index's notes say so), beside the other comparable
    sets (the generated ones, threeOf9 and balance, among them: they have no missing value);
    ``attrs["string_ordered"]`` names those sets."""
    from treelab.datasets import find_uci_root
    from treelab.reproduce.liu2008 import NOT_COMPARABLE, PRINTED

    table = (load_table() if table is None else table).rename(index=PRINTED)
    notes = {e["name"]: " ".join(e.get("notes", [])) for e in
             json.loads((find_uci_root() / "index.json").read_text())}
    folds = pd.read_csv(Path(stored) / "table3_folds.csv")
    mine = folds.groupby(["dataset", "ensemble"])["error"].mean().unstack()
    rows = []
    for paper in mine.index:
        if paper not in table.index or paper in NOT_COMPARABLE:
            continue
        name = BUNDLE.get(paper, "")
        rows.append({"set": paper,
                     "string-ordered": "sorting the values as strings" in notes.get(name, ""),
                     "Coalescence": mine.loc[paper, "Coalescence"]
                     - table.loc[paper, "coalescence"],
                     "RF": mine.loc[paper, "Random Forests"] - table.loc[paper,
                                                                         "random_forests"]})
    t = pd.DataFrame(rows).set_index("set")
    out = []
    for flag, label in ((True, "numeric columns with missing values in string order"),
                        (False, "the other comparable sets")):
        g = t[t["string-ordered"] == flag]
        out.append({"sets": label, "n": len(g), "Coalescence gap": g["Coalescence"].mean(),
                    "RF gap": g["RF"].mean()})
    frame = pd.DataFrame(out).set_index("sets")
    frame.attrs["string_ordered"] = list(t.index[t["string-ordered"]])
    return frame


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: run one part and print its table as Markdown."""
    ap = argparse.ArgumentParser(prog="treelab investigate liu2008",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="readings",
                    choices=["readings", "ranks", "datasets", "dna", "encoding"])
    ap.add_argument("--table", help="Table 3 CSV (default: the shipped data/papers table)")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--readings", nargs="+", default=list(READINGS), choices=list(READINGS))
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boot", type=int, default=2000, help="ranks: bootstrap resamples")
    ap.add_argument("--no-rf", dest="rf", action="store_false")
    ap.add_argument("--json", help="readings: write the rows to this file")
    a = ap.parse_args(argv)
    table = load_table(a.table)
    if a.part == "ranks":
        for frame in ranks(table, boot=a.boot, seed=a.seed).values():
            print(f"\n{len(frame)} methods, {frame.attrs['n']} data sets; Nemenyi CD (0.05) = "
                  f"{frame.attrs['critical_difference']:.2f}")
            print(to_markdown(frame.round(2)))
    elif a.part == "datasets":
        print(to_markdown(datasets()))
    elif a.part == "dna":
        print(to_markdown(dna(trees=a.trees, seed=a.seed).round(1)))
    elif a.part == "encoding":
        frame = encoding(table)
        print("string-ordered sets:", ", ".join(frame.attrs["string_ordered"]))
        print(to_markdown(frame.round(2)))
    else:
        frame = readings(a.sets, a.readings, trees=a.trees, seed=a.seed, rf=a.rf, table=table,
                         progress=True)
        print("\n" + to_markdown(frame.round(2)))
        if a.json:
            Path(a.json).write_text(frame.reset_index().to_json(orient="records", indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
