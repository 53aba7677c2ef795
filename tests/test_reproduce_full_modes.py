"""``treelab reproduce alipazzani1995`` and ``gashler2008`` (and the benchmark scripts that
call them) run exactly the full mode of notebooks 02 and 04 among their grids: the same cells
(content hashes), so the notebook run with QUICK = False finds every cell the study stored.

The notebook's configuration is taken from the notebook itself: its parameter cell with
QUICK = False and the cells that build the experiments are executed with ``run`` replaced by a
function that records the configuration and stops (nothing is fitted).
"""

from pathlib import Path

import pytest

from treelab.experiment import ExperimentConfig, expand
from treelab.reproduce import alipazzani1995, gashler2008, get_study

nbformat = pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[1]


class _Stop(Exception):
    pass


def _notebook_configs(stem, n_cells, monkeypatch):
    """The ExperimentConfigs the notebook's first ``n_cells`` code cells pass to ``run``, in
    full mode."""
    monkeypatch.setenv("TREELAB_QUICK", "0")
    monkeypatch.chdir(ROOT / "notebooks")
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"][:n_cells]
    seen = []

    def capture(config, **_):
        assert isinstance(config, ExperimentConfig)
        seen.append(config)
        raise _Stop

    namespace = {}
    for source in code:
        if "run(" in source and "from treelab.experiment import" not in source:
            namespace["run"] = capture
        try:
            exec(compile(source, stem, "exec"), namespace)
        except _Stop:
            pass
    assert namespace["QUICK"] is False
    return seen


def _keys(config):
    return sorted(cell.key for cell in expand(config))


def test_error_correlation_study_runs_notebook_02s_full_mode(monkeypatch):
    # code cells: parameters, imports, UCI sets, the experiment
    (notebook,) = _notebook_configs("02_error_correlation", 4, monkeypatch)
    script = get_study("alipazzani1995").grids("full")["stochastic_id3"]
    assert _keys(script) == _keys(notebook)
    assert len(_keys(script)) == 18 * 4 * 4 * 30
    # a subset of the noise variants is a subset of the same cells
    assert set(_keys(alipazzani1995.stochastic_id3(11, [0.0, 0.2]))) < set(_keys(notebook))
    # the notebook's cells are stored where the benchmark script's run leaves them
    assert get_study("alipazzani1995").notebook == "02_error_correlation"


def test_heterogeneous_study_runs_notebook_04s_full_mode(monkeypatch):
    # code cells: parameters, imports, UCI sets, 5x2 CV experiment, F tests, Friedman,
    # irrelevant attributes (the F-test and Friedman cells need the result: skipped)
    nb = nbformat.read(ROOT / "notebooks" / "04_heterogeneous_ensembles.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "irrelevant_config" in code[6].source
    keep = [code[i] for i in (0, 1, 2, 3, 6)]
    nb.cells = keep
    monkeypatch.setattr(nbformat, "read", lambda *a, **k: nb)
    gashler, irrelevant = _notebook_configs("04_heterogeneous_ensembles", 5, monkeypatch)
    full = get_study("gashler2008").grids("full")
    assert _keys(full["gashler"]) == _keys(gashler)
    assert _keys(full["irrelevant"]) == _keys(irrelevant)
    assert _keys(gashler2008.gashler(100)) == _keys(gashler)
    assert len(_keys(gashler)) == 15 * 6 * 10 and len(_keys(irrelevant)) == 4 * 10 * 10


def _configs_of(stem, keep, monkeypatch):
    """The configurations of the notebook's code cells ``keep`` (in full mode)."""
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    nb.cells = [code[i] for i in keep]
    monkeypatch.setattr(nbformat, "read", lambda *a, **k: nb)
    return _notebook_configs(stem, len(keep), monkeypatch)


@pytest.mark.parametrize("stem, keep, study, grids", [
    ("01_spectrum_of_randomness", (0, 1, 2, 3, 7), "liu2008", ("spectrum", "compare")),
    ("03_probability_estimation", (0, 1, 2, 3), "fan2005", ("fan",)),
    ("05_rotation_forest", (0, 1, 2, 4), "rotation-forest", ("rotation",)),
])
def test_studies_run_the_notebooks_full_modes(stem, keep, study, grids, monkeypatch):
    configs = _configs_of(stem, keep, monkeypatch)
    full = get_study(study).grids("full")
    assert len(configs) == len(grids)
    for config, name in zip(configs, grids, strict=True):
        assert _keys(full[name]) == _keys(config), name
    assert get_study(study).notebook == stem
