"""scikit-learn's own estimator checks, for every treelab estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import treelab

# check_supervised_y_no_nan hands every estimator a y holding NaN and inf and expects a
# ValueError; scikit-learn's own target check (type_of_target, through its array-API shim)
# casts that y to int before the estimator can refuse it, and numpy warns about the cast.
# The warning is scikit-learn's, raised while the check passes, and says nothing about treelab.
pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered in cast:RuntimeWarning:sklearn")

ESTIMATORS = [
    treelab.DecisionTree(),
    treelab.VRTrees(n_estimators=5, random_state=0),
    treelab.Coalescence(n_estimators=5, random_state=0),
    treelab.MaxDiverseEnsemble(n_estimators=5, random_state=0),
    treelab.RandomDecisionTrees(n_estimators=5, random_state=0),
    treelab.RandomForest(n_estimators=5, random_state=0),
    treelab.RandomForest(n_estimators=5, random_state=0, max_bins=16),
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
def test_sklearn_compatible(estimator, check, monkeypatch):
    # check_array_api_input (NumPy inputs under array_api_dispatch=True: treelab declares no
    # array API support, so scikit-learn checks that dispatch changes nothing) skips itself
    # unless SCIPY_ARRAY_API=1. scikit-learn reads the variable when the check runs, and with
    # NumPy inputs SciPy's own reading of it (at import) changes nothing, so the variable is
    # set for this check alone instead of for the whole session
    if "check_array_api_input" in str(check):
        monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)
