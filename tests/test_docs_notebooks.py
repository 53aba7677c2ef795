"""The documentation renders executed copies of the notebooks (docs/notebooks/): each copy must
hold exactly the code of its notebook, so a notebook edited without re-running
``scripts/execute_notebooks.py`` fails here instead of showing stale output on the site.
"""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
COPIES = ROOT / "docs" / "notebooks"
FIX = "run python scripts/execute_notebooks.py"


def _code(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells if c["cell_type"] == "code"]


def _outputs(path: Path) -> list[list]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [c.get("outputs", []) for c in cells if c["cell_type"] == "code"]


def test_every_notebook_has_an_executed_copy():
    missing = [p.name for p in NOTEBOOKS if not (COPIES / p.name).is_file()]
    assert not missing, f"no executed copy in docs/notebooks of {missing}: {FIX}"


def test_no_copy_without_its_notebook():
    names = {p.name for p in NOTEBOOKS}
    orphans = [p.name for p in sorted(COPIES.glob("*.ipynb")) if p.name not in names]
    assert not orphans, f"docs/notebooks holds copies of removed notebooks {orphans}: {FIX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_executed_copy_has_the_notebooks_code(path):
    copy = COPIES / path.name
    if not copy.is_file():
        pytest.fail(f"docs/notebooks/{path.name} is missing: {FIX}")
    source, executed = _code(path), _code(copy)
    assert len(source) == len(executed), (
        f"docs/notebooks/{path.name} has {len(executed)} code cells, the notebook "
        f"{len(source)}: {FIX}")
    for i, (a, b) in enumerate(zip(source, executed, strict=True)):
        assert a == b, f"docs/notebooks/{path.name}: code cell {i} differs from the notebook: {FIX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_executed_copy_ran_without_errors(path):
    copy = COPIES / path.name
    if not copy.is_file():
        pytest.fail(f"docs/notebooks/{path.name} is missing: {FIX}")
    outputs = _outputs(copy)
    assert any(outputs), f"docs/notebooks/{path.name} holds no output: {FIX}"
    errors = [o for cell in outputs for o in cell if o.get("output_type") == "error"]
    assert not errors, f"docs/notebooks/{path.name} holds an error output: {FIX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_executed_copy_shows_no_compile_notice_and_no_widget(path):
    # the docs showed "treelab: compiling the tree engine ..." lines, which say how the cache
    # of the machine that ran the copy stood, and widgets whose script loads from a CDN
    copy = COPIES / path.name
    outputs = [o for cell in _outputs(copy) for o in cell]
    text = "".join("".join(o.get("text", "")) for o in outputs if o.get("output_type") == "stream")
    assert "treelab: compiling" not in text and "still compiling" not in text, f"{FIX}"
    assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json"
                in o.get("data", {})], f"docs/notebooks/{path.name} holds a widget: {FIX}"
    assert "widgets" not in json.loads(copy.read_text(encoding="utf-8"))["metadata"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_executed_copy_shows_no_temporary_folder(path):
    # notebook 07 showed the paths its figure exports wrote, in a temporary folder of the
    # machine that ran the copy
    import tempfile

    outputs = [o for cell in _outputs(COPIES / path.name) for o in cell]
    text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                   for o in outputs)
    for mark in ("/tmp/", tempfile.gettempdir() + "/"):
        assert mark not in text, f"docs/notebooks/{path.name} shows a path under {mark}: {FIX}"
