"""Property-based sweep of input families (issue 26): the whole double range, pandas' nullable
dtypes and high-cardinality categorical columns, for every estimator.

Valid and invalid inputs are drawn separately. A valid draw must give a model whose
``predict_proba`` rows are finite and sum to 1, whose predictions are among ``classes_`` and
that the same seed reproduces bit for bit; an invalid draw (a label missing as ``pd.NA``) must be
refused with a ValueError that says so. On the double range, a draw scaled by one power of two
2**e whose values stay normal numbers must also give exactly the probabilities of the unscaled
draw (every step of every learner is then exact under the scaling), the check that found
MMDT and rotation trees scoring the majority class on subnormal inputs.

The profile is fixed (derandomized, a bounded number of examples, no deadline), so the sweep is
the same on every run.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treelab

ESTIMATORS = [getattr(treelab, name) for name in treelab.__all__
              if inspect.isclass(getattr(treelab, name))]

SWEEP = settings(derandomize=True, max_examples=8, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: exponents of 2 that keep |x| < 8 a normal number (no digit lost, no overflow in hi - lo)
NORMAL_EXPONENTS = st.integers(-1018, 1019)
#: the extremes: deep subnormal numbers up to the largest finite doubles
ANY_EXPONENT = st.one_of(st.integers(-1059, -1022), st.integers(1019, 1024),
                         st.integers(-300, 300))


def small(cls):
    """The estimator with few trees (the sweep is about inputs, not forest size)."""
    params = cls().get_params()
    kw = {"n_estimators": 2} if "n_estimators" in params else {}
    return kw


def fit(cls, X, y, seed, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-class and cost warnings are not the point
        return cls(random_state=seed, **small(cls), **extra).fit(X, y)


def assert_valid_model(cls, X, y, X_test, seed, **extra):
    model = fit(cls, X, y, seed, **extra)
    proba = model.predict_proba(X_test)
    assert proba.shape == (len(X_test), len(model.classes_))
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    assert set(model.predict(X_test)) <= set(model.classes_)
    again = fit(cls, X, y, seed, **extra)
    np.testing.assert_array_equal(again.predict_proba(X_test), proba)
    return model, proba


@st.composite
def labelled(draw, n_min=6, n_max=30):
    n = draw(st.integers(n_min, n_max))
    n_classes = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)])
    rng.shuffle(y)
    return n, y, rng


# ------------------------------------------------------------------- the whole double range
@st.composite
def double_range(draw):
    """(X, y, X_test, exponents): values |x| < 1 with 15 significant bits, and per-column
    exponents (one for all columns, or one each) from the deep subnormals to the largest."""
    n, y, rng = draw(labelled())
    d = draw(st.integers(1, 4))
    # |x| < 1 in steps of 2**-15: finite up to 2**1024, exact down to 2**-1059
    X = rng.integers(1 - 2**15, 2**15, (n, d)) / 2.0**15
    X_test = rng.integers(1 - 2**15, 2**15, (7, d)) / 2.0**15
    if draw(st.booleans()):
        e = np.full(d, draw(ANY_EXPONENT))
    else:
        e = np.array([draw(ANY_EXPONENT) for _ in range(d)])
    return X, y, X_test, e


#: learners whose trees do not move when a column is scaled by any power of two, down to the
#: deep subnormals: they condition their features by a power of two (MMDT, CVDT, rotation
#: trees) or split deterministically between data values; a random threshold drawn between
#: two subnormal numbers is rounded onto their coarse grid, so the other learners are held to
#: this only within the normal range (``test_scaling_by_a_power_of_two_changes_no_prediction``)
EXACT_AT_ANY_SCALE = {treelab.MMDT, treelab.BaggedMMDT, treelab.CVDT, treelab.BaggedCVDT,
                      treelab.RotationForest, treelab.DecisionTree}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=double_range(), seed=st.integers(0, 2**31))
def test_whole_double_range_gives_valid_models(cls, case, seed):
    X, y, X_test, e = case
    _, proba = assert_valid_model(cls, np.ldexp(X, e), y, np.ldexp(X_test, e), seed)
    if cls in EXACT_AT_ANY_SCALE:
        _, base = assert_valid_model(cls, X, y, X_test, seed)
        np.testing.assert_array_equal(proba, base)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=labelled(), e=NORMAL_EXPONENTS, d=st.integers(1, 4), seed=st.integers(0, 2**31))
def test_scaling_by_a_power_of_two_changes_no_prediction(cls, case, e, d, seed):
    n, y, rng = case
    X = rng.normal(size=(n, d)) * 4.0
    X_test = rng.normal(size=(7, d)) * 4.0
    _, base = assert_valid_model(cls, X, y, X_test, seed)
    _, scaled = assert_valid_model(cls, np.ldexp(X, e), y, np.ldexp(X_test, e), seed)
    np.testing.assert_array_equal(scaled, base)


# ----------------------------------------------------------------- pandas' nullable dtypes
@st.composite
def nullable_frames(draw):
    """(X, y, X_test) with Int64, Float64, boolean and string columns (pd.NA in some rows)
    and NumPy-typed labels drawn from nullable label dtypes without NA."""
    n, y, rng = draw(labelled())
    kinds = draw(st.lists(st.sampled_from(["Int64", "Float64", "boolean", "string"]),
                          min_size=1, max_size=4))

    def frame(m):
        cols = {}
        for j, kind in enumerate(kinds):
            if kind == "Int64":
                values = pd.array(rng.integers(-3, 4, m), dtype="Int64")
            elif kind == "Float64":
                values = pd.array(rng.normal(size=m), dtype="Float64")
            elif kind == "boolean":
                values = pd.array(rng.integers(0, 2, m).astype(bool), dtype="boolean")
            else:
                values = pd.array([f"v{k}" for k in rng.integers(0, 4, m)], dtype="string")
            holes = rng.random(m) < draw(st.sampled_from([0.0, 0.2]))
            values[holes] = pd.NA
            cols[f"c{j}"] = values
        return pd.DataFrame(cols)

    label = draw(st.sampled_from(["Int64", "string", "boolean", "UInt8"]))
    if label == "string":
        labels = pd.array([f"k{v}" for v in y], dtype="string")
    elif label == "boolean":
        labels = pd.array(y % 2 == 1, dtype="boolean")
    else:
        labels = pd.array(y, dtype=label)
    return frame(n), pd.Series(labels), frame(7)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=nullable_frames(), seed=st.integers(0, 2**31))
def test_nullable_dtypes_give_valid_models_with_typed_classes(cls, case, seed):
    X, y, X_test = case
    if y.nunique() < 2:  # boolean labels of a draw with one parity
        return
    model, _ = assert_valid_model(cls, X, y, X_test, seed)
    expected = y.to_numpy(dtype=getattr(y.dtype, "numpy_dtype", None) or object)
    assert model.classes_.dtype == expected.dtype
    np.testing.assert_array_equal(model.classes_, np.unique(expected))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=nullable_frames(), where=st.integers(0, 5))
def test_nullable_labels_with_na_are_refused_as_missing(cls, case, where):
    X, y, _ = case
    y = y.copy()
    y.iloc[where % len(y)] = pd.NA
    with pytest.raises(ValueError, match="y contains missing values"):
        fit(cls, X, y, 0)


# ------------------------------------------------------------ high-cardinality categoricals
@st.composite
def many_levels(draw):
    """(X, y, X_test): a categorical column with up to a level per row (declared categories up
    to 3,000, most unused), a numeric column, and test rows with levels unseen in training."""
    n, y, rng = draw(labelled(10, 60))
    declared = draw(st.sampled_from([n, 2 * n, 3000]))
    used = draw(st.integers(2, n))
    cats = [f"L{k}" for k in range(declared)]
    pick = rng.choice(declared, size=used, replace=False)

    def frame(m, unseen=False):
        codes = pick[rng.integers(0, used, m)]
        if unseen:
            codes[0] = next(k for k in range(declared) if k not in set(pick.tolist())) \
                if declared > used else codes[0]
        return pd.DataFrame({"x": rng.normal(size=m),
                             "level": pd.Categorical.from_codes(codes, categories=cats)})

    return frame(n), y, frame(7, unseen=True)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=many_levels(), seed=st.integers(0, 2**31))
def test_high_cardinality_categoricals_give_valid_models(cls, case, seed):
    X, y, X_test = case
    model, _ = assert_valid_model(cls, X, y, X_test, seed)
    # only the levels present in training count (not the 3,000 declared)
    assert model.arity_[1] == X["level"].nunique()
