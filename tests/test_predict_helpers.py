"""``_predict.has_nan`` (which walk serves a prediction: the lockstep walk needs rows without
missing values) against an element-by-element reference, and the walk it chooses."""

import numpy as np
import pytest

import treelab
from treelab.engine.kernels import _predict as P


def reference_has_nan(X):
    return any(v != v for v in np.asarray(X, dtype=np.float64).ravel().tolist())


@pytest.mark.parametrize("X", [
    np.zeros((0, 3)),
    np.zeros((4, 0)),
    np.arange(12.0).reshape(4, 3),
    np.array([[1.0, np.nan], [2.0, 3.0]]),
    np.array([[np.inf, -np.inf], [1e308, -1e308]]),  # inf - inf and overflow: no NaN
    np.array([[np.nan]]),
    np.array([[1.0, 2.0], [3.0, np.nan]])[:, ::-1],  # not contiguous
    np.full((3, 2), -np.inf),
    np.array([[-np.inf, np.nan, np.inf]]),
])
def test_has_nan_against_an_element_by_element_reference(X):
    assert P.has_nan(X) is reference_has_nan(X)


def test_rows_with_a_missing_value_take_the_general_walk_with_the_same_answers():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    fr = treelab.RandomForest(n_estimators=3, random_state=0).fit(X, y).forest_
    Xt = rng.normal(size=(40, 3))
    lanes = fr.walk_arrays(Xt)
    assert lanes[-1].shape[0] > 0  # the lockstep walk's codes
    Xn = Xt.copy()
    Xn[17, 2] = np.nan
    general = fr.walk_arrays(Xn)
    assert general[-1].shape[0] == 0 and general[1] is not None
    # the rows without the missing value reach the same leaves either way
    keep = np.arange(40) != 17
    np.testing.assert_array_equal(P.apply_forest(Xt, *lanes, 1)[keep],
                                  P.apply_forest(Xn, *general, 1)[keep])
