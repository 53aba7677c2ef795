"""scikit-learn compatible tree learners.

The oblique learners (``CVDT``, ``MMDT``, ``BaggedCVDT``, ``BaggedMMDT``),
``RotationForest``, ``PERT`` and ``StochasticID3`` are imported on first access (PEP 562): the
other learners do not need their modules (the oblique ones with their own engine and kernels),
and ``import treelab`` is lighter without them.
"""

import importlib
from typing import Any

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

#: Learners imported on first access: name -> module under ``treelab.estimators``.
_LAZY = {
    "CVDT": "oblique",
    "MMDT": "oblique",
    "BaggedCVDT": "oblique",
    "BaggedMMDT": "oblique",
    "PERT": "learners",
    "RotationForest": "rotation",
    "StochasticID3": "learners",
    "BaggedTreesRegressor": "regression",
    "CoalescenceRegressor": "regression",
    "DisjointSampleTreesRegressor": "regression",
    "ExtraTreesRegressor": "regression",
    "MaxDiverseRegressor": "regression",
    "RandomDecisionTreesRegressor": "regression",
    "RandomForestRegressor": "regression",
    "RegressionTree": "regression",
    "RotationForestRegressor": "rotation_regression",
    "VRTreesRegressor": "regression",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'treelab.estimators' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"treelab.estimators.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    "TreeEnsembleClassifier",
    "VRTrees",
    "VRTreesRegressor",
]
