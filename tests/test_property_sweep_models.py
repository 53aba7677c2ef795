"""Property-based sweep of foreign models in the measures (issue 39): DataFrame columns
permuted or renamed against what a scikit-learn ensemble was fitted on, and true labels of
another type than its classes or with missing values.

Valid and invalid draws are made separately. A valid draw (the fitted columns in their order,
``y`` of the model's own label type) must be read, with ``diagnose``'s ensemble error equal
to the model's own ``predict``; an invalid draw must be refused by every entry point before
any work, with a message that says what is wrong (the feature names, a label shared with no
class, a missing label). Before the one place for input checks, reversed columns gave a
forest's ensemble error 0.629 against 0.049, and integer labels for string classes an error
of 1.0, without a word.

The profile is fixed (derandomized, a bounded number of examples, no deadline), so the sweep
is the same on every run.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.ensemble import (
    BaggingClassifier,
    ExtraTreesClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.tree import DecisionTreeClassifier

from treelab import analysis as A

SWEEP = settings(derandomize=True, max_examples=10, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

KINDS = ("forest", "extra", "bagging", "bagging_half", "voting", "pool")

ENTRY = {
    "diagnose": lambda m, X, y: A.diagnose(m, X, y, combine="vote" if isinstance(m, list)
                                           else None),
    "errors": lambda m, X, y: A.errors(m, y, X=X),
    "pairwise_diversity": lambda m, X, y: A.pairwise_diversity(m, y, X=X),
    "margins": lambda m, X, y: A.margins(m, y, X=X),
}


def _fit(kind: str, X: pd.DataFrame, y: np.ndarray, seed: int):
    if kind == "forest":
        return RandomForestClassifier(n_estimators=3, random_state=seed).fit(X, y)
    if kind == "extra":
        return ExtraTreesClassifier(n_estimators=3, random_state=seed).fit(X, y)
    if kind.startswith("bagging"):
        return BaggingClassifier(n_estimators=3, random_state=seed,
                                 max_features=0.5 if kind == "bagging_half" else 1.0
                                 ).fit(X, y)
    if kind == "voting":
        return VotingClassifier([("a", DecisionTreeClassifier(random_state=seed)),
                                 ("b", DecisionTreeClassifier(max_depth=2, random_state=seed))]
                                ).fit(X, y)
    return [DecisionTreeClassifier(max_depth=d, random_state=seed).fit(X, y) for d in (1, 3)]


@st.composite
def framed_problem(draw):
    """A DataFrame with 2-6 named columns, 2-4 classes of int, str or float labels, a model
    kind and a seed."""
    n_features = draw(st.integers(2, 6))
    n = draw(st.integers(12, 40))
    n_classes = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    codes = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])
    X = pd.DataFrame(rng.normal(size=(n, n_features)) + codes[:, None] * 0.7,
                     columns=[f"f{j}" for j in range(n_features)])
    label_kind = draw(st.sampled_from(["int", "str", "float"]))
    table = {"int": np.array([3, 7, 11, 20]), "str": np.array(["a", "b", "c", "d"]),
             "float": np.array([1.0, 2.0, 4.0, 8.0])}[label_kind]
    kind = draw(st.sampled_from(KINDS))
    return X, table[codes], label_kind, kind, draw(st.integers(0, 2**16))


def _quiet(func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args)


@SWEEP
@given(case=framed_problem())
def test_fitted_columns_in_their_order_are_read(case):
    X, y, _, kind, seed = case
    model = _fit(kind, X, y, seed)
    ds = _quiet(ENTRY["diagnose"], model, X, y)
    if kind != "pool":
        assert float(ds.ensemble_error) == np.mean(model.predict(X) != y)
    for entry in ("errors", "pairwise_diversity", "margins"):
        _quiet(ENTRY[entry], model, X, y)


@SWEEP
@given(case=framed_problem(), data=st.data())
@pytest.mark.parametrize("defect", ["permuted", "renamed", "dropped", "added"])
def test_permuted_renamed_or_missing_columns_are_refused(defect, case, data):
    X, y, _, kind, seed = case
    model = _fit(kind, X, y, seed)
    cols = list(X.columns)
    if defect == "permuted":
        order = data.draw(st.permutations(cols).filter(lambda p: list(p) != cols))
        bad, match = X[list(order)], "another order"
    elif defect == "renamed":
        j = data.draw(st.integers(0, len(cols) - 1))
        bad, match = X.rename(columns={cols[j]: cols[j] + "_x"}), "unseen at fit time"
    elif defect == "dropped":
        bad, match = X.drop(columns=cols[-1]), f"X has {len(cols) - 1} features"
    else:
        bad, match = X.assign(extra=1.0), f"X has {len(cols) + 1} features"
    for entry, func in ENTRY.items():
        with pytest.raises(ValueError, match=match):
            func(model, bad, y)
        assert entry  # every entry point refused


@SWEEP
@given(case=framed_problem(), data=st.data())
@pytest.mark.parametrize("defect", ["other_type", "missing"])
def test_labels_of_another_type_or_missing_are_refused(defect, case, data):
    X, y, label_kind, kind, seed = case
    model = _fit(kind, X, y, seed)
    if defect == "other_type":
        # labels that equal none of the classes: codes 0..C-1 for str or shifted numbers,
        # their text for numbers
        other = data.draw(st.sampled_from([k for k in ("codes", "text") if not (
            k == "text" and label_kind == "str")]))
        codes = np.unique(y, return_inverse=True)[1]
        bad = (codes + (100 if label_kind != "str" else 0)) if other == "codes" else \
            np.array([f"<{v}>" for v in y])
        match = "shares no label"
    else:
        bad = y.astype(object)
        bad[data.draw(st.integers(0, len(y) - 1))] = data.draw(
            st.sampled_from([None, np.nan, pd.NA]))
        match = "missing label"
    for entry, func in ENTRY.items():
        with pytest.raises(ValueError, match=match):
            func(model, X, bad)
        assert entry
