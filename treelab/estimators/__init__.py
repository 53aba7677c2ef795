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

__all__ = [
    "BaggedTrees",
    "Coalescence",
    "DecisionTree",
    "DisjointSampleTrees",
    "ExtraTrees",
    "MaxDiverseEnsemble",
    "RandomDecisionTrees",
    "RandomForest",
    "TreeEnsembleClassifier",
    "VRTrees",
]
