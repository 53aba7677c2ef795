"""Loaded data sets fit without ``categorical_features`` (issue 27 item 6): ``X_frame`` carries
the nominal columns as pandas ``category`` dtype, which every estimator reads as nominal."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import treelab
from treelab.datasets import load_uci

MAKERS = [
    lambda **kw: treelab.DecisionTree(**kw),
    lambda **kw: treelab.VRTrees(n_estimators=4, alpha=0.5, random_state=0, **kw),
    lambda **kw: treelab.StochasticID3(n_estimators=3, random_state=0, **kw),
    lambda **kw: treelab.MMDT(random_state=0, **kw),
    lambda **kw: treelab.RotationForest(n_estimators=3, random_state=0, **kw),
]
def with_missing(data):
    """The data with every 7th value of the first nominal column missing."""
    X = data.X.copy()
    X[::7, np.flatnonzero(data.categorical_features)[0]] = np.nan
    return type(data)(X=X, y=data.y, feature_types=data.feature_types,
                      feature_names=data.feature_names, name=data.name)


FOREST = ("kind", "feature", "threshold", "child_start", "n_children", "nan_child", "counts")


@pytest.mark.parametrize("name", ["credit-a", "primary-tumor"])  # mixed; 21 classes
@pytest.mark.parametrize("make", MAKERS, ids=["DecisionTree", "VRTrees", "StochasticID3",
                                              "MMDT", "RotationForest"])
def test_fit_on_x_frame_without_the_argument_grows_the_same_trees(name, make):
    data = with_missing(load_uci(name))
    assert data.categorical_features.any()
    by_hand = make(categorical_features=data.categorical_features).fit(data.X, data.y)
    frame = data.X_frame
    from_dtype = make().fit(frame, data.y)
    np.testing.assert_array_equal(from_dtype.nominal_features_, data.categorical_features)
    for attr in FOREST:
        np.testing.assert_array_equal(getattr(from_dtype.forest_, attr),
                                      getattr(by_hand.forest_, attr), err_msg=attr)
    np.testing.assert_array_equal(from_dtype.predict_proba(frame), by_hand.predict_proba(data.X))
    # scikit-learn's spelling of the same rule
    sk = make(categorical_features="from_dtype").fit(frame, data.y)
    np.testing.assert_array_equal(sk.forest_.threshold, by_hand.forest_.threshold)


def test_x_frame_columns_types_and_values():
    data = with_missing(load_uci("credit-a"))
    frame = data.X_frame
    assert list(frame.columns) == list(data.feature_names)
    for j, col in enumerate(frame.columns):
        nominal = isinstance(frame[col].dtype, pd.CategoricalDtype)
        assert nominal == data.categorical_features[j]
        values = frame[col].astype(float).to_numpy()
        np.testing.assert_array_equal(values, data.X[:, j])  # NaN where missing
