"""What a resumed ``treelab reproduce`` cost (issue 39 item 13): ``run.json`` and the page
report every invocation's wall time and their sum, and the cells' own times summed from the
grids' results, not only the last invocation's."""

import json

import pytest
import xarray as xr

from treelab.experiment.cells import TIMING_VARS
from treelab.reproduce import run_study


def _meta(out):
    return json.loads((out / "liu2008" / "tables" / "run.json").read_text())


def test_a_resumed_run_reports_every_invocation_and_the_cells_own_times(tmp_path):
    run_study("liu2008", mode="ci", out=tmp_path, workers=1, progress=False, figures=False)
    first = _meta(tmp_path)
    assert len(first["invocations"]) == 1 and first["seconds"] == first["invocations"][0]
    # stop the run half-way: keep the first half of every grid's finished cells
    grids = [p.parent for p in (tmp_path / "liu2008").glob("*/cells.jsonl")]
    assert grids
    for grid in grids:
        lines = (grid / "cells.jsonl").read_text().splitlines(keepends=True)
        (grid / "cells.jsonl").write_text("".join(lines[:len(lines) // 2]))
        (grid / "result.nc").unlink()
    run_study("liu2008", mode="ci", out=tmp_path, workers=1, progress=False, figures=False)
    resumed = _meta(tmp_path)
    assert len(resumed["invocations"]) == 2
    assert resumed["invocations"][0] == first["invocations"][0]
    assert resumed["seconds"] == pytest.approx(sum(resumed["invocations"]), abs=0.11)
    # the cells' own times: every finished cell's fit, prediction and evaluation seconds
    total = 0.0
    for grid in grids:
        with xr.open_dataset(grid / "result.nc") as ds:
            total += sum(float(ds[v].sum()) for v in TIMING_VARS if v in ds)
    assert resumed["cell_seconds"] == pytest.approx(total, abs=0.11)
    assert resumed["cell_seconds"] > 0
    page = (tmp_path / "liu2008.md").read_text()
    assert "wall time in 2 invocations (" in page
    assert "the cells' own times adding up to" in page
    # a rerun with every cell finished adds its own wall time to the whole run's
    run_study("liu2008", mode="ci", out=tmp_path, workers=1, progress=False, figures=False)
    again = _meta(tmp_path)
    assert again["invocations"][:2] == resumed["invocations"]
    assert len(again["invocations"]) == 3
    assert again["seconds"] >= resumed["seconds"]
    # a new run (no finished cell left) starts a new log
    for grid in grids:
        (grid / "cells.jsonl").write_text("")
    run_study("liu2008", mode="ci", out=tmp_path, workers=1, progress=False, figures=False)
    assert len(_meta(tmp_path)["invocations"]) == 1
