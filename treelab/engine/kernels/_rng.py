"""A small counter-based generator (splitmix64) carried as a one-element uint64 array.

Each tree gets its own state from a seed drawn in Python from ``random_state``, so results do
not depend on how trees are spread over threads.
"""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS, inner

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@inner
def next_u64(state):
    """Advance ``state`` (uint64[1]) and return the next 64-bit output of splitmix64."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@inner
def rand_float(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _INV53


@inner
def rand_int(state, n):
    """Uniform integer in [0, n) for n >= 1."""
    k = np.int64(rand_float(state) * n)
    if k >= n:
        k = n - 1
    return k


@njit(**NUMBA_FLAGS)
def new_state(seed):
    """A generator state from a uint64 seed."""
    s = np.empty(1, dtype=np.uint64)
    s[0] = np.uint64(seed)
    next_u64(s)
    return s
