"""Numba flags shared by every kernel (one place, so no kernel hard-codes its own)."""

from treelab._cache import serialize_cache_saves

# fastmath stays off: reassociation would change gains and therefore tie-breaking.
NUMBA_FLAGS = {"cache": True, "nogil": True, "fastmath": False}

# every kernel module imports this one before compiling: cache writes from several processes
# (runner workers, test workers) then never cross
serialize_cache_saves()
