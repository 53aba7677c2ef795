"""Bootstrap confidence intervals of diagnose's measures: the point estimates they are built
around, agreement with Wilson's interval, coverage in a simulation with known member error
structure, seeding, and intervals over the cells of a grid result."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr
from statsmodels.stats.proportion import proportion_confint

from treelab.analysis import diagnose, errors
from treelab.analysis._dataset import vote_counts
from treelab.analysis._row_means import row_mean_recipes
from treelab.analysis.diagnose import diagnose_parts
from treelab.analysis.intervals import (
    INTERVAL_MEASURES,
    NO_INTERVAL,
    grid_intervals,
    interval,
    measure_replicates,
    no_interval_reasons,
    recipe_replicates,
    replicate_weights,
    row_parts,
    stratified_weights,
)


def _members(rng, n_rows, n_trees, q_types, type_share, class_share=(0.6, 0.4)):
    """Binary member labels of exchangeable members: every row has a type with probability
    q of each member being right, independently of its class and of the other members."""
    y = (rng.random(n_rows) < class_share[1]).astype(np.int64)
    kind = rng.choice(len(q_types), size=n_rows, p=type_share)
    right = rng.random((n_trees, n_rows)) < np.asarray(q_types)[kind][None, :]
    return np.where(right, y[None, :], 1 - y[None, :]), y


def _true_values(n_trees, q_types, type_share):
    """Population values of phi_e, strength and correlation for that structure (worked by
    hand). With c ~ Bin(T, q) members right: E[w (w - 1)] = T (T - 1) (1 - q)^2 for the
    w = T - c members wrong, so phi_e = E[(1 - q)^2]; the margin is (2c - T) / T, so
    s = E[2q - 1] and E[margin^2] = (4 E[c^2] - 4 T E[c] + T^2) / T^2 with
    E[c^2] = T q (1 - q) + T^2 q^2; with two classes the rival is the other class, p1 = E[q],
    p2 = 1 - p1 and sd^2 = p1 + p2 - (p1 - p2)^2, the same for every member."""
    q, pi, t = np.asarray(q_types), np.asarray(type_share), n_trees
    phi_e = float(pi @ (1 - q) ** 2)
    s = float(pi @ (2 * q - 1))
    ec2 = t * q * (1 - q) + t * t * q * q
    em2 = float(pi @ ((4 * ec2 - 4 * t * (t * q) + t * t) / (t * t)))
    p1 = float(pi @ q)
    sd2 = 1.0 - (2 * p1 - 1) ** 2
    return {"phi_e": phi_e, "strength": s, "correlation": (em2 - s * s) / sd2}


Q_TYPES, TYPE_SHARE = (0.9, 0.65, 0.35), (0.5, 0.3, 0.2)


def test_weights_of_ones_give_diagnose_values():
    rng = np.random.default_rng(0)
    labels, y = _members(rng, 300, 9, Q_TYPES, TYPE_SHARE)
    labels[::7, ::5] = 2  # a third class voted now and then: phi* and the rival get work
    y[::11] = 2
    res = diagnose(labels, None, y, classes=[0, 1, 2], single=0.3, ci=0.9, n_boot=200)
    ens = np.array([np.argmax(np.bincount(col, minlength=3)) for col in labels.T])
    parts = row_parts(labels, y, ens, 3)
    at_ones = measure_replicates(parts, np.ones((1, y.size)), single_error=0.3)
    for name, value in at_ones.items():
        assert value[0] == pytest.approx(float(res[name]), rel=1e-10, abs=1e-14), name
        lo, hi = float(res[f"{name}_lower"]), float(res[f"{name}_upper"])
        assert lo <= float(res[name]) <= hi, name
    params = json.loads(res.attrs["params"])
    assert params["ci"] == {"level": 0.9, "method": "bca", "n_boot": 200, "seed": 0,
                            "resampling": "test rows, stratified by class"}
    assert "seed 0" in res.phi_e_lower.attrs["description"]


ALL_MEASURES = ["pairwise_diversity", "nonpairwise_diversity", "probability_quality",
                "margin_cdf"]


def _three_class_case(n_rows=240, n_trees=9, seed=2):
    """Member labels of three classes, a fourth test class the members never saw, and true
    probabilities: every measure of diagnose gets rows to work on."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    noise = rng.integers(0, 3, (n_trees, n_rows))
    labels = np.where(rng.random((n_trees, n_rows)) < 0.7, y[None, :], noise)
    y[::37] = 3  # unseen by the members: an error of everyone
    true_proba = rng.dirichlet(np.ones(3), n_rows)
    return labels, y, true_proba


def test_weights_of_ones_give_diagnose_values_of_the_row_mean_measures():
    # every recipe (columns and the function of their means) at unit weights is diagnose's
    # own value, element by element: a wrong column or formula shows here
    labels, y, _ = _three_class_case()
    thresholds = ("1.0", "top1", "top2", 0.5)
    parts = diagnose_parts(labels, None, y, classes=[0, 1, 2, 3], measures=ALL_MEASURES,
                           thresholds=thresholds, k=(1, 2))
    v = parts.variables
    votes = vote_counts(labels, 4)
    proba = votes / labels.shape[0]  # member labels are voted: vote fractions
    ens = np.argmax(votes, axis=1)  # most votes, ties to the lower class index
    recipes = row_mean_recipes(v, labels, y, ens, 4, votes=votes, summed=None, proba=proba,
                               true_proba=None, thresholds=thresholds, ks=np.array([1, 2]),
                               n_known=4)
    assert len(recipes) == 21  # all but exact_mse (no true probabilities here)
    for name, recipe in recipes.items():
        got = recipe_replicates(recipe, np.ones((1, y.size)))[0]
        np.testing.assert_allclose(got, np.asarray(v[name].data, dtype=float), rtol=1e-10,
                                   atol=1e-14, equal_nan=True, err_msg=name)


def test_row_mean_measures_of_diagnose_with_true_proba_and_intervals():
    labels, y, true_proba = _three_class_case(n_rows=150)
    y = np.where(y == 3, 2, y)
    res = diagnose(labels, None, y, classes=[0, 1, 2], true_proba=true_proba,
                   measures=ALL_MEASURES, ci=0.9, n_boot=200)
    proba = vote_counts(labels, 3) / labels.shape[0]
    ens = np.argmax(proba, axis=1)
    v = {name: type("V", (), {"data": res[name].values})() for name in res.data_vars}
    recipes = row_mean_recipes(v, labels, y, ens, 3, votes=vote_counts(labels, 3),
                               summed=None, proba=proba, true_proba=true_proba,
                               thresholds=("1.0", "top1", "top2", "top3"), ks=np.array([1, 2, 3]),
                               n_known=3)
    assert "exact_mse" in recipes and "margin_cdf" in recipes
    for name, recipe in recipes.items():
        got = recipe_replicates(recipe, np.ones((1, y.size)))[0]
        np.testing.assert_allclose(got, res[name].values, rtol=1e-10, atol=1e-14,
                                   equal_nan=True, err_msg=name)
        if name in NO_INTERVAL:  # class_share: an interval under ci_resample="rows" only
            assert f"{name}_lower" not in res, name
            continue
        lo, hi = res[f"{name}_lower"], res[f"{name}_upper"]
        assert lo.dims == res[name].dims, name
        inside = (lo.values <= res[name].values + 1e-12) & (res[name].values <= hi.values + 1e-12)
        assert np.all(inside | np.isnan(lo.values)), name
    # the exact MSE's interval against a direct bootstrap of the mean of the rows' squared
    # errors (same stratified draws): the recipe is that mean, not another statistic
    se = np.sum((true_proba - proba) ** 2, axis=1)
    w = stratified_weights(y, 200, np.random.default_rng(0))
    direct = np.quantile(np.array([np.repeat(se, wi.astype(int)).mean() for wi in w]),
                         [0.05, 0.95])
    pct = diagnose(labels, None, y, classes=[0, 1, 2], true_proba=true_proba, ci=0.9,
                   n_boot=200, ci_method="percentile")
    np.testing.assert_allclose([float(pct.exact_mse_lower), float(pct.exact_mse_upper)],
                               direct, rtol=1e-10)


@pytest.fixture(scope="module")
def fitted_vrtrees():
    import treelab

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.7, 300) > 0).astype(int) + (X[:, 2] > 1)
    est = treelab.VRTrees(alpha=0.2, n_estimators=8, random_state=1).fit(X[:200], y[:200])
    return est, X[200:], y[200:]


@pytest.mark.parametrize("resample", ["stratified", "rows"])
def test_every_numeric_variable_has_an_interval_or_a_documented_reason(fitted_vrtrees,
                                                                      resample):
    # under "rows" the class shares vary: class_share and brier_uncertainty get intervals,
    # not the stratified reason (and keep none under "stratified")
    from pathlib import Path

    labels, y, true_proba = _three_class_case(n_rows=120)
    y = np.where(y == 3, 2, y)
    est, X_test, y_test = fitted_vrtrees
    true_test = np.full((y_test.size, est.classes_.size), 1.0 / est.classes_.size)
    results = [
        diagnose(labels, None, y, classes=[0, 1, 2], single=0.3, true_proba=true_proba,
                 measures=ALL_MEASURES, ci=0.95, n_boot=100, ci_method="percentile",
                 ci_resample=resample),
        diagnose(est, X_test, y_test, single=0.3, true_proba=true_test,
                 measures=ALL_MEASURES, ci=0.95, n_boot=100, ci_resample=resample),
    ]
    reasons = no_interval_reasons(resample)
    assert (set(NO_INTERVAL) - set(reasons) == {"class_share", "brier_uncertainty"}) == (
        resample == "rows")
    page = (Path(__file__).parents[1] / "docs" / "measures" / "uncertainty.md").read_text()
    for res in results:
        for name in INTERVAL_MEASURES:
            assert f"{name}_lower" in res
        for name, da in res.data_vars.items():
            if name.endswith(("_lower", "_upper")) or da.dtype.kind not in "fiu":
                continue
            has = f"{name}_lower" in res and f"{name}_upper" in res
            assert has != (name in reasons), name
        for name in ("class_share", "brier_uncertainty"):
            if resample == "rows":  # an interval that moves, around the estimate
                lo, hi = res[f"{name}_lower"].values, res[f"{name}_upper"].values
                assert np.all(lo <= res[name].values) and np.all(res[name].values <= hi)
                assert np.any(lo < hi), name
    for name in NO_INTERVAL:
        assert f"`{name}`" in page, name


def test_stratified_weights_keep_class_counts():
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    w = stratified_weights(y, 50, np.random.default_rng(1))
    for k in range(3):
        assert np.all(w[:, y == k].sum(axis=1) == np.sum(y == k))


def test_row_weights_draw_n_rows_from_all_rows():
    # the row bootstrap: one multinomial draw of n rows over all n (class counts vary), the
    # draw of a single stratum; the stratified one keeps every class's count
    y = np.array([0] * 30 + [1] * 10)
    rows = replicate_weights(y, y.size, 300, np.random.default_rng(4), "rows")
    want = np.random.default_rng(4).multinomial(40, np.full(40, 1 / 40), size=300)
    np.testing.assert_array_equal(rows, want)
    assert np.unique(rows[:, y == 1].sum(axis=1)).size > 5
    kept = replicate_weights(y, y.size, 300, np.random.default_rng(4), "stratified")
    np.testing.assert_array_equal(kept, stratified_weights(y, 300, np.random.default_rng(4)))
    assert np.all(kept[:, y == 1].sum(axis=1) == 10)


@pytest.mark.parametrize("measure", ["diagnose", "errors"])
def test_row_bootstrap_of_an_error_that_differs_by_class_agrees_with_wilson(measure):
    # 5000 rows, half of each class, class errors 0 and 0.8: the error (0.4) is a binomial
    # proportion of the population and Wilson's half-width (0.0136) its sampling spread. The
    # row bootstrap matches Wilson's limits to 0.0014 (a tenth of it); the stratified one
    # leaves out the spread of the class shares and is narrower by
    # sqrt(0.5 * 0.16 / 0.24) = 0.58 (its limits 0.0058 inside Wilson's): an option that
    # stratified silently fails here
    rng = np.random.default_rng(5)
    n = 5000
    y = np.repeat([0, 1], n // 2)
    wrong = (y == 1) & (rng.random(n) < 0.8)
    labels = np.repeat(np.where(wrong, 1 - y, y)[None, :], 3, axis=0)
    low, high = proportion_confint(int(wrong.sum()), n, alpha=0.05, method="wilson")

    def limits(resample):
        kw = {"ci": 0.95, "ci_method": "percentile", "n_boot": 2000, "ci_resample": resample}
        res = (diagnose(labels, None, y, classes=[0, 1], **kw) if measure == "diagnose"
               else errors(labels, y, n_classes=2, **kw))
        return float(res.ensemble_error_lower), float(res.ensemble_error_upper)

    lo, hi = limits("rows")
    assert lo == pytest.approx(low, abs=1.4e-3) and hi == pytest.approx(high, abs=1.4e-3)
    s_lo, s_hi = limits("stratified")
    assert (s_hi - s_lo) / (high - low) == pytest.approx(np.sqrt(0.5 * 0.16 / 0.24), abs=0.06)


def test_row_bootstrap_covers_an_error_that_differs_by_class():
    # the docs' simulation, smaller: 120 test sets of 200 rows (class shares 0.5, class
    # errors 0 and 0.8, true error 0.4), 95% percentile intervals of 200 replicates. The
    # row bootstrap covers about 93% (Wilson's interval 95%), the stratified one about 73%
    # (115 and 93 of these 120); the bands below are about 2 binomial sd from each
    rng = np.random.default_rng(8)
    hits = {"rows": 0, "stratified": 0}
    for _ in range(120):
        y = (rng.random(200) < 0.5).astype(np.int64)
        wrong = (y == 1) & (rng.random(200) < 0.8)
        labels = np.where(wrong, 1 - y, y)[None, :]
        for resample in hits:
            res = errors(labels, y, n_classes=2, ci=0.95, ci_method="percentile", n_boot=200,
                         ci_seed=int(rng.integers(2**31)), ci_resample=resample)
            hits[resample] += float(res.ensemble_error_lower) <= 0.4 <= float(
                res.ensemble_error_upper)
    assert hits["rows"] / 120 >= 0.88, hits
    assert hits["stratified"] / 120 <= 0.83, hits


def test_replicates_without_a_class_are_counted_and_left_out():
    # class 2 has 4 of 100 rows: a row replicate misses it with probability 0.96^100 = 1.7%.
    # class_error of class 2 is undefined there: with 5 such of 400 replicates (1.25%) the
    # limits are NaN and the description says so; with fewer than 1% they are the quantiles
    # of the defined replicates, and the description gives the count (slow reference: the
    # same multinomial draws, the class error computed row by row)
    y = np.array([0] * 60 + [1] * 36 + [2] * 4)
    ens = y.copy()
    ens[[0, 1, 60, 61, 62, 96]] = [1, 1, 0, 0, 2, 0]  # a class-2 row wrong
    labels = ens[None, :]
    cases = set()
    for seed in range(40):
        w = np.random.default_rng(seed).multinomial(100, np.full(100, 0.01), size=400)
        absent = int(np.sum(w[:, y == 2].sum(axis=1) == 0))
        res = diagnose(labels, None, y, classes=[0, 1, 2], ci=0.9, n_boot=400,
                       ci_method="percentile", ci_seed=seed, ci_resample="rows")
        lo, hi = res.class_error_lower.values[2], res.class_error_upper.values[2]
        note = res.class_error_lower.attrs["description"]
        cases.add("nan" if absent > 4 else "left out" if absent else "none")
        if absent > 4:
            assert np.isnan(lo) and np.isnan(hi)
            assert f"limits NaN where more than 1% of the replicates are undefined (up to " \
                   f"{absent} of 400)" in note
        else:
            kept = w[w[:, y == 2].sum(axis=1) > 0]
            errs = [np.sum(wi[y == 2] * (ens != y)[y == 2]) / np.sum(wi[y == 2])
                    for wi in kept]
            np.testing.assert_allclose([lo, hi], np.quantile(errs, [0.05, 0.95]), rtol=1e-12)
            if absent:
                assert f"{absent} of 400 replicates (at most, per element) where the " \
                       f"measure is undefined" in note
            else:
                assert "undefined" not in note
        if {"nan", "left out"} <= cases:
            break
    assert {"nan", "left out"} <= cases, cases


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_ensemble_error_interval_agrees_with_wilson(method):
    # 20000 rows, the same error rate (about 0.2) in both classes: the bootstrap of the error
    # and Wilson's binomial interval estimate the same sampling distribution; Wilson's
    # half-width is 0.0055, its limits are matched to 0.0006 (a tenth of it; the Monte Carlo
    # error of a 2000-replicate quantile is about 0.0002)
    rng = np.random.default_rng(3)
    n = 20_000
    y = (rng.random(n) < 0.4).astype(np.int64)
    wrong = rng.random(n) < 0.2
    ens_labels = np.where(wrong, 1 - y, y)
    labels = np.repeat(ens_labels[None, :], 3, axis=0)  # three members that agree
    res = diagnose(labels, None, y, classes=[0, 1], ci=0.95, ci_method=method)
    low, high = proportion_confint(int(wrong.sum()), n, alpha=0.05, method="wilson")
    assert float(res.ensemble_error_lower) == pytest.approx(low, abs=6e-4)
    assert float(res.ensemble_error_upper) == pytest.approx(high, abs=6e-4)


def test_coverage_of_phi_e_strength_and_correlation():
    # 400 simulated test sets of 400 rows from a known structure of member errors; the 95%
    # intervals (percentile and BCa, 1000 replicates each) must cover the population values
    # in 92-98% of them (95% +- 2.7 binomial sd of a 400-set coverage)
    rng = np.random.default_rng(1)
    n_trees = 15
    truth = _true_values(n_trees, Q_TYPES, TYPE_SHARE)
    names = tuple(truth)
    hits = {(m, name): 0 for m in ("percentile", "bca") for name in names}
    n_sets = 400
    for _ in range(n_sets):
        labels, y = _members(rng, 400, n_trees, Q_TYPES, TYPE_SHARE)
        votes_right = (labels == y[None, :]).sum(axis=0)
        ens = np.where(2 * votes_right > n_trees, y, 1 - y)
        parts = row_parts(labels, y, ens, 2)
        theta = measure_replicates(parts, np.ones((1, y.size)), measures=names)
        boot = measure_replicates(parts, stratified_weights(y, 1000, rng), measures=names)
        jack = measure_replicates(parts, 1.0 - np.eye(y.size), measures=names)
        for method in ("percentile", "bca"):
            for name in names:
                lo, hi = interval(boot[name], float(theta[name][0]), 0.95, method, jack[name])
                hits[(method, name)] += lo <= truth[name] <= hi
    coverage = {key: h / n_sets for key, h in hits.items()}
    for key, value in coverage.items():
        assert 0.92 <= value <= 0.98, (key, value, coverage)


def test_intervals_are_seeded_and_refused_when_undefined():
    rng = np.random.default_rng(1)
    labels, y = _members(rng, 200, 7, Q_TYPES, TYPE_SHARE)
    one = diagnose(labels, None, y, classes=[0, 1], ci=0.95, n_boot=300, ci_seed=4)
    two = diagnose(labels, None, y, classes=[0, 1], ci=0.95, n_boot=300, ci_seed=4)
    other = diagnose(labels, None, y, classes=[0, 1], ci=0.95, n_boot=300, ci_seed=5)
    assert float(one.strength_lower) == float(two.strength_lower)
    assert float(one.strength_lower) != float(other.strength_lower)
    plain = diagnose(labels, None, y, classes=[0, 1])
    assert "strength_lower" not in plain
    for name in plain.data_vars:  # the intervals add variables and change none
        xr.testing.assert_identical(plain[name], one[name])
    for kwargs, message in [({"ci": 95}, "ci must"), ({"ci": 0.95, "ci_method": "basic"},
                                                        "ci_method"),
                            ({"ci": 0.95, "n_boot": 10}, "n_boot"),
                            ({"ci": 0.95, "ci_seed": -1}, "ci_seed"),
                            ({"ci": 0.95, "ci_resample": "class"}, "ci_resample")]:
        with pytest.raises(ValueError, match=message):
            diagnose(labels, None, y, classes=[0, 1], **kwargs)


def test_grid_intervals_over_folds():
    rng = np.random.default_rng(0)
    vals = rng.normal(0.2, 0.01, (3, 2, 10))
    da = xr.DataArray(vals, dims=("dataset", "ensemble", "fold"),
                      coords={"dataset": list("abc"), "ensemble": ["A", "B"]})
    res = grid_intervals(da, over=("fold",), n_boot=4000)
    assert res["mean"].dims == ("dataset", "ensemble")
    np.testing.assert_allclose(res["mean"].values, vals.mean(axis=-1))
    # the percentile interval of a mean of 10 normal values is close to the normal-theory one
    half = 1.96 * vals.std(axis=-1, ddof=0) / np.sqrt(10)
    np.testing.assert_allclose(res.upper.values - res.lower.values, 2 * half, rtol=0.15)
    holey = da.copy()
    holey[0, 0, 3] = np.nan
    with pytest.raises(ValueError, match="missing"):
        grid_intervals(holey, over=("fold",))
    with pytest.raises(ValueError, match="none of the dims"):
        grid_intervals(da, over=("repeat",))


def test_figures_and_explorer_table_show_the_intervals():
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer

    from treelab import plot
    from treelab.widgets._common import measures_at

    rng = np.random.default_rng(6)
    results = []
    for alpha, q in ((0.2, (0.85, 0.6, 0.3)), (0.7, (0.9, 0.7, 0.4))):
        labels, y = _members(rng, 300, 11, q, TYPE_SHARE)
        res = diagnose(labels, None, y, classes=[0, 1], single=0.3, ci=0.95, n_boot=300)
        results.append(res.assign_coords(ensemble="X", alpha=alpha))
    stacked = plot.stack_results(results)
    ax = plot.strength_correlation(stacked, colorbar=False)
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 1
    # the vertical bars run from the lower to the upper limit of the correlation
    segments = bars[0].lines[2][1].get_segments()
    got = sorted((float(s[0][1]), float(s[1][1])) for s in segments)
    want = sorted(zip(stacked.correlation_lower.sel(ensemble="X").values.tolist(),
                      stacked.correlation_upper.sel(ensemble="X").values.tolist(), strict=True))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    ax = plot.error_ratio_vs_phi(stacked, fit=False)
    assert [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    table = measures_at(stacked, dataset=None, ensemble="X", alpha=0.2)
    assert table.loc["phi_e", "lower"] == float(results[0].phi_e_lower)
    assert list(table.columns) == ["mean", "lower", "upper", "sd", "description"]
    plt.close("all")


def test_observed_error_of_a_treelab_ensemble_breaks_vote_ties_as_diagnose(fitted_vrtrees):
    # a treelab ensemble's uniform vote breaks ties by summed member probability: the recipe,
    # given those sums, reproduces diagnose's observed error and per-tree values at unit weights
    from treelab.analysis._diagnose_inputs import read

    est, X_test, y_test = fitted_vrtrees
    p = read(est, X_test, y_test, combine=None, classes=None, member_counts=None,
             member_pass=None)
    res = diagnose(est, X_test, y_test)
    n_all = p.classes.size
    votes = vote_counts(p.labels, n_all)
    v = {name: type("V", (), {"data": res[name].values})() for name in res.data_vars}
    recipes = row_mean_recipes(v, p.labels, p.y_codes, p.ensemble if p.ensemble is not None
                               else np.argmax(p.proba, axis=1), n_all, votes=votes,
                               summed=p.summed, proba=p.proba, true_proba=None,
                               thresholds=("1.0", "top1", "top2", "top3"),
                               ks=np.array([1, 2, 3]), n_known=n_all)
    for name in ("observed_error", "member_error", "p1", "p2", "sd", "class_error",
                 "thresholded_mse", "topk_error"):
        got = recipe_replicates(recipes[name], np.ones((1, y_test.size)))[0]
        np.testing.assert_allclose(got, res[name].values, rtol=1e-10, atol=1e-14,
                                   equal_nan=True, err_msg=name)
