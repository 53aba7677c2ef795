"""Sorting a prefix of an array, as a function of its own.

``_select.deterministic_select`` is compiled without numba's reference counting (see its
docstring); numba's ``ndarray.sort`` allocates its work stack through that runtime, so the
code inlined into the selection sorts through this function, which keeps it.
"""

from numba import njit

from treelab.engine.kernels._config import NUMBA_FLAGS


@njit(_nrt=True, **NUMBA_FLAGS)
def sort_head(a, k):
    """Sort ``a[:k]`` in place (numba's quicksort, as ``a[:k].sort()``)."""
    a[:k].sort()
