"""What ``import treelab`` and a fit on NumPy arrays import, and the public names that are
imported on first access.

A fit and prediction on NumPy arrays import neither xarray nor the learners and engines they
do not use (oblique trees, rotation, pruning, stochastic ID3 and PERT); the learners imported
on first access are the same objects as their modules'."""

import importlib
import textwrap

import numpy as np
import pytest
from helpers_children import run_child

import treelab
import treelab.estimators

LAZY = {"CVDT": "oblique", "MMDT": "oblique", "BaggedCVDT": "oblique", "BaggedMMDT": "oblique",
        "RotationForest": "rotation", "PERT": "learners", "StochasticID3": "learners"}


def numeric_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5)
    return X, y


def test_a_numpy_fit_and_prediction_import_no_xarray_or_unused_learners_and_engines():
    X, y = numeric_data()
    treelab.VRTrees(n_estimators=3, random_state=0).fit(X, y).predict_proba(X)  # cache it
    loaded = run_child("""
        import sys
        import numpy as np
        import treelab
        rng = np.random.default_rng(0)
        X = rng.normal(size=(120, 4))
        y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 0.5)
        treelab.VRTrees(n_estimators=3, random_state=0).fit(X, y).predict_proba(X)
        names = ("xarray", "treelab.engine.oblique", "treelab.engine.pruning",
                 "treelab.estimators.oblique", "treelab.estimators.rotation",
                 "treelab.estimators.learners")
        print(",".join(n for n in names if n in sys.modules) or "none")
    """)
    assert loaded == "none"


@pytest.mark.parametrize("name", sorted(LAZY))
def test_learners_imported_on_first_access_are_their_modules_classes(name):
    module = importlib.import_module(f"treelab.estimators.{LAZY[name]}")
    assert getattr(treelab, name) is getattr(module, name)
    assert getattr(treelab.estimators, name) is getattr(module, name)
    assert name in dir(treelab) and name in dir(treelab.estimators)
    assert name in treelab.__all__ and name in treelab.estimators.__all__


def test_from_import_of_a_lazy_learner_in_a_fresh_process():
    assert run_child("""
        from treelab import MMDT, RotationForest
        from treelab.estimators import BaggedCVDT
        print(MMDT.__module__, RotationForest.__module__, BaggedCVDT.__module__)
    """) == ("treelab.estimators.oblique treelab.estimators.rotation "
             "treelab.estimators.oblique")


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'NotALearner'"):
        treelab.NotALearner  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'NotALearner'"):
        treelab.estimators.NotALearner  # noqa: B018



def test_a_grid_cell_and_the_diagnose_warm_up_build_no_xarray_variable():
    # the workers' server warms diagnose up and its workers store cells: neither builds an
    # xarray Variable (the first one built the usual way imports dask.array, 0.25 s before
    # any cell; the tree statistics once built theirs on xarray's fast path)
    code = """
        import sys
        from xarray.core import variable
        from treelab._warmup import _diagnose_step
        from treelab.experiment.cells import run_cell
        from treelab.experiment.config import load_config
        from treelab.experiment.expand import expand
        built = []
        init = variable.Variable.__init__

        def counted(self, *args, **kwargs):
            built.append(args[:1])
            init(self, *args, **kwargs)

        variable.Variable.__init__ = counted
        try:
            _diagnose_step()
            config = load_config(dict(
                name="g", seed=0, datasets=[{"uci": "sonar"}],
                ensembles=[{"name": "VR", "estimator": "VRTrees",
                            "params": {"n_estimators": 4}}],
                alphas=[0.5], protocol={"name": "stratified_kfold", "n_splits": 2}))
            record = run_cell(expand(config)[0].spec)
        finally:
            variable.Variable.__init__ = init
        assert record["vars"]["ensemble_error"]["dims"] == []
        print("dask.array" in sys.modules, "xarray" in sys.modules, len(built))
    """
    exec(textwrap.dedent(code), {})  # in this process first: the kernels cached for the child
    assert run_child(code) == "False True 0"


def test_a_readied_result_writer_leaves_the_result_nothing_to_import():
    # a run's process readies the writer while the workers' server warms up
    # (result_files.ready_writer): assembling and writing the result after the last cell must
    # then import none of what made its 0.6 s (dask.array, dask.distributed, netCDF4 and what
    # they import; the summary's few pandas and xarray modules take 2 ms)
    code = """
        import sys, tempfile
        from pathlib import Path
        import numpy as np
        import xarray as xr
        from treelab.experiment import result_files
        ends = ("dask.array", "distributed", "netCDF4")
        before = [name in sys.modules for name in ends]
        result_files.ready_writer(True)
        readied = set(sys.modules)
        ds = xr.Dataset(
            {"ensemble_error": (("dataset", "ensemble", "alpha", "fold"),
                                np.full((2, 1, 2, 3), 0.25), {"units": "1"}),
             "n_train": (("dataset", "fold"), np.arange(6).reshape(2, 3))},
            coords={"dataset": ["sonar", "vote"], "ensemble": ["VR"], "alpha": [0.0, 1.0],
                    "fold": [0, 1, 2]}, attrs={"name": "g"})
        result_files.write_files(ds, Path(tempfile.mkdtemp()))
        heavy = {"dask", "distributed", "netCDF4", "cftime", "tornado", "toolz", "cloudpickle"}
        print(before, sorted(m for m in set(sys.modules) - readied
                             if m.partition(".")[0] in heavy))
    """
    assert run_child(code) == "[False, False, False] []"
