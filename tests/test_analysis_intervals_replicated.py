"""Intervals of the measures recomputed at bootstrap row weights (independent_error, the pair
means Q, rho and kappa, Murphy's reliability, resolution and uncertainty, the one-vs-rest AUC):
unit weights give diagnose's values, integer weights give the measure of the rows repeated that
many times (a slow reference that builds each replicate's rows and calls the public measure),
and the intervals of diagnose equal a hand-made percentile bootstrap with the same seed, within
every class or (``ci_resample="rows"``) from all rows."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from treelab.analysis import diagnose, error_arrangement, pairwise_diversity
from treelab.analysis._dataset import vote_counts
from treelab.analysis._replicates import replicate_statistics
from treelab.analysis.intervals import NO_INTERVAL, stratified_weights
from treelab.stats import probability_quality

NAMES = ("independent_error", "mean_q_statistic", "mean_correlation", "mean_kappa",
         "brier_reliability", "brier_resolution", "auc_ovr")
#: What varies only when the class counts do: an interval under ci_resample="rows" only.
ROWS_ONLY = ("brier_uncertainty", "class_share")


def _case(n_rows=150, n_trees=7, n_classes=3, seed=5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    noise = rng.integers(0, n_classes, (n_trees, n_rows))
    labels = np.where(rng.random((n_trees, n_rows)) < 0.65, y[None, :], noise)
    return labels, y


def _statistics(labels, y, n_classes):
    res = diagnose(labels, None, y, classes=list(range(n_classes)),
                   measures=["pairwise_diversity", "probability_quality"])
    proba = vote_counts(labels, n_classes) / labels.shape[0]
    variables = {name: None for name in (*NAMES, "brier_uncertainty")}
    # diagnose hands probability_quality the vote fractions as they are (their rows sum to 1
    # up to rounding; dividing by those sums would split ties): the reference takes them too
    return res, replicate_statistics(variables, labels, y, n_classes, proba, n_classes), proba


def _evaluate(statistics, weights):
    out = {}
    for statistic in statistics:
        out.update(statistic(weights))
    return out


@pytest.mark.parametrize("n_classes", [2, 3])
def test_unit_weights_give_diagnose_values(n_classes):
    labels, y = _case(n_classes=n_classes)
    res, statistics, _ = _statistics(labels, y, n_classes)
    got = _evaluate(statistics, np.ones((1, y.size)))
    assert set(got) == {*NAMES, "brier_uncertainty"}
    for name in (*NAMES, "brier_uncertainty"):
        assert got[name][0] == pytest.approx(float(res[name]), rel=1e-10, abs=1e-14), name


@pytest.mark.parametrize("resample", ["stratified", "rows"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_integer_weights_give_the_measures_of_the_repeated_rows(n_classes, resample):
    # the slow reference: a replicate's rows built by repeating each row w_i times, then the
    # public measures (error_arrangement, pairwise_diversity, probability_quality and
    # scikit-learn's roc_auc_score) on them; row weights move the class shares too
    labels, y = _case(n_classes=n_classes, seed=9)
    _, statistics, proba = _statistics(labels, y, n_classes)
    w = (stratified_weights(y, 4, np.random.default_rng(3)) if resample == "stratified" else
         np.random.default_rng(3).multinomial(y.size, np.full(y.size, 1 / y.size), size=4))
    got = _evaluate(statistics, w)
    for b, row in enumerate(w):
        idx = np.repeat(np.arange(y.size), row.astype(int))
        lab, yy, pp = labels[:, idx], y[idx], proba[idx]
        arr = error_arrangement(lab, yy, n_classes=n_classes)
        pw = pairwise_diversity(lab, yy, n_classes=n_classes)
        pq = probability_quality(pp, yy)
        auc = (roc_auc_score(yy, pp[:, 1]) if n_classes == 2 else
               roc_auc_score(yy, pp, multi_class="ovr", labels=list(range(n_classes))))
        want = {"independent_error": float(arr.independent_error),
                "mean_q_statistic": float(pw.mean_q_statistic),
                "mean_correlation": float(pw.mean_correlation),
                "mean_kappa": float(pw.mean_kappa),
                "brier_reliability": float(pq.brier_reliability),
                "brier_resolution": float(pq.brier_resolution),
                "brier_uncertainty": float(pq.brier_uncertainty),
                "auc_ovr": auc}
        for name, value in want.items():
            assert got[name][b] == pytest.approx(value, rel=1e-9, abs=1e-12), (name, b)


@pytest.mark.parametrize("resample", ["stratified", "rows"])
def test_diagnose_intervals_equal_a_hand_made_percentile_bootstrap(resample):
    # same seed: diagnose draws its weights first from default_rng(ci_seed): one multinomial
    # per class in sorted order (stratified) or one over all rows (rows)
    labels, y = _case(n_rows=90, n_trees=5, seed=11)
    res = diagnose(labels, None, y, classes=[0, 1, 2], measures=["pairwise_diversity",
                   "probability_quality"], ci=0.9, n_boot=150, ci_method="percentile",
                   ci_seed=7, ci_resample=resample)
    rng = np.random.default_rng(7)
    if resample == "rows":
        w = rng.multinomial(y.size, np.full(y.size, 1 / y.size), size=150)
    else:
        w = np.zeros((150, y.size))
        for k in range(3):
            rows = np.flatnonzero(y == k)
            w[:, rows] = rng.multinomial(rows.size, np.full(rows.size, 1 / rows.size), 150)
    proba = vote_counts(labels, 3) / labels.shape[0]
    proba = proba / proba.sum(axis=1, keepdims=True)  # as diagnose renormalises them
    names = (*NAMES, *ROWS_ONLY) if resample == "rows" else NAMES
    boot = {name: [] for name in names}
    for row in w:
        idx = np.repeat(np.arange(y.size), row.astype(int))
        lab, yy = labels[:, idx], y[idx]
        pw = pairwise_diversity(lab, yy, n_classes=3)
        pq = probability_quality(proba[idx], yy)
        boot["independent_error"].append(
            float(error_arrangement(lab, yy, n_classes=3).independent_error))
        for name in ("mean_q_statistic", "mean_correlation", "mean_kappa"):
            boot[name].append(float(pw[name]))
        for name in ("brier_reliability", "brier_resolution", "auc_ovr"):
            boot[name].append(float(pq[name]))
        if resample == "rows":
            boot["brier_uncertainty"].append(float(pq.brier_uncertainty))
            boot["class_share"].append(np.bincount(yy, minlength=3) / yy.size)
    for name, values in boot.items():
        lo, hi = np.quantile(values, [0.05, 0.95], axis=0)
        if name == "class_share":
            np.testing.assert_allclose(res.class_share_lower.values, lo, rtol=1e-12)
            np.testing.assert_allclose(res.class_share_upper.values, hi, rtol=1e-12)
            continue
        assert float(res[f"{name}_lower"]) == pytest.approx(lo, rel=1e-9, abs=1e-12), name
        assert float(res[f"{name}_upper"]) == pytest.approx(hi, rel=1e-9, abs=1e-12), name
        assert lo <= float(res[name]) <= hi or name == "brier_reliability", name
    for name in NAMES:
        assert name not in NO_INTERVAL
    for name in ROWS_ONLY:
        assert (f"{name}_lower" in res) == (resample == "rows"), name


def test_a_replicate_without_a_class_gives_a_nan_auc():
    # roc_auc_score has no value without both sides of a class: the replicate is NaN, as
    # probability_quality gives on those rows, without a warning
    import warnings

    labels, y = _case(n_classes=3, seed=9)
    _, statistics, _ = _statistics(labels, y, 3)
    w = np.ones((1, y.size))
    w[0, y == 2] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _evaluate(statistics, w)
    assert np.isnan(got["auc_ovr"][0])
    assert np.isfinite(got["brier_uncertainty"][0])


def test_bca_intervals_of_the_new_measures_hold_their_estimates():
    labels, y = _case(n_rows=120, n_trees=6, seed=4)
    res = diagnose(labels, None, y, classes=[0, 1, 2], measures=["pairwise_diversity",
                   "probability_quality"], ci=0.95, n_boot=200)
    for name in NAMES:
        lo, hi = float(res[f"{name}_lower"]), float(res[f"{name}_upper"])
        assert np.isfinite(lo) and lo < hi, name
        assert "bca 95% interval" in res[f"{name}_lower"].attrs["description"], name


def test_a_simulated_independent_error_gets_no_interval():
    # five wrong classes in play with 25 members: the exact table is too large, the value is
    # simulated, and its interval is NaN with the reason in the description
    rng = np.random.default_rng(0)
    y = rng.integers(0, 6, 200)
    labels = np.where(rng.random((25, 200)) < 0.5, y[None, :], rng.integers(0, 6, (25, 200)))
    res = diagnose(labels, None, y, classes=list(range(6)), ci=0.9, n_boot=100,
                   ci_method="percentile")
    assert "monte carlo" in res.independent_error.attrs["description"]
    assert np.isnan(float(res.independent_error_lower))
    assert "NaN where the value is simulated" in res.independent_error_lower.attrs["description"]
