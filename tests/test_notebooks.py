"""Every notebook runs end to end in quick mode (TREELAB_QUICK=1), as in CI.

Each notebook is executed by nbclient in a fresh kernel; any error in any cell fails the test.
Quick mode keeps each one well under two minutes on a quiet machine (the time is reported,
not asserted). Every number a quick run prints or displays
must equal what the executed copy in the docs shows (the copies are executed in quick mode); the
tour's are checked against direct computations in ``test_user_numbers.py``. Mutation tried:
``experiment.summary`` taking the maximum over folds instead of the mean: the 00_tour run fails
here.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
TIME_LIMIT = 600  # seconds a cell may run before its kernel counts as hung
# the suite runs on every core (pytest-xdist): a notebook then shares the machine with as many
# other tests as there are workers, and is given that many times as long
SHARED_LIMIT = TIME_LIMIT * int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


def test_the_studies_have_notebooks():
    names = {p.name for p in NOTEBOOKS}
    assert {"00_tour.ipynb", "01_spectrum_of_randomness.ipynb",
            "02_error_correlation.ipynb", "03_probability_estimation.ipynb",
            "04_heterogeneous_ensembles.ipynb", "05_rotation_forest.ipynb"} <= names


def committed(path: Path, repo: Path = REPO):
    """The notebook as git holds it for the next commit (the index), or the file itself
    outside a git checkout (an unpacked sdist). Outputs that running the notebook in
    JupyterLab puts in the working copy are not in the index: the nbstripout filter strips
    them when the notebook is staged."""
    git = shutil.which("git")
    if git is not None:
        rel = path.resolve().relative_to(repo.resolve()).as_posix()
        done = subprocess.run([git, "show", f":{rel}"], cwd=repo, capture_output=True)
        if done.returncode == 0:
            return nbformat.reads(done.stdout.decode("utf-8"), as_version=4)
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_committed_stripped(path):
    # what would be committed, not the working copy a user may have just run
    nb = committed(path)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                f"{path.name}: outputs must be stripped from the repository copy "
                "(install the filter: nbstripout --install; see CONTRIBUTING.md)")
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "TREELAB_QUICK" in params[0].source


def test_a_notebook_run_in_the_clone_still_counts_as_stripped(tmp_path):
    # running a notebook in JupyterLab used to fail the check above: it read the working copy
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed: the check reads the files themselves")
    source = NOTEBOOKS[0]
    (tmp_path / "notebooks").mkdir()
    path = tmp_path / "notebooks" / source.name
    path.write_bytes(source.read_bytes())
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for cmd in (["init", "-q"], ["add", "notebooks"], [*env, "commit", "-q", "-m", "nb"]):
        subprocess.run([git, *cmd], cwd=tmp_path, check=True, capture_output=True)
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="ran in JupyterLab\n")]
    code.execution_count = 1
    nbformat.write(nb, path)
    assert nbformat.read(path, as_version=4).cells[nb.cells.index(code)].outputs
    kept = committed(path, tmp_path)
    assert all(c.outputs == [] for c in kept.cells if c.cell_type == "code")


def test_git_strips_the_notebooks_but_not_their_executed_copies():
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the attributes only matter to git")
    done = subprocess.run([git, "check-attr", "filter", "--", "notebooks/00_tour.ipynb",
                           "docs/notebooks/00_tour.ipynb"], cwd=REPO, capture_output=True,
                          text=True, check=True).stdout.splitlines()
    assert done == ["notebooks/00_tour.ipynb: filter: nbstripout",
                    "docs/notebooks/00_tour.ipynb: filter: unspecified"]


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
    client = nbclient.NotebookClient(nb, timeout=SHARED_LIMIT, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    # reported, not asserted: a wall time depends on the machine's load (the per-cell timeout
    # above only stops a hung kernel)
    sys.stderr.write(f"{path.name}: {time.perf_counter() - start:.1f} s in quick mode\n")
    left = sorted(p.name for p in tmp_path.glob("treelab-*"))
    assert left == [], f"{path.name} left {left} in the temp folder"
    # every number the run prints or displays is the one the executed copy in the docs shows
    # (the tour's are checked against direct computations in test_user_numbers.py)
    copy = nbformat.read(path.parents[1] / "docs" / "notebooks" / path.name, as_version=4)
    ran, shown = _shown(_tidy(nb)), _shown(copy)
    assert len(ran) == len(shown)
    for i, (a, b) in enumerate(zip(ran, shown, strict=True)):
        assert a == b, f"{path.name}: code cell {i} shows other output than its executed copy"


def _tidy(nb):
    """The run tidied as the executed copies are (``scripts/execute_notebooks.py``'s ``tidy``:
    no compile notices, a line in place of each explorer)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "execute_notebooks", REPO / "scripts" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tidy(nb)


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


def test_the_readme_says_what_keeps_a_clone_clean_and_it_does(tmp_path):
    # JupyterLab saves outputs into the notebook it runs; the one command the README names
    # makes git see a notebook with outputs as unchanged in a clone
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Notebooks", 1)[1].split("\n## ", 1)[0]
    words = " ".join(section.split())
    assert "run `nbstripout --install` once" in words and "cp -r notebooks my-notebooks" in words
    git, strip = shutil.which("git"), shutil.which("nbstripout") or (
        Path(sys.executable).parent / "nbstripout")
    if git is None or not Path(strip).exists():
        pytest.skip("git or nbstripout is not installed")
    (tmp_path / "notebooks").mkdir()
    source = NOTEBOOKS[0]
    path = tmp_path / "notebooks" / source.name
    path.write_bytes(source.read_bytes())
    (tmp_path / ".gitattributes").write_text((REPO / ".gitattributes").read_text())
    env = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([git, "init", "-q"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run([str(strip), "--install"], cwd=tmp_path, check=True, capture_output=True)
    for cmd in (["add", "."], [*env, "commit", "-q", "-m", "nb"]):
        subprocess.run([git, *cmd], cwd=tmp_path, check=True, capture_output=True)
    nb = nbformat.read(path, as_version=4)
    code = next(c for c in nb.cells if c.cell_type == "code")
    code.outputs = [nbformat.v4.new_output("stream", text="ran in JupyterLab\n")]
    code.execution_count = 1
    nbformat.write(nb, path)
    # git diff shows no change, and staging the notebook stages nothing
    assert subprocess.run([git, "diff", "--quiet"], cwd=tmp_path).returncode == 0
    subprocess.run([git, "add", "-A"], cwd=tmp_path, check=True, capture_output=True)
    assert subprocess.run([git, "diff", "--cached", "--quiet"], cwd=tmp_path).returncode == 0
    assert subprocess.run([git, "status", "--porcelain"], cwd=tmp_path, check=True,
                          capture_output=True, text=True).stdout == ""
    # the other way the README gives: copies in a folder git ignores
    if (REPO / ".git").exists():
        ignored = subprocess.run([git, "check-ignore", "-q", "my-notebooks/00_tour.ipynb"],
                                 cwd=REPO)
        assert ignored.returncode == 0
