"""The labelled-data container returned by every generator and loader."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["CONTINUOUS", "NOMINAL", "LabeledData"]

#: Feature type of a numeric attribute.
CONTINUOUS = "continuous"
#: Feature type of an integer-coded nominal attribute (codes 0..m-1 stored as floats).
NOMINAL = "nominal"
_FEATURE_TYPES = (CONTINUOUS, NOMINAL)


@dataclass(frozen=True, eq=False)
class LabeledData:
    """Features, labels, a feature schema and (where known) true class probabilities.

    Regression data (the Friedman and count generators, :func:`treelab.datasets.load_regression`)
    use the same container: ``y`` holds the real-valued targets (float64) and
    ``meta["task"]`` is ``"regression"``, ``classes`` is empty (there are none); a generator
    also fills ``true_target``.

    Every generator in :mod:`treelab.datasets` and every loader returns one of these.

    Parameters
    ----------
    X : numpy.ndarray of float64, shape (n_samples, n_features)
        Feature matrix. Nominal features hold integer codes ``0..m-1`` as floats; a missing
        value is ``nan``.
    y : numpy.ndarray, shape (n_samples,)
        Class labels (integers ``0..C-1`` for generated data; the file's values for loaded data).
    feature_types : tuple of str
        ``"continuous"`` or ``"nominal"`` for every column of ``X``.
    true_proba : numpy.ndarray of float64, shape (n_samples, n_classes), optional
        The true class probabilities P(y | x) of every row, when the generating process defines
        them; columns follow ``classes``.
    name : str, default ""
        Name of the data set (e.g. ``"led24"``).
    feature_names : tuple of str, optional
        Column names; ``x0, x1, ...`` when not given.
    classes : numpy.ndarray, optional
        The class labels, sorted; defaults to ``numpy.unique(y)``. When ``true_proba`` is given
        it must list every class of the generating process (a small sample may miss one).
    meta : mapping, default {}
        Anything else the source defines (Bayes error, category labels, generator parameters).
    true_target : numpy.ndarray of float64, shape (n_samples,), optional
        For regression data drawn from a known process: the noiseless target E[y | x] of every
        row (the regression function f(x) before noise is added), so that noise can be told
        apart from bias.
    """

    X: np.ndarray
    y: np.ndarray
    feature_types: tuple[str, ...]
    true_proba: np.ndarray | None = None
    name: str = ""
    feature_names: tuple[str, ...] | None = None
    classes: np.ndarray | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    true_target: np.ndarray | None = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features); got shape {X.shape}")
        y = np.asarray(self.y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must be 1-D with {X.shape[0]} rows; got shape {y.shape}")
        ftypes = tuple(self.feature_types)
        if len(ftypes) != X.shape[1] or any(t not in _FEATURE_TYPES for t in ftypes):
            raise ValueError(
                f"feature_types must list {X.shape[1]} entries from {_FEATURE_TYPES}; got {ftypes}"
            )
        names = self.feature_names
        names = tuple(f"x{j}" for j in range(X.shape[1])) if names is None else tuple(names)
        if len(names) != X.shape[1]:
            raise ValueError(f"feature_names must have {X.shape[1]} entries; got {len(names)}")
        classes = np.unique(y) if self.classes is None else np.asarray(self.classes)
        proba = self.true_proba
        if proba is not None:
            proba = np.asarray(proba, dtype=np.float64)
            if proba.shape != (X.shape[0], classes.shape[0]):
                raise ValueError(
                    f"true_proba must have shape {(X.shape[0], classes.shape[0])}; "
                    f"got {proba.shape}"
                )
        target = self.true_target
        if target is not None:
            target = np.asarray(target, dtype=np.float64)
            if target.shape != (X.shape[0],):
                raise ValueError(f"true_target must have shape ({X.shape[0]},); got "
                                 f"{target.shape}")
        object.__setattr__(self, "true_target", target)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "feature_types", ftypes)
        object.__setattr__(self, "feature_names", names)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "true_proba", proba)
        object.__setattr__(self, "meta", dict(self.meta))

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        """Number of classes (``len(classes)``)."""
        return int(self.classes.shape[0])

    @property
    def categorical_features(self) -> np.ndarray:
        """Boolean mask of the nominal columns, for an estimator's ``categorical_features=``."""
        return np.array([t == NOMINAL for t in self.feature_types], dtype=bool)

    @property
    def X_frame(self) -> pd.DataFrame:
        """The features as a DataFrame whose nominal columns have pandas ``category`` dtype.

        Every treelab estimator reads nominal columns from a DataFrame's dtypes (as
        scikit-learn's ``categorical_features="from_dtype"`` does), so
        ``est.fit(data.X_frame, data.y)`` grows the trees that
        ``est.set_params(categorical_features=data.categorical_features).fit(data.X, data.y)``
        grows, without the argument. Columns are named by ``feature_names``.
        """
        return self.to_frame(target="__target__").drop(columns="__target__")

    def take(self, rows: Sequence[int] | np.ndarray) -> LabeledData:
        """Return the rows ``rows`` (indices or a boolean mask) as a new :class:`LabeledData`.

        Parameters
        ----------
        rows : array-like of int or bool
            Row indices, or a boolean mask of length ``n_samples``.

        Returns
        -------
        LabeledData
            Same schema, classes, name and meta; only the rows differ.
        """
        idx = np.asarray(rows)
        if idx.dtype == bool:
            if idx.shape != (self.n_samples,):
                raise ValueError(f"a boolean rows mask must have length {self.n_samples}")
            idx = np.flatnonzero(idx)
        elif idx.size and not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"rows must be integer indices or a boolean mask; got {idx.dtype}")
        idx = idx.astype(np.intp, copy=False)
        proba = None if self.true_proba is None else self.true_proba[idx]
        target = None if self.true_target is None else self.true_target[idx]
        return replace(self, X=self.X[idx], y=self.y[idx], true_proba=proba, true_target=target)

    def to_frame(self, target: str = "target") -> pd.DataFrame:
        """Return the data as a DataFrame: nominal columns as ``category``, then the target.

        Parameters
        ----------
        target : str, default "target"
            Name of the label column.

        Returns
        -------
        pandas.DataFrame
            One column per feature (nominal ones with pandas ``category`` dtype whose categories
            are the integer codes) and a last column ``target``. ``load_table`` reads it back
            with the same schema.
        """
        cols: dict[str, Any] = {}
        for j, (name, kind) in enumerate(zip(self.feature_names, self.feature_types, strict=True)):
            col = self.X[:, j]
            if kind == NOMINAL:
                codes = col[~np.isnan(col)].astype(np.int64)
                m = int(codes.max()) + 1 if codes.size else 0
                values = pd.array(np.where(np.isnan(col), -1, col).astype(np.int64))
                cols[name] = pd.Categorical.from_codes(values, categories=np.arange(m))
            else:
                cols[name] = col
        cols[target] = self.y
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        n_nom = sum(t == NOMINAL for t in self.feature_types)
        return (
            f"LabeledData(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features} ({self.n_features - n_nom} continuous, "
            f"{n_nom} nominal), n_classes={self.n_classes}, "
            f"true_proba={'yes' if self.true_proba is not None else 'no'})"
        )
