"""What an experiment can know before any cell runs, it checks then (issue 39 items 17-19):
an estimator that is not a classifier, labels that are not classes, a data set with one class,
a training fold with one class, an alpha given twice, an unreachable dask scheduler; and an
orderly stop (a failed cell with on_error="raise") leaves no stale ``.lock``."""

import pandas as pd
import pytest

from treelab.experiment import ExperimentConfig, ExperimentError, run
from treelab.experiment import backends as experiment_backends

IRIS = [{"name": "iris", "builtin": "iris"}]
TWO_FOLDS = {"name": "stratified_kfold", "n_splits": 2}


def _config(tmp_path, **changes):
    spec = {"datasets": IRIS, "protocol": TWO_FOLDS, "out": str(tmp_path / "o"),
            "ensembles": [{"estimator": "RandomForest", "params": {"n_estimators": 2}}]}
    spec.update(changes)
    return ExperimentConfig(**spec)


@pytest.mark.parametrize("entry, where", [
    ({"name": "reg", "estimator": "sklearn.ensemble:RandomForestRegressor"},
     r"ensembles\['reg'\].estimator: RandomForestRegressor is a regressor"),
    ({"name": "iso", "estimator": "sklearn.ensemble:IsolationForest"},
     r"ensembles\['iso'\].estimator: IsolationForest is an outlier detector"),
    ({"name": "rf", "estimator": "RandomForest",
      "single": {"estimator": "sklearn.tree:DecisionTreeRegressor"}},
     r"ensembles\['rf'\].single.estimator: DecisionTreeRegressor is a regressor"),
])
def test_an_estimator_that_is_not_a_classifier_is_refused(tmp_path, entry, where):
    with pytest.raises(ValueError, match=where):
        _config(tmp_path, ensembles=[entry])


def _csv(tmp_path, labels, name="t.csv"):
    path = tmp_path / name
    pd.DataFrame({"x": range(len(labels)), "target": labels}).to_csv(path, index=False)
    return [{"name": "csv", "path": str(path)}]


@pytest.mark.parametrize("labels, message", [
    (["a"] * 10, r"datasets\['csv'\]: every row has the class 'a' \(10 rows\)"),
    ([0.5, 1.25, 2.75, 3.5, 0.25, 1.5, 2.0, 3.25], r"datasets\['csv'\]: the labels are "
                                                   r"continuous"),
    (["a", "a", "a", "b"], r"datasets\['csv'\]: the training rows of repeat 0, fold \d of "
                           r"protocol 'stratified_kfold' hold the single class 'a'"),
])
def test_data_that_cannot_train_a_classifier_is_refused_before_any_cell(tmp_path, labels,
                                                                          message):
    config = _config(tmp_path, datasets=_csv(tmp_path, labels))
    with pytest.warns(UserWarning) if labels == ["a", "a", "a", "b"] else _nothing():
        with pytest.raises(ValueError, match=message):
            run(config, progress=False)
    assert not (tmp_path / "o").exists()  # refused before the output folder is made


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("changes, message", [
    ({"ensembles": [{"estimator": "VRTrees", "params": {"alpha": 0.2}}], "alphas": [0.5]},
     r"ensembles\['VRTrees'\].params sets alpha = 0.2 and alphas sweeps \[0.5\]"),
    ({"ensembles": [{"estimator": "VRTrees", "params": {"alpha": 0.2}, "alphas": [0.5]}]},
     r"ensembles\['VRTrees'\].params sets alpha = 0.2 and ensembles\['VRTrees'\].alphas "
     r"sweeps \[0.5\]"),
    ({"ensembles": [{"estimator": "VRTrees", "params": {"alpha": 0.5},
                     "alphas": [0.5, 0.7]}]}, r"sweeps \[0.5, 0.7\]"),
])
def test_params_alpha_conflicting_with_alphas_is_refused(tmp_path, changes, message):
    with pytest.raises(ValueError, match=message):
        _config(tmp_path, **changes)


def test_params_alpha_equal_to_the_one_swept_alpha_is_accepted(tmp_path):
    a = _config(tmp_path, ensembles=[{"estimator": "VRTrees", "params": {"alpha": 0.5}}],
                alphas=[0.5])
    b = _config(tmp_path, ensembles=[{"estimator": "VRTrees", "params": {"alpha": 0.5},
                                      "alphas": [0.5]}])
    assert a.alphas_of(a.ensembles[0]) == b.alphas_of(b.ensembles[0]) == (0.5,)


def test_toml_alpha_conflict_is_refused(tmp_path):
    path = tmp_path / "x.toml"
    path.write_text('alphas = [0.5]\n[[datasets]]\nname = "iris"\nbuiltin = "iris"\n'
                    '[[ensembles]]\nestimator = "VRTrees"\nparams = { alpha = 0.2 }\n')
    with pytest.raises(ValueError, match="sets alpha = 0.2 and alphas sweeps"):
        ExperimentConfig.from_toml(path)


def test_unreachable_scheduler_is_named_within_a_short_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr(experiment_backends, "CONNECT_TIMEOUT", 1.0)
    config = _config(tmp_path, backend="dask", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ExperimentError, match=r"the dask scheduler at tcp://127.0.0.1:1 could "
                                              r"not be reached within 1 s"):
        run(config, progress=False)
    folder = tmp_path / "o"
    assert not (folder / ".lock").exists()
    assert not (folder / "cells.jsonl").is_file() or (folder / "cells.jsonl").stat().st_size == 0


def test_a_failed_cell_with_on_error_raise_leaves_no_lock(tmp_path):
    # more neighbours than training rows: the fit is accepted, the prediction fails in the cell
    config = _config(tmp_path, ensembles=[{"name": "knn",
                                           "estimator": "sklearn.neighbors:KNeighborsClassifier",
                                           "params": {"n_neighbors": 500}}])
    with pytest.raises(ExperimentError, match="failed"):
        run(config, progress=False)
    assert (tmp_path / "o" / "errors.jsonl").is_file()
    assert not (tmp_path / "o" / ".lock").exists()


def _grid(**changes):
    spec = dict(name="p", datasets=[{"name": "wine", "builtin": "wine"}],
                ensembles=[{"name": "Agg.", "estimator": "VRTrees",
                            "params": {"n_estimators": 3}}],
                protocol={"name": "stratified_kfold", "n_splits": 3})
    spec.update(changes)
    return ExperimentConfig(**spec)


@pytest.mark.parametrize("dim", ["k", "threshold", "class", "tree", "margin_threshold"])
def test_a_transform_sweeping_a_measures_dim_is_refused(dim):
    # dim = "k" with three noise levels once ran and wrote a result whose noise coordinate
    # was diagnose's k, and a summary of the first level alone
    with pytest.raises(ValueError, match=rf"transforms\['class_noise'\]\.dim must not be one "
                                         rf"of .*'{dim}'"):
        _grid(transforms=[{"kind": "class_noise", "values": [0.0, 0.1, 0.2], "dim": dim}])


@pytest.mark.parametrize("n_jobs", [-2, -5])
def test_n_jobs_below_minus_one_is_refused(n_jobs):
    with pytest.raises(ValueError, match=rf"n_jobs must be a positive integer \(n_jobs: or "
                                         rf"-1\); got {n_jobs}"):
        _grid(n_jobs=n_jobs)


def test_replace_seed_moves_a_protocol_seeded_by_the_experiment():
    # replace(seed=1) kept the folds of seed 0 while the estimators' seeds moved
    config = _grid(seed=0)
    assert config.replace(seed=1).protocol == _grid(seed=1).protocol
    assert config.replace(seed=1).protocol["random_state"] == 1
    # a protocol seeded on its own keeps its seed
    fixed = _grid(seed=0, protocol={"name": "stratified_kfold", "n_splits": 3,
                                      "random_state": 5})
    assert fixed.replace(seed=1).protocol["random_state"] == 5


@pytest.mark.parametrize("test, protocol, where", [
    # a misspelt parameter of the test generator failed in every cell, not before
    ({"generator": "waveform", "params": {"n_sampels": 60}},
     {"name": "draws", "n_repeats": 2, "n_train": 40},
     r"datasets\['wave'\].test.params: waveform\(\) has no parameters \['n_sampels'\]"),
    # an index protocol tests on rows of the data set: the fixed test set was ignored
    ({"generator": "waveform", "params": {"n_samples": 60}}, TWO_FOLDS,
     r"datasets\['wave'\].test: a fixed test set is for the draw protocols .* protocol "
     r"'stratified_kfold' tests on rows of the data set"),
])
def test_a_fixed_test_set_that_cannot_be_drawn_or_would_be_ignored_is_refused(
        tmp_path, test, protocol, where):
    wave = {"name": "wave", "generator": "waveform", "test": test}
    if protocol is TWO_FOLDS:
        wave["n_samples"] = 90
    with pytest.raises(ValueError, match=where):
        _config(tmp_path, datasets=[wave], protocol=protocol)
    # without the test set, or with a draw protocol and good parameters, accepted
    _config(tmp_path, datasets=[{k: v for k, v in wave.items() if k != "test"}],
            protocol=protocol)
    _config(tmp_path, datasets=[{**wave, "test": {"generator": "waveform",
                                                  "params": {"n_samples": 60}}}],
            protocol={"name": "draws", "n_repeats": 2, "n_train": 40})


def test_min_class_size_under_a_draw_protocol_is_refused(tmp_path):
    # the draws of a generator were taken whole: min_class_size = 1000 on led kept its ten
    # classes of 21-41 rows each
    led = {"name": "led", "generator": "led", "min_class_size": 1000}
    draws = {"name": "draws", "n_repeats": 1, "n_train": 300, "n_test": 100}
    with pytest.raises(ValueError, match=r"datasets\['led'\].min_class_size: protocol 'draws' "
                                         "draws every repeat's rows afresh"):
        _config(tmp_path, datasets=[led], protocol=draws)
    _config(tmp_path, datasets=[{**led, "min_class_size": 2, "n_samples": 200}])  # split
