"""The command line: treelab run / list-data / demo, and python -m treelab.

The demo's summary table is checked against direct fits of three of its cells (same folds,
same documented estimator seeds, no runner). Mutation tried: ``experiment.summary`` taking the
maximum over folds instead of the mean: ``test_demo_small_and_resumable`` fails (0.0787 shown
against 0.0730 fitted directly for wine, Agg., alpha = 0.5).
"""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from treelab.cli import main

REPO = Path(__file__).resolve().parents[1]

CONFIG = """
name = "cli test"
seed = 3
alphas = [0.0, 1.0]

[protocol]
name = "stratified_kfold"
n_splits = 2

[[datasets]]
builtin = "wine"

[[ensembles]]
name = "Agg."
estimator = "VRTrees"
params = { n_estimators = 4 }
"""


def test_run_writes_result_and_resumes(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text(CONFIG)
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--backend", "serial",
                 "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert str((out / "result.nc").resolve()) in printed and "alpha=0" in printed
    ds = xr.open_dataset(out / "result.nc")
    assert ds.sizes["alpha"] == 2 and ds.sizes["fold"] == 2
    lines = (out / "cells.jsonl").read_bytes()
    assert main(["run", str(path), "--out", str(out), "--no-progress"]) == 0
    assert (out / "cells.jsonl").read_bytes() == lines


def test_run_reports_configuration_errors(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(CONFIG.replace('estimator = "VRTrees"', 'estimator = "Nope"'))
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "Nope" in capsys.readouterr().err
    good = tmp_path / "good.toml"
    good.write_text(CONFIG)
    assert main(["run", str(good)]) == 2  # no out folder anywhere
    assert "--out" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["demo", "--trees", "0"], "--trees must be at least 1, got 0"),
    (["demo", "--folds", "1"], "--folds must be at least 2, got 1"),
    (["demo", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["demo", "--scheduler", "tcp://127.0.0.1:9", "--backend", "serial"],
     "--scheduler runs the cells on a dask scheduler; it cannot go with --backend serial"),
    (["run", "CONFIG", "--workers", "0"], "--workers must be at least 1, got 0"),
    (["run", "CONFIG", "--scheduler", "tcp://127.0.0.1:9", "--backend", "serial"],
     "--scheduler runs the cells on a dask scheduler; it cannot go with --backend serial"),
])
def test_options_out_of_range_or_in_conflict_are_refused_by_their_name(argv, message, tmp_path,
                                                                       capsys):
    """Refused before any work, naming the option typed: ``--folds 1`` was refused as
    "n_splits must be >= 2", ``--trees 0`` as "ensembles['Agg.'].params: n_estimators ...",
    and ``run --scheduler ADDR --backend serial`` ran serially without a word (the demo took
    the scheduler instead)."""
    path = tmp_path / "exp.toml"
    path.write_text(CONFIG)
    out = tmp_path / "out"
    argv = [str(path) if a == "CONFIG" else a for a in argv] + ["--out", str(out),
                                                               "--no-progress"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_list_data_shows_the_bundle_with_rows_features_classes_and_licence(capsys,
                                                                         monkeypatch):
    monkeypatch.delenv("TREELAB_DATA", raising=False)
    assert main(["list-data"]) == 0
    printed = capsys.readouterr().out
    assert "tictactoe" in printed and "not found" not in printed
    row = next(line for line in printed.splitlines() if line.startswith("heart-statlog "))
    assert row.split()[1:3] == ["270", "13"] and "CC BY 4.0 (UCI)" in row
    header = next(line for line in printed.splitlines() if "n_samples" in line)
    assert "n_classes" in header and "licence" in header


def test_list_data_names_a_missing_bundle(tmp_path, capsys):
    assert main(["list-data", "--root", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "tictactoe" in printed and "wine" in printed and "not found" in printed


def test_demo_small_and_resumable(tmp_path, capsys):
    out = tmp_path / "demo"
    args = ["demo", "--out", str(out), "--trees", "3", "--folds", "2", "--datasets",
            "wine,vote", "--backend", "serial", "--no-progress"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "result.nc" in printed and "summary.csv" in printed
    ds = xr.open_dataset(out / "result.nc")
    assert ds.sizes["alpha"] == 11
    assert list(ds.ensemble.values) == ["Agg.", "Bag.", "Subspace"]
    assert list(ds.dataset.values) == ["wine", "vote"]
    figures = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert figures == ["spectrum.png", "strength_correlation_vote.png",
                       "strength_correlation_wine.png"]
    assert all((out / "figures" / f).stat().st_size > 10_000 for f in figures)
    lines = (out / "cells.jsonl").read_bytes()
    assert main(args) == 0
    assert (out / "cells.jsonl").read_bytes() == lines
    # the summary table users read: cells against direct fits of the same rows and seeds
    table = pd.read_csv(out / "summary.csv", index_col=[0, 1])
    assert table.shape == (6, 11)
    for dataset, ensemble, alpha in [("wine", "Agg.", 0.5), ("vote", "Bag.", 0.0),
                                     ("wine", "Subspace", 1.0)]:
        assert table.loc[(dataset, ensemble), f"alpha={alpha:g}"] == pytest.approx(
            direct_demo_error(dataset, ensemble, alpha, n_trees=3, n_folds=2), abs=1e-12)
    assert f"{table.loc[('wine', 'Agg.'), 'alpha=0.5']:.3f}" in printed


def _seed(*parts):
    """The documented seed derivation (SHA-256 of the canonical JSON of the parts), rewritten."""
    text = json.dumps(list(parts), sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def direct_demo_error(dataset, ensemble, alpha, *, n_trees, n_folds, seed=0):
    """Mean test error over the folds of one demo cell, fitted here without the runner:
    the stratified folds of the root seed, the estimator seeded from (seed, data set,
    ensemble, repeat, fold) as the runner documents, nominal columns from the bundle."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    import treelab
    from treelab.datasets import load_uci

    data = load_uci(dataset)
    sampling = {"Agg.": {"sampling": "none"}, "Bag.": {"sampling": "bootstrap"},
                "Subspace": {"sampling": "subspace", "subspace_fraction": 0.5}}[ensemble]
    folds = RepeatedStratifiedKFold(n_splits=n_folds, n_repeats=1, random_state=seed)
    errors = []
    for fold, (tr, te) in enumerate(folds.split(np.zeros((len(data.y), 1)), data.y)):
        model = treelab.VRTrees(
            n_estimators=n_trees, alpha=alpha, **sampling,
            categorical_features=data.categorical_features if data.categorical_features.any()
            else None, random_state=_seed(seed, "estimator", dataset, [], ensemble, 0, fold))
        model.fit(data.X[tr], data.y[tr])
        errors.append(np.mean(model.predict(data.X[te]) != data.y[te]))
    return float(np.mean(errors))


def test_python_dash_m():
    done = subprocess.run([sys.executable, "-m", "treelab", "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert "demo" in done.stdout and "list-data" in done.stdout
