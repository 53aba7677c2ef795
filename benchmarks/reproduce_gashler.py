"""Bagged MMDT vs bagged entropy trees under each input scaling (Gashler et al. 2008).

The paper compares 100 bagged MMDTs with 100 bagged entropy trees by 5x2 cross-validation over
UCI sets and reads the result by sample density; its Figure 5 adds k irrelevant N(0, 1)
attributes and compares bagged RDT, ERDT, MMDT and CVDT. This script runs both on the UCI bundle:

- comparison (default): bagged entropy trees and ``BaggedMMDT(scale=...)`` under every scaling;
- ``--noise``: k = 0, 1, 4, 16, 64 N(0, 1) columns, bagged RDT (complete-random trees), ERDT
  (entropy trees), MMDT (default scaling) and CVDT (2-fold CV between entropy tree and MMDT).

Protocol: ``--repeats`` r x stratified 2-fold CV (``treelab.protocols.StratifiedKFold``; r = 5
is the paper's 5x2 CV), ``--trees`` per ensemble, accuracy. ``--all`` runs every set of the
bundle (MMDT reads any of them: numeric columns as they are, nominal ones one-hot), cheapest
first. Each finished set (``--noise``: each set and k) is appended as one JSON line to ``--out``
with its per-fold accuracies; a run started again with the same file and settings skips what
the file already holds, so a stopped run resumes. At the end (or with ``--summary FILE``) the
script prints markdown tables: accuracy per set ordered by log10 sample density
(``treelab.analysis.sample_density``, analysis spec section 9), means per density quartile and
half, and per group the sets where each MMDT scaling beats bagged entropy trees (and those
where Alpaydin's combined 5x2cv F test finds the difference significant at 0.05).

Usage::

    python benchmarks/reproduce_gashler.py --all --out gashler.jsonl   # the paper's protocol
    python benchmarks/reproduce_gashler.py --all --noise --out gashler_noise.jsonl
    python benchmarks/reproduce_gashler.py --summary gashler.jsonl
    python benchmarks/reproduce_gashler.py --trees 25 --repeats 1 --sets wine iris glass
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import xarray as xr

from treelab import BaggedCVDT, BaggedMMDT, BaggedTrees
from treelab.analysis import sample_density
from treelab.datasets import add_irrelevant, list_uci, load_uci
from treelab.protocols import StratifiedKFold
from treelab.stats import five_by_two_cv_f

SETS = ["wine", "iris", "glass", "sonar", "ionosphere", "heart-statlog", "vote", "breast-w",
        "liver", "zoo", "hepatitis", "credit-a", "vowel", "segmentation"]
SCALES = {"raw": None, "minmax": "minmax", "standard": "standard"}
KS = (0, 1, 4, 16, 64)
BASELINE = "entropy trees"


def entropy_trees(trees: int, seed: int, n_jobs: int) -> BaggedTrees:
    """The paper's ERDT: bagged entropy trees grown to purity, without C4.5's details."""
    return BaggedTrees(n_estimators=trees, criterion="entropy", c45=False, min_objs=1,
                       min_samples_split=2, curtail_min=1, random_state=seed, n_jobs=n_jobs)


def comparison_models(trees: int, seed: int, n_jobs: int) -> dict:
    out = {BASELINE: entropy_trees(trees, seed, n_jobs)}
    for label, scale in SCALES.items():
        out[f"MMDT {label}"] = BaggedMMDT(n_estimators=trees, scale=scale, random_state=seed,
                                          n_jobs=n_jobs)
    return out


def noise_models(trees: int, seed: int, n_jobs: int) -> dict:
    return {"RDT": BaggedCVDT(n_estimators=trees, candidates=("random_tree",),
                              random_state=seed, n_jobs=n_jobs),
            "ERDT": entropy_trees(trees, seed, n_jobs),
            "MMDT": BaggedMMDT(n_estimators=trees, random_state=seed, n_jobs=n_jobs),
            "CVDT": BaggedCVDT(n_estimators=trees, random_state=seed, n_jobs=n_jobs)}


def cost(name: str) -> float:
    """A rough relative cost of a set (rows x real features), to run cheap sets first."""
    d = load_uci(name)
    cf = np.asarray(d.categorical_features)
    nominal = cf if cf.dtype == bool else np.isin(np.arange(d.n_features), cf)
    width = sum(int(np.nanmax(d.X[:, j])) + 1 if nominal[j] else 1
                for j in range(d.n_features))
    return float(d.n_samples * width)


def run_task(task: dict, models, log=print) -> dict:
    """Accuracy of every model on every fold of r x stratified 2-fold CV of one task.

    ``task`` holds ``set``, ``trees``, ``repeats``, ``seed``, ``n_jobs`` and, for the noise
    study, ``k``. Returns the task's JSON line: the task's keys, the set's ``log10_density``,
    ``n_samples``, ``accuracy`` {model: [[fold 0, fold 1] per repeat]} and ``seconds``.
    """
    data = load_uci(task["set"])
    density = float(sample_density(data, log10=True))
    if "k" in task:
        child = int(np.random.SeedSequence([task["seed"], task["k"]]).generate_state(1)[0])
        data = add_irrelevant(data, task["k"], random_state=child)
    protocol = StratifiedKFold(2, n_repeats=task["repeats"], random_state=task["seed"])
    acc: dict[str, list[list[float]]] = {}
    start = time.perf_counter()
    for repeat, fold, tr, te in protocol.indices(data.y):
        t0 = time.perf_counter()
        for label, est in models(task["trees"], task["seed"] + repeat, task["n_jobs"]).items():
            est.set_params(categorical_features=data.categorical_features)
            est.fit(data.X[tr], data.y[tr])
            score = float(est.score(data.X[te], data.y[te]))
            acc.setdefault(label, [[] for _ in range(task["repeats"])])[repeat].append(score)
        log(f"    repeat {repeat + 1}/{task['repeats']} fold {fold + 1}/2: "
            f"{time.perf_counter() - t0:.2f} s")
    return {**{k: v for k, v in task.items() if k != "n_jobs"}, "log10_density": density,
            "n_samples": data.n_samples, "accuracy": acc,
            "seconds": round(time.perf_counter() - start, 2)}


def task_key(line: dict) -> tuple:
    """What identifies a task's result in the JSON-lines file."""
    return (line["mode"], line["set"], line.get("k"), line["trees"], line["repeats"],
            line["seed"])


def read_lines(path: Path) -> list[dict]:
    """The JSON lines of ``path`` (none when it does not exist; a cut last line is dropped)."""
    if not path.exists():
        return []
    out = []
    for i, text in enumerate(path.read_text().splitlines()):
        if not text.strip():
            continue
        try:
            out.append(json.loads(text))
        except json.JSONDecodeError:
            print(f"{path}: line {i + 1} is not complete JSON (a stopped write?); ignored")
    return out


def run_all(tasks: list[dict], models, out: Path | None, log=print) -> list[dict]:
    """Run the tasks not yet in ``out``, appending each result as it finishes."""
    done = {task_key(line): line for line in (read_lines(out) if out else [])}
    if out and out.exists() and out.stat().st_size and not out.read_bytes().endswith(b"\n"):
        with out.open("a") as fh:  # a cut last line stays a line of its own, ignored
            fh.write("\n")
    todo = [t for t in tasks if task_key(t) not in done]
    if done:
        log(f"{out}: {len(tasks) - len(todo)} of {len(tasks)} tasks already done, resuming")
    start = time.perf_counter()
    results = [done[task_key(t)] for t in tasks if task_key(t) in done]
    for i, task in enumerate(todo):
        label = task["set"] + (f" k={task['k']}" if "k" in task else "")
        log(f"[{i + 1}/{len(todo)}] {label}")
        line = run_task(task, models, log)
        results.append(line)
        if out:
            with out.open("a") as fh:
                fh.write(json.dumps(line) + "\n")
        elapsed = time.perf_counter() - start
        log(f"  {label}: {line['seconds']:.1f} s; "
            + ", ".join(f"{m} {np.mean(a):.3f}" for m, a in line["accuracy"].items())
            + f"; {elapsed / 60:.1f} min so far")
    return results


def _mean(line: dict, model: str) -> float:
    return float(np.mean(line["accuracy"][model]))


def groups(lines: list[dict]) -> list[tuple[str, list[dict]]]:
    """Density quartiles (first = densest, the smallest log10 density), halves and all sets.
    Quartiles and halves split the sets ordered by density into near-equal parts."""
    rows = sorted(lines, key=lambda r: r["log10_density"])
    out = []
    for name, parts in (("quartile", 4), ("half", 2)):
        for i, part in enumerate(np.array_split(np.arange(len(rows)), parts)):
            if part.size:
                members = [rows[j] for j in part]
                lo, hi = members[0]["log10_density"], members[-1]["log10_density"]
                out.append((f"{name} {i + 1} of {parts} ({lo:.1f} to {hi:.1f})", members))
    out.append(("all", rows))
    return out


def significance(lines: list[dict], a: str, b: str) -> np.ndarray:
    """Per set, +1 / -1 where Alpaydin's combined 5x2cv F test finds a's accuracy
    significantly above / below b's (p < 0.05), else 0 (r x 2 folds, r >= 2)."""
    acc = np.array([[line["accuracy"][m] for m in (a, b)] for line in lines])
    if acc.shape[2] < 2:
        return np.zeros(len(lines), dtype=int)
    arr = xr.DataArray(acc, dims=("dataset", "ensemble", "repeat", "fold"),
                       coords={"dataset": [line["set"] for line in lines], "ensemble": [a, b]})
    test = five_by_two_cv_f(arr, a, b)
    sign = np.sign(test.mean_difference.values)
    return np.where(test.significant.values, sign, 0).astype(int)


def summarize(lines: list[dict]) -> str:
    """Markdown tables of the comparison: per set, per density group, wins over ERDT."""
    rows = sorted(lines, key=lambda r: r["log10_density"])
    models = list(rows[0]["accuracy"])
    r = len(rows[0]["accuracy"][models[0]])
    out = [f"{rows[0]['trees']} trees, {r} x stratified 2-fold CV, {len(rows)} sets, "
           f"{sum(x['seconds'] for x in rows) / 3600:.1f} h of computing", "",
           "| data set | log10 density | " + " | ".join(models) + " |",
           "|---|---|" + "---|" * len(models)]
    for x in rows:
        out.append(f"| {x['set']} | {x['log10_density']:.1f} | "
                   + " | ".join(f"{_mean(x, m):.3f}" for m in models) + " |")
    others = [m for m in models if m != BASELINE]
    sig = {m: significance(rows, m, BASELINE) for m in others}
    index = {x["set"]: i for i, x in enumerate(rows)}
    means = ["", "Mean accuracy by sample density:", "",
             "| sets by log10 density | n | " + " | ".join(models) + " |",
             "|---|---|" + "---|" * len(models)]
    wins = ["", f"Sets where bagged MMDT beats bagged {BASELINE} (significantly) / loses "
            "(significantly):", "", "| sets by log10 density | n | " + " | ".join(others) + " |",
            "|---|---|" + "---|" * len(others)]
    for name, members in groups(rows):
        means.append(f"| {name} | {len(members)} | " + " | ".join(
            f"{np.mean([_mean(x, m) for x in members]):.3f}" for m in models) + " |")
        cells = []
        for m in others:
            diff = np.array([_mean(x, m) - _mean(x, BASELINE) for x in members])
            s = sig[m][[index[x["set"]] for x in members]]
            cells.append(f"{int((diff > 0).sum())} ({int((s > 0).sum())}) / "
                         f"{int((diff < 0).sum())} ({int((s < 0).sum())})")
        wins.append(f"| {name} | {len(members)} | " + " | ".join(cells) + " |")
    out += means + wins
    out += ["", "Quartile 1 holds the sets of smallest log10 sample density (Gashler et al.'s "
            "prod(arity) / n: fewest grid cells per row); the paper's 'densest quarter', read "
            "as the largest sample density its formula gives, is quartile 4 "
            "(docs/reproductions/claims/gashler2008.md). Wins: sets where the model's mean "
            "accuracy is above bagged "
            "entropy trees'; in parentheses, those where the combined 5x2cv F test "
            "(Alpaydin 1999) finds the difference significant at 0.05."]
    return "\n".join(out)


def summarize_noise(lines: list[dict]) -> str:
    """Markdown table of the irrelevant-attribute study: per set and k, and the mean per k."""
    models = list(lines[0]["accuracy"])
    r = len(lines[0]["accuracy"][models[0]])
    out = [f"{lines[0]['trees']} trees, {r} x stratified 2-fold CV",
           "", "| data set | k | " + " | ".join(models) + " |",
           "|---|---|" + "---|" * len(models)]
    by_set = sorted(lines, key=lambda x: (x["log10_density"], x["set"], x["k"]))
    for x in by_set:
        out.append(f"| {x['set']} | {x['k']} | "
                   + " | ".join(f"{_mean(x, m):.3f}" for m in models) + " |")
    sets_per_k = {}
    for x in lines:
        sets_per_k.setdefault(x["k"], []).append(x)
    complete = {x["set"] for x in lines if all(
        any(y["set"] == x["set"] and y["k"] == k for y in lines) for k in sets_per_k)}
    for k in sorted(sets_per_k):
        members = [x for x in sets_per_k[k] if x["set"] in complete]
        out.append(f"| mean of {len(complete)} sets | {k} | "
                   + " | ".join(f"{np.mean([_mean(x, m) for x in members]):.3f}"
                                for m in models) + " |")
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=5, help="r of r x 2-fold CV (paper: 5)")
    ap.add_argument("--sets", nargs="+", default=SETS)
    ap.add_argument("--all", action="store_true", help="every set of the UCI bundle")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=1, help="threads per ensemble (-1: all)")
    ap.add_argument("--out", type=Path, help="JSON-lines file: results appended per set, "
                    "a run started again with the same settings resumes")
    ap.add_argument("--noise", action="store_true",
                    help="irrelevant-attribute study (k = 0, 1, 4, 16, 64 N(0, 1) columns)")
    ap.add_argument("--summary", type=Path, metavar="FILE",
                    help="only print the tables of a JSON-lines file")
    a = ap.parse_args(argv)
    if a.summary:
        lines = read_lines(a.summary)
        noise = [x for x in lines if x["mode"] == "noise"]
        comparison = [x for x in lines if x["mode"] == "comparison"]
        for part, table in ((comparison, summarize), (noise, summarize_noise)):
            for config in sorted({(x["trees"], x["repeats"], x["seed"]) for x in part}):
                print(table([x for x in part if (x["trees"], x["repeats"], x["seed"]) == config]))
                print()
        return
    names = sorted(list_uci().index, key=cost) if a.all else a.sets
    mode = "noise" if a.noise else "comparison"
    base = {"mode": mode, "trees": a.trees, "repeats": a.repeats, "seed": a.seed,
            "n_jobs": a.n_jobs}
    if a.noise:
        tasks = [{**base, "set": name, "k": k} for name in names for k in KS]
    else:
        tasks = [{**base, "set": name} for name in names]
    lines = run_all(tasks, noise_models if a.noise else comparison_models, a.out)
    print((summarize_noise if a.noise else summarize)(lines))


if __name__ == "__main__":
    main()
