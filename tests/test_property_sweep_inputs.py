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
from sklearn.base import RegressorMixin

import treelab

# the classifiers (the regressors have tests/test_regression_*.py)
ESTIMATORS = [getattr(treelab, name) for name in treelab.__all__
              if inspect.isclass(getattr(treelab, name))
              and not issubclass(getattr(treelab, name), RegressorMixin)]

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


# --------------------------------------------- zero-weight rows with nominal columns (issue 39)
@st.composite
def zero_weight_nominal(draw):
    """(X, y, w, X_test): a category column and an integer-coded nominal column (both
    declared nominal), a numeric column with missing values, whole weights with some zeros;
    some categories occur only in rows of weight 0, and the rows of positive weight hold every
    class. X_test holds every category, seen or not."""
    n, y, rng = draw(labelled(8, 40))
    w = rng.integers(0, 3, n).astype(np.float64)
    keep = rng.permutation(n)[:2]
    for c in np.unique(y):  # every class keeps a row of positive weight (classes_ is y's)
        keep = np.r_[keep, rng.choice(np.flatnonzero(y == c))]
    w[keep] = np.maximum(w[keep], 1.0)
    levels = draw(st.integers(2, 5))
    cats = [f"c{k}" for k in range(levels)] + ["only0", "only0b"]
    codes = rng.integers(0, levels, n)
    zero = np.flatnonzero(w == 0)
    k = draw(st.integers(0, zero.size))
    codes[zero[:k]] = levels + rng.integers(0, 2, k)  # the extra categories: weight 0 only
    coded = rng.choice([2.0, 4.0, 8.0], n)
    coded[zero[: zero.size // 2]] = 16.0
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan

    def frame(c, k, v):
        return pd.DataFrame({"level": pd.Categorical.from_codes(c, categories=cats),
                             "coded": k, "x": v})

    test_codes = np.r_[np.arange(levels + 2), rng.integers(0, levels, 4)]
    m = test_codes.size
    test = frame(test_codes, np.resize([2.0, 4.0, 8.0, 16.0], m), rng.normal(size=m))
    return frame(codes, coded, x), y, w, test


#: (learner, options) whose trees depend on their rows alone: a row of weight 0 is a removed row
ROWS_ALONE = [
    (treelab.DecisionTree, {}),
    (treelab.DecisionTree, {"max_bins": 3}),
    (treelab.RandomForest, {"bootstrap": False}),
    (treelab.ExtraTrees, {}),
    (treelab.RandomDecisionTrees, {}),
    (treelab.VRTrees, {"alpha": 0.5, "random_split": "uniform"}),
    (treelab.Coalescence, {"random_split": "uniform"}),
    (treelab.MaxDiverseEnsemble, {"random_split": "uniform"}),
    (treelab.StochasticID3, {}),
]


@pytest.mark.parametrize("cls, options", ROWS_ALONE,
                         ids=lambda v: v.__name__ if inspect.isclass(v) else str(v))
@SWEEP
@given(case=zero_weight_nominal(), seed=st.integers(0, 2**31))
def test_zero_weight_rows_with_nominal_columns_are_removed_rows(cls, options, case, seed):
    X, y, w, X_test = case
    extra = {"categorical_features": ["coded"], **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted, removed = _weighted_and_removed(cls, extra, X, y, w, seed)
    np.testing.assert_array_equal(weighted.predict_proba(X_test), removed.predict_proba(X_test))


def _weighted_and_removed(cls, options, X, y, w, seed):
    """The fit with weights ``w`` and the fit without the rows of weight 0, checked to hold the
    same categories (a category of weight-0 rows only is unseen in both)."""
    weighted = cls(random_state=seed, **small(cls), **options).fit(X, y, sample_weight=w)
    kept = w > 0
    removed = cls(random_state=seed, **small(cls), **options).fit(
        X[kept].reset_index(drop=True), y[kept], sample_weight=w[kept])
    assert [list(c) for c in weighted.categories_ if c is not None] == \
        [list(c) for c in removed.categories_ if c is not None]
    return weighted, removed


#: the regressors whose trees depend on their rows alone
REGRESSION_ROWS_ALONE = [
    (treelab.RegressionTree, {}),
    (treelab.RandomForestRegressor, {"bootstrap": False}),
    (treelab.ExtraTreesRegressor, {}),
    (treelab.VRTreesRegressor, {"alpha": 0.5, "random_split": "uniform"}),
]


@pytest.mark.parametrize("cls, options", REGRESSION_ROWS_ALONE,
                         ids=lambda v: v.__name__ if inspect.isclass(v) else str(v))
@SWEEP
@given(case=zero_weight_nominal(), seed=st.integers(0, 2**31))
def test_zero_weight_rows_with_nominal_columns_are_removed_rows_in_regression(cls, options,
                                                                              case, seed):
    # a category held only by rows of weight 0 leaves categories_ and takes the missing-value
    # route, as in the fit without those rows (the regressors once kept it, and its rows
    # reached an empty child answering its parent's mean)
    X, y, w, X_test = case
    target = y * 2.5 + np.arange(y.size) % 3
    weighted, removed = _weighted_and_removed(cls, options, X, target, w, seed)
    np.testing.assert_array_equal(weighted.predict(X_test), removed.predict(X_test))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@SWEEP
@given(case=zero_weight_nominal(), seed=st.integers(0, 2**31))
def test_zero_weight_rows_with_nominal_columns_give_valid_models(cls, case, seed):
    X, y, w, X_test = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = cls(random_state=seed, **small(cls), categorical_features=["coded"]).fit(
            X, y, sample_weight=w)
    level = list(model.categories_[0])
    assert set(level) == set(X["level"][w > 0])  # a category of weight 0 only is unseen
    proba = model.predict_proba(X_test)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)
    member = model.member_proba(X_test)
    assert np.isfinite(member).all()  # a tree of zero-weight rows only answers uniformly
    np.testing.assert_allclose(member.sum(axis=2), 1.0, rtol=0, atol=1e-9)
