"""Numba flags shared by every kernel (one place, so no kernel hard-codes its own)."""

# fastmath stays off: reassociation would change gains and therefore tie-breaking.
NUMBA_FLAGS = {"cache": True, "nogil": True, "fastmath": False}
