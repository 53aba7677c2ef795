"""The workbench measures reached from diagnose(measures=...) and from the experiment runner,
computed from the one member pass (equal to the direct calls on the same member outputs)."""

from types import SimpleNamespace

import numpy as np
import pytest

from treelab.analysis import (
    diagnose,
    margin_cdf,
    margins,
    nonpairwise_diversity,
    pairwise_diversity,
)
from treelab.experiment import ExperimentConfig, run
from treelab.stats import probability_quality


class StandIn:
    """A fitted ensemble with fixed member probabilities (the contract diagnose reads)."""

    def __init__(self, member_p, classes):
        self._p = member_p
        self.classes_ = np.asarray(classes)
        self.combine = "average"
        T = member_p.shape[0]
        self.forest_ = SimpleNamespace(ties_feature=np.zeros(T, np.int64),
                                       ties_test=np.zeros(T, np.int64),
                                       n_decision=np.full(T, 3, np.int64))
        self.calls = 0

    def member_proba(self, X):
        self.calls += 1
        return self._p


def test_diagnose_measures_match_direct_calls():
    rng = np.random.default_rng(2)
    member_p = rng.dirichlet(np.ones(3), (6, 40))
    y = rng.integers(0, 3, 40)
    ens = StandIn(member_p, [10, 20, 30])
    ds = diagnose(ens, None, np.array([10, 20, 30])[y],
                  measures=["pairwise_diversity", "nonpairwise_diversity", "probability_quality"])
    assert ens.calls == 1  # one member pass feeds every measure
    labels = member_p.argmax(axis=2)
    pw = pairwise_diversity(labels, y, n_classes=3)
    npw = nonpairwise_diversity(labels, y, n_classes=3)
    pq = probability_quality(member_p.mean(axis=0), y)
    np.testing.assert_allclose(ds.q_statistic.values, pw.q_statistic.values, equal_nan=True)
    assert ds.kappa.dims == ("tree", "tree_other")
    # Kuncheva's oracle correlation sits beside Breiman's correlation under its measure's name
    np.testing.assert_allclose(ds.pairwise_diversity_correlation.values, pw.correlation.values,
                               equal_nan=True)
    assert float(ds.correlation) != float(pw.mean_correlation)
    for name in ("kw_variance", "entropy", "generalized_diversity"):
        assert float(ds[name]) == pytest.approx(float(npw[name]), abs=1e-12)
    for name in ("brier", "log_loss", "ece_count", "auc_ovr"):
        assert float(ds[name]) == pytest.approx(float(pq[name]), abs=1e-12)
    with pytest.raises(ValueError, match="measures"):
        diagnose(ens, None, np.array([10, 20, 30])[y], measures=["q"])


def test_diagnose_margin_cdf_is_the_direct_call_on_its_own_dim():
    rng = np.random.default_rng(4)
    member_p = rng.dirichlet(np.ones(3), (7, 50))
    y = rng.integers(0, 3, 50)
    y[:4] = 3  # a class the ensemble never saw: every member wrong, margin counts it
    labels = np.array([10, 20, 30, 40])[y]
    ds = diagnose(StandIn(member_p, [10, 20, 30]), None, labels, measures=["margin_cdf"])
    direct = margin_cdf(margins(member_p.argmax(axis=2), y, n_classes=4))
    assert ds.margin_cdf.dims == ("margin_threshold",)
    assert ds.thresholded_mse.dims == ("threshold",)  # untouched beside it
    np.testing.assert_array_equal(ds.margin_threshold.values, np.linspace(-1, 1, 201))
    np.testing.assert_allclose(ds.margin_cdf.values, direct.values, rtol=0, atol=1e-15)
    # by hand: votes per row; a row of the unseen class has margin -(largest vote share)
    votes = np.stack([np.bincount(col, minlength=4) for col in member_p.argmax(axis=2).T])
    own = votes[np.arange(50), y]
    rival = np.where(np.arange(4) == y[:, None], -1, votes).max(axis=1)
    m = (own - rival) / 7
    np.testing.assert_allclose(m[:4], -votes[:4].max(axis=1) / 7)
    for theta in ds.margin_threshold.values[[0, 60, 100, 130, 200]]:
        got = ds.margin_cdf.sel(margin_threshold=theta).item()
        assert got == pytest.approx(np.mean(m <= theta), abs=1e-15), theta



def test_diagnose_diversity_measures_count_a_test_class_the_ensemble_never_saw():
    # rows of class 40, which no member knows, are wrong for every member (its own class, as
    # diagnose's other measures count it); the measures once refused y's code 3 >= 3 classes
    rng = np.random.default_rng(5)
    member_p = rng.dirichlet(np.ones(3), (5, 30))
    y = rng.integers(0, 3, 30)
    y[:6] = 3
    ds = diagnose(StandIn(member_p, [10, 20, 30]), None, np.array([10, 20, 30, 40])[y],
                  measures=["pairwise_diversity", "nonpairwise_diversity"])
    # by hand, from the oracle outputs: member t right on row i
    right = member_p.argmax(axis=2) == y[None, :]
    assert not right[:, :6].any()
    n11 = np.einsum("ti,ki->tk", right * 1, right * 1)
    n00 = np.einsum("ti,ki->tk", ~right * 1, ~right * 1)
    np.testing.assert_allclose(ds.double_fault.values, n00 / 30, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ds.disagreement.values, 1 - (n11 + n00) / 30, rtol=0, atol=1e-15)
    # Kuncheva & Whitaker's entropy E: mean over rows of min(l, T - l) / (T - ceil(T / 2))
    n_right = right.sum(axis=0)
    entropy = np.mean(np.minimum(n_right, 5 - n_right) / (5 - 3))
    assert float(ds.entropy) == pytest.approx(entropy, abs=1e-15)

def test_runner_writes_workbench_measures(tmp_path):
    config = ExperimentConfig(
        name="wb",
        datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 4}}],
        alphas=[0.5],
        protocol={"name": "stratified_kfold", "n_splits": 2},
        seed=1,
        backend="serial",
        measures={"diagnose": {"measures": ["pairwise_diversity", "nonpairwise_diversity",
                                            "probability_quality"]}},
        out=str(tmp_path / "wb"),
    )
    ds = run(config, progress=False)
    for name in ("mean_disagreement", "mean_kappa", "kw_variance", "interrater_kappa",
                 "brier", "ece_width", "phi_e", "strength"):
        assert name in ds, name
    # KW = (L - 1) / (2L) D_av holds cell by cell in the stored result
    np.testing.assert_allclose(ds.kw_variance.values, 3 / 8 * ds.mean_disagreement.values)
