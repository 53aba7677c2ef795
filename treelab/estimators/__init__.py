"""scikit-learn compatible tree learners."""

from treelab.estimators._base import TreeEnsembleClassifier
from treelab.estimators.ensembles import (
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
from treelab.estimators.learners import PERT, StochasticID3
from treelab.estimators.oblique import CVDT, MMDT, BaggedCVDT, BaggedMMDT
from treelab.estimators.rotation import RotationForest

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
    "TreeEnsembleClassifier",
    "VRTrees",
]
