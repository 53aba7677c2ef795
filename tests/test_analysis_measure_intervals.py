"""Intervals of every public measure (``ci=``): against a slow bootstrap written here (a loop
that redraws the rows and calls the public measure; within every class or, for
``ci_resample="rows"``, from all rows), against diagnose's for the same seed, against the
normal-theory interval of a mean, and the refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats

from treelab.analysis import (
    _measure_intervals,
    ambiguity,
    breiman_regression_bound,
    diagnose,
    diagnose_regression,
    error_arrangement,
    error_correlation,
    errors,
    nonpairwise_diversity,
    pairwise_diversity,
    strength_correlation,
)
from treelab.stats import probability_quality

N_BOOT, LEVEL = 120, 0.9


def _labels(seed=0, n_rows=90, n_trees=7, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    right = rng.random((n_trees, n_rows)) < 0.65
    return np.where(right, y[None, :], rng.integers(0, n_classes, (n_trees, n_rows))), y


def _regression(seed=0, n_rows=80, n_trees=6):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n_rows)
    shared = rng.normal(scale=0.5, size=n_rows)
    return y[None, :] + shared[None, :] + rng.normal(scale=0.7, size=(n_trees, n_rows)), y


def _slow_percentile(measure, n_rows, strata, seed):
    """The percentile interval written out: redraw every class's rows (one multinomial
    draw per class, classes in sorted order, n_boot replicates at once, as diagnose draws
    them; one stratum, all rows, for regression and ``ci_resample="rows"``: strata None),
    call the measure on the redrawn rows, take the quantiles of each variable."""
    rng = np.random.default_rng(seed)
    groups = np.zeros(n_rows, dtype=int) if strata is None else strata
    counts = np.zeros((N_BOOT, n_rows), dtype=int)
    for k in np.unique(groups):
        rows = np.flatnonzero(groups == k)
        counts[:, rows] = rng.multinomial(rows.size, np.full(rows.size, 1 / rows.size),
                                          size=N_BOOT)
    reps = [measure(np.repeat(np.arange(n_rows), c)) for c in counts]
    q = [(1 - LEVEL) / 2, (1 + LEVEL) / 2]
    return {name: np.quantile(np.stack([np.asarray(r[name].values, dtype=float) for r in reps]),
                              q, axis=0)
            for name, da in reps[0].data_vars.items() if da.dtype.kind in "fiu"}


LABELS, Y = _labels()
OUT, TRUTH = _regression()
CLASSIFICATION = {
    "errors": lambda r, **kw: errors(LABELS[:, r], Y[r], n_classes=3, **kw),
    "error_correlation": lambda r, **kw: error_correlation(LABELS[:, r], Y[r], n_classes=3,
                                                           **kw),
    "strength_correlation": lambda r, **kw: strength_correlation(LABELS[:, r], Y[r],
                                                                 n_classes=3, **kw),
    "pairwise_diversity": lambda r, **kw: pairwise_diversity(LABELS[:, r], Y[r], n_classes=3,
                                                             **kw),
    "nonpairwise_diversity": lambda r, **kw: nonpairwise_diversity(LABELS[:, r], Y[r],
                                                                   n_classes=3, **kw),
    "error_arrangement": lambda r, **kw: error_arrangement(LABELS[:, r], Y[r], n_classes=3,
                                                           **kw),
    "probability_quality": lambda r, **kw: probability_quality(
        _vote_shares(LABELS[:, r]), Y[r], n_bins=5, **kw),
}
REGRESSION = {
    "ambiguity": lambda r, **kw: ambiguity(OUT[:, r], y=TRUTH[r], **kw),
    "breiman_regression_bound": lambda r, **kw: breiman_regression_bound(OUT[:, r],
                                                                         y=TRUTH[r], **kw),
}


def _vote_shares(labels):
    shares = np.stack([(labels == c).mean(axis=0) for c in range(3)], axis=1)
    return 0.9 * shares + 0.1 / 3  # no zero probability: a finite log loss


@pytest.mark.parametrize("resample", ["stratified", "rows"])
@pytest.mark.parametrize("name", [*CLASSIFICATION, *REGRESSION])
def test_interval_equals_slow_bootstrap_of_the_public_measure(name, resample):
    # "rows" against the slow bootstrap from all rows: an option that stratified silently
    # (or a regression measure that split its rows) would draw other rows and fail here
    measure = {**CLASSIFICATION, **REGRESSION}[name]
    strata = Y if name in CLASSIFICATION and resample == "stratified" else None
    n_rows = Y.size if name in CLASSIFICATION else TRUTH.size
    every = np.arange(n_rows)
    res = measure(every, ci=LEVEL, ci_method="percentile", n_boot=N_BOOT, ci_seed=3,
                  ci_resample=resample)
    slow = _slow_percentile(measure, n_rows, strata, seed=3)
    ci = json.loads(res.attrs["params"])["ci"]
    assert ci["seed"] == 3 and ci["n_boot"] == N_BOOT and ci["method"] == "percentile"
    words = {(True, "stratified"): "test rows, stratified by class",
             (True, "rows"): "test rows, not stratified (ci_resample='rows': the class "
                             "counts vary)"}
    assert ci["resampling"] == words.get((name in CLASSIFICATION, resample), "test rows")
    if name == "probability_quality":  # the class shares vary under "rows" only
        assert ("brier_uncertainty_lower" in res) == (resample == "rows")
    checked = 0
    for var in list(res.data_vars):
        if f"{var}_lower" not in res:
            assert var.endswith(("_lower", "_upper")) or var in ci["no_interval"], var
            continue
        np.testing.assert_allclose(res[f"{var}_lower"].values, slow[var][0], rtol=1e-9,
                                   atol=1e-12, err_msg=var)
        np.testing.assert_allclose(res[f"{var}_upper"].values, slow[var][1], rtol=1e-9,
                                   atol=1e-12, err_msg=var)
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("name", [*CLASSIFICATION, *REGRESSION])
def test_bca_interval_contains_the_estimate(name):
    measure = {**CLASSIFICATION, **REGRESSION}[name]
    n_rows = Y.size if name in CLASSIFICATION else TRUTH.size
    res = measure(np.arange(n_rows), ci=0.95, n_boot=100, ci_seed=1)
    for var in res.data_vars:
        if f"{var}_lower" in res:
            est = res[var].values
            lo, hi = res[f"{var}_lower"].values, res[f"{var}_upper"].values
            ok = np.isfinite(est) & np.isfinite(lo)
            assert np.all(lo[ok] <= est[ok] + 1e-12) and np.all(est[ok] <= hi[ok] + 1e-12), var


@pytest.mark.parametrize(("method", "resample"), [("bca", "stratified"),
                                                  ("percentile", "stratified"),
                                                  ("bca", "rows"), ("percentile", "rows")])
def test_measures_equal_diagnose_for_the_same_seed(method, resample):
    # diagnose reweights sums, the measures recompute on repeated rows: the same draws of
    # either resampling give the same limits
    res = diagnose(LABELS, None, Y, classes=[0, 1, 2], measures=["pairwise_diversity",
                   "nonpairwise_diversity"], ci=0.95, ci_method=method, n_boot=150,
                   ci_seed=5, ci_resample=resample)
    kw = {"n_classes": 3, "ci": 0.95, "ci_method": method, "n_boot": 150, "ci_seed": 5,
          "ci_resample": resample}
    pairs = {"pairwise_diversity_correlation": "correlation"}
    by_measure = [
        (errors(LABELS, Y, **kw), ("ensemble_error", "mean_member_error", "member_error")),
        (error_correlation(LABELS, Y, **kw), ("phi_e", "phi_star", "phi_gap")),
        (strength_correlation(LABELS, Y, **kw), ("strength", "correlation", "breiman_bound",
                                                 "margin_variance", "p1", "p2", "sd")),
        (pairwise_diversity(LABELS, Y, **kw), ("q_statistic", "pairwise_diversity_correlation",
                                               "disagreement", "double_fault", "kappa",
                                               "pair_error", "mean_q_statistic",
                                               "mean_correlation", "mean_kappa",
                                               "mean_disagreement", "mean_double_fault")),
        (nonpairwise_diversity(LABELS, Y, **kw), ("entropy", "kw_variance", "difficulty",
                                                  "interrater_kappa")),
    ]
    for ds, names in by_measure:
        for name in names:
            own = pairs.get(name, name)
            for side in ("lower", "upper"):
                np.testing.assert_allclose(ds[f"{own}_{side}"].values,
                                           res[f"{name}_{side}"].values, rtol=1e-9,
                                           atol=1e-12, err_msg=f"{name}_{side}")


def test_regression_mse_interval_agrees_with_normal_theory():
    rng = np.random.default_rng(11)
    n_rows = 4000
    y = rng.normal(size=n_rows)
    out = y[None, :] + rng.normal(scale=0.8, size=(3, n_rows))
    res = diagnose_regression(out, None, y, ci=0.95, ci_method="percentile", n_boot=400)
    sq = (out.mean(axis=0) - y) ** 2
    half = scipy.stats.norm.ppf(0.975) * sq.std(ddof=1) / np.sqrt(n_rows)
    width = float(res.mse_upper - res.mse_lower)
    assert float(res.mse) == pytest.approx(sq.mean())
    assert width == pytest.approx(2 * half, rel=0.1)
    assert float(res.mse_lower) == pytest.approx(sq.mean() - half, abs=0.1 * half)
    assert float(res.mse_upper) == pytest.approx(sq.mean() + half, abs=0.1 * half)


def test_diagnose_regression_intervals_are_the_measures():
    kw = {"ci": 0.9, "ci_method": "percentile", "n_boot": N_BOOT, "ci_seed": 2}
    res = diagnose_regression(OUT, None, TRUTH, **kw)
    amb = ambiguity(OUT, y=TRUTH, **kw)
    bound = breiman_regression_bound(OUT, y=TRUTH, **kw)
    for ds, names in ((amb, ("ensemble_mse", "ambiguity", "member_mse", "member_ambiguity")),
                      (bound, ("rho_bar", "breiman_bound", "mean_residual_correlation"))):
        for name in names:
            for side in ("lower", "upper"):
                np.testing.assert_allclose(res[f"{name}_{side}"].values,
                                           ds[f"{name}_{side}"].values, rtol=1e-12)
    for name in ("mse", "r2"):
        assert res[f"{name}_lower"] < res[name] < res[f"{name}_upper"]
    assert res.mse_lower == res.ensemble_mse_lower  # mean of the members: the same numbers


def test_diagnose_of_a_regressor_takes_ci():
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] + rng.normal(scale=0.3, size=120)
    rf = RandomForestRegressor(n_estimators=5, random_state=0).fit(X[:80], y[:80])
    res = diagnose(rf, X[80:], y[80:], ci=0.9, n_boot=100, X_train=X[:80], y_train=y[:80])
    assert {"mse_lower", "r2_upper", "breiman_bound_lower", "member_mse_upper"} <= set(res)
    ci = json.loads(res.attrs["params"])["ci"]
    assert ci["resampling"] == "test rows" and "oob_breiman_bound" in ci["no_interval"]
    # no classes to keep: "rows" passes through to the same draws from all rows
    rows = diagnose(rf, X[80:], y[80:], ci=0.9, n_boot=100, X_train=X[:80], y_train=y[:80],
                    ci_resample="rows")
    for name in ("mse_lower", "r2_upper", "breiman_bound_lower"):
        assert float(rows[name]) == float(res[name]), name
    with pytest.raises(ValueError, match="ci_resample must be one of"):
        diagnose(rf, X[80:], y[80:], ci=0.9, ci_resample="class")


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"ci": 1.0}, "ci must"), ({"ci": 0}, "ci must"), ({"ci": True}, "ci must"),
    ({"ci": 0.9, "n_boot": 1}, "n_boot"), ({"ci": 0.9, "n_boot": 50}, "n_boot"),
    ({"ci": 0.9, "ci_method": "basic"}, "ci_method"), ({"ci": 0.9, "ci_seed": -1}, "ci_seed"),
    ({"ci": 0.9, "ci_resample": "plain"},
     r"ci_resample must be one of \('stratified', 'rows'\).*'plain'"),
    ({"ci": 0.9, "ci_resample": None}, "ci_resample"),
])
@pytest.mark.parametrize("name", [*CLASSIFICATION, *REGRESSION])
def test_undefined_interval_options_are_refused_naming_the_argument(name, kwargs, named):
    measure = {**CLASSIFICATION, **REGRESSION}[name]
    with pytest.raises(ValueError, match=named):
        measure(np.arange(Y.size if name in CLASSIFICATION else TRUTH.size), **kwargs)


def test_out_of_bag_and_per_cell_rows_are_refused_with_ci():
    with pytest.raises(ValueError, match="in_bag"):
        strength_correlation(LABELS, Y, in_bag=np.ones_like(LABELS), ci=0.9)
    with pytest.raises(ValueError, match="oob"):
        breiman_regression_bound(OUT, y=TRUTH, in_bag=np.ones_like(OUT, dtype=int), ci=0.9)
    two = np.stack([LABELS, LABELS])
    with pytest.raises(ValueError, match="one set of test rows"):
        nonpairwise_diversity(two, np.stack([Y, np.roll(Y, 1)]), ci=0.9, n_boot=100)
    same = nonpairwise_diversity(two, Y, ci=0.9, n_boot=100)
    assert same.entropy_lower.shape == (2,)
    assert float(same.entropy_lower[0]) == float(same.entropy_lower[1])


def test_pair_matrices_above_the_memory_bound_get_the_reason(monkeypatch):
    monkeypatch.setattr(_measure_intervals, "MAX_REPLICATE_BYTES", 2**16)
    res = pairwise_diversity(LABELS, Y, ci=0.9, n_boot=100, ci_method="percentile")
    reasons = json.loads(res.attrs["params"])["ci"]["no_interval"]
    assert "q_statistic_lower" not in res and "MiB" in reasons["q_statistic"]
    assert "mean_q_statistic_lower" in res
    diag = diagnose(LABELS, None, Y, classes=[0, 1, 2], measures=["pairwise_diversity"],
                    ci=0.9, n_boot=100, ci_method="percentile")
    assert "kappa_lower" not in diag and "kappa" in json.loads(
        diag.attrs["params"])["ci"]["no_interval"]


def test_leading_dims_get_one_interval_per_cell_from_one_draw():
    shares = _vote_shares(LABELS)
    other = 0.5 * shares + 0.5 / 3
    kw = {"ci": 0.9, "n_boot": 100, "ci_seed": 4, "ci_method": "percentile"}
    both = probability_quality(np.stack([shares, other]), Y, **kw)
    alone = probability_quality(other, Y, **kw)
    for name in ("brier_lower", "log_loss_upper", "auc_ovr_lower"):
        np.testing.assert_allclose(both[name].values[1], alone[name].values, rtol=1e-12)
    pairs = pairwise_diversity(np.stack([LABELS, LABELS[::-1]]), Y, **kw)
    alone = pairwise_diversity(LABELS[::-1], Y, **kw)
    np.testing.assert_allclose(pairs.kappa_upper.values[1], alone.kappa_upper.values,
                               rtol=1e-12)


@pytest.mark.parametrize("name", [*CLASSIFICATION, *REGRESSION])
def test_an_unknown_resampling_is_refused_before_any_work(name):
    # rows that do not fit (y one row short) fail later, when the measure reads them: the
    # resampling is refused first, naming the argument and the allowed values
    measure = {**CLASSIFICATION, **REGRESSION}[name]
    n_rows = Y.size if name in CLASSIFICATION else TRUTH.size
    with pytest.raises(ValueError) as later:
        _short_y(name)(np.arange(n_rows), ci=0.9)
    assert "ci_resample" not in str(later.value)
    with pytest.raises(ValueError, match="ci_resample must be one of"):
        _short_y(name)(np.arange(n_rows), ci=0.9, ci_resample="by_class")
    with pytest.raises(ValueError, match="ci_resample must be one of"):
        measure(np.arange(n_rows), ci=0.9, ci_resample="Rows")


def test_diagnose_refuses_an_unknown_resampling_before_reading_the_rows():
    with pytest.raises(ValueError) as later:
        diagnose(LABELS, None, Y[:-1], classes=[0, 1, 2], ci=0.9)
    assert "ci_resample" not in str(later.value)
    with pytest.raises(ValueError, match="ci_resample must be one of"):
        diagnose(LABELS, None, Y[:-1], classes=[0, 1, 2], ci=0.9, ci_resample="class")


def _short_y(name):
    """The measure with y one row short of the members' rows."""
    if name in REGRESSION:
        fn = {"ambiguity": ambiguity, "breiman_regression_bound": breiman_regression_bound}[name]
        return lambda r, **kw: fn(OUT[:, r], y=TRUTH[r][:-1], **kw)
    if name == "probability_quality":
        return lambda r, **kw: probability_quality(_vote_shares(LABELS[:, r]), Y[r][:-1], **kw)
    fn = {"errors": errors, "error_correlation": error_correlation,
          "strength_correlation": strength_correlation,
          "pairwise_diversity": pairwise_diversity,
          "nonpairwise_diversity": nonpairwise_diversity,
          "error_arrangement": error_arrangement}[name]
    return lambda r, **kw: fn(LABELS[:, r], Y[r][:-1], n_classes=3, **kw)


def test_every_measure_with_ci_takes_every_interval_option():
    # the shared docstring fills only a signature with every option at its default: a
    # measure that forgot ci_resample (or changed a default) is refused at import
    def forgot(x, *, ci=None, ci_method="bca", n_boot=2000, ci_seed=0):
        """Doc.

        Parameters
        ----------
            %(ci_options)s
        """

    forgot.__doc__ = forgot.__doc__.replace("            %(ci_options)s", "    %(ci_options)s")
    with pytest.raises(AssertionError, match="ci_resample"):
        _measure_intervals.documents_ci_options(forgot)
    for fn in (errors, error_correlation, strength_correlation, pairwise_diversity,
               nonpairwise_diversity, error_arrangement, probability_quality, ambiguity,
               breiman_regression_bound, diagnose, diagnose_regression):
        assert "ci_resample : {\"stratified\", \"rows\"}" in fn.__doc__, fn.__name__
