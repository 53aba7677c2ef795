"""Transforms of data sets: irrelevant attributes, class noise, attribute noise, subsampling.

Each takes arrays or a :class:`~treelab.datasets.LabeledData` and returns the same kind. In an
experiment, noise is applied to the training rows only (the runner does that).

References
----------
Ali, K. M. & Pazzani, M. J. (1995). On the link between error correlation and error reduction
in decision tree ensembles. UCI ICS TR 95-38 (class and attribute noise, training sizes).
Gashler, M., Giraud-Carrier, C. & Martinez, T. (2008). Decision tree ensemble: small
heterogeneous is better than large homogeneous. *ICMLA* (irrelevant Gaussian attributes).
"""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np

from treelab.datasets._data import CONTINUOUS, NOMINAL, LabeledData
from treelab.datasets._validation import (
    RandomState,
    check_choice,
    check_int,
    check_random_state,
    check_rate,
)

__all__ = [
    "add_attribute_noise",
    "add_class_noise",
    "add_irrelevant",
    "subsample",
    "subsample_indices",
]

T = TypeVar("T", np.ndarray, LabeledData)
_KINDS = ("gaussian", "uniform", "bits")


def _as_matrix(X: Any, name: str = "X") -> np.ndarray:
    if isinstance(X, LabeledData):
        return X.X
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got shape {arr.shape}")
    return arr


def add_irrelevant(
    X: T, k: int, *, kind: str = "gaussian", random_state: RandomState = None
) -> T:
    """Append ``k`` irrelevant attributes.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d) or LabeledData
        The data.
    k : int
        Number of attributes to add (0 returns the data unchanged).
    kind : {"gaussian", "uniform", "bits"}, default "gaussian"
        Standard normal values (Gashler et al. 2008), uniform on [0, 1], or random bits (LED-24),
        which are typed nominal.
    random_state : int, numpy Generator or None, default None
        Seed of the values.

    Returns
    -------
    numpy.ndarray of shape (n, d + k) or LabeledData
        Same kind as ``X``; a LabeledData keeps its labels and true probabilities (the new
        attributes carry no information) and names the new columns ``irrelevant1``, ...
    """
    k = check_int("k", k, minimum=0)
    kind = check_choice("kind", kind, _KINDS)
    M = _as_matrix(X)
    rng = check_random_state(random_state)
    n = M.shape[0]
    if kind == "gaussian":
        extra = rng.standard_normal((n, k))
    elif kind == "uniform":
        extra = rng.random((n, k))
    else:
        extra = rng.integers(0, 2, size=(n, k)).astype(np.float64)
    out = np.hstack([M, extra])
    if not isinstance(X, LabeledData):
        return out
    ftype = NOMINAL if kind == "bits" else CONTINUOUS
    return replace(
        X,
        X=out,
        feature_types=X.feature_types + (ftype,) * k,
        feature_names=X.feature_names + tuple(f"irrelevant{j + 1}" for j in range(k)),
        meta={**X.meta, "n_irrelevant_added": k, "irrelevant_kind": kind},
    )


def add_class_noise(
    y: T, rate: float, *, classes: Any = None, random_state: RandomState = None
) -> T:
    """Replace each label, with probability ``rate``, by a different class drawn uniformly.

    Parameters
    ----------
    y : numpy.ndarray of shape (n,) or LabeledData
        Labels, or a data set whose labels to corrupt.
    rate : float
        Noise rate in [0, 1].
    classes : array-like, optional
        The possible classes, each once (any order); default the distinct labels. A data set
        brings its own (``LabeledData.classes``, which its true probabilities follow), so for a
        LabeledData only those classes are accepted. At least two are needed when ``rate > 0``.
    random_state : int, numpy Generator or None, default None
        Seed of the noise.

    Returns
    -------
    numpy.ndarray or LabeledData
        Same kind as ``y``. For a LabeledData with true probabilities p, the new ones are
        (1 - rate) p_c + rate (1 - p_c) / (C - 1), the probabilities of the noisy label.
    """
    rate = check_rate("rate", rate)
    if isinstance(y, LabeledData) and y.meta.get("task") == "regression":
        raise ValueError(f"y must hold class labels; {y.name or 'the data'} is regression data "
                         "(real-valued targets): class noise does not apply")
    labels = y.y if isinstance(y, LabeledData) else np.asarray(y)
    if labels.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {labels.shape}")
    own = y.classes if isinstance(y, LabeledData) else None
    if classes is None:
        classes = own if own is not None else np.unique(labels)
    classes = np.asarray(classes)
    if classes.ndim != 1:
        raise ValueError(f"classes must be 1-D; got shape {classes.shape}")
    # the replacement below is "another position in classes": a repeated class would let a
    # label be replaced by itself, and the search needs them sorted
    distinct = np.unique(classes)
    if distinct.shape[0] != classes.shape[0]:
        raise ValueError(f"classes must list each class once; got {classes.tolist()!r}")
    classes = distinct
    if own is not None and not np.array_equal(classes, np.sort(own)):
        raise ValueError(f"classes must be the data set's classes {np.sort(own).tolist()!r} "
                         f"(its true probabilities and n_classes follow them); got "
                         f"{classes.tolist()!r}")
    rng = check_random_state(random_state)
    C = classes.shape[0]
    if rate > 0 and C < 2:
        raise ValueError(f"classes must hold at least two classes for class noise; got {C}")
    noisy = labels.copy()
    if rate > 0:
        pos = np.searchsorted(classes, labels)
        if np.any(pos >= C) or np.any(classes[np.minimum(pos, C - 1)] != labels):
            raise ValueError("classes must contain every label of y")
        # wide enough for every class: a '<U1' array would cut 'ccc' to 'c', an int one 2.5 to 2
        noisy = labels.astype(np.result_type(labels, classes))
        hit = rng.random(labels.shape[0]) < rate
        shift = rng.integers(1, C, size=labels.shape[0])  # a different class, uniformly
        noisy[hit] = classes[(pos[hit] + shift[hit]) % C]
    if not isinstance(y, LabeledData):
        return noisy
    proba = y.true_proba
    if proba is not None and rate > 0:
        proba = (1.0 - rate) * proba + rate * (1.0 - proba) / (C - 1)
    return replace(y, y=noisy, true_proba=proba, meta={**y.meta, "class_noise": rate})


def add_attribute_noise(
    X: T,
    rate: float,
    *,
    feature_types: Any = None,
    random_state: RandomState = None,
    draw: str = "other",
) -> T:
    """Corrupt each attribute value with probability ``rate``.

    With ``draw="other"`` a hit value of a nominal attribute with two observed values is
    flipped to the other one; of a nominal attribute with more values it becomes a different
    observed value, drawn uniformly (the LED noise of Breiman et al. 1984: a segment is
    inverted with probability ``rate``). With ``draw="any"`` a hit nominal value is replaced by
    one of the column's observed values drawn uniformly, which may be the same one (Quinlan
    1986, "Induction of decision trees": a binary value then changes with probability
    ``rate / 2``). A hit value of a continuous attribute is replaced by a value drawn from the
    column's observed (non-missing) values either way. Missing values stay missing.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d) or LabeledData
        The data.
    rate : float
        Per-value noise rate in [0, 1].
    feature_types : sequence of str, optional
        ``"continuous"``/``"nominal"`` per column; taken from a LabeledData, else all continuous.
    random_state : int, numpy Generator or None, default None
        Seed of the noise.
    draw : {"other", "any"}, default "other"
        What a hit nominal value becomes: another observed value, or any observed value.

    Returns
    -------
    numpy.ndarray or LabeledData
        Same kind as ``X``; a LabeledData loses its true probabilities (no longer known).
    """
    rate = check_rate("rate", rate)
    if draw not in ("other", "any"):
        raise ValueError(f"draw must be 'other' or 'any', got {draw!r}")
    M = _as_matrix(X)
    if feature_types is None:
        feature_types = (
            X.feature_types if isinstance(X, LabeledData) else (CONTINUOUS,) * M.shape[1]
        )
    feature_types = tuple(feature_types)
    if len(feature_types) != M.shape[1] or any(t not in (CONTINUOUS, NOMINAL)
                                                for t in feature_types):
        raise ValueError(f"feature_types must list {M.shape[1]} of 'continuous'/'nominal'")
    rng = check_random_state(random_state)
    out = M.copy()
    hits = (rng.random(M.shape) < rate) & ~np.isnan(M)
    for j in range(M.shape[1]):
        rows = np.flatnonzero(hits[:, j])
        if rows.size == 0:
            continue
        col = M[:, j]
        observed = col[~np.isnan(col)]
        if feature_types[j] == NOMINAL:
            values = np.unique(observed)
            if values.size < 2:
                continue
            if draw == "any":
                out[rows, j] = values[rng.integers(0, values.size, size=rows.size)]
                continue
            pos = np.searchsorted(values, col[rows])
            shift = rng.integers(1, values.size, size=rows.size)
            out[rows, j] = values[(pos + shift) % values.size]
        else:
            out[rows, j] = observed[rng.integers(0, observed.size, size=rows.size)]
    if not isinstance(X, LabeledData):
        return out
    return replace(X, X=out, true_proba=None, true_target=None,
                   meta={**X.meta, "attribute_noise": rate})


def subsample_indices(
    n_or_y: int | np.ndarray,
    fraction: float,
    *,
    stratify: bool = False,
    random_state: RandomState = None,
) -> np.ndarray:
    """Sorted indices of a random ``fraction`` of the rows (without replacement).

    Parameters
    ----------
    n_or_y : int or numpy.ndarray
        Number of rows, or the labels (needed for ``stratify``).
    fraction : float
        Share of rows to keep, in (0, 1]; round(fraction * n) rows, at least one.
    stratify : bool, default False
        Keep each class's share: per class floor(fraction * n_c) rows, the remaining rows going
        to the classes with the largest remainders.
    random_state : int, numpy Generator or None, default None
        Seed of the choice.

    Returns
    -------
    numpy.ndarray of intp
        Sorted row indices.
    """
    if isinstance(n_or_y, bool) or not isinstance(n_or_y, int | np.integer | np.ndarray):
        raise TypeError(f"n_or_y must be a row count or a label array; got {n_or_y!r}")
    # any real number (numpy's float32 and int64 too), not a bool and not text
    if not isinstance(fraction, numbers.Real) or isinstance(fraction, bool) \
            or not 0.0 < float(fraction) <= 1.0:
        raise ValueError(f"fraction must be in (0, 1]; got {fraction!r}")
    if not isinstance(stratify, bool):
        raise TypeError(f"stratify must be a bool; got {stratify!r}")
    y = None if isinstance(n_or_y, int | np.integer) else np.asarray(n_or_y)
    n = int(n_or_y) if y is None else y.shape[0]
    if n < 1:
        raise ValueError("n_or_y must describe at least one row")
    if stratify and y is None:
        raise ValueError("stratify=True needs the labels: pass y as n_or_y")
    rng = check_random_state(random_state)
    keep = max(1, int(round(float(fraction) * n)))
    if not stratify:
        return np.sort(rng.choice(n, size=keep, replace=False))
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    exact = counts * (keep / n)
    take = np.floor(exact).astype(np.int64)
    short = keep - int(take.sum())
    if short > 0:
        take[np.argsort(-(exact - take), kind="stable")[:short]] += 1
    chosen = [rng.choice(np.flatnonzero(inverse == c), size=take[c], replace=False)
              for c in range(classes.shape[0])]
    return np.sort(np.concatenate(chosen))


def subsample(
    data: LabeledData,
    fraction: float,
    *,
    stratify: bool = False,
    random_state: RandomState = None,
) -> LabeledData:
    """A random ``fraction`` of the rows of ``data`` (training-size sweeps, "meta-trials").

    Parameters
    ----------
    data : LabeledData
        The data set (in an experiment: the training split).
    fraction : float
        Share of rows to keep, in (0, 1].
    stratify : bool, default False
        Keep each class's share (see :func:`subsample_indices`).
    random_state : int, numpy Generator or None, default None
        Seed of the choice.

    Returns
    -------
    LabeledData
        The chosen rows, in their original order.
    """
    if not isinstance(data, LabeledData):
        raise TypeError(f"data must be a LabeledData; got {type(data).__name__} "
                        "(use subsample_indices for arrays)")
    idx = subsample_indices(data.y if stratify else data.n_samples, fraction, stratify=stratify,
                            random_state=random_state)
    return data.take(idx)
