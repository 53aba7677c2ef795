"""Ali & Pazzani (1995), Table 2 and Figure 1: the LED rows, promoters and the E_r-phi_e fit.

Investigates the claims that treelab did not reproduce (``docs/reproductions/claims/
alipazzani1995.md``). One tree (StochasticID3's ``single_model()``: ID3, one-step lookahead,
no pruning) against eleven stochastic trees with uniform voting (beta = 1.25), 30 trials.

Rows: the study's four LED variants and the eight UCI rows of ``reproduce_ali_pazzani.py``.

* LED: 30 training rows from :func:`treelab.datasets.led`; ``Led 8i`` / ``Led 17i``: noise-free
  segments plus 8 / 17 random bits; ``Led 20a`` / ``Led 40a``: attribute noise of level 20% /
  40% on the training rows only (the study tests noisy variants on noise-free examples).
  ``--attr-noise replace`` (default) reads a level p as Quinlan's (1986): each value is replaced
  by a value drawn at random from the attribute's values with probability p, so a segment is
  inverted with probability p / 2; ``flip`` inverts it with probability p. Test: 1,000
  noise-free rows per trial (a generator gives a fresh test set; the study's held-out third of
  45 rows estimates the same error with more variance).
* UCI: as in ``reproduce_ali_pazzani.py`` (random training sample of the study's size, test on
  the rest; promoters by leave-one-out).

``--tie-break first`` is ``StochasticID3(tie_break="first")``: the single tree takes the lowest
column among tied candidates; ``random`` (default) is ``tie_break="random"``: it draws one of
them uniformly (the study, section 1: "the single-model learning program must arbitrarily
choose from among the set of tied candidates"); ``permute`` keeps ``"first"`` but shuffles the
columns once per trial (the same order for the single tree and the ensemble), a check of
``"random"`` that does not touch the learner. In treelab's LED generator the seven segments are
the first columns, so ``first`` always resolves a tie between a segment and a random bit in
favour of the segment.

``--meta K`` adds the study's meta-trials (section 5.1): each UCI/LED row at i x 10% of its
training size, i = 1..10, K trials each (holdout for every row, promoters included), and the
OLS fit of E_r on phi_e over all those points (the study: r^2 = 0.49 over 260 points).

``--flip-grid P [P ...]`` instead runs LED with ``--grid-irrelevant`` random bits and each
inversion probability P on the training rows (noise-free test rows), 30 training rows,
``--trials`` trials: the errors of one tree and eleven trees against the noise level.

Usage (CPU seconds on the shared two-core machine are printed per row)::

    nice -n 19 python benchmarks/claims_alipazzani.py --tie-break first --rows led
    nice -n 19 python benchmarks/claims_alipazzani.py --tie-break random
    nice -n 19 python benchmarks/claims_alipazzani.py --tie-break random --rows uci --meta 3
    nice -n 19 python benchmarks/claims_alipazzani.py --flip-grid 0.025 0.05 0.1 0.2
    nice -n 19 python benchmarks/claims_alipazzani.py --flip-grid 0.1 --grid-irrelevant 8
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from treelab import StochasticID3
from treelab.analysis import error_correlation
from treelab.datasets import led, load_uci
from treelab.stats import fit_error_ratio

#: row -> (kind, the study's Table 2 row); kind: ("led", n_irr, noise level) or ("uci", name).
_KINDS = {
    "Led 8i": (("led", 8, 0.0), "Led 8i"),
    "Led 17i": (("led", 17, 0.0), "Led 17i"),
    "Led 20a": (("led", 0, 0.2), "Led 20a"),
    "Led 40a": (("led", 0, 0.4), "Led 40a"),
    "tic-tac-toe": (("uci", "tic-tac-toe"), "Tic-tac-toe"),
    "promoters": (("uci", "promoters"), "DNA"),
    "splice": (("uci", "splice"), "Splice"),
    "mushroom": (("uci", "mushroom"), "Mushroom"),
    "wine": (("uci", "wine"), "Wine"),
    "vote": (("uci", "vote"), "Voting"),
    "soybean": (("uci", "soybean"), "Soybean"),
    "audiology": (("uci", "audiology"), "Audiology"),
}


def _rows() -> dict[str, tuple]:
    """row -> (kind, training rows, study one tree %, study eleven trees %), the study's
    numbers read from its shipped Table 2 (``data/papers``); training rows None =
    leave-one-out (promoters)."""
    from treelab.reproduce import paper_table

    t = paper_table("alipazzani1995_table2").set_index("data_set")
    return {row: (kind, None if name == "DNA" else int(t.loc[name, "n_training_examples"]),
                  float(t.loc[name, "single_tree_error_pct"]),
                  float(t.loc[name, "ensemble11_uniform_voting_error_pct"]))
            for row, (kind, name) in _KINDS.items()}


ROWS = _rows()
LED_TEST_ROWS = 1000


def _fit_pair(Xtr, ytr, Xte, yte, cat, seed, params):
    """(single-tree wrong, ensemble wrong, member labels) on the test rows."""
    ens = StochasticID3(n_estimators=11, categorical_features=cat, random_state=seed, **params)
    # the single model is the same learner with beta = 1 (and tie_break carried over)
    ens.fit(Xtr, ytr)
    single = ens.single_model().fit(Xtr, ytr)
    return single.predict(Xte) != yte, ens.predict(Xte) != yte, ens.member_predict(Xte)


def _led_split(kind, n_train, seed, attr_noise):
    _, n_irr, level = kind
    flip = level / 2 if attr_noise == "replace" else level
    tr = led(n_train, n_irrelevant=n_irr, noise=flip, random_state=seed)
    te = led(LED_TEST_ROWS, n_irrelevant=n_irr, noise=0.0, random_state=seed + 10**6)
    return tr.X, tr.y, te.X, te.y, list(range(tr.X.shape[1]))


def run_row(row, trials, params, tie_break, attr_noise, seed=0, n_train=None, loo=True):
    """Mean errors (%), E_r, phi_e and the per-trial errors of one row."""
    kind, size, _, _ = ROWS[row]
    n_train = size if n_train is None else n_train
    rng = np.random.default_rng(seed)
    data = load_uci(kind[1]) if kind[0] == "uci" else None
    s_err, e_err, phis = [], [], []
    if data is not None and n_train is None and loo:  # leave-one-out, one pass
        n = data.n_samples
        perm = rng.permutation(data.X.shape[1]) if tie_break == "permute" else None
        X = data.X if perm is None else data.X[:, perm]
        cat = _permuted_cat(data, perm)
        members = []
        for i in range(n):
            train = np.delete(np.arange(n), i)
            s, e, m = _fit_pair(X[train], data.y[train], X[[i]], data.y[[i]], cat,
                                seed + i, params)
            s_err.append(float(s[0]))
            e_err.append(float(e[0]))
            members.append(m[:, 0])
        phis.append(float(error_correlation(np.array(members).T, data.y).phi_e))
        label = f"LOO {n}"
    else:
        if n_train is None:
            n_train = data.n_samples - 1
        for t in range(trials):
            tseed = seed + 1000 * t
            if data is None:
                Xtr, ytr, Xte, yte, cat = _led_split(kind, n_train, tseed, attr_noise)
                perm = rng.permutation(Xtr.shape[1]) if tie_break == "permute" else None
                if perm is not None:
                    Xtr, Xte = Xtr[:, perm], Xte[:, perm]
            else:
                order = rng.permutation(data.n_samples)
                tr, te = order[:n_train], order[n_train:]
                perm = rng.permutation(data.X.shape[1]) if tie_break == "permute" else None
                X = data.X if perm is None else data.X[:, perm]
                cat = _permuted_cat(data, perm)
                Xtr, ytr, Xte, yte = X[tr], data.y[tr], X[te], data.y[te]
            s, e, m = _fit_pair(Xtr, ytr, Xte, yte, cat, tseed, params)
            s_err.append(float(s.mean()))
            e_err.append(float(e.mean()))
            phis.append(float(error_correlation(m, yte).phi_e))
        label = str(trials)
    es, ee = 100 * float(np.mean(s_err)), 100 * float(np.mean(e_err))
    return {"row": row, "trials": label, "n_train": n_train, "single": es, "ensemble": ee,
            "E_r": ee / es if es > 0 else float("nan"), "phi_e": float(np.mean(phis)),
            "s_err": s_err, "e_err": e_err, "study_single": ROWS[row][2],
            "study_ensemble": ROWS[row][3]}


def _permuted_cat(data, perm):
    cat = np.asarray(data.categorical_features, dtype=bool) \
        if np.asarray(data.categorical_features).dtype == bool else None
    if cat is None:
        mask = np.zeros(data.X.shape[1], dtype=bool)
        mask[np.asarray(data.categorical_features, dtype=int)] = True
        cat = mask
    if perm is not None:
        cat = cat[perm]
    return np.flatnonzero(cat).tolist()


def flip_grid(flips, n_irr, trials, params) -> None:
    """One tree and eleven trees on LED against the training rows' inversion probability."""
    print(f"LED, {n_irr} random bits, 30 training rows, noise-free test, {trials} trials")
    print("| inversion probability | one tree (%) | eleven trees (%) | E_r |")
    print("|---|---|---|---|")
    for p in flips:
        s_err, e_err = [], []
        for t in range(trials):
            seed = 1000 * t
            tr = led(30, n_irrelevant=n_irr, noise=p, random_state=seed)
            te = led(LED_TEST_ROWS, n_irrelevant=n_irr, noise=0.0, random_state=seed + 10**6)
            s, e, _ = _fit_pair(tr.X, tr.y, te.X, te.y, list(range(tr.X.shape[1])), seed,
                                params)
            s_err.append(s.mean())
            e_err.append(e.mean())
        es, ee = 100 * np.mean(s_err), 100 * np.mean(e_err)
        print(f"| {p:g} | {es:.1f} | {ee:.1f} | {ee / es:.2f} |", flush=True)


def _significant(r) -> bool:
    """Significant reduction: paired t test over trials (one-sided, 5%); LOO: sign test."""
    from scipy import stats
    s, e = np.asarray(r["s_err"]), np.asarray(r["e_err"])
    if r["trials"].startswith("LOO"):
        b, c = int(np.sum((s == 1) & (e == 0))), int(np.sum((s == 0) & (e == 1)))
        return b + c > 0 and stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue < 0.05
    d = s - e
    if np.all(d == 0):
        return False
    return stats.ttest_1samp(d, 0.0, alternative="greater").pvalue < 0.05


def _fit_line(phi, er, label):
    ok = np.isfinite(er)
    if ok.sum() <= 3:
        return f"{label}: too few points ({int(ok.sum())})"
    fit = fit_error_ratio(np.asarray(phi)[ok], np.asarray(er)[ok])
    lo, hi = float(fit.r_low), float(fit.r_high)
    r2 = (min(lo * lo, hi * hi), max(lo * lo, hi * hi)) if lo * hi > 0 else \
        (0.0, max(lo * lo, hi * hi))
    return (f"{label}: E_r = {float(fit.intercept):.2f} + {float(fit.slope):.2f} phi_e, "
            f"r^2 = {float(fit.r_squared):.2f} (95% interval {r2[0]:.2f}-{r2[1]:.2f}), "
            f"n = {int(fit.n)}")


def summarize(rows) -> str:
    out = ["| row | trials | 1 tree (study) | 11 trees (study) | E_r (study) | phi_e | "
           "significant |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        st = r["study_ensemble"] / r["study_single"]
        out.append(f"| {r['row']} | {r['trials']} | {r['single']:.1f} ({r['study_single']}) | "
                   f"{r['ensemble']:.1f} ({r['study_ensemble']}) | {r['E_r']:.2f} ({st:.2f}) "
                   f"| {r['phi_e']:.3f} | {'yes' if _significant(r) else 'no'} |")
    gap = np.mean([abs(r["single"] - r["study_single"]) for r in rows])
    gap_e = np.mean([abs(r["ensemble"] - r["study_ensemble"]) for r in rows])
    out += ["", f"mean |gap| one tree {gap:.1f} points, eleven trees {gap_e:.1f} points"]
    phi = np.array([r["phi_e"] for r in rows])
    er = np.array([r["E_r"] for r in rows])
    sig = np.array([_significant(r) for r in rows])
    out.append(_fit_line(phi, er, "all rows"))
    out.append(_fit_line(phi[sig], er[sig], "rows with a significant reduction (the study's "
                         "r^2: data/papers/alipazzani1995_figure1.csv)"))
    return "\n".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--rows", nargs="+", default=["all"],
                    help="row names, or 'led' / 'uci' / 'all'")
    ap.add_argument("--tie-break", default="random", choices=["first", "random", "permute"])
    ap.add_argument("--attr-noise", default="replace", choices=["replace", "flip"])
    ap.add_argument("--choice", default="gain", choices=["entropy", "gain"])
    ap.add_argument("--laplace", default="all", choices=["weights", "all"])
    ap.add_argument("--lookahead", type=int, default=1, choices=[0, 1])
    ap.add_argument("--meta", type=int, default=0, metavar="K",
                    help="also run the meta-trials with K trials per point")
    ap.add_argument("--flip-grid", nargs="+", type=float, metavar="P",
                    help="LED against these inversion probabilities instead of the rows")
    ap.add_argument("--grid-irrelevant", type=int, default=0)
    ap.add_argument("--json", help="write the rows to this file")
    a = ap.parse_args(argv)
    names = []
    for r in a.rows:
        names += {"all": list(ROWS), "led": [k for k in ROWS if k.startswith("Led")],
                  "uci": [k for k in ROWS if not k.startswith("Led")]}.get(r, [r])
    params = {"choice": a.choice, "entropy_laplace": a.laplace, "lookahead": a.lookahead,
              "tie_break": "random" if a.tie_break == "random" else "first"}
    print(f"reading: {params}, tie-break {a.tie_break}, attribute noise {a.attr_noise}")
    if a.flip_grid:
        flip_grid(a.flip_grid, a.grid_irrelevant, a.trials, params)
        return
    rows = []
    for name in names:
        t0 = time.process_time()
        rows.append(run_row(name, a.trials, params, a.tie_break, a.attr_noise))
        r = rows[-1]
        print(f"  {name}: 1 tree {r['single']:.1f}, 11 trees {r['ensemble']:.1f}, "
              f"E_r {r['E_r']:.2f}, phi_e {r['phi_e']:.3f} "
              f"({time.process_time() - t0:.0f} s CPU)", flush=True)
    print(summarize(rows))
    meta = []
    if a.meta:
        for name in names:
            size = ROWS[name][1] or load_uci(ROWS[name][0][1]).n_samples - 1
            for i in range(1, 11):
                n_train = max(2, int(round(size * i / 10)))
                meta.append(run_row(name, a.meta, params, a.tie_break, a.attr_noise,
                                    seed=7 + i, n_train=n_train, loo=False))
        er = np.array([m["E_r"] for m in meta])
        phi = np.array([m["phi_e"] for m in meta])
        sig = np.array([_significant(m) for m in meta])
        print(_fit_line(phi, er, f"meta-trials, all points ({a.meta} trials each)"))
        print(_fit_line(phi[sig], er[sig], "meta-trials, points with a significant reduction"))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"args": vars(a), "rows": rows, "meta": meta}, fh, indent=1)


if __name__ == "__main__":
    main()
