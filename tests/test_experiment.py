"""The experiment runner: configuration, cells, seeds, store, resume and assembly."""

import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

import treelab
from treelab import datasets as D
from treelab.experiment import (
    TIMING_VARS,
    CellStore,
    ExperimentConfig,
    ExperimentError,
    StoreLockedError,
    cell_seed,
    expand,
    load_config,
    run,
    status,
    summary,
)
from treelab.experiment.data import train_test
from treelab.protocols import StratifiedKFold

REPO = Path(__file__).resolve().parents[1]


def small_config(**changes):
    spec = dict(
        name="small",
        datasets=[{"name": "wave", "generator": "waveform", "n_samples": 90},
                  {"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 5}},
                   {"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 5}}],
        alphas=[0.0, 1.0],
        protocol={"name": "stratified_kfold", "n_splits": 3},
        seed=1,
        backend="serial",
    )
    spec.update(changes)
    return ExperimentConfig(**spec)


def strip(ds):
    return ds.drop_vars([v for v in TIMING_VARS if v in ds])


# ---------------------------------------------------------------------------- configuration

@pytest.mark.parametrize(
    ("changes", "exc", "word"),
    [
        ({"ensembles": [{"estimator": "NoSuchTrees"}]}, ValueError, "NoSuchTrees"),
        ({"ensembles": [{"estimator": "VRTrees", "params": {"depth": 3}}]}, ValueError, "depth"),
        ({"ensembles": [{"estimator": "VRTrees", "params": {"random_state": 3}}]}, ValueError,
         "random_state"),
        ({"ensembles": [{"estimator": "RandomForest", "alphas": [0.5]}]}, ValueError, "alpha"),
        ({"ensembles": [{"estimator": "VRTrees"}, {"estimator": "VRTrees"}]}, ValueError,
         "twice"),
        ({"datasets": [{"generator": "nope"}]}, ValueError, "generator"),
        ({"datasets": [{"generator": "led", "params": {"random_state": 1}}]}, ValueError,
         "random_state"),
        ({"datasets": [{"generator": "led", "uci": "iris"}]}, ValueError, "exactly one"),
        ({"datasets": [{"generator": "led", "params": {"colour": 1}}]}, ValueError, "colour"),
        ({"datasets": []}, ValueError, "datasets"),
        ({"alphas": [0.5, 2.0]}, ValueError, "alphas"),
        ({"backend": "gpu"}, ValueError, "backend"),
        ({"seed": -1}, TypeError, "seed"),
        ({"seed": 2**32}, ValueError, "seed"),
        ({"ensembles": [{"name": "RF", "estimator": "RandomForest",
                         "params": {"n_estimators": "5"}}]}, TypeError,
         r"ensembles\['RF'\].params: n_estimators"),
        ({"ensembles": [{"name": "RF", "estimator": "RandomForest",
                         "params": {"n_estimators": 0}}]}, ValueError,
         r"ensembles\['RF'\].params: n_estimators"),
        ({"ensembles": [{"name": "sk", "estimator": "sklearn.ensemble:RandomForestClassifier",
                         "params": {"n_estimators": 0}}]}, ValueError,
         r"ensembles\['sk'\].params: .*n_estimators"),
        ({"ensembles": [{"estimator": "VRTrees", "single": {
            "estimator": "DecisionTree", "params": {"min_samples_leaf": 0}}}]}, ValueError,
         "single.params: min_samples_leaf"),
        ({"datasets": [{"name": "gone", "path": "/no/such/file.csv"}]}, ValueError,
         r"datasets\['gone'\].path: no such file"),
        ({"measures": ["not_a_measure"]}, ValueError, "not_a_measure"),
        ({"measures": ["bias_variance"]}, ValueError, "bias_variance"),
        ({"measures": {"diagnose": {"colour": 1}}}, ValueError, "colour"),
        ({"transforms": [{"kind": "class_noise", "values": [1.5]}]}, ValueError, "values"),
        ({"transforms": [{"kind": "blur", "values": [1]}]}, ValueError, "kind"),
        ({"protocol": {"name": "bootstrap"}}, ValueError, "protocol"),
        ({"protocol": {"name": "draws"}}, ValueError, "draws"),
        ({"on_error": "ignore"}, ValueError, "on_error"),
        ({"datasets": [{"uci": "no-such-set", "root": str(REPO)}]}, FileNotFoundError,
         "TREELAB_DATA"),
    ],
)
def test_bad_configuration_is_refused_before_any_work(changes, exc, word):
    with pytest.raises(exc, match=word):
        small_config(**changes)


def test_from_dict_rejects_unknown_keys():
    with pytest.raises(ValueError, match="colour"):
        ExperimentConfig.from_dict({"datasets": [{"builtin": "wine"}],
                                    "ensembles": [{"estimator": "VRTrees"}], "colour": 1})
    with pytest.raises(ValueError, match="ensembles"):
        ExperimentConfig.from_dict({"datasets": [{"builtin": "wine"}]})


# any warning that escaped the test would reach the user's test output: an error instead
@pytest.mark.filterwarnings("error")
def test_toml_examples_load_and_roundtrip(tmp_path):
    import warnings

    small = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for path in sorted((REPO / "examples").glob("*.toml")):
            config = load_config(path)
            again = ExperimentConfig.from_dict(config.to_dict())
            assert again.identity() == config.identity()
            assert [c.key for c in expand(again)] == [c.key for c in expand(config)]
            # the UCI studies keep classes smaller than their folds, as the papers did
            folds = config.protocol.get("n_splits") or 0
            for spec in config.datasets:
                if spec.uci and spec.min_class_size is None:
                    _, counts = np.unique(np.asarray(D.load_uci(spec.uci).y),
                                          return_counts=True)
                    if (counts < folds).any():
                        small.add(spec.uci)
    # expanding warns once for each such set, naming it, and about nothing else (the warnings
    # are the examples' expected ones, checked here instead of printed with the test results)
    warned = {m.group(1) for w in caught
              if (m := re.match(r"datasets\['([\w-]+)'\]: classes .* have fewer rows than the "
                                r"\d+ folds", str(w.message)))}
    assert warned == small and len(small) >= 5
    assert all(issubclass(w.category, UserWarning) for w in caught)
    assert len({str(w.message) for w in caught}) == len(small)
    quick = load_config(REPO / "examples" / "quick.toml")
    assert Path(quick.out).is_absolute() and quick.backend == "local"
    assert quick.alphas == (0.0, 0.25, 0.5, 0.75, 1.0)


# ------------------------------------------------------------------------------ cells

def test_heaviest_cells_start_first_and_order_changes_no_result(tmp_path, monkeypatch):
    R = sys.modules["treelab.experiment.run"]  # the module (the package exports run())

    config = small_config(datasets=[{"name": "iris", "builtin": "iris"},
                                    {"name": "wine", "builtin": "wine"}],
                          ensembles=[{"name": "Agg.", "estimator": "VRTrees",
                                      "params": {"n_estimators": 3}}])
    cells = expand(config)
    # rows x features x trees: wine (178 x 13) before iris (150 x 4), each in grid order
    assert {c.coords["dataset"]: c.weight for c in cells} == {"iris": 150 * 4 * 3,
                                                             "wine": 178 * 13 * 3}
    seen = []
    real = R.execute

    def spy(todo, **kw):
        seen.extend(c.key for c in todo)
        return real(todo, **kw)

    monkeypatch.setattr(R, "execute", spy)
    result = run(config, out=tmp_path / "a", progress=False)
    by_key = {c.key: c for c in cells}
    assert [by_key[k].coords["dataset"] for k in seen] == ["wine"] * 6 + ["iris"] * 6
    assert [by_key[k].index for k in seen] == sorted(by_key[k].index for k in seen[:6]) + \
        sorted(by_key[k].index for k in seen[6:])
    monkeypatch.setattr(R, "execute", real)
    # the same cells in grid order (one data set at a time) give the same Dataset
    parts = [run(config.replace(datasets=[d]), out=tmp_path / d["name"], progress=False)
             for d in config.to_dict()["datasets"]]
    xr.testing.assert_equal(strip(result.sel(dataset="iris")),
                            strip(parts[0].sel(dataset="iris")))
    xr.testing.assert_equal(strip(result.sel(dataset="wine")),
                            strip(parts[1].sel(dataset="wine")))


def test_expand_grid_keys_and_seeds():
    config = small_config(transforms=[{"kind": "class_noise", "values": [0.0, 0.2]}])
    cells = expand(config)
    # wave, wine x (Agg. at 2 alphas + RF at NaN) x 2 noise x 3 folds
    assert len(cells) == 2 * 3 * 2 * 3
    assert len({c.key for c in cells}) == len(cells)
    rf = [c for c in cells if c.coords["ensemble"] == "RF"]
    assert all(math.isnan(c.coords["alpha"]) for c in rf)
    # where and how a run happens does not change which cells it is made of
    moved = config.replace(out="/elsewhere", backend="local", n_workers=2, name="other")
    assert [c.key for c in expand(moved)] == [c.key for c in cells]
    assert expand(config.replace(seed=2))[0].key != cells[0].key
    assert cell_seed(1, "a", [0.1]) == cell_seed(1, "a", [0.1]) != cell_seed(1, "a", [0.2])


def test_class_noise_touches_training_rows_only():
    config = small_config(transforms=[{"kind": "class_noise", "values": [0.4]}],
                          datasets=[{"name": "wave", "generator": "waveform",
                                     "n_samples": 600}])
    cell = expand(config)[0]
    train, test = train_test(cell.spec)
    clean_cell = expand(config.replace(transforms=[]))[0]
    clean_train, clean_test = train_test(clean_cell.spec)
    np.testing.assert_array_equal(test.y, clean_test.y)
    np.testing.assert_array_equal(train.X, clean_train.X)
    assert np.mean(train.y != clean_train.y) == pytest.approx(0.4, abs=0.07)


def test_ensemble_error_matches_a_direct_fit(tmp_path):
    config = small_config(out=str(tmp_path / "out"))
    ds = run(config, progress=False)
    assert list(ds.ensemble_error.dims) == ["dataset", "ensemble", "alpha", "repeat", "fold"]
    assert ds.alpha.values[:2].tolist() == [0.0, 1.0] and math.isnan(ds.alpha.values[-1])
    assert np.all(np.isnan(ds.ensemble_error.sel(ensemble="RF").isel(alpha=slice(0, 2))))
    assert not np.any(np.isnan(ds.ensemble_error.sel(ensemble="RF", alpha=float("nan"))))
    for name in ("mean_member_error", "single_error", "error_ratio", "phi_e", "phi_star",
                 "strength", "correlation", "breiman_bound", "mean_g", "mean_n_nodes",
                 "mean_depth", "mean_random_share", "fit_time", "predict_time"):
        assert name in ds, name
    assert set(ds.thresholded_mse.dims) >= {"threshold"} and set(ds.topk_error.dims) >= {"k"}
    # refit one cell by hand: the same folds, the same estimator seed
    wine = D.load_builtin("wine")
    proto = StratifiedKFold(3, random_state=1)
    split = proto.get(wine, 0, 2)
    seed = cell_seed(1, "estimator", "wine", [], "Agg.", 0, 2)
    est = treelab.VRTrees(n_estimators=5, alpha=1.0, random_state=seed).fit(split.train.X,
                                                                          split.train.y)
    direct = np.mean(est.predict(split.test.X) != split.test.y)
    assert ds.ensemble_error.sel(dataset="wine", ensemble="Agg.", alpha=1.0, fold=2).item() \
        == pytest.approx(direct, abs=1e-12)
    assert ds.n_test.sel(dataset="wine", fold=2).max() == split.test.n_samples
    # random share: 0 at alpha = 1, 1 at alpha = 0
    agg = ds.mean_random_share.sel(ensemble="Agg.")
    assert float(agg.sel(alpha=1.0).max()) == 0.0 and float(agg.sel(alpha=0.0).min()) == 1.0
    # written to disk as netCDF, with a summary table
    back = xr.open_dataset(tmp_path / "out" / "result.nc")
    xr.testing.assert_identical(back.load(), ds)
    table = summary(ds)
    assert table.shape == (4, 3) and list(table.columns) == ["alpha=0", "alpha=1", "alpha=nan"]


def test_single_model_is_fitted_once_per_ensemble_and_fold(monkeypatch):
    from treelab.experiment import cells as C

    config = small_config(datasets=[{"name": "wine", "builtin": "wine"}],
                          ensembles=[{"name": "Agg.", "estimator": "VRTrees",
                                      "params": {"n_estimators": 5}}],
                          alphas=[0.0, 0.5, 1.0])
    # three alphas of fold 1, then fold 0 (other training rows: another single model)
    todo = [c for c in expand(config) if c.coords["fold"] == 1]
    todo += [c for c in expand(config) if c.coords["fold"] == 0][:1]
    assert len(todo) == 4
    fits, predicts = [], []
    real_fit = treelab.DecisionTree.fit
    monkeypatch.setattr(treelab.DecisionTree, "fit",
                        lambda self, X, y: fits.append(1) or real_fit(self, X, y))
    real_predict = treelab.DecisionTree.predict
    monkeypatch.setattr(treelab.DecisionTree, "predict",
                        lambda self, X: predicts.append(1) or real_predict(self, X))

    def without_timing(record):  # as JSON text, where NaN equals NaN
        return json.loads(json.dumps({**record, "vars": {
            k: v for k, v in record["vars"].items() if k not in TIMING_VARS}}))

    alone = []
    for cell in todo:  # each cell fits its own single model
        C._SINGLES.items.clear()
        alone.append(without_timing(C.run_cell(cell.spec)))
    assert len(fits) == 4 and len(predicts) == 4
    C._SINGLES.items.clear()
    shared = [without_timing(C.run_cell(cell.spec)) for cell in todo]
    assert len(fits) == 6  # one fit serves the three alphas of fold 1
    assert len(predicts) == 6  # and one prediction of its test rows
    assert json.dumps(shared, sort_keys=True) == json.dumps(alone, sort_keys=True)
    # the single error is the error of C4.5 fitted on the cell's training rows
    wine = D.load_builtin("wine")
    split = StratifiedKFold(3, random_state=1).get(wine, 0, 1)
    tree = treelab.DecisionTree(random_state=0).fit(split.train.X, split.train.y)
    direct = np.mean(tree.predict(split.test.X) != split.test.y)
    assert shared[1]["vars"]["single_error"]["data"] == pytest.approx(direct, abs=1e-12)


def test_a_shared_single_model_predicts_rows_once_and_replays_its_warnings():
    import warnings

    from treelab.experiment import cells as C

    class Warns:
        calls = 0

        def predict(self, X):
            Warns.calls += 1
            warnings.warn(f"rows seen: {len(X)}", UserWarning, stacklevel=1)
            return (np.asarray(X)[:, 0] > 0).astype(int)

    model = Warns()
    C._predict_once(model)
    rng = np.random.default_rng(0)
    X, other = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    answers = []
    for rows in (X, X.copy(), other, X):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            answers.append(model.predict(rows))
        assert [str(w.message) for w in caught] == ["rows seen: 30"]  # replayed each time
    assert Warns.calls == 2  # X (twice, and a copy of it), then the other rows
    np.testing.assert_array_equal(answers[0], (X[:, 0] > 0).astype(int))
    np.testing.assert_array_equal(answers[2], (other[:, 0] > 0).astype(int))
    answers[0][:] = 7  # a caller's answer is its own
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        np.testing.assert_array_equal(model.predict(X), (X[:, 0] > 0).astype(int))
        assert model.predict([[1.0, 0, 0]]).tolist() == [1]  # not an array: as it is
    assert Warns.calls == 3


def test_configured_or_switched_off_single_model(tmp_path):
    config = small_config(
        out=str(tmp_path / "out"), datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "gini", "estimator": "VRTrees", "params": {"n_estimators": 5},
                    "single": {"estimator": "DecisionTree", "params": {"criterion": "gini"}}},
                   {"name": "none", "estimator": "VRTrees", "params": {"n_estimators": 5},
                    "single": False}])
    ds = run(config, progress=False)
    assert np.isnan(ds.single_error.sel(ensemble="none")).all()
    wine = D.load_builtin("wine")
    split = StratifiedKFold(3, random_state=1).get(wine, 0, 2)
    seed = cell_seed(1, "estimator", "wine", [], "gini", 0, 2)
    tree = treelab.DecisionTree(criterion="gini", random_state=seed).fit(split.train.X,
                                                                        split.train.y)
    direct = np.mean(tree.predict(split.test.X) != split.test.y)
    got = ds.single_error.sel(dataset="wine", ensemble="gini", fold=2)
    np.testing.assert_allclose(got.sel(alpha=[0.0, 1.0]), direct, atol=1e-12)


def test_rerun_skips_finished_cells_and_assembles_the_same(tmp_path):
    config = small_config(out=str(tmp_path / "out"),
                          datasets=[{"name": "wine", "builtin": "wine"}])
    first = run(config, progress=False)
    lines = (tmp_path / "out" / "cells.jsonl").read_bytes()
    assert status(config) == {"total": 9, "done": 9, "pending": 0, "failed": 0}
    second = run(config, progress=False)
    assert (tmp_path / "out" / "cells.jsonl").read_bytes() == lines  # nothing recomputed
    xr.testing.assert_identical(first, second)  # timings come from the stored cells too
    # a partial last line (a writer killed mid-line) is ignored and cut off
    with open(tmp_path / "out" / "cells.jsonl", "ab") as fh:
        fh.write(b'{"key": "abc", "vars": {')
    third = run(config, progress=False)
    xr.testing.assert_identical(first, third)
    assert (tmp_path / "out" / "cells.jsonl").read_bytes() == lines
    # a changed configuration reuses the cells it shares
    bigger = config.replace(alphas=[0.0, 0.5, 1.0])
    assert status(bigger) == {"total": 12, "done": 9, "pending": 3, "failed": 0}
    grown = run(bigger, progress=False)
    xr.testing.assert_equal(strip(grown.sel(alpha=[0.0, 1.0, np.nan])), strip(first))


def _process_table():
    """``{pid: (parent pid, state)}`` of every process, read from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def _descendants(pid):
    table = _process_table()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, (ppid, _) in table.items() if ppid in frontier} - found
        found |= frontier
    return found


def _running(pids):
    """The pids of ``pids`` that still run (a zombie has exited: it is not counted)."""
    table = _process_table()
    return {p for p in pids if p in table and table[p][1] != "Z"}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("backend", ["serial", "local"])
def test_sigkill_loses_only_cells_in_flight(tmp_path, backend):
    out = tmp_path / "killed"
    script = tmp_path / "job.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO / 'tests')!r})
        from test_experiment import small_config
        from treelab.experiment import run
        if __name__ == "__main__":  # worker processes import this file again
            run(small_config(out={str(out)!r}, alphas=[0.0, 0.5, 1.0]), progress=False,
                backend={backend!r}, n_workers=2)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=REPO)
    cells_file = out / "cells.jsonl"
    deadline = time.time() + 240
    while time.time() < deadline:
        if cells_file.exists() and cells_file.read_bytes().count(b"\n") >= 8:
            break
        if proc.poll() is not None:
            pytest.fail("the run finished before it could be killed")
        time.sleep(0.02)
    children = _descendants(proc.pid)
    if backend == "local":  # forkserver, resource tracker and two workers at least
        assert len(children) >= 3, children
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # no process the run started outlives it: workers watch their parent
    deadline = time.time() + 10
    while _running(children) and time.time() < deadline:
        time.sleep(0.1)
    assert not _running(children), f"orphans still running: {sorted(_running(children))}"
    config = small_config(out=str(out), alphas=[0.0, 0.5, 1.0])
    raw = cells_file.read_bytes()
    complete = raw.count(b"\n")
    state = status(config)
    assert state["done"] == complete and 8 <= complete < state["total"]
    resumed = run(config, progress=False)
    assert cells_file.read_bytes()[: raw.rfind(b"\n") + 1] == raw[: raw.rfind(b"\n") + 1]
    assert status(config)["done"] == state["total"]
    fresh = run(config.replace(out=str(tmp_path / "fresh")), progress=False)
    xr.testing.assert_identical(strip(resumed), strip(fresh))


def test_failing_cells_raise_or_continue(tmp_path):
    # Agg. weighs more (101 trees against the 100 assumed for an estimator without
    # n_estimators), so in each fold batch its cell runs before the broken one
    bad = [{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 101}},
           {"name": "broken", "estimator": "helpers_faults:FailingClassifier"}]
    config = small_config(out=str(tmp_path / "a"), ensembles=bad, alphas=[0.5],
                          datasets=[{"name": "wine", "builtin": "wine"}])
    with pytest.raises(ExperimentError, match="always fails"):
        run(config, progress=False)
    assert status(config)["done"] == 1  # the Agg. cell before the failure is kept
    ds = run(config.replace(on_error="continue"), progress=False)
    assert ds.attrs["failed_cells"] == 3
    assert np.all(np.isnan(ds.ensemble_error.sel(ensemble="broken")))
    assert not np.any(np.isnan(ds.ensemble_error.sel(ensemble="Agg.", alpha=0.5)))
    assert len(CellStore(tmp_path / "a").errors()) == 3


def test_one_writer_per_folder(tmp_path):
    with CellStore(tmp_path), pytest.raises(StoreLockedError):
        CellStore(tmp_path).open()


def test_draw_protocol_with_fixed_lattice_and_irrelevant_attributes(tmp_path):
    config = ExperimentConfig(
        datasets=[{"name": "A", "generator": "concepts", "params": {"concept": "A"},
                   "test": {"generator": "concepts_lattice", "params": {"resolution": 20}}}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 5}},
                   {"name": "Coalescence", "estimator": "Coalescence",
                    "params": {"n_estimators": 5}}],
        alphas=[0.0, 1.0],
        protocol={"name": "draws", "n_repeats": 2, "n_train": 64, "n_test": 100},
        transforms=[{"kind": "irrelevant", "values": [0, 3], "distribution": "uniform"}],
        out=str(tmp_path / "c"),
    )
    ds = run(config, progress=False)
    assert ds.sizes["n_irrelevant"] == 2 and ds.sizes["repeat"] == 2 and ds.sizes["fold"] == 1
    assert set(np.unique(ds.n_test.values[~np.isnan(ds.n_test.values)])) == {400.0}
    assert set(np.unique(ds.n_train.values[~np.isnan(ds.n_train.values)])) == {64.0}
    assert "exact_mse" in ds  # true probabilities of the lattice reach the measures
    assert json.loads(ds.attrs["config"])["protocol"]["name"] == "draws"


def test_loaded_table_with_nominal_columns(tmp_path):
    frame = D.monks(1).to_frame()
    path = tmp_path / "monk.csv"
    frame.to_csv(path, index=False)
    config = small_config(datasets=[{"name": "monk", "path": str(path),
                                     "params": {"nominal": list(frame.columns[:-1])}}],
                          out=str(tmp_path / "m"), alphas=[1.0])
    ds = run(config, progress=False)
    # MONK-1 is learnable by a deterministic tree with nominal splits
    assert float(ds.ensemble_error.sel(ensemble="Agg.").mean()) < 0.15


def test_run_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="out"):
        run(small_config(), progress=False)
    with pytest.raises(ValueError, match="backend"):
        run(small_config(out=str(tmp_path)), backend="gpu", progress=False)
    with pytest.raises(TypeError, match="source"):
        load_config(3)
    with pytest.raises(ValueError, match="var"):
        summary(xr.Dataset(), var="nope")


def test_environment_has_no_stray_output(tmp_path):
    # run() writes only inside its out folder
    before = set(os.listdir(tmp_path))
    run(small_config(out=str(tmp_path / "o"), datasets=[{"name": "wine", "builtin": "wine"}],
                     alphas=[0.0]), progress=False)
    assert set(os.listdir(tmp_path)) - before == {"o"}
    assert sorted(os.listdir(tmp_path / "o")) == ["cells.jsonl", "config.json",
                                                  "result.nc", "summary.csv"]


def test_other_measures_and_foreign_estimators(tmp_path):
    config = small_config(
        datasets=[{"name": "wine", "builtin": "wine"}],
        ensembles=[{"name": "Agg.", "estimator": "VRTrees", "params": {"n_estimators": 4}},
                   {"name": "sk-rf", "estimator": "sklearn.ensemble:RandomForestClassifier",
                    "params": {"n_estimators": 4}}],
        alphas=[0.5],
        measures={"diagnose": {"k": [1, 2]}, "reliability": {"bins": 4}},
        out=str(tmp_path / "m"),
    )
    ds = run(config, progress=False)
    assert ds.sizes["k"] == 2 and ds.sizes["bin"] == 4 and ds.sizes["class"] == 3
    assert "count" in ds or any("bin" in ds[v].dims for v in ds.data_vars)
    # a scikit-learn estimator without member outputs still gets its error
    sk = ds.ensemble_error.sel(ensemble="sk-rf", alpha=float("nan"))
    assert np.all((sk >= 0) & (sk <= 1))
    assert np.all(np.isnan(ds.phi_e.sel(ensemble="sk-rf")))


def test_leave_one_out_and_subsample_sweep(tmp_path):
    config = small_config(
        datasets=[{"name": "3-of-5", "generator": "m_of_n", "n_samples": 16,
                   "params": {"m": 3, "n": 5}}],
        ensembles=[{"name": "RF", "estimator": "RandomForest", "params": {"n_estimators": 3}}],
        protocol={"name": "loo"},
        transforms=[{"kind": "subsample", "values": [0.5, 1.0], "stratify": False}],
        out=str(tmp_path / "loo"),
    )
    ds = run(config, progress=False)
    assert ds.sizes["fold"] == 16 and ds.sizes["train_size"] == 2
    np.testing.assert_array_equal(ds.n_test.values.ravel(), 1.0)
    assert set(np.unique(ds.n_train.values)) == {8.0, 15.0}  # round(0.5 * 15) and 15
