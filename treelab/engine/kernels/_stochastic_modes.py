"""The reading of stochastic ID3 as the growth kernel carries it: ``stochastic_select``'s mode
bits and beta as an int64 bit pattern in the integer parameters (``_stochastic`` says what each
bit means)."""

import numpy as np
from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS

MODE_LOOKAHEAD = 1
MODE_GAIN = 2
MODE_LAPLACE_WEIGHTS = 4
# not a reading of the study: the growth routine adds it when ranks are bin codes (P_BINNED)
MODE_BINNED = 8
# with beta = 1, exact ties of E_min are broken by a uniform draw instead of the lowest feature
MODE_TIE_RANDOM = 16


def mode_bits(lookahead: int, choice: str, laplace: str, tie_break: str = "first") -> int:
    """The reading of the study as the bit set ``stochastic_select`` takes as ``mode``."""
    return ((MODE_LOOKAHEAD if lookahead else 0) | (MODE_GAIN if choice == "gain" else 0)
            | (MODE_LAPLACE_WEIGHTS if laplace == "weights" else 0)
            | (MODE_TIE_RANDOM if tie_break == "random" else 0))


def beta_to_bits(beta: float) -> int:
    """beta as the int64 bit pattern carried in the growth kernel's integer parameters."""
    return int(np.array([beta], dtype=np.float64).view(np.int64)[0])


@njit(**NUMBA_FLAGS)
def beta_from_bits(bits):
    """Inverse of ``beta_to_bits`` inside a kernel."""
    a = np.empty(1, dtype=np.int64)
    a[0] = bits
    return a.view(np.float64)[0]
