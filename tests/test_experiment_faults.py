"""The runner under faults and bad input: clashing measure dims, a damaged cell file, every
cell failing, a full disk or read-only folder, data too small for the folds, a killed worker."""

import errno
import json
import logging
import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from test_experiment import small_config, strip

import treelab
from treelab import datasets as D
from treelab.analysis import topk_error
from treelab.cli import main
from treelab.experiment import CellStore, ExperimentError, cell_seed, expand, run, status
from treelab.experiment.backends import WORKER_DIED
from treelab.experiment.data import _drop_small_classes, train_test
from treelab.protocols import StratifiedKFold


def wine_config(out, **changes):
    spec = dict(out=str(out), datasets=[{"name": "wine", "builtin": "wine"}],
                ensembles=[{"name": "Agg.", "estimator": "VRTrees",
                            "params": {"n_estimators": 5}}],
                alphas=[0.5])
    spec.update(changes)
    return small_config(**spec)


# ------------------------------------------------------------ measures sharing a dim name

@pytest.mark.parametrize("diagnose_k", [[1, 2, 3], [1, 2]])
def test_measures_sharing_a_dim_name_keep_their_own_coordinates(tmp_path, diagnose_k):
    config = wine_config(tmp_path / "o", measures={"diagnose": {"k": diagnose_k},
                                                   "topk_error": {"k": [3, 2, 1]}})
    ds = run(config, progress=False)
    assert (tmp_path / "o" / "result.nc").is_file()
    # the first measure keeps the name, the later one gets its own
    assert ds["k"].values.tolist() == diagnose_k
    assert ds["topk_error_k"].values.tolist() == [3, 2, 1]
    assert ds["topk_error_topk_error"].dims[-1] == "topk_error_k"
    # the same fold by hand: the same rows, the same estimator seed
    wine = D.load_builtin("wine")
    split = StratifiedKFold(3, random_state=1).get(wine, 0, 2)
    seed = cell_seed(1, "estimator", "wine", [], "Agg.", 0, 2)
    est = treelab.VRTrees(n_estimators=5, alpha=0.5, random_state=seed).fit(split.train.X,
                                                                          split.train.y)
    direct = topk_error(est.predict_proba(split.test.X), split.test.y, k=[1, 2, 3],
                        classes=est.classes_)
    cell = dict(dataset="wine", ensemble="Agg.", alpha=0.5, repeat=0, fold=2)
    for k in (1, 2, 3):
        got = ds["topk_error_topk_error"].sel(**cell, topk_error_k=k).item()
        assert got == pytest.approx(direct.sel(k=k).item(), abs=1e-12), k
    for k in diagnose_k:
        got = ds["topk_error"].sel(**cell, k=k).item()
        assert got == pytest.approx(direct.sel(k=k).item(), abs=1e-12), k
    # top-1 error is the plain error: a check that does not go through topk_error at all
    plain = np.mean(est.predict(split.test.X) != split.test.y)
    assert ds["topk_error_topk_error"].sel(**cell, topk_error_k=1).item() == \
        pytest.approx(plain, abs=1e-12)


# ---------------------------------------------------------------- a damaged cell file

def test_malformed_lines_are_skipped_and_reported(tmp_path, caplog):
    config = wine_config(tmp_path / "o")
    first = run(config, progress=False)
    cells_file = tmp_path / "o" / "cells.jsonl"
    with cells_file.open("a") as fh:
        fh.write('[1, 2]\n{"foo": 1}\n"text"\nnot json\n{"key": "x", "vars": [1]}\n')
    with caplog.at_level(logging.WARNING, logger="treelab.experiment"):
        again = run(config, progress=False)
    xr.testing.assert_identical(first, again)
    assert "5 lines skipped" in caplog.text and "line 4: not a cell record" in caplog.text
    assert status(config)["done"] == 3


def _rewrite(path, number, change):
    lines = path.read_text().splitlines(keepends=True)
    rec = json.loads(lines[number])
    change(rec)
    lines[number] = json.dumps(rec, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))


def test_tampered_record_is_computed_again(tmp_path, caplog):
    config = wine_config(tmp_path / "o")
    first = run(config, progress=False)
    cells_file = tmp_path / "o" / "cells.jsonl"
    rec = json.loads(cells_file.read_text().splitlines()[1])
    assert len(rec["digest"]) == 64

    def tamper(rec):
        rec["vars"]["ensemble_error"]["data"] = 0.987

    _rewrite(cells_file, 1, tamper)
    # a record written again in another layout fails its digest as well
    _rewrite(cells_file, 2, lambda rec: None)
    lines = cells_file.read_text().splitlines(keepends=True)
    lines[2] = json.dumps(json.loads(lines[2]), indent=1).replace("\n", "") + "\n"
    cells_file.write_text("".join(lines))
    store = CellStore(tmp_path / "o")
    assert len(store.records()) == 1
    third = json.loads(lines[2])["key"]
    assert store.rejected == [
        (2, "digest mismatch (the record was changed after it was written)", rec["key"]),
        (3, "digest mismatch (the record was changed after it was written)", third)]
    with caplog.at_level(logging.WARNING, logger="treelab.experiment"):
        again = run(config, progress=False)
    assert "2 lines skipped, their cells are computed again: line 2: digest mismatch" \
        in caplog.text
    caplog.clear()  # the next run finds the cell computed again: nothing left to warn about
    with caplog.at_level(logging.WARNING, logger="treelab.experiment"):
        run(config, progress=False)
    assert "skipped" not in caplog.text
    assert cells_file.read_text().count("\n") == 5  # the two cells were computed again
    xr.testing.assert_identical(strip(first), strip(again))
    assert not np.any(again.ensemble_error.values == 0.987)


def test_record_without_digest_from_an_older_version_is_computed_again(tmp_path):
    config = wine_config(tmp_path / "o")
    first = run(config, progress=False)
    cells_file = tmp_path / "o" / "cells.jsonl"
    _rewrite(cells_file, 0, lambda rec: rec.pop("digest"))
    assert status(config)["done"] == 2  # readable, but not trusted
    again = run(config, progress=False)
    assert cells_file.read_text().count("\n") == 4
    xr.testing.assert_identical(strip(first), strip(again))
    assert status(config)["done"] == 3


# ------------------------------------------------------------------ every cell failing

def test_every_cell_failing_says_so_and_writes_no_result(tmp_path, capsys):
    ensembles = [{"name": "bad", "estimator": "helpers_faults:FailingClassifier"}]
    config = wine_config(tmp_path / "o", ensembles=ensembles, on_error="continue")
    with pytest.raises(ExperimentError, match=r"every cell failed \(3 of 3\)") as info:
        run(config, progress=False)
    assert "RuntimeError: this estimator always fails" in str(info.value)
    folder = tmp_path / "o"
    assert not (folder / "result.nc").exists() and not (folder / "summary.csv").exists()
    assert len(CellStore(folder).errors()) == 3
    # the command line: exit status 1 and the same message
    toml = tmp_path / "bad.toml"
    toml.write_text('on_error = "continue"\nout = "cli"\n[protocol]\nname = "stratified_kfold"\n'
                    'n_splits = 3\n[[datasets]]\nbuiltin = "wine"\n[[ensembles]]\n'
                    'estimator = "helpers_faults:FailingClassifier"\n')
    assert main(["run", str(toml), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "every cell failed (3 of 3)" in err and "always fails" in err
    assert not (tmp_path / "cli" / "result.nc").exists()


# ------------------------------------------------------- full disk, read-only folder

def test_full_disk_gives_a_clear_message_and_leaves_no_partial_result(tmp_path, monkeypatch,
                                                                      capsys):
    config = wine_config(tmp_path / "o")

    def full_disk(self, path, *args, **kwargs):
        with open(path, "wb") as fh:
            fh.write(b"CDF\x01 partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(xr.Dataset, "to_netcdf", full_disk)
    with pytest.raises(ExperimentError, match="result.nc .*disk is full"):
        run(config, progress=False)
    names = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert names == ["cells.jsonl", "config.json"]  # the cell phase ended cleanly
    # the command line: exit status 1, the message on stderr
    toml = tmp_path / "c.toml"
    toml.write_text('out = "o"\nalphas = [0.5]\nseed = 1\n[protocol]\nname = "stratified_kfold"'
                    '\nn_splits = 3\n[[datasets]]\nname = "wine"\nbuiltin = "wine"\n'
                    '[[ensembles]]\nname = "Agg."\nestimator = "VRTrees"\n'
                    '[ensembles.params]\nn_estimators = 5\n')
    assert main(["run", str(toml), "--no-progress"]) == 1
    assert "disk is full" in capsys.readouterr().err
    assert not (tmp_path / "o" / "result.nc.tmp").exists()
    monkeypatch.undo()
    assert status(config)["done"] == 3  # the finished cells are kept
    run(config, progress=False)
    assert (tmp_path / "o" / "result.nc").is_file()


def test_full_disk_while_appending_a_cell_stops_cleanly_and_resumes(tmp_path, monkeypatch):
    config = wine_config(tmp_path / "o")
    real_write, calls = CellStore.write, []

    def write(self, record):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(self, record)

    monkeypatch.setattr(CellStore, "write", write)
    with pytest.raises(ExperimentError, match="cannot append .*disk is full"):
        run(config, progress=False)
    monkeypatch.undo()
    assert status(config)["done"] == 1
    assert not (tmp_path / "o" / "result.nc").exists()
    run(config, progress=False)
    assert status(config)["done"] == 3


def test_read_only_folder_gives_a_clear_message(tmp_path, monkeypatch):
    def read_only(self):
        raise OSError(errno.EROFS, "Read-only file system", str(self.folder / ".lock"))

    monkeypatch.setattr(CellStore, "open", read_only)
    with pytest.raises(ExperimentError, match="output folder .*read-only"):
        run(wine_config(tmp_path / "o"), progress=False)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes to read-only folders")
def test_read_only_folder_by_permissions(tmp_path):
    folder = tmp_path / "o"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ExperimentError, match="read-only"):
            run(wine_config(folder), progress=False)
        assert not list(folder.iterdir())
    finally:
        folder.chmod(0o755)


# ----------------------------------------------------------- data too small for the folds

def _table(path, counts):
    rng = np.random.default_rng(0)
    rows = ["x1,x2,y"]
    for label, n in counts.items():
        rows += [f"{rng.normal():.3f},{rng.normal():.3f},{label}" for _ in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize(("counts", "protocol", "message"), [
    ({"a": 4, "b": 4}, {"name": "stratified_kfold", "n_splits": 10},
     r"datasets\['tiny'\]: 8 rows cannot make the 10 folds"),
    ({"a": 3, "b": 3, "c": 4}, {"name": "stratified_kfold", "n_splits": 5},
     r"datasets\['tiny'\]: every class has fewer rows"),
    ({"a": 3, "b": 3, "c": 3}, {"name": "holdout", "n_repeats": 2, "test_size": 2},
     r"datasets\['tiny'\]: protocol 'holdout' cannot split its 9 rows .*test_size"),
    ({"a": 5, "b": 5}, {"name": "bias_variance", "n_sets": 2, "n_train": 50, "n_test": 0.3},
     r"datasets\['tiny'\]: protocol 'bias_variance' cannot split .*n_train=50"),
])
def test_data_too_small_for_the_protocol_is_refused_before_any_cell(tmp_path, counts, protocol,
                                                                    message):
    path = _table(tmp_path / "tiny.csv", counts)
    config = wine_config(tmp_path / "o", datasets=[{"name": "tiny", "path": path}],
                         protocol=protocol)
    with pytest.raises(ValueError, match=message):
        run(config, progress=False)
    assert not (tmp_path / "o").exists()  # refused before anything was written
    # the command line reports it as a configuration error
    toml = tmp_path / "tiny.toml"
    table = "".join(f"{k} = {json.dumps(v)}\n" for k, v in protocol.items())
    toml.write_text(f'out = "cli"\n[protocol]\n{table}[[datasets]]\nname = "tiny"\n'
                    f'path = "{path}"\n[[ensembles]]\nestimator = "RandomForest"\n')
    assert main(["run", str(toml), "--no-progress"]) == 2
    assert not (tmp_path / "cli").exists()


def test_class_smaller_than_the_folds_is_named_in_a_warning(tmp_path):
    path = _table(tmp_path / "small.csv", {"a": 30, "b": 30, "c": 3})
    config = wine_config(tmp_path / "o", datasets=[{"name": "small", "path": path}],
                         protocol={"name": "stratified_kfold", "n_splits": 10})
    with pytest.warns(UserWarning, match=r"datasets\['small'\]: classes \{'c': 3\}"):
        expand(config)
    toml_like = config.replace(datasets=[{"name": "small", "path": path,
                                          "min_class_size": 10}])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(expand(toml_like)) == 10


def test_dropped_small_classes_are_gone_from_the_classes_class_noise_draws(tmp_path):
    # 30 + 30 + 3 rows, classes under 10 rows dropped: the data set has two classes, so
    # class noise at rate 1 turns every a into b and every b into a, never into c
    path = _table(tmp_path / "small.csv", {"a": 30, "b": 30, "c": 3})
    config = wine_config(tmp_path / "o", datasets=[{"name": "small", "path": path,
                                                    "min_class_size": 10}],
                         protocol={"name": "stratified_kfold", "n_splits": 3},
                         transforms=[{"kind": "class_noise", "values": [1.0]}])
    for cell in expand(config):
        clean = train_test({**cell.spec, "transforms": []})[0]
        train, test = train_test(cell.spec)
        assert train.classes.tolist() == test.classes.tolist() == ["a", "b"]
        np.testing.assert_array_equal(train.y, np.where(clean.y == "a", "b", "a"))
    # a generator's true probabilities are conditioned on the kept classes
    data = D.led(60, random_state=0)
    counts = np.bincount(data.y, minlength=10)
    kept = np.flatnonzero(counts >= 7)
    rows = _drop_small_classes(data, 7)
    assert rows.classes.tolist() == kept.tolist() and set(rows.y) <= set(kept)
    p = data.true_proba[np.isin(data.y, kept)][:, kept]
    np.testing.assert_allclose(rows.true_proba, p / p.sum(axis=1, keepdims=True))


# ------------------------------------------------------------------- a killed worker

def test_killed_worker_is_recorded_and_the_run_goes_on(tmp_path):
    ok = {"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 3}}
    killer = {"name": "killer", "estimator": "helpers_faults:KillingClassifier"}
    # the killer first: the cells after it are submitted to a pool that broke
    config = wine_config(tmp_path / "o", ensembles=[killer, ok], on_error="continue")
    ds = run(config, backend="local", n_workers=2, progress=False)
    # exactly the cells that kill their worker failed, with the reason
    assert ds.attrs["failed_cells"] == 3
    errors = CellStore(tmp_path / "o").errors()
    assert sorted(e["cell"]["ensemble"] for e in errors) == ["killer"] * 3
    assert all(e["error"] == WORKER_DIED for e in errors)
    assert np.all(np.isnan(ds.ensemble_error.sel(ensemble="killer")))
    # the other cells finished, with the values an undisturbed run gives
    alone = run(wine_config(tmp_path / "alone", ensembles=[ok]), progress=False)
    for var in ("ensemble_error", "phi_e", "strength"):
        np.testing.assert_array_equal(ds[var].sel(ensemble="Agg.", alpha=0.5).values,
                                      alone[var].sel(ensemble="Agg.", alpha=0.5).values)
    assert not math.isnan(float(ds.ensemble_error.sel(ensemble="Agg.", alpha=0.5).mean()))


# ------------------------------------------------------------ a summary of failed cells

@pytest.mark.parametrize("k, failed", [(119, 1), (500, 3)])
def test_summary_keeps_a_failed_mean_as_nan(tmp_path, k, failed):
    # k-nearest neighbours with k = 119 fails on the fold with 118 training rows: the summary
    # once showed the mean of the two folds that finished; with k = 500 it fails on every
    # fold of wine, and its row was left out of summary.csv, as if it had not been run
    ensembles = [{"name": "knn", "estimator": "sklearn.neighbors:KNeighborsClassifier",
                  "params": {"n_neighbors": k}},
                 {"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 5}}]
    config = wine_config(tmp_path / "o", ensembles=ensembles, on_error="continue")
    ds = run(config, progress=False)
    assert len(CellStore(tmp_path / "o").errors()) == failed
    table = pd.read_csv(tmp_path / "o" / "summary.csv", index_col=[0, 1])
    assert list(table.index) == [("wine", "knn"), ("wine", "Agg.")]  # its row is kept
    assert table.loc[("wine", "knn")].isna().all()
    # the complete row: the mean over its three folds, by hand from the Dataset
    agg = table.loc[("wine", "Agg."), "alpha=0.5"]
    assert agg == pytest.approx(float(ds.ensemble_error.sel(ensemble="Agg.", alpha=0.5)
                                      .mean()), abs=1e-12)
    if failed == 3:
        # over a measure's own dim (class) all-NaN rows are still left out: a class of one
        # data set is no class of another
        from treelab.experiment import summary

        classes = summary(ds, "class_error")
        assert [(e, c) for _, e, c in classes.index] == [("Agg.", 0), ("Agg.", 1),
                                                         ("Agg.", 2)]


def test_summary_of_leave_one_out_over_data_sets_of_other_sizes(tmp_path):
    # leave-one-out gives a data set of 12 rows folds 0-11 and one of 16 rows folds 0-15:
    # the smaller set has no cell at folds 12-15, which the summary took for failed cells
    # (NaN where the mean of its 12 folds is 0.75)
    datasets = [{"name": "a", "generator": "waveform", "n_samples": 12},
                {"name": "b", "generator": "waveform", "n_samples": 16}]
    ensembles = [{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 5}}]
    config = wine_config(tmp_path / "o", datasets=datasets, ensembles=ensembles,
                         protocol={"name": "loo"})
    ds = run(config, progress=False)
    assert ds.sizes["fold"] == 16
    table = pd.read_csv(tmp_path / "o" / "summary.csv", index_col=[0, 1])
    # the means by hand from the stored lines
    errors: dict[str, list[float]] = {"a": [], "b": []}
    for line in (tmp_path / "o" / "cells.jsonl").read_text().splitlines():
        record = json.loads(line)
        errors[record["cell"]["dataset"]].append(record["vars"]["ensemble_error"]["data"])
    assert [len(errors["a"]), len(errors["b"])] == [12, 16]
    for name, values in errors.items():
        assert table.loc[(name, "RF"), "alpha=nan"] == pytest.approx(np.mean(values),
                                                                     abs=1e-12), name
    # a result without the attribute (an older file): every fold position counts, as before
    older = ds.copy()
    del older.attrs["folds_per_dataset"]
    from treelab.experiment import summary

    assert summary(older)["alpha=nan"].isna().tolist() == [True, False]


def test_summary_of_a_measure_over_k_or_threshold_keeps_every_value():
    """summary(ds, "topk_error") showed the top-1 error alone, under an index without k, and
    "thresholded_mse" its first threshold alone; each k (threshold) is now a row of its own,
    the mean over the folds as pandas computes it from the same values."""
    from treelab.experiment import summary

    rng = np.random.default_rng(0)
    coords = {"dataset": ["wine"], "ensemble": ["Agg.", "Bag."], "alpha": [0.0, 1.0],
              "repeat": [0], "fold": [0, 1, 2], "k": [1, 2, 3],
              "threshold": ["1.0", "top1"]}
    base = ("dataset", "ensemble", "alpha", "repeat", "fold")
    shape = tuple(len(coords[d]) for d in base)
    ds = xr.Dataset({"topk_error": (base + ("k",), rng.random(shape + (3,))),
                     "thresholded_mse": (base + ("threshold",), rng.random(shape + (2,))),
                     "fit_time": (base, np.ones(shape))}, coords=coords)
    for var, dim in (("topk_error", "k"), ("thresholded_mse", "threshold")):
        table = summary(ds, var)
        frame = ds[var].to_dataframe()[var].reset_index()
        by_hand = frame.groupby(["dataset", "ensemble", dim, "alpha"])[var].mean().unstack(
            "alpha")
        by_hand.columns = ["alpha=0", "alpha=1"]
        assert table.index.names == ["dataset", "ensemble", dim]
        pd.testing.assert_frame_equal(table.sort_index(), by_hand.sort_index(),
                                      check_names=False, rtol=1e-12)


def test_summary_columns_of_close_alphas_keep_their_digits(tmp_path):
    config = wine_config(tmp_path / "o", alphas=[0.1, 0.1000001])
    run(config, progress=False)
    header = (tmp_path / "o" / "summary.csv").read_text().splitlines()[0]
    assert header.split(",")[2:] == ["alpha=0.1", "alpha=0.1000001"]


# ----------------------------------------------------- other rows under a data set's name

def _bundle(folder, flip_seed):
    """A UCI bundle whose sonar has a fifth of its labels flipped (the same schema)."""
    src = D.find_uci_root()
    folder.mkdir()
    entry = next(e for e in json.loads((src / "index.json").read_text())
                 if e["name"] == "sonar")
    frame = pd.read_csv(src / "sonar.tsv.gz", sep="\t")
    flip = np.random.default_rng(flip_seed).random(len(frame)) < 0.2
    frame.loc[flip, "target"] = 1 - frame.loc[flip, "target"]
    frame.to_csv(folder / "sonar.tsv.gz", sep="\t", index=False)
    entry = {k: v for k, v in entry.items() if k not in ("sha256", "class_counts")}
    (folder / "index.json").write_text(json.dumps([entry]))
    return str(folder)


def test_other_rows_under_a_data_sets_name_are_computed_again(tmp_path):
    # the stored cells of the shipped sonar answered for another bundle's sonar (the key
    # left the folder out), and so did the process's cache in a fresh folder
    def config(out, root=None):
        ds = {"name": "sonar", "uci": "sonar"} | ({"root": root} if root else {})
        return wine_config(out, datasets=[ds], alphas=[0.0])

    shipped = run(config(tmp_path / "o"), progress=False)
    mine = _bundle(tmp_path / "mine", 0)
    resumed = run(config(tmp_path / "o", mine), progress=False)
    assert (tmp_path / "o" / "cells.jsonl").read_text().count("\n") == 6  # three more
    fresh = run(config(tmp_path / "fresh", mine), progress=False)  # same process, new folder
    xr.testing.assert_identical(strip(resumed), strip(fresh))
    assert not np.array_equal(shipped.ensemble_error.values, fresh.ensemble_error.values)
    # every row of the flipped bundle is a test row once
    data = D.load_uci("sonar", root=mine)
    assert int(fresh.n_test.sum()) == data.n_samples
    # the shipped bundle's keys are as before (nothing of its rows in them)
    assert all("rows" not in c.spec for c in expand(config(tmp_path / "o")))


def test_a_rewritten_data_file_gets_a_single_model_of_its_own_rows(tmp_path):
    # the single model of the error ratio is shared by the cells of one process that fit on
    # the same rows; its key named the file, not its rows, so a run after the file was
    # rewritten (same path, same size) scored the single tree fitted on the old rows
    # (single_error 0.65 on fold 0 where the tree of the new rows gives 0.70)
    wine = D.load_builtin("wine")
    frame = pd.DataFrame(wine.X, columns=[f"x{j}" for j in range(wine.n_features)])
    path = tmp_path / "mine.csv"

    def write(labels):
        frame.assign(target=labels).to_csv(path, index=False)

    def config(out):
        return wine_config(out, datasets=[{"name": "mine", "path": str(path)}], alphas=[0.5])

    write(wine.y)
    run(config(tmp_path / "a"), progress=False)
    write(np.random.default_rng(3).permutation(wine.y))  # other labels, the same path
    ds = run(config(tmp_path / "b"), progress=False)
    data = D.load_table(path, name="mine")
    for fold in range(3):
        split = StratifiedKFold(3, random_state=1).get(data, 0, fold)
        tree = treelab.DecisionTree(random_state=0).fit(split.train.X, split.train.y)
        direct = np.mean(tree.predict(split.test.X) != split.test.y)
        got = ds.single_error.sel(dataset="mine", ensemble="Agg.", alpha=0.5, fold=fold)
        assert float(got.squeeze()) == pytest.approx(direct, abs=1e-12), fold
