"""treelab.report: the methods x data sets table and the paper-vs-treelab comparison, against
hand-worked tables, scipy and statsmodels."""

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from statsmodels.stats.multitest import multipletests

from treelab import stats
from treelab.report import compare, table

# three data sets, three methods, one value each; worked by hand below
ERRORS = pd.DataFrame({"A": [0.10, 0.30, 0.20, 0.40], "B": [0.20, 0.25, 0.20, 0.50],
                       "C": [0.30, 0.35, 0.10, 0.45]},
                      index=pd.Index(["w", "x", "y", "z"], name="dataset"))


def test_one_value_per_cell_hand_worked():
    t = table(ERRORS, reference="A", scale=100, digits=1)
    # ranks per row (1 = lowest error, ties share): w A1 B2 C3; x B1 A2 C3; y C1 A2.5 B2.5;
    # z A1 C2 B3
    assert t.average_rank.tolist() == pytest.approx([6.5 / 4, 8.5 / 4, 9 / 4])
    assert t.best.to_numpy().tolist() == [[True, False, False], [False, True, False],
                                          [False, False, True], [True, False, False]]
    # against A: B wins on x, ties on y, loses on w and z; C wins on y, loses on w, x, z
    wtl = t.wins_ties_losses
    assert wtl.loc["B", ["wins", "ties", "losses"]].tolist() == [1, 1, 2]
    assert wtl.loc["C", ["wins", "ties", "losses"]].tolist() == [1, 0, 3]
    assert t.test == "none"  # one value per cell: no per-data-set test
    # Friedman without tie correction (Demsar's formula) from the ranks above
    r = np.array([6.5, 8.5, 9]) / 4
    n, k = 4, 3
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4)
    assert t.friedman_chi2 == pytest.approx(chi2)
    assert t.friedman_p == pytest.approx(scipy.stats.chi2.sf(chi2, k - 1))
    assert t.mean.loc["x", "B"] == pytest.approx(25.0)


def test_friedman_matches_scipy_without_ties():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.uniform(size=(8, 4)), columns=list("PQRS"),
                         index=pd.Index([f"d{i}" for i in range(8)], name="dataset"))
    t = table(frame)
    stat, p = scipy.stats.friedmanchisquare(*[frame[c] for c in frame.columns])
    assert t.friedman_chi2 == pytest.approx(stat)
    assert t.friedman_p == pytest.approx(p)


def _folds(seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.3, size=(5, 1, 10))  # dataset, repeat, fold
    shifts = np.array([0.0, 0.05, -0.002])[None, :, None, None]
    values = base[:, None] + shifts + rng.normal(scale=0.01, size=(5, 3, 1, 10))
    return xr.DataArray(values, dims=("dataset", "ensemble", "repeat", "fold"),
                        coords={"dataset": [f"d{i}" for i in range(5)],
                                "ensemble": ["ref", "worse", "same"]})


def test_folds_mean_sd_and_wilcoxon_holm_significance():
    da = _folds()
    t = table(da, reference="ref", test="wilcoxon")
    means = da.mean(["repeat", "fold"]).transpose("dataset", "ensemble").values
    sds = da.std(["repeat", "fold"], ddof=1).transpose("dataset", "ensemble").values
    assert np.allclose(t.mean.to_numpy(), means)
    assert np.allclose(t.spread.to_numpy(), sds)
    for method in ("worse", "same"):
        d = (da.sel(ensemble=method) - da.sel(ensemble="ref")).values.reshape(5, -1)
        p = [scipy.stats.wilcoxon(row).pvalue for row in d]
        reject = multipletests(p, alpha=0.05, method="holm")[0]
        sign = np.sign(np.median(d, axis=1))
        row = t.wins_ties_losses.loc[method]
        assert row.significant_losses == int(np.sum(reject & (sign > 0)))
        assert row.significant_wins == int(np.sum(reject & (sign < 0)))
    assert t.wins_ties_losses.loc["worse", "significant_losses"] == 5
    text, bold = t.cells()
    assert text.loc["d0", "ref"].count("±") == 1


def test_five_by_two_f_is_alpaydins_statistic():
    rng = np.random.default_rng(1)
    acc = rng.uniform(0.7, 0.9, size=(4, 1, 5, 2))
    acc = np.concatenate([acc, acc + 0.06 + rng.normal(scale=0.01, size=acc.shape)], axis=1)
    da = xr.DataArray(acc, dims=("dataset", "ensemble", "repeat", "fold"),
                      coords={"ensemble": ["a", "b"], "dataset": list("pqrs")})
    t = table(da, reference="a", test="5x2cv-f", greater_is_better=True)
    sig = 0
    for i in range(4):
        p = acc[i, 1] - acc[i, 0]
        s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        f = (p**2).sum() / (2 * s2.sum())  # Alpaydin (1999)
        sig += scipy.stats.f.sf(f, 10, 5) < 0.05
    assert t.wins_ties_losses.loc["b", "significant_wins"] == sig
    assert t.best["b"].all()  # higher accuracy is better


def test_renderers():
    t = table(ERRORS, reference="A", scale=100, digits=1)
    md = t.to_markdown(caption=False).splitlines()
    assert md[0] == "| dataset | A | B | C |"
    assert md[2] == "| w | **10.0** | 20.0 | 30.0 |"
    assert md[-1] == "| w/t/l vs A |  | 1/1/2 | 1/0/3 |"
    latex = t.to_latex()
    for rule in (r"\toprule", r"\bottomrule"):
        assert latex.count(rule) == 1
    # one rule below the header, one between the data rows and the footer rows
    assert latex.count(r"\midrule") == 2
    assert latex.index(r"z & \textbf{40.0}") < latex.rindex(r"\midrule") \
        < latex.index("average rank")
    assert r"\textbf{10.0}" in latex and r"\caption{" in latex
    html = t.to_html().to_html()
    assert "font-weight: bold" in html and "10.0" in html


@pytest.mark.parametrize("kwargs, error, match", [
    ({"test": "t-test"}, ValueError, r"test must be one of .*got 't-test'"),
    ({"scale": 0}, ValueError, "scale must be a positive number, got 0"),
    ({"digits": -1}, ValueError, "digits must be a non-negative int, got -1"),
    ({"reference": "nope"}, ValueError, "reference='nope' is not a method of"),
    ({"dim_method": "method"}, ValueError, "dim_method='method' is not a dim of results")])
def test_bad_arguments_are_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        table(ERRORS, **kwargs)
    with pytest.raises(TypeError, match="results must be an xarray Dataset/DataArray or a "
                                        "pandas DataFrame"):
        table([[0.1, 0.2]])


def test_compare_overall_gap_weighs_every_filled_cell_alike():
    """Columns holding different numbers of filled cells: the overall mean |gap| is the mean
    over the cells (one column's four gaps of 1 and another's one gap of 6 give 2), not the
    mean of the column means (3.5)."""
    paper = pd.DataFrame({"RF": [10.0, 20.0, 30.0, 40.0], "Bag": [10.0, np.nan, 30.0, 5.0]},
                         index=["a", "b", "c", "d"])
    mine = pd.DataFrame({"RF": [11.0, 19.0, 31.0, 39.0], "Bag": [16.0, 25.0, np.nan, np.nan]},
                        index=["a", "b", "c", "d"])
    c = compare(paper, mine)
    assert c.mean_abs_gap.tolist() == [1.0, 6.0]
    cells = np.abs(mine.to_numpy() - paper.to_numpy())
    assert c.overall_mean_abs_gap == np.nanmean(cells) == 2.0
    assert "over all 5 cells both fill: 2.0." in c.caption()


def test_compare_gaps_spearman_and_ranks():
    paper = pd.DataFrame({"RF": [10.0, 20.0, 30.0, 5.0], "Bag": [12.0, 18.0, 35.0, np.nan]},
                         index=["a", "b", "c", "d"])
    mine = pd.DataFrame({"Bag": [11.0, 21.0, 30.0], "RF": [11.0, 19.0, 33.0],
                         "extra": [1.0, 2.0, 3.0]}, index=["a", "b", "c"])
    c = compare(paper, mine)
    assert list(c.gap.columns) == ["RF", "Bag"] and list(c.gap.index) == ["a", "b", "c"]
    assert c.gap["RF"].tolist() == [1.0, -1.0, 3.0]
    assert c.mean_abs_gap["Bag"] == pytest.approx((1 + 3 + 5) / 3)
    assert c.spearman["RF"] == pytest.approx(
        scipy.stats.spearmanr([10, 20, 30], [11, 19, 33]).statistic)
    # average ranks over rows both fill: paper RF a1 b2 c1 -> 4/3; treelab RF a1.5 b1 c2
    assert c.paper_rank["RF"] == pytest.approx(4 / 3)
    assert c.treelab_rank["RF"] == pytest.approx(4.5 / 3)
    assert c.overall_mean_abs_gap == pytest.approx((1 + 1 + 3 + 1 + 3 + 5) / 6)
    md = c.to_markdown()
    assert "| RF (paper) | RF (treelab) | RF gap |" in md.splitlines()[0]
    assert "+3.0" in md
    with pytest.raises(ValueError):
        compare(paper, mine.rename(index={"a": "q", "b": "r", "c": "s"}))
    with pytest.raises(TypeError):
        compare(paper, [1, 2])


def test_significant_counts_take_the_direction_the_wilcoxon_test_rejected_toward():
    # 16 small positive and 14 large negative differences a - b over 30 folds: the test
    # rejects because a's errors are smaller (R+ = 136 < R- = 329), while the median
    # difference is positive (+0.001)
    d = np.concatenate([0.001 + 0.0001 * np.arange(16), -(0.05 + 0.01 * np.arange(14))])
    b = np.full(30, 0.20)
    da = xr.DataArray(np.stack([b + d, b])[:, None, :], dims=("ensemble", "dataset", "fold"),
                      coords={"ensemble": ["A", "B"], "dataset": ["d0"]})
    r_plus = scipy.stats.wilcoxon(d, alternative="greater").statistic
    assert (r_plus, 30 * 31 / 2 - r_plus) == (136, 329)
    assert scipy.stats.wilcoxon(d, alternative="less").pvalue < 0.05 / 2
    assert np.median(d) > 0
    wtl = table(da, reference="B").wins_ties_losses
    assert wtl.loc["A", ["significant_wins", "significant_losses"]].tolist() == [1, 0]
    # the same as accuracies: A is still the significantly better one
    acc = table(1 - da, reference="B", greater_is_better=True).wins_ties_losses
    assert acc.loc["A", ["significant_wins", "significant_losses"]].tolist() == [1, 0]
    res = stats.wilcoxon_holm(da, "A", "B")
    assert bool(res.significant[0])
    assert (float(res.rank_sum_positive[0]), float(res.rank_sum_negative[0])) == (136, 329)
