"""treelab: decision-tree ensembles across the spectrum of randomness, and their diversity."""

from importlib.metadata import PackageNotFoundError, version

from treelab.estimators import (
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
