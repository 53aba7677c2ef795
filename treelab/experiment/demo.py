"""The main job: a small, real spectrum-of-randomness experiment (Liu et al. 2008).

Aggregating, Bagging and Subspace VR-Trees (100 trees each) across the 11 alphas 0, 0.1, ...,
1, evaluated by 10-fold stratified cross-validation on three UCI sets of the bundle that ships
with treelab, all three in Liu et al.'s study: ``wine`` (continuous attributes, three classes),
``heart-statlog`` (mixed continuous and nominal attributes) and ``vote`` (nominal attributes
with missing values coded as a value of their own).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from treelab.experiment.config import ExperimentConfig

__all__ = ["DEMO_ALPHAS", "DEMO_DATASETS", "demo_config"]

#: The UCI sets of the demo (names in the bundle, see ``treelab list-data``).
DEMO_DATASETS = ("wine", "heart-statlog", "vote")

#: The alpha grid of Liu et al. (2008).
DEMO_ALPHAS = tuple(round(0.1 * i, 1) for i in range(11))


def spectrum_ensembles(n_estimators: int) -> list[dict]:
    """Aggregating, Bagging and Subspace (gamma = 0.5) VR-Trees, as in Liu et al. (2008)."""
    params = {"n_estimators": n_estimators}
    return [
        {"name": "Agg.", "estimator": "VRTrees", "params": {**params, "sampling": "none"}},
        {"name": "Bag.", "estimator": "VRTrees", "params": {**params, "sampling": "bootstrap"}},
        {"name": "Subspace", "estimator": "VRTrees",
         "params": {**params, "sampling": "subspace", "subspace_fraction": 0.5}},
    ]


def demo_config(out: str | os.PathLike[str] = "treelab-out/demo", *, n_estimators: int = 100,
                n_splits: int = 10, datasets: Sequence[str] = DEMO_DATASETS, seed: int = 0
                ) -> ExperimentConfig:
    """The demo experiment's configuration.

    Parameters
    ----------
    out : str or path-like, default "treelab-out/demo"
        Output folder.
    n_estimators : int, default 100
        Trees per ensemble.
    n_splits : int, default 10
        Folds of the stratified cross-validation.
    datasets : sequence of str, default ("wine", "heart-statlog", "vote")
        Names of UCI sets in the bundle (``TREELAB_DATA`` points at another bundle).
    seed : int, default 0
        Root seed.

    Returns
    -------
    ExperimentConfig
    """
    if isinstance(datasets, str) or not datasets:
        raise ValueError(f"datasets must be a non-empty list of UCI set names; got {datasets!r}")
    return ExperimentConfig(
        name="treelab demo: spectrum of variable-random trees",
        datasets=[{"name": name, "uci": name} for name in datasets],
        ensembles=spectrum_ensembles(n_estimators),
        alphas=DEMO_ALPHAS,
        protocol={"name": "stratified_kfold", "n_splits": n_splits},
        seed=seed,
        out=os.fspath(out),
        backend="local",
    )
