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


# check_sample_weight_equivalence_on_dense_data compares integer weights with repeated rows
# (and zero weights with dropped rows) on one random_state. It holds, and runs, for every learner
# whose trees depend on their rows alone or whose draws do not depend on how many copies of a row
# there are; for the others a random draw sees the rows themselves, so copies change the draw
# by the learner's definition. tests/test_weights.py checks what does hold for each of those:
# weights multiply the bootstrap and disjoint-part multiplicities of the same draws, and
# repeated rows equal integer weights once the draw does not look at rows.
EQUIVALENCE = "check_sample_weight_equivalence_on_dense_data"
BOOTSTRAP = ("a bootstrap sample draws n of the rows given: copies of a row change n and every "
             "draw, while a weighted row is drawn as one row whose weight multiplies its count")
PAIR = ("random nodes draw rows of the node (pair_midpoint, PERT's pairs): copies of a row are "
        "drawn more often than the one weighted row")


def expected_failed_checks(est) -> dict:
    """Checks a learner fails by its definition, with the reason (xfail, strict)."""
    name = type(est).__name__
    p = est.get_params()
    reasons = []
    if p.get("bootstrap") or p.get("sampling", "none").startswith("bootstrap") or name in (
            "BaggedTrees", "BaggedMMDT", "BaggedCVDT"):
        reasons.append(BOOTSTRAP)
    if name == "PERT" or (p.get("random_split") == "pair_midpoint" and (
            name in ("Coalescence", "MaxDiverseEnsemble") or p.get("alpha", 1.0) < 1.0)):
        reasons.append(PAIR)
    if name == "DisjointSampleTrees":
        reasons.append("rows are dealt at random into disjoint parts: copies of a row can land "
                       "in different parts, a weighted row lies in one")
    if p.get("prune") == "reduced_error":
        reasons.append("the held-out tuning rows are drawn among the rows given: copies change "
                       "the draw")
    if name in ("CVDT", "BaggedCVDT") and len(p["candidates"]) > 1:
        reasons.append("the 2-fold cross-validation splits the rows at random: copies of a row "
                       "can fall into both folds, a weighted row stays in one")
    if p.get("rotation") == "pca":
        reasons.append("PCA rotations draw a sample of the tree's rows with multiplicity, "
                       "whose positions differ for copies and weights")
    return {EQUIVALENCE: "; ".join(reasons)} if reasons else {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_compatible(estimator, check, monkeypatch):
    # check_array_api_input (NumPy inputs under array_api_dispatch=True: treelab declares no
    # array API support, so scikit-learn checks that dispatch changes nothing) skips itself
    # unless SCIPY_ARRAY_API=1. scikit-learn reads the variable when the check runs, and with
    # NumPy inputs SciPy's own reading of it (at import) changes nothing, so the variable is
    # set for this check alone instead of for the whole session
    if "check_array_api_input" in str(check):
        monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    check(estimator)
