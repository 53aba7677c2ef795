"""treelab: decision-tree ensembles across the spectrum of randomness, and their diversity.

The estimators are imported with the package (the oblique ones, ``RotationForest``, ``PERT``
and ``StochasticID3`` on first access). The subpackages ``analysis``, ``plot``,
``stats``, ``widgets``, ``datasets``, ``experiment`` and ``combine`` are attributes too, but
each is imported only when first used (PEP 562), so ``import treelab`` stays fast and fitting
a model never imports xarray or matplotlib::

    import treelab
    model = treelab.VRTrees(alpha=0.5).fit(X, y)
    result = treelab.analysis.diagnose(model, X_test, y_test)  # imports treelab.analysis now
"""

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from treelab._cache import configure_cache
from treelab._collector import collector_paused
from treelab._slow import slow_notice

# the garbage collector waits until the imports' long-lived objects are made
# (treelab._collector: a tenth of the import's time)
with collector_paused():
    # before any kernel is decorated: where compiled kernels are kept, if anywhere
    configure_cache()

    # a second on a quiet machine, ten at a load of 10: then a word says what is going on
    with slow_notice("still importing numba, scikit-learn and treelab's engine"):
        from treelab import estimators  # noqa: E402
        from treelab.estimators import (  # noqa: E402
            BaggedTrees,
            Coalescence,
            DecisionTree,
            DisjointSampleTrees,
            ExtraTrees,
            MaxDiverseEnsemble,
            RandomDecisionTrees,
            RandomForest,
            VRTrees,
        )

try:
    __version__ = version("treelab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

#: Subpackages reachable as attributes, imported on first access.
_LAZY = ("analysis", "combine", "datasets", "experiment", "plot", "stats", "widgets")

#: Estimators that ``treelab.estimators`` imports on first access (its own table).
_LAZY_ESTIMATORS = tuple(estimators._LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = importlib.import_module(f"treelab.{name}")
    elif name in _LAZY_ESTIMATORS:
        value = getattr(estimators, name)
    else:
        raise AttributeError(f"module 'treelab' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_ESTIMATORS))


__all__ = [
    "CVDT",
    "MMDT",
    "PERT",
    "BaggedCVDT",
    "BaggedMMDT",
    "BaggedTrees",
    "BaggedTreesRegressor",
    "Coalescence",
    "CoalescenceRegressor",
    "DecisionTree",
    "DisjointSampleTrees",
    "DisjointSampleTreesRegressor",
    "ExtraTrees",
    "ExtraTreesRegressor",
    "MaxDiverseEnsemble",
    "MaxDiverseRegressor",
    "RandomDecisionTrees",
    "RandomDecisionTreesRegressor",
    "RandomForest",
    "RandomForestRegressor",
    "RegressionTree",
    "RotationForest",
    "RotationForestRegressor",
    "StochasticID3",
    "VRTrees",
    "VRTreesRegressor",
    "__version__",
]
