"""Gashler, Giraud-Carrier & Martinez (2008): MMDT under irrelevant attributes and by density.

The investigation behind the claims section of the study's page
(``docs/reproductions/claims/gashler2008.md``). Each part is a function that returns its
table; :func:`main` is the command line (``treelab investigate gashler2008 PART`` or
``python -m treelab.reproduce.gashler2008_investigation PART``), which prints them as Markdown.

* :func:`density`: the paper's sample-density claim (bagged MMDT beats bagged entropy trees on
  most of the densest sets and few of the sparsest; the counts are the shipped
  ``gashler2008_density_textcounts``) read two ways over treelab's 48-set result (the first
  "Measured" table of ``docs/reproductions/mmdt.md``, 100 trees, 5 x 2 CV, or another page
  with the same columns): (A) "densest" = fewest grid cells per row, i.e. the smallest value
  of prod(arity) / n (the paper's stated intent: means are estimated better from dense
  samples), and (B) "densest" = the largest value of the quantity as the paper prints it,
  prod(arity) / n (cells per row). MMDT's wins in each group.
* :func:`noise` (the command line's default): vowel with k = 0, 1, 2, 4, ..., 64 N(0, 1)
  columns (:func:`treelab.datasets.add_irrelevant`), bagged entropy trees (ERDT) and bagged
  MMDT under ``scale="standard"`` (treelab's default) and ``scale=None`` (the paper's
  Figure 1, which normalises nothing), by repeated stratified 2-fold CV; then
  :func:`noise_fit`, the least squares line of accuracy on log2(k + 1) per model (the paper:
  "a nearly linear decrease in accuracy with an exponential increase in the number of
  irrelevant attributes"): slope per doubling, r^2, and the accuracy at each k.

Usage::

    nice -n 19 treelab investigate gashler2008 density
    nice -n 19 treelab investigate gashler2008 noise --trees 50 --repeats 1
    nice -n 19 treelab investigate gashler2008 noise --ks 0 16 64 \\
        --features 3 4 5 6 7 8 9 10 11 12
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

__all__ = ["KS", "MMDT_PAGE", "density", "main", "noise", "noise_fit", "paper_counts",
           "read_table"]

#: the page of treelab's 48-set MMDT comparison in a checkout
MMDT_PAGE = Path(__file__).resolve().parents[2] / "docs" / "reproductions" / "mmdt.md"
#: irrelevant attributes added to vowel by default
KS = (0, 1, 2, 4, 8, 16, 32, 64)
GROUPS = ("densest half", "densest quarter", "densest eighth", "sparsest half")


def paper_counts() -> dict[str, tuple[int, int]]:
    """group -> (MMDT better, sets in the group): the paper's counts (data/papers)."""
    t = paper_table("gashler2008_density_textcounts").set_index("group")
    return {g: (int(t.loc[g, "n_data_sets_first_better"]), int(t.loc[g, "n_data_sets_in_group"]))
            for g in GROUPS}


def read_table(path: str | Path = MMDT_PAGE) -> list[tuple]:
    """(set, log10 density, entropy trees, MMDT raw, minmax, standard) of the first table of
    the page ``path`` that has those columns."""
    rows, on = [], False
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.startswith("| data set | log10 density | entropy trees"):
            if rows:
                break
            on = True
            continue
        if on:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].startswith("---"):
                continue
            rows.append((cells[0], *map(float, cells[1:6])))
    if not rows:
        raise ValueError(f"{path} has no table with the columns 'data set | log10 density | "
                         "entropy trees | ...'")
    return rows


def density(path: str | Path = MMDT_PAGE) -> pd.DataFrame:
    """MMDT's wins (accuracy above bagged entropy trees) per density group, both readings of
    "densest", for each of MMDT's three scalings, beside the paper's counts.

    The sets are ordered by the table's log10 density (prod(arity) / n, cells per row);
    reading A takes the groups from the low end (fewest cells per row first), reading B from
    the high end. The halves are n // 2 sets, the quarter n // 4 and the eighth n // 8; the
    sparsest half is the rest after the densest half.
    """
    rows = sorted(read_table(path), key=lambda r: r[1])
    n = len(rows)
    paper = paper_counts()
    out = []
    for reading, dense_first in (("A: fewest cells per row", True),
                                 ("B: most cells per row (as printed)", False)):
        order = rows if dense_first else rows[::-1]
        groups = {"densest half": order[: n // 2], "densest quarter": order[: n // 4],
                  "densest eighth": order[: n // 8], "sparsest half": order[n // 2:]}
        for g, sub in groups.items():
            cells = {name: f"{sum(r[c] > r[2] for r in sub)} of {len(sub)}"
                     for name, c in (("MMDT raw", 3), ("MMDT minmax", 4), ("MMDT standard", 5))}
            out.append({"group": g, "paper": f"{paper[g][0]} of {paper[g][1]}",
                        "reading": reading, **cells})
    frame = pd.DataFrame(out).set_index("group")
    frame.attrs["n"] = n
    return frame


def _keep(data, cols):
    """The data set with only the columns ``cols``."""
    cols = list(cols)
    return dataclasses.replace(
        data, X=data.X[:, cols], feature_types=tuple(data.feature_types[c] for c in cols),
        feature_names=tuple(data.feature_names[c] for c in cols))


def models(trees: int, seed: int) -> dict:
    """The three ensembles :func:`noise` compares, unfitted."""
    from treelab import BaggedMMDT, BaggedTrees

    return {"ERDT": BaggedTrees(n_estimators=trees, criterion="entropy", c45=False,
                                min_objs=1, min_samples_split=2, curtail_min=1,
                                random_state=seed),
            "MMDT standard": BaggedMMDT(n_estimators=trees, scale="standard", random_state=seed),
            "MMDT none": BaggedMMDT(n_estimators=trees, scale=None, random_state=seed)}


def noise(name: str = "vowel", ks: Sequence[int] = KS, features: Sequence[int] | None = None,
          trees: int = 50, repeats: int = 1, progress: bool = False) -> pd.DataFrame:
    """Accuracy of each model of :func:`models` on the bundle's set ``name`` (only the
    columns ``features`` when given) with k N(0, 1) columns added, for each k of ``ks``, on
    every fold of ``repeats`` x stratified 2-fold CV.

    Returns
    -------
    DataFrame
        One row per (model, k, repeat, fold), column ``accuracy``.
    """
    from treelab.datasets import add_irrelevant, load_uci
    from treelab.protocols import StratifiedKFold

    if any(k < 0 for k in ks) or repeats < 1 or trees < 1:
        raise ValueError(f"ks must be >= 0, repeats and trees >= 1; got ks={list(ks)}, "
                         f"repeats={repeats}, trees={trees}")
    base = load_uci(name)
    if features:
        base = _keep(base, features)
    rows = []
    for k in ks:
        t0 = time.process_time()
        for rep in range(repeats):
            data = add_irrelevant(base, k, random_state=rep) if k else base
            for fold, (_, _, tr, te) in enumerate(
                    StratifiedKFold(2, random_state=rep).indices(data.y)):
                for model, est in models(trees, rep).items():
                    est.set_params(categorical_features=data.categorical_features)
                    est.fit(data.X[tr], data.y[tr])
                    rows.append({"model": model, "k": int(k), "repeat": rep, "fold": fold,
                                 "accuracy": float(np.mean(est.predict(data.X[te])
                                                           == data.y[te]))})
        if progress:
            done = pd.DataFrame(rows)
            means = done[done["k"] == k].groupby("model", sort=False)["accuracy"].mean()
            print(f"  k = {k}: " + ", ".join(f"{m} {v:.3f}" for m, v in means.items())
                  + f" ({time.process_time() - t0:.0f} s CPU)", flush=True)
    return pd.DataFrame(rows).set_index(["model", "k", "repeat", "fold"])


def noise_fit(accuracy: pd.DataFrame) -> pd.DataFrame:
    """Per model: the mean accuracy at each k, and the least squares line of the mean
    accuracy on :math:`x = \\log_2(k + 1)`, its slope (accuracy per doubling) and
    :math:`r^2 = 1 - \\sum (y - \\hat y)^2 / \\sum (y - \\bar y)^2` (needs two k or more)."""
    means = accuracy["accuracy"].groupby(level=["model", "k"], sort=False).mean().unstack("k")
    x = np.log2(np.asarray(means.columns, dtype=float) + 1)
    if len(x) < 2:
        raise ValueError("the line needs accuracies at two numbers of irrelevant attributes "
                         "or more")
    out = means.rename(columns=lambda k: f"k={k}")
    slopes, r2s = [], []
    for _, y in means.iterrows():
        y = y.to_numpy()
        slope, icept = np.polyfit(x, y, 1)
        ss = np.sum((y - y.mean()) ** 2)
        slopes.append(float(slope))
        r2s.append(float(1 - np.sum((y - (icept + slope * x)) ** 2) / ss) if ss > 0
                   else float("nan"))
    out["slope per doubling"] = slopes
    out["r^2"] = r2s
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: run one part and print its table as Markdown."""
    ap = argparse.ArgumentParser(prog="treelab investigate gashler2008",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="noise", choices=["noise", "density"])
    ap.add_argument("--table", help="markdown page with the 48-set table (default: mmdt.md)")
    ap.add_argument("--set", default="vowel")
    ap.add_argument("--ks", nargs="+", type=int, default=list(KS))
    ap.add_argument("--features", nargs="+", type=int,
                    help="keep only these columns of the set (e.g. vowel's 10 LPC features: "
                         "3 4 ... 12)")
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", help="noise: write the accuracies to this file")
    a = ap.parse_args(argv)
    if a.part == "density":
        frame = density(a.table or MMDT_PAGE)
        print(f"{frame.attrs['n']} sets; MMDT wins (accuracy above bagged entropy trees) / "
              "sets in the group")
        print(to_markdown(frame))
        return 0
    acc = noise(a.set, a.ks, a.features, a.trees, a.repeats, progress=True)
    print(f"\n{a.set}, {a.trees} trees, {a.repeats} x 2-fold CV; line of accuracy on "
          "log2(k + 1)")
    print(to_markdown(noise_fit(acc).round(3)))
    if a.json:
        per = acc["accuracy"].groupby(level=["model", "k"], sort=False).agg(list)
        Path(a.json).write_text(json.dumps(
            {m: {str(k): per[(m, k)] for k in a.ks} for m in per.index.unique("model")},
            indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
