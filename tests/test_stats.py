"""treelab.stats against a published worked example (Demsar 2006), scipy, scikit-posthocs and
direct loop implementations of the formulas."""

import numpy as np
import pandas as pd
import pytest
import scikit_posthocs as sp
import scipy.stats
import xarray as xr

from treelab import stats

METHODS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
# Demsar (2006), Table 6: AUC of four C4.5 variants on 14 UCI data sets (higher is better).
DEMSAR_AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
])
DATASETS = ["adult", "breast", "wisconsin", "cmc", "ionosphere", "iris", "liver", "lung",
            "lymphography", "mushroom", "tumor", "rheum", "voting", "wine"]


def table(values, methods=METHODS, datasets=DATASETS):
    return xr.DataArray(values, dims=("dataset", "ensemble"),
                        coords={"dataset": datasets[: len(values)], "ensemble": methods})


@pytest.fixture
def paper():
    """The table as printed, except that the voting row's tie of C4.5+cf and C4.5+m+cf (both
    0.975 after rounding) is broken the way the paper's average ranks show it was in the
    unrounded AUCs (C4.5+cf ahead); the ranks then equal the published 3.143, 2.000, 2.893,
    1.964."""
    auc = DEMSAR_AUC.copy()
    auc[12, 2], auc[12, 3] = 0.9751, 0.9749
    return table(auc)


@pytest.fixture
def printed():
    return table(DEMSAR_AUC)


# ------------------------------------------------------------------ Friedman (Demsar 3.2.2)


def test_friedman_reproduces_demsar_worked_example(paper):
    res = stats.friedman(paper, greater_is_better=True)
    np.testing.assert_allclose(res.average_rank.values, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert float(res.chi2) == pytest.approx(9.28, abs=5e-3)
    assert float(res.iman_davenport_f) == pytest.approx(3.69, abs=5e-3)
    assert (int(res.f_df1), int(res.f_df2)) == (3, 39)
    # "the critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject the null"
    assert scipy.stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert float(res.f_p_value) < 0.05
    assert int(res.n_datasets) == 14 and int(res.n_methods) == 4


def test_friedman_tie_correction_of_all_tied_data_sets_is_undefined_and_says_why():
    # every data set ties all three methods: sum (t^3 - t) = 4 x 24 = N k (k^2 - 1), so the
    # correction is 1 - 96 / 96 = 0 and the corrected chi2_F is 0 / 0 (scipy: NaN as well);
    # F_F's description blamed methods ranked alike, which is another case
    table = xr.DataArray(np.full((4, 3), 0.2), dims=("dataset", "ensemble"),
                         coords={"ensemble": ["A", "B", "C"]})
    with np.errstate(invalid="ignore"):
        assert np.isnan(scipy.stats.friedmanchisquare(*np.full((3, 4), 0.2)).statistic)
    res = stats.friedman(table, tie_correction=True)
    for name in ("chi2", "chi2_p_value", "iman_davenport_f", "f_p_value"):
        assert np.isnan(float(res[name])), name
        assert "ties all methods" in res[name].attrs["description"], name
        assert "ranks the methods alike" not in res[name].attrs["description"], name
    plain = stats.friedman(table)  # Demsar's formula: chi2_F = 0, p = 1
    assert float(plain.chi2) == 0.0 and float(plain.chi2_p_value) == 1.0
    assert plain.chi2.attrs["description"] == "Demsar's formula"


def test_friedman_matches_scipy_and_direct_formulas(printed):
    res = stats.friedman(printed, greater_is_better=True, tie_correction=True)
    ref = scipy.stats.friedmanchisquare(*DEMSAR_AUC.T)
    assert float(res.chi2) == pytest.approx(ref.statistic, rel=1e-12)
    assert float(res.chi2_p_value) == pytest.approx(ref.pvalue, rel=1e-10)
    ranks = scipy.stats.rankdata(-DEMSAR_AUC, axis=1)
    np.testing.assert_allclose(res["rank"].values, ranks)
    np.testing.assert_allclose(res.average_rank.values, ranks.mean(axis=0))
    # uncorrected chi2 and Iman-Davenport from the printed formulas
    plain = stats.friedman(printed, greater_is_better=True)
    n, k = DEMSAR_AUC.shape
    r = ranks.mean(axis=0)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4)
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert float(plain.chi2) == pytest.approx(chi2, rel=1e-12)
    assert float(plain.iman_davenport_f) == pytest.approx(f, rel=1e-12)
    assert float(plain.f_p_value) == pytest.approx(scipy.stats.f.sf(f, 3, 39), rel=1e-10)
    assert float(plain.chi2_p_value) == pytest.approx(scipy.stats.chi2.sf(chi2, 3), rel=1e-10)


def test_lower_is_better_by_default(printed):
    errors = 1 - printed
    a = stats.friedman(errors)
    b = stats.friedman(printed, greater_is_better=True)
    np.testing.assert_allclose(a.average_rank.values, b.average_rank.values)


def test_friedman_perfect_agreement_leaves_f_undefined():
    res = stats.friedman(table(np.tile([0.1, 0.2, 0.3], (5, 1)), ["a", "b", "c"]))
    assert float(res.chi2) == pytest.approx(10.0)  # N (k - 1)
    assert np.isnan(float(res.iman_davenport_f)) and np.isnan(float(res.f_p_value))
    assert "undefined" in res.iman_davenport_f.attrs["description"]
    assert "undefined" in res.f_p_value.attrs["description"]


def test_friedman_two_datasets_ranking_alike_give_no_certain_f():
    # the case a user met: chi2 p = 0.135 beside F_F = inf (p = 0.000)
    res = stats.friedman(table(np.array([[0.1, 0.2, 0.3], [0.15, 0.25, 0.35]]),
                               ["a", "b", "c"]))
    assert float(res.chi2_p_value) == pytest.approx(scipy.stats.chi2.sf(4.0, 2), rel=1e-12)
    assert float(res.chi2_p_value) == pytest.approx(0.135, abs=5e-4)
    assert np.isnan(float(res.f_p_value)) and np.isnan(float(res.iman_davenport_f))
    # where the rankings differ F_F is defined and its description empty
    res = stats.friedman(table(np.array([[0.1, 0.2, 0.3], [0.25, 0.15, 0.35]]),
                               ["a", "b", "c"]))
    assert np.isfinite(float(res.iman_davenport_f))
    assert not res.iman_davenport_f.attrs.get("description")


# ------------------------------------------------------------------ Nemenyi


@pytest.mark.parametrize(("k", "q05", "q10"), [
    (2, 1.960, 1.645), (3, 2.343, 2.052), (4, 2.569, 2.291), (5, 2.728, 2.459),
    (6, 2.850, 2.589), (8, 3.031, 2.780), (10, 3.164, 2.920),
])
def test_nemenyi_critical_values_match_demsar_table_5a(k, q05, q10):
    rng = np.random.default_rng(k)
    da = table(rng.random((6, k)), [f"m{i}" for i in range(k)])
    assert float(stats.nemenyi(da).q_alpha) == pytest.approx(q05, abs=1.5e-3)
    assert float(stats.nemenyi(da, significance=0.10).q_alpha) == pytest.approx(q10, abs=1.5e-3)


def test_nemenyi_reproduces_demsar_decisions(paper):
    at05 = stats.nemenyi(paper, greater_is_better=True)
    assert float(at05.critical_difference) == pytest.approx(1.25, abs=5e-3)
    # "even the difference between the best and the worst performing algorithm is already
    # smaller than that": nothing is significant at 0.05
    assert int(at05.significant.sum()) == 0
    at10 = stats.nemenyi(paper, greater_is_better=True, significance=0.10)
    assert float(at10.critical_difference) == pytest.approx(1.12, abs=5e-3)
    sig = {(str(a), str(b)) for a in METHODS for b in METHODS
           if a < b and int(at10.significant.sel(ensemble=a, versus=b))}
    assert sig == {("C4.5", "C4.5+m"), ("C4.5", "C4.5+m+cf")}
    np.testing.assert_array_equal(at10.significant.values, at10.significant.values.T)


def test_nemenyi_p_values_match_scikit_posthocs(printed):
    res = stats.nemenyi(printed, greater_is_better=True)
    ref = sp.posthoc_nemenyi_friedman(-DEMSAR_AUC)
    np.testing.assert_allclose(res.p_value.values, ref.to_numpy(), rtol=1e-6, atol=1e-12)
    diff = res.rank_difference.values
    np.testing.assert_allclose(diff, -diff.T)


# ------------------------------------------------------------------ Bonferroni-Dunn


@pytest.mark.parametrize(("k", "q05", "q10"), [
    (2, 1.960, 1.645), (3, 2.241, 1.960), (4, 2.394, 2.128), (5, 2.498, 2.241),
    (6, 2.576, 2.326), (8, 2.690, 2.450), (10, 2.773, 2.539),
])
def test_bonferroni_dunn_critical_values_match_demsar_table_5b(k, q05, q10):
    rng = np.random.default_rng(k)
    names = [f"m{i}" for i in range(k)]
    da = table(rng.random((6, k)), names)
    assert float(stats.bonferroni_dunn(da, control="m0").q_alpha) == pytest.approx(q05,
                                                                                   abs=1.5e-3)
    res = stats.bonferroni_dunn(da, control="m0", significance=0.10)
    assert float(res.q_alpha) == pytest.approx(q10, abs=1.5e-3)


def test_bonferroni_dunn_reproduces_demsar_decisions(paper):
    at05 = stats.bonferroni_dunn(paper, control="C4.5", greater_is_better=True)
    assert float(at05.critical_difference) == pytest.approx(2.394 * np.sqrt(20 / 84), abs=1e-3)
    assert at05.attrs["control"] == "C4.5"
    assert at05.significant.to_series().to_dict() == {
        "C4.5": 0, "C4.5+m": 0, "C4.5+cf": 0, "C4.5+m+cf": 1}
    at10 = stats.bonferroni_dunn(paper, control="C4.5", greater_is_better=True,
                                 significance=0.10)
    assert float(at10.critical_difference) == pytest.approx(2.128 * np.sqrt(20 / 84), abs=1e-3)
    assert at10.significant.to_series().to_dict() == {
        "C4.5": 0, "C4.5+m": 1, "C4.5+cf": 0, "C4.5+m+cf": 1}


def test_bonferroni_dunn_p_values_match_scikit_posthocs(printed):
    res = stats.bonferroni_dunn(printed, control="C4.5+m", greater_is_better=True)
    ref = sp.posthoc_siegel_friedman(-DEMSAR_AUC, p_adjust=None).to_numpy()[1]
    np.testing.assert_allclose(res.p_value.values, ref, rtol=1e-9)
    np.testing.assert_allclose(res.p_adjusted.values, np.minimum(1, 3 * ref), rtol=1e-9)
    np.testing.assert_allclose(res.rank_difference.values,
                               res.average_rank.values - float(res.average_rank[1]))


# ------------------------------------------------------------------ inputs of the rank tests


def runner_like(rng, *, methods=("Agg.", "Bag.", "RF"), datasets=("d1", "d2", "d3", "d4"),
                alphas=(0.0, 0.5, 1.0), repeats=5, folds=2):
    """A Dataset with the runner's layout: RF has no alpha and sits at alpha = NaN."""
    coords = {"dataset": list(datasets), "ensemble": list(methods),
              "alpha": list(alphas) + [np.nan], "repeat": np.arange(repeats),
              "fold": np.arange(folds)}
    shape = tuple(len(v) for v in coords.values())
    err = rng.uniform(0.05, 0.4, shape)
    no_alpha = [m == "RF" for m in methods]
    for e, flag in enumerate(no_alpha):
        if flag:
            err[:, e, :-1] = np.nan
        else:
            err[:, e, -1] = np.nan
    return xr.Dataset({"ensemble_error": (tuple(coords), err)}, coords=coords)


def test_rank_tests_average_resamples_and_keep_each_ensembles_alpha(rng):
    ds = runner_like(rng)
    picked = stats.select_alpha(ds, 0.5)
    assert picked.alpha.values[:2].tolist() == [0.5, 0.5] and np.isnan(picked.alpha.values[2])
    res = stats.friedman(picked)
    means = picked.ensemble_error.mean(["repeat", "fold"]).transpose("dataset", "ensemble")
    np.testing.assert_allclose(res["rank"].values, scipy.stats.rankdata(means.values, axis=1))
    # several alphas per method: refuse instead of guessing
    with pytest.raises(ValueError, match="several alphas"):
        stats.friedman(ds)
    # comparing alphas of one ensemble: the empty NaN alpha is left out and reported
    alphas = stats.friedman(ds.sel(ensemble="Agg."), dim_method="alpha")
    assert alphas.alpha.values.tolist() == [0.0, 0.5, 1.0]
    assert "nan" in alphas.attrs["params"]


def test_rank_tests_reject_bad_input(printed):
    with pytest.raises(TypeError, match="errors"):
        stats.friedman(DEMSAR_AUC)
    with pytest.raises(ValueError, match="dim_method"):
        stats.friedman(printed, dim_method="method")
    with pytest.raises(ValueError, match="var"):
        stats.friedman(printed.to_dataset(name="auc"))
    with pytest.raises(TypeError, match="greater_is_better"):
        stats.friedman(printed, greater_is_better="yes")
    with pytest.raises(ValueError, match="significance"):
        stats.nemenyi(printed, significance=1.5)
    with pytest.raises(ValueError, match="control"):
        stats.bonferroni_dunn(printed, control="J48")
    holes = printed.copy()
    holes[3, 1] = np.nan
    with pytest.raises(ValueError, match="missing"):
        stats.friedman(holes)
    with pytest.raises(ValueError, match="at least 2 data sets"):
        stats.friedman(printed.isel(dataset=[0]))


def test_results_have_provenance_and_survive_netcdf(printed, tmp_path):
    results = {
        "friedman": stats.friedman(printed),
        "nemenyi": stats.nemenyi(printed),
        "bonferroni_dunn": stats.bonferroni_dunn(printed, control="C4.5"),
        "fit": stats.fit_error_ratio([0.1, 0.2, 0.3, 0.5], [0.5, 0.7, 0.6, 0.9]),
    }
    for name, res in results.items():
        assert res.attrs["function"].startswith("treelab.stats."), name
        assert res.attrs["cite"], name
        for var in res.data_vars.values():
            assert var.attrs["long_name"] and var.attrs["cite"], (name, var.name)
        path = tmp_path / f"{name}.nc"
        res.to_netcdf(path)
        with xr.open_dataset(path) as back:
            xr.testing.assert_identical(back.load(), res)


# ------------------------------------------------------------------ 5x2 cv tests


def naive_5x2(err_a, err_b):
    """Dietterich's t and Alpaydin's F written out with loops (r replications x 2 folds)."""
    r = len(err_a)
    p = [[err_a[i][j] - err_b[i][j] for j in range(2)] for i in range(r)]
    s2 = []
    for i in range(r):
        mean = (p[i][0] + p[i][1]) / 2
        s2.append((p[i][0] - mean) ** 2 + (p[i][1] - mean) ** 2)
    t = p[0][0] / (sum(s2) / r) ** 0.5
    f = sum(p[i][j] ** 2 for i in range(r) for j in range(2)) / (2 * sum(s2))
    return t, f


def five_by_two(err_a, err_b, datasets=("d",)):
    a = np.asarray(err_a).reshape(len(datasets), -1, 2)
    b = np.asarray(err_b).reshape(len(datasets), -1, 2)
    values = np.stack([a, b], axis=1)  # (dataset, ensemble, repeat, fold)
    return xr.DataArray(values, dims=("dataset", "ensemble", "repeat", "fold"),
                        coords={"dataset": list(datasets), "ensemble": ["A", "B"]})


def test_five_by_two_hand_worked_example():
    # differences p_i^(j): (0.02, 0.04), (0.00, 0.02), (0.03, 0.01), (0.01, 0.01), (0.02, 0.00)
    b = np.full((5, 2), 0.20)
    a = b + np.array([[0.02, 0.04], [0.00, 0.02], [0.03, 0.01], [0.01, 0.01], [0.02, 0.00]])
    # s_i^2 = 2 e-4, 2 e-4, 2 e-4, 0, 2 e-4 -> mean 1.6e-4; t = 0.02 / sqrt(1.6e-4) = 1.5811
    # sum p^2 = 0.004, F = 0.004 / (2 * 8e-4) = 2.5
    t = stats.five_by_two_cv_t(five_by_two(a, b), "A", "B")
    f = stats.five_by_two_cv_f(five_by_two(a, b), "A", "B")
    assert float(t.t.sel(dataset="d")) == pytest.approx(0.02 / np.sqrt(1.6e-4), rel=1e-9)
    assert float(f.f.sel(dataset="d")) == pytest.approx(2.5, rel=1e-9)
    assert int(t.df) == 5 and (int(f.df1), int(f.df2)) == (10, 5)
    assert float(t.p_value.sel(dataset="d")) == pytest.approx(
        2 * scipy.stats.t.sf(0.02 / np.sqrt(1.6e-4), 5), rel=1e-9)
    assert float(f.p_value.sel(dataset="d")) == pytest.approx(scipy.stats.f.sf(2.5, 10, 5),
                                                              rel=1e-9)
    assert float(t.mean_difference.sel(dataset="d")) == pytest.approx(0.016)


def test_five_by_two_matches_loops_per_dataset(rng):
    a = rng.uniform(0.1, 0.3, (3, 5, 2))
    b = rng.uniform(0.1, 0.3, (3, 5, 2))
    da = five_by_two(a, b, datasets=("x", "y", "z"))
    t = stats.five_by_two_cv_t(da, "A", "B")
    f = stats.five_by_two_cv_f(da.to_dataset(name="ensemble_error"), "A", "B")
    for d, name in enumerate(["x", "y", "z"]):
        t_ref, f_ref = naive_5x2(a[d].tolist(), b[d].tolist())
        assert float(t.t.sel(dataset=name)) == pytest.approx(t_ref, rel=1e-12)
        assert float(f.f.sel(dataset=name)) == pytest.approx(f_ref, rel=1e-12)
    # swapping the methods flips t and leaves F alone
    t_ba = stats.five_by_two_cv_t(da, "B", "A")
    np.testing.assert_allclose(t_ba.t.values, -t.t.values)
    np.testing.assert_allclose(stats.five_by_two_cv_f(da, "B", "A").f.values, f.f.values)


def test_five_by_two_t_numerator_follows_the_labels(rng):
    # Dietterich's numerator is p_1^(1), the first replication's first fold: repeat 0, fold 0
    # by label, also when the result stores them in another order
    a = rng.uniform(0.1, 0.3, (1, 5, 2))
    b = rng.uniform(0.1, 0.3, (1, 5, 2))
    da = five_by_two(a, b).assign_coords(repeat=np.arange(5), fold=[0, 1])
    t_ref, _ = naive_5x2(a[0].tolist(), b[0].tolist())
    shuffled = da.isel(repeat=[3, 1, 4, 0, 2], fold=[1, 0])
    t = stats.five_by_two_cv_t(shuffled, "A", "B")
    assert float(t.t.sel(dataset="d")) == pytest.approx(t_ref, rel=1e-12)
    assert float(t.p_value.sel(dataset="d")) == pytest.approx(
        2 * scipy.stats.t.sf(abs(t_ref), 5), rel=1e-12)
    # the stored first cell (repeat 3, fold 1) would give another t
    other = (a[0, 3, 1] - b[0, 3, 1]) / np.sqrt(
        np.mean([np.var(a[0, i] - b[0, i]) * 2 for i in range(5)]))
    assert abs(other - t_ref) > 1e-3
    assert float(t.t.sel(dataset="d")) != pytest.approx(other)


def test_five_by_two_without_variance():
    # every fold's difference 0.0625 (exact in binary): s_i^2 = 0, t = 0.0625 / 0 and
    # f = 10 x 0.0625^2 / 0 are infinite (p = 0); identical methods give 0 / 0: NaN
    b = np.full((5, 2), 0.25)
    t = stats.five_by_two_cv_t(five_by_two(b + 0.0625, b), "A", "B")
    f = stats.five_by_two_cv_f(five_by_two(b + 0.0625, b), "A", "B")
    assert float(t.t.sel(dataset="d")) == np.inf and float(f.f.sel(dataset="d")) == np.inf
    assert float(t.p_value.sel(dataset="d")) == 0.0 == float(f.p_value.sel(dataset="d"))
    t = stats.five_by_two_cv_t(five_by_two(b, b), "A", "B")
    f = stats.five_by_two_cv_f(five_by_two(b, b), "A", "B")
    assert np.isnan(float(t.t.sel(dataset="d"))) and np.isnan(float(f.f.sel(dataset="d")))
    assert not bool(t.significant.sel(dataset="d")) and not bool(f.significant.sel(dataset="d"))


def test_five_by_two_on_runner_layout_aligns_alpha(rng):
    ds = runner_like(rng, alphas=(0.5,))
    res = stats.five_by_two_cv_t(ds, "Agg.", "RF")
    agg = ds.ensemble_error.sel(ensemble="Agg.", alpha=0.5)
    rf = ds.ensemble_error.sel(ensemble="RF").isel(alpha=-1)
    for name in ds.dataset.values:
        t_ref, _ = naive_5x2(agg.sel(dataset=name).values.tolist(),
                             rf.sel(dataset=name).values.tolist())
        assert float(res.t.sel(dataset=name)) == pytest.approx(t_ref, rel=1e-12)
    swept = stats.five_by_two_cv_f(runner_like(rng), "Agg.", "Bag.")
    assert swept.f.dims == ("dataset", "alpha") and swept.alpha.values.tolist() == [0, .5, 1]
    with pytest.raises(ValueError, match="different alphas"):
        stats.five_by_two_cv_t(runner_like(rng), "Agg.", "RF")


def test_five_by_two_rejects_bad_input(rng):
    da = five_by_two(rng.random((5, 2)), rng.random((5, 2)))
    with pytest.raises(ValueError, match="2 folds"):
        stats.five_by_two_cv_t(xr.concat([da, da.isel(fold=[0])], "fold"), "A", "B")
    with pytest.raises(ValueError, match="b="):
        stats.five_by_two_cv_t(da, "A", "C")
    with pytest.raises(ValueError, match="two different"):
        stats.five_by_two_cv_f(da, "A", "A")
    with pytest.raises(TypeError, match="results"):
        stats.five_by_two_cv_f(np.zeros((5, 2)), "A", "B")
    with pytest.raises(ValueError, match="repeat"):
        stats.five_by_two_cv_t(da.isel(repeat=0), "A", "B")


# ------------------------------------------------------------------ error ratio fit


def test_fit_error_ratio_matches_scipy(rng):
    phi = rng.uniform(0.0, 0.4, 25)
    ratio = 0.4 + 1.1 * phi + rng.normal(0, 0.05, 25)
    fit = stats.fit_error_ratio(phi, ratio)
    ref = scipy.stats.linregress(phi, ratio)
    assert float(fit.slope) == pytest.approx(ref.slope, rel=1e-10)
    assert float(fit.intercept) == pytest.approx(ref.intercept, rel=1e-10)
    assert float(fit.r) == pytest.approx(ref.rvalue, rel=1e-10)
    assert float(fit.r_squared) == pytest.approx(ref.rvalue**2, rel=1e-10)
    assert float(fit.p_value) == pytest.approx(ref.pvalue, rel=1e-6)
    assert float(fit.slope_stderr) == pytest.approx(ref.stderr, rel=1e-8)
    ci = scipy.stats.pearsonr(phi, ratio).confidence_interval(0.95)
    assert float(fit.r_low) == pytest.approx(ci.low, rel=1e-8)
    assert float(fit.r_high) == pytest.approx(ci.high, rel=1e-8)
    wide = stats.fit_error_ratio(phi, ratio, confidence=0.99)
    assert float(wide.r_low) < float(fit.r_low) < float(fit.r_high) < float(wide.r_high)


def test_fit_error_ratio_of_a_constant_error_ratio():
    # E_r = 0.5 on every point: the least-squares line is E_r = 0.5 exactly (scipy's
    # linregress: slope 0, intercept 0.5); r = cov / sqrt(var var) and r^2 = 1 - SSR / SST are
    # 0 / 0. statsmodels' rounding had given r^2 = -inf and a slope p-value of 0.91
    phi = [0.1, 0.2, 0.3, 0.4]
    ref = scipy.stats.linregress(phi, [0.5] * 4)
    fit = stats.fit_error_ratio(phi, [0.5] * 4)
    assert float(fit.slope) == ref.slope == 0.0
    assert float(fit.intercept) == ref.intercept == 0.5
    assert float(fit.slope_stderr) == 0.0  # no residual: sqrt(SSR / (n - 2) / Sxx) = 0
    for name in ("r", "r_squared", "r_low", "r_high", "p_value"):
        assert np.isnan(float(fit[name])), name
    assert np.isnan(ref.rvalue) and np.isnan(ref.pvalue)
    assert int(fit.n) == 4
    # one constant group leaves the other groups' fits alone
    grouped = stats.fit_error_ratio(
        xr.DataArray([phi, phi], dims=("ensemble", "dataset")),
        xr.DataArray([[0.5] * 4, [0.3, 0.5, 0.6, 0.9]], dims=("ensemble", "dataset")),
        groupby="ensemble")
    other = scipy.stats.linregress(phi, [0.3, 0.5, 0.6, 0.9])
    assert float(grouped.slope[1]) == pytest.approx(other.slope, rel=1e-12)
    assert float(grouped.r[1]) == pytest.approx(other.rvalue, rel=1e-12)
    assert np.isnan(float(grouped.r_squared[0]))


def test_fit_error_ratio_groups_averages_and_drops_nan(rng):
    coords = {"dataset": [f"d{i}" for i in range(8)], "ensemble": ["vote", "average"],
              "fold": np.arange(3)}
    phi = xr.DataArray(rng.uniform(0, 0.3, (8, 2, 3)), coords=coords)
    ratio = 0.5 + phi + xr.DataArray(rng.normal(0, 0.02, (8, 2, 3)), coords=coords)
    ratio[0, 1, :] = np.nan  # E_s = 0 on one data set for one combination function
    fit = stats.fit_error_ratio(phi, ratio, groupby="ensemble")
    assert fit.slope.dims == ("ensemble",)
    assert fit.n.values.tolist() == [8, 7]
    x = phi.mean("fold").sel(ensemble="average").values[1:]
    y = ratio.mean("fold").sel(ensemble="average").values[1:]
    assert float(fit.slope.sel(ensemble="average")) == pytest.approx(
        scipy.stats.linregress(x, y).slope, rel=1e-10)


def test_fit_error_ratio_rejects_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        stats.fit_error_ratio([0.1, 0.2, 0.3], [0.5, 0.6])
    with pytest.raises(ValueError, match="at least 3 points"):
        stats.fit_error_ratio([0.1, 0.2, np.nan], [0.5, 0.6, 0.7])
    with pytest.raises(ValueError, match="confidence"):
        stats.fit_error_ratio([0.1, 0.2, 0.3], [0.5, 0.6, 0.7], confidence=95)
    with pytest.raises(ValueError, match="groupby"):
        stats.fit_error_ratio([0.1, 0.2, 0.3], [0.5, 0.6, 0.7], groupby="ensemble")
    with pytest.raises(TypeError, match="phi_e"):
        stats.fit_error_ratio(xr.Dataset(), [0.5])


# ------------------------------------------------------------------ wins / ties / losses


def test_wins_ties_losses_counts():
    da = table(np.array([[0.10, 0.20, 0.10], [0.30, 0.30, 0.25], [0.40, 0.20, 0.41],
                         [0.05, 0.06, 0.07]]), ["A", "B", "C"])
    frame = stats.wins_ties_losses(da)
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc[("A", "B")].tolist()[:3] == [2, 1, 1]  # A lower on d1, d4; tie d2
    assert frame.loc[("B", "A")].tolist()[:3] == [1, 1, 2]
    assert frame.loc[("A", "C"), "w/t/l"] == "2/1/1"
    assert (frame.wins + frame.ties + frame.losses == 4).all()
    loose = stats.wins_ties_losses(da, tol=0.015, control="C")
    assert loose.loc["A"].tolist()[:3] == [1, 2, 1]
    accuracy = stats.wins_ties_losses(1 - da, greater_is_better=True)
    pd.testing.assert_frame_equal(accuracy, frame)
    with pytest.raises(ValueError, match="tol"):
        stats.wins_ties_losses(da, tol=-1.0)


def _fold_values_with_one_missing(bad: float) -> xr.DataArray:
    rng = np.random.default_rng(0)
    e = rng.normal(0.2, 0.02, (2, 2, 5, 2))  # ensemble, dataset, repeat, fold
    e[0] -= 0.05  # A clearly better on both data sets
    e[0, 1, 3, 1] = bad
    return xr.DataArray(e, dims=("ensemble", "dataset", "repeat", "fold"),
                        coords={"ensemble": ["A", "B"], "dataset": ["d0", "d1"]})


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("test", [
    lambda da: stats.wilcoxon_holm(da, "A", "B"),
    lambda da: stats.bayesian_correlated_t(da, "A", "B", rope=0.01, test_fraction=0.5),
    lambda da: stats.corrected_resampled_t(da, "A", "B", test_fraction=0.5),
    lambda da: stats.five_by_two_cv_t(da, "A", "B"),
    lambda da: stats.five_by_two_cv_f(da, "A", "B"),
], ids=["wilcoxon_holm", "bayesian_correlated_t", "corrected_resampled_t", "five_by_two_cv_t",
        "five_by_two_cv_f"])
def test_paired_tests_refuse_a_missing_fold_value(test, bad):
    # one NaN fold value made p NaN and "not significant" on that data set without a word
    with pytest.raises(ValueError, match=r"missing or infinite values for a or b \(the first "
                                         r"at dataset='d1', repeat=3, fold=1\)"):
        test(_fold_values_with_one_missing(bad))
