"""Conditioning of the real features of the oblique learners (MMDT, CVDT, rotation trees):
an exact power of two per column (or one for all), then an offset and a factor, with the
statistics of all rows given to ``fit`` (see :func:`fit_scaling`)."""

from __future__ import annotations

import numpy as np

__all__ = ["BIG_EXP", "apply_scaling", "fit_scaling"]

#: real features beyond 2**BIG_EXP in magnitude (or nonzero below 2**-BIG_EXP) are brought near
#: 1 by a power of two first: squares and products of |x| >= 1e154 overflow, which made every
#: node a leaf; a power of two is exact in binary floating point, so no split moves.
BIG_EXP = 100


def _exponents(Z: np.ndarray, per_column: bool) -> np.ndarray:
    """Per-column k with which ``np.ldexp(Z, k)`` brings the largest finite |z| near 1 where
    it lies beyond 2**BIG_EXP or, nonzero, below 2**-BIG_EXP (else k = 0); one k for all
    columns, from the largest finite |z| of Z, unless ``per_column``."""
    mag = np.where(np.isfinite(Z), np.abs(Z), 0.0)
    top = mag.max(axis=0) if per_column else np.full(Z.shape[1], mag.max(initial=0.0))
    far = (top > 2.0 ** BIG_EXP) | ((top > 0) & (top < 2.0 ** -BIG_EXP))
    return np.where(far, -np.frexp(top)[1], 0).astype(np.int64)


def fit_scaling(Z: np.ndarray, scale: str | None, per_column: bool | None = None,
                weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(exponents k, offset o, factor f) with which ``apply_scaling`` maps real features.

    ``np.ldexp(Z, k)`` (Z 2**k, exact) brings the largest finite |z| near 1 when it lies
    beyond 2**BIG_EXP (or, nonzero, below 2**-BIG_EXP), else k = 0. The exponent is kept, not
    the factor 2**k: data below 2**-1024 (subnormal numbers) need a factor beyond the largest
    double, which overflowed to inf and made every tree a single leaf. k is per column when
    ``per_column`` (default: when ``scale`` is not None; rotation trees standardise every
    column, so they ask for it too), so a column of 1e-300 beside one of 1e300 keeps its
    digits; without scaling one k serves all columns, as the MMDT's direction is then defined
    on the raw magnitudes. Then, per column of Z 2**k: ``"minmax"`` o = min, f = 1 /
    (max - min); ``"standard"`` o = mean, f = 1 / standard deviation (population); None o = 0,
    f = 1. A constant column (max == min) keeps f = 1.

    This is conditioning, with the statistics of all rows given to ``fit``: every MMDT then
    rescales by its own rows' statistics (``treelab.engine.oblique.tree_scale``), which makes
    the tree the same in exact arithmetic whatever o and f were (a mean-margins split does not
    move when a feature is shifted, and the two factors multiply). It keeps the numbers near 1,
    so the trees' folded directions neither overflow nor lose digits to a large common offset.
    With row ``weights`` the statistics are those of the weighted rows (rows of weight 0 left
    out, the mean and deviation weighted), as of the rows repeated by integer weights.
    """
    if weights is not None:
        Z = Z[weights > 0]
        weights = weights[weights > 0]
    if per_column is None:
        per_column = scale is not None
    k = _exponents(Z, per_column)
    Zp = np.ldexp(Z, k)
    d = Z.shape[1]
    offset, factor = np.zeros(d), np.ones(d)
    if scale == "minmax":
        offset = Zp.min(axis=0)
        span = Zp.max(axis=0) - offset
    elif scale == "standard" and weights is not None:
        offset = np.average(Zp, axis=0, weights=weights)
        span = np.sqrt(np.average((Zp - offset) ** 2, axis=0, weights=weights))
    elif scale == "standard":
        offset = Zp.mean(axis=0)
        span = Zp.std(axis=0)
    else:
        span = np.ones(d)
    # constancy compared exactly: the standard deviation of equal values such as 0.1 can be
    # a rounding residue (2.8e-17 for 150 rows), whose inverse would blow the column up
    ok = np.isfinite(span) & (span > 0) & (Zp.max(axis=0) > Zp.min(axis=0))
    factor[ok] = 1.0 / span[ok]
    offset[~np.isfinite(offset)] = 0.0
    return k, offset, factor


def apply_scaling(scaling: tuple[np.ndarray, np.ndarray, np.ndarray],
                  Z: np.ndarray) -> np.ndarray:
    """((Z 2**k) - o) f, the scaling of ``fit_scaling``, as a contiguous float64 array.

    A value that the scaling carries beyond the largest double (a prediction row far outside
    the training range) is held at +-the largest double, so it routes as a very large value
    rather than as inf (whose product with a zero weight would be NaN)."""
    k, offset, factor = scaling
    with np.errstate(over="ignore", invalid="ignore"):
        out = (np.ldexp(Z, k) - offset) * factor
    top = np.finfo(np.float64).max
    return np.ascontiguousarray(np.clip(out, -top, top), dtype=np.float64)
