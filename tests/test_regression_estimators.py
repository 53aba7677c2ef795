"""treelab's regressors as scikit-learn regressors: scikit-learn's own estimator checks, R^2,
and the members' outputs."""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1
from sklearn.metrics import r2_score
from sklearn.utils.estimator_checks import parametrize_with_checks

import treelab

pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered in cast:RuntimeWarning:sklearn")

REGRESSORS = [
    treelab.RegressionTree(),
    treelab.VRTreesRegressor(n_estimators=5, random_state=0),
    treelab.VRTreesRegressor(n_estimators=5, sampling="bootstrap+subspace", random_state=0),
    treelab.CoalescenceRegressor(n_estimators=5, random_state=0),
    treelab.MaxDiverseRegressor(n_estimators=5, random_state=0),
    treelab.RandomDecisionTreesRegressor(n_estimators=5, random_state=0),
    treelab.RandomForestRegressor(n_estimators=5, random_state=0),
    treelab.RandomForestRegressor(n_estimators=5, max_bins=16, random_state=0),
    treelab.ExtraTreesRegressor(n_estimators=5, random_state=0),
    treelab.BaggedTreesRegressor(n_estimators=5, random_state=0),
    treelab.DisjointSampleTreesRegressor(n_estimators=3, random_state=0),
    treelab.RotationForestRegressor(n_estimators=5, random_state=0),
    treelab.RotationForestRegressor(n_estimators=5, bootstrap=True, alpha=0.5, random_state=0),
]

EQUIVALENCE = "check_sample_weight_equivalence_on_dense_data"
BOOTSTRAP = ("a bootstrap sample draws n of the rows given: copies of a row change n and every "
             "draw, while a weighted row is drawn as one row whose weight multiplies its count")
PAIR = ("random nodes draw rows of the node (pair_midpoint): copies of a row are drawn more "
        "often than the one weighted row")
SIZES = ("node sizes count rows, not weights (as scikit-learn's min_samples_split): copies of "
         "a row make a node larger than the one weighted row")

ROTATION_SAMPLE = ("each feature group's PCA is fitted on 75% of the tree's rows drawn at random: "
                   "copies of a row change how many are drawn and every draw, while a weighted "
                   "row is one row drawn with probability proportional to its weight")


def expected_failed_checks(est) -> dict:
    """Checks a regressor fails by its definition, with the reason (xfail, strict)."""
    name = type(est).__name__
    p = est.get_params()
    reasons = []
    if p.get("bootstrap") or p.get("sampling", "none").startswith("bootstrap") or name in (
            "BaggedTreesRegressor",):
        reasons.append(BOOTSTRAP)
    if p.get("random_split") == "pair_midpoint" and (
            name in ("CoalescenceRegressor", "MaxDiverseRegressor") or p.get("alpha", 1.0) < 1.0):
        reasons.append(PAIR)
    if name == "RotationForestRegressor" and p.get("rotation") == "pca":
        reasons.append(ROTATION_SAMPLE)
    if name == "DisjointSampleTreesRegressor":
        reasons.append("rows are dealt at random into disjoint parts: copies of a row can land "
                       "in different parts, a weighted row lies in one")
    return {EQUIVALENCE: "; ".join(reasons)} if reasons else {}


@parametrize_with_checks(REGRESSORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible_regressor(estimator, check, monkeypatch):
    if "check_array_api_input" in str(check):
        monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)


@pytest.mark.parametrize("est", REGRESSORS[2:], ids=lambda e: type(e).__name__)
def test_members_mean_is_the_prediction_and_score_is_r2(est):
    X, y = make_friedman1(300, random_state=0)
    est.fit(X[:200], y[:200])
    members = est.member_predict(X[200:])
    assert members.shape == (est.n_estimators, 100)
    np.testing.assert_allclose(est.predict(X[200:]), members.mean(axis=0), rtol=1e-12)
    assert est.score(X[200:], y[200:]) == pytest.approx(r2_score(y[200:], est.predict(X[200:])))
    leaves = est.apply(X[200:])
    fr = est.forest_
    np.testing.assert_array_equal(members, fr.value[leaves + fr.node_offsets[:-1]].T)
    assert np.all(fr.kind[leaves + fr.node_offsets[:-1]] == 0)


def test_forest_beats_one_tree_on_friedman1():
    X, y = make_friedman1(1500, noise=1.0, random_state=1)
    tree = treelab.RegressionTree(random_state=0).fit(X[:1000], y[:1000])
    for est in (treelab.RandomForestRegressor(n_estimators=30, random_state=0),
                treelab.VRTreesRegressor(n_estimators=30, alpha=0.7, random_state=0),
                treelab.ExtraTreesRegressor(n_estimators=30, random_state=0)):
        assert est.fit(X[:1000], y[:1000]).score(X[1000:], y[1000:]) > tree.score(
            X[1000:], y[1000:]) + 0.05


def test_tree_stats_count_the_nodes():
    X, y = make_friedman1(200, random_state=3)
    tree = treelab.RegressionTree().fit(X, y)
    stats = tree.tree_stats()
    n_internal = int(np.sum(tree.forest_.kind != 0))
    assert int(stats["decision_nodes"][0]) == n_internal
    assert int(stats["n_leaves"][0]) == 200  # fully grown on distinct rows
    assert float(stats["random_share"][0]) == 0.0
    rnd = treelab.MaxDiverseRegressor(n_estimators=2, random_state=0).fit(X, y).tree_stats()
    np.testing.assert_array_equal(rnd["random_share"], 1.0)
    np.testing.assert_array_equal(rnd["decision_nodes"], 0)
