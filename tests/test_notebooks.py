"""Every notebook runs end to end in quick mode (TREELAB_QUICK=1), as in CI.

Each notebook is executed by nbclient in a fresh kernel; any error in any cell fails the test.
Quick mode keeps each one well under two minutes. Every number a quick run prints or displays
must equal what the executed copy in the docs shows (the copies are executed in quick mode); the
tour's are checked against direct computations in ``test_user_numbers.py``. Mutation tried:
``experiment.summary`` taking the maximum over folds instead of the mean: the 00_tour run fails
here.
"""

import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
TIME_LIMIT = 120  # seconds per notebook in quick mode


def test_the_studies_have_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"00_tour.ipynb", "01_spectrum_of_randomness.ipynb",
            "02_error_correlation.ipynb", "03_probability_estimation.ipynb",
            "04_heterogeneous_ensembles.ipynb", "05_rotation_forest.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: outputs must be stripped from the repository copy")
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "TREELAB_QUICK" in params[0].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_has_a_visible_quick_switch(path):
    nb = nbformat.read(path, as_version=4)
    (params,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    lines = [ln.strip() for ln in params.source.splitlines()]
    assert 'QUICK = os.environ.get("TREELAB_QUICK", "0") == "1"' in lines
    assert "mkdtemp" not in params.source  # a temp folder that nobody removes


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_in_quick_mode(path, monkeypatch, tmp_path):
    monkeypatch.setenv("TREELAB_QUICK", "1")
    # the kernel's temp folder: whatever a quick run leaves there is seen below
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    # kernel "python3" runs this interpreter (jupyter_client swaps "python" for sys.executable)
    client = nbclient.NotebookClient(nb, timeout=TIME_LIMIT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    sys.stderr.write(f"{path.name}: {elapsed:.1f} s in quick mode\n")
    assert elapsed < TIME_LIMIT, f"{path.name} took {elapsed:.0f} s in quick mode"
    left = sorted(p.name for p in tmp_path.glob("treelab-*"))
    assert left == [], f"{path.name} left {left} in the temp folder"
    # every number the run prints or displays is the one the executed copy in the docs shows
    # (the tour's are checked against direct computations in test_user_numbers.py)
    copy = nbformat.read(path.parents[1] / "docs" / "notebooks" / path.name, as_version=4)
    ran, shown = _shown(nb), _shown(copy)
    assert len(ran) == len(shown)
    for i, (a, b) in enumerate(zip(ran, shown, strict=True)):
        assert a == b, f"{path.name}: code cell {i} shows other output than its executed copy"


#: Output lines that differ between runs by nature: temp paths, object reprs, notices.
_VOLATILE = ("PosixPath(", "<Figure", "VBox(", "treelab: compiling", " at 0x", "/tmp")


def _shown(nb):
    """Per code cell, the text lines it printed or displayed, volatile lines left out."""
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        text = []
        for o in cell.outputs:
            if "text" in o:
                text.append(o["text"])
            elif "text/plain" in o.get("data", {}):
                text.append(o["data"]["text/plain"])
        lines = "\n".join(text).splitlines()
        out.append([ln for ln in lines
                    if ln.strip() and not any(v in ln for v in _VOLATILE)])
    return out
