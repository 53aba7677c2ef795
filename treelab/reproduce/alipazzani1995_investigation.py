"""Ali & Pazzani (1995), Table 2 and Figure 1: the LED rows, promoters and the E_r-phi_e fit.

The investigation behind the claims section of the study's page
(``docs/reproductions/claims/alipazzani1995.md``) of the claims treelab did not reproduce. One
tree (StochasticID3's ``single_model()``: ID3, one-step lookahead, no pruning) against eleven
stochastic trees with uniform voting (beta = 1.25). Each part is a function;
:func:`main` is the command line (``treelab investigate alipazzani1995 ...`` or
``python -m treelab.reproduce.alipazzani1995_investigation ...``), which prints Markdown.

Rows (:func:`table2_rows`): the study's four LED variants and eight UCI rows.

* LED: 30 training rows from :func:`treelab.datasets.led`; ``Led 8i`` / ``Led 17i``: noise-free
  segments plus 8 / 17 random bits; ``Led 20a`` / ``Led 40a``: attribute noise of level 20% /
  40% on the training rows only (the study tests noisy variants on noise-free examples).
  ``attr_noise="replace"`` (default) reads a level p as Quinlan's (1986): each value is
  replaced by a value drawn at random from the attribute's values with probability p, so a
  segment is inverted with probability p / 2; ``"flip"`` inverts it with probability p. Test:
  1,000 noise-free rows per trial (a generator gives a fresh test set; the study's held-out
  third of 45 rows estimates the same error with more variance).
* UCI: a random training sample of the study's size, test on the rest; promoters by
  leave-one-out.

``tie_break="first"`` is ``StochasticID3(tie_break="first")``: the single tree takes the lowest
column among tied candidates; ``"random"`` (default) is ``tie_break="random"``: it draws one of
them uniformly (the study, section 1: "the single-model learning program must arbitrarily
choose from among the set of tied candidates"); ``"permute"`` keeps ``"first"`` but shuffles
the columns once per trial (the same order for the single tree and the ensemble), a check of
``"random"`` that does not touch the learner. In treelab's LED generator the seven segments
are the first columns, so ``"first"`` always resolves a tie between a segment and a random bit
in favour of the segment.

:func:`meta_trials` runs the study's meta-trials (section 5.1): each row at i x 10% of its
training size, i = 1..10, K trials each (holdout for every row, promoters included), and
:func:`fit_line` the OLS fit of E_r on phi_e over those points (the study's r^2:
``data/papers/alipazzani1995_figure1.csv``).

:func:`flip_grid` instead runs LED with random bits and each inversion probability P on the
training rows (noise-free test rows), 30 training rows: the errors of one tree and eleven trees
against the noise level.

Usage (CPU seconds are printed per row)::

    nice -n 19 treelab investigate alipazzani1995 --tie-break first --rows led
    nice -n 19 treelab investigate alipazzani1995 --tie-break random
    nice -n 19 treelab investigate alipazzani1995 --tie-break random --rows uci --meta 3
    nice -n 19 treelab investigate alipazzani1995 --flip-grid 0.025 0.05 0.1 0.2
    nice -n 19 treelab investigate alipazzani1995 --flip-grid 0.1 --grid-irrelevant 8
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from treelab.report._render import to_markdown
from treelab.reproduce._papers import paper_table

__all__ = ["LED_TEST_ROWS", "fit_line", "flip_grid", "learner_params", "main", "meta_trials",
           "row_names", "run_row", "significant", "summarize", "table2_rows"]

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


@functools.cache
def table2_rows() -> dict[str, tuple]:
    """row -> (kind, training rows, study one tree %, study eleven trees %), the study's
    numbers read from its shipped Table 2 (``data/papers``); training rows None =
    leave-one-out (promoters)."""
    t = paper_table("alipazzani1995_table2").set_index("data_set")
    return {row: (kind, None if name == "DNA" else int(t.loc[name, "n_training_examples"]),
                  float(t.loc[name, "single_tree_error_pct"]),
                  float(t.loc[name, "ensemble11_uniform_voting_error_pct"]))
            for row, (kind, name) in _KINDS.items()}


#: noise-free test rows per LED trial
LED_TEST_ROWS = 1000


def learner_params(tie_break: str = "random", choice: str = "gain", laplace: str = "all",
                   lookahead: int = 1) -> dict:
    """StochasticID3's parameters of a reading (``tie_break="permute"`` fits with
    ``"first"``; :func:`run_row` shuffles the columns)."""
    if tie_break not in ("first", "random", "permute"):
        raise ValueError(f"tie_break must be 'first', 'random' or 'permute', got {tie_break!r}")
    return {"choice": choice, "entropy_laplace": laplace, "lookahead": lookahead,
            "tie_break": "random" if tie_break == "random" else "first"}


def _fit_pair(Xtr, ytr, Xte, yte, cat, seed, params):
    """(single-tree wrong, ensemble wrong, member labels) on the test rows."""
    from treelab import StochasticID3

    ens = StochasticID3(n_estimators=11, categorical_features=cat, random_state=seed, **params)
    # the single model is the same learner with beta = 1 (and tie_break carried over)
    ens.fit(Xtr, ytr)
    single = ens.single_model().fit(Xtr, ytr)
    return single.predict(Xte) != yte, ens.predict(Xte) != yte, ens.member_predict(Xte)


def _led_split(kind, n_train, seed, attr_noise):
    from treelab.datasets import led

    _, n_irr, level = kind
    flip = level / 2 if attr_noise == "replace" else level
    tr = led(n_train, n_irrelevant=n_irr, noise=flip, random_state=seed)
    te = led(LED_TEST_ROWS, n_irrelevant=n_irr, noise=0.0, random_state=seed + 10**6)
    return tr.X, tr.y, te.X, te.y, list(range(tr.X.shape[1]))


def run_row(row: str, trials: int, params: dict, tie_break: str = "random",
            attr_noise: str = "replace", seed: int = 0, n_train: int | None = None,
            loo: bool = True) -> dict:
    """Mean errors (%), E_r, phi_e and the per-trial errors of one row of
    :func:`table2_rows` (``params``: :func:`learner_params`; ``n_train`` None: the study's
    training size, leave-one-out for promoters when ``loo``)."""
    from treelab.analysis import error_correlation
    from treelab.datasets import load_uci

    rows = table2_rows()
    if row not in rows:
        raise ValueError(f"row must be one of {list(rows)}, got {row!r}")
    if attr_noise not in ("replace", "flip"):
        raise ValueError(f"attr_noise must be 'replace' or 'flip', got {attr_noise!r}")
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    kind, size, _, _ = rows[row]
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
            "s_err": s_err, "e_err": e_err, "study_single": rows[row][2],
            "study_ensemble": rows[row][3]}


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


def flip_grid(flips: Sequence[float], n_irr: int, trials: int, params: dict,
              progress: bool = False) -> pd.DataFrame:
    """One tree and eleven trees on LED (``n_irr`` random bits, 30 training rows, noise-free
    test rows) against the training rows' inversion probability: errors (%) and E_r."""
    from treelab.datasets import led

    if any(not 0 <= p <= 1 for p in flips):
        raise ValueError(f"inversion probabilities must lie in [0, 1], got {list(flips)}")
    out = []
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
        es, ee = 100 * float(np.mean(s_err)), 100 * float(np.mean(e_err))
        out.append({"inversion probability": p, "one tree (%)": es, "eleven trees (%)": ee,
                    "E_r": ee / es if es > 0 else float("nan")})
        if progress:
            print(f"  p = {p:g}: one tree {es:.1f}, eleven trees {ee:.1f}", flush=True)
    return pd.DataFrame(out).set_index("inversion probability")


def significant(r: dict) -> bool:
    """Significant reduction: paired t test over trials (one-sided, 5%); LOO: sign test."""
    from scipy import stats
    s, e = np.asarray(r["s_err"]), np.asarray(r["e_err"])
    if r["trials"].startswith("LOO"):
        b, c = int(np.sum((s == 1) & (e == 0))), int(np.sum((s == 0) & (e == 1)))
        return b + c > 0 and stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue < 0.05
    d = s - e
    if len(d) < 2 or np.all(d == 0):  # no t test on one trial or on no difference
        return False
    return stats.ttest_1samp(d, 0.0, alternative="greater").pvalue < 0.05


def fit_line(phi, er, label: str) -> str:
    """The OLS line of E_r on phi_e over the finite points, r^2 with its 95% interval."""
    from treelab.stats import fit_error_ratio

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


def summarize(rows: list[dict]) -> str:
    """The rows of :func:`run_row` beside the study's, the mean absolute gaps and the E_r-phi_e
    lines over all rows and over the rows with a significant reduction (Markdown)."""
    out = ["| row | trials | 1 tree (study) | 11 trees (study) | E_r (study) | phi_e | "
           "significant |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        st = r["study_ensemble"] / r["study_single"]
        out.append(f"| {r['row']} | {r['trials']} | {r['single']:.1f} ({r['study_single']}) | "
                   f"{r['ensemble']:.1f} ({r['study_ensemble']}) | {r['E_r']:.2f} ({st:.2f}) "
                   f"| {r['phi_e']:.3f} | {'yes' if significant(r) else 'no'} |")
    gap = np.mean([abs(r["single"] - r["study_single"]) for r in rows])
    gap_e = np.mean([abs(r["ensemble"] - r["study_ensemble"]) for r in rows])
    out += ["", f"mean |gap| one tree {gap:.1f} points, eleven trees {gap_e:.1f} points"]
    phi = np.array([r["phi_e"] for r in rows])
    er = np.array([r["E_r"] for r in rows])
    sig = np.array([significant(r) for r in rows])
    out.append(fit_line(phi, er, "all rows"))
    out.append(fit_line(phi[sig], er[sig], "rows with a significant reduction (the study's "
                         "r^2: data/papers/alipazzani1995_figure1.csv)"))
    return "\n".join(out)


def row_names(selection: Sequence[str]) -> list[str]:
    """Row names of ``selection``: names of :func:`table2_rows`, or 'led', 'uci', 'all'."""
    rows = table2_rows()
    names = []
    for r in selection:
        names += {"all": list(rows), "led": [k for k in rows if k.startswith("Led")],
                  "uci": [k for k in rows if not k.startswith("Led")]}.get(r, [r])
    unknown = [n for n in names if n not in rows]
    if unknown:
        raise ValueError(f"rows {unknown} are not investigated; choose from {list(rows)} "
                         "or 'led', 'uci', 'all'")
    return names


def meta_trials(names: Sequence[str], trials: int, params: dict, tie_break: str = "random",
                attr_noise: str = "replace", fractions: Sequence[int] = range(1, 11)
                ) -> list[dict]:
    """The study's meta-trials (section 5.1): each row of ``names`` at i x 10% of its training
    size for each i of ``fractions``, ``trials`` holdout trials each (:func:`run_row`)."""
    from treelab.datasets import load_uci

    rows = table2_rows()
    meta = []
    for name in names:
        size = rows[name][1] or load_uci(rows[name][0][1]).n_samples - 1
        for i in fractions:
            n_train = max(2, int(round(size * i / 10)))
            meta.append(run_row(name, trials, params, tie_break, attr_noise,
                                seed=7 + i, n_train=n_train, loo=False))
    return meta


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: run the rows (or the flip grid) and print the tables as Markdown."""
    ap = argparse.ArgumentParser(prog="treelab investigate alipazzani1995",
                                 description=__doc__.splitlines()[0])
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
    names = row_names(a.rows)
    params = learner_params(a.tie_break, a.choice, a.laplace, a.lookahead)
    print(f"reading: {params}, tie-break {a.tie_break}, attribute noise {a.attr_noise}")
    if a.flip_grid:
        print(f"LED, {a.grid_irrelevant} random bits, 30 training rows, noise-free test, "
              f"{a.trials} trials")
        frame = flip_grid(a.flip_grid, a.grid_irrelevant, a.trials, params, progress=True)
        print(to_markdown(frame.round(2)))
        return 0
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
        meta = meta_trials(names, a.meta, params, a.tie_break, a.attr_noise)
        er = np.array([m["E_r"] for m in meta])
        phi = np.array([m["phi_e"] for m in meta])
        sig = np.array([significant(m) for m in meta])
        print(fit_line(phi, er, f"meta-trials, all points ({a.meta} trials each)"))
        print(fit_line(phi[sig], er[sig], "meta-trials, points with a significant reduction"))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"args": vars(a), "rows": rows, "meta": meta}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
