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
    treelab.DecisionTree(prune="reduced_error", random_state=0),
    treelab.DecisionTree(prune="pessimistic"),
    treelab.StochasticID3(n_estimators=3, random_state=0),
    treelab.PERT(n_estimators=5, random_state=0),
    treelab.MMDT(random_state=0),
    treelab.BaggedMMDT(n_estimators=5, random_state=0),
    treelab.CVDT(random_state=0),
    treelab.BaggedCVDT(n_estimators=5, random_state=0),
    treelab.RotationForest(n_estimators=5, random_state=0),
    treelab.RotationForest(n_estimators=5, rotation="pca", random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
