"""Reproduce Table 2 of Ali & Pazzani (1995): eleven stochastic ID3 trees vs one ID3 tree.

Protocol of the study: each trial trains on a random sample of the stated size and tests on the
remaining rows (DNA promoters: leave-one-out, one pass); 11 stochastic trees combined by uniform
voting against one deterministic tree (the same learner with beta = 1: ID3 with one-step
lookahead, no pruning). Prints, per data set, the study's errors beside treelab's, the error
ratio E_r = E_ensemble / E_single, the error correlation phi_e of the eleven trees
(:func:`treelab.analysis.error_correlation`, averaged over trials) and the OLS fit of E_r on
phi_e (:func:`treelab.stats.fit_error_ratio`) with r^2 and its 95% interval.

Usage (the full protocol is 30 trials; shrink it on a busy machine)::

    python benchmarks/reproduce_ali_pazzani.py --trials 5 --choice entropy --laplace weights
    python benchmarks/reproduce_ali_pazzani.py --tie-break first   # the lowest column wins ties
    python benchmarks/reproduce_ali_pazzani.py --trials 2 --sets tic-tac-toe wine --json out.json
    python benchmarks/reproduce_ali_pazzani.py --from-json out.json other.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from treelab import StochasticID3
from treelab.analysis import error_correlation
from treelab.datasets import load_uci
from treelab.stats import fit_error_ratio

#: bundle data set -> the study's Table 2 row
_ROWS = {"tic-tac-toe": "Tic-tac-toe", "promoters": "DNA", "splice": "Splice",
         "mushroom": "Mushroom", "wine": "Wine", "vote": "Voting", "soybean": "Soybean",
         "audiology": "Audiology"}


def _study() -> dict[str, tuple]:
    """data set -> (training rows, one tree error %, eleven trees error %) of the study's
    Table 2, read from its shipped table (data/papers); training rows None = leave-one-out."""
    from treelab.reproduce import paper_table

    t = paper_table("alipazzani1995_table2").set_index("data_set")
    return {name: (None if row == "DNA" else int(t.loc[row, "n_training_examples"]),
                   float(t.loc[row, "single_tree_error_pct"]),
                   float(t.loc[row, "ensemble11_uniform_voting_error_pct"]))
            for name, row in _ROWS.items()}


STUDY = _study()


def _one_split(data, train, test, params, seed):
    """(single-tree errors, ensemble errors, member labels) on the test rows of one split."""
    X, y = data.X, data.y
    ens = StochasticID3(n_estimators=11, categorical_features=data.categorical_features,
                        random_state=seed, **params)
    ens.fit(X[train], y[train])
    single = ens.single_model().fit(X[train], y[train])
    members = ens.member_predict(X[test])
    return (single.predict(X[test]) != y[test], ens.predict(X[test]) != y[test], members)


def run_set(name: str, trials: int, params: dict, seed: int = 0,
            loo_rows: int | None = None) -> dict:
    """Errors (%), E_r and phi_e of one data set under the study's protocol.

    ``loo_rows`` limits leave-one-out to that many held-out rows drawn at random (every fold
    still trains on all other rows); None holds out every row."""
    data = load_uci(name)
    n = data.n_samples
    n_train = STUDY[name][0]
    rng = np.random.default_rng(seed)
    e_single, e_ens, phis = [], [], []
    if n_train is None:  # leave-one-out, one pass: errors and phi_e pooled over the n folds
        s_err, e_err, members = [], [], []
        held = np.arange(n) if loo_rows is None else np.sort(rng.permutation(n)[:loo_rows])
        for i in held:
            train = np.delete(np.arange(n), i)
            s, e, m = _one_split(data, train, np.array([i]), params, seed + i)
            s_err.append(s[0])
            e_err.append(e[0])
            members.append(m[:, 0])
        e_single.append(np.mean(s_err))
        e_ens.append(np.mean(e_err))
        phis.append(float(error_correlation(np.array(members).T, data.y[held]).phi_e))
        trials = f"LOO {len(held)}"
    else:
        for t in range(trials):
            perm = rng.permutation(n)
            train, test = perm[:n_train], perm[n_train:]
            s, e, m = _one_split(data, train, test, params, seed + 1000 * t)
            e_single.append(s.mean())
            e_ens.append(e.mean())
            phis.append(float(error_correlation(m, data.y[test]).phi_e))
    es, ee = 100 * float(np.mean(e_single)), 100 * float(np.mean(e_ens))
    return {"set": name, "trials": trials, "single": es, "ensemble": ee,
            "E_r": ee / es if es > 0 else float("nan"), "phi_e": float(np.nanmean(phis)),
            "study_single": STUDY[name][1], "study_ensemble": STUDY[name][2],
            "study_E_r": STUDY[name][2] / STUDY[name][1]}


def summarize(rows: list[dict]) -> str:
    """The table (Markdown) with the goal's three summaries and the OLS fit of E_r on phi_e."""
    out = ["| data set | trials | 1 tree (study) | 11 trees (study) | E_r (study) | phi_e |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['set']} | {r['trials']} | {r['single']:.1f} ({r['study_single']}) "
                   f"| {r['ensemble']:.1f} ({r['study_ensemble']}) "
                   f"| {r['E_r']:.2f} ({r['study_E_r']:.2f}) | {r['phi_e']:.3f} |")
    er = np.array([r["E_r"] for r in rows])
    st = np.array([r["study_E_r"] for r in rows])
    gap = np.array([abs(r["single"] - r["study_single"]) for r in rows])
    worse = [r["set"] for r in rows if r["ensemble"] > r["single"]]
    out.append("")
    out.append(f"mean E_r {np.nanmean(er):.2f} (study {st.mean():.2f}); mean |single - study| "
               f"{gap.mean():.1f} points; eleven trees worse than one on: "
               f"{', '.join(worse) if worse else 'none'}")
    ok = np.isfinite(er)
    if ok.sum() > 3:
        fit = fit_error_ratio(np.array([r["phi_e"] for r in rows])[ok], er[ok])
        lo, hi = float(fit.r_low), float(fit.r_high)
        r2_lo, r2_hi = (min(lo * lo, hi * hi), max(lo * lo, hi * hi)) if lo * hi > 0 \
            else (0.0, max(lo * lo, hi * hi))
        out.append(f"OLS E_r = {float(fit.intercept):.2f} + {float(fit.slope):.2f} phi_e: "
                   f"r^2 = {float(fit.r_squared):.2f} (95% interval {r2_lo:.2f}-{r2_hi:.2f}, "
                   f"n = {int(fit.n)}; study r^2 = 0.60)")
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--sets", nargs="+", default=list(STUDY), choices=list(STUDY))
    ap.add_argument("--choice", default="gain", choices=["entropy", "gain"])
    ap.add_argument("--laplace", default="all", choices=["weights", "all"])
    ap.add_argument("--lookahead", type=int, default=1, choices=[0, 1])
    ap.add_argument("--beta", type=float, default=1.25)
    ap.add_argument("--tie-break", default="random", choices=["first", "random"],
                    help="the single tree's choice among exactly tied tests (the study: "
                         "arbitrary; 'first' is the lowest column)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--loo-rows", type=int, help="leave-one-out on this many random rows only")
    ap.add_argument("--json", help="also write the rows to this file")
    ap.add_argument("--from-json", nargs="+", metavar="FILE",
                    help="print the table of rows written by earlier runs (--json) and stop")
    a = ap.parse_args(argv)
    if a.from_json:
        rows = []
        for path in a.from_json:
            with open(path) as fh:
                rows.extend(json.load(fh)["rows"])
        print(summarize(rows))
        return
    params = {"choice": a.choice, "entropy_laplace": a.laplace, "lookahead": a.lookahead,
              "beta": a.beta, "tie_break": a.tie_break}
    print(f"reading: {params}")
    rows = []
    for name in a.sets:
        t0 = time.perf_counter()
        rows.append(run_set(name, a.trials, params, a.seed, a.loo_rows))
        r = rows[-1]
        print(f"  {name}: 1 tree {r['single']:.1f}, 11 trees {r['ensemble']:.1f}, "
              f"E_r {r['E_r']:.2f}, phi_e {r['phi_e']:.3f} ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    print(summarize(rows))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"params": params, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
