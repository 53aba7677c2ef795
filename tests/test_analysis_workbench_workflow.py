"""The workbench measures reached from diagnose(measures=...) and from the experiment runner,
computed from the one member pass (equal to the direct calls on the same member outputs)."""

from types import SimpleNamespace

import numpy as np
import pytest

from treelab.analysis import diagnose, nonpairwise_diversity, pairwise_diversity
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
