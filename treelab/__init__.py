"""treelab: decision-tree ensembles across the spectrum of randomness, and their diversity."""

from importlib.metadata import PackageNotFoundError, version

from treelab._cache import configure_cache

# before anything below imports numba: it reads NUMBA_CACHE_DIR once, when first imported
configure_cache()

from treelab.estimators import (  # noqa: E402
    CVDT,
    MMDT,
    PERT,
    BaggedCVDT,
    BaggedMMDT,
    BaggedTrees,
    Coalescence,
    DecisionTree,
    DisjointSampleTrees,
    ExtraTrees,
    MaxDiverseEnsemble,
    RandomDecisionTrees,
    RandomForest,
    RotationForest,
    StochasticID3,
    VRTrees,
)

try:
    __version__ = version("treelab")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0"

__all__ = [
    "CVDT",
    "MMDT",
    "PERT",
    "BaggedCVDT",
    "BaggedMMDT",
    "BaggedTrees",
    "Coalescence",
    "DecisionTree",
    "DisjointSampleTrees",
    "ExtraTrees",
    "MaxDiverseEnsemble",
    "RandomDecisionTrees",
    "RandomForest",
    "RotationForest",
    "StochasticID3",
    "VRTrees",
    "__version__",
]
