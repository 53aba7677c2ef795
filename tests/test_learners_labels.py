"""Label dtypes (issue 26 item 3): pandas' nullable labels and scikit-learn's rule for floats.

The reference for the classes is plain NumPy: ``np.unique`` of the labels' values in their own
type (what scikit-learn's classifiers give for the equivalent NumPy array).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import treelab

X = np.random.default_rng(0).random((12, 2))
X[:, 0] = np.arange(12) % 2 + 0.1 * X[:, 0]  # column 0 carries the class


@pytest.mark.parametrize("labels", [
    pd.Series(["a", "b"] * 5 + ["a", pd.NA], dtype="string"),
    pd.array(["a", "b"] * 5 + ["a", pd.NA], dtype="string"),
    pd.Series([0, 1] * 5 + [0, pd.NA], dtype="Int64"),
    pd.Series([True, False] * 5 + [True, pd.NA], dtype="boolean"),
    pd.Series([0.0, 1.0] * 5 + [0.0, pd.NA], dtype="Float64"),
], ids=["string-series", "string-array", "Int64", "boolean", "Float64"])
def test_nullable_labels_with_na_are_missing_values(labels):
    with pytest.raises(ValueError, match="y contains missing values"):
        treelab.DecisionTree().fit(X, labels)


@pytest.mark.parametrize("dtype,numpy_dtype", [
    ("Int64", np.int64), ("Int8", np.int8), ("UInt16", np.uint16), ("boolean", np.bool_),
    ("string", object), ("Float64", np.float64),
])
@pytest.mark.parametrize("cls", [treelab.DecisionTree, treelab.MMDT, treelab.VRTrees])
def test_nullable_labels_without_na_keep_their_values_type(cls, dtype, numpy_dtype):
    plain = {"string": ["a", "b"], "boolean": [False, True]}.get(dtype, [0, 1])
    values = np.array([plain[i % 2] for i in range(12)], dtype=numpy_dtype)
    y = pd.Series(values, dtype=dtype)
    est = cls(random_state=0).fit(X, y)
    assert est.classes_.dtype == np.asarray(values).dtype
    np.testing.assert_array_equal(est.classes_, np.unique(values))
    pred = est.predict(X)
    assert pred.dtype == np.asarray(values).dtype
    np.testing.assert_array_equal(pred, values)
    # the same model as on the NumPy labels
    np.testing.assert_array_equal(est.predict_proba(X),
                                  cls(random_state=0).fit(X, values).predict_proba(X))


def test_int64_labels_give_integer_classes_as_scikit_learn_gives_for_int_arrays():
    y = pd.Series([0, 1] * 6, dtype="Int64")
    est = treelab.DecisionTree().fit(X, y)
    ref = DecisionTreeClassifier().fit(X, y.to_numpy(dtype=np.int64))
    assert est.classes_.dtype.kind == ref.classes_.dtype.kind == "i"
    assert est.predict(X[:2]).tolist() == [0, 1]


def test_continuous_float_labels_are_refused_and_the_docstring_says_so():
    with pytest.raises(ValueError, match="continuous"):
        treelab.DecisionTree().fit(X, np.tile([0.5, 1.5], 6))
    # integral floats are class labels (scikit-learn's type_of_target rule)
    est = treelab.DecisionTree().fit(X, np.tile([0.0, 1.0], 6))
    assert est.classes_.tolist() == [0.0, 1.0]
    doc = treelab.DecisionTree.fit.__doc__
    assert "any type" not in doc
    assert "continuous" in doc and "0.5" in doc
