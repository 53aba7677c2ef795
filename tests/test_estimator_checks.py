"""scikit-learn's own estimator checks, for every treelab estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

import treelab

ESTIMATORS = [
    treelab.DecisionTree(),
    treelab.VRTrees(n_estimators=5, random_state=0),
    treelab.Coalescence(n_estimators=5, random_state=0),
    treelab.MaxDiverseEnsemble(n_estimators=5, random_state=0),
    treelab.RandomDecisionTrees(n_estimators=5, random_state=0),
    treelab.RandomForest(n_estimators=5, random_state=0),
    treelab.BaggedTrees(n_estimators=5, random_state=0),
    treelab.DisjointSampleTrees(n_estimators=3, random_state=0),
    treelab.ExtraTrees(n_estimators=5, random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
