"""Paired tests (Wilcoxon with Holm, Nadeau-Bengio, McNemar) and probability quality (log
loss, Brier with Murphy's decomposition, ECE, one-vs-rest AUC) against hand-worked numbers,
loops and scipy's distributions applied by hand."""

import math

import naive_analysis as naive
import numpy as np
import pytest
import scipy.stats
import xarray as xr

from treelab.stats import corrected_resampled_t, mcnemar, probability_quality, wilcoxon_holm


def _results(seed=0, n_data=4, n_rep=3, n_fold=5):
    rng = np.random.default_rng(seed)
    base = rng.random((n_data, 1, n_rep, n_fold)) * 0.3
    shift = np.array([0.0, 0.05, -0.02, 0.1])[:n_data, None, None, None]
    noise = rng.normal(0, 0.02, (n_data, 1, n_rep, n_fold))
    vals = np.concatenate([base + shift + noise, base], axis=1)
    return xr.DataArray(vals, dims=("dataset", "ensemble", "repeat", "fold"),
                        coords={"dataset": list("abcd")[:n_data], "ensemble": ["A", "B"]})


def test_wilcoxon_holm_matches_scipy_and_holm():
    da = _results()
    ds = wilcoxon_holm(da, "A", "B")
    d = (da.sel(ensemble="A") - da.sel(ensemble="B")).values.reshape(4, -1)
    p = [scipy.stats.wilcoxon(row).pvalue for row in d]
    np.testing.assert_allclose(ds.p_value.values, p, rtol=1e-12)
    np.testing.assert_allclose(ds.p_holm.values, naive.holm(p), rtol=1e-12)
    assert list(ds.significant.values) == [ph < 0.05 for ph in naive.holm(p)]
    assert ds.p_value.dims == ("dataset",)
    assert ds.attrs["function"] == "treelab.stats.wilcoxon_holm"


def test_wilcoxon_all_zero_differences():
    da = _results()
    da.loc[{"ensemble": "A", "dataset": "a"}] = da.sel(ensemble="B", dataset="a")
    assert float(wilcoxon_holm(da, "A", "B").p_value.sel(dataset="a")) == 1.0


def test_corrected_resampled_t_handworked():
    # J = 4 differences 0.1, 0.2, 0.3, 0.2 from 2x2-fold cv: test fraction 1/2, ratio 1
    vals = np.zeros((2, 2, 2))
    vals[0] = [[0.1, 0.2], [0.3, 0.2]]
    da = xr.DataArray(vals, dims=("ensemble", "repeat", "fold"), coords={"ensemble": ["A", "B"]})
    ds = corrected_resampled_t(da, "A", "B", test_fraction=0.5)
    s2 = np.var([0.1, 0.2, 0.3, 0.2], ddof=1)
    t = 0.2 / math.sqrt((1 / 4 + 1.0) * s2)
    assert float(ds.t) == pytest.approx(t, rel=1e-12)
    assert float(ds.p_value) == pytest.approx(2 * scipy.stats.t.sf(t, 3), rel=1e-12)
    assert int(ds.df) == 3
    with pytest.raises(ValueError, match="test_fraction"):
        corrected_resampled_t(da, "A", "B", test_fraction=1.0)


def test_mcnemar_exact_and_chi2():
    y = np.zeros(40, int)
    a = np.zeros(40, int)
    b = np.zeros(40, int)
    a[:3] = 1  # a wrong on 3 rows where b is right
    b[3:12] = 1  # b wrong on 9 rows where a is right
    ds = mcnemar(a, b, y)
    assert (int(ds.n01), int(ds.n10)) == (3, 9)
    assert bool(ds.exact)
    assert float(ds.p_value) == pytest.approx(scipy.stats.binomtest(3, 12, 0.5).pvalue)
    chi = mcnemar(a, b, y, exact=False)
    stat = (abs(3 - 9) - 1) ** 2 / 12
    assert float(chi.statistic) == pytest.approx(stat)
    assert float(chi.p_value) == pytest.approx(scipy.stats.chi2.sf(stat, 1))
    with pytest.raises(ValueError, match="lengths"):
        mcnemar(a, b[:5], y)


def _discordant(n01, n10, n=80):
    """Predictions of a and b on n rows of class 0: a wrong and b right on n01 rows, the
    reverse on n10, both right on the rest."""
    a, b = np.zeros(n, int), np.zeros(n, int)
    a[:n01] = 1
    b[n01:n01 + n10] = 1
    return a, b, np.zeros(n, int)


@pytest.mark.parametrize("n", [13, 20])
def test_mcnemar_chi2_of_equal_discordant_counts_is_zero(n):
    # n01 = n10: no evidence either way. The continuity correction shrinks |n01 - n10| = 0
    # towards 0, not past it: chi2 = max(0 - 1, 0)^2 / 2n = 0, p = 1 (the exact binomial test
    # says 1 too); the bare (|0| - 1)^2 / 26 = 0.038 gave p = 0.845 for n = 13
    a, b, y = _discordant(n, n)
    ds = mcnemar(a, b, y)  # n01 + n10 >= 25: the chi-squared test by default
    assert not bool(ds.exact)
    assert float(ds.statistic) == 0.0
    assert float(ds.p_value) == 1.0
    assert scipy.stats.binomtest(n, 2 * n, 0.5).pvalue == 1.0
    # unequal counts keep the printed formula: (|30 - 10| - 1)^2 / 40
    ds = mcnemar(*_discordant(30, 10))
    assert float(ds.statistic) == pytest.approx(19 ** 2 / 40, rel=1e-12)
    assert float(ds.p_value) == pytest.approx(scipy.stats.chi2.sf(19 ** 2 / 40, 1), rel=1e-12)
    # one apart: the correction takes |n01 - n10| = 1 to 0
    assert float(mcnemar(*_discordant(12, 13)).statistic) == 0.0


def test_mcnemar_without_discordant_rows_is_nan_with_p_one():
    a, b, y = _discordant(0, 0)
    for exact in (None, True, False):
        ds = mcnemar(a, b, y, exact=exact)
        assert (int(ds.n01), int(ds.n10)) == (0, 0)
        assert np.isnan(float(ds.statistic))
        assert float(ds.p_value) == 1.0
        assert not bool(ds.significant)


def _proba(seed, n=60, C=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    raw = rng.integers(0, 4, (n, C)).astype(float) + 3 * np.eye(C)[y] * (rng.random(n) < 0.6)[
        :, None]
    raw[raw.sum(1) == 0, 0] = 1
    return raw / raw.sum(1, keepdims=True), y


def test_log_loss_of_a_zero_true_class_probability_is_clipped_at_machine_epsilon():
    # rows: true class at 0 (clipped to eps = 2**-52), at 1 (clipped to 1 - eps), at 1/2;
    # float32 input is read as float64 first, so its eps is float64's too
    P = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    y = np.array([1, 1, 0])
    eps = 2.0 ** -52
    expected = (-math.log(eps) - math.log1p(-eps) + math.log(2)) / 3  # 12.2456
    for dtype in (np.float64, np.float32):
        ds = probability_quality(P.astype(dtype), y)
        assert float(ds.log_loss) == pytest.approx(expected, rel=1e-12)
    assert -math.log(eps) == pytest.approx(36.04365, abs=1e-5)


@pytest.mark.parametrize("seed", range(5))
def test_probability_quality_matches_loops(seed):
    C = 2 + seed % 3
    P, y = _proba(seed, C=C)
    y[:C] = np.arange(C)  # every class present, for the AUC
    ds = probability_quality(P, y, n_bins=7)
    brier = np.mean([sum((P[i, c] - (y[i] == c)) ** 2 for c in range(C)) for i in range(60)])
    assert float(ds.brier) == pytest.approx(brier, abs=1e-12)
    total = ds.brier_reliability - ds.brier_resolution + ds.brier_uncertainty
    assert float(total) == pytest.approx(brier, abs=1e-12)
    pc = np.clip(P[np.arange(60), y], np.finfo(float).eps, 1)
    assert float(ds.log_loss) == pytest.approx(-np.mean(np.log(pc)), rel=1e-9)
    for key, count in (("ece_width", False), ("ece_count", True)):
        ref = naive.ece(P.tolist(), y.tolist(), 7, count)
        assert float(ds[key]) == pytest.approx(ref, abs=1e-12), key
    assert float(ds.auc_ovr) == pytest.approx(naive.auc_ovr(P.tolist(), y.tolist(), C), abs=1e-12)


def test_probability_quality_handworked_and_dims():
    # two forecasts, (0.8, 0.2) on rows with labels 0, 0, 1 and (0.3, 0.7) on labels 1, 1
    P = np.array([[0.8, 0.2]] * 3 + [[0.3, 0.7]] * 2)
    y = np.array([0, 0, 1, 1, 1])
    ds = probability_quality(P, y, n_bins=2)
    # REL: 3/5 * 2 (0.8 - 2/3)^2 + 2/5 * 2 (0.3 - 0)^2; UNC: 2 * 0.4 * 0.6
    assert float(ds.brier_reliability) == pytest.approx(3 / 5 * 2 * (0.8 - 2 / 3) ** 2
                                                        + 2 / 5 * 2 * 0.09)
    assert float(ds.brier_uncertainty) == pytest.approx(0.48)
    # both confidences in bin (0.5, 1]; argmax right on 4 of 5 rows:
    # |4/5 - (0.8 * 3 + 0.7 * 2) / 5| = |0.8 - 0.76|
    assert float(ds.ece_width) == pytest.approx(0.04)
    stacked = xr.DataArray(np.stack([P, P[:, ::-1]]), dims=("alpha", "sample", "class"),
                           coords={"alpha": [0.0, 1.0]})
    both = probability_quality(stacked, y, n_bins=2)
    assert both.brier.dims == ("alpha",)
    assert float(both.brier[0]) == pytest.approx(float(ds.brier))
    assert float(both.auc_ovr[1]) == pytest.approx(1 - float(ds.auc_ovr))
    with pytest.raises(ValueError, match="n_bins"):
        probability_quality(P, y, n_bins=0)
    with pytest.raises(ValueError, match="sum to 1"):
        probability_quality(P * 0.5, y)


def test_equal_count_ece_keeps_tied_confidences_in_one_bin():
    # five rows of confidence 0.6 (three right) and three of 0.9 (two right), two bins: the
    # 4 | 4 split falls inside the tie, which once went by the rows' order (0.2375 or 0.0875)
    conf = np.array([0.6] * 5 + [0.9] * 3)
    right = np.array([1, 1, 1, 0, 0, 1, 1, 0])
    P = np.stack([conf, 1 - conf], axis=1)
    y = np.where(right == 1, 0, 1)
    # by hand: the 0.6 rows in one bin (accuracy 0.6, gap 0), the 0.9 rows in the other
    expected = abs(2 - 3 * 0.9) / 8
    for perm in ([0, 1, 2, 3, 4, 5, 6, 7], [3, 4, 0, 1, 2, 5, 6, 7], [7, 0, 3, 6, 1, 4, 2, 5]):
        ds = probability_quality(P[perm], y[perm], n_bins=2)
        assert float(ds.ece_count) == pytest.approx(expected, abs=1e-15), perm


def test_diagnose_auc_keeps_tied_vote_fractions_tied():
    """Vote fractions whose rows sum to 1 but for the last bit were divided by those sums,
    which split equal scores of different rows: the AUC differed from scikit-learn's on the
    same fractions (seed 184: 0.998843 against 0.999228)."""
    from sklearn.metrics import roc_auc_score

    from treelab.analysis import diagnose

    differ = []
    for seed in (173, 184, 186, 196):
        rng = np.random.default_rng(seed)
        n_trees, n, n_classes = 10, 60, 3
        y = rng.integers(0, n_classes, n)
        labels = np.where(rng.random((n_trees, n)) < 0.6, y[None, :],
                          rng.integers(0, n_classes, (n_trees, n)))
        ds = diagnose(labels, None, y, measures="probability_quality",
                      classes=np.arange(n_classes), combine="vote")
        fractions = np.stack([(labels == c).sum(0) for c in range(n_classes)], 1) / n_trees
        ref = roc_auc_score(y, fractions, multi_class="ovr", labels=np.arange(n_classes))
        if float(ds.auc_ovr) != ref:
            differ.append((seed, float(ds.auc_ovr), ref))
    assert differ == []


def test_probability_quality_auc_nan_names_the_classes_without_rows():
    # three class columns, no row of the third: its one-vs-rest AUC (and so the macro
    # average) is undefined, and the variable says which class left it NaN
    P = np.array([[0.7, 0.2, 0.1], [0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]])
    ds = probability_quality(P, ["a", "b", "a", "b"], classes=["a", "b", "zz"])
    assert np.isnan(float(ds.auc_ovr))
    assert "['zz'] have no row in y" in ds.auc_ovr.attrs["description"]
    coded = probability_quality(P, [0, 1, 0, 1])
    assert "[2] have no row in y" in coded.auc_ovr.attrs["description"]
    every = probability_quality(P, [0, 1, 2, 1])
    assert float(every.auc_ovr) == pytest.approx(naive.auc_ovr(P.tolist(), [0, 1, 2, 1], 3))
    assert "have no row" not in every.auc_ovr.attrs["description"]
