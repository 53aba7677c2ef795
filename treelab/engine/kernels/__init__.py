"""numba kernels: the only hot code in treelab.

Kernels take and return plain NumPy arrays and scalars; they never see pandas, xarray or
estimator objects. Every function is compiled with ``cache=True`` and ``nogil=True`` (see
``_config.NUMBA_FLAGS``) so trees can grow on Python threads in parallel.
"""
