"""Kernels that only other kernels call (``engine.kernels._config.inner``) are compiled without
the wrappers Python calls through: a call from Python is refused with a TypeError (never a jump
into a wrapper that was not built), and the kernels that call them work from a cold cache and
from a written one."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from treelab.engine.kernels import (
    _config,
    _criteria,
    _grow,
    _local,
    _nodes,
    _nominal,
    _partition,
    _predict,
    _presort,
    _rng,
    _scan,
    _select,
    _split,
    _thresholds,
)


def inner_kernels():
    found = []
    for module in (_select, _grow, _nodes, _local, _split, _scan, _presort, _thresholds,
                   _partition, _nominal, _criteria, _rng, _predict):
        for obj in vars(module).values():
            if isinstance(obj, _config._KernelOnly) and obj.py_func.__module__ == module.__name__:
                found.append(obj)
    return found


def test_the_search_and_its_helpers_are_kernel_only():
    names = {k.py_func.__name__ for k in inner_kernels()}
    assert {"deterministic_select", "random_select", "enlarge", "partition_threshold",
            "binary_gain", "rand_int", "_walk"} <= names


@pytest.mark.parametrize("kernel", inner_kernels(), ids=lambda k: k.py_func.__name__)
def test_a_python_call_of_a_kernel_only_function_is_refused(kernel):
    with pytest.raises(TypeError, match="only from other kernels"):
        kernel(np.zeros(3), 1)


def test_kernel_only_helpers_work_from_a_cold_and_a_written_cache(tmp_path):
    """Two processes on one new cache folder: the first compiles (the callers link the
    wrapper-less helpers), the second loads; both predict the same probabilities."""
    code = textwrap.dedent("""
        import hashlib
        from sklearn.datasets import load_iris
        import treelab
        X, y = load_iris(return_X_y=True)
        m = treelab.VRTrees(n_estimators=4, random_state=0).fit(X, y)
        print(hashlib.sha256(m.predict_proba(X).tobytes()).hexdigest())
    """)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True).stdout.split()[-1] for _ in range(2)]
    assert runs[0] == runs[1]
    assert any(p.suffix == ".nbc" and "_select" in p.name for p in tmp_path.rglob("*"))
