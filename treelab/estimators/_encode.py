"""Input encoding: features to float codes (nominal columns) and labels to 0..C-1.

Nominal columns are pandas ``category``/``bool``/``object``/``string`` columns, plus any column
named in ``categorical_features`` (indices, names or a boolean mask). A nominal column's values
become codes 0..m-1 in sorted order (category order for ``category`` columns); missing values
become NaN. At prediction time a value not seen in training is treated as missing, so it follows
the branch that missing values follow.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data


def _is_frame(X) -> bool:
    return isinstance(X, pd.DataFrame)


def _raw_values(X) -> bool:
    """Nominal columns are encoded from the raw values (DataFrames and object arrays); numeric
    arrays are validated first and their integer-coded nominal columns mapped afterwards."""
    if _is_frame(X):
        return True
    try:
        return np.asarray(X).dtype.kind in "OUS"  # object, unicode and byte strings
    except ValueError:  # ragged input: validate_data reports it
        return False


def nominal_mask(X, categorical_features) -> np.ndarray:
    """Boolean mask of nominal columns of X (auto-detected for DataFrames, plus the argument)."""
    n_features = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else None
    if n_features is None:
        return None
    mask = np.zeros(n_features, dtype=bool)
    if _is_frame(X):
        for j, dtype in enumerate(X.dtypes):
            if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype) or (
                pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)
            ):
                mask[j] = True
    if categorical_features is None or (isinstance(categorical_features, str)
                                        and categorical_features == "from_dtype"):
        return mask  # scikit-learn's "from_dtype": the DataFrame's dtypes alone
    cf = categorical_features
    if isinstance(cf, str | numbers.Integral):
        cf = [cf]
    cf = np.asarray(list(cf) if not isinstance(cf, np.ndarray) else cf)
    if cf.dtype == bool:
        if cf.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a boolean mask must have length {n_features}, "
                f"got {cf.shape}"
            )
        return mask | cf
    for item in cf.tolist():
        if isinstance(item, str):
            if not _is_frame(X) or item not in X.columns:
                raise ValueError(f"categorical_features names unknown column {item!r}")
            mask[list(X.columns).index(item)] = True
        elif isinstance(item, numbers.Integral):
            if not -n_features <= item < n_features:
                raise ValueError(
                    f"categorical_features index {item} is out of range for {n_features} features"
                )
            mask[item] = True
        else:
            raise TypeError(
                "categorical_features must hold column indices, names or a boolean mask, "
                f"got {item!r}"
            )
    return mask


def _codes(values, categories) -> np.ndarray:
    """Codes of ``values`` among sorted ``categories``; NaN for missing or unseen values."""
    cats = np.asarray(categories)
    if (isinstance(values, np.ndarray) and values.dtype.kind == "f"
            and cats.dtype.kind in "fiub" and np.all(cats[1:] > cats[:-1])):
        # integer-coded columns of a numeric array (the usual case, and per call in the
        # experiment runner): a binary search, several times faster than pandas' indexer;
        # boolean categories are 0 and 1 there, as they are in a DataFrame of numbers
        # (pandas' indexer matches no float to False or True)
        cats = cats.astype(np.float64)
        idx = np.searchsorted(cats, values)
        found = idx < cats.shape[0]
        found[found] = cats[idx[found]] == values[found]
        return np.where(found, idx, np.nan)
    codes = pd.Index(categories).get_indexer(pd.Index(values)).astype(np.float64)
    codes[codes < 0] = np.nan
    return codes


def _column_categories(col) -> np.ndarray:
    if isinstance(col, pd.Series) and isinstance(col.dtype, pd.CategoricalDtype):
        # only the categories present, in declared order: a dtype may declare many more
        # (every code a kernel sees costs per-node memory and time in its arity)
        codes = np.asarray(col.cat.codes)
        used = np.unique(codes[codes >= 0])
        return np.asarray(col.cat.categories[used])
    if isinstance(col, np.ndarray) and col.dtype.kind == "f":
        return np.unique(col[~np.isnan(col)])
    s = pd.Series(col)
    present = s[s.notna()]
    try:
        return np.asarray(np.sort(present.unique()))
    except TypeError:  # mixed types: order by their text
        return np.asarray(sorted(present.unique(), key=str), dtype=object)


def _check_column_order(estimator, X, fit: bool) -> None:
    """Refuse a DataFrame whose columns are the fit's in another order where scikit-learn
    cannot: it records (and checks) ``feature_names_in_`` only for names that are all
    strings, so a frame with integer column names (``pd.DataFrame(array)``) was read by
    position, its columns swapped without a word."""
    if fit:  # (X None: no DataFrame, nothing to keep)
        texts = X is None or all(isinstance(c, str) for c in X.columns)
        estimator._frame_columns = None if texts else list(X.columns)
        return
    seen = getattr(estimator, "_frame_columns", None)
    now = list(X.columns)
    if seen is None or now == seen or len(now) != len(seen):
        return
    try:
        same = set(now) == set(seen)
    except TypeError:  # unhashable names: nothing to compare
        return
    if same:
        raise ValueError(f"X has the columns of the fit in another order ({now[:8]} against "
                         f"{seen[:8]}): select them in the fit's order, X[{seen[:8]}]")


def encode_features(estimator, X, *, fit: bool) -> np.ndarray:
    """Validate X and return a float64 (row, feature) array with nominal columns as codes.

    On ``fit`` the nominal mask and categories are stored on the estimator
    (``nominal_features_``, ``categories_``); otherwise they are applied.
    """
    is_frame = _is_frame(X)
    if is_frame and not X.columns.is_unique:
        dup = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
        raise ValueError(
            f"X has duplicate column names {dup}; every column needs its own name (rename them "
            "or pass X.to_numpy() with categorical_features= by position)"
        )
    if fit or is_frame:
        _check_column_order(estimator, X if is_frame else None, fit)
    raw = _raw_values(X)
    two_d = hasattr(X, "shape") and len(getattr(X, "shape", ())) == 2
    if fit:
        if two_d:
            estimator.categories_ = [None] * X.shape[1]
        if two_d and raw:
            mask = nominal_mask(X, estimator.categorical_features)
        else:
            mask = None
    else:
        mask = getattr(estimator, "nominal_features_", None)
        if mask is not None and two_d and X.shape[1] != mask.shape[0]:
            mask = None  # validate_data below reports the feature-count mismatch
    if mask is not None and mask.any() and raw:
        cats = estimator.categories_ if not fit else [None] * X.shape[1]
        cols = {}
        for j in range(X.shape[1]):
            col = X.iloc[:, j] if is_frame else np.asarray(X)[:, j]
            if mask[j]:
                if fit:
                    cats[j] = _column_categories(col)
                cols[j] = _codes(np.asarray(col, dtype=object), cats[j])
            else:
                cols[j] = col
        if is_frame:
            X = pd.DataFrame({name: cols[j] for j, name in enumerate(X.columns)}, index=X.index)
        else:
            X = np.column_stack([np.asarray(cols[j], dtype=object) for j in range(X.shape[1])])
        if fit:
            estimator.categories_ = cats
    try:
        # scikit-learn's quick finiteness test sums X: values near +-the largest double give
        # inf - inf and a RuntimeWarning about valid data (it then checks element by element)
        with np.errstate(over="ignore", invalid="ignore"):
            Xv = validate_data(
                estimator, X, reset=fit, dtype=np.float64, ensure_all_finite="allow-nan",
                ensure_min_samples=1,
            )
    except (TypeError, ValueError) as err:
        if "could not convert" in str(err) or "argument must be" in str(err):
            raise type(err)(
                "X must be numeric; mark nominal columns with categorical_features= or pass a "
                f"DataFrame with category/object columns ({err})"
            ) from err
        raise
    if fit:
        mask = nominal_mask(Xv, estimator.categorical_features) if mask is None else mask
        if not raw:
            # integer-coded nominal columns of a numeric array: their values define 0..m-1
            estimator.categories_ = [
                _column_categories(Xv[:, j]) if mask[j] else None for j in range(Xv.shape[1])
            ]
        estimator.nominal_features_ = mask
        estimator.arity_ = np.array(
            [len(c) if c is not None else 0 for c in estimator.categories_], dtype=np.int64
        )
    coded = np.flatnonzero(estimator.nominal_features_) if not raw else np.zeros(0, dtype=int)
    # a copy only where columns are rewritten as codes: the user's array is never changed, and
    # a numeric C-ordered float64 array is not duplicated (n x d x 8 bytes at fit and predict)
    if coded.size:
        Xv = np.array(Xv, dtype=np.float64, order="C")
    else:
        Xv = np.asarray(Xv, dtype=np.float64, order="C")
    for j in coded:
        Xv[:, j] = _codes(Xv[:, j], estimator.categories_[j])
    return Xv
