"""Numba flags shared by every kernel (one place, so no kernel hard-codes its own), and the
decorator of kernels that only other kernels call."""

from numba.core import config
from numba.core.registry import CPUDispatcher

from treelab._cache import configure_cache, serialize_cache_saves

# fastmath stays off: reassociation would change gains and therefore tie-breaking. cache: in
# treelab's tagged folder, or, where no folder can be used, not at all (never numba's
# fall-back __pycache__, which the tag does not cover: treelab._cache)
NUMBA_FLAGS = {"cache": configure_cache().mode != "off", "nogil": True, "fastmath": False}

# every kernel module imports this one before compiling: cache writes from several processes
# (runner workers, test workers) then never cross
serialize_cache_saves()


class _KernelOnly(CPUDispatcher):
    """A kernel compiled without the entry points Python calls it through: refuses such calls
    (numba would jump to a wrapper that was never built)."""

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.py_func.__qualname__} is called only from other kernels: it is "
                        "compiled without a Python entry point (engine.kernels._config.inner)")


def inner(func=None, **options):
    """``njit(**NUMBA_FLAGS, **options)`` for a kernel that only other kernels call.

    numba builds two wrappers for every compiled kernel, one that unboxes Python arguments
    (about as many LLVM instructions as a small kernel, 900 for ``deterministic_select``'s 44
    arguments) and a C-callable one; a kernel reached only from kernels never runs either, and
    building them was about 1 CPU-s of a first fit (benchmarks/README.md, issue 28, item 4).
    The kernel itself, and what its callers compile, are the same. Calling it from Python
    raises TypeError; tests and Python code call kernels decorated with ``njit`` instead.
    """
    def wrap(f):
        if config.DISABLE_JIT:  # as numba's own decorators: the Python function itself
            return f
        disp = _KernelOnly(py_func=f, locals={}, targetoptions={
            "nopython": True, "nogil": NUMBA_FLAGS["nogil"], "fastmath": NUMBA_FLAGS["fastmath"],
            "no_cpython_wrapper": True, "no_cfunc_wrapper": True, **options})
        if NUMBA_FLAGS["cache"]:
            disp.enable_caching()
        return disp

    return wrap if func is None else wrap(func)
