"""Liu et al. (2008): the verdicts on the paper's claims, each rule written from the paper's
words and printed beside it (the tables they read: :mod:`treelab.reproduce._liu2008_report`)."""

from __future__ import annotations

import numpy as np

from treelab import stats
from treelab.reproduce._liu2008_coalescence import ROPE, UNIT
from treelab.reproduce._liu2008_coalescence import (
    coalescence_verdicts as _coalescence_verdicts,
)
from treelab.reproduce._papers import paper_table
from treelab.reproduce._study import Verdict
from treelab.reproduce._verdicts import FOR_REFERENCE, holm, part_verdict, posterior_evidence
from treelab.reproduce.liu2008 import TABLE4
from treelab.stats._signed_rank import signed_rank

CONSTRUCTIONS = {"Aggregating": "Agg.VR-Trees", "Bagging": "Bag.VR-Trees",
                 "Subspacing": "Subspace.VR-Trees"}


def _best_name(derived: str) -> str:
    """The method name of a derived_row_best entry (tied columns joined by ';')."""
    names = [TABLE4.get(f"{d.strip()}_err_pct", d.strip()) for d in str(derived).split(";")]
    return " = ".join(names)


#: The end of the spectrum each construction is conventionally run at (section 5.1 i).
CONVENTIONAL = {"Aggregating": 0.0, "Bagging": 1.0, "Subspacing": 1.0}
LEVEL = 0.05


def _table3_verdicts(f3: dict) -> list[Verdict]:
    pr, tr = f3["paper_rank"], f3["mine_rank"]
    order = ", ".join(f"{m} {tr[m]:.2f}" for m in tr.sort_values().index)
    porder = ", ".join(f"{m} {pr[m]:.2f}" for m in pr.sort_values().index)
    out = [Verdict(
        "Coalescence has the best average rank (Table 3)",
        "holds" if tr.idxmin() == "Coalescence" and (tr < tr["Coalescence"]).sum() == 0
        else "does not hold",
        f"average ranks over the {len(f3['common'])} common sets, five methods: paper "
        f"{porder}; treelab {order}",
        rule="holds when Coalescence's average rank (1 = lowest error, ties averaged) is the "
             "lowest of the five methods treelab has")]
    d = f3["dunn"]
    # Demsar's procedure: the post-hoc test is read only where Friedman rejects; the Friedman
    # test of Bonferroni-Dunn's own ranks is that of the error table (the same ranks)
    p_friedman = float(stats.friedman(d["rank"]).chi2_p_value)
    gate = p_friedman < LEVEL
    sig = {str(m): bool(s) and gate for m, s in zip(d.ensemble.values, d.significant.values,
                                                     strict=True)}
    better = {m: float(d.rank_difference.sel(ensemble=m)) > 0 for m in sig}
    wins = [m for m in sig if sig[m] and better[m]]
    parts = {"over Max-Diverse": "holds" if "Max-Diverse" in wins else "inconclusive",
             "over Bagging": "holds" if "Bagging" in wins else "inconclusive",
             "not over RF": "does not hold" if "Random Forests" in wins else "holds"}
    wh = f3["wilcoxon_holm"]
    out.append(Verdict(
        "Coalescence is significantly better than Max-Diverse and Bagging, not than RF "
        "(Friedman + Bonferroni)", part_verdict(parts),
        f"Friedman p {p_friedman:.3g}"
        + ("" if gate else " (not below 0.05: the post-hoc test is not read)")
        + f"; Bonferroni-Dunn vs Coalescence (CD {float(d.critical_difference):.2f}): "
        f"significantly worse: {', '.join(wins) or 'none'}; beside it, Wilcoxon signed-rank "
        "over the data sets, Holm over the four: "
        + ", ".join(f"{m} p {p:.3g} (Holm {h:.3g})" for m, (p, h) in wh.items())
        + "; " + "; ".join(text for text, _ in f3["bayesian"].values()),
        rule="the paper's test: Friedman then Bonferroni-Dunn against Coalescence at 0.05 "
             "(the post-hoc test read only where Friedman rejects, Demsar 2006); a part "
             "holds when its method is (Max-Diverse, Bagging) or is not (RF) "
             "significantly worse; a difference the test does not find is inconclusive; "
             + FOR_REFERENCE))
    return out


def _figure_verdicts(ff: dict) -> list[Verdict]:
    out = []
    sw = ff["swing"]
    paper_sw = float(ff["fig1"].loc[1.0] - ff["fig1"].loc[0.5])
    out.append(Verdict(
        "Aggregating's average error swings most between alpha = 1 and 0.5 (Fig 1)",
        "holds" if max(sw, key=sw.get) == "Aggregating" and sw["Aggregating"] > 0
        else "does not hold",
        f"paper {paper_sw:.1f} points; treelab swing Agg {sw['Aggregating']:.1f}, Bag "
        f"{sw['Bagging']:.1f}, Subspace {sw['Subspacing']:.1f}",
        rule="holds when Aggregating's mean error falls from alpha = 1 to 0.5 and by more "
             "than Bagging's and Subspacing's"))
    parts, shown, safe, half = {}, [], True, []
    err = ff["err"]
    for e, label in CONSTRUCTIONS.items():
        lo, hi, best, ok, p_friedman = ff["regions"][e]
        end = CONVENTIONAL[e]
        p = ff["fig2"].loc[label]
        top = err.sel(ensemble=e, alpha=best).values
        if best != end:
            bayes_end, _ = posterior_evidence(
                f"{label} alpha = {best:g}", f"alpha = {end:g}", top,
                err.sel(ensemble=e, alpha=end).values, rope=ROPE, unit=UNIT)
        if best != 0.5:
            text, _ = posterior_evidence(f"{label} alpha = 0.5", f"alpha = {best:g}",
                                         err.sel(ensemble=e, alpha=0.5).values, top,
                                         rope=ROPE, unit=UNIT)
            half.append(text)
        if best == end:
            parts[label] = "does not hold"
        elif p_friedman < LEVEL and end not in ok:
            parts[label] = "holds"
        else:
            parts[label] = "inconclusive"
        safe &= 0.5 in ok
        shown.append(f"{label}: paper {p['best_region_alpha_low']:g}-"
                     f"{p['best_region_alpha_high']:g} (top {p['highest_ranked_alpha']:g}); "
                     f"treelab top {best:g}, not worse than it: "
                     f"{', '.join(f'{a:g}' for a in ok)}; Friedman p {p_friedman:.3g}; "
                     f"alpha = {end:g} {'inside' if end in ok else 'outside'} the region"
                     + (f" ({bayes_end})" if best != end else ""))
    out.append(Verdict(
        "The best alpha regions lie inside the spectrum, away from the conventional end "
        "(Fig 2)", part_verdict(parts), "; ".join(shown),
        rule="per construction (section 5.1 i): holds when the Friedman test over the eleven "
             "alphas is significant (0.05) and the conventional end (Aggregating alpha = 0, "
             "Bagging and Subspacing alpha = 1) is significantly worse than the top-ranked "
             "alpha (Bonferroni-Dunn); does not hold when that end is the top; inconclusive "
             "otherwise; " + FOR_REFERENCE + " (top-ranked alpha against the conventional "
             "end)"))
    out.append(Verdict(
        "alpha = 0.5 is best or not significantly worse for all three",
        "holds" if safe else "does not hold",
        "alpha = 0.5 is " + ("" if safe else "not ") + "in treelab's region of every "
        "construction" + "".join(f"; {t}" for t in half),
        rule="holds when alpha = 0.5 is the top-ranked alpha or not significantly worse than it "
             "(Bonferroni-Dunn, 0.05) for Aggregating, Bagging and Subspacing; "
             + FOR_REFERENCE + " (alpha = 0.5 against the top-ranked alpha, where they differ)"))
    ps, posteriors = [], []
    for a in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5):
        bag, agg = err.sel(ensemble="Bagging", alpha=a), err.sel(ensemble="Aggregating", alpha=a)
        x = (bag - agg).values
        x = x[np.isfinite(x)]
        ps.append(signed_rank(x)[1] if np.any(x != 0) else 1.0)
        _, post = posterior_evidence("Bagging", "Aggregating", bag.values, agg.values,
                                     rope=ROPE, unit=UNIT)
        posteriors.append(post)
    adjusted = holm(ps)
    out.append(Verdict(
        "Bagging and Aggregating do not differ for 0 <= alpha <= 0.5",
        "holds" if adjusted.min() >= LEVEL else "does not hold",
        "Wilcoxon over the data sets at alpha 0..0.5, p: "
        + ", ".join(f"{p:.2f}" for p in ps) + "; Holm-adjusted: "
        + ", ".join(f"{p:.2f}" for p in adjusted)
        + f"; Bayesian signed-rank test of Bagging - Aggregating over the data sets at each "
          f"alpha, ROPE +-{ROPE:g} {UNIT}, P(Bagging better) / P(practically equivalent) / "
          "P(Aggregating better): " + ", ".join(
              f"alpha {a:g} {q['p_left']:.2f} / {q['p_rope']:.2f} / {q['p_right']:.2f}"
              for a, q in zip((0.0, 0.1, 0.2, 0.3, 0.4, 0.5), posteriors, strict=True)),
        rule="six p-values read at once, so Holm-corrected: holds when no adjusted p of the "
             "paired Wilcoxon test (Bagging against Aggregating at each alpha) is below 0.05; "
             + FOR_REFERENCE))
    return out


def _table4_verdicts(f4: dict) -> list[Verdict]:
    out = []
    t = f4["t"].round(1)  # at the paper's printed precision: no win by float noise
    p4 = paper_table("liu2008_table4").set_index("condition")
    p4.index = [c.replace("В", "B") for c in p4.index]
    a0 = [c for c in ("A", "A, k = 64") if c in t.index]
    out.append(Verdict(
        "VR-Trees (alpha = 0) is best on concept A, also at k = 64 (Table 4)",
        "holds" if all(t.loc[c, "alpha = 0"] == t.loc[c].min() for c in a0)
        else "does not hold",
        "; ".join(f"{c}: best {' = '.join(t.columns[t.loc[c] == t.loc[c].min()])} "
                  f"({t.loc[c].min():.1f})" for c in a0),
        rule="holds when alpha = 0 has the lowest error (ties included, one decimal) on every "
             "concept-A condition measured"))
    noisy = [c for c in t.index if "noise" in c]
    if noisy:
        out.append(Verdict(
            "Coalescence beats RF under 40% class noise (Table 4)",
            part_verdict({c: "holds" if t.loc[c, "Coalescence"] < t.loc[c, "Random Forests"]
                           else "does not hold" for c in noisy}),
            "; ".join(f"{c}: paper Coalescence {p4.loc[c, 'coalescence_err_pct']:g}, RF "
                      f"{p4.loc[c, 'random_forests_err_pct']:g}; treelab Coalescence "
                      f"{t.loc[c, 'Coalescence']:.1f}, RF {t.loc[c, 'Random Forests']:.1f}"
                      for c in noisy),
            rule="per noisy condition: holds when Coalescence's error is lower than RF's at "
                 "one decimal"))
    k64 = [c for c in t.index if "k = 64" in c]
    out.append(Verdict(
        "RF beats Coalescence at k = 64 (Table 4)",
        part_verdict({f"concept {c.split(',')[0]}": "holds"
                       if t.loc[c, "Random Forests"] < t.loc[c, "Coalescence"]
                       else "does not hold" for c in k64}),
        "; ".join(f"{c}: paper RF {p4.loc[c, 'random_forests_err_pct']:g}, Coalescence "
                  f"{p4.loc[c, 'coalescence_err_pct']:g}; treelab RF "
                  f"{t.loc[c, 'Random Forests']:.1f}, Coalescence "
                  f"{t.loc[c, 'Coalescence']:.1f}" for c in k64),
        rule="per concept at k = 64: holds when RF's error is lower than Coalescence's at one "
             "decimal; partly names the concepts where it holds"))
    hard = [c for c in t.index if "irr." in c or "noise" in c]
    tops = {c: list(t.columns[t.loc[c] == t.loc[c].min()]) for c in hard}
    best = {c: " = ".join(m) for c, m in tops.items()}
    out.append(Verdict(
        "alpha = 0.5 is best under irrelevant attributes and class noise (Table 4)",
        part_verdict({c: "holds" if "alpha = 0.5" in m else "does not hold"
                       for c, m in tops.items()}),
        "; ".join(f"{c}: paper best {_best_name(p4.loc[c, 'derived_row_best'])}, treelab "
                  f"{b}" for c, b in best.items()),
        rule="per condition with irrelevant attributes or class noise: holds when alpha = 0.5 "
             "has the lowest error (ties included, one decimal)"))
    return out


def verdicts(f3: dict | None, f4: dict | None, ff: dict | None, f2: dict | None,
              f5: dict | None = None, fc: dict | None = None, f9: dict | None = None
              ) -> list[Verdict]:
    out = []
    if f3:
        out += _table3_verdicts(f3)
    if ff:
        out += _figure_verdicts(ff)
    if f2:
        t = f2["t"]
        widest = t["correlation_range"].idxmax()
        out.append(Verdict("Aggregating spans the widest strength-correlation range (Table 2)",
                           "holds" if widest == "Agg.VR-Trees" else "does not hold",
                           "treelab correlation ranges: " + ", ".join(
                               f"{k} {v:.3f}" for k, v in t["correlation_range"].items()),
                           rule="holds when Aggregating's correlation range (max - min over "
                                "the alphas, averaged over the data sets) is the widest"))
    if f4:
        out += _table4_verdicts(f4)
    p5 = paper_table("liu2008_table5")
    paper5 = (f"paper: Coalescence improves on "
              f"{int((p5['derived_coalescence_improved'] == 'yes').sum())} of its {len(p5)} "
              f"rows, RF on {int((p5['derived_rf_improved'] == 'yes').sum())}")
    rule5 = ("holds when halving the attributes lowers the error (one decimal, as printed) of "
             "Coalescence on more data sets than it lowers RF's")
    if f5:
        h, ph, n = f5["helped"], f5["paper_helped"], len(f5["common"])
        more = len(h["Coalescence"]) > len(h["RF"])
        out.append(Verdict(
            "Halving the attributes helps Coalescence more often than RF (Table 5)",
            "holds" if more else "does not hold",
            f"{paper5} (on the {n} sets treelab has: Coalescence {len(ph['Coalescence'])}, "
            f"RF {len(ph['RF'])}); treelab: Coalescence on {len(h['Coalescence'])} of {n} "
            f"({', '.join(h['Coalescence']) or 'none'}), RF on {len(h['RF'])} "
            f"({', '.join(h['RF']) or 'none'}); mean absolute gap "
            f"{f5['cmp'].overall_mean_abs_gap:.1f} ("
            + ", ".join(f"{c} {g:.1f}" for c, g in f5["cmp"].mean_abs_gap.items()) + ")",
            rule=rule5))
    else:
        out.append(Verdict("Halving the attributes helps Coalescence more often than RF "
                           "(Table 5)", "not measured", f"{paper5}; not part of this run",
                           rule=rule5))
    if fc:
        out += _coalescence_verdicts(fc)
    else:
        out.append(Verdict("Coalescence comes close to the oracle alpha; beats every single "
                           "alpha in the first half of the spectrum", "not measured",
                           "needs Coalescence on the spectrum's data sets (full mode's compare "
                           "grid)"))
    rule9 = ("holds when, on each of Figure 9's data sets, RF's correlation range over every F "
             "is narrower than Aggregating's over the eleven alphas")
    if f9:
        fr = f9["frame"]
        sets = sorted({d for d, _ in fr.index})
        wider = all(fr.loc[(d, "Aggregating"), "correlation range"]
                    > fr.loc[(d, "RF"), "correlation range"] for d in sets)
        out.append(Verdict(
            "RF's parameter F spans a narrower correlation range than Aggregating's alpha "
            "(Figure 9)", "holds" if wider else "does not hold",
            "paper: qualitative (segment, waveform21); treelab correlation range, RF over every "
            "F against Aggregating over eleven alphas: " + "; ".join(
                f"{d} {fr.loc[(d, 'RF'), 'correlation range']:.3f} against "
                f"{fr.loc[(d, 'Aggregating'), 'correlation range']:.3f}" for d in sets),
            rule=rule9))
    else:
        out.append(Verdict("RF's parameter F spans a narrow correlation range (Fig 9)",
                           "not measured", "not part of this run", rule=rule9))
    return out
