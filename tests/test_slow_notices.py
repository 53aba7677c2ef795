"""A word when `import treelab` or the start of a rerun takes more than a few seconds
(`treelab._slow`): at a load of 10 the import took 9.6 s and a rerun of a finished experiment
printed nothing for 22-31 s."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from treelab import _slow

REPO = Path(__file__).resolve().parents[1]


def test_a_slow_step_says_what_it_does_and_a_quick_one_says_nothing(caplog):
    with caplog.at_level(logging.INFO, logger="treelab"):
        with _slow.slow_notice("checking the finished cells", after=0.05):
            pass
        time.sleep(0.15)  # the notice would have come by now
        assert not caplog.records
        with _slow.slow_notice("checking the finished cells", after=0.05):
            time.sleep(0.3)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("treelab: checking the finished cells (more than")


def test_a_slow_import_says_what_it_loads():
    # the import is made to look slow (0.01 s counts as slow), in a process of its own: the
    # threshold comes from the environment, since importing treelab._slow imports treelab
    done = subprocess.run([sys.executable, "-c", "import treelab"], capture_output=True,
                          text=True, cwd=REPO, check=True,
                          env={**os.environ, "TREELAB_SLOW_AFTER": "0.01"})
    assert "treelab: still importing numba, scikit-learn and treelab's engine" in done.stderr


def test_a_rerun_of_a_finished_experiment_says_what_it_checks(monkeypatch, tmp_path):
    import contextlib

    from treelab.experiment import ExperimentConfig, run

    run_module = sys.modules["treelab.experiment.run"]
    config = ExperimentConfig(
        datasets=[{"generator": "waveform", "n_samples": 60}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 3}}],
        alphas=[0.5], protocol={"name": "stratified_kfold", "n_splits": 2}, out=str(tmp_path))
    first = run(config, progress=False, backend="serial")
    steps = []

    @contextlib.contextmanager
    def watched(what, after=None):  # each step the run would name, were it slow
        steps.append(what)
        yield

    monkeypatch.setattr(run_module, "_slow_notice", watched)
    again = run(config, progress=False, backend="serial")
    assert again.ensemble_error.equals(first.ensemble_error)
    name = config.name
    assert steps == [f"{name}: checking the data sets and the folds of the experiment",
                     f"{name}: reading the finished cells in {tmp_path}",
                     f"{name}: assembling and writing the result of 2 cells"]
