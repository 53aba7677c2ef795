"""Gashler, Giraud-Carrier & Martinez (2008): MMDT under irrelevant attributes and by density.

Investigates the claims of ``docs/reproductions/claims/gashler2008.md``. Two parts:

``density``: the paper's sample-density claim (bagged MMDT beats bagged entropy trees on 10 of
the 22 densest sets, 8 of the 11 densest, 5 of the 6 densest, 7 of the 21 sparsest) read two
ways over treelab's 48-set result (the first "Measured" table of ``docs/reproductions/mmdt.md``,
100 trees, 5 x 2 CV; or ``--table`` with the same columns): (A) "densest" = fewest grid cells
per row, i.e. the smallest value of prod(arity) / n (the paper's stated intent: means are
estimated better from dense samples), and (B) "densest" = the largest value of the quantity as
the paper prints it, prod(arity) / n (cells per row). Prints MMDT's wins in each group.

``noise`` (default): vowel with k = 0, 1, 2, 4, ..., 64 N(0, 1) columns
(:func:`treelab.datasets.add_irrelevant`), bagged entropy trees (ERDT) and bagged MMDT under
``scale="standard"`` (treelab's default) and ``scale=None`` (the paper's Figure 1, which
normalises nothing), ``--trees`` trees, ``--repeats`` x stratified 2-fold CV; then the least
squares line of accuracy on log2(k + 1) per model (the paper: "a nearly linear decrease in
accuracy with an exponential increase in the number of irrelevant attributes"): slope per
doubling, r^2, and the accuracy at k = 0 and 64.

Usage::

    nice -n 19 python benchmarks/claims_gashler.py density
    nice -n 19 python benchmarks/claims_gashler.py noise --trees 50 --repeats 1
    nice -n 19 python benchmarks/claims_gashler.py noise --ks 0 16 64 \
        --features 3 4 5 6 7 8 9 10 11 12
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from treelab import BaggedMMDT, BaggedTrees
from treelab.datasets import add_irrelevant, load_uci
from treelab.protocols import StratifiedKFold

MMDT_PAGE = Path(__file__).resolve().parents[1] / "docs" / "reproductions" / "mmdt.md"
KS = (0, 1, 2, 4, 8, 16, 32, 64)


def _paper_counts() -> dict[str, tuple[int, int]]:
    """group -> (MMDT better, sets in the group): the paper's counts (data/papers)."""
    from treelab.reproduce import paper_table

    t = paper_table("gashler2008_density_textcounts").set_index("group")
    return {g: (int(t.loc[g, "n_data_sets_first_better"]), int(t.loc[g, "n_data_sets_in_group"]))
            for g in ("densest half", "densest quarter", "densest eighth", "sparsest half")}


PAPER = _paper_counts()


def read_table(path: Path) -> list[tuple]:
    """(set, log10 density, entropy trees, MMDT raw, minmax, standard) of the first table."""
    rows, on = [], False
    for line in path.read_text().splitlines():
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
    return rows


def density(a) -> None:
    rows = sorted(read_table(Path(a.table) if a.table else MMDT_PAGE), key=lambda r: r[1])
    n = len(rows)
    print(f"{n} sets; MMDT wins (accuracy above bagged entropy trees) / sets in the group")
    print("| group | paper | reading | MMDT raw | MMDT minmax | MMDT standard |")
    print("|---|---|---|---|---|---|")
    for reading, dense_first in (("A: fewest cells per row", True),
                                 ("B: most cells per row (as printed)", False)):
        order = rows if dense_first else rows[::-1]
        groups = {"densest half": order[: n // 2], "densest quarter": order[: n // 4],
                  "densest eighth": order[: n // 8], "sparsest half": order[n // 2:]}
        for g, sub in groups.items():
            cells = [f"{sum(r[c] > r[2] for r in sub)} of {len(sub)}" for c in (3, 4, 5)]
            print(f"| {g} | {PAPER[g][0]} of {PAPER[g][1]} | {reading} | " + " | ".join(cells)
                  + " |")


def _keep(data, cols):
    """The data set with only the columns ``cols``."""
    import dataclasses

    cols = list(cols)
    return dataclasses.replace(
        data, X=data.X[:, cols], feature_types=tuple(data.feature_types[c] for c in cols),
        feature_names=tuple(data.feature_names[c] for c in cols))


def models(trees: int, seed: int) -> dict:
    return {"ERDT": BaggedTrees(n_estimators=trees, criterion="entropy", c45=False,
                                min_objs=1, min_samples_split=2, curtail_min=1,
                                random_state=seed),
            "MMDT standard": BaggedMMDT(n_estimators=trees, scale="standard", random_state=seed),
            "MMDT none": BaggedMMDT(n_estimators=trees, scale=None, random_state=seed)}


def noise(a) -> None:
    base = load_uci(a.set)
    if a.features:
        base = _keep(base, a.features)
    acc: dict[str, dict[int, list]] = {}
    for k in a.ks:
        t0 = time.process_time()
        for rep in range(a.repeats):
            data = add_irrelevant(base, k, random_state=rep) if k else base
            for _, _, tr, te in StratifiedKFold(2, random_state=rep).indices(data.y):
                for name, est in models(a.trees, rep).items():
                    est.set_params(categorical_features=data.categorical_features)
                    est.fit(data.X[tr], data.y[tr])
                    acc.setdefault(name, {}).setdefault(k, []).append(
                        float(np.mean(est.predict(data.X[te]) == data.y[te])))
        print(f"  k = {k}: " + ", ".join(f"{m} {np.mean(v[k]):.3f}" for m, v in acc.items())
              + f" ({time.process_time() - t0:.0f} s CPU)", flush=True)
    ks = np.array(a.ks, dtype=float)
    x = np.log2(ks + 1)
    print(f"\n{a.set}, {a.trees} trees, {a.repeats} x 2-fold CV; line of accuracy on "
          "log2(k + 1)")
    print("| model | " + " | ".join(f"k={int(k)}" for k in ks)
          + " | slope per doubling | r^2 |")
    print("|---|" + "---|" * (len(ks) + 2))
    for name, per_k in acc.items():
        y = np.array([np.mean(per_k[int(k)]) for k in ks])
        slope, icept = np.polyfit(x, y, 1)
        r2 = 1 - np.sum((y - (icept + slope * x)) ** 2) / np.sum((y - y.mean()) ** 2)
        print(f"| {name} | " + " | ".join(f"{v:.3f}" for v in y)
              + f" | {slope:+.3f} | {r2:.2f} |")
    if a.json:
        Path(a.json).write_text(json.dumps({m: {str(k): v for k, v in d.items()}
                                            for m, d in acc.items()}, indent=1))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="noise", choices=["noise", "density"])
    ap.add_argument("--table", help="markdown page with the 48-set table (default: mmdt.md)")
    ap.add_argument("--set", default="vowel")
    ap.add_argument("--ks", nargs="+", type=int, default=list(KS))
    ap.add_argument("--features", nargs="+", type=int,
                    help="keep only these columns of the set (e.g. vowel's 10 LPC features: "
                         "3 4 ... 12)")
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", help="write the accuracies to this file")
    a = ap.parse_args(argv)
    (density if a.part == "density" else noise)(a)


if __name__ == "__main__":
    main()
