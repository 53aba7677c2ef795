"""Test thresholds: exact midpoints between distinct values, the random draws of the random
and mixed trees (pairs of values, uniform), and a value threshold's place among the ranks."""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner
from treelab.engine.kernels._rng import rand_float, rand_int
from treelab.engine.kernels._split import row_of

PAIR_DRAWS = 8


@inner
def midpoint(lo, hi):
    """Midpoint threshold t with lo <= t < hi (guards the rounding case t == hi)."""
    t = lo + (hi - lo) * 0.5
    if not np.isfinite(t):
        # hi - lo beyond the largest double (values of both signs near it): halves first
        t = lo * 0.5 + hi * 0.5
    if t >= hi:
        t = lo
    return t


@inner
def split_threshold(uniq, base, r_lo, r_hi, binned):
    """Threshold of a deterministic test sending ranks <= r_lo left, r_hi the next rank present
    at the node: the midpoint of their values (exact search), or on binned features the upper
    edge of bin r_lo (``uniq`` then holds each bin's upper edge; engine.forest.bin_feature)."""
    if binned:
        return uniq[base + r_lo]
    return midpoint(uniq[base + r_lo], uniq[base + r_hi])


@inner
def continuous_available(f, rows, s, e, Xc):
    """At least two distinct non-missing values (or nominal codes) of feature f at the node,
    stopping at the first value that differs."""
    have = False
    v0 = 0.0
    for j in range(e - s):
        v = Xc[f, row_of(rows[s + j])]
        if np.isnan(v):
            continue
        if not have:
            v0 = v
            have = True
        elif v != v0:
            return True
    return False


@inner
def min_max(f, rows, s, e, Xc):
    """Minimum and maximum non-missing value of feature f at the node."""
    lo = np.inf
    hi = -np.inf
    for j in range(e - s):
        v = Xc[f, row_of(rows[s + j])]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@njit(**NUMBA_FLAGS)
def pair_midpoint(f, rows, s, e, Xc, state):
    """Liu et al.'s random threshold: midpoint of two random rows' differing values.

    Returns (found, threshold); not found when the node has fewer than two distinct
    non-missing values of f. The first value is uniform over the non-missing rows, the second
    over those with another value (rejection sampling). Only after ``PAIR_DRAWS`` rejections in
    a row does it scan the node to learn whether a second value exists at all: measured,
    scanning first cost more than the split itself at small nodes.
    """
    m = e - s
    va = np.nan
    k = 0
    while np.isnan(va):
        va = Xc[f, row_of(rows[s + rand_int(state, m)])]
        k += 1
        if k == PAIR_DRAWS and np.isnan(va) and not continuous_available(f, rows, s, e, Xc):
            return False, np.nan
    k = 0
    while True:
        vb = Xc[f, row_of(rows[s + rand_int(state, m)])]
        if not np.isnan(vb) and vb != va:
            break
        k += 1
        if k == PAIR_DRAWS and not continuous_available(f, rows, s, e, Xc):
            return False, np.nan
    if va < vb:
        return True, midpoint(va, vb)
    return True, midpoint(vb, va)


@njit(_nrt=True, **NUMBA_FLAGS)
def pair_distinct_midpoint(f, rows, s, e, Xc, state):
    """Liu et al.'s random threshold with "a value of nu" read as one of the node's distinct
    values: two different distinct non-missing values, each pair equally likely (a value many
    rows share is drawn no more often than a rare one). Returns (found, threshold)."""
    m = e - s
    vals = np.empty(m)
    k = 0
    for j in range(m):
        v = Xc[f, row_of(rows[s + j])]
        if not np.isnan(v):
            vals[k] = v
            k += 1
    if k < 2:
        return False, np.nan
    u = np.unique(vals[:k])
    n = u.shape[0]
    if n < 2:
        return False, np.nan
    a = rand_int(state, n)
    b = rand_int(state, n - 1)
    if b >= a:
        b += 1
    return True, midpoint(u[min(a, b)], u[max(a, b)])


@njit(**NUMBA_FLAGS)
def uniform_threshold(lo, hi, state):
    """Threshold uniform in [lo, hi), never equal to hi."""
    u = rand_float(state)
    t = lo + u * (hi - lo)
    if not np.isfinite(t):
        # hi - lo beyond the largest double: drawn on the halves (exact scaling), which kept
        # every draw at lo and cut off one row at a time on data spanning +-1e308
        t = 2.0 * (lo * 0.5 + u * (hi * 0.5 - lo * 0.5))
    if t >= hi:
        t = lo
    return t


@njit(_nrt=False, **NUMBA_FLAGS)
def rank_threshold(f, t, uniq, uniq_off):
    """Largest global rank whose value is <= t, so that x <= t  <=>  rank(x) <= it."""
    # np.searchsorted(uniq[base:end], t, side="right") - 1 by hand, the same steps and
    # comparison (a NaN t counts as above every value): numba's is four more functions to
    # compile on a first fit
    base = uniq_off[f]
    lo = base
    hi = uniq_off[f + 1]
    while lo < hi:
        mid = lo + ((hi - lo) >> 1)
        if t != t or uniq[mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    return lo - base - 1
