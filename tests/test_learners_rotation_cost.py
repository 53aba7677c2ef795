"""RotationForest on high-cardinality nominal columns (issue 26 item 2): fit estimates the
rotation work before any and warns, naming the column, where it would take minutes.

A nominal column of m levels is m real features (its one-hot block), and every rotation tree
draws d random axes by a d x d QR decomposition and projects every row on all of them, so the
work grows as d^3 + n d^2 per tree (a 2,000-level column on 2,400 rows took 145 s).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest

import treelab
from treelab.estimators._rotation_cost import ROTATION_WORK_WARN, RotationCostWarning


def frame(n, levels, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n),
                       "city": pd.Categorical(rng.permutation(np.arange(n) % levels)),
                       "flag": pd.Categorical(rng.integers(0, 2, n))})
    return df, rng.integers(0, 2, n)


def test_high_cardinality_column_warns_before_any_rotation_work():
    df, y = frame(2400, 2000)
    est = treelab.RotationForest(random_state=0)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RotationCostWarning)
        with pytest.raises(RotationCostWarning) as info:
            est.fit(df, y)
    assert time.process_time() - start < 30  # no tree was grown (one takes longer than that)
    assert not hasattr(est, "forest_")
    msg = str(info.value)
    # the estimate, by hand: 1 numeric + 2,000 + 2 one-hot columns, 100 trees
    d, n = 1 + 2000 + 2, 2400
    assert f"{100 * (d**3 + n * d * d):.1e}" in msg
    assert "'city' (2,000 levels)" in msg and "2,003 real features" in msg
    assert "RandomForest" in msg  # a remedy


def test_the_estimate_follows_the_rotation_and_the_tree_count():
    est = treelab.RotationForest(n_estimators=10, rotation="pca")
    assert est.rotation_work(100, 50) == 10 * 100 * 50**2  # no QR for PCA groups
    est = treelab.RotationForest(n_estimators=3)
    assert est.rotation_work(100, 50) == 3 * (50**3 + 100 * 50**2)


def test_ordinary_nominal_columns_fit_without_a_warning():
    df, y = frame(300, 40)
    assert treelab.RotationForest().rotation_work(300, 43) < ROTATION_WORK_WARN
    with warnings.catch_warnings():
        warnings.simplefilter("error", RotationCostWarning)
        est = treelab.RotationForest(n_estimators=5, random_state=0).fit(df, y)
    assert est.predict_proba(df).shape == (300, 2)


def test_the_warning_names_column_positions_for_arrays():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=3000), rng.integers(0, 2500, 3000)])
    y = rng.integers(0, 2, 3000)
    est = treelab.RotationForest(n_estimators=50, categorical_features=[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RotationCostWarning)
        with pytest.raises(RotationCostWarning, match=r"nominal column\(s\) 1 \("):
            est.fit(X, y)
