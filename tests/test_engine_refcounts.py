"""Kernels compiled without numba's reference counting (``_nrt=False``: the node-level
selection, partitions and list work) leave every allocation balanced, and the sort they call
through ``_sort.sort_head`` sorts as NumPy does.

Such a kernel neither raises nor lowers a count: were one of them to return a view or keep an
array it allocated, numba's runtime would free an array twice or never. The runtime's own
counters (``NUMBA_NRT_STATS=1``) must show every array allocated while fitting freed once the
estimators are gone.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np

from treelab.engine.kernels._sort import sort_head

SCRIPT = textwrap.dedent("""
    import gc
    import numpy as np
    import pandas as pd
    import treelab
    from numba.core.runtime import rtsys

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(400, 6)), 2)
    X[rng.random(X.shape) < 0.05] = np.nan
    code = rng.integers(0, 4, size=400)
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (np.nan_to_num(X[:, 1]) > 0.5) + (code == 2)
    X = pd.DataFrame(X[:, :5], columns=list("abcde"))
    X["n"] = pd.Categorical(np.array(list("pqrs"))[code])  # a nominal column
    makers = [
        lambda: treelab.VRTrees(n_estimators=8, alpha=1.0, random_state=0),
        lambda: treelab.VRTrees(n_estimators=8, alpha=0.5, sampling="bootstrap+subspace",
                                random_state=1),
        lambda: treelab.VRTrees(n_estimators=8, alpha=0.5, random_split="pert",
                                random_state=2),
        lambda: treelab.RandomForest(n_estimators=8, random_state=3),
        lambda: treelab.RandomForest(n_estimators=8, max_bins=16, random_state=4),
    ]

    def fit_all():
        out = []
        for make in makers:
            est = make()
            est.fit(X, y)
            out.append(est.predict_proba(X).shape[0])
        return out

    fit_all()  # compiled or loaded, module-level tables built
    gc.collect()
    a = rtsys.get_allocation_stats()
    probs = fit_all()
    gc.collect()
    b = rtsys.get_allocation_stats()
    print(b.alloc - a.alloc, b.free - a.free, b.mi_alloc - a.mi_alloc, b.mi_free - a.mi_free,
          len(probs))
""")


def test_fits_free_every_array_they_allocate():
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    alloc, free, mi_alloc, mi_free, n = (int(v) for v in out[-5:])
    assert n == 5
    assert alloc > 1000  # the fits allocated through the runtime (stats are on)
    assert alloc == free
    assert mi_alloc == mi_free


def test_sort_head_sorts_the_prefix_as_numpy_and_leaves_the_rest():
    rng = np.random.default_rng(1)
    for n, k in [(0, 0), (1, 1), (10, 7), (300, 300), (1000, 517)]:
        a = rng.integers(-50, 50, size=n).astype(np.int64)
        want = np.concatenate([np.sort(a[:k]), a[k:]])
        sort_head(a, k)
        assert np.array_equal(a, want)
