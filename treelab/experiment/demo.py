"""The main job: a small, real spectrum-of-randomness experiment (Liu et al. 2008).

Aggregating, Bagging and Subspace VR-Trees (100 trees each) across the 11 alphas 0, 0.1, ...,
1, evaluated by 10-fold stratified cross-validation on embedded data: Breiman's waveform
(generated, 300 rows) and scikit-learn's bundled wine data; when the shared UCI bundle is found
(``TREELAB_DATA`` or ``../shared/data/uci``) its ``heart-statlog`` set (mixed continuous and
nominal attributes) is added.
"""

from __future__ import annotations

import os

from treelab.datasets.loaders import find_uci_root
from treelab.experiment.config import ExperimentConfig

__all__ = ["DEMO_ALPHAS", "demo_config"]

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
                n_splits: int = 10, use_uci: bool | None = None, seed: int = 0
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
    use_uci : bool, optional
        Add the UCI ``heart-statlog`` set; by default exactly when the bundle is found.
    seed : int, default 0
        Root seed.

    Returns
    -------
    ExperimentConfig
    """
    datasets: list[dict] = [
        {"name": "waveform", "generator": "waveform", "n_samples": 300},
        {"name": "wine", "builtin": "wine"},
    ]
    root = find_uci_root(required=False)
    if use_uci or (use_uci is None and root is not None):
        if root is None:
            find_uci_root()  # raises the explanatory error
        datasets.append({"name": "heart-statlog", "uci": "heart-statlog", "root": str(root)})
    return ExperimentConfig(
        name="treelab demo: spectrum of variable-random trees",
        datasets=datasets,
        ensembles=spectrum_ensembles(n_estimators),
        alphas=DEMO_ALPHAS,
        protocol={"name": "stratified_kfold", "n_splits": n_splits},
        seed=seed,
        out=os.fspath(out),
        backend="local",
    )
