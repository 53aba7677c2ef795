"""The reproductions' verdicts: outcomes, Holm, exact ties, one source for the verdict table
and the claims pages, and no paper number typed into code."""

from __future__ import annotations

import ast
import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treelab.reproduce import Verdict, fill_verdict_block, study_verdicts
from treelab.reproduce._study import CLAIMS_END, CLAIMS_START, verdict_summary
from treelab.reproduce._verdicts import (
    average_ranks,
    check_outcome,
    exact_wins,
    holm,
    snap_ties,
)

ROOT = Path(__file__).resolve().parents[1]


# --- outcomes and Holm ---------------------------------------------------------------------

def test_verdict_outcomes_are_checked():
    for ok in ("holds", "does not hold", "inconclusive", "not measured", "partly (concept B)"):
        assert Verdict("c", ok, "n").verdict == ok
    for bad in ("partly", "holds by construction", "reproduced", "Holds"):
        with pytest.raises(ValueError, match="verdict must be one of"):
            Verdict("c", bad, "n")
    assert check_outcome("partly (Bagging)") == "partly (Bagging)"


def test_holm_against_a_hand_worked_example_and_statsmodels():
    # sorted 0.01, 0.04, 0.3 with m = 3: 0.03, max(0.03, 0.08), max(0.08, 0.3)
    np.testing.assert_allclose(holm([0.04, 0.3, 0.01]), [0.08, 0.3, 0.03])
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    for _ in range(20):
        p = rng.uniform(0, 0.2, size=6)
        np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1])
    with pytest.raises(ValueError, match="pvalues"):
        holm([0.1, 1.5])


def test_liu_smallest_of_six_uncorrected_p_values_is_not_significant_after_holm():
    # the reading: six p-values whose smallest, 0.04, reads as a difference alone
    p = [0.04, 0.3, 0.5, 0.7, 0.2, 0.9]
    assert min(p) < 0.05 and holm(p).min() == pytest.approx(0.24)


# --- exact ties ------------------------------------------------------------------------------

def _last_bit_ties() -> pd.DataFrame:
    """Mean accuracies over folds of methods right on the same rows (142 of 150 on iris), that
    differ only in the last bit, beside real differences."""
    a = 0.9466666666666668
    b = np.nextafter(a, 0)  # 0.9466666666666667
    return pd.DataFrame({"RDT": [b, 0.5, 0.8], "ERDT": [a, 0.6, 0.8],
                         "MMDT": [b, 0.4, np.nextafter(0.8, 1)]},
                        index=["iris", "glass", "wine"])


def test_float_noise_ties_are_ties_in_counts_and_ranks():
    acc = _last_bit_ties()
    assert acc.loc["iris", "ERDT"] > acc.loc["iris", "MMDT"]  # the float says ERDT wins
    assert exact_wins(acc, "ERDT", "MMDT") == (1, 2, 0)  # glass ERDT; iris and wine ties
    snapped = snap_ties(acc)
    assert snapped.loc["iris"].nunique() == 1 and snapped.loc["wine"].nunique() == 1
    # ranks: iris and wine three-way ties (2 each), glass ERDT 1, RDT 2, MMDT 3
    np.testing.assert_allclose(average_ranks(acc).to_numpy(), [2.0, 5 / 3, 7 / 3])
    counts = pd.DataFrame({"RDT": [142, 75, 80], "ERDT": [142, 90, 80],
                           "MMDT": [142, 60, 80]})
    np.testing.assert_allclose(average_ranks(counts).to_numpy(), [2.0, 5 / 3, 7 / 3])


def test_a_missing_score_stays_missing_and_is_skipped_or_refused():
    # MMDT has no score on d0: snapping must not give it the row's largest value (0.95)
    s = pd.DataFrame({"ERDT": [0.90, 0.80, 0.70], "MMDT": [np.nan, 0.85, 0.60],
                      "RDT": [0.95, 0.75, 0.65]}, index=["d0", "d1", "d2"])
    snapped = snap_ties(s)
    assert np.isnan(snapped.loc["d0", "MMDT"])
    pd.testing.assert_frame_equal(snapped.fillna(-1.0), s.fillna(-1.0))
    # a NaN between near-equal values does not break or join their chain
    row = pd.DataFrame([[0.5, np.nan, np.nextafter(0.5, 1)]])
    np.testing.assert_array_equal(snap_ties(row).to_numpy(), [[0.5, np.nan, 0.5]])
    # d0 is not comparable: ERDT wins on d2, loses on d1, no tie
    assert exact_wins(s, "ERDT", "MMDT") == (1, 0, 1)
    with pytest.raises(ValueError, match="no value for data set 'd0', method 'MMDT'"):
        average_ranks(s)


def _gashler_folds(acc: pd.DataFrame) -> pd.DataFrame:
    rows = [{"grid": "gashler", "dataset": d, "ensemble": m, "repeat": 0, "fold": f,
             "accuracy": float(acc.loc[d, m])}
            for d in acc.index for m in acc.columns for f in (0, 1)]
    return pd.DataFrame(rows).set_index(["grid", "dataset", "ensemble", "repeat", "fold"])


@pytest.mark.parametrize("sole,expected", [
    ({"RDT": 2, "ERDT": 2, "MMDT": 1}, "does not hold"),  # a tie for the most is no lead
    ({"RDT": 3, "ERDT": 2, "MMDT": 1}, "holds"),
    ({"RDT": 2, "ERDT": 1, "MMDT": 3}, "does not hold"),
])
def test_gashler_table1_needs_rdt_on_strictly_more_sets(sole, expected):
    from treelab.reproduce._gashler2008_report import _table1

    rows, n = {}, 0
    for winner, count in sole.items():
        for _ in range(count):
            rows[f"s{n}"] = {m: 0.9 if m == winner else 0.8 for m in ("RDT", "ERDT", "MMDT")}
            n += 1
    rows["tie"] = {"RDT": 0.9, "ERDT": 0.9, "MMDT": 0.8}  # no clear winner
    acc = pd.DataFrame(rows).T
    acc["CVDT"] = 0.85
    _, (v,) = _table1(_gashler_folds(acc), "gashler")
    assert "on more data sets than ERDT or MMDT" in v.rule
    mine = ", ".join(f"100x{m} {c}" for m, c in sole.items())
    assert f"treelab {mine}, no clear winner 1" in v.numbers
    assert v.verdict == expected


def test_every_study_report_treats_last_bit_differences_as_ties():
    from treelab.reproduce import _gashler2008_report, rotation

    acc = _last_bit_ties()
    acc["CVDT"] = [0.9, 0.5, 0.7]
    acc["1000 x RDT"], acc["1000 x ERDT"] = acc["RDT"], acc["ERDT"]
    density = pd.DataFrame({"log10_density": [1.0, 2.0, 3.0]},
                           index=pd.Index(acc.index, name="dataset"))
    sections, verdicts = _gashler2008_report.report(
        {"accuracy_folds": _gashler_folds(acc), "density": density}, "ci")
    text = "\n".join(s.text for s in sections)
    # Table 1 over RDT, ERDT, MMDT: glass ERDT; iris and wine no clear winner
    assert "| ERDT | 13 | 1 |" in text and "| no clear winner | 1 | 2 |" in text
    erdt = next(v for v in verdicts if v.claim.startswith("ERDT is more accurate"))
    assert "treelab 1 of 3" in erdt.numbers  # glass only: iris's last bit is not a win
    # rotation: two methods of equal mean error are a tie, not a win
    rot = pd.DataFrame(
        [{"n_irrelevant": k, "dataset": d, "ensemble": m, "repeat": 0, "fold": 0,
          "error": e} for k in (0, 4) for d in ("a", "b") for m, e in
         (("Random forest", 0.3 if d == "a" else np.nextafter(0.2, 1)),
          ("rotation forest", 0.3 if d == "a" else 0.2))]
    ).set_index(["n_irrelevant", "dataset", "ensemble", "repeat", "fold"])
    _, rv = rotation.report({"error_folds": rot}, "ci")
    assert rv[0].verdict == "does not hold"  # equal errors: no rotation-forest edge


def test_rotation_verdicts_show_each_rotation_forests_posterior_over_data_set_means():
    import re

    import xarray as xr

    from treelab.reproduce import rotation
    from treelab.stats import bayesian_signed_rank

    rng = np.random.default_rng(3)
    methods = ("Random forest", "Rotation (PCA)", "Rotation (random)")
    rows = [{"n_irrelevant": k, "dataset": f"d{i}", "ensemble": m, "repeat": 0, "fold": f,
             "error": rng.uniform(0.05, 0.4)}
            for k in (0, 64) for i in range(6) for m in methods for f in range(3)]
    folds = pd.DataFrame(rows).set_index(["n_irrelevant", "dataset", "ensemble", "repeat",
                                          "fold"])
    _, verdicts = rotation.report({"error_folds": folds}, "ci")
    for verdict, k in zip(verdicts[:2], (0, 64), strict=True):
        assert "shown for reference" in verdict.rule
        # the reference: each data set's mean error in percent, straight from the folds
        means = (folds.xs(k, level="n_irrelevant")["error"].groupby(["dataset", "ensemble"])
                 .mean().unstack() * 100)
        for m in methods[1:]:
            scores = xr.DataArray(means[[m, "Random forest"]].to_numpy(),
                                  dims=("dataset", "ensemble"),
                                  coords={"ensemble": ["a", "b"]})
            want = bayesian_signed_rank(scores, "a", "b", rope=1.0)
            got = re.search(rf"test of {re.escape(m)} - Random forest over 6 data sets, ROPE "
                            r"\+-1 point of error: P\(\S+ \(\S+\) better\) ([\d.]+), "
                            r"P\(practically equivalent\) ([\d.]+), P\(Random forest "
                            r"better\) ([\d.]+)", verdict.numbers)
            assert got is not None, verdict.numbers
            assert [float(g) for g in got.groups()] == [
                round(float(want[v]), 2) for v in ("p_a_better", "p_rope", "p_b_better")]


# --- one source for the verdict table and the claims pages ----------------------------------

CLAIMS = sorted((ROOT / "docs" / "reproductions" / "claims").glob("*.md"))


@pytest.mark.parametrize("path", CLAIMS, ids=[p.stem for p in CLAIMS])
def test_claims_page_verdicts_are_the_page_table_verdicts(path):
    text = path.read_text(encoding="utf-8")
    verdicts = study_verdicts(path.stem, ROOT / "data" / "reproductions" / path.stem)
    assert fill_verdict_block(text, verdicts) == text, (
        f"{path.name}'s verdict block differs from the page's verdicts: run "
        "python scripts/make_reproduction_pages.py")
    block = text.split(CLAIMS_START, 1)[1].split(CLAIMS_END, 1)[0]
    for v in verdicts:
        assert f"| {v.claim} | {v.verdict} |" in block


def test_a_changed_verdict_is_caught():
    verdicts = [Verdict("claim a", "holds", "1"), Verdict("claim b", "inconclusive", "2")]
    page = f"intro\n{CLAIMS_START}\n{verdict_summary(verdicts)}\n{CLAIMS_END}\nrest\n"
    assert fill_verdict_block(page, verdicts) == page
    flipped = [verdicts[0], Verdict("claim b", "does not hold", "2")]
    assert fill_verdict_block(page, flipped) != page
    with pytest.raises(ValueError, match="no generated verdict block"):
        fill_verdict_block("no markers", verdicts)


# --- no paper number typed into code ---------------------------------------------------------

def _paper_rows() -> list[set[float]]:
    """The printed numbers of every row of the shipped paper tables that have a decimal point
    and at least two significant digits (23.7, 0.60, .007212)."""
    rows = []
    for path in sorted((ROOT / "data" / "papers").glob("*.csv")):
        with path.open(encoding="utf-8") as f:
            for row in csv.reader(f):
                rows.append({float(c) for c in row if _digits(c) >= 2})
    return rows


def _digits(text: str) -> int:
    """Significant digits of a number printed with a decimal point (0 for anything else)."""
    try:
        value = float(text)
    except ValueError:
        return 0
    if "." not in text or not np.isfinite(value):
        return 0
    return len(text.lstrip("-").replace(".", "").lstrip("0").rstrip("0"))


def _literals(source: str) -> dict[int, list[str]]:
    """Float literals of a module by line (docstrings and comments are text, not literals)."""
    out: dict[int, list[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            out.setdefault(node.lineno, []).append(ast.get_source_segment(source, node) or "")
    return out


def _transcriptions(source: str, rows: list[set[float]]) -> list[tuple[int, str]]:
    """Literals that copy a paper number: one of at least three significant digits, or two
    or more on one line from the same row of a paper table (a row typed in)."""
    numbers = set().union(*rows)
    found = []
    for line, lits in _literals(source).items():
        for lit in lits:
            if _digits(lit) >= 3 and float(lit) in numbers:
                found.append((line, lit))
        two = [lit for lit in lits if _digits(lit) >= 2]
        for row in rows:
            same = sorted({lit for lit in two if float(lit) in row})
            if len(same) >= 2:
                found += [(line, lit) for lit in same if (line, lit) not in found]
    return found


#: literals equal to a paper number that are not one: (file, literal) -> why
ALLOWED: dict[tuple[str, str], str] = {
    ("treelab/plot/surface.py", "0.435"): "an RGB component of a class colour",
    ("treelab/plot/surface.py", "0.439"): "an RGB component of a class colour",
}


def test_no_paper_number_is_typed_into_code():
    rows = _paper_rows()
    numbers = set().union(*rows)
    assert {23.7, 9.4, 0.007212, 15.6} <= numbers  # the scan's reach
    found = []
    for folder in ("treelab", "scripts", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            found += [f"{rel}:{line}: {lit}"
                      for line, lit in _transcriptions(path.read_text(encoding="utf-8"), rows)
                      if (rel, lit) not in ALLOWED]
    assert not found, "paper numbers typed into code (read them from data/papers):\n" + \
        "\n".join(found)


def test_the_scan_finds_planted_numbers():
    rows = _paper_rows()
    # a Table 2 row typed in (Ali & Pazzani's Led 8i), Fan's RD bias alone, a harmless 0.5
    source = "PAPER = {'Led 8i': (23.7, 9.4)}\nBIAS = 0.005833\nOK = 0.5\n"
    assert sorted(lit for _, lit in _transcriptions(source, rows)) == ["0.005833", "23.7", "9.4"]
    assert _transcriptions("SIZE = (4.2, 12.0)\nWIDTH = 1.5\n", rows) == []


def _liu_ranks(friedman_rejects: bool):
    """Ten data sets' ranks of five methods (seeded search) where Coalescence ranks best,
    Bonferroni-Dunn finds Max-Diverse alone significantly worse, and Friedman (scipy's statistic:
    no ties) does or does not reject at 0.05."""
    import scipy.stats
    import xarray as xr

    from treelab import stats

    methods = ["Coalescence", "Max-Diverse", "Bagging", "Random Forests", "Random Subspace"]
    rng = np.random.default_rng(0)
    for _ in range(20000):
        tab = np.array([rng.permutation(5) + 1.0 for _ in range(10)])
        if tab.mean(0)[0] != tab.mean(0).min():
            continue
        p = scipy.stats.friedmanchisquare(*tab.T).pvalue
        da = xr.DataArray(tab, dims=("dataset", "ensemble"),
                          coords={"ensemble": methods, "dataset": [f"d{i}" for i in range(10)]})
        dunn = stats.bonferroni_dunn(da, control="Coalescence")
        if (p < 0.05) == friedman_rejects and dunn.significant.values.tolist() == [0, 1, 0, 0, 0]:
            return p, dunn, pd.Series(tab.mean(0), index=methods)
    raise AssertionError("no such table in the search")


@pytest.mark.parametrize("friedman_rejects,expected", [
    (False, "partly (not over RF)"),  # Max-Diverse's post-hoc difference is not read
    (True, "partly (over Max-Diverse, not over RF)"),
])
def test_liu_table3_reads_bonferroni_dunn_only_where_friedman_rejects(friedman_rejects,
                                                                       expected):
    from treelab.reproduce._liu2008_verdicts import _table3_verdicts

    p, dunn, ranks = _liu_ranks(friedman_rejects)
    f3 = {"paper_rank": ranks, "mine_rank": ranks, "common": list(range(10)), "dunn": dunn,
          "wilcoxon_holm": {m: (0.5, 1.0) for m in ranks.index[1:]}, "bayesian": {}}
    v = _table3_verdicts(f3)[1]
    assert v.verdict == expected
    assert "read only where Friedman rejects" in v.rule
    assert f"Friedman p {p:.3g}" in v.numbers
