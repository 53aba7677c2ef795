"""An experiment on a user's own CSV file (``examples/own_csv.toml``, ``docs/own_data.md``):
the shipped example runs, and what treelab infers from the table (class column, nominal
columns, missing values, labels) is what an independent reading of the file says."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from treelab.datasets import load_table
from treelab.experiment import load_config, run

REPO = Path(__file__).resolve().parents[1]
TOML = REPO / "examples" / "own_csv.toml"


def _read_by_hand(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return list(rows[0]), rows


def test_the_example_names_a_table_under_data_and_its_class_column():
    config = load_config(TOML)
    (spec,) = config.datasets
    assert Path(spec.path) == REPO / "data" / "examples" / "patients.csv"
    assert spec.params == {"target": "outcome", "nominal": ["clinic"]}
    columns, _ = _read_by_hand(Path(spec.path))
    assert columns[-1] != "outcome"  # the default (the last column) would be wrong


def test_what_treelab_infers_from_the_table():
    path = REPO / "data" / "examples" / "patients.csv"
    columns, rows = _read_by_hand(path)
    data = load_table(path, target="outcome", nominal=["clinic"])
    features = [c for c in columns if c != "outcome"]
    assert list(data.feature_names) == features
    # text columns nominal on their own, clinic codes because they are named, numbers continuous
    types = dict(zip(data.feature_names, data.feature_types, strict=True))
    assert types == {"age": "continuous", "smoker": "nominal", "region": "nominal",
                     "clinic": "nominal", "blood_pressure": "continuous"}
    # an empty cell is missing, in a continuous column and in a nominal one
    for j, name in enumerate(features):
        empty = [i for i, r in enumerate(rows) if r[name] == ""]
        assert np.flatnonzero(np.isnan(data.X[:, j])).tolist() == empty, name
    assert sum(r["age"] == "" for r in rows) == 12 and sum(r["region"] == "" for r in rows) == 8
    # nominal codes follow the sorted values; labels are kept as text
    region = data.feature_names.index("region")
    levels = sorted({r["region"] for r in rows} - {""})
    codes = [levels.index(r["region"]) for r in rows if r["region"]]
    np.testing.assert_array_equal(data.X[~np.isnan(data.X[:, region]), region], codes)
    assert data.y.tolist() == [r["outcome"] for r in rows]
    # unnamed, the class column would be the last one, blood pressure, whose empty cells are
    # refused as missing labels
    with pytest.raises(ValueError, match="'blood_pressure' has 6 missing labels"):
        load_table(path)


def test_the_example_experiment_runs(tmp_path):
    config = load_config(TOML)
    result = run(config, out=tmp_path, backend="serial", progress=False)
    assert list(result.dataset.values) == ["patients"]
    assert list(result.ensemble.values) == ["Agg.", "Bag.", "RF"]
    assert dict(result.ensemble_error.sizes) == {"dataset": 1, "ensemble": 3, "alpha": 4,
                                                 "repeat": 1, "fold": 5}
    err = result.ensemble_error.sel(dataset="patients").mean(["repeat", "fold"])
    swept = err.sel(ensemble=["Agg.", "Bag."], alpha=[0.0, 0.5, 1.0])
    assert bool(np.isfinite(swept).all())
    # better than always answering the larger class (88 of 160 rows are "ill")
    assert float(err.sel(ensemble="Bag.", alpha=1.0)) < 72 / 160
