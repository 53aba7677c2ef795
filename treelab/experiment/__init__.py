"""The experiment runner: a configuration of data sets x transforms x ensembles x alphas x
folds becomes independent cells, run on a backend (serial, local processes or threads, dask),
each written to disk the moment it finishes, and assembled into one ``xarray.Dataset``.

Example
-------
>>> import tempfile
>>> from treelab.experiment import ExperimentConfig, run
>>> config = ExperimentConfig(
...     datasets=[{"generator": "waveform", "n_samples": 120}, {"builtin": "wine"}],
...     ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 5}}],
...     alphas=[0.0, 0.5, 1.0],
...     protocol={"name": "stratified_kfold", "n_splits": 2},
...     out=tempfile.mkdtemp(),
... )
>>> ds = run(config, progress=False, backend="serial")
>>> dict(ds.ensemble_error.sizes)
{'dataset': 2, 'ensemble': 1, 'alpha': 3, 'repeat': 1, 'fold': 2}
"""

from treelab._collector import collector_paused

# xarray, pandas and the runner's modules: the garbage collector waits until they are made
# (treelab._collector)
with collector_paused():
    from treelab.experiment.backends import default_workers, execute
    from treelab.experiment.cells import TIMING_VARS, run_cell
    from treelab.experiment.config import BACKENDS, ExperimentConfig, load_config
    from treelab.experiment.demo import DEMO_ALPHAS, DEMO_DATASETS, demo_config
    from treelab.experiment.expand import Cell, expand
    from treelab.experiment.groups import GROUP_MEASURES, Group, groups_of
    from treelab.experiment.run import ExperimentError, result_attrs, run, status, summary
    from treelab.experiment.schema import (
        TRANSFORMS,
        DatasetSpec,
        EnsembleSpec,
        TransformSpec,
        resolve_estimator,
    )
    from treelab.experiment.seeds import cell_seed
    from treelab.experiment.store import CellStore, StoreLockedError, assemble

__all__ = [
    "BACKENDS",
    "DEMO_ALPHAS",
    "DEMO_DATASETS",
    "GROUP_MEASURES",
    "TIMING_VARS",
    "TRANSFORMS",
    "Cell",
    "CellStore",
    "DatasetSpec",
    "EnsembleSpec",
    "ExperimentConfig",
    "ExperimentError",
    "Group",
    "StoreLockedError",
    "TransformSpec",
    "assemble",
    "cell_seed",
    "default_workers",
    "demo_config",
    "execute",
    "expand",
    "groups_of",
    "load_config",
    "resolve_estimator",
    "result_attrs",
    "run",
    "run_cell",
    "status",
    "summary",
]
